"""core.views.scifact: the sentence, the CLI text and the charts of a retriever comparison
carry its own numbers (B − A on the measure's scale)."""
import numpy as np
import pandas as pd

from core.scifact import MEASURES, ScifactResult, ci_by_n, compare_retrievers
from core.views.verdicts import verdict_sentence
from core.views.format import signed
from core.views.scifact import (NAMES, ci_by_n_chart, comparison_sentence, result_text,
                                scatter_chart)


def _tables(n=60, seed=0):
    rng = np.random.default_rng(seed)
    idx = pd.Index([f"q{i:03d}" for i in range(n)], name="query_id")
    a = rng.random(n).round(2)
    b = np.clip(a + rng.normal(0.1, 0.1, n), 0, 1).round(2)
    out = {}
    for name, vals in (("bm25", a), ("dense", b)):
        out[name] = pd.DataFrame({m: vals for m in MEASURES}, index=idx)
        out[name]["hit@10"] = (vals > 0.3).astype(float)
    return out


def _comparison():
    return compare_retrievers(_tables(), "bm25", "dense", "ndcg@10", resamples=2000, seed=1)


def test_comparison_sentence_uses_display_names_and_the_score_scale():
    c = _comparison()
    bs = c.bootstrap
    assert comparison_sentence(c, names=NAMES) == verdict_sentence(
        c.verdict, a="BM25", b="Dense", mean=bs.mean, ci_low=bs.ci_low, ci_high=bs.ci_high,
        n=60, confidence=0.95, unit="queries", kind="score")
    assert c.verdict == "b_better" and comparison_sentence(c).startswith("dense")


def test_result_text_lists_scores_duels_and_the_difference():
    c = _comparison()
    res = ScifactResult({"name": "tiny", "path": "x", "n_docs": 1234, "n_queries": 70,
                         "n_judgements": 80}, {"bm25": {"ndcg@10": 0.5}}, c, {})
    out = result_text(res)
    lines = out.splitlines()
    assert lines[0] == "tiny: 1,234 documents, 60 of 70 judged queries"
    assert f"bm25 wins {c.a_wins}, dense wins {c.b_wins}, ties {c.ties}" in out
    assert f"dense − bm25: {signed(c.bootstrap.mean, 4)}" in out
    assert comparison_sentence(c) in lines


def test_scatter_groups_equal_pairs_and_draws_the_diagonal():
    c = _comparison()
    data = list(scatter_chart(c).to_dict()["datasets"].values())
    pts = next(d for d in data if d and "queries" in d[0])
    assert sum(p["queries"] for p in pts) == 60
    assert len(pts) == len(set(zip(c.values_a.round(6), c.values_b.round(6))))
    assert any(d == [{"x": 0.0, "y": 0.0}, {"x": 1.0, "y": 1.0}] for d in data)


def test_ci_by_n_chart_highlights_the_chosen_size():
    rows = ci_by_n(_tables(), "bm25", "dense", "ndcg@10", [10, 20, 40, 60], resamples=1000)
    data = list(ci_by_n_chart(rows, 20).to_dict()["datasets"].values())
    pts = next(d for d in data if d and "chosen" in d[0])
    assert [p["n"] for p in pts] == [10, 20, 40, 60]
    assert [p["chosen"] for p in pts] == [False, True, False, False]
    assert pts[-1]["mean"] == rows["mean"].iloc[-1]
