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


def test_stop_all_ends_a_job_after_its_chunk_and_a_new_start_resumes(tmp_path):
    """stop_all (run at exit) stops a job between two chunks and joins its thread; the
    finished chunks stay on disk, so the next start resumes instead of starting over."""
    second_chunk, gate = threading.Event(), threading.Event()
    calls = []

    class Gated(FakeModel):
        def encode(self, texts, **kw):
            calls.append(len(texts))
            if len(calls) == 2:
                second_chunk.set()
                gate.wait(10)
            return super().encode(texts, **kw)

    chash, texts = "corpus-stopped-then-resumed", [f"{t} {i}" for i in range(3) for t in TEXTS]
    job = encode_job.start(texts, chash, get_model=lambda: Gated(), cache_dir=tmp_path)
    assert second_chunk.wait(10)
    left: list = []
    stopper = threading.Thread(target=lambda: left.extend(encode_job.stop_all(timeout=30)))
    stopper.start()
    gate.set()
    stopper.join(30)
    assert not stopper.is_alive() and left == []
    final = encode_job.status(job.key)
    assert final.state == "stopped" and 0 < final.done < final.total
    assert not is_cached(texts, content_hash=chash, cache_dir=tmp_path)
    resumed = FakeModel()
    again = encode_job.wait(encode_job.start(texts, chash, get_model=lambda: resumed,
                                             cache_dir=tmp_path).key, timeout=30)
    assert again.state == "done" and is_cached(texts, content_hash=chash, cache_dir=tmp_path)
    assert resumed.calls == len(range(0, len(texts), 64)) - 2   # the two chunks kept: resumed


_SERVER = r"""
import os, signal, sys, threading, time
sys.path.insert(0, sys.argv[1])
import numpy as np
import torch
from core.retrieval import encode_job

class SlowTorch:
    # a stand-in model that keeps torch's own threads busy, as the real encoder does
    def get_sentence_embedding_dimension(self):
        return 8
    def encode(self, texts, **kw):
        a = torch.randn(300, 300)
        for _ in range(300):
            a = torch.tanh(a @ a)
        out = np.ones((len(texts), 8), dtype=np.float32)
        return out / np.linalg.norm(out, axis=1, keepdims=True)

stop = threading.Event()
if sys.argv[3] == "handled":   # what Streamlit does with SIGTERM and SIGINT: stop, return
    signal.signal(signal.SIGTERM, lambda *a: stop.set())
    signal.signal(signal.SIGINT, lambda *a: stop.set())
job = encode_job.start([f"document {i}" for i in range(20000)], "c" * 64,
                       model_name="stand-in", get_model=SlowTorch, cache_dir=sys.argv[2])
while encode_job.status(job.key).done == 0:
    time.sleep(0.05)
print("encoding", flush=True)
stop.wait()
"""


@pytest.mark.parametrize("sig, how, code", [("SIGTERM", "handled", 0), ("SIGINT", "handled", 0),
                                           ("SIGINT", "default", -2)])
def test_a_server_stop_during_an_encode_ends_cleanly(tmp_path, sig, how, code):
    """Issue 37: stopping the server mid-encode printed 'terminate called without an active
    exception' and aborted (exit code 134): the job's daemon thread was inside torch when the
    interpreter exited. The job now stops after its chunk and is joined at exit."""
    import signal
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen([sys.executable, "-c", _SERVER, str(root), str(tmp_path), how],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "encoding"   # inside an encode now
        proc.send_signal(getattr(signal, sig))
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert "terminate called" not in err, err[-2000:]
    assert proc.returncode == code, (proc.returncode, err[-2000:])
    if how == "default":
        assert "KeyboardInterrupt" in err


def test_step_times_are_kept_per_step_and_model_and_checked_before_use(tmp_path):
    assert encode_job.last_seconds("load", "m", tmp_path) is None
    encode_job.record_seconds("load", "m", 12.34, tmp_path)
    encode_job.record_seconds("check", "m", 3.0, tmp_path)
    assert encode_job.last_seconds("load", "m", tmp_path) == 12.34
    assert encode_job.last_seconds("check", "m", tmp_path) == 3.0
    assert encode_job.last_seconds("load", "other model", tmp_path) is None
    path = tmp_path / encode_job.TIMES_FILE
    for bad in ('{"load|m": -1}', '{"load|m": "12"}', '{"load|m": true}', "[1]", "{not json"):
        path.write_text(bad)
        assert encode_job.last_seconds("load", "m", tmp_path) is None
    with pytest.raises(ValueError):
        encode_job.record_seconds("fly", "m", 1.0, tmp_path)
    with pytest.raises(ValueError):
        encode_job.record_seconds("load", "m", 0.0, tmp_path)
    encode_job.record_seconds("load", "m", 1.0, tmp_path / "no" / "such")   # made
    unwritable = tmp_path / "file"
    unwritable.write_text("x")
    encode_job.record_seconds("load", "m", 1.0, unwritable)   # not a folder: no error


def test_step_status_eta_from_items_done_else_from_last_time():
    s = encode_job.step_status("check", 4.0, done=8, total=32, last=30.0)
    assert s.eta == pytest.approx(4.0 / 8 * 24) and not s.over and s.index == 2
    s = encode_job.step_status("load", 3.0, last=10.0)
    assert s.eta == pytest.approx(7.0) and not s.over and s.index == 1
    s = encode_job.step_status("load", 12.0, last=10.0)
    assert s.eta is None and s.over
    s = encode_job.step_status("queries", 2.0, total=300)
    assert s.eta is None and not s.over
    with pytest.raises(ValueError):
        encode_job.step_status("nap", 1.0)
