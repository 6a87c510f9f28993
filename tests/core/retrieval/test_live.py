"""core.retrieval.live: the scifact page's dense side as a server job (issue 31 item 4, issue
37 item 7) against the CLI's own path (``run_retrievers``) on the tiny fixture, with a
deterministic fake model; every folder is temporary."""
import json
import threading

import numpy as np
import pytest

import core.retrieval.search as search
from core.retrieval import live
from core.retrieval.beir import load_beir
from core.retrieval.scifact import run_retrievers
from tests.core.retrieval.test_cache import FakeModel
from tests.core.retrieval.test_vectors import _ship_with_queries
from tests.shared_data import TINY


@pytest.fixture
def tiny():
    return load_beir(TINY)


@pytest.fixture
def fake(monkeypatch, tmp_path):
    """The fake model behind ``search.load_model`` (counted), nothing shipped."""
    loads = []

    def load(*_a, **_k):
        loads.append(1)
        return FakeModel()

    monkeypatch.setattr(search, "load_model", load)
    monkeypatch.setattr(search, "model_dimension", lambda *a, **k: 8)
    monkeypatch.setenv("NOISEFLOOR_SHIPPED_DIR", str(tmp_path / "ship"))
    live.forget()
    yield loads
    live.forget()


def test_the_job_gives_the_cli_s_ranking_once_and_records_its_steps(tiny, fake, tmp_path):
    _ship_with_queries(tiny, tmp_path / "ship")
    cache = tmp_path / "cache"
    key = live.start_dense(tiny, cache_dir=cache)
    ticks = []
    status = live.wait_dense(key, ticks.append, poll=0.01)
    assert status.state == "done" and status.error is None
    res = status.result
    cli = run_retrievers(tiny, ["dense"], get_model=FakeModel, cache_dir=cache)["dense"]
    np.testing.assert_array_equal(res.ranking.doc_index, cli.doc_index)
    np.testing.assert_array_equal(res.ranking.scores, cli.scores)
    assert res.source == "shipped" and res.params["n"] == tiny.n_docs
    assert [n[0] for n in res.notes] == ["queries_shipped"]
    assert all(t.step is not None for t in ticks)
    assert live.start_dense(tiny, cache_dir=cache) == key     # done: the answer of later calls
    assert live.wait_dense(key).result is res and len(fake) == 1   # one model for the server


def test_without_document_vectors_the_job_says_encode_and_runs_again_later(tiny, fake,
                                                                          tmp_path):
    cache = tmp_path / "cache"
    key = live.start_dense(tiny, cache_dir=cache)
    status = live.wait_dense(key)
    assert status.state == "encode" and status.result is None
    job = live.start_encode(tiny, cache_dir=cache)
    assert live.wait_encode(tiny, timeout=60, cache_dir=cache).state == "done"
    assert live.encode_state(tiny, cache_dir=cache).state == "done" and job.total == 25
    again = live.wait_dense(live.start_dense(tiny, cache_dir=cache))
    assert again.state == "done" and again.result.source == "cache"
    assert again.result.notes == ()   # queries encoded live: nothing shipped for them


def test_a_failed_load_is_reported_and_tried_again(tiny, monkeypatch, tmp_path):
    from core.errors import InputError

    calls = []

    def broken(*_a, **_k):
        calls.append(1)
        raise InputError("scifact.err_model_load", file="x", detail="boom")

    monkeypatch.setattr(search, "load_model", broken)
    live.forget()
    key = live.start_dense(tiny, cache_dir=tmp_path)
    status = live.wait_dense(key)
    assert status.state == "failed" and isinstance(status.error, InputError)
    live.wait_dense(live.start_dense(tiny, cache_dir=tmp_path))
    assert len(calls) == 2
    live.forget()


def test_steps_carry_counts_and_the_last_time_and_are_recorded(tiny, fake, tmp_path,
                                                              monkeypatch):
    """A slow model: the job's status names the step, its counts and the last time; a step
    longer than RECORD_AFTER is kept in step_times.json for the next visit's ETA."""
    _ship_with_queries(tiny, tmp_path / "ship")
    gate = threading.Event()

    class Slow(FakeModel):
        def encode(self, texts, **kw):
            gate.wait(30)
            return super().encode(texts, **kw)

    monkeypatch.setattr(search, "load_model", lambda *a, **k: Slow())
    monkeypatch.setattr(live, "RECORD_AFTER", 0.0)
    cache = tmp_path / "cache"
    key = live.start_dense(tiny, cache_dir=cache)
    seen = None
    for _ in range(400):
        seen = live.dense_status(key)
        if seen.step is not None and seen.step.step == "check":
            break
        threading.Event().wait(0.01)
    assert seen.running and seen.step.step == "check"
    assert seen.step.total == 25 + 12 and seen.step.done == 0
    gate.set()
    assert live.wait_dense(key).state == "done"
    times = json.loads((cache / "step_times.json").read_text())
    assert {k.split("|")[0] for k in times} >= {"check", "queries"}
    with pytest.raises(ValueError, match="start_dense"):
        live.wait_dense(("no", "such", "job"))


def test_exit_waits_for_a_running_dense_job(tiny, fake, tmp_path, monkeypatch):
    """``join_all`` (registered with atexit) returns once the job's thread has ended; with a
    timeout shorter than the job, it names the job still running."""
    _ship_with_queries(tiny, tmp_path / "ship")
    gate = threading.Event()

    class Held(FakeModel):
        def encode(self, texts, **kw):
            gate.wait(30)
            return super().encode(texts, **kw)

    monkeypatch.setattr(search, "load_model", lambda *a, **k: Held())
    key = live.start_dense(tiny, cache_dir=tmp_path / "cache")
    assert live.join_all(timeout=0.2) == [key]
    gate.set()
    assert live.join_all(timeout=30) == []
    assert live.dense_status(key).state == "done"
