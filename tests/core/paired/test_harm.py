"""core.paired.harm: hurt and helped shares with Wilson intervals (scipy's binomtest), URisk and
TRisk against a hand-computed example and scipy's one-sample t-test, 0/1 defaults, the door.
The coverage and error rates are in bench/best_harm.py (docs/harm.md)."""
import math

import numpy as np
import pytest
from scipy import stats

from core.paired.harm import (ALPHAS, DEFAULT_ALPHA, SCORE_DELTA, default_delta, no_harm,
                              risk_adjusted, trisk)


A = [0.5, 0.4, 0.6, 0.3, 0.7]
B = [0.6, 0.3, 0.6, 0.5, 0.4]  # B - A = 0.1, -0.1, 0, 0.2, -0.3


def test_trisk_by_hand():
    """alpha = 2: z = 0.1, -0.3, 0, 0.2, -0.9 (losses times 3); URisk = -0.9 / 5 = -0.18;
    deviations from -0.18: 0.28, -0.12, 0.18, 0.38, -0.72, squares summing to 0.788, so
    s_z^2 = 0.788 / 4 = 0.197, SE = sqrt(0.197 / 5) = sqrt(0.0394), TRisk = -0.18 / sqrt(0.0394)
    = -0.906827..."""
    d = np.array(B) - np.array(A)
    assert risk_adjusted(d, 2) == pytest.approx([0.1, -0.3, 0.0, 0.2, -0.9])
    urisk, t, p = trisk(d, 2)
    assert urisk == pytest.approx(-0.18, abs=1e-12)
    assert t == pytest.approx(-0.18 / math.sqrt(0.0394), rel=1e-9)
    assert t == pytest.approx(-0.906827, abs=1e-6)
    ref = stats.ttest_1samp([0.1, -0.3, 0.0, 0.2, -0.9], 0.0)
    assert t == pytest.approx(ref.statistic, rel=1e-9) and p >= ref.pvalue - 1e-12
    # alpha = 1: z = 0.1, -0.2, 0, 0.2, -0.6, URisk = -0.5 / 5 = -0.1
    assert trisk(d, 1)[0] == pytest.approx(-0.1, abs=1e-12)
    # alpha = 0: URisk is the plain mean difference, TRisk the paired t
    u0, t0, p0 = trisk(d, 0)
    ref0 = stats.ttest_rel(B, A)
    assert u0 == pytest.approx(np.mean(d)) and t0 == pytest.approx(ref0.statistic, rel=1e-9)
    assert p0 >= ref0.pvalue - 1e-12


def test_trisk_test_is_the_largest_of_three_ps():
    """TRisk's p: the largest of Student's (scipy), the studentized bootstrap's (against an
    independent numpy bootstrap-t, within Monte-Carlo error) and the skew guard's (the
    guard's interval of mean(z) leaves out 0 just below 1 - p and not just above)."""
    from core.paired.harm import bootstrap_t_p, skew_guard_p
    from core.paired.skew_intervals import skew_guard_interval

    rng = np.random.default_rng(5)
    d = np.where(rng.random(40) < 0.4, 0.0, rng.normal(0.08, 0.2, 40))  # tie-heavy
    z = risk_adjusted(d, 2)
    _, t, p = trisk(d, 2, resamples=20_000, seed=3)
    p_t = stats.ttest_1samp(z, 0.0).pvalue
    p_b = bootstrap_t_p(z, 20_000, 3)
    p_g = skew_guard_p(z)
    assert p == max(p_t, p_b, p_g) and p >= p_t
    idx = rng.integers(0, 40, size=(20_000, 40))
    zs = z[idx]
    ts = (zs.mean(axis=1) - z.mean()) / (zs.std(axis=1, ddof=1) / math.sqrt(40))
    ref = 2 * (np.mean(ts >= t) if t >= 0 else np.mean(ts <= t))
    assert p_b == pytest.approx(min(1.0, ref), abs=0.02)

    def leaves_out_zero(level):
        lo, hi = skew_guard_interval(z[None, :], level)
        return lo[0] > 0 or hi[0] < 0

    assert 0 < p_g < 1
    assert leaves_out_zero(1 - p_g - 1e-4) and not leaves_out_zero(1 - p_g + 1e-4)


def test_shares_and_wilson_intervals():
    h = no_harm(A, B, delta=0.05)
    assert (h.n, h.hurt, h.helped) == (5, 2, 2)  # hurt: -0.1, -0.3; helped: 0.1, 0.2
    assert h.hurt_share == pytest.approx(0.4) and h.helped_share == pytest.approx(0.4)
    ref = stats.binomtest(2, 5).proportion_ci(0.95, method="wilson")
    assert h.hurt_ci == pytest.approx((ref.low, ref.high), abs=1e-9)
    assert h.helped_ci == pytest.approx((ref.low, ref.high), abs=1e-9)
    assert h.hurt_cases == (4, 1)  # most hurt first: -0.3 (case 4), then -0.1 (case 1)
    assert h.alpha == DEFAULT_ALPHA and h.trisk == pytest.approx(trisk(np.subtract(B, A), 2)[1])
    # a larger delta: only the 0.3 loss and no gain count
    h2 = no_harm(A, B, delta=0.15, confidence=0.9)
    assert (h2.hurt, h2.helped) == (1, 1)
    ref = stats.binomtest(1, 5).proportion_ci(0.9, method="wilson")
    assert h2.hurt_ci == pytest.approx((ref.low, ref.high), abs=1e-9)
    d = h2.to_dict()
    assert set(d) >= {"delta", "hurt_share", "hurt_ci", "helped_share", "trisk", "trisk_p",
                      "alpha"}
    assert d["hurt_ci"] == list(h2.hurt_ci) and d["delta"] == 0.15


def test_zero_one_outcomes_count_any_loss_by_default():
    rng = np.random.default_rng(3)
    a = (rng.random(60) < 0.6).astype(float)
    b = (rng.random(60) < 0.7).astype(float)
    h = no_harm(a, b)
    assert h.delta == 0 == default_delta(True) and default_delta(False) == SCORE_DELTA
    assert h.hurt == int(np.sum((a == 1) & (b == 0)))  # A right, B wrong
    assert h.helped == int(np.sum((a == 0) & (b == 1)))
    assert no_harm(a + 0.0, b * 0.5 + 0.25).delta == SCORE_DELTA  # scores: 0.05


def test_max_harm_reads_the_upper_end():
    h = no_harm(A, B, delta=0.05)
    assert h.within(h.hurt_ci[1]) and not h.within(h.hurt_ci[1] - 1e-9)
    with pytest.raises(ValueError, match="max_harm"):
        h.within(1.5)


def test_undefined_trisk_and_refusals():
    h = no_harm([0.1, 0.2, 0.3], [0.2, 0.3, 0.4])  # every difference 0.1: z constant
    assert h.trisk is None and h.trisk_p is None and h.urisk == pytest.approx(0.1)
    assert no_harm([0.5], [0.2]).trisk is None
    with pytest.raises(ValueError):
        no_harm(A, B[:4])
    with pytest.raises(ValueError, match="delta"):
        no_harm(A, B, delta=-0.1)
    with pytest.raises(ValueError, match="alpha"):
        no_harm(A, B, alpha=-1)
    with pytest.raises(ValueError, match="confidence"):
        no_harm(A, B, confidence=1.2)
    assert ALPHAS == (1, 2, 5)


def test_trisks_test_is_withheld_below_50_cases():
    """Fewer than TRISK_MIN_N (50) cases and TRisk >= 0: TRisk is the statistic of ``trisk``
    but its p is None and the JSON says why; from 50 on the p is ``trisk``'s (same resamples
    and seed)."""
    from core.paired.harm import TRISK_MIN_N
    rng = np.random.default_rng(2)
    a = rng.random(TRISK_MIN_N)
    b = np.clip(a + rng.normal(0.06, 0.1, TRISK_MIN_N), 0, 1)
    d = b - a
    small = no_harm(a[:-1], b[:-1], resamples=2000, seed=1)
    assert small.trisk == pytest.approx(trisk(d[:-1], 2)[1], rel=1e-12) and small.trisk > 0
    assert small.trisk_p is None and small.trisk_withheld
    assert small.to_dict()["trisk_test"] == "withheld_below_50_cases"
    full = no_harm(a, b, resamples=2000, seed=1)
    assert not full.trisk_withheld
    assert full.trisk_p == trisk(d, 2, resamples=2000, seed=1)[2]
    assert full.to_dict()["trisk_test"] == "largest_p_of_t_bootstrap_t_skew_guard"
    flat = no_harm([0.1, 0.2, 0.3], [0.2, 0.3, 0.4])
    assert not flat.trisk_withheld and flat.to_dict()["trisk_test"] is None


def test_below_50_cases_only_the_riskier_side_is_tested():
    """Fewer than 50 cases and TRisk < 0 (B riskier): the p is ``trisk``'s, the same three
    tests as from 50 on, and the JSON names the one-sided reading; the mirror image of the
    same cases (TRisk >= 0) gets no p."""
    rng = np.random.default_rng(5)
    a = rng.random(30)
    b = np.clip(a - np.abs(rng.normal(0.0, 0.2, 30)) * (rng.random(30) < 0.4), 0, 1)
    h = no_harm(a, b, resamples=2000, seed=3)
    urisk, t_stat, p = trisk(b - a, 2, resamples=2000, seed=3)
    assert h.trisk == pytest.approx(t_stat, rel=1e-12) and h.trisk < -2
    assert h.trisk_p == p and p < 0.05 and not h.trisk_withheld
    assert h.to_dict()["trisk_test"] == "riskier_side_only_below_50_cases"
    mirror = no_harm(b, a, resamples=2000, seed=3)
    assert mirror.trisk > 0 and mirror.trisk_p is None and mirror.trisk_withheld
