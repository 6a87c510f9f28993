"""core.paired.intervals against published worked examples, scipy and by exact properties."""
import math

import numpy as np
import pytest
from scipy import stats

from core import _kernels
from core.paired.difference import (bonett_price_ci, newcombe_ci, paired_proportion_ci, tango_ci,
                                    wald_paired_ci)
from core.paired.intervals import (PAIRED_PROPORTION_METHODS, SCORE_METHODS, expanded_level,
                                   log_ratio_interval, log_ratio_t_interval, score_intervals,
                                   wilson_bounds, z_two_sided)
from core.paired.significance import mcnemar_exact, mcnemar_midp
from core.paired.resampling import bca_ci
from core.paired.streams import stream_key

# Cavo et al. (2012): complete response before and after consolidation therapy, the worked
# example of Fagerland, Lydersen & Laake, "Statistical Analysis of Contingency Tables" (2017),
# chapter 8 (the paired 2x2 table), as printed by the authors' companion R package
# contingencytables: n11 = 59, n12 = 6, n21 = 16, n22 = 80 (N = 161), delta = -0.0621.
CAVO = (59, 6, 16, 80)
# "Tango asymptotic score CI: estimate = -0.0621 (95% CI -0.1240 to -0.0054)"
# "The Newcombe square-and-add CI: estimate = -0.0621 (95% CI -0.1186 to -0.0046)"
# "The Wald CI with Bonett-Price adjustment: estimate = -0.0621 (95% CI -0.1195 to -0.0032)"
# "The Wald CI: estimate = -0.0621 (95% CI -0.1184 to -0.0058)"
PUBLISHED = {"tango": (-0.1240, -0.0054), "newcombe": (-0.1186, -0.0046),
             "bonett_price": (-0.1195, -0.0032), "wald": (-0.1184, -0.0058)}


@pytest.mark.parametrize("method", PAIRED_PROPORTION_METHODS)
def test_paired_proportion_intervals_match_published_example(method):
    lo, hi = paired_proportion_ci(*CAVO, 0.95, method=method)
    assert (round(lo, 4), round(hi, 4)) == PUBLISHED[method]


def test_published_edge_tables():
    # contingencytables prints, for all three discordant pairs on one side (N = 3):
    # "Tango asymptotic ... 1.0000 (95% CI -0.1230 to 1.0000)" and the mirror image;
    # Newcombe for n11 = n22 = 1 and no discordant pair: "0.0000 (95% CI -0.5734 to 0.5734)".
    lo, hi = tango_ci(0, 3, 0, 0)
    assert (round(lo, 4), hi) == (-0.1230, 1.0)
    lo, hi = tango_ci(0, 0, 3, 0)
    assert (lo, round(hi, 4)) == (-1.0, 0.1230)
    lo, hi = newcombe_ci(1, 0, 0, 1)
    assert (round(lo, 4), round(hi, 4)) == (-0.5734, 0.5734)


def test_mcnemar_midp_matches_published_example():
    # Fagerland et al. (2017), ch. 8, Cavo et al. data: "The McNemar mid-P test: P = 0.034690",
    # "The McNemar exact conditional test: P = 0.052479".
    assert round(mcnemar_midp(6, 16), 6) == 0.034690
    assert round(mcnemar_exact(6, 16), 6) == 0.052479


@pytest.mark.parametrize("m", [1, 2, 7, 30, 101])
def test_mcnemar_midp_equals_scipy_definition(m):
    for k in range(m + 1):
        ref = min(1.0, stats.binomtest(k, m, 0.5).pvalue) - stats.binom.pmf(min(k, m - k), m, .5)
        assert mcnemar_midp(k, m - k) == pytest.approx(ref, abs=1e-12)
        assert mcnemar_midp(k, m - k) <= mcnemar_exact(k, m - k)
    assert mcnemar_midp(0, 0) == 1.0


def test_tango_limits_solve_the_score_equation():
    z = z_two_sided(0.95)
    n11, n12, n21, n22 = 10, 7, 2, 12
    N = 31
    lo, hi = tango_ci(n11, n12, n21, n22)

    def T(d0):  # written out again from Tango (1998), eq. 3, with scalar arithmetic
        a, b = 2 * N, (2 * N - n12 + n21) * d0 - n12 - n21
        c = -n21 * d0 * (1 - d0)
        p21 = (math.sqrt(b * b - 4 * a * c) - b) / (2 * a)
        return (n12 - n21 - N * d0) / math.sqrt(N * (2 * p21 + d0 * (1 - d0)))

    assert T(lo) == pytest.approx(z, abs=1e-7)
    assert T(hi) == pytest.approx(-z, abs=1e-7)


def test_wilson_bounds_equal_scipy():
    for k, n in [(0, 5), (3, 10), (26, 31), (100, 100)]:
        ref = stats.binomtest(k, n).proportion_ci(confidence_level=0.9, method="wilson")
        lo, hi, _ = wilson_bounds(k, n, z_two_sided(0.9))
        assert (float(lo), float(hi)) == pytest.approx((ref.low, ref.high), abs=1e-12)


def _all_tables(n):
    i = [(a, b, c, n - a - b - c) for a in range(n + 1) for b in range(n + 1 - a)
         for c in range(n + 1 - a - b)]
    return tuple(np.array(col) for col in zip(*i))


@pytest.mark.parametrize("method", PAIRED_PROPORTION_METHODS)
def test_table_intervals_vectorised_equal_scalar_and_contain_estimate(method):
    t = _all_tables(9)
    lo, hi = paired_proportion_ci(*t, 0.95, method=method)
    est = (t[1] - t[2]) / 9
    assert np.all(lo >= -1) and np.all(hi <= 1) and np.all(lo <= hi)
    if method != "bonett_price":   # centred on the shrunk estimate, by design
        assert np.all(lo <= est + 1e-12) and np.all(est - 1e-12 <= hi)
    for j in range(0, t[0].size, 17):
        one = paired_proportion_ci(*(int(c[j]) for c in t), 0.95, method=method)
        assert one == pytest.approx((lo[j], hi[j]), abs=1e-12)


@pytest.mark.parametrize("method", PAIRED_PROPORTION_METHODS)
def test_table_intervals_nested_in_confidence(method):
    t = _all_tables(12)
    prev = None
    for c in (0.8, 0.9, 0.95, 0.99):
        lo, hi = paired_proportion_ci(*t, c, method=method)
        if prev is not None:
            assert np.all(lo <= prev[0] + 1e-12) and np.all(hi >= prev[1] - 1e-12)
        prev = lo, hi


def test_table_intervals_are_orientation_free():
    # swapping the two discordant cells mirrors the interval
    for method in PAIRED_PROPORTION_METHODS:
        lo, hi = paired_proportion_ci(5, 7, 2, 9, method=method)
        lo2, hi2 = paired_proportion_ci(9, 2, 7, 5, method=method)
        assert (lo2, hi2) == pytest.approx((-hi, -lo), abs=1e-9)


@pytest.mark.parametrize("bad", [dict(n12=-1), dict(n12=1.5), dict(n11=0, n12=0, n21=0, n22=0)])
def test_table_intervals_reject_bad_tables(bad):
    cells = dict(n11=1, n12=2, n21=3, n22=4) | bad
    with pytest.raises(ValueError):
        newcombe_ci(**cells)
    with pytest.raises(ValueError):
        paired_proportion_ci(1, 2, 3, 4, method="exact-ish")


# ----------------------------------------------------------------------------- scores
def test_expanded_level_formula():
    # Hesterberg (2015), section 6.4: alpha'/2 = Phi(-sqrt(n/(n-1)) t_{alpha/2, n-1})
    for n in (5, 10, 30, 200):
        a2 = stats.norm.cdf(-math.sqrt(n / (n - 1)) * stats.t.ppf(0.975, n - 1))
        assert expanded_level(n, 0.95) == pytest.approx(1 - 2 * a2, abs=1e-12)
    assert expanded_level(10, 0.95) > expanded_level(100, 0.95) > 0.95


def _boot(x, resamples=4000, seed=3):
    o = _kernels.bootstrap_sets(np.ascontiguousarray(x[None, :]), stream_key(seed), resamples)
    return o[0], o[1]


def test_bootstrap_sets_row_zero_equals_bootstrap_means():
    x = np.random.default_rng(0).normal(size=23)
    means, sds = _boot(x)
    ref = _kernels.bootstrap_means(x, stream_key(3), 0, 4000)
    assert np.max(np.abs(means[0] - ref)) < 1e-12
    # the SD of a resample equals numpy's on a resample drawn the same way: check the mean of
    # the SDs against a numpy bootstrap of the same data (loose: different draws)
    rng = np.random.default_rng(1)
    ref_sd = np.std(x[rng.integers(0, x.size, (4000, x.size))], axis=1, ddof=1)
    assert sds[0].mean() == pytest.approx(ref_sd.mean(), rel=0.02)


def test_t_interval_equals_scipy():
    x = np.random.default_rng(1).normal(0.1, 1, size=17)
    lo, hi = score_intervals(x[None, :], x[None, :], None, 0.95, "t")
    ref = stats.t.interval(0.95, x.size - 1, loc=x.mean(), scale=stats.sem(x))
    assert (lo[0], hi[0]) == pytest.approx(ref, abs=1e-12)


def test_percentile_and_bca_equal_core_stats():
    x = np.random.default_rng(2).exponential(size=25)
    means, sds = _boot(x)
    lo, hi = score_intervals(x[None, :], means, sds, 0.95, "percentile")
    assert (lo[0], hi[0]) == pytest.approx(tuple(np.percentile(means[0], [2.5, 97.5])))
    lo, hi = score_intervals(x[None, :], means, sds, 0.95, "bca")
    assert (lo[0], hi[0]) == pytest.approx(bca_ci(means[0], x, 0.95), abs=1e-12)


def test_bootstrap_t_by_hand():
    x = np.random.default_rng(4).gamma(2, size=15)
    means, sds = _boot(x)
    se = x.std(ddof=1) / math.sqrt(x.size)
    t = np.sort((means[0] - x.mean()) / (sds[0] / math.sqrt(x.size)))
    lo, hi = score_intervals(x[None, :], means, sds, 0.9, "bootstrap_t")
    assert lo[0] == pytest.approx(x.mean() - np.quantile(t, 0.95) * se)
    assert hi[0] == pytest.approx(x.mean() - np.quantile(t, 0.05) * se)


def test_log_ratio_interval_is_the_calibrated_t_on_the_log_scale():
    L = np.log(np.array([0.8, 0.9, 1.1, 0.7, 0.85, 0.95, 0.6, 1.02]))
    o = _kernels.bootstrap_sets(L[None, :], stream_key(2), 3000)
    ratio, lo, hi = log_ratio_interval(L, o[0], o[1], 0.95)
    l, h = score_intervals(L[None, :], o[0], o[1], 0.95, "calibrated_t")
    assert (ratio, lo, hi) == pytest.approx((stats.gmean(np.exp(L)), math.exp(l[0]),
                                              math.exp(h[0])))


@pytest.mark.parametrize("method", SCORE_METHODS)
def test_score_intervals_contain_estimate_and_nest(method):
    x = np.random.default_rng(5).normal(0.05, 0.3, size=(6, 20))
    o = _kernels.bootstrap_sets(x, stream_key(0), 3000)
    prev = None
    for c in (0.8, 0.9, 0.95):
        lo, hi = score_intervals(x, o[0], o[1], c, method)
        assert np.all(lo <= x.mean(axis=1) + 1e-12) and np.all(x.mean(axis=1) - 1e-12 <= hi)
        if prev is not None:
            assert np.all(lo <= prev[0] + 1e-12) and np.all(hi >= prev[1] - 1e-12)
        prev = lo, hi


def test_expanded_is_wider_than_percentile_at_small_n():
    x = np.random.default_rng(6).normal(size=(1, 10))
    o = _kernels.bootstrap_sets(x, stream_key(0), 4000)
    p = score_intervals(x, o[0], o[1], 0.95, "percentile")
    e = score_intervals(x, o[0], o[1], 0.95, "expanded_percentile")
    assert e[0][0] < p[0][0] and e[1][0] > p[1][0]


def test_log_ratio_t_interval():
    r = np.array([0.8, 0.9, 1.1, 0.7, 0.85])
    ratio, lo, hi = log_ratio_t_interval(np.log(r))
    ref = stats.t.interval(0.95, 4, loc=np.log(r).mean(), scale=stats.sem(np.log(r)))
    assert ratio == pytest.approx(stats.gmean(r))
    assert (lo, hi) == pytest.approx(tuple(np.exp(ref)))


def test_tango_without_discordant_pairs():
    # n12 = n21 = 0: T(delta0)^2 = N |delta0| / (1 - |delta0|), so the limits are
    # +/- z^2 / (N + z^2) (derived from Tango's statistic; the bisection must not stop at 0/0)
    z = z_two_sided(0.95)
    lo, hi = tango_ci(12, 0, 0, 8)
    assert (lo, hi) == pytest.approx((-z * z / (20 + z * z), z * z / (20 + z * z)), abs=1e-9)


# ----------------------------------------------------------------- skewness-corrected t
def _johnson_by_hand(x, confidence):
    """Johnson (1978, JASA 73:536), eq. for t1 written out and inverted numerically:
    t1(mu) = [(xbar - mu) + mu3/(6 s^2 n) + mu3/(3 s^4) (xbar - mu)^2] / (s / sqrt(n)),
    mu3 = sum((x - xbar)^3)/n; the ends solve t1 = +/- t(1 - alpha/2, n - 1) on the branch
    where t1 falls as mu rises (the one through mu = xbar)."""
    from scipy.optimize import brentq
    n, xbar, s = x.size, x.mean(), x.std(ddof=1)
    mu3 = np.sum((x - xbar) ** 3) / n

    def t1(mu):
        d = xbar - mu
        return (d + mu3 / (6 * s ** 2 * n) + mu3 / (3 * s ** 4) * d * d) / (s / math.sqrt(n))

    q = stats.t.ppf(1 - (1 - confidence) / 2, n - 1)
    turn = xbar + 3 * s ** 4 / (2 * mu3)          # d t1 / d mu = 0 there (mu3 > 0: above xbar)
    lo = brentq(lambda m: t1(m) - q, xbar - 50 * s, xbar, xtol=1e-14)
    # where t1 never falls to -q on that branch, the end is the turning point (the docstring
    # of johnson_t_interval: the statistic does not get that far on that side)
    hi = turn if t1(turn) > -q else brentq(lambda m: t1(m) + q, xbar, turn, xtol=1e-14)
    return lo, hi


def _hall_by_hand(x, confidence):
    """Hall (1992, JRSS-B 54:221): g(T) = T + a T^2/3 + a^2 T^3/27 + a/6, a = gamma/sqrt(n),
    gamma = m3 / m2^1.5 (plug-in moments); T = sqrt(n)(xbar - mu)/s. The ends solve
    g(T) = +/- t(1 - alpha/2, n - 1) for T by root finding (not the closed-form inverse)."""
    from scipy.optimize import brentq
    n, xbar, s = x.size, x.mean(), x.std(ddof=1)
    u = x - xbar
    a = np.mean(u ** 3) / np.mean(u ** 2) ** 1.5 / math.sqrt(n)

    def g(T):
        return T + a * T * T / 3 + a * a * T ** 3 / 27 + a / 6

    q = stats.t.ppf(1 - (1 - confidence) / 2, n - 1)
    T_hi = brentq(lambda T: g(T) - q, -100, 100, xtol=1e-14)
    T_lo = brentq(lambda T: g(T) + q, -100, 100, xtol=1e-14)
    se = s / math.sqrt(n)
    return xbar - T_hi * se, xbar - T_lo * se


SKEWED = [np.random.default_rng(k).exponential(size=n) - 1.0 for k, n in ((1, 10), (2, 20), (3, 30))]


@pytest.mark.parametrize("x", SKEWED, ids=lambda x: f"n{x.size}")
@pytest.mark.parametrize("confidence", (0.9, 0.95))
def test_johnson_t_matches_the_papers_statistic(x, confidence):
    lo, hi = score_intervals(x[None, :], None, None, confidence, "johnson_t")
    assert (lo[0], hi[0]) == pytest.approx(_johnson_by_hand(x, confidence), abs=1e-10)


@pytest.mark.parametrize("x", SKEWED, ids=lambda x: f"n{x.size}")
@pytest.mark.parametrize("confidence", (0.9, 0.95))
def test_hall_t_matches_the_papers_transformation(x, confidence):
    lo, hi = score_intervals(x[None, :], None, None, confidence, "hall_t")
    assert (lo[0], hi[0]) == pytest.approx(_hall_by_hand(x, confidence), abs=1e-10)


@pytest.mark.parametrize("method", ("johnson_t", "hall_t"))
def test_skew_t_is_the_t_interval_without_skewness(method):
    half = np.random.default_rng(8).gamma(2, size=9)
    x = np.concatenate([half, -half, [0.0]]) + 0.3     # symmetric about 0.3: mu3 = 0 exactly
    got = score_intervals(x[None, :], None, None, 0.95, method)
    ref = score_intervals(x[None, :], None, None, 0.95, "t")
    assert (got[0][0], got[1][0]) == pytest.approx((ref[0][0], ref[1][0]), abs=1e-12)


@pytest.mark.parametrize("method", ("johnson_t", "hall_t"))
def test_skew_t_shifts_towards_the_long_tail_and_nests(method):
    # right-skewed data (one far case too): the interval is pulled towards the long tail
    # compared with t, holds a neighbourhood of the mean and widens with the confidence
    rng = np.random.default_rng(9)
    x = np.vstack([rng.exponential(size=(5, 12)) - 1.0,
                   np.r_[np.zeros(11), 40.0], np.r_[np.zeros(11), -40.0]])
    prev = None
    for c in (0.5, 0.8, 0.9, 0.95, 0.99, 0.999):
        lo, hi = score_intervals(x, None, None, c, method)
        tlo, thi = score_intervals(x, None, None, c, "t")
        m, sk = x.mean(axis=1), stats.skew(x, axis=1)
        assert np.all(lo < m) and np.all(m < hi)
        # Johnson's long-tail end stops at t1's turning point when the quadratic has no root
        # (high confidence, strong skew): there it can fall short of t's, so Johnson's shift
        # is checked up to 95% only
        if method == "hall_t" or c <= 0.95:
            assert np.all(np.sign(lo + hi - tlo - thi) == np.sign(sk))
        if prev is not None:   # Johnson's end may sit at t1's turning point for every level
            strict = method == "hall_t"
            assert np.all(lo < prev[0] if strict else lo <= prev[0])
            assert np.all(hi > prev[1] if strict else hi >= prev[1])
        prev = lo, hi


def test_tango_statistic_at_zero_is_mcnemar_and_inverts_to_the_interval():
    from core.paired.difference import tango_statistic
    n11, n12, n21, n22 = CAVO
    N = n11 + n12 + n21 + n22
    assert float(tango_statistic(0.0, n12, n21, N)) == pytest.approx(
        (n12 - n21) / math.sqrt(n12 + n21), abs=1e-12)
    lo, hi = tango_ci(*CAVO)
    z = 1.959963984540054
    assert float(tango_statistic(lo, n12, n21, N)) == pytest.approx(z, abs=1e-6)
    assert float(tango_statistic(hi, n12, n21, N)) == pytest.approx(-z, abs=1e-6)


def test_resampled_names_the_intervals_read_off_resamples():
    """Issue 36: the closed forms (0/1 tables; t, Johnson, Hall) are not resampled, the
    bootstrap family and the calibrated t are; ``auto`` is not a resolved name."""
    from core.paired.intervals import resampled
    assert not any(resampled(m) for m in ("tango", "newcombe", "bonett_price", "wald", "t",
                                           "johnson_t", "hall_t"))
    assert all(resampled(m) for m in ("calibrated_t", "bootstrap_t", "expanded_percentile",
                                       "percentile", "bca"))
    with pytest.raises(ValueError, match="interval"):
        resampled("auto")


def test_inverted_p_is_the_test_the_interval_makes():
    """``inverted_p`` of the t-interval is Student's two-sided p (scipy), with and without an
    anchor; anchored, p < 1 - confidence exactly when the reported interval excludes; the
    floor and 1 at the ends."""
    from core.paired.intervals import P_FLOOR, inverted_p

    rng = np.random.default_rng(3)
    for shift in (0.0, 0.1, 0.3, 0.6):
        x = rng.normal(shift, 1.0, 25)
        m, se = x.mean(), x.std(ddof=1) / math.sqrt(x.size)

        def at(c, m=m, se=se):
            q = stats.t.ppf(0.5 + c / 2, x.size - 1)
            return m - q * se, m + q * se

        def out(lo, hi):
            return lo > 0 or hi < 0

        ref = stats.ttest_1samp(x, 0.0).pvalue
        assert inverted_p(at, out) == pytest.approx(ref, rel=1e-8)
        for conf in (0.9, 0.95, 0.99):
            here = out(*at(conf))
            p = inverted_p(at, out, confidence=conf, excluded_here=here)
            assert p == pytest.approx(ref, rel=1e-8) and (p < 1 - conf) == here
    assert inverted_p(lambda c: (1.0, 2.0), lambda lo, hi: lo > 0) == P_FLOOR
    assert inverted_p(lambda c: (-1.0, 2.0), lambda lo, hi: lo > 0) == 1.0
    with pytest.raises(ValueError, match="together"):
        inverted_p(lambda c: (1.0, 2.0), lambda lo, hi: lo > 0, confidence=0.95)
