"""The embedding cache (issue 12): sidecar checks, NaN/tampered/wrong-width entries rejected
and recomputed, an unwritable cache folder tolerated, and interrupted writes (Ctrl-C in the
CLI) leave no partial or temporary file. A small deterministic fake encoder stands in for the
model, so these run in seconds; the real model is covered in test_retrieval.py."""
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import core.retrieval.safe_files as safe_files
import core.retrieval.search as retrieval
from core.retrieval.beir import load_beir
from core.retrieval.search import (dense_search, encode_pair, encode_texts, is_cached,
                            read_cache, sidecar)
from tests.shared_data import ROOT, TINY

KEY = "sentence-transformers/all-MiniLM-L6-v2"


class FakeModel:
    """Deterministic unit vectors from a hash of each text."""

    def __init__(self, dim=8, delay=0.0):
        self.dim, self.delay, self.calls = dim, delay, 0

    def get_sentence_embedding_dimension(self):
        return self.dim

    def encode(self, texts, **kw):
        self.calls += 1
        if self.delay:
            time.sleep(self.delay)
        out = np.array([np.frombuffer(hashlib.sha256(t.encode()).digest()[:self.dim], np.uint8)
                        for t in texts], dtype=np.float32) + 1.0
        return out / np.linalg.norm(out, axis=1, keepdims=True)


TEXTS = [f"document number {i} about topic {i % 3}" for i in range(20)]


@pytest.fixture(autouse=True)
def _fake_width(monkeypatch):
    """The cache checks the width against the model's files; here FakeModel is the model."""
    monkeypatch.setattr(retrieval, "model_dimension", lambda *a, **k: 8)


def _enc(tmp_path, model=None, **kw):
    model = model or FakeModel()
    return encode_texts(TEXTS, get_model=lambda: model, cache_dir=tmp_path, **kw), model


def _no_model():
    raise AssertionError("the model must not be loaded on a valid cache hit")


def test_sidecar_is_written_and_a_valid_entry_is_reused(tmp_path):
    first, _ = _enc(tmp_path)
    path = Path(first.path)
    meta = json.loads(sidecar(path).read_text())
    assert meta["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert meta["model"] == KEY and meta["shape"] == [20, 8] and meta["dtype"] == "float32"
    assert meta["content_hash"] and meta["model_version"]
    again = encode_texts(TEXTS, get_model=_no_model, cache_dir=tmp_path)
    assert again.from_cache and not again.notes
    np.testing.assert_array_equal(again.embeddings, first.embeddings)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([path.name,
                                                                 sidecar(path).name])


def _rewrite(path: Path, emb: np.ndarray, *, fix_checksum: bool) -> None:
    np.save(path, emb)
    if fix_checksum:  # an attacker (or a bug) that also rewrites the sidecar consistently
        meta = json.loads(sidecar(path).read_text())
        meta["sha256"] = hashlib.sha256(path.read_bytes()).hexdigest()
        meta["shape"] = list(emb.shape)
        sidecar(path).write_text(json.dumps(meta))


def test_nan_cache_of_the_right_shape_is_rejected_and_recomputed(tmp_path):
    first, _ = _enc(tmp_path)
    _rewrite(Path(first.path), np.full((20, 8), np.nan, np.float32), fix_checksum=True)
    assert read_cache(Path(first.path), model_key=KEY, content_hash=retrieval.texts_hash(TEXTS),
                      n=20)[1] == "not_finite"
    assert not is_cached(TEXTS, cache_dir=tmp_path)
    again, model = _enc(tmp_path)
    assert not again.from_cache and model.calls > 0
    assert again.notes[0] == ("cache_rejected", {"reason": "not_finite", "kind": "corpus"})
    np.testing.assert_array_equal(again.embeddings, first.embeddings)
    assert is_cached(TEXTS, cache_dir=tmp_path)  # repaired


@pytest.mark.parametrize("damage,reason", [
    ("tamper", "checksum"), ("no_sidecar", "no_sidecar"), ("model", "model"),
    ("corpus", "corpus"), ("garbage", "damaged")])
def test_mismatching_entries_are_rejected(tmp_path, damage, reason):
    first, _ = _enc(tmp_path)
    path = Path(first.path)
    meta = json.loads(sidecar(path).read_text())
    if damage == "tamper":
        _rewrite(path, first.embeddings * 0.5, fix_checksum=False)
    elif damage == "no_sidecar":
        sidecar(path).unlink()
    elif damage in ("model", "corpus"):
        meta["model" if damage == "model" else "content_hash"] = "something else"
        sidecar(path).write_text(json.dumps(meta))
    else:
        sidecar(path).write_text("{not json")
    again, _ = _enc(tmp_path)
    assert not again.from_cache and again.notes[0][1]["reason"] == reason


def test_cache_of_the_wrong_width_is_recomputed_with_a_note(tmp_path):
    tiny = load_beir(TINY)
    qtexts = [tiny.queries[q] for q in tiny.query_ids]
    wide = FakeModel(dim=16)
    encode_texts(tiny.texts, get_model=lambda: wide, content_hash=tiny.content_hash,
                 cache_dir=tmp_path)  # a cache written by a 16-wide model under the same key
    model = FakeModel(dim=8)
    docs, queries = encode_pair(tiny.texts, qtexts, content_hash=tiny.content_hash,
                                get_model=lambda: model, cache_dir=tmp_path)
    assert docs.width == queries.width == 8
    # the 16-wide entry is refused up front: its width is not the model's
    assert docs.notes[0] == ("cache_rejected", {"reason": "width", "kind": "corpus"})
    ranking = dense_search(tiny.query_ids, queries.embeddings, docs.embeddings)
    assert ranking.doc_index.shape[0] == len(tiny.query_ids)


def test_unwritable_cache_folder_warns_once_and_goes_on(tmp_path, monkeypatch):
    monkeypatch.setattr(retrieval, "_UNWRITABLE_WARNED", set())
    blocker = tmp_path / "not_a_folder"
    blocker.write_text("a file where the cache folder should be")
    cache = blocker / "cache"
    first, _ = _enc(cache)
    assert first.embeddings.shape == (20, 8) and not first.from_cache
    assert [n[0] for n in first.notes] == ["cache_unwritable"]
    assert first.notes[0][1]["folder"] == str(cache)
    second, _ = _enc(cache)
    assert second.notes == ()  # warned once per folder


def test_read_only_cache_folder_goes_on(tmp_path, monkeypatch):
    monkeypatch.setattr(retrieval, "_UNWRITABLE_WARNED", set())

    def refuse(*a, **kw):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(safe_files.tempfile, "mkstemp", refuse)
    enc, _ = _enc(tmp_path)
    assert enc.notes[0][0] == "cache_unwritable" and "Permission" in enc.notes[0][1]["detail"]
    assert list(tmp_path.iterdir()) == []


def test_interrupted_write_leaves_no_partial_or_temp_file(tmp_path, monkeypatch):
    def interrupted(fd):
        raise KeyboardInterrupt

    monkeypatch.setattr(retrieval.os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        _enc(tmp_path)
    assert _leftovers(tmp_path) == []


def _leftovers(folder: Path) -> list:
    """Files an interrupted encode leaves besides its resumable chunk folder
    (``<entry>.partial/``, complete chunks and meta.json only, see core.retrieval.encode_store)."""
    if not folder.exists():
        return []
    return [p for p in folder.rglob("*")
            if not (p.parent.suffix == ".partial" and p.suffix in (".npy", ".json"))
            and p.suffix != ".partial"]


class BlockingModel(FakeModel):
    """A model whose ``encode`` says it started (one line on stderr) and then never returns
    on its own: only an interrupt ends it, so the test below needs no timing assumption."""

    STARTED = "fake encode started"

    def encode(self, texts, **kw):
        self.calls += 1
        sys.stderr.write(self.STARTED + "\n")
        sys.stderr.flush()
        while True:  # Ctrl-C (SIGINT -> KeyboardInterrupt) ends this, nothing else
            time.sleep(0.05)


def test_ctrl_c_in_the_cli_mid_encode_leaves_no_cache_entry(tmp_path):
    """Ctrl-C while the documents are being encoded: the CLI exits non-zero and leaves no
    cache entry and no temporary file. Deterministic (issue 37: it failed once at load ~14,
    when the signal came 0.3 s after the progress line and the 5 s fake encode could finish
    first): the signal is sent once the model's ``encode`` has started, and that encode never
    finishes by itself. The limits below only stop a hung run."""
    cache = tmp_path / "cache"
    script = f"""
import sys
sys.path.insert(0, {str(ROOT)!r})
import core.retrieval.search as r
from tests.core.retrieval.test_cache import BlockingModel
r.load_model = lambda name=None, device="cpu": BlockingModel()
from core.__main__ import main
sys.exit(main(["scifact", "--data", {str(TINY)!r}, "--resamples", "200"]))
"""
    env = {**os.environ, "NOISEFLOOR_CACHE_DIR": str(cache), "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        seen = b""
        while BlockingModel.STARTED.encode() not in seen:
            chunk = os.read(proc.stderr.fileno(), 4096)
            assert chunk, "the CLI ended before encoding: " + seen.decode(errors="replace")
            seen += chunk
        assert b"encoding documents" in seen  # the documents, not the queries
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=600)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode != 0
    assert _leftovers(cache) == []  # no cache entry, no temporary file


def test_encode_estimate_extrapolates_a_timed_sample():
    from core.retrieval.encode_job import estimate_encode

    model = FakeModel(delay=0.2)
    texts = [f"t{i}" for i in range(1000)]
    est = estimate_encode(texts, model, sample=50)
    assert est.sample == 50 and est.n_docs == 1000 and model.calls == 1
    # one 0.2 s call for 50 texts -> about 250 texts a second -> about 4 s for 1,000
    assert 100 < est.per_second <= 250.0 + 1e-9
    assert est.seconds == pytest.approx(1000 / est.per_second)
    with pytest.raises(ValueError, match="sample"):
        estimate_encode(texts, model, sample=0)


def test_resigned_caches_of_another_width_are_refused_even_when_both_agree(tmp_path):
    """Issue 21: documents and queries both rewritten 128 wide, sidecars re-signed: the
    pair agrees with itself, but not with the model (8 wide here), so neither is used."""
    tiny = load_beir(TINY)
    qtexts = [tiny.queries[q] for q in tiny.query_ids]
    model = FakeModel()
    docs, queries = encode_pair(tiny.texts, qtexts, content_hash=tiny.content_hash,
                                get_model=lambda: model, cache_dir=tmp_path)
    rng = np.random.default_rng(0)
    for enc in (docs, queries):
        wide = rng.normal(size=(len(enc.embeddings), 128)).astype(np.float32)
        _rewrite(Path(enc.path), wide / np.linalg.norm(wide, axis=1, keepdims=True),
                 fix_checksum=True)
    again_docs, again_q = encode_pair(tiny.texts, qtexts, content_hash=tiny.content_hash,
                                      get_model=lambda: model, cache_dir=tmp_path)
    assert again_docs.width == again_q.width == 8
    assert not again_docs.from_cache and not again_q.from_cache
    assert again_docs.notes[0] == ("cache_rejected", {"reason": "width", "kind": "corpus"})
    np.testing.assert_array_equal(again_docs.embeddings, docs.embeddings)


@pytest.mark.parametrize("damage,reason", [("zero_row", "not_unit"), ("scaled", "not_unit"),
                                           ("fewer_rows", "shape")])
def test_resigned_entries_that_are_not_unit_vectors_or_not_the_corpus_are_refused(
        tmp_path, damage, reason):
    first, _ = _enc(tmp_path)
    emb = first.embeddings.copy()
    if damage == "zero_row":
        emb[3] = 0.0
    elif damage == "scaled":
        emb = emb * 0.5  # the verdict would change; checksum and shape re-signed to match
    else:
        emb = emb[:-1]
    _rewrite(Path(first.path), emb, fix_checksum=True)
    again, model = _enc(tmp_path)
    assert not again.from_cache and model.calls > 0
    assert again.notes[0] == ("cache_rejected", {"reason": reason, "kind": "corpus"})


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
@pytest.mark.parametrize("which", ["sidecar", "embeddings"])
def test_a_fifo_in_place_of_a_cache_file_never_hangs(tmp_path, which):
    """Nobody writes to the FIFO: a blocking open would wait forever. The entry is refused
    as damaged and recomputed (run in a subprocess with a deadline so a hang fails)."""
    first, _ = _enc(tmp_path)
    target = sidecar(Path(first.path)) if which == "sidecar" else Path(first.path)
    target.unlink()
    os.mkfifo(target)
    code = ("import sys; from pathlib import Path; import core.retrieval.search as r; "
            f"print(r.read_cache(Path({str(first.path)!r}), model_key={KEY!r}, "
            f"content_hash={retrieval.texts_hash(TEXTS)!r}, n=20, width=8)[1])")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "damaged"
