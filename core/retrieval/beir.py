"""A BEIR-format collection on disk: find it, check it, load it, or download it.

Layout (Thakur et al. 2021, "BEIR: A Heterogeneous Benchmark for Zero-shot Evaluation of
Information Retrieval Models", NeurIPS Datasets and Benchmarks)::

    <folder>/corpus.jsonl     {"_id": ..., "title": ..., "text": ...}   one document a line
    <folder>/queries.jsonl    {"_id": ..., "text": ...}                  one query a line
    <folder>/qrels/test.tsv   query-id <TAB> corpus-id <TAB> score       header line first

Any collection in this layout works (scifact, a team's own Korean corpus, ...). The queries
evaluated are those with judgements in the qrels file. Every retriever sees the same document
text, ``(title + " " + text).strip()``. A malformed line, a duplicate id, or a judgement naming
an unknown document or query raises ``InputError`` with the file and its 1-based line number.

Where the folder comes from: an explicit path (``--data DIR`` or the page's path field), else
the ``NOISEFLOOR_BEIR_DIR`` environment variable, else ``data/beir/scifact/`` in the repository
(git-ignored; ``NOISEFLOOR_BEIR_ROOT`` moves ``data/beir/`` for unpacking and listing, as the
tests do so they never touch the checkout). The repository ships scifact compressed as ``data/beir/scifact.tar.gz``
(SciFact, Wadden et al. 2020, CC BY-NC 2.0, in BEIR's packaging; see ``data/beir/README.md``):
``unpack_bundle`` checks its SHA-256 against ``BUNDLE_SHA256`` and unpacks it into the default
folder on first use, so the scifact page works on a fresh offline machine. Other BEIR sets:
``download_beir`` fetches them with the ``datasets`` library (``BeIR/<name>`` configs
``corpus`` and ``queries``; ``BeIR/<name>-qrels`` split ``test``) after a quick check that
the hub answers, so an offline machine gets one clear message within seconds.
"""
from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import shutil
import socket
import tarfile
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from core import checks
from core.errors import InputError
from core.inputs import parse_number
from core.retrieval.safe_files import FileTooLarge, NotRegularFile, read_regular

SPLITS = ("train", "dev", "test")   # the BEIR qrels splits with a name on screen (scifact.split_*)

ENV_VAR = "NOISEFLOOR_BEIR_DIR"
ANY_PATH_ENV = "NOISEFLOOR_ALLOW_ANY_PATH"  # "1": the page offers a free path field
ROOT_ENV = "NOISEFLOOR_BEIR_ROOT"  # where collections are unpacked and listed (tests: a tmp dir)
REPO_ROOT = Path(__file__).resolve().parents[2]
SHIPPED_ROOT = REPO_ROOT / "data" / "beir"  # the files shipped in git (archive, vectors)
BEIR_ROOT = Path(os.environ.get(ROOT_ENV) or SHIPPED_ROOT)
DEFAULT_DIR = BEIR_ROOT / "scifact"
EXCERPT = 40  # characters of a file's own text quoted in an error message, at most
CORPUS, QUERIES, QRELS_DIR = "corpus.jsonl", "queries.jsonl", "qrels"
BUNDLE = SHIPPED_ROOT / "scifact.tar.gz"
BUNDLE_MEMBERS = (CORPUS, f"{QRELS_DIR}/test.tsv", QUERIES)  # sorted, as packed
BUNDLE_SHA256 = "28adc1adc0e7e2c79f3e8c9475d2f8dfcba9b2c5108aed776f6b15eb956a8bbf"
HUB_HOST = "huggingface.co"
HUB_TIMEOUT = 2.5  # seconds; the whole offline check stays under 3 s
# The largest corpus, queries or qrels file read. Not the uploads' 50 MB: a collection at
# the CLI's --max-docs (50,000 documents) of scifact-length abstracts (1.5 kB) is 75 MB.
MAX_FILE_BYTES = 200 * 1024 * 1024


@dataclass(frozen=True)
class BeirData:
    """One loaded collection. Documents are kept in file order; ``texts[i]`` belongs to
    ``doc_ids[i]``. ``queries`` and ``qrels`` hold only the judged queries of ``split``."""

    name: str
    path: str
    split: str
    doc_ids: tuple[str, ...] = field(repr=False)
    titles: tuple[str, ...] = field(repr=False)
    texts: tuple[str, ...] = field(repr=False)
    queries: dict[str, str] = field(repr=False)
    qrels: dict[str, dict[str, int]] = field(repr=False)
    content_hash: str = ""

    @property
    def n_docs(self) -> int:
        return len(self.doc_ids)

    @property
    def n_queries(self) -> int:
        return len(self.qrels)

    @property
    def n_judgements(self) -> int:
        return sum(len(j) for j in self.qrels.values())

    @property
    def query_ids(self) -> tuple[str, ...]:
        """Judged query ids, sorted (the order of ``core.inputs.metrics.per_query``)."""
        return tuple(sorted(self.qrels))

    def title_of(self) -> dict[str, str]:
        return dict(zip(self.doc_ids, self.titles))

    def to_dict(self) -> dict:
        return {"name": self.name, "path": self.path, "split": self.split,
                "n_docs": self.n_docs, "n_queries": self.n_queries,
                "n_judgements": self.n_judgements, "content_hash": self.content_hash}


# ----------------------------------------------------------------------------- locating
def resolve_dir(explicit: str | os.PathLike | None = None) -> tuple[Path, str]:
    """The folder to use and where it came from: ``"explicit"``, ``"env"`` or ``"default"``."""
    if explicit not in (None, ""):
        return Path(explicit).expanduser(), "explicit"
    env = os.environ.get(ENV_VAR, "").strip()
    if env:
        return Path(env).expanduser(), "env"
    return DEFAULT_DIR, "default"


def is_beir_dir(path: str | os.PathLike, split: str = "test") -> bool:
    """True when the three files of the layout exist under ``path``."""
    p = Path(path)
    return (p / CORPUS).is_file() and (p / QUERIES).is_file() and \
        (p / QRELS_DIR / f"{split}.tsv").is_file()


def excerpt(value) -> str:
    """A short, printable excerpt of text from a data file for an error message: control
    characters removed, at most ``EXCERPT`` characters (never a whole line of a file)."""
    text = "".join(ch if ch.isprintable() else " " for ch in str(value)).strip()
    return text if len(text) <= EXCERPT else text[:EXCERPT - 1] + "…"


def check_dir(path: str | os.PathLike, split: str = "test") -> Path:
    """``path`` resolved once (symlinks followed for the folder itself), or ``InputError``
    naming the first missing piece. Each file of the layout must resolve to a place inside
    that folder: a symlink pointing out of it (to a secret file, say) is refused unread."""
    p = Path(path)
    if not p.exists():
        raise InputError("scifact.err_no_folder", file=str(p), env=ENV_VAR)
    if not p.is_dir():
        raise InputError("scifact.err_not_folder", file=str(p))
    root = p.resolve()
    for rel in (CORPUS, QUERIES, f"{QRELS_DIR}/{split}.tsv"):
        target = (root / rel).resolve()
        if not target.is_relative_to(root):
            raise InputError("scifact.err_outside", file=str(p), name=rel)
        if not target.exists():
            raise InputError("scifact.err_missing_file", file=str(p), name=rel)
        if not target.is_file():  # a FIFO, a device (a link to /dev/zero) or a folder
            raise InputError("not_regular_file", file=str(p / rel))
    return root


def beir_folders(split: str = "test") -> list[Path]:
    """The folders the page offers: every subfolder of ``data/beir/`` in the BEIR layout,
    then ``$NOISEFLOOR_BEIR_DIR`` when set (whether or not it is complete, so its problem
    can be shown)."""
    out = []
    if BEIR_ROOT.is_dir():
        out = [d for d in sorted(BEIR_ROOT.iterdir()) if d.is_dir() and is_beir_dir(d, split)]
    env = os.environ.get(ENV_VAR, "").strip()
    if env:
        e = Path(env).expanduser()
        if all(e.resolve() != d.resolve() for d in out):
            out.insert(0, e)
    return out


# ----------------------------------------------------------------------------- reading
def _read_text(path: Path) -> io.TextIOWrapper:
    """``path`` as UTF-8 text (lines as ``open(path, encoding="utf-8")`` gives them), read
    through the bounded reader (``core.retrieval.safe_files.read_regular``): a regular file
    of at most ``MAX_FILE_BYTES``, else ``InputError`` naming it, at once (a FIFO, a device
    such as ``/dev/zero``, a file too large or unreadable). Decoding errors surface while
    reading, as from ``open``."""
    try:
        data = read_regular(path, MAX_FILE_BYTES)
    except FileTooLarge as exc:
        raise InputError("too_large", file=str(path), size_mb=f"{exc.size / 2**20:,.0f}",
                         limit_mb=f"{MAX_FILE_BYTES / 2**20:.0f}") from None
    except NotRegularFile:
        raise InputError("not_regular_file", file=str(path)) from None
    except OSError as exc:
        raise InputError("scifact.err_unreadable", file=str(path),
                         detail=exc.strerror or type(exc).__name__) from None
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")


def _jsonl(path: Path, required: tuple[str, ...]):
    """(line number, record) for each non-blank line; InputError on the first bad line."""
    handle = _read_text(path)
    with handle:
        try:
            for lineno, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise InputError("scifact.err_bad_json", file=str(path), row=lineno,
                                     detail=excerpt(exc.msg)) from None
                if not isinstance(rec, dict):
                    raise InputError("scifact.err_not_object", file=str(path), row=lineno)
                for key in required:
                    if key not in rec:
                        raise InputError("scifact.err_missing_key", file=str(path), row=lineno,
                                         key=key)
                rec_id = rec["_id"]
                if not isinstance(rec_id, (str, int)) or str(rec_id).strip() == "":
                    raise InputError("scifact.err_bad_id", file=str(path), row=lineno)
                yield lineno, rec
        except UnicodeDecodeError:
            raise InputError("scifact.err_encoding", file=str(path)) from None


def _text(value, path: Path, lineno: int, key: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise InputError("scifact.err_not_text", file=str(path), row=lineno, key=key)
    return value


def read_corpus(path: Path) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """(ids, titles, texts) where text = (title + " " + text).strip()."""
    ids, titles, texts, seen = [], [], [], {}
    for lineno, rec in _jsonl(path, ("_id", "text")):
        did = str(rec["_id"])
        if did in seen:
            raise InputError("scifact.err_duplicate_id", file=str(path), row=lineno,
                             id=excerpt(did),
                             first=seen[did])
        seen[did] = lineno
        title = _text(rec.get("title"), path, lineno, "title")
        body = _text(rec["text"], path, lineno, "text")
        ids.append(did)
        titles.append(title)
        texts.append((title + " " + body).strip())
    if not ids:
        raise InputError("scifact.err_empty", file=str(path))
    return tuple(ids), tuple(titles), tuple(texts)


def read_queries(path: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    lines: dict[str, int] = {}
    for lineno, rec in _jsonl(path, ("_id", "text")):
        qid = str(rec["_id"])
        if qid in out:
            raise InputError("scifact.err_duplicate_id", file=str(path), row=lineno,
                             id=excerpt(qid),
                             first=lines[qid])
        out[qid] = _text(rec["text"], path, lineno, "text").strip()
        lines[qid] = lineno
    return out


def read_qrels(path: Path, doc_ids, query_ids) -> dict[str, dict[str, int]]:
    """``{query-id: {corpus-id: score}}``. The first line is the header when its score field
    is not a whole number. Every id must exist in the corpus / queries file."""
    docs, queries = set(doc_ids), set(query_ids)
    out: dict[str, dict[str, int]] = {}
    try:
        with _read_text(path) as handle:
            lines = handle.read().splitlines()
    except UnicodeDecodeError:
        raise InputError("scifact.err_encoding", file=str(path)) from None
    first = True
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        is_first, first = first, False
        parts = line.rstrip("\r").split("\t")
        if len(parts) == 4:  # TREC style: query-id 0 corpus-id score
            parts = [parts[0], parts[2], parts[3]]
        if len(parts) != 3:
            raise InputError("scifact.err_qrels_fields", file=str(path), row=lineno,
                             count=len(parts))
        qid, did, score = (s.strip() for s in parts)
        try:
            as_float = parse_number(score)  # the one number parser: 1,0 is 1
        except ValueError:
            if is_first:
                continue  # the header line (query-id, corpus-id, score)
            raise InputError("scifact.err_qrels_score", file=str(path), row=lineno,
                             value=excerpt(score)) from None
        if not as_float.is_integer():
            raise InputError("scifact.err_qrels_score", file=str(path), row=lineno,
                             value=excerpt(score))
        value = int(as_float)
        if did not in docs:
            raise InputError("scifact.err_unknown_doc", file=str(path), row=lineno,
                             id=excerpt(did))
        if qid not in queries:
            raise InputError("scifact.err_unknown_query", file=str(path), row=lineno,
                             id=excerpt(qid))
        judged = out.setdefault(qid, {})
        if did in judged:
            raise InputError("scifact.err_duplicate_qrel", file=str(path), row=lineno,
                             query=excerpt(qid), doc=excerpt(did))
        judged[did] = value
    if not out:
        raise InputError("scifact.err_no_qrels", file=str(path))
    return out


def content_hash(doc_ids, texts) -> str:
    """SHA-256 of the documents as every retriever sees them (id and text, in order)."""
    h = hashlib.sha256()
    for did, text in zip(doc_ids, texts):
        h.update(did.encode("utf-8"))
        h.update(b"\x00")
        h.update(text.encode("utf-8"))
        h.update(b"\x01")
    return h.hexdigest()


def load_beir(path: str | os.PathLike, split: str = "test") -> BeirData:
    """Read and check a BEIR folder; the collection is named after the folder."""
    checks.text("split", split, what="a file stem like 'test'")
    if "/" in split or "\\" in split:
        raise ValueError(f"split must be a file stem like 'test', got {split!r}")
    p = check_dir(path, split)
    ids, titles, texts = read_corpus(p / CORPUS)
    queries = read_queries(p / QUERIES)
    qrels = read_qrels(p / QRELS_DIR / f"{split}.tsv", ids, queries)
    judged = {q: queries[q] for q in sorted(qrels)}
    name = p.resolve().name or str(p)
    return BeirData(name=name, path=str(p), split=split, doc_ids=ids, titles=titles,
                    texts=texts, queries=judged, qrels=qrels,
                    content_hash=content_hash(ids, texts))


# ----------------------------------------------------------------------------- the bundle
def pack_beir(src: str | os.PathLike, dest: str | os.PathLike) -> str:
    """Write ``corpus.jsonl``, ``queries.jsonl`` and ``qrels/test.tsv`` of ``src`` as a
    reproducible ``.tar.gz`` at ``dest`` and return its SHA-256: names sorted, mtime 0,
    uid/gid 0, mode 0644, no user names, gzip header mtime 0 (same input, same bytes)."""
    src = check_dir(src)
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        for rel in sorted(BUNDLE_MEMBERS):
            data = (src / rel).read_bytes()
            info = tarfile.TarInfo(rel)
            info.size, info.mtime, info.mode = len(data), 0, 0o644
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            tar.addfile(info, io.BytesIO(data))
    out = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=out, compresslevel=9, mtime=0) as gz:
        gz.write(buf.getvalue())
    blob = out.getvalue()
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + ".part")
    tmp.write_bytes(blob)
    tmp.replace(dest)
    return hashlib.sha256(blob).hexdigest()


def file_sha256(path: str | os.PathLike) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def unpack_bundle(dest: str | os.PathLike | None = None, *,
                  bundle: str | os.PathLike | None = None,
                  sha256: str | None = None) -> Path | None:
    """Unpack the shipped archive into ``dest`` when ``dest`` is not a BEIR folder yet.

    Returns ``dest`` when it holds the collection afterwards, ``None`` when there is no
    archive. The archive's SHA-256 must equal ``sha256`` (else ``InputError``
    ``scifact.err_bundle_checksum``); only the three expected regular files are read (no
    links, no paths outside). Files go to a temporary folder beside ``dest`` that is renamed
    into place, so an interrupted unpack never leaves a half folder that looks complete, and
    two processes unpacking at once both end with one complete folder.
    """
    dest = Path(dest) if dest is not None else DEFAULT_DIR
    bundle = Path(bundle) if bundle is not None else BUNDLE
    sha256 = BUNDLE_SHA256 if sha256 is None else sha256
    if is_beir_dir(dest):
        return dest
    if not bundle.is_file():
        return None
    checks.instance("sha256", sha256, str, "64 hex digits")
    if len(sha256) != 64:
        raise ValueError(f"sha256 must be 64 hex digits, got {sha256!r}")
    got = file_sha256(bundle)
    if got != sha256:
        raise InputError("scifact.err_bundle_checksum", file=str(bundle), expected=sha256,
                         got=got)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}-", dir=dest.parent))
    try:
        with tarfile.open(bundle, mode="r:gz") as tar:
            for rel in BUNDLE_MEMBERS:
                try:
                    member = tar.getmember(rel)
                except KeyError:
                    raise InputError("scifact.err_bundle_member", file=str(bundle),
                                     name=rel) from None
                if not member.isfile():
                    raise InputError("scifact.err_bundle_member", file=str(bundle), name=rel)
                target = tmp / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                with tar.extractfile(member) as fh, target.open("wb") as out:
                    shutil.copyfileobj(fh, out)
        if dest.exists() and not any(dest.iterdir()):
            dest.rmdir()  # an empty leftover folder: take its place
        try:
            tmp.rename(dest)
        except OSError:
            if not is_beir_dir(dest):  # not another process winning the race: a real error
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return dest


def ensure_default(dest: str | os.PathLike | None = None) -> Path:
    """The default folder, unpacked from the shipped archive if needed (see
    ``unpack_bundle``); the folder may still be missing when there is no archive."""
    dest = Path(dest) if dest is not None else DEFAULT_DIR
    unpack_bundle(dest)
    return dest


# ----------------------------------------------------------------------------- download
def hub_reachable(host: str | None = None, *, port: int = 443,
                  timeout: float = HUB_TIMEOUT) -> bool:
    """True when a TCP connection to the dataset hub opens within ``timeout`` seconds
    (name lookup included: the check runs in a thread that is abandoned at the deadline)."""
    timeout = checks.positive("timeout", timeout)
    if host is None:
        endpoint = os.environ.get("HF_ENDPOINT", "").strip()
        host = endpoint.split("://", 1)[-1].split("/", 1)[0].split(":", 1)[0] or HUB_HOST
    ok = []

    def probe() -> None:
        try:
            with socket.create_connection((host, port), timeout=timeout):
                ok.append(True)
        except OSError:
            pass

    worker = threading.Thread(target=probe, daemon=True)
    worker.start()
    worker.join(timeout)
    return bool(ok)


def download_beir(dest: str | os.PathLike = DEFAULT_DIR, *, name: str = "scifact",
                  split: str = "test", loader: Callable | None = None,
                  reachable: Callable[[], bool] | None = None) -> Path:
    """Fetch ``BeIR/<name>`` (configs ``corpus``, ``queries``) and ``BeIR/<name>-qrels``
    (split ``split``) with ``datasets.load_dataset`` and write the BEIR layout to ``dest``.

    ``loader`` replaces ``datasets.load_dataset`` (tests pass a fake). Files are written to a
    temporary name and renamed, so an interrupted download never leaves a half folder that
    looks complete. Without a ``loader``, ``reachable`` (default ``hub_reachable``) is asked
    first: offline, ``InputError("scifact.err_offline")`` comes within 3 s instead of the
    hub client's retries. Network or hub failures raise ``InputError("scifact.err_download")``
    explaining how to point the app at a local folder instead.
    """
    if not checks.text("name", name).replace("-", "").replace("_", "").isalnum():
        raise ValueError(f"name must be a BEIR dataset name like 'scifact', got {name!r}")
    dest = Path(dest)
    if loader is None:
        if not (reachable or hub_reachable)():
            raise InputError("scifact.err_offline", file=str(dest), host=HUB_HOST,
                             env=ENV_VAR)
        os.environ.setdefault("HF_HUB_ETAG_TIMEOUT", "5")
        os.environ.setdefault("HF_HUB_DOWNLOAD_TIMEOUT", "10")
        try:
            from datasets import load_dataset as loader
        except ImportError as exc:  # pragma: no cover - datasets is in requirements
            raise InputError("scifact.err_download", file=str(dest), detail=str(exc),
                             env=ENV_VAR) from None
    try:
        corpus = loader(f"BeIR/{name}", "corpus", split="corpus")
        queries = loader(f"BeIR/{name}", "queries", split="queries")
        qrels = loader(f"BeIR/{name}-qrels", split=split)
    except Exception as exc:  # noqa: BLE001 - any hub/network failure becomes one clear line
        detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InputError("scifact.err_download", file=str(dest), detail=detail[:200],
                         env=ENV_VAR) from None
    (dest / QRELS_DIR).mkdir(parents=True, exist_ok=True)

    def write(rel: str, lines) -> None:
        tmp = dest / (rel + ".part")
        with tmp.open("w", encoding="utf-8") as fh:
            for line in lines:
                fh.write(line + "\n")
        tmp.replace(dest / rel)

    write(CORPUS, (json.dumps({"_id": str(r["_id"]), "title": r.get("title") or "",
                               "text": r.get("text") or ""}, ensure_ascii=False)
                   for r in corpus))
    write(QUERIES, (json.dumps({"_id": str(r["_id"]), "text": r.get("text") or ""},
                               ensure_ascii=False) for r in queries))
    write(f"{QRELS_DIR}/{split}.tsv",
          ["query-id\tcorpus-id\tscore"] +
          [f"{r['query-id']}\t{r['corpus-id']}\t{int(r['score'])}" for r in qrels])
    return dest


def find_or_download(explicit: str | os.PathLike | None = None, *, split: str = "test",
                     download: bool = True, loader: Callable | None = None) -> Path:
    """The folder to load: an explicit or env path must exist (no download); the default
    ``data/beir/scifact/`` is unpacked from the shipped archive when missing, else
    downloaded when ``download`` is true."""
    path, source = resolve_dir(explicit)
    if source == "default" and split == "test":
        unpack_bundle(path)
    if source != "default" or is_beir_dir(path, split):
        return check_dir(path, split)
    if not download:
        raise InputError("scifact.err_no_folder", file=str(path), env=ENV_VAR)
    return download_beir(path, split=split, loader=loader)
