"""The chunks of an unfinished encode, kept on disk so an interrupted encode resumes.

``core.retrieval.search.encode_texts`` encodes a text set in chunks (texts sorted by length, then
``batch_size * CHUNK_BATCHES`` at a time). Each finished chunk is written atomically to a folder beside
the cache entry, ``<entry>.partial/<first position>.npy``, with a ``meta.json`` naming what
the chunks belong to (model key and encoder (``search.encoder_version``), content hash, number of
texts, chunk size, width). A later encode of the same texts with the same settings reads
the chunks back instead of encoding them again; anything that disagrees (another model, a
damaged or short file, a non-finite value) is encoded again. When the whole entry has been
written, the folder is removed.

``chunk_encoder`` encodes one chunk: in this process (torch's threads), or, for a large set
on a machine with more than two cores, through sentence-transformers' own multi-process
pool (``start_multi_process_pool``: one CPU process per core, the chunk split among them).
"""
from __future__ import annotations

import io
import json
import os
import shutil
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from core import checks
from core.retrieval.safe_files import MAX_SIDECAR_BYTES, atomic_write, read_regular

NORM_TOLERANCE = 1e-3  # chunks hold L2-normalised float32 rows

MULTIPROCESS_MIN_TEXTS = 10_000  # below this, starting the worker processes costs more
COST_CAP = 1_200  # characters: about MiniLM's 256-token window; longer texts are truncated


def partial_dir(entry: Path) -> Path:
    """Where the chunks of the cache entry ``entry`` wait: ``<entry stem>.partial``."""
    return Path(entry).with_suffix(".partial")


class ChunkStore:
    """Finished chunks of one encode. ``meta`` identifies the encode; a folder written for
    other settings is emptied on opening. Writes that fail (read-only folder, full disk)
    switch the store off: the encode goes on, it just cannot resume."""

    def __init__(self, entry: Path, meta: dict) -> None:
        checks.instance("meta", meta, dict, "a dict")
        self.folder = partial_dir(entry)
        self.meta = {"version": 1, **meta}
        self.enabled = True
        try:
            found = json.loads(read_regular(self.folder / "meta.json", MAX_SIDECAR_BYTES))
        except (OSError, ValueError):
            found = None
        if found != self.meta:
            self._reset()

    def _reset(self) -> None:
        try:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder.mkdir(parents=True, exist_ok=True)
            atomic_write(self.folder / "meta.json", json.dumps(self.meta).encode("utf-8"))
        except OSError:
            self.enabled = False
            shutil.rmtree(self.folder, ignore_errors=True)

    def _file(self, start: int) -> Path:
        return self.folder / f"{int(start):09d}.npy"

    def read(self, start: int, rows: int, width: int) -> np.ndarray | None:
        """The chunk beginning at sorted position ``start`` when it is on disk, a regular
        file of the expected size, complete (``rows`` x ``width`` float32), finite and made
        of unit vectors; else None (a FIFO or device in its place is never opened
        blocking)."""
        if not self.enabled:
            return None
        try:
            raw = read_regular(self._file(start), 4096 + 4 * rows * width)
            arr = np.load(io.BytesIO(raw), allow_pickle=False)
        except (OSError, ValueError):
            return None
        if arr.dtype != np.float32 or arr.shape != (rows, width) or not np.isfinite(arr).all():
            return None
        if rows and not (np.abs(np.linalg.norm(arr.astype(np.float64), axis=1) - 1.0)
                         <= NORM_TOLERANCE).all():
            return None
        return arr

    def write(self, start: int, arr: np.ndarray) -> None:
        if not self.enabled:
            return
        buf = io.BytesIO()
        np.save(buf, np.ascontiguousarray(arr, dtype=np.float32), allow_pickle=False)
        try:
            atomic_write(self._file(start), buf.getvalue())
        except OSError:
            self.enabled = False

    def clear(self) -> None:
        """Remove the folder (the whole entry has been written)."""
        shutil.rmtree(self.folder, ignore_errors=True)

    def count(self) -> int:
        """How many chunk files are on disk (for progress shown before an encode resumes)."""
        return len(list(self.folder.glob("*.npy"))) if self.folder.is_dir() else 0



def encode_workers(n_texts: int, cpus: int | None = None) -> int:
    """Processes for encoding ``n_texts`` texts: one per core when there are more than two
    cores and at least ``MULTIPROCESS_MIN_TEXTS`` texts, else 1 (this process)."""
    cpus = (os.cpu_count() or 1) if cpus is None else checks.whole("cpus", cpus, lo=1)
    return cpus if cpus > 2 and n_texts >= MULTIPROCESS_MIN_TEXTS else 1


@contextmanager
def chunk_encoder(model, *, batch_size: int, workers: int = 1):
    """A function texts -> normalised float32 embeddings with ``model``; with ``workers`` > 1
    it encodes through a multi-process pool that is stopped on leaving the block."""
    kw = dict(batch_size=batch_size, normalize_embeddings=True, convert_to_numpy=True,
              show_progress_bar=False)
    pool = None
    if checks.whole("workers", workers, lo=1) > 1 and hasattr(model, "start_multi_process_pool"):
        pool = model.start_multi_process_pool(["cpu"] * workers)
        kw["pool"] = pool
    try:
        yield lambda texts: model.encode(texts, **kw)
    finally:
        if pool is not None:
            model.stop_multi_process_pool(pool)


def encode_cost(texts) -> np.ndarray:
    """Relative cost of encoding each text, for the ETA: cost = min(len(text), COST_CAP)
    characters (a transformer's time grows with the tokens it reads, and the model reads at
    most its window). Texts are encoded longest first, so an ETA by text count would start
    far too high; by cost it extrapolates seconds per character."""
    return np.minimum(np.fromiter((len(t) for t in texts), dtype=np.float64, count=len(texts)),
                      COST_CAP)
