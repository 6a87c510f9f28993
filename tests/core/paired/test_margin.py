"""core.paired.margin: against a published example, an independent implementation of Tango's score
test, brute-force sign-flip enumeration, and the rule's properties."""
import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, stats

from core.errors import InputError
from core.inputs.golden import load_golden
from core.inputs.systems import compare_golden
from core.paired.margin import (MarginResult, REASONS, VERDICTS, exact_unconditional_p,
                         margin_decision, margin_rule, tango_asymptotic_p)
from core.paired.compare import compare_paired
from core.paired.significance import shifted_signflip_p
from core.retrieval.scifact import compare_retrievers
from tests.shared_data import left_skewed_pair


def _binary(both, a_only, b_only, neither):
    a = np.array([1] * both + [1] * a_only + [0] * b_only + [0] * neither)
    b = np.array([1] * both + [0] * a_only + [1] * b_only + [0] * neither)
    return a, b


# Cavo et al. (2012), the worked example of Fagerland, Lydersen & Laake (2017, ch. 8):
# n11 = 59, n12 = 6, n21 = 16, n22 = 80; "Tango asymptotic score CI: estimate = -0.0621
# (95% CI -0.1240 to -0.0054)". With B right in the n12 cells, B - A = (6 - 16)/161.
CAVO = _binary(59, 16, 6, 80)


def _cavo(**kw):
    return compare_paired(*CAVO, resamples=2_000, **kw)


def test_published_example_the_asymptotic_test_inverts_to_the_published_interval():
    # the score test inverts to Tango's interval: at delta = -L (published to 4 decimals)
    # the asymptotic one-sided p is 2.5%; the upper limit -0.0054 likewise
    b_only, a_only, n = 6, 16, 161
    assert tango_asymptotic_p(b_only, a_only, n, -0.1240, upper=True) == pytest.approx(
        0.025, abs=5e-4)
    assert tango_asymptotic_p(b_only, a_only, n, -0.0054, upper=False) == pytest.approx(
        0.025, abs=5e-4)
    c = _cavo()
    assert c.bootstrap.interval == "tango"
    # the margin's answer on the card: inconclusive inside the interval, and at delta = 0
    # "inferior", as the superiority verdict says "A is better"
    assert margin_decision(c, 0.1230).verdict == "inconclusive"
    zero = margin_decision(c, 0.0)
    assert zero.verdict == "inferior" and c.verdict == "a_better"
    wide = margin_decision(c, 0.2)
    assert wide.verdict == "equivalent" and wide.test_name == "tango_exact" and wide.exact


def _tango_independent(n12, n21, N, delta0):
    """Tango's score statistic with the restricted MLE found by numerical maximisation of
    the multinomial likelihood under p12 - p21 = delta0 (no closed form used)."""
    rest = N - n12 - n21

    def nll(p21):
        p12 = p21 + delta0
        q = 1 - p12 - p21
        out = 0.0
        for k, p in ((n12, p12), (n21, p21), (rest, q)):
            if k:
                out -= k * math.log(p)
        return out

    lo, hi = max(0.0, -delta0) + 1e-12, (1 - delta0) / 2 - 1e-12
    p21 = optimize.minimize_scalar(nll, bounds=(lo, hi), method="bounded",
                                   options={"xatol": 1e-13}).x
    var = N * (2 * p21 + delta0 * (1 - delta0))
    if var <= 1e-12:
        return 0.0
    return (n12 - n21 - N * delta0) / math.sqrt(var)


@pytest.mark.parametrize("table,margin", [((20, 9, 4, 7), 0.05), ((0, 5, 2, 13), 0.15),
                                          ((30, 0, 0, 10), 0.02), ((5, 12, 11, 2), 0.2)])
def test_asymptotic_p_values_match_an_independent_score_test(table, margin):
    both, a_only, b_only, neither = table
    N = sum(table)
    t_lo = _tango_independent(b_only, a_only, N, -margin)
    t_hi = _tango_independent(b_only, a_only, N, margin)
    assert tango_asymptotic_p(b_only, a_only, N, -margin, upper=True) == pytest.approx(
        stats.norm.sf(t_lo), abs=1e-6)
    assert tango_asymptotic_p(b_only, a_only, N, -margin, upper=False) == pytest.approx(
        stats.norm.cdf(t_lo), abs=1e-6)
    assert tango_asymptotic_p(b_only, a_only, N, margin, upper=False) == pytest.approx(
        stats.norm.cdf(t_hi), abs=1e-6)


def _exact_brute_force(n12_obs, n21_obs, N, delta0, upper):
    """The exact unconditional p written out again: every table, Tango's statistic from the
    numerical MLE, the tail's probability maximised over the discordance by scipy."""
    tables = [(i, j) for i in range(N + 1) for j in range(N + 1 - i)]
    t = {tb: _tango_independent(*tb, N, delta0) for tb in tables}
    obs = t[(n12_obs, n21_obs)]
    region = [tb for tb in tables if (t[tb] >= obs - 1e-7 if upper else t[tb] <= obs + 1e-7)]

    def tail(psi):
        p12, p21 = (psi + delta0) / 2, (psi - delta0) / 2
        return sum(stats.multinomial.pmf([i, j, N - i - j], N, [p12, p21, 1 - psi])
                   for i, j in region)

    lo = abs(delta0)
    grid = np.linspace(lo, 1, 401)
    vals = [tail(x) for x in grid]
    k = int(np.argmax(vals))
    res = optimize.minimize_scalar(lambda x: -tail(x), method="bounded",
                                   bounds=(grid[max(k - 1, 0)], grid[min(k + 1, 400)]))
    return min(1.0, max(max(vals), -res.fun))


@pytest.mark.parametrize("n12,n21,N,delta0,upper", [(6, 2, 15, -0.1, True),
                                                    (3, 3, 12, -0.2, True),
                                                    (1, 6, 14, -0.05, False),
                                                    (2, 1, 10, 0.1, False),
                                                    (5, 1, 12, 0.0, True)])
def test_exact_unconditional_p_matches_brute_force(n12, n21, N, delta0, upper):
    got = exact_unconditional_p(n12, n21, N, delta0, upper=upper)
    assert got == pytest.approx(_exact_brute_force(n12, n21, N, delta0, upper), abs=2e-4)


def test_exact_unconditional_test_keeps_its_size_on_every_table():
    # size at the boundary B - A = -delta: the probability of rejecting, at several
    # discordances, never above 2.5% (the asymptotic test's reaches 3.1% at n = 20)
    N, delta = 20, 0.05
    tables = [(i, j) for i in range(N + 1) for j in range(N + 1 - i)]
    reject = [(i, j) for i, j in tables
              if exact_unconditional_p(i, j, N, -delta, upper=True) < 0.025]
    asym = [(i, j) for i, j in tables if tango_asymptotic_p(i, j, N, -delta, upper=True) < 0.025]
    worst_exact = worst_asym = 0.0
    for psi in (0.1, 0.2, 0.3, 0.4, 0.6):
        p = [(psi - delta) / 2, (psi + delta) / 2, 1 - psi]
        def size(region):
            return sum(stats.multinomial.pmf([i, j, N - i - j], N, p) for i, j in region)
        worst_exact, worst_asym = max(worst_exact, size(reject)), max(worst_asym, size(asym))
    assert worst_exact <= 0.025 < worst_asym


def test_binary_margin_uses_the_exact_test_up_to_200_cases_then_the_asymptotic_one():
    small = compare_paired(*_binary(100, 20, 30, 50), resamples=1_000)
    r = margin_decision(small, 0.05)
    assert r.test_name == "tango_exact" and r.exact and r.n == 200
    assert r.p_noninferior == exact_unconditional_p(30, 20, 200, -0.05, upper=True)
    big = compare_paired(*_binary(100, 20, 31, 50), resamples=1_000)
    r = margin_decision(big, 0.05)
    assert r.test_name == "tango_score" and not r.exact
    assert r.p_noninferior == tango_asymptotic_p(31, 20, 201, -0.05, upper=True)
    assert r.p_equivalence == max(r.p_noninferior, r.p_upper)


@pytest.mark.parametrize("a_only,b_only", [(2, 9), (7, 3), (5, 5), (0, 4)])
def test_zero_margin_binary_is_the_one_sided_mcnemar_test(a_only, b_only):
    # at delta = 0 Tango's statistic is McNemar's (n12 - n21)/sqrt(n12 + n21): the margin's
    # test is the one-sided McNemar test (exact unconditional, Suissa & Shuster 1991)
    c = compare_paired(*_binary(10, a_only, b_only, 10), resamples=1_000)
    r = margin_decision(c, 0.0)
    N = 20 + a_only + b_only
    assert r.p_noninferior == exact_unconditional_p(b_only, a_only, N, 0.0, upper=True)
    z = (b_only - a_only) / math.sqrt(a_only + b_only)
    assert tango_asymptotic_p(b_only, a_only, N, 0.0, upper=True) == pytest.approx(
        stats.norm.sf(z), abs=1e-12)
    # "non-inferior" at delta = 0 needs the interval above 0: the superiority verdict's CI
    if r.verdict == "non_inferior":
        assert c.bootstrap.ci_low > 0


def test_zero_margin_scores_reduce_to_the_superiority_verdict():
    rng = np.random.default_rng(3)
    seen = set()
    for _ in range(60):
        n = int(rng.integers(6, 19))
        a = rng.uniform(0, 1, n).round(2)
        b = (a + rng.normal(rng.choice([-0.2, 0, 0.2]), 0.15, n)).round(2)
        c = compare_paired(a, b, resamples=1_000)
        assert c.test.exact
        r = margin_decision(c, 0.0)
        if c.decision.reason == "withheld_self_check":
            # issue 36: a verdict the self-check withholds is withheld for the margin too, with
            # the reason and the self-check's figure (the interval and test alone would answer)
            assert c.bootstrap.ci_low > 0 or c.bootstrap.ci_high < 0
            assert r.verdict == "inconclusive" and r.reason_key == "withheld_self_check"
            assert r.reason_params["withheld"] == ("non_inferior" if c.bootstrap.mean > 0
                                                   else "inferior")
            assert r.reason_params["rate"] == c.calibration.shown >= 0.1
            assert r.reason_params["n"] == n
            seen.add("withheld")
            continue
        assert (r.verdict == "non_inferior") == (c.verdict == "b_better")
        assert (r.verdict == "inferior") == (c.verdict == "a_better")
        side = r.p_noninferior if c.bootstrap.mean > 0 else r.p_inferior
        if c.bootstrap.mean != 0:
            assert min(1.0, 2 * side) == pytest.approx(c.test.p, abs=1e-12)
        seen.add(r.verdict)
    assert {"non_inferior", "inferior", "inconclusive"} <= seen


# six cases, B below A on every one: CI and sign-flip test say "A is better", and the self-check
# (the skew-guarded interval on null sets shaped like these) reads 16.6%, so it withholds
WITHHELD_D = np.array([-0.379, -0.405, -0.157, -0.493, -0.426, -0.422])


@pytest.mark.parametrize("self_check", [True, False])
def test_a_margin_answer_is_withheld_when_the_self_check_withholds(self_check):
    a = np.full(6, 0.5)
    c = compare_paired(a, a + WITHHELD_D, resamples=1_000, self_check=self_check)
    assert c.decision.reason == "withheld_self_check"
    cal = c.calibration
    for margin in (0.0, 0.02, 0.05):
        r = margin_decision(c, margin)
        # the interval and the test alone fall below -delta: the answer withheld is "inferior"
        assert c.bootstrap.ci_high < -margin and r.p_inferior < r.alpha
        assert r.verdict == "inconclusive" and r.reason_key == "withheld_self_check"
        assert r.reason_params["withheld"] == "inferior"
        assert r.reason_params["rate"] == cal.shown >= 0.1 and r.reason_params["n"] == 6
        assert r.to_dict()["reason"] == "withheld_self_check"
        # the same interval and tests without a withholding self-check: "inferior"
        kept = margin_rule(margin, c.bootstrap.ci_low, c.bootstrap.ci_high, r.p_noninferior,
                           r.p_inferior, r.p_upper, r.alpha)
        assert kept == ("inferior", "upper_below_margin")


def test_a_margin_runs_the_self_check_when_the_comparison_kept_none():
    # a verdict-only comparison (self_check=False) whose verdict is "no difference" keeps no
    # self-check; a conclusive margin answer runs it, as the card's comparison would
    rng = np.random.default_rng(8)
    a = rng.uniform(0.2, 0.8, 30).round(3)
    b = (a + rng.normal(0.0, 0.05, 30)).round(3)
    quick = compare_paired(a, b, resamples=1_000, self_check=False)
    full = compare_paired(a, b, resamples=1_000)
    assert quick.calibration is None and quick.verdict == "no_difference"
    r_quick, r_full = margin_decision(quick, 0.1), margin_decision(full, 0.1)
    assert r_quick.verdict in ("non_inferior", "equivalent") and r_quick == r_full


def test_an_answer_the_self_check_does_not_withhold_is_kept():
    # ordinary data: the self-check reads below twice the promise and the answer stands
    rng = np.random.default_rng(8)
    a = rng.uniform(0.2, 0.8, 30).round(3)
    b = (a + rng.normal(0.05, 0.05, 30)).round(3)
    c = compare_paired(a, b, resamples=1_000)
    assert not c.calibration.withholds
    r = margin_decision(c, 0.02)
    assert r.verdict in ("non_inferior", "equivalent") and r.reason_key != "withheld_self_check"


@pytest.mark.parametrize("shift", [0.0, 0.05, -0.03])
@pytest.mark.parametrize("alternative", ["greater", "less"])
def test_shifted_signflip_matches_brute_force(shift, alternative):
    rng = np.random.default_rng(11)
    d = rng.normal(0.0, 0.1, 10).round(3)
    x = d + shift
    observed = x.sum()
    patterns = np.array(list(itertools.product((-1, 1), repeat=x.size)))
    sums = patterns @ x
    tol = 1e-9
    want = (np.mean(sums >= observed - tol) if alternative == "greater"
            else np.mean(sums <= observed + tol))
    got = shifted_signflip_p(d, shift, alternative=alternative)
    assert got.exact and got.p == pytest.approx(want, abs=1e-12)


def test_shifted_signflip_counts_minus_delta_reached_by_rounding_as_zero():
    d = np.array([0.3 - 0.1, 0.5, 0.4, -0.2])  # 0.19999999999999998
    t = shifted_signflip_p(d, -0.2, alternative="greater")
    assert t.nonzero == 3


def test_monte_carlo_signflip_is_seeded_and_close_to_the_normal_approximation():
    rng = np.random.default_rng(5)
    d = rng.normal(0.02, 0.1, 200)
    t1 = shifted_signflip_p(d, 0.01, resamples=20_000, seed=4)
    t2 = shifted_signflip_p(d, 0.01, resamples=20_000, seed=4)
    assert not t1.exact and t1.p == t2.p
    x = d + 0.01
    z = x.sum() / math.sqrt((x ** 2).sum())
    assert t1.p == pytest.approx(stats.norm.sf(z), abs=0.01)


def test_a_larger_margin_never_turns_non_inferior_into_inferior():
    rng = np.random.default_rng(8)
    margins = [round(0.01 * i, 2) for i in range(31)]
    for _ in range(30):
        n = int(rng.integers(10, 60))
        p = rng.dirichlet([2, 1, 1, 2])
        table = rng.multinomial(n, p)
        c = compare_paired(*_binary(*table), resamples=1_000)
        verdicts = [margin_decision(c, m).verdict for m in margins]
        # the asymptotic p falls as delta grows (T(-delta) rises); the exact p is discrete
        # and may wiggle, but the verdict below must still be monotone
        _, a_only, b_only, _ = table
        ps = [tango_asymptotic_p(b_only, a_only, n, -m, upper=True) for m in margins]
        assert all(x >= y - 1e-12 for x, y in zip(ps, ps[1:]))
        first = next((i for i, v in enumerate(verdicts)
                      if v in ("non_inferior", "equivalent")), None)
        if first is not None:
            assert all(v in ("non_inferior", "equivalent") for v in verdicts[first:])
        last_inferior = max((i for i, v in enumerate(verdicts) if v == "inferior"), default=-1)
        assert all(v == "inferior" for v in verdicts[: last_inferior + 1])


def test_verdicts_agree_with_their_interval():
    rng = np.random.default_rng(9)
    for _ in range(40):
        n = int(rng.integers(8, 40))
        a = rng.uniform(0, 1, n)
        b = a + rng.normal(rng.uniform(-0.1, 0.1), 0.1, n)
        c = compare_paired(a, b, resamples=1_000)
        m = float(rng.uniform(0, 0.15))
        r = margin_decision(c, m)
        assert r.verdict in VERDICTS and r.reason_key in REASONS
        if r.verdict == "equivalent":
            assert -m < r.ci_low and r.ci_high < m and r.p_equivalence < r.alpha
        if r.verdict == "non_inferior":
            assert r.ci_low > -m and r.p_noninferior < r.alpha
        if r.verdict == "inferior":
            assert r.ci_high < -m and r.p_inferior < r.alpha


def test_an_end_on_the_margin_up_to_rounding_does_not_decide():
    # L = -0.1 reached as 0.2 - 0.3 (-0.09999999999999998): on the margin, not above it
    assert margin_rule(0.1, 0.2 - 0.3, 0.05, 0.001, 0.999, 0.001, 0.025) == (
        "inconclusive", "ci_holds_margin")
    assert margin_rule(0.1, -0.0999, 0.05, 0.001, 0.999, 0.001, 0.025) == (
        "equivalent", "inside_margin")
    # the interval clears -delta but the test does not agree
    assert margin_rule(0.1, -0.05, 0.05, 0.03, 0.97, 0.001, 0.025) == (
        "inconclusive", "test_disagrees")
    assert margin_rule(0.1, -0.3, -0.2, 0.99, 0.2, 0.99, 0.025) == (
        "inconclusive", "test_disagrees")
    assert margin_rule(0.0, 0.01, 0.05, 0.001, 0.999, 0.999, 0.025) == (
        "non_inferior", "lower_above_margin")


def test_golden_and_retriever_comparisons_are_the_one_paired_result(tmp_path):
    csv = "case_id,method,correct\n" + "".join(
        f"c{i},A,{i % 2}\nc{i},B,{(i // 2) % 2}\n" for i in range(24))
    golden = load_golden(csv.encode(), file="g.csv")
    g = compare_golden(golden, "A", "B", resamples=1_000)
    r = margin_decision(g.comparison, 0.1)
    assert r.n == 24
    with pytest.raises(ValueError, match="PairedComparison"):   # the wrapper: unwrap it
        margin_decision(g, 0.1)
    rng = np.random.default_rng(2)
    qids = [f"q{i}" for i in range(30)]
    tables = {name: pd.DataFrame({"ndcg@10": rng.uniform(0, 1, 30),
                                  "hit@10": rng.integers(0, 2, 30)}, index=qids)
              for name in ("bm25", "dense")}
    comp = compare_retrievers(tables, "bm25", "dense", resamples=1_000)
    rr = margin_decision(comp, 0.05)
    assert rr.kind == "score" and rr.n == 30 and rr.mean == pytest.approx(comp.bootstrap.mean)


def test_result_to_dict_and_arguments():
    r = margin_decision(_cavo(), 0.02)
    assert isinstance(r, MarginResult)
    d = r.to_dict()
    assert d["margin"] == 0.02 and d["verdict"] == r.verdict and d["reason"] == r.reason_key
    assert set(d) >= {"ci_low", "ci_high", "p_noninferior", "p_equivalence", "test",
                      "confidence", "alpha_one_sided"}
    assert r.alpha == pytest.approx(0.025)
    with pytest.raises(ValueError, match="margin"):
        margin_decision(_cavo(), -0.01)
    with pytest.raises(ValueError, match="margin"):
        margin_decision(_cavo(), 1.0)
    with pytest.raises(ValueError, match="margin"):
        margin_decision(_cavo(), "0.02")
    with pytest.raises(ValueError, match="confidence"):
        margin_decision(_cavo(), 0.02, confidence=0.9)
    with pytest.raises(ValueError, match="PairedComparison"):
        margin_decision(object(), 0.02)


# ------------------------------------------------------------ the tie-kept test (issue 36)
def test_tie_kept_test_without_ties_is_the_bootstrap_t_test_of_the_shifted_data():
    """With no tie the null population is d shifted as a whole, so T* are the studentized
    resamples of d itself (the same index stream): p = (1 + #{t* >= T}) / (1 + R)."""
    from core.paired.margin import tie_kept_bootstrap_p
    from core.paired.resampling import difference_draws
    rng = np.random.default_rng(8)
    d = rng.normal(0.01, 0.1, 25)
    delta = 0.03
    means, sds = difference_draws(d, 4000, 3, True)
    se = d.std(ddof=1) / math.sqrt(d.size)
    t_obs = (d.mean() + delta) / se
    t_star = (means - d.mean()) / (sds[0] / math.sqrt(d.size))
    for upper in (True, False):
        far = t_star >= t_obs - 1e-9 * t_obs if upper else t_star <= t_obs + 1e-9 * t_obs
        want = (1 + far.sum()) / 4001
        assert tie_kept_bootstrap_p(d, -delta, upper=upper, resamples=4000, seed=3) == \
            pytest.approx(want, abs=1.5 / 4001)   # one resample on the edge, up to rounding


def test_tie_kept_test_keeps_its_level_where_the_sign_flip_test_does_not():
    """Half the cases tied at 0, the others N(-2 delta, 1): B - A = -delta exactly. Over 600
    such sets of 30 the sign-flip test on d + delta says "non-inferior" (p < 0.025) more often
    than 2.5%, the tie-kept test not (Monte-Carlo SE 0.6 points)."""
    from core.paired.margin import tie_kept_bootstrap_p
    rng = np.random.default_rng(36)
    delta = 0.18
    sf = tk = 0
    sets = 600
    for s in range(sets):
        d = np.where(rng.random(30) < 0.5, 0.0, rng.normal(-2 * delta, 1.0, 30))
        sf += shifted_signflip_p(d, delta, alternative="greater", resamples=1999, seed=s).p \
            < 0.025
        tk += tie_kept_bootstrap_p(d, -delta, upper=True, resamples=1999, seed=s) < 0.025
    assert sf / sets > 0.03 and tk / sets < 0.025


def test_a_score_margin_needs_the_tie_kept_test_too():
    """margin > 0 on scores: each one-sided p is the larger of the sign-flip test's and the
    tie-kept test's (test ``signflip_tie_bootstrap``); a zero margin keeps the sign-flip test
    alone (its ties sit on the null value), and data that are all ties keep it too."""
    from core.paired.margin import tie_kept_bootstrap_p
    rng = np.random.default_rng(2)
    a = rng.uniform(0.3, 0.6, 24).round(3)
    b = np.where(rng.random(24) < 0.5, a, (a + rng.normal(0.0, 0.08, 24)).clip(0, 1)).round(3)
    c = compare_paired(a, b, resamples=2000, seed=1)
    r = margin_decision(c, 0.05)
    assert r.test_name == "signflip_tie_bootstrap" and not r.exact
    d = c.diff
    kw = dict(resamples=2000, seed=1)
    for got, (shift, alt, at, upper) in zip(
            (r.p_noninferior, r.p_inferior, r.p_upper),
            ((0.05, "greater", -0.05, True), (0.05, "less", -0.05, False),
             (-0.05, "less", 0.05, False))):
        assert got == max(shifted_signflip_p(d, shift, alternative=alt, **kw).p,
                          tie_kept_bootstrap_p(d, at, upper=upper, **kw))
    assert margin_decision(c, 0.0).test_name == "signflip_shifted"
    same = compare_paired(a, a.copy(), resamples=500)
    assert tie_kept_bootstrap_p(same.diff, -0.05, upper=True, resamples=500, seed=0) is None
    assert margin_decision(same, 0.05).test_name == "signflip_shifted"


def test_a_score_margin_reads_the_skew_guard_at_half_its_noise_allowance():
    """margin > 0 on scores: the interval the rule reads is the card's, each end moved out to
    ``skew_guard_interval(d, confidence, MARGIN_GUARD_ALLOWANCE)`` (issue 36: the one-sided
    2.5% promise on left-skewed differences), bounded to [-1, 1] for unit scores; at a zero
    margin it is the card's. On a left-skewed sample the lower end moves out."""
    from core.paired.margin import MARGIN_GUARD_ALLOWANCE
    from core.paired.skew_intervals import skew_guard_interval
    assert MARGIN_GUARD_ALLOWANCE == 0.5
    moved = 0
    for seed in range(8):
        a, b = left_skewed_pair(seed)
        c = compare_paired(a, b, resamples=2000, seed=seed)
        r = margin_decision(c, 0.05)
        g_lo, g_hi = skew_guard_interval(c.diff[None, :], 0.95, 0.5)
        want = (max(min(c.bootstrap.ci_low, g_lo[0]), -1.0), min(max(c.bootstrap.ci_high,
                                                                       g_hi[0]), 1.0))
        assert (r.ci_low, r.ci_high) == pytest.approx(want, abs=1e-12)
        moved += r.ci_low < c.bootstrap.ci_low - 1e-12
        zero = margin_decision(c, 0.0)
        assert (zero.ci_low, zero.ci_high) == (c.bootstrap.ci_low, c.bootstrap.ci_high)
    assert moved > 0   # the left-skewed samples above show the move
