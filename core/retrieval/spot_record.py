"""Spot checks of the shipped vectors passed once, kept across processes (issue 37, item 7).

``core.retrieval.vectors`` trusts shipped document and query vectors only after a spot check:
``SPOT_N`` of them encoded live by the loaded model, every cosine at least ``MIN_COSINE``
(about 5 s of CPU for the scifact documents). A check that passed is written here as a
record, so the next process (the app after ``make run``'s ``python -m core warm-up``, the
CLI) does not encode the sample again. As with the compiled kernels
(``core.kernel_cache``), a record is checked before it is trusted:

**The key** (``record_key``) names everything the cosines depend on, each read from the
files now, never from the record: what was checked (``docs`` or ``queries``), the SHA-256 of
the shipped vector file (``core.retrieval.vectors.read_shipped`` verifies the file against
it on every use) and of the texts checked (the corpus content hash, or the queries'
``queries_hash``), the model's key and the SHA-256 of every file in its folder
(``files_sha256``: weights, tokenizer, configuration), the encoder (``encoder_version``) with
the SHA-256 of its source when it is NoiseFloor's numpy encoder and the versions of the
libraries that compute it, and the check's own settings (n, seed, threshold). A model that
is not a local folder (a hub name) has no key: its checks are never recorded.

**The record** (``<records_dir>/spot-<kind>-<digest of the key>.json``) holds the key, the
check (n, seed, min cosine, threshold) and the SHA-256 of both (``digest``). ``recall``
trusts it only when its key equals the key computed now, the digest matches (a record
edited by hand, or cut short, is refused) and the min cosine read back passes its
threshold; otherwise the check runs again and a passing one replaces the record.

**Where**: ``NOISEFLOOR_SPOT_DIR`` when set (the tests point it at a temporary folder), else
``spot-checks`` beside the compiled kernels (``core.kernel_cache.default_root``'s parent:
``.venv/noisefloor-cache/spot-checks``), never the checkout. A folder that cannot be
written keeps no record (the check then runs once per process, as before).
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from core.kernel_cache import default_root
from core.retrieval import bert_numpy
from core.retrieval.beir import file_sha256
from core.retrieval.safe_files import MAX_SIDECAR_BYTES, atomic_write, read_regular
from core.retrieval.search import DEFAULT_MODEL, encoder_version, numpy_encoder

RECORD_ENV = "NOISEFLOOR_SPOT_DIR"
RECORD_VERSION = 1
KINDS = ("docs", "queries")
# the libraries whose arithmetic gives the cosines, by encoder (read from their metadata)
NUMPY_LIBRARIES = ("numpy", "tokenizers", "safetensors")
TORCH_LIBRARIES = ("sentence-transformers", "transformers", "torch", "tokenizers", "numpy")
_FOLDER_DIGESTS: dict[tuple, str] = {}   # files_sha256 in this process, by the files' stats


def records_dir() -> Path:
    """Where records live (see the module docstring)."""
    env = os.environ.get(RECORD_ENV)
    return Path(env) if env else default_root().parent / "spot-checks"


def files_sha256(root: str | os.PathLike, suffixes: tuple[str, ...] | None = None
                 ) -> str | None:
    """SHA-256 over the regular files of the folder ``root`` (those ending in one of
    ``suffixes``, all when None), sorted by path: for each, its path relative to ``root``,
    a zero byte and its own SHA-256 in hex. None when ``root`` is not a folder or holds no
    such file. Within one process, a folder whose files all keep their path, size,
    modification time and inode is hashed once (as ``core.kernel_cache`` checks its
    manifest once per process)."""
    root = Path(root)
    if not root.is_dir():
        return None
    files = sorted(p for p in root.rglob("*") if p.is_file()
                   and (suffixes is None or p.suffix in suffixes))
    if not files:
        return None
    stamp = (str(root.resolve()), suffixes, tuple(
        (str(p.relative_to(root)), s.st_size, s.st_mtime_ns, s.st_ino)
        for p, s in ((p, p.stat()) for p in files)))
    if stamp not in _FOLDER_DIGESTS:
        h = hashlib.sha256()
        for p in files:
            h.update(str(p.relative_to(root)).encode("utf-8") + b"\x00")
            h.update(file_sha256(p).encode("ascii"))
        _FOLDER_DIGESTS[stamp] = h.hexdigest()
    return _FOLDER_DIGESTS[stamp]


def _versions(names: tuple[str, ...]) -> dict:
    from importlib.metadata import PackageNotFoundError, version   # lazy: a few ms
    out = {}
    for name in names:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = None
    return out


def encoder_fingerprint(model_key: str) -> dict:
    """What computes ``model_key``'s embeddings here: ``encoder_version``, the SHA-256 of
    ``core/retrieval/bert_numpy.py`` when it is the numpy encoder, and the versions of the
    libraries doing the arithmetic."""
    numpy_path = model_key == DEFAULT_MODEL and numpy_encoder(None)
    return {"encoder": encoder_version(model_key),
            "source_sha256": file_sha256(Path(bert_numpy.__file__)) if numpy_path else None,
            "libraries": _versions(NUMPY_LIBRARIES if numpy_path else TORCH_LIBRARIES)}


def record_key(kind: str, vectors_sha256: str, texts_sha256: str, model_source: str,
               model_key: str, *, n: int, seed: int, threshold: float) -> dict | None:
    """The key of a spot check (see the module docstring), or None when the model is not a
    local folder (nothing to hash: such checks are not recorded). The caller passes checked
    values (``core.retrieval.vectors``)."""
    model_files = files_sha256(model_source)
    if model_files is None or kind not in KINDS:
        return None
    return {"version": RECORD_VERSION, "kind": kind, "vectors_sha256": str(vectors_sha256),
            "texts_sha256": str(texts_sha256), "model": model_key,
            "model_files_sha256": model_files, **encoder_fingerprint(model_key),
            "spot": {"n": int(n), "seed": int(seed), "threshold": float(threshold)}}


def _canonical(obj) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":")).encode("utf-8")


def record_path(key: dict) -> Path:
    """The record's file for ``key``."""
    digest = hashlib.sha256(_canonical(key)).hexdigest()[:32]
    return records_dir() / f"spot-{key['kind']}-{digest}.json"


def recall(key: dict | None) -> dict | None:
    """The check on record for ``key`` (``{"n", "seed", "min_cosine", "threshold"}``) when
    the record's key equals ``key``, its digest matches, its seed and threshold are the
    key's, it encoded between 1 and the key's n texts (fewer when there are fewer) and its
    min cosine passes the threshold; else None (no record, or one that cannot be trusted)."""
    if key is None:
        return None
    try:
        record = json.loads(read_regular(record_path(key), MAX_SIDECAR_BYTES))
        check = record["check"]
        ok = (record["key"] == key
              and record["digest"] == hashlib.sha256(_canonical(
                  {"key": record["key"], "check": check})).hexdigest()
              and isinstance(check["n"], int) and 1 <= check["n"] <= key["spot"]["n"]
              and check["seed"] == key["spot"]["seed"]
              and check["threshold"] == key["spot"]["threshold"]
              and isinstance(check["min_cosine"], float)
              and check["min_cosine"] >= check["threshold"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return {k: check[k] for k in ("n", "seed", "min_cosine", "threshold")} if ok else None


def remember(key: dict | None, *, n: int, seed: int, min_cosine: float,
             threshold: float) -> Path | None:
    """Write the record of a check that passed (``min_cosine >= threshold``) under ``key``;
    its path, or None when there is no key, the check failed or the folder cannot be
    written (written to a temporary name, then renamed: a reader never sees half a record)."""
    if key is None or not min_cosine >= threshold:
        return None
    check = {"n": int(n), "seed": int(seed), "min_cosine": float(min_cosine),
             "threshold": float(threshold)}
    record = {"key": key, "check": check,
              "digest": hashlib.sha256(_canonical({"key": key, "check": check})).hexdigest()}
    path = record_path(key)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, (json.dumps(record, indent=1, sort_keys=True) + "\n").encode())
    except OSError:
        return None
    return path
