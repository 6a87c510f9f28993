"""core.retrieval.scifact: which retrievers run, the paired comparison (against core.paired.stats and hand
counts), the query subsample, the drill-down, and the CLI JSON end to end."""
import json

import numpy as np
import pandas as pd
import pytest

from core.__main__ import main
from core.retrieval.beir import load_beir
from core.errors import InputError
from core.retrieval.search import BM25Params, load_model
from core.retrieval.scifact import (MEASURES, RETRIEVERS, ci_by_n, comparison_dict, compare_retrievers,
                                    disagreements,
                          evaluate, means, needed, rank_retrievers, run_retrievers, run_scifact,
                          side_by_side, subsample)
from core.paired.stats import paired_bootstrap, verdict
from core.views.verdicts import verdict_sentence
from core.views.scifact import comparison_sentence

from tests.shared_data import ROOT, TINY


def test_needed():
    assert needed(["bm25", "dense"]) == ("bm25", "dense")
    assert needed(["bm25", "hybrid"]) == ("bm25", "dense", "hybrid")
    assert needed(["bm25"]) == ("bm25",)
    with pytest.raises(ValueError, match="one of bm25, dense, hybrid"):
        needed(["splade"])


def _tables(a, b, hit_a=None, hit_b=None):
    idx = pd.Index([f"q{i:03d}" for i in range(len(a))], name="query_id")
    out = {}
    for name, vals, hits in (("bm25", a, hit_a), ("dense", b, hit_b)):
        vals = np.asarray(vals, float)
        hits = (vals > 0).astype(float) if hits is None else np.asarray(hits, float)
        out[name] = pd.DataFrame({m: vals for m in MEASURES}, index=idx)
        out[name]["hit@10"] = hits
    return out


def test_comparison_counts_and_bootstrap_match_core_stats():
    a = [1.0, 0.5, 0.0, 0.3, 1.0, 0.0, 0.63, 0.2]
    b = [1.0, 0.0, 0.5, 0.3, 0.4, 0.0, 0.5, 0.9]
    c = compare_retrievers(_tables(a, b), "bm25", "dense", "ndcg@10", resamples=2000, seed=3)
    assert (c.a_wins, c.b_wins, c.ties) == (3, 2, 3)
    assert c.hits == {"a_only": 1, "b_only": 1, "both": 5, "neither": 1}
    ref = paired_bootstrap(a, b, resamples=2000, seed=3, interval=c.bootstrap.interval)
    assert (c.bootstrap.ci_low, c.bootstrap.ci_high) == (ref.ci_low, ref.ci_high)
    assert c.bootstrap.mean == pytest.approx(np.mean(np.subtract(b, a)), abs=1e-12)  # B - A
    assert c.verdict == verdict(ref.ci_low, ref.ci_high)
    d = comparison_dict(c)
    assert d["difference"]["b_minus_a"] == ref.mean and d["verdict"] in (
        "no_difference", "a_better", "b_better")
    assert (d["difference"]["ci_low"], d["difference"]["ci_high"]) == (ref.ci_low, ref.ci_high)
    assert c.to_dict()["b_minus_a"] == ref.mean   # the one difference block of every surface
    # the golden-case page's wording
    assert comparison_sentence(c, "en") == verdict_sentence(c.verdict, a="bm25", b="dense", mean=ref.mean,
                                                ci_low=ref.ci_low, ci_high=ref.ci_high, n=8,
                                                confidence=0.95, lang="en", unit="queries",
                                                kind="score")


def test_clear_difference_and_errors():
    rng = np.random.default_rng(1)
    b = rng.random(300) * 0.5
    a = np.clip(b + 0.2, 0, 1)
    assert compare_retrievers(_tables(a, b), "bm25", "dense").verdict == "a_better"
    assert compare_retrievers(_tables(b, a), "bm25", "dense").verdict == "b_better"
    with pytest.raises(InputError):
        compare_retrievers(_tables(a, b), "bm25", "bm25")
    with pytest.raises(ValueError, match="metric"):
        compare_retrievers(_tables(a, b), "bm25", "dense", "ndcg@5")
    with pytest.raises(ValueError, match="run it first"):
        compare_retrievers(_tables(a, b), "bm25", "hybrid")


def test_subsample_is_seeded_nested_and_checked():
    ids = tuple(f"q{i}" for i in range(300))
    s50 = subsample(ids, 50, seed=7)
    assert len(s50) == 50 == len(set(s50)) and list(s50) == [q for q in ids if q in set(s50)]
    assert s50 == subsample(ids, 50, seed=7) and s50 != subsample(ids, 50, seed=8)
    assert set(subsample(ids, 20, seed=7)) <= set(s50)
    assert subsample(ids, None) == ids and subsample(ids, 300) == ids
    for bad in (0, 301, 2.5, True):
        with pytest.raises(ValueError, match="queries must"):
            subsample(ids, bad)


def test_interval_widens_as_queries_shrink():
    rng = np.random.default_rng(0)
    a, b = rng.random(300), rng.random(300)
    rows = ci_by_n(_tables(a, b), "bm25", "dense", "ndcg@10", [10, 30, 100, 300, 1, 999],
                   resamples=2000)
    assert rows["n"].tolist() == [10, 30, 100, 300]
    width = (rows["ci_high"] - rows["ci_low"]).to_numpy()
    assert np.all(np.diff(width) < 0)


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    model = load_model(None)
    cache = tmp_path_factory.mktemp("cache")
    data = load_beir(TINY)
    rankings = run_retrievers(data, ["bm25", "hybrid"], get_model=lambda: model,
                              cache_dir=cache)
    return data, rankings, evaluate(data, rankings), model, cache


def test_run_and_evaluate_tiny(tiny_run):
    data, rankings, tables, _, _ = tiny_run
    assert set(rankings) == {"bm25", "dense", "hybrid"}
    for name, tab in tables.items():
        assert list(tab.index) == list(data.query_ids) and list(tab.columns) == list(MEASURES)
        assert tab.to_numpy().min() >= 0 and tab.to_numpy().max() <= 1
    m = means(tables)
    assert m["bm25"]["ndcg@10"] == pytest.approx(tables["bm25"]["ndcg@10"].mean())


def test_drill_down(tiny_run):
    data, rankings, tables, _, _ = tiny_run
    c = compare_retrievers(tables, "bm25", "dense", resamples=1000)
    dis = disagreements(c)
    assert len(dis) == c.a_wins + c.b_wins
    assert list(dis["diff"].abs()) == sorted(dis["diff"].abs(), reverse=True)
    qid = data.query_ids[0]
    sbs = side_by_side(data, rankings, qid, "bm25", "dense")
    assert len(sbs) == 10 and sbs["rank"].tolist() == list(range(1, 11))
    rel = {d for d, s in data.qrels[qid].items() if s > 0}
    assert sbs["a_relevant"].tolist() == [d in rel for d in sbs["a_doc"]]
    titles = dict(zip(data.doc_ids, data.titles))
    assert sbs["b_title"].tolist() == [titles[d] for d in sbs["b_doc"]]
    with pytest.raises(ValueError, match="no judgements"):
        side_by_side(data, rankings, "q13", "bm25", "dense")


def test_run_scifact_json_shape(tiny_run):
    data, _, _, model, cache = tiny_run
    res = run_scifact(data, "bm25", "hybrid", "mrr@10", queries=10, resamples=1000, seed=2,
                      cache_dir=cache, get_model=lambda: model,
                      bm25=BM25Params(1.2, 0.6, "en_stem"))
    d = json.loads(json.dumps(res.to_dict()))
    assert d["n_queries"] == 10 and d["n_docs"] == 25
    assert set(d["scores"]) == {"bm25", "dense", "hybrid"}
    assert set(d["scores"]["bm25"]) == set(MEASURES)
    comp = d["comparison"]
    assert {"a", "b", "metric", "a_wins", "b_wins", "ties", "hits", "difference",
            "verdict"} <= set(comp)
    assert {"b_minus_a", "ci_low", "ci_high", "confidence"} <= set(comp["difference"])
    assert comp["a_wins"] + comp["b_wins"] + comp["ties"] == 10
    assert sum(comp["hits"].values()) == 10
    assert d["settings"]["bm25"] == {"k1": 1.2, "b": 0.6, "tokenizer": "en_stem"}


def test_cli_end_to_end_on_the_fixture(capsys):
    """Real model, default cache (data/cache, git-ignored): the same path the app uses."""
    assert main(["scifact", "--data", str(TINY), "--a", "dense", "--b", "bm25", "--json",
                 "--resamples", "1000"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["n_queries"] == 12 and out["comparison"]["a"] == "dense"
    # all three: hybrid (the RRF of the two A and B need anyway) for the tied-for-best set
    assert set(out["scores"]) == {"bm25", "dense", "hybrid"}
    assert set(out["best_set"]["best"]) | set(out["best_set"]["behind"]) == set(out["scores"])
    with pytest.raises(SystemExit) as ei:
        main(["scifact", "--data", str(TINY), "--metric", "nope"])
    assert ei.value.code == 2


@pytest.mark.slow
def test_full_scifact_from_the_shipped_copy_and_vectors(capsys):
    """BM25 vs dense on all 5,183 documents and 300 queries of the shipped copy, unpacked into
    the suite's temporary folder: the document and query vectors are the shipped ones
    (checksum and a 32-document and 32-query spot check with the real model); the numbers
    are the ones the queries encoded live gave (issue 22)."""
    assert main(["scifact", "--json"]) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert (out["n_queries"], out["n_docs"]) == (300, 5183)
    assert out["path"] != str(ROOT / "data" / "beir" / "scifact")  # the checkout is left alone
    vec = out["vectors"][0]
    assert vec["source"] == "shipped" and vec["spot_check"]["n"] == 32
    assert vec["spot_check"]["min_cosine"] >= 0.999
    assert "spot-checked on 32 documents" in captured.err
    assert "Query vectors: shipped with NoiseFloor (scifact.query-vectors.npy), " \
           "spot-checked on 32 queries" in captured.err
    assert out["scores"]["bm25"]["ndcg@10"] == pytest.approx(0.665, abs=0.01)
    # all-MiniLM-L6-v2 on scifact: 0.6451 measured with a full live encode (issue 22)
    assert out["scores"]["dense"]["ndcg@10"] == pytest.approx(0.6451, abs=0.0005)
    c = out["comparison"]
    assert (c["a"], c["b"]) == ("bm25", "dense")
    # per query: BM25 better on 73, dense better on 67, equal on 160
    assert (c["a_wins"], c["b_wins"], c["ties"]) == (73, 67, 160)


def test_korean_collection_with_char_bigrams(tmp_path, capsys):
    """A team's own Korean corpus in BEIR layout: whitespace tokens miss compounds,
    character bigrams find them."""
    docs = {"k2": ("점심", "오늘 점심 메뉴는 김치찌개였다."),
            "k3": ("날씨", "내일은 맑고 따뜻하겠다."),
            "k4": ("임베딩", "문장 임베딩은 의미가 비슷한 문장을 가깝게 놓는다."),
            "k1": ("검색엔진", "검색엔진의 성능은 질의마다 다르다.")}  # last: ties go first
    queries = {"q1": "검색 엔진 성능", "q2": "김치찌개 점심", "q3": "문장 임베딩"}
    qrels = [("q1", "k1"), ("q2", "k2"), ("q3", "k4")]
    root = tmp_path / "우리_코퍼스"
    (root / "qrels").mkdir(parents=True)
    (root / "corpus.jsonl").write_text("".join(
        json.dumps({"_id": k, "title": t, "text": x}, ensure_ascii=False) + "\n"
        for k, (t, x) in docs.items()), encoding="utf-8")
    (root / "queries.jsonl").write_text("".join(
        json.dumps({"_id": k, "text": x}, ensure_ascii=False) + "\n"
        for k, x in queries.items()), encoding="utf-8")
    (root / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\n" + "".join(f"{q}\t{d}\t1\n" for q, d in qrels))
    scores = {}
    for tok in ("en", "char_bigram"):
        assert main(["scifact", "--data", str(root), "--tokenizer", tok, "--json",
                     "--resamples", "1000"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["collection"] == "우리_코퍼스" and out["n_docs"] == 4
        scores[tok] = out["scores"]["bm25"]["mrr@10"]
    assert scores["char_bigram"] == 1.0 > scores["en"]


def test_check_metric_reads_every_registry_spelling_of_the_compared_metrics():
    from core.inputs.metrics import REGISTRY, parse_measure
    from core.retrieval.scifact import RETRIEVERS, check_metric, check_retriever

    for measure in MEASURES:
        m = parse_measure(measure)
        spec = REGISTRY[m.name]
        for name in (spec.name, *spec.aliases, spec.display):
            assert check_metric(f"{name}@{m.k}") == measure
            assert check_metric(f"{name.upper()}@{m.k}") == measure
    for bad in ("ndcg@5", "ap@10", "nope", 10):
        with pytest.raises(ValueError, match="metric must be one of"):
            check_metric(bad)
    assert [check_retriever(r) for r in RETRIEVERS] == list(RETRIEVERS)
    with pytest.raises(ValueError):
        check_retriever("bm26")


def test_run_scifact_reports_judged_at_10_and_both_bounds(tiny_run):
    from core.inputs.judged import beir_bounds, judged_table

    data, rankings, tables, model, cache = tiny_run
    res = run_scifact(data, "bm25", "hybrid", "ndcg@10", resamples=500, cache_dir=cache,
                      get_model=lambda: model)
    jb = res.judged
    assert list(jb.judged.columns) == ["bm25", "dense", "hybrid"]
    runs = {n: r.to_run(data.doc_ids) for n, r in rankings.items()}
    ref = judged_table(runs, data.qrels, 10, list(data.query_ids))
    pd.testing.assert_frame_equal(jb.judged, ref)
    # the non-relevant reading is the page's own metric
    assert np.allclose(jb.low["bm25"], tables["bm25"].loc[jb.low.index, "ndcg@10"])
    # for a metric of the own top 10 only, the relevant reading is never lower
    hit = beir_bounds(data, rankings, "hit@10", "bm25", "hybrid", resamples=200)
    assert (hit.high.values >= hit.low.values).all() and (hit.high.values == 1).all()
    assert jb.verdict_low == res.comparison.verdict
    d = json.loads(json.dumps(res.to_dict()))["judged"]
    assert set(d["methods"]) == {"bm25", "dense", "hybrid"} and d["k"] == 10
    assert set(jb.pool["query"]) <= set(data.queries.values())
    again = beir_bounds(data, rankings, "ndcg@10", "bm25", "hybrid", resamples=500)
    assert again.verdict_low == jb.verdict_low and len(again.pool) == len(jb.pool)


def test_run_scifact_ranks_all_three_on_the_compared_queries(tiny_run):
    from core.paired.best import best_set

    data, _, tables, model, cache = tiny_run
    res = run_scifact(data, "bm25", "dense", "ndcg@10", queries=10, resamples=500, seed=3,
                      cache_dir=cache, get_model=lambda: model)
    qids = list(res.comparison.case_ids)
    ref = best_set(pd.DataFrame({r: tables[r].loc[qids, "ndcg@10"].to_numpy()
                                 for r in RETRIEVERS}, index=qids), resamples=500, seed=3)
    assert res.best.best == ref.best and res.best.n == 10 == res.comparison.n
    assert [r.to_dict() for r in res.best.ranks] == [r.to_dict() for r in ref.ranks]
    d = json.loads(json.dumps(res.to_dict()))["best_set"]
    assert d["n"] == 10 and d["resamples"] == 500 and d["seed"] == 3
    assert {r["system"] for r in d["ranks"]} == set(RETRIEVERS)
    with pytest.raises(ValueError, match="two or more"):
        rank_retrievers({"bm25": tables["bm25"]}, "ndcg@10")


def test_the_self_check_and_decision_are_settled_in_the_call_and_kept_through_a_pickle(
        monkeypatch):
    """The scifact page caches the comparison (pickled): its self-check and decision are
    fields computed in ``compare_retrievers``, so a rerun computes neither again (issue 31)."""
    import pickle

    import core.paired.compare as pc
    rng = np.random.default_rng(4)
    a = rng.uniform(0.1, 0.9, 40)
    b = np.clip(a + 0.15 + rng.normal(0, 0.05, 40), 0, 1)
    c = compare_retrievers(_tables(a, b), "bm25", "dense", resamples=2000, seed=1)
    assert c.verdict == "b_better" and c.calibration is not None and c.data.n == 40
    copy = pickle.loads(pickle.dumps(c))

    def recomputed(*args, **kw):
        raise AssertionError("computed again after the cache")
    monkeypatch.setattr(pc, "calibrate_comparison", recomputed)
    monkeypatch.setattr(pc, "decide", recomputed)
    assert copy.decision == c.decision and copy.to_dict() == c.to_dict()
    monkeypatch.undo()
    quick = compare_retrievers(_tables(a, a), "bm25", "dense", resamples=2000, seed=1,
                               self_check=False)
    assert quick.verdict == "no_difference" and quick.calibration is None
