"""core.paired.skew_intervals: the calibrated t-interval against scipy's t-interval and numpy's
quantiles of the studentized resamples; the row-wise quantile helper against numpy."""
import math

import numpy as np
import pytest
from scipy import stats

from core import _kernels
from core.paired.intervals import score_intervals
from core.paired.skew_intervals import calibrated_t_interval, quantiles_rows
from core.paired.streams import stream_key


def _boot(x, resamples=4000, seed=3):
    o = _kernels.bootstrap_sets(np.ascontiguousarray(x[None, :]), stream_key(seed), resamples)
    return o[0], o[1]


def test_quantiles_rows_equal_numpy_with_and_without_counts():
    rng = np.random.default_rng(0)
    x = np.sort(rng.normal(size=(5, 101)), axis=1)
    for q in (0.0, 0.025, 0.5, 0.975, 1.0):
        assert quantiles_rows(x, q) == pytest.approx(np.quantile(x, q, axis=1))
    y = rng.normal(size=(4, 50))
    y[0, :7] = np.nan
    y[2, 10:] = np.nan
    counts = np.sum(~np.isnan(y), axis=1)
    ys = np.sort(y, axis=1)
    assert quantiles_rows(ys, 0.9, counts) == pytest.approx(np.nanquantile(y, 0.9, axis=1))


def test_calibrated_t_by_hand_is_the_union_of_scipy_t_and_bootstrap_t():
    # the t-interval from scipy, the bootstrap-t from numpy's quantiles of the studentized
    # resamples; the calibrated t-interval takes the outer end of each side
    rng = np.random.default_rng(14)
    for x in (rng.exponential(size=12) - 1, rng.normal(size=25), -rng.gamma(0.5, size=9)):
        means, sds = _boot(x)
        n, se = x.size, stats.sem(x)
        tstar = (means[0] - x.mean()) / (sds[0] / math.sqrt(n))
        q_lo, q_hi = np.quantile(tstar, [0.025, 0.975])
        t_lo, t_hi = stats.t.interval(0.95, n - 1, loc=x.mean(), scale=se)
        lo, hi = score_intervals(x[None, :], means, sds, 0.95, "calibrated_t")
        assert lo[0] == pytest.approx(min(t_lo, x.mean() - q_hi * se), rel=1e-12, abs=1e-12)
        assert hi[0] == pytest.approx(max(t_hi, x.mean() - q_lo * se), rel=1e-12, abs=1e-12)
        assert lo[0] <= t_lo + 1e-12 and hi[0] >= t_hi - 1e-12   # never narrower than t


def test_calibrated_t_moves_out_the_short_tail_side_of_skewed_data():
    # right-skewed data: the studentized mean has a long left tail, so the bootstrap-t
    # widens the upper end beyond t and the lower end stays t's
    x = np.random.default_rng(15).exponential(size=(1, 15)) - 1
    o = _kernels.bootstrap_sets(x, stream_key(0), 4000)
    t = score_intervals(x, o[0], o[1], 0.95, "t")
    c = score_intervals(x, o[0], o[1], 0.95, "calibrated_t")
    assert c[1][0] > t[1][0] and c[0][0] == pytest.approx(t[0][0], abs=1e-12)


def test_calibrated_t_equals_t_when_the_bootstrap_t_lies_inside():
    # a bootstrap whose studentized resamples all sit near 0: the ends are the t-interval's
    x = np.array([[0.1, -0.2, 0.3, 0.05, -0.1, 0.2]])
    means = np.full((1, 500), x.mean()) + 1e-6 * np.linspace(-1, 1, 500)
    sds = np.full((1, 500), x.std(ddof=1))
    want = np.ravel(score_intervals(x, None, None, 0.95, "t"))
    assert np.ravel(calibrated_t_interval(x, means, sds, 0.95)) == pytest.approx(want)
    # resamples with SD 0 carry no studentized value; all of them: the t-interval
    assert np.ravel(calibrated_t_interval(x, means, np.zeros((1, 500)), 0.95)) == \
        pytest.approx(want)




def _guard_by_hand(x, confidence=0.95, ramp=("n", 10, 25), factor=3, allowance=1.0):
    """The skew guard from scipy: the skewness of the non-zero values (scipy.stats.skew, biased
    = mu3 / m2^1.5), less its noise allowance (phased in over 10-25 cases), times 3, in Hall's interval solved numerically
    (brentq on Hall's monotone transformation, no closed-form inverse)."""
    from scipy import optimize
    nz = x[x != 0]
    m, n = nz.size, x.size
    gamma = float(stats.skew(nz)) if m >= 3 and nz.std() > 0 else 0.0
    count, start, full = ramp
    w = min(max(((n if count == "n" else m) - start) / (full - start), 0.0), 1.0)
    tau = allowance * w * math.sqrt(6 / max(m, 3))
    a = factor * math.copysign(max(abs(gamma) - tau, 0.0), gamma) / math.sqrt(n)
    q = stats.t.ppf(1 - (1 - confidence) / 2, n - 1)
    se = stats.sem(x)

    def g(t):
        return t + a * t * t / 3 + a * a * t ** 3 / 27 + a / 6

    def inv(y):
        return optimize.brentq(lambda t: g(t) - y, -1e3, 1e3, xtol=1e-13)

    return x.mean() - inv(q) * se, x.mean() - inv(-q) * se


def test_skew_guard_against_scipy_skewness_and_a_numerical_inverse():
    from core.paired.skew_intervals import skew_guard_interval
    rng = np.random.default_rng(36)
    cases = [rng.lognormal(0, 0.9, 20) - 1.5, rng.normal(size=30),
             np.where(rng.random(24) < 0.5, 0.0, rng.gamma(2.0, size=24) - 2.0),
             -rng.exponential(size=10) + 1, np.array([0.0] * 8 + [0.3, -0.1, 0.2])]
    for x in cases:
        lo, hi = skew_guard_interval(x[None, :], 0.95)
        want = _guard_by_hand(x)
        assert (lo[0], hi[0]) == pytest.approx(want, rel=1e-9, abs=1e-12)


def test_skew_guard_first_ramp_reads_the_non_zero_values():
    """The guard as first shipped (``ramp=SKEW_GUARD_FIRST_RAMP``: the allowance phased in over
    the non-zero values m, 5 to 25), against scipy by hand; on tie-heavy data it differs from
    the default ramp on the cases n (bench/skew_guard.py's before / after)."""
    from core.paired.skew_intervals import SKEW_GUARD_FIRST_RAMP, skew_guard_interval
    rng = np.random.default_rng(7)
    x = np.where(rng.random(24) < 0.5, 0.0, rng.gamma(2.0, size=24) - 2.0)
    assert SKEW_GUARD_FIRST_RAMP == ("m", 5.0, 25.0)
    got = skew_guard_interval(x[None, :], 0.95, ramp=SKEW_GUARD_FIRST_RAMP)
    assert (got[0][0], got[1][0]) == pytest.approx(
        _guard_by_hand(x, ramp=("m", 5, 25)), rel=1e-9, abs=1e-12)
    now = skew_guard_interval(x[None, :], 0.95)
    assert (now[0][0], now[1][0]) != pytest.approx((got[0][0], got[1][0]), rel=1e-6)
    # the bench's variants (bench/skew_guard_variants.py): factor, allowance and ramp by hand
    y = np.where(rng.random(24) < 0.3, 0.0, rng.lognormal(0, 1.0, size=24) - 1.6)
    got = skew_guard_interval(y[None, :], 0.95, 1.5, ramp=("n", 10, 20), factor=4)
    assert (got[0][0], got[1][0]) == pytest.approx(
        _guard_by_hand(y, ramp=("n", 10, 20), factor=4, allowance=1.5), rel=1e-9, abs=1e-12)
    now = skew_guard_interval(y[None, :], 0.95)
    assert (now[0][0], now[1][0]) != pytest.approx((got[0][0], got[1][0]), rel=1e-6)
    with pytest.raises(ValueError, match="ramp counts"):
        skew_guard_interval(x[None, :], 0.95, ramp=("k", 5, 25))


def test_skew_guard_is_the_t_interval_when_the_skewness_is_within_its_noise():
    from core.paired.skew_intervals import skew_guard_interval
    x = np.array([-1.0, -0.5, 0.0, 0.5, 1.0, -0.2, 0.2, 0.0, 0.7, -0.7] * 3)   # symmetric
    lo, hi = skew_guard_interval(x[None, :], 0.95)
    t_lo, t_hi = stats.t.interval(0.95, x.size - 1, loc=x.mean(), scale=stats.sem(x))
    assert (lo[0], hi[0]) == pytest.approx((t_lo, t_hi), abs=1e-12)


def test_the_guard_widens_towards_the_long_tail_and_only_for_the_difference():
    # right-skewed data: the upper end moves out, never in; per-method and latency intervals
    # (score_intervals without skew_guard) are unchanged
    rng = np.random.default_rng(5)
    x = rng.lognormal(0, 0.9, 25) - 1.6
    means, sds = _boot(x)
    lo0, hi0 = score_intervals(x[None, :], means, sds, 0.95, "calibrated_t")
    lo1, hi1 = score_intervals(x[None, :], means, sds, 0.95, "calibrated_t", skew_guard=True)
    assert lo1[0] <= lo0[0] and hi1[0] > hi0[0]
    c_lo, c_hi = calibrated_t_interval(x[None, :], means, sds, 0.95)
    assert (lo0[0], hi0[0]) == (c_lo[0], c_hi[0])
    from core.paired.skew_intervals import skew_guard_interval
    g_lo, g_hi = skew_guard_interval(x[None, :], 0.95)
    assert lo1[0] == min(lo0[0], g_lo[0]) and hi1[0] == max(hi0[0], g_hi[0])


def test_the_result_says_when_the_guard_moved_an_end():
    """Issue 36 item 4: ``BootstrapResult.skew_guard`` is True exactly when the guard's end
    lies beyond the calibrated t's (the union moved), False when the calibrated t already
    covered it, and False for every other interval."""
    from core.paired.difference import paired_data
    from core.paired.skew_intervals import skew_guard_interval
    from core.paired.difference import bootstrap_difference
    from core.paired.intervals import interval_of_means
    from core.paired.resampling import difference_draws
    seen = set()
    for seed in range(12):
        rng = np.random.default_rng(seed)
        a = np.full(14, 0.5)
        d = rng.lognormal(0, 1.0, 14) * (0.03 if seed % 2 else -0.03)
        data = paired_data(a, a + d)
        bs = bootstrap_difference(data, resamples=2000, seed=seed)
        means, sds = difference_draws(data.d, 2000, seed, True)
        c_lo, c_hi = interval_of_means(data.d[None, :], means[None, :], sds, 0.95,
                                       "calibrated_t")
        g_lo, g_hi = skew_guard_interval(data.d[None, :], 0.95)
        moved = g_lo[0] < c_lo[0] - 1e-12 or g_hi[0] > c_hi[0] + 1e-12
        assert bs.skew_guard == moved
        lo, hi = min(c_lo[0], g_lo[0]), max(c_hi[0], g_hi[0])
        if data.unit_scores:
            lo, hi = max(lo, -1.0), min(hi, 1.0)
        assert (bs.ci_low, bs.ci_high) == pytest.approx((lo, hi), abs=1e-12)
        seen.add(moved)
        for other in ("t", "percentile", "bootstrap_t"):
            assert not bootstrap_difference(data, resamples=500, seed=seed,
                                            interval=other).skew_guard
    assert seen == {True, False}   # the cases above show both


def test_too_few_differing_reads_the_smallest_exact_p():
    """``too_few_differing``: True exactly when 2 (1/2)^m >= alpha (m non-zero values per row):
    at 95% up to 5, at 99% up to 7; ``smallest_exact_p`` is scipy's two-sided binomial test
    with every one of m on one side, and ``significance.min_exact_p`` reads it."""
    from core.paired.significance import min_exact_p
    from core.paired.skew_intervals import smallest_exact_p, too_few_differing
    for m in range(0, 12):
        ref = 1.0 if m == 0 else stats.binomtest(m, m, 0.5).pvalue
        assert smallest_exact_p(m) == pytest.approx(ref) == min_exact_p(m)
    rows = np.zeros((12, 20))
    for m in range(12):
        rows[m, :m] = 0.1 * (-1) ** np.arange(m)
    assert too_few_differing(rows, 0.95).tolist() == [m <= 5 for m in range(12)]
    assert too_few_differing(rows, 0.99).tolist() == [m <= 7 for m in range(12)]


def test_the_guarded_interval_reaches_zero_only_where_too_few_differ():
    """``calibrated_t_interval(..., skew_guard=True)`` (the card's interval of B − A and the
    self-check's null sets) adds 0 to rows with 5 or fewer non-zero values at 95% and leaves
    every other row as the guard made it."""
    from core.paired.skew_intervals import skew_guard_interval
    rng = np.random.default_rng(3)
    x = np.zeros((40, 30))
    for i in range(40):
        m = 2 + i % 8    # 2..9 non-zero values, mostly gains
        x[i, :m] = rng.uniform(0.05, 0.1, m)
    means = np.stack([x[i, rng.integers(0, 30, (500, 30))].mean(1) for i in range(40)])
    sds = np.stack([x[i, rng.integers(0, 30, (500, 30))].std(1, ddof=1) for i in range(40)])
    lo0, hi0 = calibrated_t_interval(x, means, sds, 0.95)
    g_lo, g_hi = skew_guard_interval(x, 0.95)
    lo1, hi1 = calibrated_t_interval(x, means, sds, 0.95, skew_guard=True)
    few = (x != 0).sum(1) <= 5
    lo, hi = np.minimum(lo0, g_lo), np.maximum(hi0, g_hi)
    assert np.array_equal(lo1[~few], lo[~few]) and np.array_equal(hi1[~few], hi[~few])
    assert np.array_equal(lo1[few], np.minimum(lo[few], 0.0))
    assert np.array_equal(hi1[few], np.maximum(hi[few], 0.0))
    assert (lo[few] > 0).any()   # the case it exists for: all gains, a t-type interval above 0
    assert (lo1[few] <= 0).all() and (hi1[few] >= 0).all()


def test_the_card_and_the_self_check_read_the_same_interval_of_b_minus_a():
    """The card's one set (``bootstrap_difference`` → ``widen_by_skew_guard``) and the
    self-check's rows (``interval_of_means(..., skew_guard=True)``) give the same ends on the
    same draws: the guard's union, then 0 added where 5 or fewer cases differ."""
    from core.paired.difference import bootstrap_difference, paired_data
    from core.paired.intervals import interval_of_means
    from core.paired.resampling import difference_draws
    rng = np.random.default_rng(11)
    reached = set()
    for k, m in enumerate((3, 4, 5, 6, 9, 20, 30)):
        a = np.full(30, 0.5)
        d = np.zeros(30)
        # equal gains where few differ (the t-type interval alone leaves out 0 there)
        d[:m] = 0.095 if m <= 5 else np.round(rng.lognormal(0, 1.0, m) * 0.02, 4)
        data = paired_data(a, a + d)
        bs = bootstrap_difference(data, resamples=2000, seed=k)
        means, sds = difference_draws(data.d, 2000, k, True)
        lo, hi = interval_of_means(data.d[None, :], means[None, :], sds, 0.95, "calibrated_t",
                                   skew_guard=True)
        assert (bs.ci_low, bs.ci_high) == pytest.approx((lo[0], hi[0]), abs=1e-12)
        assert bs.reaches_zero == (m <= 5 and lo[0] == 0.0)
        reached.add(bs.reaches_zero)
    assert reached == {True, False}


def test_the_adverse_variant_moves_the_skewness_against_the_mean():
    """``adverse`` (bench/trec_frontier.py's variant; 0 in the product) is the guard with its
    skewness moved by adverse x sqrt(6 / m) against the sign of the mean: on a symmetric
    sample with a positive mean it lowers the lower end (assumes a left tail the sample may
    have missed) and is the hand formula with that skewness."""
    from core.paired.skew_intervals import skew_guard_interval
    y = np.array([0.3, -0.1, 0.2, 0.1, 0.0, 0.25, -0.05, 0.15, 0.05, 0.12, 0.18, -0.02,
                  0.08, 0.22, 0.1, 0.02, 0.14, 0.06, 0.16, 0.04])
    base = skew_guard_interval(y[None, :], 0.95, 0.0)
    moved = skew_guard_interval(y[None, :], 0.95, 0.0, adverse=1.0)
    assert np.allclose(skew_guard_interval(y[None, :], 0.95, 0.0, adverse=0.0), base)
    assert moved[0][0] < base[0][0] - 1e-4
    # by hand: Hall's interval with a = 3 (gamma - sqrt(6 / m)) / sqrt(n), gamma the skewness
    # of the non-zero values
    n, nz = y.size, y[y != 0]
    u = nz - nz.mean()
    g = (u ** 3).mean() / (u ** 2).mean() ** 1.5 - math.sqrt(6 / nz.size)
    a = 3 * g / math.sqrt(n)
    q = stats.t.ppf(0.975, n - 1)

    def ginv(v):
        w = np.cbrt(1 + a * (v - a / 6))
        return 3 * (v - a / 6) / (w * w + w + 1)
    se = y.std(ddof=1) / math.sqrt(n)
    assert moved[0][0] == pytest.approx(y.mean() - ginv(q) * se, rel=1e-9)
    assert moved[1][0] == pytest.approx(y.mean() - ginv(-q) * se, rel=1e-9)
