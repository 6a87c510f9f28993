"""core.agreement.rank_similarity: RBO_ext against Webber, Moffat & Zobel (2010) eq. 32 written out here,
and against its definition as an infinite sum with extrapolated agreement; prefix RBO; tau."""
import itertools
import math

import numpy as np
import pytest
from scipy import stats

from core.agreement import levels as agreement
from core.agreement.rank_similarity import kendall_tau, rbo, rbo_ext, rbo_prefix


def _paper_rbo_ext(S, L, p):
    """Eq. 32 of Webber et al. (2010) with s = |S| <= l = |L| (no ties), X_d = |S_:d ∩ L_:d|."""
    if len(S) > len(L):
        S, L = L, S
    s, l = len(S), len(L)
    X = {d: len(set(S[:d]) & set(L[:d])) for d in range(1, l + 1)}
    first = sum(X[d] / d * p ** d for d in range(1, l + 1))
    second = sum(X[s] * (d - s) / (s * d) * p ** d for d in range(s + 1, l + 1))
    return (1 - p) / p * (first + second) + ((X[l] - X[s]) / l + X[s] / s) * p ** l


def _extrapolated_sum(S, L, p, depth=4000):
    """RBO = (1 - p) sum_d p^(d-1) A_d with Webber's extrapolation: below the shorter list the
    unseen items agree at rate X_s / s; below both lists the agreement stays at A_l."""
    if len(S) > len(L):
        S, L = L, S
    s, l = len(S), len(L)
    X = lambda d: len(set(S[:d]) & set(L[:d]))  # noqa: E731
    total = 0.0
    for d in range(1, depth + 1):
        if d <= s:
            a = X(d) / d
        elif d <= l:
            a = (X(d) + (d - s) * X(s) / s) / d
        else:
            a = (X(l) + (l - s) * X(s) / s) / l
        total += (1 - p) * p ** (d - 1) * a
    return total


@pytest.mark.parametrize("p", [0.5, 0.8, 0.9, 0.98])
def test_rbo_ext_equals_the_paper_formula_and_the_extrapolated_sum(p):
    rng = np.random.default_rng(int(p * 100))
    items = list("abcdefghijklmnop")
    for _ in range(60):
        s_len, l_len = sorted(rng.integers(1, 12, size=2))
        S = list(rng.permutation(items)[:s_len])
        L = list(rng.permutation(items)[:l_len])
        ours = rbo_ext(S, L, p)
        assert ours == pytest.approx(_paper_rbo_ext(S, L, p), abs=1e-12)
        assert ours == pytest.approx(_paper_rbo_ext(L, S, p), abs=1e-12)  # symmetric
        if p < 0.95:
            assert ours == pytest.approx(_extrapolated_sum(S, L, p), abs=1e-9)


def test_rbo_ext_hand_values():
    assert rbo_ext(list("abc"), list("abc"), 0.9) == pytest.approx(1.0)
    assert rbo_ext(list("abc"), list("xyz"), 0.9) == 0.0
    # abc vs bac, p = 0.5: X = 0, 2, 3 -> (1/2)/0.5*(0 + 1*0.25 + 1*0.125) + 1*0.125
    assert rbo_ext(list("abc"), list("bac"), 0.5) == pytest.approx(0.375 + 0.125)
    # reversing: ext below 1, prefix rescaled to 0 (the most different order possible)
    r = rbo(list("abcd"), list("dcba"), 0.9)
    assert 0 < r.ext < 1 and r.normalized == pytest.approx(0.0)
    assert rbo_prefix(list("abcd"), list("dcba"), 0.9) == r.normalized


def test_rbo_ext_is_above_the_prefix_lower_bound():
    """RBO@k (raw prefix) is Webber's lower bound RBO_min on the full RBO; RBO_ext lies above."""
    for S, L in itertools.product(itertools.permutations("abcd"), [list("abce"), list("ab")]):
        r = rbo(list(S), L, 0.8)
        assert r.ext >= r.rbo - 1e-12


def test_ties_and_json_keys():
    r = rbo([{"a", "b"}, "c"], list("abc"), 0.9)
    assert 0 < r.ext <= 1 and rbo([{"a", "b"}, "c"], [{"a", "b"}, "c"], 0.9).ext == \
        pytest.approx(1.0)
    d = r.to_dict()
    assert d["rbo"] == r.ext and d["rbo_prefix"] == r.normalized and d["rbo_raw"] == r.rbo
    assert rbo_ext(["a"], [], 0.9) == 0.0


def test_agreement_uses_this_module():
    assert agreement.rbo is rbo and agreement.kendall_tau is kendall_tau


def test_kendall_equals_scipy_and_bad_p():
    x, y = np.random.default_rng(0).random((2, 30))
    ref = stats.kendalltau(x, y)
    assert kendall_tau(x, y) == pytest.approx((ref.statistic, ref.pvalue), abs=1e-12)
    assert all(math.isnan(v) for v in kendall_tau([1, 1, 1], [1, 2, 3]))
    for bad in (0, 1, 1.5, True, "x"):
        with pytest.raises(ValueError, match="p must"):
            rbo_ext(["a"], ["a"], bad)
