"""core.inputs.groups: per-group B − A equals core.paired.compare on each group's cases, Holm across
groups (statsmodels), "cannot tell" from the planner, the interaction F equals scipy's
one-way F and its permutation p is right by brute force; group columns read with clear
errors."""
import itertools

import numpy as np
import pandas as pd
import pytest
from scipy.stats import f_oneway
from statsmodels.stats.multitest import multipletests

from core.errors import InputError
from core.inputs.groups import (GROUP_NAMES, PERM_BLOCK, PERM_MIN, PERM_WORK, compare_by_group,
                         interaction_test, permutation_budget, read_group_cells,
                         read_group_file)
from core.paired.compare import compare_paired
from core.planning.sample_size import cases_needed


def _data(seed=0):
    rng = np.random.default_rng(seed)
    n = 60
    a = rng.random(n)
    b = a + np.r_[rng.normal(0.25, 0.1, 30), rng.normal(0.0, 0.1, 20), rng.normal(0, .1, 10)]
    ids = [f"q{i:02d}" for i in range(n)]
    groups = {c: ("ko" if i < 30 else "en" if i < 50 else "mixed") for i, c in enumerate(ids)}
    return ids, a, b, groups


def test_each_group_is_the_paired_comparison_at_the_bonferroni_level():
    ids, a, b, groups = _data()
    r = compare_by_group(ids, a, b, groups, resamples=2000, seed=3, permutations=500)
    assert [g.group for g in r.groups] == ["ko", "en", "mixed"]
    assert r.corrected_confidence == pytest.approx(1 - 0.05 / 3)
    labels = np.array([groups[c] for c in ids])
    raw = []
    for g in r.groups:
        sel = labels == g.group
        c = compare_paired(a[sel], b[sel], resamples=2000, seed=3,
                           confidence=r.corrected_confidence)
        assert g.n == sel.sum()
        assert g.diff == pytest.approx(np.mean(b[sel] - a[sel]), abs=1e-12)
        assert (g.ci_low, g.ci_high) == pytest.approx((c.bootstrap.ci_low, c.bootstrap.ci_high))
        assert g.p == pytest.approx(c.test.p)
        raw.append(c.test.p)
    assert [g.p_holm for g in r.groups] == pytest.approx(multipletests(raw, method="holm")[1])
    ko = r.groups[0]
    assert ko.verdict == ko.status == "b_better"


def test_cannot_tell_when_the_group_has_fewer_cases_than_the_planner_needs():
    rng = np.random.default_rng(5)
    a = rng.random(40)
    b = a + np.r_[rng.normal(0.03, 0.2, 20), rng.normal(0.03, 0.2, 20)]
    ids = [str(i) for i in range(40)]
    groups = {c: "x" if i < 20 else "y" for i, c in enumerate(ids)}
    r = compare_by_group(ids, a, b, groups, resamples=1000, permutations=200)
    for g in r.groups:
        sel = np.array([groups[c] == g.group for c in ids])
        need = cases_needed(a[sel], b[sel], confidence=r.corrected_confidence).n_needed
        assert g.n_needed == need
        assert g.verdict == "no_difference"
        assert g.status == ("cannot_tell" if need is None or g.n < need else "no_difference")
    assert any(g.status == "cannot_tell" for g in r.groups)


def test_a_group_of_one_case_is_too_few_and_not_corrected_for():
    ids, a, b, groups = _data()
    groups = dict(groups)
    groups[ids[0]] = "alone"
    r = compare_by_group(ids, a, b, groups, resamples=500, permutations=100)
    alone = next(g for g in r.groups if g.group == "alone")
    assert alone.status == "too_few" and alone.p is None and alone.n == 1
    assert r.compared == 3 and r.corrected_confidence == pytest.approx(1 - 0.05 / 3)


def test_cases_without_a_group_are_left_out_and_listed():
    ids, a, b, groups = _data()
    groups = {c: g for c, g in groups.items() if c not in ("q00", "q59")}
    r = compare_by_group(ids, a, b, pd.Series(groups), resamples=500, permutations=100)
    assert r.ungrouped == ("q00", "q59")
    assert sum(g.n for g in r.groups) == 58


def test_binary_groups_use_the_binary_machinery():
    a = np.array([0, 1, 0, 1, 0, 0, 1, 0, 0, 1] * 4, float)
    b = np.array([1, 1, 1, 1, 0, 1, 1, 0, 1, 1] * 4, float)
    ids = [str(i) for i in range(40)]
    groups = {c: "even" if i % 2 == 0 else "odd" for i, c in enumerate(ids)}
    r = compare_by_group(ids, a, b, groups, resamples=500, permutations=100)
    assert r.binary and {g.interval for g in r.groups} == {"tango"}
    d = r.to_dict()
    assert d["correction"] == {"tests": "holm", "intervals": "bonferroni", "groups_compared": 2}
    assert [g["group"] for g in d["groups"]] == ["even", "odd"]


def test_interaction_f_equals_scipy_and_p_is_the_permutation_share():
    rng = np.random.default_rng(2)
    d = rng.normal(size=30)
    d[:10] += 1.2
    lab = np.array(["a"] * 10 + ["b"] * 12 + ["c"] * 8)
    t = interaction_test(d, lab, permutations=4000, seed=1)
    f = f_oneway(d[lab == "a"], d[lab == "b"], d[lab == "c"]).statistic
    assert t.f == pytest.approx(f, rel=1e-12)
    assert t.groups == 3 and t.n == 30
    # exchangeable under the null: p near scipy's F p (both valid; 4000 permutations)
    assert abs(t.p - f_oneway(d[lab == "a"], d[lab == "b"], d[lab == "c"]).pvalue) < 0.02
    assert interaction_test(d, lab, permutations=4000, seed=1) == t  # seeded


def test_interaction_p_by_enumerating_every_labelling():
    # 6 cases, 3 + 3: 20 labellings; the permutation p converges to the exact share
    d = np.array([0.9, 1.1, 0.7, 0.1, -0.2, 0.3])
    lab = np.array(["x"] * 3 + ["y"] * 3)
    obs = abs(d[:3].mean() - d[3:].mean())
    count = sum(1 for idx in itertools.combinations(range(6), 3)
                if abs(d[list(idx)].mean() - np.delete(d, idx).mean()) >= obs - 1e-12)
    exact = count / 20
    t = interaction_test(d, lab, permutations=40_000, seed=0)
    assert t.p == pytest.approx(exact, abs=0.01)


def test_interaction_needs_two_groups():
    assert interaction_test([1.0, 2.0, 3.0], ["a", "a", "a"], permutations=10) is None
    assert interaction_test([1.0, 2.0], ["a", "b"], permutations=10) is None
    with pytest.raises(ValueError):
        interaction_test([1.0, 2.0], ["a"], permutations=10)


def _frame(rows):
    f = pd.DataFrame(rows[1:], columns=rows[0], dtype=str)
    f.index = range(2, len(f) + 2)
    return f


def test_group_cells_errors_name_file_row_and_column():
    ok = _frame([["case_id", "group"], ["1", "ko"], ["2", "en"], ["1", "ko"]])
    s = read_group_cells(ok, "case_id", "group", "f.csv")
    assert s.to_dict() == {"1": "ko", "2": "en"}
    with pytest.raises(InputError) as e:
        read_group_cells(_frame([["case_id", "group"], ["1", "ko"], ["2", ""]]),
                         "case_id", "group", "f.csv")
    assert (e.value.code, e.value.row, e.value.column, e.value.file) == \
        ("groups.err_blank", 3, "group", "f.csv")
    with pytest.raises(InputError) as e:
        read_group_cells(_frame([["case_id", "group"], ["1", "ko"], ["1", "en"]]),
                         "case_id", "group", "f.csv")
    assert e.value.code == "groups.err_conflict" and e.value.row == 3
    assert "'ko'" in str(e.value) or "ko" in str(e.value)
    with pytest.raises(InputError) as e:
        read_group_cells(_frame([["case_id", "group"], ["1", "x" * 61]]), "case_id",
                         "group", "f.csv")
    assert e.value.code == "groups.err_too_long" and e.value.row == 2
    many = [["case_id", "group"]] + [[str(i), f"g{i}"] for i in range(21)]
    with pytest.raises(InputError) as e:
        read_group_cells(_frame(many), "case_id", "group", "f.csv")
    assert e.value.code == "groups.err_too_many" and e.value.column == "group"


def test_group_side_file(tmp_path):
    s = read_group_file("qid,group\nq1,short\nq2,long\n".encode(), "g.csv")
    assert s.to_dict() == {"q1": "short", "q2": "long"}
    s = read_group_file("query_id\t그룹\nq1\t짧음\n".encode(), "g.tsv")
    assert s.to_dict() == {"q1": "짧음"}
    with pytest.raises(InputError) as e:
        read_group_file(b"qid,type\nq1,x\n", "g.csv")
    assert e.value.code == "groups.err_no_column" and "g.csv" in str(e.value)
    assert "group" in GROUP_NAMES and "그룹" in GROUP_NAMES


# ----------------------------------------------------------------------------- cost limit
def _large(n, shift, seed=0):
    rng = np.random.default_rng(seed)
    lab = np.array(["x", "y", "z"])[rng.integers(0, 3, n)]
    d = rng.normal(size=n) + shift * (lab == "x")
    return d, lab


def test_permutation_budget_sizes_to_cases_and_groups():
    assert permutation_budget(30, 3, 10_000) == 10_000          # 10,000 x 33 fits
    cap = permutation_budget(5_000, 3, 10_000)                  # 5,003 x 10,000 > PERM_WORK
    assert cap % 256 == 0 and cap * 5_003 <= PERM_WORK < (cap + 256) * 5_003
    assert permutation_budget(10_000_000, 20, 10_000) == PERM_MIN  # never below PERM_MIN
    assert permutation_budget(10_000_000, 20, 100) == 100             # never more than asked


def test_large_input_stops_once_the_side_of_alpha_is_settled():
    d, lab = _large(6_000, 0.5)   # a clear group effect: p far below alpha
    t = interaction_test(d, lab, permutations=10_000, seed=4, alpha=0.05)
    assert t.permutations == PERM_BLOCK and t.stopped == "settled"
    assert t.requested == 10_000 and t.p == pytest.approx(1 / (1 + PERM_BLOCK))
    assert t.to_dict()["permutations_requested"] == 10_000
    # the same seeded stream: its p is the p of the first PERM_BLOCK permutations
    assert interaction_test(d, lab, permutations=PERM_BLOCK, seed=4).p == t.p
    d0, lab0 = _large(6_000, 0.0, seed=1)   # equal group means: p far above alpha
    d0 = d0 - pd.Series(d0).groupby(lab0).transform("mean").to_numpy()
    t0 = interaction_test(d0, lab0, permutations=10_000, seed=4, alpha=0.05)
    assert t0.stopped == "settled" and t0.permutations == PERM_BLOCK and t0.p > 0.05


def test_large_input_without_alpha_stops_at_the_work_limit():
    d, lab = _large(6_000, 0.0)
    t = interaction_test(d, lab, permutations=10_000, seed=4)
    assert t.stopped == "work_limit"
    assert t.permutations == permutation_budget(6_000, 3, 10_000) < 10_000
    # a huge input still finishes: PERM_MIN permutations (p = 1/257 still below 0.01)
    d, lab = _large(100_000, 0.0)
    t = interaction_test(d, lab, permutations=10_000, seed=0, alpha=0.05)
    assert t.permutations == PERM_MIN and t.stopped == "work_limit"


def test_small_input_runs_every_permutation_asked_with_or_without_alpha():
    d, lab = _large(300, 0.2)
    t = interaction_test(d, lab, permutations=3_000, seed=2, alpha=0.05)
    assert t.permutations == 3_000 and t.stopped == "all"
    assert interaction_test(d, lab, permutations=3_000, seed=2) == t
