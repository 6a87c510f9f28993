"""Document encodes that belong to the server process, not to a browser tab.

A Streamlit script run stops when its tab closes or reloads; a thread started here does
not. ``start`` begins (or joins) the encode of one text set in a daemon thread that calls
``core.retrieval.search.encode_texts``: the result lands in the disk cache, every finished chunk
is kept on disk (``core.retrieval.encode_store``), so a server restart resumes where it stopped.
``estimate_encode`` times a
sample first, so a long encode can wait for a click. ``status`` gives any session the job's progress: documents done, one ETA measured on the
chunks encoded in this run, and the state ("running", "done", "failed", "stopped"). One job per
cache entry and process: a second ``start`` for the same entry returns the running job.

A job stops cleanly with its process: ``stop_all`` (registered with ``atexit``, so it runs when
the server's main thread ends, after Streamlit has handled SIGTERM or SIGINT) asks every job to
stop after the chunk it is encoding (that chunk is kept on disk: the next start resumes) and
joins its thread. A daemon thread still inside torch when the interpreter exits aborted the
process with "terminate called without an active exception" (issue 37).
"""
from __future__ import annotations

import atexit
import json
import math
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from core import checks
from core.retrieval.search import (CACHE_DIR, ENCODE_BATCH, atomic_write, cache_file,
                                   encode_texts, resolve_model)
from core.retrieval.safe_files import MAX_SIDECAR_BYTES, read_regular

STATES = ("running", "done", "failed", "stopped")
STOP_WAIT = 120.0   # s: how long exit waits for a job to finish its chunk


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
_THREADS: dict[str, threading.Thread] = {}
_STOP = threading.Event()


class Stopped(Exception):
    """Raised inside a job (between two chunks) when the process is stopping."""


# ----------------------------------------------------------------------------- steps and ETAs
# What the scifact page waits for before its first dense verdict, in order: the model's
# files loaded, the shipped vectors' spot check, the documents' encode (only without shipped
# or cached vectors), the queries' encode.
STEPS = ("load", "check", "encode", "queries")
TIMES_FILE = "step_times.json"   # in the cache folder: the last measured time of each step


def _times_path(cache_dir) -> Path:
    return Path(cache_dir) / TIMES_FILE


def _read_times(cache_dir) -> dict:
    try:
        data = json.loads(read_regular(_times_path(cache_dir), MAX_SIDECAR_BYTES))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def last_seconds(step: str, model_key: str, cache_dir=CACHE_DIR) -> float | None:
    """How long ``step`` took the last time it ran for ``model_key`` on this machine (the
    cache folder's ``step_times.json``), or None: never measured, or the record is not a
    finite number of seconds above 0 (a cache is checked before it is trusted)."""
    checks.choice("step", step, STEPS)
    value = _read_times(cache_dir).get(f"{step}|{model_key}")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) and value > 0 else None


def record_seconds(step: str, model_key: str, seconds: float, cache_dir=CACHE_DIR) -> None:
    """Keep ``seconds`` as the last time of ``step`` for ``model_key`` (the next visit's
    ETA). A folder that cannot be written is not an error: the next ETA is then unknown."""
    checks.choice("step", step, STEPS)
    seconds = checks.positive("seconds", seconds)
    data = _read_times(cache_dir)
    data[f"{step}|{model_key}"] = round(seconds, 3)
    try:
        Path(cache_dir).mkdir(parents=True, exist_ok=True)
        atomic_write(_times_path(cache_dir), json.dumps(data, indent=1).encode("utf-8"))
    except OSError:
        pass


@dataclass(frozen=True)
class StepStatus:
    """Where one step stands: ``elapsed`` seconds so far, ``done`` of ``total`` items when it
    counts items, ``last`` the seconds it took last time. ``eta`` (seconds left): measured on
    the items done so far, elapsed / done x (total - done); before the first item, the last
    time minus the elapsed time; None when neither is known or the last time is already
    passed (``over``)."""

    step: str
    elapsed: float
    done: int | None = None
    total: int | None = None
    last: float | None = None

    @property
    def index(self) -> int:
        """1-based place of the step in ``STEPS``."""
        return STEPS.index(self.step) + 1

    @property
    def eta(self) -> float | None:
        if self.done and self.total:
            return self.elapsed / self.done * max(self.total - self.done, 0)
        if self.last is not None and self.elapsed <= self.last:
            return self.last - self.elapsed
        return None

    @property
    def over(self) -> bool:
        """The step is taking longer than it did last time (and counts nothing done yet)."""
        return not (self.done and self.total) and self.last is not None \
            and self.elapsed > self.last


def step_status(step: str, elapsed: float, *, done: int | None = None,
                total: int | None = None, last: float | None = None) -> StepStatus:
    """A checked ``StepStatus``."""
    checks.choice("step", step, STEPS)
    elapsed = max(checks.number("elapsed", elapsed), 0.0)
    if done is not None:
        done = checks.whole("done", done, lo=0)
    if total is not None:
        total = checks.whole("total", total, lo=0)
    if last is not None:
        last = checks.positive("last", last)
    return StepStatus(step, elapsed, done, total, last)


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
        if _STOP.is_set() and done < total:   # the chunk just encoded is on disk: a later
            raise Stopped                        # start resumes here (the last one finishes)

    def work() -> None:
        try:
            encode_texts(texts, model_name=model_name, get_model=get_model, kind="corpus",
                         content_hash=content_hash, cache_dir=Path(cache_dir), progress=progress,
                         refresh=refresh)
        except Stopped:
            _set(key, state="stopped", finished=time.time())
            return
        except Exception as exc:  # noqa: BLE001 - the job reports any failure as one line
            _set(key, state="failed", error=(str(exc).splitlines() or [type(exc).__name__])[0],
                 finished=time.time())
            return
        _set(key, state="done", done=len(texts), eta=0.0, finished=time.time())

    thread = threading.Thread(target=work, name=f"noisefloor-encode-{key[-12:]}", daemon=True)
    with _LOCK:
        _THREADS[key] = thread
    thread.start()
    return status(key)


def stop_all(timeout: float = STOP_WAIT) -> list[str]:
    """Ask every running job to stop after its current chunk and wait for their threads
    (at most ``timeout`` seconds in all); the keys of jobs still running after that. Runs at
    interpreter exit (``atexit``); a job started afterwards (in tests) runs again."""
    _STOP.set()
    try:
        return join_threads(_THREADS, _LOCK, timeout)
    finally:
        _STOP.clear()


def join_threads(registry: dict, lock, timeout: float) -> list:
    """Wait for the threads of ``registry`` (key -> thread, guarded by ``lock``), at most
    ``timeout`` seconds in all; forget those that ended; the keys of those still running.
    Shared by ``stop_all`` and ``core.retrieval.live.join_all``."""
    deadline = time.monotonic() + checks.number("timeout", timeout)
    with lock:
        threads = list(registry.items())
    for _, thread in threads:
        thread.join(max(deadline - time.monotonic(), 0.0))
    with lock:
        for key, thread in threads:
            if not thread.is_alive() and registry.get(key) is thread:
                del registry[key]
        return [k for k, t in registry.items() if t.is_alive()]


atexit.register(stop_all)


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
