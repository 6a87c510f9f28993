"""core.retrieval.encode_job: the encode belongs to the server process, not to a tab (issue 22): a
background thread fills the cache, a second start joins the running job, any caller sees its
progress, a failure is reported in one line; estimate_encode times a sample."""
import threading

import pytest

import core.retrieval.encode_job as encode_job
import core.retrieval.search as retrieval
from core.retrieval.search import is_cached
from tests.core.retrieval.test_cache import FakeModel
from tests.core.retrieval.test_encode_store import TEXTS, StopAfter


@pytest.fixture(autouse=True)
def _fake_width(monkeypatch):
    monkeypatch.setattr(retrieval, "model_dimension", lambda *a, **k: 8)


def _no_model():
    raise AssertionError("a joined job must not load another model")


def test_background_job_fills_the_cache_and_is_shared(tmp_path):
    gate = threading.Event()

    class Gated(FakeModel):
        def encode(self, texts, **kw):
            gate.wait(10)
            return super().encode(texts, **kw)

    model = Gated()
    chash = "corpus-of-the-job-test"
    first = encode_job.start(TEXTS, chash, get_model=lambda: model, cache_dir=tmp_path)
    second = encode_job.start(TEXTS, chash, get_model=_no_model, cache_dir=tmp_path)
    assert first.running and second.key == first.key and second.total == 100
    assert encode_job.status(first.key).done == 0
    gate.set()
    final = encode_job.wait(first.key, timeout=30)
    assert final.state == "done" and final.done == 100 and final.fraction == 1.0
    assert is_cached(TEXTS, content_hash=chash, cache_dir=tmp_path)


def test_background_job_reports_a_failure(tmp_path):
    st = encode_job.start(TEXTS, "corpus-that-fails", get_model=lambda: StopAfter(1),
                          cache_dir=tmp_path)
    final = encode_job.wait(st.key, timeout=30)
    assert final.state == "failed" and final.error == "Interrupt"
