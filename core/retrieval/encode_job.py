"""Document encodes that belong to the server process, not to a browser tab.

A Streamlit script run stops when its tab closes or reloads; a thread started here does
not. ``start`` begins (or joins) the encode of one text set in a daemon thread that calls
``core.retrieval.search.encode_texts``: the result lands in the disk cache, every finished chunk
is kept on disk (``core.retrieval.encode_store``), so a server restart resumes where it stopped.
``estimate_encode`` times a
sample first, so a long encode can wait for a click. ``status`` gives any session the job's progress: documents done, one ETA measured on the
chunks encoded in this run, and the state ("running", "done", "failed"). One job per cache
entry and process: a second ``start`` for the same entry returns the running job.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from core import checks
from core.retrieval.search import CACHE_DIR, ENCODE_BATCH, cache_file, encode_texts, resolve_model

STATES = ("running", "done", "failed")


@dataclass(frozen=True)
class JobStatus:
    """A snapshot of one encode job. ``eta`` is seconds left (None until one chunk has been
    encoded in this run); ``error`` the one-line reason of a failure."""

    key: str
    total: int
    done: int = 0
    eta: float | None = None
    state: str = "running"
    error: str = ""
    started: float = 0.0
    finished: float | None = None
    refresh: bool = False

    @property
    def running(self) -> bool:
        return self.state == "running"

    @property
    def fraction(self) -> float:
        return self.done / self.total if self.total else 1.0


_LOCK = threading.Lock()
_JOBS: dict[str, JobStatus] = {}


def job_key(content_hash: str, model_name: str | None, cache_dir=CACHE_DIR) -> str:
    """The cache entry a corpus encode writes: one job per entry."""
    _, model_key = resolve_model(model_name)
    return str(cache_file(model_key, content_hash, kind="corpus", cache_dir=cache_dir))


def status(key: str) -> JobStatus | None:
    with _LOCK:
        return _JOBS.get(key)


def running() -> list[str]:
    """Keys of the jobs still running in this process."""
    with _LOCK:
        return [k for k, j in _JOBS.items() if j.running]


def _set(key: str, **changes) -> None:
    with _LOCK:
        _JOBS[key] = replace(_JOBS[key], **changes)


def start(texts: Sequence[str], content_hash: str, *, model_name: str | None = None,
          get_model: Callable[[], object] | None = None, cache_dir=CACHE_DIR,
          refresh: bool = False) -> JobStatus:
    """Start encoding ``texts`` into the cache in a background thread, unless a job for the
    same cache entry is already running (then its status is returned). ``refresh`` encodes
    even when the cache holds a valid entry (the "re-encode everything" request)."""
    key = job_key(content_hash, model_name, cache_dir)
    texts = list(texts)
    with _LOCK:
        current = _JOBS.get(key)
        if current is not None and current.running:
            return current
        _JOBS[key] = JobStatus(key, len(texts), started=time.time(), refresh=refresh)

    def progress(done: int, total: int, eta: float | None) -> None:
        _set(key, done=done, eta=eta)

    def work() -> None:
        try:
            encode_texts(texts, model_name=model_name, get_model=get_model, kind="corpus",
                         content_hash=content_hash, cache_dir=Path(cache_dir), progress=progress,
                         refresh=refresh)
        except Exception as exc:  # noqa: BLE001 - the job reports any failure as one line
            _set(key, state="failed", error=(str(exc).splitlines() or [type(exc).__name__])[0],
                 finished=time.time())
            return
        _set(key, state="done", done=len(texts), eta=0.0, finished=time.time())

    threading.Thread(target=work, name=f"noisefloor-encode-{key[-12:]}", daemon=True).start()
    return status(key)


def wait(key: str, timeout: float | None = None, poll: float = 0.05) -> JobStatus | None:
    """Block until the job for ``key`` is no longer running (or ``timeout`` seconds pass);
    its last status."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        st = status(key)
        if st is None or not st.running or (deadline is not None and
                                            time.monotonic() > deadline):
            return st
        time.sleep(poll)


@dataclass(frozen=True)
class EncodeEstimate:
    """How long encoding ``n_docs`` documents should take, from a timed sample."""

    n_docs: int
    sample: int
    per_second: float
    seconds: float


def estimate_encode(texts: Sequence[str], model, *, sample: int = 64,
                    batch_size: int = ENCODE_BATCH) -> EncodeEstimate:
    """Encode ``sample`` evenly spaced texts with ``model``, time it, and extrapolate:
    seconds = len(texts) / (sample / elapsed). Evenly spaced so long and short documents
    are both represented; the estimate is shown before a long encode, never cached."""
    sample = checks.whole("sample", sample, lo=1)
    n = len(checks.nonempty("texts", texts, what="text"))
    k = min(sample, n)
    picks = [texts[i] for i in np.linspace(0, n - 1, k).round().astype(int)]
    t0 = time.perf_counter()
    model.encode(picks, batch_size=batch_size, normalize_embeddings=True,
                 convert_to_numpy=True, show_progress_bar=False)
    elapsed = max(time.perf_counter() - t0, 1e-9)
    rate = k / elapsed
    return EncodeEstimate(n, k, rate, n / rate)
