"""core.paired.method_intervals (issue 25): each method's interval of its mean score is the
calibrated t-interval, checked against scipy's t quantile and a plain numpy studentized
bootstrap over the very resamples the kernel draws (replayed in Python)."""
import numpy as np
import pytest
from scipy import stats

from core.paired.method_intervals import (METHOD_MIN_RESAMPLES, METHOD_WORK, RateEstimate,
                                   mean_intervals, method_resamples)
from core.paired.stats import bootstrap_mean
from core.paired.streams import STREAM_METHODS, row_key, stream_key

_MASK, _GOLDEN = (1 << 64) - 1, 0x9E3779B97F4A7C15


def _mix64(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def _replayed_draws(key, r, n):
    """Resample r's case indices, replayed in plain Python (splitmix64 from a hash of (key, r),
    Lemire's multiply-and-reject on each 32-bit half, low half first)."""
    thresh, out = ((1 << 32) - n) % n, []
    state = _mix64((int(key) + (r + 1) * _GOLDEN) & _MASK)
    while len(out) < n:
        state = (state + _GOLDEN) & _MASK
        word = _mix64(state)
        for half in (word & 0xFFFFFFFF, word >> 32):
            m = half * n
            if len(out) < n and (m & 0xFFFFFFFF) >= thresh:
                out.append(m >> 32)
    return np.array(out)


def _reference_calibrated_t(x, idx, confidence):
    """The calibrated t written out with scipy's t quantile and a plain numpy studentized
    bootstrap over the given resample indices (R x n)."""
    n = x.size
    xbar, se = x.mean(), x.std(ddof=1) / np.sqrt(n)
    c = stats.t.ppf(1 - (1 - confidence) / 2, n - 1)
    xs = x[idx]
    m, s = xs.mean(axis=1), xs.std(axis=1, ddof=1)
    tstar = (m[s > 0] - xbar) / (s[s > 0] / np.sqrt(n))
    q_lo, q_hi = np.quantile(tstar, [(1 - confidence) / 2, 1 - (1 - confidence) / 2])
    return xbar - max(c, q_hi) * se, xbar - min(-c, q_lo) * se, (xbar - c * se, xbar + c * se)


@pytest.mark.parametrize("confidence", [0.9, 0.95])
def test_mean_intervals_are_the_t_interval_widened_to_the_studentized_bootstrap(confidence):
    rng = np.random.default_rng(8)
    x = np.vstack((rng.exponential(1.0, 12), rng.normal(5, 1, 12)))
    lo, hi, drawn = mean_intervals(x, confidence=confidence, resamples=1_000, seed=6)
    assert drawn == 1_000
    key = stream_key(6, STREAM_METHODS)
    for s in range(2):
        idx = np.array([_replayed_draws(row_key(key, s), r, 12) for r in range(1_000)])
        want_lo, want_hi, (t_lo, t_hi) = _reference_calibrated_t(x[s], idx, confidence)
        assert (lo[s], hi[s]) == pytest.approx((want_lo, want_hi), abs=1e-12)
        assert lo[s] <= t_lo + 1e-12 and hi[s] >= t_hi - 1e-12   # never narrower than t
    # the skewed row is widened on its long (upper) side beyond the t-interval
    assert hi[0] > x[0].mean() + stats.t.ppf(1 - (1 - confidence) / 2, 11) * stats.sem(x[0])


def test_mean_intervals_stay_inside_zero_one_for_unit_scores_only():
    """Scores all in [0, 1]: the interval of their mean stays in [0, 1]; the same scores moved
    by -0.05 (one below 0) are not clipped, and show where the unclipped end was."""
    x = np.array([0.0] * 9 + [0.9, 1.0, 0.05])
    lo, hi, _ = mean_intervals(np.vstack((x, 1 - x)), resamples=2_000, seed=1)
    shifted, _, _ = mean_intervals(x - 0.05, resamples=2_000, seed=1)   # same row, same draws
    assert shifted[0] + 0.05 < 0                   # the unclipped lower end of x is below 0
    assert lo[0] == 0.0 and hi[1] == 1.0           # clipped (1 - x mirrors x)
    assert shifted[0] < -0.05                      # not clipped: a score lies outside [0, 1]
    const = mean_intervals(np.full(5, 0.4), resamples=1_000)
    assert (const[0][0], const[1][0]) == (0.4, 0.4)


def test_method_resamples_keep_every_resample_up_to_the_work_limit():
    assert method_resamples(30, 20_000) == 20_000
    assert method_resamples(METHOD_WORK // 20_000, 20_000) == 20_000
    assert method_resamples(20_000, 20_000) == 10_000
    assert method_resamples(100_000, 20_000) == METHOD_MIN_RESAMPLES == 2_000
    assert method_resamples(10_000_000, 20_000) == 2_000      # never fewer than 2,000
    assert method_resamples(10_000_000, 1_000) == 1_000       # nor more than asked for
    with pytest.raises(ValueError):
        method_resamples(0, 1_000)


def test_mean_intervals_cover_where_the_percentile_bootstrap_did_not():
    """Exp(1) scores, 10 cases, 400 seeded sets: the calibrated t covers the true mean about
    95% of the time, the percentile bootstrap it replaced about 86% (docs/calibration.md)."""
    rng = np.random.default_rng(25)
    sets = rng.exponential(1.0, (400, 10))
    lo, hi, _ = mean_intervals(sets, resamples=2_000, seed=3)
    calibrated = np.mean((lo <= 1.0) & (1.0 <= hi))
    pct = np.mean([(lambda b: b.ci_low <= 1.0 <= b.ci_high)(
        bootstrap_mean(x, resamples=2_000, seed=i)) for i, x in enumerate(sets)])
    assert calibrated >= 0.92 and calibrated - pct >= 0.04


def test_mean_intervals_check_their_arguments():
    with pytest.raises(ValueError):
        mean_intervals([0.1, np.nan])
    with pytest.raises(ValueError):
        mean_intervals([0.1, 0.2], resamples=0)
    with pytest.raises(ValueError):
        mean_intervals([0.1, 0.2], confidence=1.5)


def test_rate_estimate_json_names_the_interval_and_its_resamples():
    r = RateEstimate(20, 0.4, 0.3, 0.5, "calibrated_t", resamples=2_000)
    assert r.to_dict() == {"n": 20, "rate": 0.4, "ci_low": 0.3, "ci_high": 0.5,
                           "interval": "calibrated_t", "resolution": 0.05, "resamples": 2_000}
    w = RateEstimate(20, 0.4, 0.2, 0.6, "wilson", 8).to_dict()
    assert w["successes"] == 8 and "resamples" not in w
