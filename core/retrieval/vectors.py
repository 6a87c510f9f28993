"""Where the document vectors of a dense run come from: shipped, the disk cache, or a live encode.

NoiseFloor ships the all-MiniLM-L6-v2 vectors of the shipped scifact corpus
(``data/beir/scifact.vectors.npy``, float16, made by ``data/beir/make_scifact_vectors.py``)
with a manifest (``scifact.vectors.json``): model name, sentence-transformers version, a
SHA-256 of the model's weight files, the corpus content hash (``core.retrieval.beir.content_hash``),
shape, dtype, normalisation and the SHA-256 of the vector file. Shipped vectors are used only
when, in order:

1. a manifest names the same corpus content hash and the same model key;
2. the file's SHA-256 equals the manifest's (nothing in it is trusted before that);
3. a spot check passes: ``SPOT_N`` documents drawn with ``numpy.random.default_rng(SPOT_SEED)``
   are encoded live by the loaded model and every cosine with its shipped vector is at least
   ``MIN_COSINE`` (cosine = u.v / (|u| |v|); shipped rows are unit vectors up to float16
   rounding).

Otherwise the vectors come from the cache or a live encode, with a one-line note saying why.

The manifest may also describe the vectors of the collection's judged queries (its
``"queries"`` block: file, SHA-256, ``texts_sha256`` of the query ids and texts in order
(``queries_hash``), shape, float32, as ``encode_texts`` gave them to the dense ranking).
``shipped_queries`` uses them only when the block names the same query ids and texts, the
file's SHA-256 matches, every row is a unit vector, and a spot check of ``SPOT_N`` queries
encoded live passes as above; else the queries are encoded live (never cached).
"""
from __future__ import annotations

import hashlib
import io
import json
import math
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from core import checks
from core.retrieval.beir import BUNDLE, SHIPPED_ROOT, load_beir, unpack_bundle
from core.retrieval.safe_files import MAX_SIDECAR_BYTES, atomic_write, read_regular
from core.retrieval.spot_record import files_sha256, recall, record_key, remember
from core.retrieval.search import (CACHE_DIR, ENCODE_BATCH, Encoded, encode_texts,
                                   encoder_version, is_cached, load_model, model_version,
                                   resolve_model)

SHIPPED_ENV = "NOISEFLOOR_SHIPPED_DIR"  # where manifests are looked for (default data/beir)
SUFFIX = ".vectors.json"
SPOT_N, SPOT_SEED, MIN_COSINE = 32, 0, 0.999
SPOT_CHUNK = 8   # documents per step of the spot check's progress (and its ETA)
SHIPPED_NORM_TOLERANCE = 5e-3  # float16 unit rows: |norm - 1| is ~1e-3 at most
SOURCES = ("shipped", "cache", "live")


def shipped_dir() -> Path:
    return Path(os.environ.get(SHIPPED_ENV) or SHIPPED_ROOT)


@dataclass(frozen=True)
class SpotCheck:
    """``n`` shipped rows compared with a live encode of the same documents (seed ``seed``)."""

    n: int
    seed: int
    min_cosine: float
    threshold: float = MIN_COSINE

    @property
    def passed(self) -> bool:
        return bool(self.min_cosine >= self.threshold)

    def to_dict(self) -> dict:
        return {"n": self.n, "seed": self.seed, "min_cosine": self.min_cosine,
                "threshold": self.threshold, "passed": self.passed}


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def weights_sha256(model_source: str | os.PathLike) -> str | None:
    """SHA-256 over the model folder's weight files (``*.safetensors``, ``*.bin``), sorted by
    name (``core.retrieval.spot_record.files_sha256``); None when ``model_source`` is not a
    local folder (a hub name)."""
    return files_sha256(model_source, (".safetensors", ".bin"))


def find_manifest(content_hash: str, model_key: str, folder: Path | None = None
                  ) -> tuple[dict, Path] | None:
    """The manifest (and its path) describing vectors of this corpus by this model, if any."""
    folder = shipped_dir() if folder is None else Path(folder)
    if not folder.is_dir():
        return None
    for path in sorted(folder.glob(f"*{SUFFIX}")):
        try:
            meta = json.loads(read_regular(path, MAX_SIDECAR_BYTES))
        except (OSError, ValueError):
            continue
        if isinstance(meta, dict) and meta.get("corpus_sha256") == content_hash \
                and meta.get("model") == model_key:
            return meta, path
    return None


def read_shipped(meta: dict, manifest: Path, n: int) -> tuple[np.ndarray | None, str | None]:
    """(float32 vectors, None) when the file's SHA-256, dtype and shape match the manifest
    and every row is a unit vector (up to float16 rounding), else (None, reason):
    "missing", "checksum", "shape", "not_finite" or "not_unit". The manifest can be
    rewritten along with the file, so the rows are checked themselves (the spot check only
    encodes ``SPOT_N`` of them); only a regular file is opened."""
    path = manifest.parent / str(meta.get("file", ""))
    if not path.is_file():  # False for a FIFO or a device: never opened
        return None, "missing"
    if file_sha256(path) != meta.get("sha256"):
        return None, "checksum"
    try:
        arr = np.load(path, allow_pickle=False)
    except (OSError, ValueError):
        return None, "checksum"
    if str(arr.dtype) != meta.get("dtype") or list(arr.shape) != meta.get("shape") \
            or arr.ndim != 2 or arr.shape[0] != n:
        return None, "shape"
    out = arr.astype(np.float32)
    if not np.isfinite(out).all():
        return None, "not_finite"
    norms = np.linalg.norm(out.astype(np.float64), axis=1)
    if n and not (np.abs(norms - 1.0) <= SHIPPED_NORM_TOLERANCE).all():
        return None, "not_unit"
    return out, None


def queries_hash(query_ids: Sequence[str], texts: Sequence[str]) -> str:
    """SHA-256 over each query id and text in order (``id \\0 text \\0``): which queries, in
    which order, a shipped query file holds."""
    checks.same_length(query_ids=query_ids, texts=texts)
    h = hashlib.sha256()
    for q, text in zip(query_ids, texts):
        h.update(str(q).encode("utf-8") + b"\x00" + str(text).encode("utf-8") + b"\x00")
    return h.hexdigest()


def spot_sample(n_docs: int, n: int = SPOT_N, seed: int = SPOT_SEED) -> np.ndarray:
    """Sorted positions of ``min(n, n_docs)`` documents drawn without replacement."""
    n_docs = checks.whole("n_docs", n_docs, lo=1)
    k = min(checks.whole("n", n, lo=1), n_docs)
    return np.sort(np.random.default_rng(checks.seed(seed)).choice(n_docs, k, replace=False))


def spot_check(shipped: np.ndarray, texts: Sequence[str], model, *, n: int = SPOT_N,
               seed: int = SPOT_SEED, threshold: float = MIN_COSINE,
               batch_size: int = ENCODE_BATCH, progress=None) -> SpotCheck:
    """Encode ``n`` seeded random documents live and compare with their shipped rows:
    min over the sample of cos(u, v) = u.v / (|u| |v|). The documents are encoded
    ``SPOT_CHUNK`` at a time; after each, ``progress(done, n, eta)`` (``eta``: seconds left at
    the rate of the chunks so far, as ``core.retrieval.encode_texts`` reports)."""
    checks.same_length(shipped=shipped, texts=texts)
    picks = spot_sample(len(texts), n, seed)
    parts, t0 = [], time.perf_counter()
    if progress:
        progress(0, len(picks), None)
    for start in range(0, len(picks), SPOT_CHUNK):
        sel = picks[start:start + SPOT_CHUNK]
        parts.append(np.asarray(model.encode([texts[i] for i in sel], batch_size=batch_size,
                                             normalize_embeddings=True, convert_to_numpy=True,
                                             show_progress_bar=False), dtype=np.float64))
        if progress:
            done = start + len(sel)
            progress(done, len(picks), (time.perf_counter() - t0) / done * (len(picks) - done))
    live = np.concatenate(parts) if len(parts) > 1 else parts[0]
    ship = shipped[picks].astype(np.float64)
    if live.shape != ship.shape:
        return SpotCheck(len(picks), seed, float("-inf"), threshold)
    cos = np.sum(live * ship, axis=1) / (np.linalg.norm(live, axis=1) *
                                         np.linalg.norm(ship, axis=1))
    return SpotCheck(len(picks), seed, float(np.min(cos)), threshold)


_CHECKED: dict[tuple, SpotCheck] = {}  # spot checks passed in this process (see below)


def _check_key(kind: str, file_sha, texts_sha: str, source: str, model_key: str) -> tuple:
    """The key of a passed spot check: what was checked ("docs" or "queries"), the shipped
    file's SHA-256, the texts' (content hash or ``queries_hash``), the model's source and
    key and its encoder (``encoder_version``)."""
    return (kind, file_sha, texts_sha, source, model_key, encoder_version(model_key))


def _on_record(key: tuple) -> SpotCheck | None:
    """The check passed for ``key`` in this process, else the one on record on disk
    (``core.retrieval.spot_record.recall``: its key computed from the files now; kept in
    this process once read), else None."""
    if key in _CHECKED:
        return _CHECKED[key]
    kind, file_sha, texts_sha, source, model_key, _ = key
    got = recall(record_key(kind, file_sha, texts_sha, source, model_key, n=SPOT_N,
                            seed=SPOT_SEED, threshold=MIN_COSINE))
    if got is None:
        return None
    check = SpotCheck(got["n"], got["seed"], got["min_cosine"], got["threshold"])
    _CHECKED[key] = check
    return check


def _remembered_check(what: tuple, emb, texts, model_name, model_key, get_model,
                      progress) -> SpotCheck:
    """The spot check of the shipped vectors ``emb`` against ``texts`` encoded live, or one
    passed earlier for the same file, texts, model and encoder (``what`` = (kind, file
    SHA-256, texts' SHA-256)): in this process, or by another one and kept on disk
    (``core.retrieval.spot_record``: checked before it is trusted). A check passed here is
    written there. Remembered only for a model loaded from its files (``get_model`` None,
    or a loader marked ``from_files``), never for a model object handed in."""
    from_files = get_model is None or getattr(get_model, "from_files", False)
    key = _check_key(*what, resolve_model(model_name)[0], model_key)
    check = _on_record(key) if from_files else None
    if check is None:
        model = get_model() if get_model is not None else load_model(model_name)
        check = spot_check(emb, texts, model, progress=progress)
        if check.passed and from_files:
            _CHECKED[key] = check
            remember(record_key(*key[:5], n=SPOT_N, seed=SPOT_SEED, threshold=MIN_COSINE),
                     **{k: v for k, v in check.to_dict().items() if k != "passed"})
    return check


def forget_checks() -> None:
    """Forget the spot checks passed in this process: the next ``shipped_vectors`` reads the
    record on disk again, or encodes its sample. For a process that swaps the model behind
    the same files (tests do)."""
    _CHECKED.clear()


def _shipped_keys(content_hash: str, model_name: str | None, folder: Path | None,
                  queries: tuple | None = None) -> tuple[tuple | None, tuple | None]:
    """The spot-check keys (``_check_key``) of the shipped document vectors of this corpus
    and model and of the shipped query vectors of ``queries`` = (ids, texts) (None where
    none are shipped). Reads the manifest only."""
    source, model_key = resolve_model(model_name)
    found = find_manifest(content_hash, model_key, folder)
    if found is None:
        return None, None
    docs = _check_key("docs", found[0].get("sha256"), content_hash, source, model_key)
    block = found[0].get("queries")
    texts_sha = queries_hash(*queries) if queries is not None else None
    if not isinstance(block, dict) or texts_sha is None or \
            block.get("texts_sha256") != texts_sha:
        return docs, None
    return docs, _check_key("queries", block.get("sha256"), texts_sha, source, model_key)


def on_record_states(folder: Path | None = None) -> dict:
    """For the vectors shipped in ``folder`` (default ``shipped_dir()``) for the default
    model: ``{"docs": state, "queries": state}``, "recorded" when its spot check passed (in
    this process or on record, the texts named by the manifest's ``corpus_sha256`` and
    ``texts_sha256``), "pending" when not, "none" when nothing is shipped or the model is
    not a local folder (no record can name it). Reads the manifest and hashes the files."""
    source, model_key = resolve_model(None)
    states = {"docs": "none", "queries": "none"}
    folder = shipped_dir() if folder is None else Path(folder)
    if files_sha256(source) is None or not folder.is_dir():
        return states
    for path in sorted(folder.glob(f"*{SUFFIX}")):
        try:
            meta = json.loads(read_regular(path, MAX_SIDECAR_BYTES))
        except (OSError, ValueError):
            continue
        if not isinstance(meta, dict) or meta.get("model") != model_key:
            continue
        block = meta.get("queries") if isinstance(meta.get("queries"), dict) else {}
        for kind, part, texts in (("docs", meta, meta.get("corpus_sha256")),
                                  ("queries", block, block.get("texts_sha256"))):
            if texts is not None:
                key = _check_key(kind, part.get("sha256"), texts, source, model_key)
                states[kind] = "recorded" if _on_record(key) is not None else "pending"
        return states
    return states


def file_loader(model: str | None = None) -> Callable[[], object]:
    """A ``get_model`` that loads ``model`` from its files (``load_model``) on first call
    and keeps it (one load per run, however many encodes need it); marked ``from_files``,
    so spot checks it passes are remembered and recorded."""
    kept: list = []

    def get():
        if not kept:
            kept.append(load_model(model))
        return kept[0]
    get.from_files = True
    return get


def warm_shipped_checks(*, on_check: Callable[[], None] | None = None) -> dict:
    """The spot checks of the shipped scifact vectors (documents and queries, default model)
    made once, before anyone waits on them (``python -m core warm-up``, which ``make run``
    and ``make test`` run first). When both are on record (``core.retrieval.spot_record``,
    keys checked against the files: the manifest's corpus and query hashes stand in for the
    texts, which the page verifies when it uses them) nothing is read but the manifest and
    the hashed files. Otherwise ``on_check()`` is called (the CLI says what the pause is),
    the shipped archive is unpacked into a temporary folder and each check runs
    (``shipped_vectors``, ``shipped_queries``; a passed one is recorded). Returns
    ``{"docs": state, "queries": state}``, each "recorded" (on record already), "passed" or
    "failed" (checked now), or "none" (nothing shipped for the default model, or no model
    folder to check against)."""
    states = on_record_states()
    if "pending" not in states.values():
        return states
    if on_check is not None:
        on_check()
    with tempfile.TemporaryDirectory(prefix="noisefloor-spot-") as tmp:
        folder = unpack_bundle(Path(tmp) / "scifact", bundle=BUNDLE)
        data = load_beir(folder) if folder is not None else None
        get = file_loader(None)
        for kind in ("docs", "queries"):
            if states[kind] != "pending":
                continue
            if data is None:
                states[kind] = "none"
                continue
            qids = data.query_ids
            got, notes = (shipped_vectors(data.texts, data.content_hash, get_model=get)
                          if kind == "docs" else
                          shipped_queries(qids, [data.queries[q] for q in qids],
                                          data.content_hash, get_model=get))
            states[kind] = "passed" if got is not None else "failed" if notes else "none"
    return states


def spot_check_pending(content_hash: str, model_name: str | None = None,
                       folder: Path | None = None) -> bool:
    """True when vectors for this corpus and model are shipped and their spot check has not
    passed yet, in this process or on record (``shipped_vectors`` would encode ``SPOT_N``
    documents): the page then shows that step's progress. Reads the manifest and the
    record only."""
    docs, _ = _shipped_keys(content_hash, model_name, folder)
    return docs is not None and _on_record(docs) is None


def shipped_vectors(texts: Sequence[str], content_hash: str, *, model_name: str | None = None,
                    get_model: Callable[[], object] | None = None, folder: Path | None = None,
                    progress=None) -> tuple[Encoded | None, list]:
    """(Encoded with source "shipped", notes) when vectors for this corpus and model are
    shipped and pass the checksum and the spot check; else (None, notes), the notes saying
    why shipped vectors were refused (none when nothing is shipped for this corpus).

    The checksum is verified on every call; a spot check that passed is remembered for the
    rest of the process, keyed by the file's SHA-256, the model and its encoder
    (``core.retrieval.search.encoder_version``: the numpy encoder or the sentence-transformers
    version; the same file, model files and encoder give the same cosines), so a second run
    in one process does not load the model for it. Only for models loaded from their files:
    ``get_model`` None, or a loader with ``from_files = True`` (``core.retrieval.scifact``'s).
    ``progress`` follows the spot check (``spot_check``)."""
    _, model_key = resolve_model(model_name)
    found = find_manifest(content_hash, model_key, folder)
    if found is None:
        return None, []
    meta, manifest = found
    t0 = time.perf_counter()
    emb, reason = read_shipped(meta, manifest, len(texts))
    if emb is None:
        return None, [("shipped_rejected", {"reason": reason})]
    check = _remembered_check(("docs", meta.get("sha256"), content_hash), emb, texts, model_name,
                              model_key, get_model, progress)
    if not check.passed:
        return None, [("shipped_spot_failed", {"n": check.n, "min": floor5(check.min_cosine),
                                               "threshold": f"{check.threshold:g}"})]
    return Encoded(emb, True, time.perf_counter() - t0, str(manifest.parent / meta["file"]),
                   source="shipped", check=check), []


def shipped_queries(query_ids: Sequence[str], texts: Sequence[str], content_hash: str, *,
                    model_name: str | None = None,
                    get_model: Callable[[], object] | None = None,
                    folder: Path | None = None, progress=None) -> tuple[Encoded | None, list]:
    """(Encoded with source "shipped", notes) when the manifest of this corpus and model
    holds a ``"queries"`` block for exactly these query ids and texts, its file passes the
    checksum and its spot check (``SPOT_N`` queries encoded live, min cosine >=
    ``MIN_COSINE``); else (None, notes), the notes saying why shipped query vectors were
    refused (none when none are shipped for these queries). A passed check is remembered
    for the process as ``shipped_vectors`` does; ``progress`` follows the spot check."""
    _, model_key = resolve_model(model_name)
    found = find_manifest(content_hash, model_key, folder)
    block = found[0].get("queries") if found is not None else None
    texts_sha = queries_hash(query_ids, texts)
    if not isinstance(block, dict) or block.get("texts_sha256") != texts_sha:
        return None, []
    t0 = time.perf_counter()
    emb, reason = read_shipped(block, found[1], len(texts))
    if emb is None:
        return None, [("shipped_queries_rejected", {"reason": reason})]
    check = _remembered_check(("queries", block.get("sha256"), texts_sha), emb, texts, model_name,
                              model_key, get_model, progress)
    if not check.passed:
        return None, [("shipped_queries_spot_failed", {
            "n": check.n, "min": floor5(check.min_cosine), "threshold": f"{check.threshold:g}"})]
    return Encoded(emb, True, time.perf_counter() - t0, str(found[1].parent / block["file"]),
                   source="shipped", check=check), []


def queries_check_pending(query_ids: Sequence[str], texts: Sequence[str], content_hash: str,
                          model_name: str | None = None, folder: Path | None = None) -> bool:
    """True when query vectors for these queries are shipped and their spot check has not
    passed yet, in this process or on record (``shipped_queries`` would encode ``SPOT_N``
    queries)."""
    _, key = _shipped_keys(content_hash, model_name, folder, (query_ids, texts))
    return key is not None and _on_record(key) is None


def checks_on_record(query_ids: Sequence[str], texts: Sequence[str], content_hash: str,
                     model_name: str | None = None, folder: Path | None = None) -> bool:
    """True when both the documents' and these queries' vectors are shipped for this model
    and both spot checks passed, in this process or on record: the shipped vectors then
    serve the dense ranking without loading the model (should a file fail its checksum
    after all, the model is loaded where it is needed)."""
    keys = _shipped_keys(content_hash, model_name, folder, (query_ids, texts))
    return all(k is not None and _on_record(k) is not None for k in keys)


def document_vectors(texts: Sequence[str], content_hash: str, *,
                     model_name: str | None = None,
                     get_model: Callable[[], object] | None = None, cache_dir=CACHE_DIR,
                     encode_all: bool = False, allow_encode: bool = True, progress=None,
                     folder: Path | None = None, shipped: bool = True
                     ) -> tuple[Encoded | None, list]:
    """The corpus vectors and the notes about where they came from.

    Order: shipped vectors (``shipped_vectors``) unless ``encode_all`` or ``shipped=False``
    (the page, once a live re-encode has filled the cache); else the disk cache;
    else a live encode (``core.retrieval.search.encode_texts``, resumable) when ``allow_encode``.
    ``encode_all`` re-encodes every document live and overwrites the cache entry. Returns
    (None, notes) when an encode is needed but not allowed (the page then starts it as a
    background job, ``core.retrieval.encode_job``)."""
    notes: list = []
    if not encode_all and shipped:
        got, notes = shipped_vectors(texts, content_hash, model_name=model_name,
                                     get_model=get_model, folder=folder)
        if got is not None:
            return got, notes
    if not encode_all:
        if cache_dir is not None and is_cached(texts, model_name=model_name, kind="corpus",
                                               content_hash=content_hash, cache_dir=cache_dir):
            enc = encode_texts(texts, model_name=model_name, get_model=get_model,
                               content_hash=content_hash, cache_dir=cache_dir)
            return enc, notes + list(enc.notes)
    if not allow_encode:
        return None, notes
    enc = encode_texts(texts, model_name=model_name, get_model=get_model, kind="corpus",
                       content_hash=content_hash, cache_dir=cache_dir, progress=progress,
                       refresh=encode_all)
    return enc, notes + list(enc.notes)


def floor5(x: float) -> str:
    """``x`` rounded down to 5 decimals: a min cosine of 0.9999997 reads 0.99999, never a
    1.00000 that looks like an exact match."""
    return "-inf" if not np.isfinite(x) else f"{math.floor(x * 1e5) / 1e5:.5f}"


def provenance(enc: Encoded) -> tuple[str, dict]:
    """(source, parameters): one line saying where the vectors came from is the i18n key
    ``scifact.vectors_<source>`` filled with the parameters (source one of ``SOURCES``)."""
    if enc.source == "shipped":
        params = {"file": Path(enc.path).name, "n": enc.check.n,
                  "min": floor5(enc.check.min_cosine)}
    elif enc.source == "cache":
        params = {"file": Path(enc.path).name}
    else:
        rate = enc.per_second
        params = {"n": f"{len(enc.embeddings) - enc.resumed:,}", "seconds": f"{enc.seconds:.0f}",
                  "rate": "…" if rate is None else f"{rate:.0f}",
                  "resumed": f"{enc.resumed:,}"}
    return enc.source, params


def vector_summary(enc: Encoded) -> dict:
    """Where the document vectors came from, for JSON output."""
    return {"source": enc.source, "file": Path(enc.path).name if enc.path else None,
            "n": int(len(enc.embeddings)), "width": enc.width,
            "seconds": round(enc.seconds, 3), "resumed": enc.resumed,
            "spot_check": enc.check.to_dict() if enc.check is not None else None}


def write_shipped(emb: np.ndarray, *, name: str, content_hash: str, model_key: str,
                  model_source: str, folder: Path, extra: dict | None = None) -> Path:
    """Write ``<name>.vectors.npy`` (float16) and its manifest ``<name>.vectors.json`` into
    ``folder``; returns the manifest's path. ``emb`` must be L2-normalised float32 rows."""
    emb = np.asarray(emb, dtype=np.float32)
    if emb.ndim != 2 or not np.isfinite(emb).all():
        raise ValueError("emb must be a finite 2-D array")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    npy = folder / f"{name}.vectors.npy"
    buf = io.BytesIO()
    np.save(buf, emb.astype(np.float16), allow_pickle=False)
    atomic_write(npy, buf.getvalue())
    npy.chmod(0o644)
    meta = {"file": npy.name, "sha256": file_sha256(npy), "model": model_key,
            "sentence_transformers": model_version(), "encoder": encoder_version(model_key),
            "weights_sha256": weights_sha256(model_source), "corpus_sha256": content_hash,
            "shape": list(emb.shape), "dtype": "float16",
            "normalisation": "L2 (normalize_embeddings=True), then cast to float16",
            "spot_check": {"n": SPOT_N, "seed": SPOT_SEED, "min_cosine": MIN_COSINE},
            **(extra or {})}
    manifest = folder / f"{name}{SUFFIX}"
    atomic_write(manifest, (json.dumps(meta, indent=1) + "\n").encode("utf-8"))
    manifest.chmod(0o644)
    return manifest


def write_shipped_queries(emb: np.ndarray, *, name: str, query_ids: Sequence[str],
                          texts: Sequence[str], folder: Path) -> dict:
    """Write ``<name>.query-vectors.npy`` (float32, as the dense ranking uses them: the
    verdict is the same as with a live encode) into ``folder``; returns the manifest's
    ``"queries"`` block (``write_shipped``'s ``extra={"queries": block}``)."""
    emb = np.asarray(emb, dtype=np.float32)
    if emb.ndim != 2 or len(emb) != len(texts) or not np.isfinite(emb).all():
        raise ValueError("emb must be a finite 2-D array with one row per query")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    npy = folder / f"{name}.query-vectors.npy"
    buf = io.BytesIO()
    np.save(buf, emb, allow_pickle=False)
    atomic_write(npy, buf.getvalue())
    npy.chmod(0o644)
    return {"file": npy.name, "sha256": file_sha256(npy), "texts_sha256": queries_hash(
        query_ids, texts), "shape": list(emb.shape), "dtype": "float32",
        "spot_check": {"n": SPOT_N, "seed": SPOT_SEED, "min_cosine": MIN_COSINE}}
