"""The scifact page's dense side, one call per action (issue 31 item 4): the page asks, draws
what it gets back, and never drives the model, the vectors or the encode job itself.

* ``shared_model(name)``: the model, loaded once per process (``core.retrieval.search.
  load_model``), for every session and job of the server.
* ``start_dense(data, model)``: the dense ranking as a server job, in a thread that belongs
  to the process, not to a browser tab: the steps of ``core.retrieval.scifact.dense_ranking``
  (load, check the shipped vectors, queries), the same ones ``python -m core scifact`` runs.
  The page starts it once BM25's card is drawn (side by side with BM25, their numpy calls
  and BM25's Python waited for each other's GIL: ``docs/speed.md``). One job per (corpus, queries, model,
  vectors in use, cache folder) and process; a second call joins it, a finished one is the
  answer of every later call (a failed one, or one that found no document vectors, runs
  again).
* ``dense_status(key)``: where it stands (``DenseStatus``: state, the step with its
  elapsed time, counts and ETA from the last time it ran, ``encode_job.StepStatus``).
* ``wait_dense(key, tick)``: block until it is no longer running, calling ``tick(status)``
  every ``poll`` seconds (the page redraws the step's progress bar).
* ``start_encode``, ``encode_state``, ``estimate``: the documents' encode as a server job
  (``core.retrieval.encode_job``), with the shared model.
* ``forget()``: drop the kept models, results and spot checks (tests swap the model).
* ``join_all()``: at exit, wait for the dense jobs still running (a clean stop).

Each step that took longer than ``RECORD_AFTER`` seconds is recorded
(``encode_job.record_seconds``) for the next visit's ETA.
"""
from __future__ import annotations

import atexit
import threading
import time
from dataclasses import dataclass, field
from typing import Callable

import core.retrieval.encode_job as encode_job
import core.retrieval.search as search
import core.retrieval.vectors as vectors
from core import checks
from core.retrieval.beir import BeirData
from core.retrieval.scifact import dense_ranking
from core.retrieval.vectors import queries_hash

STATES = ("running", "done", "encode", "failed")
RECORD_AFTER = 0.3   # s: a step quicker than this (a cache hit) keeps the last time's record


@dataclass(frozen=True)
class DenseResult:
    """The dense ranking and where its document vectors came from (``vectors.provenance``:
    the i18n key ``scifact.vectors_<source>`` and its parameters), with the notes."""

    ranking: object = field(repr=False)
    source: str
    params: dict
    notes: tuple = ()


@dataclass(frozen=True)
class DenseStatus:
    """One dense job: ``state`` one of ``STATES`` ("encode": the documents have no vectors
    yet and must be encoded first, ``notes`` saying why); ``step`` the step running now
    (None before the first); ``result`` when done; ``error`` the exception of a failure."""

    key: tuple
    state: str = "running"
    step: encode_job.StepStatus | None = None
    result: DenseResult | None = None
    error: BaseException | None = None
    notes: tuple = ()

    @property
    def running(self) -> bool:
        return self.state == "running"


_LOCK = threading.Lock()
_MODELS: dict[str, object] = {}
_MODEL_LOCKS: dict[str, threading.Lock] = {}
_JOBS: dict[tuple, DenseStatus] = {}
_STEPS: dict[tuple, tuple] = {}   # key -> (step, started, done, total, last)
_THREADS: dict[tuple, threading.Thread] = {}
EXIT_WAIT = 60.0   # s: how long exit waits for a dense job still running


def shared_model(name: str | None = None):
    """The model for ``name`` (``search.load_model``), loaded once per process; a second
    caller while it loads waits for the same load. A failed load is not kept."""
    key = search.resolve_model(name or None)[1]
    with _LOCK:
        lock = _MODEL_LOCKS.setdefault(key, threading.Lock())
    with lock:
        if key not in _MODELS:
            _MODELS[key] = search.load_model(name or None)
        return _MODELS[key]


def model_loader(name: str | None = None) -> Callable[[], object]:
    """``shared_model(name)`` as a ``get_model`` for core: loaded from its files, so a spot
    check it passed is remembered for the process (``core.retrieval.vectors``)."""
    def get():
        return shared_model(name)
    get.from_files = True
    return get


def forget() -> None:
    """Drop the kept models, the finished dense jobs and the spot checks passed: the next
    call loads and checks again (for a process that swaps the model: tests)."""
    with _LOCK:
        _MODELS.clear()
        _MODEL_LOCKS.clear()
        for key in [k for k, j in _JOBS.items() if not j.running]:
            del _JOBS[key]
    vectors.forget_checks()


def dense_key(data: BeirData, model: str | None = None, *, live: bool = False,
              cache_dir=search.CACHE_DIR) -> tuple:
    """The job of these documents, queries, model, vectors in use (``live``: the cache a
    live re-encode filled, not the shipped vectors) and cache folder."""
    qids = data.query_ids
    return (data.content_hash, queries_hash(qids, [data.queries[q] for q in qids]),
            search.resolve_model(model or None)[1], bool(live), str(cache_dir))


def dense_status(key: tuple) -> DenseStatus | None:
    """The job's status with its current step (elapsed time now)."""
    with _LOCK:
        job, step = _JOBS.get(key), _STEPS.get(key)
    if job is None or step is None or not job.running:
        return job
    name, started, done, total, last = step
    status = encode_job.step_status(name, time.monotonic() - started, done=done, total=total,
                                    last=last)
    return DenseStatus(key, job.state, status, notes=job.notes)


def start_dense(data: BeirData, model: str | None = None, *, live: bool = False,
                cache_dir=search.CACHE_DIR) -> tuple:
    """Start the dense ranking of ``data`` as a server job (see the module doc), unless one
    for the same key is running or done; its key."""
    key = dense_key(data, model, live=live, cache_dir=cache_dir)
    with _LOCK:
        job = _JOBS.get(key)
        if job is not None and job.state in ("running", "done"):
            return key
        _JOBS[key] = DenseStatus(key)
        _STEPS.pop(key, None)
    model_key = key[2]

    def step(name: str, done: int | None, total: int | None) -> None:
        now = time.monotonic()
        with _LOCK:
            current = _STEPS.get(key)
        if current is None or current[0] != name:
            _close(current, now)
            current = (name, now, None, None, encode_job.last_seconds(name, model_key,
                                                                      cache_dir))
        with _LOCK:
            _STEPS[key] = (name, current[1], done, total, current[4])

    def _close(current, now) -> None:
        if current is not None and now - current[1] > RECORD_AFTER:
            encode_job.record_seconds(current[0], model_key, now - current[1], cache_dir)

    def work() -> None:
        try:
            ranking, docs, notes = dense_ranking(
                data, model=model or None, get_model=model_loader(model), cache_dir=cache_dir,
                allow_encode=False, shipped=not live, step=step)
        except Exception as exc:  # noqa: BLE001 - the page shows it (InputError: one line)
            _finish(key, DenseStatus(key, "failed", error=exc))
            return
        with _LOCK:
            current = _STEPS.get(key)
        _close(current, time.monotonic())
        if ranking is None:
            _finish(key, DenseStatus(key, "encode", notes=tuple(notes)))
            return
        source, params = vectors.provenance(docs)
        _finish(key, DenseStatus(key, "done", result=DenseResult(ranking, source, params,
                                                                tuple(notes))))

    thread = threading.Thread(target=work, name="noisefloor-dense", daemon=True)
    with _LOCK:
        _THREADS[key] = thread
    thread.start()
    return key


def join_all(timeout: float = EXIT_WAIT) -> list[tuple]:
    """Wait for the dense jobs still running (at most ``timeout`` seconds in all); the keys
    of those still running after that. Runs at interpreter exit (``atexit``): a job is a
    few seconds of encoding, and a thread still inside torch when the interpreter exits
    aborts the process (issue 37; ``encode_job.stop_all`` does the same for encodes)."""
    return encode_job.join_threads(_THREADS, _LOCK, timeout)


atexit.register(join_all)


def _finish(key: tuple, status: DenseStatus) -> None:
    with _LOCK:
        _JOBS[key] = status
        _STEPS.pop(key, None)


def wait_dense(key: tuple, tick: Callable[[DenseStatus], None] | None = None, *,
               poll: float = 0.5) -> DenseStatus:
    """Block until the job ``key`` is no longer running; ``tick(status)`` every ``poll``
    seconds meanwhile (not at all when it ends within ``poll``). Its last status."""
    poll = checks.positive("poll", poll)
    next_tick = time.monotonic() + poll
    while True:
        status = dense_status(key)
        if status is None:
            raise ValueError(f"no dense job {key!r}: start it with start_dense")
        if not status.running:
            return status
        if tick is not None and time.monotonic() >= next_tick and status.step is not None:
            tick(status)
            next_tick = time.monotonic() + poll
        time.sleep(0.05)


# ----------------------------------------------------------------------------- the encode job
def encode_key(data: BeirData, model: str | None = None, cache_dir=search.CACHE_DIR) -> str:
    """The documents' encode job of ``data`` with ``model`` (``encode_job.job_key``)."""
    return encode_job.job_key(data.content_hash, model or None, cache_dir)


def encode_state(data: BeirData, model: str | None = None, cache_dir=search.CACHE_DIR
                 ) -> encode_job.JobStatus | None:
    """The documents' encode job's status (None: never started in this process)."""
    return encode_job.status(encode_key(data, model, cache_dir))


def estimate(data: BeirData, model: str | None = None) -> encode_job.EncodeEstimate:
    """How long encoding every document would take (``encode_job.estimate_encode`` with the
    shared model)."""
    return encode_job.estimate_encode(data.texts, shared_model(model))


def wait_encode(data: BeirData, model: str | None = None, timeout: float | None = None,
                cache_dir=search.CACHE_DIR) -> encode_job.JobStatus | None:
    """Block until the documents' encode job is no longer running, at most ``timeout`` s."""
    return encode_job.wait(encode_key(data, model, cache_dir), timeout=timeout)


def start_encode(data: BeirData, model: str | None = None, *, refresh: bool = False,
                 cache_dir=search.CACHE_DIR) -> encode_job.JobStatus:
    """Encode every document into the cache as a server job (``encode_job.start``), with the
    shared model (loaded here first, in the caller's thread); ``refresh`` re-encodes a valid
    entry too (the "re-encode every document" request)."""
    loaded = shared_model(model)
    return encode_job.start(data.texts, data.content_hash, model_name=model or None,
                            get_model=lambda: loaded, cache_dir=cache_dir, refresh=refresh)
