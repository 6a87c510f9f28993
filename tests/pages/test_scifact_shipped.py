"""Issue 13 item 5 on the real shipped archive: with no ``data/beir/scifact/`` folder and no
``NOISEFLOOR_BEIR_DIR``, the scifact page unpacks ``data/beir/scifact.tar.gz`` (its SHA-256
checked against ``core.retrieval.beir.BUNDLE_SHA256``) and shows results with no other step.

With the real model, the shipped document vectors (issue 22) give the dense side in seconds:
checksum, a 32-document spot check, 300 queries encoded live. Then the model is replaced by a
small deterministic hashing encoder (``load_model`` is the page's only way to a model): the
shipped vectors fail their spot check, the page says so in one line and encodes the 5,183
abstracts in a server job instead; BM25, the metrics, the bootstrap and the verdict are the
real ones. The unpack goes to a temporary folder and the embedding cache to a temporary folder
too, so a developer's unpacked copy and cache are never touched.
"""
import hashlib
import re
import zlib

import numpy as np
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

import core.retrieval.beir as beir
import core.retrieval.search as retrieval
from core.retrieval.search import BM25Params, bm25_search
from core.retrieval.scifact import MEASURES, evaluate
from core.retrieval import live
from tests.pages.test_scifact import PAGE, settle

WIDTH = 64


class _HashingEncoder:
    """Bag of words hashed into ``WIDTH`` buckets, L2-normalised: the interface of a
    SentenceTransformer that ``core.retrieval.search.encode_texts`` uses, without a model."""

    def get_sentence_embedding_dimension(self):
        return WIDTH

    def encode(self, texts, **_kw):
        out = np.zeros((len(texts), WIDTH), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                out[i, zlib.crc32(word.encode()) % WIDTH] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1.0, norms)


@pytest.fixture
def fresh_real(tmp_path, monkeypatch):
    """The default folder and the cache as on a fresh clone, with the real model."""
    monkeypatch.delenv(beir.ENV_VAR, raising=False)
    monkeypatch.delenv(beir.ANY_PATH_ENV, raising=False)
    monkeypatch.setattr(beir, "BEIR_ROOT", tmp_path / "beir")
    monkeypatch.setattr(beir, "DEFAULT_DIR", tmp_path / "beir" / "scifact")
    monkeypatch.setattr(retrieval, "CACHE_DIR", tmp_path / "cache")
    st.cache_data.clear()
    yield tmp_path
    st.cache_data.clear()


@pytest.mark.slow
def test_fresh_checkout_gets_the_verdict_from_the_shipped_vectors(fresh_real):
    at = AppTest.from_file(PAGE, default_timeout=600)
    at.session_state["lang"] = "en"
    at.run()  # no server job: the vectors are ready on the first run
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    captions = [c.value for c in at.caption]
    assert any("shipped with NoiseFloor (scifact.vectors.npy), spot-checked on 32 documents"
               in c for c in captions), captions
    assert any("Query vectors: shipped with NoiseFloor (scifact.query-vectors.npy), "
               "spot-checked on 32 queries" in c for c in captions), captions
    assert any("verdict-card" in m.value for m in at.markdown)
    assert not list((fresh_real / "cache").glob("emb-corpus-*"))  # documents not encoded
    assert at.button(key="scifact_encode_all").label == "Re-encode every document live"


@pytest.fixture
def fresh_checkout(tmp_path, monkeypatch):
    """The default folder and the cache as on a fresh clone: neither exists yet."""
    if not beir.BUNDLE.is_file():
        pytest.fail(f"the shipped archive {beir.BUNDLE} is missing")
    monkeypatch.delenv(beir.ENV_VAR, raising=False)
    monkeypatch.delenv(beir.ANY_PATH_ENV, raising=False)
    monkeypatch.setattr(beir, "BEIR_ROOT", tmp_path / "beir")
    monkeypatch.setattr(beir, "DEFAULT_DIR", tmp_path / "beir" / "scifact")
    monkeypatch.setattr(retrieval, "CACHE_DIR", tmp_path / "cache")
    monkeypatch.setattr(retrieval, "load_model", lambda *a, **k: _HashingEncoder())
    monkeypatch.setattr(retrieval, "model_dimension", lambda *a, **k: WIDTH)  # the stub's
    st.cache_data.clear()  # the page caches models and tables per process
    st.cache_resource.clear()
    live.forget()  # the server's model, dense results and spot checks
    yield tmp_path / "beir" / "scifact"
    st.cache_data.clear()  # never hand the stub encoder to a later test
    st.cache_resource.clear()
    live.forget()  # the server's model, dense results and spot checks


def test_shipped_archive_is_the_one_the_checksum_names():
    assert hashlib.sha256(beir.BUNDLE.read_bytes()).hexdigest() == beir.BUNDLE_SHA256


def test_fresh_checkout_unpacks_the_shipped_scifact_and_shows_results(fresh_checkout):
    assert not fresh_checkout.exists()
    at = AppTest.from_file(PAGE, default_timeout=600)
    at.session_state["lang"] = "en"
    settle(at)
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    captions = [c.value for c in at.caption]
    assert any("failed their spot check" in c for c in captions), captions
    assert any("Document vectors: encoded earlier on this machine" in c for c in captions)
    assert beir.is_beir_dir(fresh_checkout)  # unpacked, checksum verified on the way
    assert all(btn.key != "scifact_download" for btn in at.button)
    assert any("5,183 documents, 300 judged queries" in m.value for m in at.markdown)
    # the results are the data's: BM25's mean of the default measure shown equals the one computed here
    data = beir.load_beir(fresh_checkout)
    bm25 = bm25_search(data.texts, data.query_ids, [data.queries[q] for q in data.query_ids],
                       BM25Params())
    ndcg = evaluate(data, {"bm25": bm25})["bm25"][MEASURES[0]].mean()  # the page default
    assert 0.6 < ndcg < 0.7  # BEIR Table 2 reports 0.665 for BM25 on scifact
    shown = "\n".join(str(df.value.to_string()) for df in at.dataframe) + "\n".join(
        m.value for m in at.metric) + "\n".join(m.value for m in at.markdown)
    assert f"{ndcg:.3f}" in shown or f"{ndcg:.4f}" in shown, shown[:2000]
