"""core.inputs.clusters: the cluster column (by name, by --cluster, blank cells refused naming
the rows, a case in two clusters refused), the qid,cluster side file, runs folded to case means
(exactly the mean of the runs), the comparison on the paired cases, and the hint."""
import numpy as np
import pytest

from core.errors import InputError
from core.inputs.systems import load_clustered
from core.inputs.clusters import (cluster_hint, compare_in_clusters,
                                  load_lists_clustered, read_cluster_labels, runs_block)
from core.inputs.golden import load_golden
from core.inputs.systems import compare_golden
from core.paired.cluster_check import with_self_check
from core.paired.clusters import compare_clustered


def _csv(text: str) -> bytes:
    return text.strip().encode() + b"\n"


GOLDEN = _csv("""
case_id,document,A,B
q1,d1,1,1
q2,d1,0,1
q3,d2,1,0
q4,d2,0,1
q5,d3,1,1
q6,d3,0,1
""")


def test_a_cluster_column_is_read_and_not_a_method_or_text():
    cl = load_clustered(GOLDEN, "g.csv")
    assert cl.column == "document" and cl.labels == {"q1": "d1", "q2": "d1", "q3": "d2",
                                                      "q4": "d2", "q5": "d3", "q6": "d3"}
    assert cl.golden.methods == ["A", "B"] and "document" not in cl.golden.text.columns
    # the same set as load_golden without the column
    plain = load_golden(_csv("\n".join(",".join(r.split(",")[:1] + r.split(",")[2:])
                                       for r in GOLDEN.decode().splitlines())), "g.csv")
    np.testing.assert_array_equal(cl.golden.cases.values, plain.cases.values)


def test_without_a_cluster_column_the_set_is_load_golden():
    data = _csv("case_id,query,A,B\nq1,x,1,0\nq2,y,0,1\nq3,z,1,1")
    cl = load_clustered(data, "g.csv")
    ref = load_golden(data, "g.csv")
    assert cl.labels is None and cl.runs is None
    assert cl.golden.cases.ids == ref.cases.ids and cl.golden.text.equals(ref.text)


def test_named_cluster_column_and_unknown_name():
    data = _csv("case_id,page,A,B\nq1,p1,1,0\nq2,p1,0,1\nq3,p2,1,1\nq4,p2,0,0")
    cl = load_clustered(data, "g.csv", cluster="page")
    assert cl.labels["q3"] == "p2" and cl.golden.methods == ["A", "B"]
    with pytest.raises(InputError) as e:
        load_clustered(data, "g.csv", cluster="nope")
    assert e.value.code == "clusters.err_no_such_column"


def test_blank_clusters_are_refused_naming_every_row():
    data = _csv("case_id,cluster,A,B\nq1,d1,1,0\nq2,,0,1\nq3,d2,1,1\nq4,,0,0")
    with pytest.raises(InputError) as e:
        load_clustered(data, "g.csv")
    err = e.value
    assert err.code == "clusters.err_blank" and err.row == 3 and err.column == "cluster"
    assert err.params["count"] == 2 and err.params["rows"] == "3, 5"


def test_a_case_in_two_clusters_is_refused():
    data = _csv("case_id,method,score,cluster\nq1,A,1,d1\nq1,B,0,d2\nq2,A,1,d1\nq2,B,1,d1")
    with pytest.raises(InputError) as e:
        load_clustered(data, "g.csv")
    assert e.value.code == "clusters.err_conflict" and e.value.row == 3


def test_side_file_and_missing_cases():
    labels = read_cluster_labels(_csv("qid,doc_id\n1,a\n2,a\n3,b"), "c.csv")
    assert labels == {"1": "a", "2": "a", "3": "b"}
    with pytest.raises(InputError) as e:
        read_cluster_labels(_csv("qid,topic\n1,a"), "c.csv")
    assert e.value.code == "clusters.err_no_column"
    res = compare_golden(load_golden(GOLDEN, "g.csv"), resamples=500)
    with pytest.raises(InputError) as e:
        compare_in_clusters(res, {"q1": "d1"}, "c.csv")
    assert e.value.code == "clusters.err_missing" and e.value.params["count"] == 5


def test_compare_in_clusters_is_compare_clustered_on_the_paired_cases():
    cl = load_clustered(GOLDEN, "g.csv")
    res = compare_golden(cl.golden, resamples=500)
    cc = compare_in_clusters(res, cl.labels, "g.csv", resamples=500)
    labels = ["d1", "d1", "d2", "d2", "d3", "d3"]
    ref = compare_clustered(res.a_values, res.b_values, labels, resamples=500)
    ref = with_self_check(ref, np.asarray(res.b_values, float) - np.asarray(res.a_values, float),
                          labels)   # the clustered self-check, same seed (issue 32)
    assert cc.to_dict() == ref.to_dict() and cc.to_dict()["self_check"]["unit"] == "cluster"
    # cluster sums of B - A: (1, 0, 1): 2 non-zero; of the 4 sign patterns 2 reach |sum| 2
    # and none more: exact p 2/4, and (0/1 outcomes) the verdict's mid-p 0 + 2/4 / 2
    assert cc.test.nonzero == 2 and cc.test.mid_p and cc.test.p == pytest.approx(0.25)


RUNS = _csv("""
case_id,method,run,score,cluster
c1,A,1,0.5,d1
c1,A,2,0.7,d1
c1,B,1,0.9,d1
c1,B,2,0.8,d1
c2,A,1,0.2,d1
c2,A,2,0.4,d1
c2,B,1,0.1,d1
c2,B,2,0.6,d1
c3,A,1,0.3,d2
c3,B,1,0.6,d2
c3,B,2,0.4,d2
""")


def test_runs_fold_to_case_means_and_the_block():
    cl = load_clustered(RUNS, "r.csv")
    assert cl.runs is not None and cl.runs.column == "run"
    cs = cl.golden.cases
    a = dict(zip(cs.ids, cs.values[:, cs.methods.index("A")]))
    b = dict(zip(cs.ids, cs.values[:, cs.methods.index("B")]))
    assert a == pytest.approx({"c1": 0.6, "c2": 0.3, "c3": 0.3})
    assert b == pytest.approx({"c1": 0.85, "c2": 0.35, "c3": 0.5})
    res = compare_golden(cl.golden, "A", "B", resamples=500)
    block = runs_block(cl.runs, res)
    # run 1: B - A = 0.4, -0.1, 0.3; run 2: 0.1, 0.2, (A missing) -> c2 flips sign
    assert block["sign_flips"] == 1 and block["k_min"] == 1 and block["k_max"] == 2
    assert not block["equal_k"] and block["unequal_cases"] == ["c3"]
    # within variance of A: pooled over cases with 2 runs: (0.02 + 0.02) / 2
    assert block["methods"]["A"]["var_within"] == pytest.approx(0.02)


def test_a_repeated_run_is_refused():
    data = RUNS + b"c1,A,1,0.6,d1\n"
    with pytest.raises(InputError) as e:
        load_clustered(data, "r.csv")
    assert e.value.code == "clusters.err_duplicate_run" and e.value.params["count"] == 2


def test_lists_cluster_column_is_taken_out():
    data = _csv("case_id,gold_ids,source,bm25,dense\nq1,d1,s1,d1|d2,d2|d1\nq2,d3,s1,d3,d1"
                "\nq3,d2,s2,d1|d2,d2")
    ls, labels, col = load_lists_clustered(data, "l.csv")
    assert col == "source" and labels == {"q1": "s1", "q2": "s1", "q3": "s2"}
    assert list(ls.methods) == ["bm25", "dense"]


def test_hint():
    ids = [f"doc{d}_q{q}" for d in range(5) for q in range(3)]
    assert cluster_hint(ids) == {"sources": 5, "cases": 15, "example": "doc0"}
    assert cluster_hint([f"q{i:02d}" for i in range(30)]) is None
    assert cluster_hint([str(i) for i in range(30)]) is None
    assert cluster_hint([f"case-{i}" for i in range(30)]) is None


# ----------------------------------------------------------------------------- groups (issue 32)
def _grouped(seed=2, g=8, m=3):
    rng = np.random.default_rng(seed)
    ids = [f"d{i}_q{j}" for i in range(g) for j in range(m)]
    docs = {c: c.split("_")[0] for c in ids}
    a = rng.random(g * m)
    b = np.clip(a + np.repeat(rng.normal(0.1, 0.15, g), m) + rng.normal(0, 0.05, g * m), 0, 1)
    return ids, a, b, docs


def test_groups_with_clusters_take_each_groups_clusters_as_the_unit():
    from core.inputs.groups import compare_by_group
    from core.planning import cases_needed
    ids, a, b, docs = _grouped()
    groups = {c: ("early" if int(docs[c][1:]) < 4 else "late") for c in ids}
    gc = compare_by_group(ids, a, b, groups, clusters=docs, resamples=2000)
    assert gc.clusters == "nested" and gc.to_dict()["unit"] == "clusters"
    corrected = gc.corrected_confidence
    for g in gc.groups:
        sel = np.array([groups[c] == g.group for c in ids])
        ref = compare_clustered(a[sel], b[sel], [docs[c] for c, s in zip(ids, sel) if s],
                                confidence=corrected, resamples=2000)
        assert (g.ci_low, g.ci_high) == pytest.approx((ref.difference.ci_low,
                                                       ref.difference.ci_high), abs=1e-12)
        assert g.p == pytest.approx(ref.test.p) and g.n_clusters == 4
        assert g.interval == "cr2_calibrated"
        need = cases_needed(a[sel], b[sel], confidence=corrected).n_needed
        if need is not None:
            assert g.n_needed == int(np.ceil(need * ref.summary.design_effect - 1e-9))
    plain = compare_by_group(ids, a, b, groups, resamples=2000)
    assert plain.clusters is None and "unit" not in plain.to_dict()
    assert "n_clusters" not in plain.to_dict()["groups"][0]


def test_group_with_one_cluster_is_too_few_and_crossed_clusters_have_no_interaction_test():
    from core.inputs.groups import compare_by_group
    ids, a, b, docs = _grouped()
    one = {c: ("solo" if docs[c] == "d0" else "rest") for c in ids}
    gc = compare_by_group(ids, a, b, one, clusters=docs, resamples=2000)
    solo = next(g for g in gc.groups if g.group == "solo")
    assert solo.status == "too_few" and solo.n == 3 and solo.n_clusters == 1
    assert gc.compared == 1
    crossed = {c: ("x" if c.endswith("q0") else "y") for c in ids}   # every doc in both
    gc = compare_by_group(ids, a, b, crossed, clusters=docs, resamples=2000)
    assert gc.clusters == "crossed" and gc.interaction is None
    with pytest.raises(ValueError, match="no cluster for 1 grouped case"):
        compare_by_group(ids, a, b, one, clusters={k: v for k, v in docs.items()
                                                   if k != ids[-1]})


def test_interaction_permuting_whole_clusters_matches_full_enumeration():
    """p of the cluster-level permutation test vs every assignment of the 6 clusters to the
    two groups (3 + 3: 20 assignments), by hand: the between-group SS with each assignment's
    own group sizes in cases."""
    import itertools

    from core.inputs.groups import interaction_test_clustered
    rng = np.random.default_rng(11)
    sizes = [2, 3, 4, 2, 5, 3]
    cl = np.repeat([f"c{i}" for i in range(6)], sizes)
    grp_of = {"c0": "g", "c1": "g", "c2": "g", "c3": "h", "c4": "h", "c5": "h"}
    lab = np.array([grp_of[c] for c in cl])
    d = rng.normal(0, 1, cl.size) + np.where(lab == "g", 0.8, 0.0)

    def between(assign):
        gl = np.array([assign[c] for c in cl])
        return sum(d[gl == g].sum() ** 2 / np.sum(gl == g) for g in ("g", "h"))

    obs = between(grp_of)
    hits = 0
    combos = list(itertools.combinations(range(6), 3))
    for pick in combos:
        assign = {f"c{i}": ("g" if i in pick else "h") for i in range(6)}
        hits += between(assign) >= obs - 1e-12
    exact = hits / len(combos)
    it = interaction_test_clustered(d, lab, cl, permutations=20_000, seed=1)
    assert it.permutations == 20_000 and it.groups == 2 and it.n == cl.size
    assert it.p == pytest.approx(exact, abs=4 * np.sqrt(exact * (1 - exact) / 20_000) + 1e-4)
    f = stats_f(d, lab)
    assert it.f == pytest.approx(f, rel=1e-9)
    assert interaction_test_clustered(d, lab, np.array(["z"] * cl.size)) is None


def stats_f(d, lab):
    from scipy import stats
    return stats.f_oneway(*(d[lab == g] for g in np.unique(lab))).statistic


LIST_RUNS = """case_id,query,gold_ids,{h},bm25,dense
q1,first,d1,1,d1|x,x|d1
q1,first,d1,2,x|d1,d1|x
q1,first,d1,3,d1|x,d1
q2,second,d2,1,d2,x|y
q2,second,d2,2,x|d2,d2
q2,second,d2,3,d2,x|d2
q3,third,d3,1,x,d3
q3,third,d3,2,x,d3
q3,third,d3,3,x|d3,d3
q4,fourth,d4,1,d4,d4
q4,fourth,d4,2,d4,x
"""


@pytest.mark.parametrize("header", ["trial", "repeat", "반복", "run"])
def test_lists_with_a_run_column_are_read_as_repeated_runs(header):
    """K rows per case, one per run: each run scored on its own, the case value the mean over
    its runs (by hand: reciprocal ranks), the runs block's sign flips and unequal K."""
    from core.inputs import compare_golden, runs_block, score_lists
    ls, labels, col = load_lists_clustered(LIST_RUNS.format(h=header).encode(), "l.csv")
    assert labels is None and ls.methods == ["bm25", "dense"] and ls.run_column == header
    assert ls.cases == ("q1", "q2", "q3", "q4") and [r for r, _ in ls.runs] == ["1", "2", "3"]
    sc = score_lists(ls, 10)
    rr = {"bm25": {"q1": [1, .5, 1], "q2": [1, .5, 1], "q3": [0, 0, .5], "q4": [1, 1]},
          "dense": {"q1": [.5, 1, 1], "q2": [0, 1, .5], "q3": [1, 1, 1], "q4": [1, 0]}}
    cs = sc.arrays["mrr@10"]
    for j, m in enumerate(cs.methods):
        assert cs.values[:, j] == pytest.approx([np.mean(rr[m][c]) for c in ls.cases])
    assert sc.runs["mrr@10"].values["dense"]["q2"] == {"1": 0.0, "2": 1.0, "3": 0.5}
    res = compare_golden(sc.golden("mrr@10"), a="bm25", b="dense", resamples=500)
    block = runs_block(sc.runs["mrr@10"], res)
    # B − A by run: q1 (-.5, +.5, 0) and q2 (-1, +.5, -.5) change sign; q3, q4 do not
    assert block["sign_flips"] == 2 and block["column"] == header
    assert block["k_max"] == 3 and block["unequal_cases"] == ["q4"] and not block["equal_k"]


def test_lists_runs_refuse_a_repeated_case_and_run_and_a_blank_run():
    bad = LIST_RUNS.format(h="trial") + "q4,fourth,d4,2,d4,d4\n"
    with pytest.raises(InputError) as e:
        load_lists_clustered(bad.encode(), "l.csv")
    assert e.value.code == "clusters.err_duplicate_list_run" and e.value.params["count"] == 2
    for lang in ("en", "ko"):
        assert "12" in e.value.message(lang) and "l.csv" in e.value.message(lang)
    blank = LIST_RUNS.format(h="trial").replace("q3,third,d3,2,x", "q3,third,d3,,x")
    with pytest.raises(InputError) as e:
        load_lists_clustered(blank.encode(), "l.csv")
    assert e.value.code == "clusters.err_blank_run" and e.value.row == 9


def test_a_method_named_run_with_one_row_per_case_stays_a_method():
    data = b"case_id,gold_ids,run,dense\nq1,d1,d1|x,x\nq2,d2,x|d2,d2\n"
    ls, _, _ = load_lists_clustered(data, "l.csv")
    assert ls.methods == ["run", "dense"] and ls.runs == ()


def test_has_cluster_column_reads_the_header():
    from core.inputs.clusters import has_cluster_column
    assert has_cluster_column(GOLDEN, "g.csv")
    assert has_cluster_column(RUNS, "r.csv")
    assert not has_cluster_column(b"case_id,A,B\nq1,1,0\nq2,0,1\n", "p.csv")
