"""core.retrieval.encode_store: an interrupted encode keeps its finished chunks on disk and the next
encode of the same texts with the same settings resumes from them (issue 22). A fake encoder
that stops midway stands in for the model; every folder is temporary."""
import time

import numpy as np
import pytest

import core.retrieval.search as retrieval
from core.retrieval.encode_store import ChunkStore, partial_dir
from core.retrieval.search import DEFAULT_MODEL, cache_file, encode_texts, texts_hash
from core.retrieval.vectors import provenance
from tests.core.retrieval.test_cache import FakeModel


@pytest.fixture(autouse=True)
def _fake_width(monkeypatch):
    monkeypatch.setattr(retrieval, "model_dimension", lambda *a, **k: 8)


class Interrupt(Exception):
    pass


class StopAfter(FakeModel):
    """Raises on the ``stop``-th encode call: an encode interrupted midway."""

    def __init__(self, stop, **kw):
        super().__init__(**kw)
        self.stop = stop

    def encode(self, texts, **kw):
        if self.calls + 1 == self.stop:
            raise Interrupt()
        return super().encode(texts, **kw)


TEXTS = [f"document {i} " + "word " * (i % 17) for i in range(100)]


def test_an_interrupted_encode_resumes_from_its_chunks(tmp_path):
    with pytest.raises(Interrupt):
        encode_texts(TEXTS, get_model=lambda: StopAfter(3), cache_dir=tmp_path, batch_size=8)
    entry = cache_file(DEFAULT_MODEL, texts_hash(TEXTS), kind="corpus", cache_dir=tmp_path)
    assert len(list(partial_dir(entry).glob("*.npy"))) == 2  # two chunks of 16 kept
    model, ticks = FakeModel(), []
    enc = encode_texts(TEXTS, get_model=lambda: model, cache_dir=tmp_path, batch_size=8,
                       progress=lambda d, t, e: ticks.append((d, e)))
    assert enc.resumed == 32 and model.calls == 5  # 100 texts, chunks of 16: 7, 2 resumed
    assert ticks[1][1] is None and ticks[-1] == (100, 0.0)  # no ETA from resumed chunks
    np.testing.assert_allclose(enc.embeddings, FakeModel().encode(TEXTS), atol=1e-7)
    assert not partial_dir(entry).exists()  # the entry is complete: chunks removed
    assert provenance(enc)[1]["resumed"] == "32"


def test_chunks_of_other_settings_are_not_reused(tmp_path):
    with pytest.raises(Interrupt):
        encode_texts(TEXTS, get_model=lambda: StopAfter(3), cache_dir=tmp_path, batch_size=8)
    model = FakeModel()
    enc = encode_texts(TEXTS, get_model=lambda: model, cache_dir=tmp_path, batch_size=16)
    assert enc.resumed == 0 and model.calls == 4




def test_a_store_for_other_settings_starts_empty_and_damaged_chunks_are_not_read(tmp_path):
    entry = tmp_path / "emb-corpus-x.npy"
    store = ChunkStore(entry, {"model": "m", "n": 3})
    store.write(0, np.full((2, 4), 0.5, np.float32))  # unit rows, as encodes write them
    assert store.read(0, 2, 4) is not None and store.count() == 1
    assert store.read(0, 3, 4) is None  # a short chunk
    (partial_dir(entry) / "000000002.npy").write_bytes(b"not a numpy file")
    assert store.read(2, 1, 4) is None
    again = ChunkStore(entry, {"model": "other", "n": 3})
    assert again.count() == 0 and again.read(0, 2, 4) is None
    again.clear()
    assert not partial_dir(entry).exists()


def test_large_sets_on_more_than_two_cores_use_the_multi_process_pool(monkeypatch):
    from core.retrieval import encode_store
    from core.retrieval.encode_store import MULTIPROCESS_MIN_TEXTS, chunk_encoder, encode_workers

    assert encode_workers(MULTIPROCESS_MIN_TEXTS, cpus=2) == 1  # this machine's case
    assert encode_workers(MULTIPROCESS_MIN_TEXTS - 1, cpus=8) == 1
    assert encode_workers(MULTIPROCESS_MIN_TEXTS, cpus=8) == 8

    class Pooled(FakeModel):
        started, stopped, pools = [], [], []

        def start_multi_process_pool(self, devices):
            self.started.append(devices)
            return {"processes": devices}

        def stop_multi_process_pool(self, pool):
            self.stopped.append(pool)

        def encode(self, texts, pool=None, **kw):
            self.pools.append(pool)
            return super().encode(texts, **kw)

    model = Pooled()
    with chunk_encoder(model, batch_size=4, workers=3) as encode:
        got = encode(TEXTS[:5])
    assert model.started == [["cpu"] * 3] and model.stopped == [{"processes": ["cpu"] * 3}]
    assert model.pools == [{"processes": ["cpu"] * 3}]
    np.testing.assert_allclose(got, FakeModel().encode(TEXTS[:5]))
    # encode_texts asks for the pool on a large set (here: pretend 3 cores and a low bar)
    monkeypatch.setattr(encode_store, "MULTIPROCESS_MIN_TEXTS", 10)
    monkeypatch.setattr(encode_store.os, "cpu_count", lambda: 3)
    model = Pooled()
    Pooled.started, Pooled.stopped, Pooled.pools = [], [], []
    enc = encode_texts(TEXTS, get_model=lambda: model, cache_dir=None)
    assert Pooled.started == [["cpu"] * 3] and len(Pooled.stopped) == 1
    np.testing.assert_allclose(enc.embeddings, FakeModel().encode(TEXTS), atol=1e-7)


def test_chunks_that_are_not_unit_vectors_are_not_read(tmp_path):
    """Issue 21: a chunk rewritten with other numbers of the right shape is encoded again."""
    store = ChunkStore(tmp_path / "emb-corpus-x.npy", {"model": "m", "n": 3})
    store.write(0, np.ones((2, 4), np.float32))  # norm 2
    assert store.read(0, 2, 4) is None
    store.write(0, np.zeros((2, 4), np.float32))
    assert store.read(0, 2, 4) is None


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="no FIFOs here")
@pytest.mark.parametrize("which", ["meta", "chunk"])
def test_a_fifo_in_the_partial_folder_never_hangs(tmp_path, which):
    """Issue 21: nobody writes to the FIFO, so a blocking open would wait forever; run in a
    subprocess with a deadline so a hang fails the test instead of stalling the suite."""
    import os
    import subprocess
    import sys

    from tests.shared_data import ROOT

    entry = tmp_path / "emb-corpus-x.npy"
    store = ChunkStore(entry, {"model": "m", "n": 3})
    store.write(0, np.full((2, 4), 0.5, np.float32))
    target = partial_dir(entry) / ("meta.json" if which == "meta" else "000000000.npy")
    target.unlink()
    os.mkfifo(target)
    code = ("from pathlib import Path; from core.retrieval.encode_store import ChunkStore; "
            f"s = ChunkStore(Path({str(entry)!r}), {{'model': 'm', 'n': 3}}); "
            "print(s.read(0, 2, 4) is None)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True"


def test_the_eta_weighs_texts_by_length_up_to_the_model_window():
    from core.retrieval.encode_store import COST_CAP, encode_cost

    assert list(encode_cost(["ab", "x" * 5_000, ""])) == [2.0, float(COST_CAP), 0.0]
    texts = ["x" * 1_000] * 64 + ["y" * 10] * 64  # long first, then short: chunks of 64
    etas, seen = [], []
    t0 = time.perf_counter()
    encode_texts(texts, get_model=lambda: FakeModel(delay=0.05), cache_dir=None,
                 progress=lambda d, t, e: (etas.append(e), seen.append(time.perf_counter())))
    assert etas[0] is None and etas[-1] == 0.0
    # after the long chunk, what is left weighs 640 characters against 64,000 done: the ETA
    # is 1/100 of the time spent so far (a count of texts would have said 1/1)
    assert 0 < etas[1] <= (seen[1] - t0) / 100
