"""core.agreement.orderings: levels 3-4 (query ordering and system ordering) on small hand
examples: per-query values from core.inputs.metrics, tau from scipy, coverage counted by hand."""
import numpy as np
import pytest
from scipy import stats

from core.agreement.files import MISSING, load_labels, load_run
from core.agreement.orderings import (qrels_for, query_ordering, run_coverage,
                                      system_ordering)
from core.inputs.metrics import parse_measure, per_query

LABELS = b"""query_id,doc_id,gold,crowd
q1,a,2,1
q1,b,0,0
q1,c,1,
q2,d,1,1
q2,e,0,1
q3,f,1,0
q3,g,0,0
"""


def _labels():
    return load_labels(LABELS, "labels.csv")


def _run(text: str, name: str):
    return load_run(("query_id,doc_id,rank\n" + text).encode(), f"{name}.csv")


RUN_A = _run("q1,a,1\nq1,b,2\nq1,z,3\nq2,e,1\nq2,d,2\nq3,f,1\nq9,x,1\n", "A")
RUN_B = _run("q1,b,1\nq1,a,2\nq2,d,1\nq3,g,1\nq3,f,2\n", "B")
RUN_C = _run("q1,c,1\nq2,d,1\nq3,f,1\n", "C")


def test_qrels_for_gold_and_a_source_leave_blank_labels_out():
    ls = _labels()
    assert qrels_for(ls, "gold") == {"q1": {"a": 2, "b": 0, "c": 1}, "q2": {"d": 1, "e": 0},
                                     "q3": {"f": 1, "g": 0}}
    assert qrels_for(ls, "crowd")["q1"] == {"a": 1, "b": 0}  # c was not labelled
    both = (ls.gold != MISSING) & (ls.sources["crowd"] != MISSING)
    assert "c" not in qrels_for(ls, "gold", both)["q1"]


def test_run_coverage_counts_unlabelled_extra_and_missing():
    gold = qrels_for(_labels(), "gold")
    cov = run_coverage(RUN_A, gold, parse_measure("ndcg@2"))
    # top 2: q1 a,b; q2 e,d; q3 f -> 5 retrieved, all labelled; q9 has no labels
    assert (cov.run, cov.retrieved, cov.unlabelled, cov.extra_queries, cov.missing_queries) == \
        ("A", 5, 0, 1, 0)
    cov = run_coverage(RUN_A, gold, parse_measure("ndcg@10"))
    assert (cov.retrieved, cov.unlabelled) == (6, 1)  # q1's z is not labelled
    assert "repeated_lines" not in cov.to_dict()  # a repeated line is refused on reading


def test_query_ordering_scores_both_label_sets_and_compares_them():
    ls = _labels()
    gold, crowd = qrels_for(ls, "gold"), qrels_for(ls, "crowd")
    m = parse_measure("ndcg@10")
    qo = query_ordering(RUN_A, gold, crowd, m, bottom=2)
    want_g = per_query(RUN_A.ranking, gold, [m]).iloc[:, 0]
    want_o = per_query(RUN_A.ranking, crowd, [m]).iloc[:, 0].reindex(want_g.index)
    assert np.allclose(qo.scores["gold"], want_g) and np.allclose(qo.scores["other"], want_o)
    tau = stats.kendalltau(want_g, want_o)
    assert qo.tau == pytest.approx(tau.statistic, nan_ok=True)
    assert len(qo.bottom_gold) == 2 and qo.bottom_gold[0]["score"] == want_g.min()
    d = qo.to_dict()
    assert (d["run"], d["measure"], d["n_queries"]) == ("A", "ndcg@10", 3)


def test_system_ordering_needs_three_runs_and_ranks_by_mean():
    ls = _labels()
    gold, crowd = qrels_for(ls, "gold"), qrels_for(ls, "crowd")
    m = parse_measure("ndcg@10")
    qos = [query_ordering(r, gold, crowd, m) for r in (RUN_A, RUN_B, RUN_C)]
    with pytest.raises(ValueError, match="at least 3"):
        system_ordering(qos[:2])
    so = system_ordering(qos, top=2)
    means = {q.run: q.scores["gold"].mean() for q in qos}
    assert so.top_gold == sorted(means, key=means.get, reverse=True)[:2]
    assert so.means.loc["B", "other"] == pytest.approx(qos[1].scores["other"].mean())
    assert 0 <= so.rbo.normalized <= 1 and so.to_dict()["n_systems"] == 3
    assert so.top_same_set == (set(so.top_gold) == set(so.top_other))
