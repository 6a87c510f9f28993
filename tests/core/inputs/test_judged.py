"""core.inputs.judged: Judged@k equals ir_measures' Judged@k; the pool and both bounds by hand on a
small run; the verdict under both readings; TREC, list and BEIR sources."""
from pathlib import Path

import ir_measures
import numpy as np
import pandas as pd
import pytest

from core.inputs.judged import (judged_at_k, judged_bounds, judged_table, lists_bounds,
                         relevant_bound_qrels, trec_bounds, unjudged_pool)
from core.inputs.lists import load_lists, score_lists
from core.inputs.metrics import per_query
from core.paired.compare import compare_paired
from core.inputs.trec import Run, read_qrels, read_run, score_runs

ROOT = Path(__file__).resolve().parents[3]


def _random_runs(seed=0, queries=15, docs=40):
    rng = np.random.default_rng(seed)
    qrels, runs = {}, {}
    for q in range(queries):
        qid = f"q{q}"
        judged = rng.choice(docs, size=rng.integers(1, 15), replace=False)
        qrels[qid] = {f"d{j}": int(rng.integers(0, 3)) for j in judged}
        depth = int(rng.integers(3, 25))  # some shorter than k
        picked = rng.choice(docs, size=depth, replace=False)
        runs[qid] = {f"d{j}": float(s) for j, s in zip(picked, rng.permutation(depth) + 1.0)}
    return qrels, runs


@pytest.mark.parametrize("k", [1, 5, 10, 20])
@pytest.mark.parametrize("seed", range(3))
def test_judged_at_k_equals_ir_measures(seed, k):
    qrels, run_docs = _random_runs(seed)
    run = Run("r", "r", run_docs, 0)
    mine = judged_table({"r": run.ranking}, qrels, k)["r"]
    ref = {m.query_id: m.value for m in
           ir_measures.iter_calc([ir_measures.parse_measure(f"Judged@{k}")], qrels, run_docs)}
    assert set(ref) == set(mine.index)
    for q, v in ref.items():
        assert mine[q] == pytest.approx(v, abs=1e-12)


def test_judged_at_k_by_hand():
    assert judged_at_k(["a", "b", "c", "d"], {"a": 0, "c": 2}, k=2) == 0.5
    assert judged_at_k(["a", "b"], {"a": 0}, k=10) == 0.5  # divides by what was retrieved
    assert judged_at_k([], {"a": 1}) == 0.0  # as ir_measures for a missing query
    with pytest.raises(ValueError):
        judged_at_k(["a"], {}, k=0)


# A small run by hand: q1 judged d1 (rel), d2 (non-rel); q2 judged d5 (rel).
QRELS = {"q1": {"d1": 1, "d2": 0}, "q2": {"d5": 1}}
RANKS = {"A": {"q1": ["d1", "x", "d2"], "q2": ["y", "d5", "z"]},
         "B": {"q1": ["x", "w", "d1"], "q2": ["d5", "y", "v"]}}


def test_the_pool_by_hand():
    pool = unjudged_pool(RANKS, QRELS, k=2, query_text={"q1": "first"})
    assert pool.to_dict("records") == [
        {"query_id": "q1", "query": "first", "doc_id": "x", "best_rank": 1, "methods": "A|B"},
        {"query_id": "q1", "query": "first", "doc_id": "w", "best_rank": 2, "methods": "B"},
        {"query_id": "q2", "query": "", "doc_id": "y", "best_rank": 1, "methods": "A|B"}]
    high = relevant_bound_qrels(QRELS, pool)
    assert high == {"q1": {"d1": 1, "d2": 0, "x": 1, "w": 1}, "q2": {"d5": 1, "y": 1}}
    assert QRELS == {"q1": {"d1": 1, "d2": 0}, "q2": {"d5": 1}}  # not changed


def test_both_bounds_by_hand():
    def score(q):
        return pd.DataFrame({m: per_query(RANKS[m], q, ["p@2"])["p@2"] for m in RANKS})

    jb = judged_bounds(RANKS, QRELS, score, a="A", b="B", metric="p@2", k=2, resamples=500)
    # unjudged non-relevant: A: q1 1/2, q2 1/2; B: q1 0, q2 1/2
    assert jb.low.loc["q1"].tolist() == [0.5, 0.0] and jb.low.loc["q2"].tolist() == [0.5, 0.5]
    # unjudged relevant (x, w, y): A: q1 {d1, x} 1, q2 {y, d5} 1; B: q1 {x, w} 1, q2 {d5, y} 1
    assert jb.high.values.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    # Judged@2: A q1 {d1} 1/2, q2 {d5} 1/2; B q1 0, q2 1/2
    assert jb.judged["A"].tolist() == [0.5, 0.5] and jb.judged["B"].tolist() == [0.0, 0.5]
    s = jb.summary().set_index("method")
    assert s.loc["B", "judged"] == 0.25 and s.loc["A", "low"] == 0.5 and s.loc["B", "high"] == 1
    d = jb.to_dict()
    assert d["methods"]["B"] == {"judged@2": 0.25, "unjudged_nonrelevant": 0.25,
                                 "unjudged_relevant": 1.0}
    assert d["pool_size"] == 3 and d["pool_queries"] == 2


def test_the_verdict_under_each_reading_is_the_paired_comparison():
    qrels = {f"q{i}": {"r": 1} for i in range(30)}
    # A finds the judged doc at rank 1; B puts two unjudged docs first, then the judged one
    ranks = {"A": {q: ["r", f"a{q}"] for q in qrels}, "B": {q: [f"b{q}", f"c{q}", "r"]
                                                         for q in qrels}}

    def score(q):
        return pd.DataFrame({m: per_query(ranks[m], q, ["hit@2"])["hit@2"] for m in ranks})

    jb = judged_bounds(ranks, qrels, score, a="A", b="B", metric="hit@2", k=2, resamples=500)
    ref = compare_paired(jb.low["A"].to_numpy(), jb.low["B"].to_numpy(), resamples=500)
    assert jb.verdict_low == ref.verdict == "a_better"
    assert jb.verdict_high == "no_difference"      # every B top 2 relevant if labelled so
    assert jb.differ and jb.to_dict()["verdict_depends_on_missing_labels"]
    assert jb.diff_low[0] == pytest.approx(-1.0)


def _demo_trec():
    d = ROOT / "data" / "demo_trec"
    runs = [read_run((d / n).read_bytes(), n) for n in ("bm25.run", "dense.run", "hybrid.run")]
    return score_runs(runs, read_qrels((d / "qrels.txt").read_bytes(), "qrels.txt"),
                      ["nDCG@10"])


def test_trec_bounds_low_reading_is_the_page_metric_and_judged_is_ir_measures():
    ts = _demo_trec()
    jb = trec_bounds(ts, "bm25", "dense", resamples=500)
    pd.testing.assert_frame_equal(jb.low, ts.values["nDCG@10"], check_names=False)
    for r in ts.runs:
        ref = {m.query_id: m.value for m in ir_measures.iter_calc(
            [ir_measures.Judged @ 10], ts.qrels, {q: d for q, d in r.docs.items()
                                                  if q in ts.qrels})}
        for q, v in ref.items():
            assert jb.judged.at[q, r.name] == pytest.approx(v)
    assert not jb.pool.duplicated(["query_id", "doc_id"]).any()
    assert set(jb.pool["query_id"]) <= set(ts.qrels)


def test_list_bounds_use_the_reference_ids_and_query_text():
    ls = score_lists(load_lists((ROOT / "data" / "demo_lists.csv").read_bytes(), "demo.csv"), 10)
    jb = lists_bounds(ls, "ndcg@10", "bm25", "dense", resamples=500)
    pd.testing.assert_series_equal(jb.low["bm25"], ls.values["ndcg@10"]["bm25"].dropna(),
                                   check_names=False)
    assert jb.pool["query"].str.len().gt(0).all()
    assert (jb.judged.values <= 1).all()
    with pytest.raises(ValueError):
        lists_bounds(ls, "nope@10", "bm25", "dense")


def _as_scored_afresh(score):
    """A scorer that never returns the judgements' own values object: every reading scored
    again (how both sources worked before issue 38's shortcut)."""
    return lambda q: score(dict(q)).copy()


@pytest.mark.parametrize("metric", ["ndcg@10", "hit@10", "mrr@10", "recall@10", "p@10",
                                    "context_precision@10"])
def test_list_bounds_shortcuts_equal_scoring_every_reading_afresh(metric):
    """Issue 38: the low reading reuses the values already scored (the judgements as they
    are) and the high one scores only the metric compared; both equal scoring each reading
    with every metric (``case_values`` in full), to the last bit, verdicts included."""
    from core.inputs.lists import case_values, RANK_METRICS

    ls = score_lists(load_lists((ROOT / "data" / "demo_lists.csv").read_bytes(), "demo.csv"), 10)
    jb = lists_bounds(ls, metric, "bm25", "hybrid", resamples=500)
    lists = ls.lists
    name = metric.split("@")[0]
    cases = [c for c, g in zip(lists.cases, lists.gold) if g]
    rankings = {m: dict(zip(lists.cases, (list(x) for x in lists.retrieved[m])))
                for m in lists.methods}

    def full(q):
        return pd.DataFrame({m: [case_values(rankings[m][c], [d for d, g in q[c].items()
                                                               if g > 0], 10, "ids")[name]
                                 for c in cases] for m in lists.methods},
                            index=pd.Index(cases, name="case_id"))

    qrels = {c: {d: 1 for d in g} for c, g in zip(lists.cases, lists.gold) if g}
    ref = judged_bounds(rankings, qrels, _as_scored_afresh(full), a="bm25", b="hybrid",
                        metric=metric, k=10, queries=cases, resamples=500)
    pd.testing.assert_frame_equal(jb.low, ref.low)
    pd.testing.assert_frame_equal(jb.high, ref.high)
    assert jb.to_dict() == {**ref.to_dict(), "pool_size": jb.to_dict()["pool_size"]}
    assert (jb.verdict_low, jb.verdict_high, jb.diff_low, jb.diff_high) == \
        (ref.verdict_low, ref.verdict_high, ref.diff_low, ref.diff_high)
    if name in RANK_METRICS:   # the one metric alone is the one among all
        for c in cases[:10]:
            got = rankings["dense"][c]
            assert case_values(got, list(qrels[c]), 10, only=name) == \
                {name: case_values(got, list(qrels[c]), 10)[name]}


def test_trec_bounds_shortcut_equals_scoring_the_judgements_again():
    ts = _demo_trec()
    jb = trec_bounds(ts, "bm25", "hybrid", resamples=500)
    runs = list(ts.runs)
    ref = judged_bounds({r.name: r.ranking for r in runs}, ts.qrels, _as_scored_afresh(
        lambda q: score_runs(runs, q, ["nDCG@10"]).values["nDCG@10"]), a="bm25", b="hybrid",
        metric="nDCG@10", k=10, resamples=500)
    pd.testing.assert_frame_equal(jb.low, ref.low)
    pd.testing.assert_frame_equal(jb.high, ref.high)
    assert jb.to_dict() == ref.to_dict()


def test_trec_and_id_lists_never_load_the_passage_matcher():
    """rapidfuzz (passage similarity) and the lists module are not imported by a TREC
    comparison, rapidfuzz not by a list file of ids (issue 38: import only what is used)."""
    import subprocess
    import sys

    d = ROOT / "data"
    code = ("import sys; from core.__main__ import main; "
            "main(sys.argv[1:]); print(sorted(m for m in ('rapidfuzz', 'core.inputs.lists') "
            "if m in sys.modules), file=sys.stderr)")
    trec = ["compare", "--format", "trec", "--qrels", str(d / "demo_trec" / "qrels.txt"),
            str(d / "demo_trec" / "bm25.run"), str(d / "demo_trec" / "dense.run"),
            "--resamples", "200"]
    lists = ["compare", str(d / "demo_lists.csv"), "--format", "lists", "--resamples", "200"]
    for args, loaded in ((trec, "[]"), (lists, "['core.inputs.lists']")):
        out = subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, text=True,
                             capture_output=True, env={**__import__("os").environ,
                                                       "PYTHONPATH": str(ROOT)})
        assert out.returncode == 0, out.stderr
        assert out.stderr.strip().splitlines()[-1] == loaded, out.stderr
