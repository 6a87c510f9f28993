"""The planner's width factor for the calibrated t-interval (core.planning.shape)."""
import numpy as np
import pytest

from core.paired.intervals import score_intervals
from core.planning.sample_size import n_continuous_ci, t_half_width
from core.planning.shape import (FIT_NS, WidthFactor, _fit, calibrated_half_width,
                                    n_calibrated_ci, plan_calibrated, plan_scores, shape_of,
                                    width_factor)
from core.paired.resampling import kernels
from core.paired.streams import stream_key


def test_fit_is_least_squares_in_one_over_root_n():
    c = 0.8
    assert _fit([1 + c / np.sqrt(n) for n in FIT_NS]) == pytest.approx(c)
    assert _fit([0.99] * len(FIT_NS)) == 0.0          # never narrower than t


def test_planned_half_width_is_t_times_the_factor_and_the_search_is_exact():
    f = WidthFactor(1.0, "data", 30, 2.0, (1.2, 1.15, 1.1), 0.95)
    assert calibrated_half_width(0.3, 25, f) == pytest.approx(t_half_width(0.3, 25) * 1.2)
    n = n_calibrated_ci(0.3, 0.1, f)
    assert calibrated_half_width(0.3, n, f) <= 0.1 < calibrated_half_width(0.3, n - 1, f)
    assert n > n_continuous_ci(0.3, 0.1)


def test_skewed_differences_plan_more_cases_and_reach_the_target_on_average():
    rng = np.random.default_rng(5)
    skewed = rng.exponential(size=60) - 1.0
    f = width_factor(skewed, seed=1, sets=120, resamples=400)
    assert f.source == "data" and f.n_data == 60 and f.skewness > 0.5
    flat = width_factor(rng.normal(size=60), seed=1, sets=120, resamples=400)
    assert f.excess > flat.excess + 0.1
    assert width_factor(skewed, seed=1, sets=120, resamples=400) == f      # seeded
    plan = plan_calibrated(1.0, 0.5, d=skewed, current_n=10)
    assert plan.n_ci > plan.n_t and plan.percent_wider > 0
    assert plan.current_half_width == pytest.approx(calibrated_half_width(1.0, 10, plan.factor))
    # a short seeded check: on data shaped like these (drawn from the differences scaled to
    # SD 1) the calibrated interval's mean half-width at the planned n reaches the target
    # 0.5 within simulation noise (the long check on populations: docs/calibration.md)
    z = (skewed - skewed.mean()) / skewed.std(ddof=1)
    x = z[rng.integers(0, z.size, size=(300, plan.n_ci))]
    boot = kernels().bootstrap_sets(np.ascontiguousarray(x), stream_key(3), 500)
    lo, hi = score_intervals(x, boot[0], boot[1], 0.95, "calibrated_t")
    assert np.mean(hi - lo) / 2 <= 0.5 * 1.04


def test_plan_scores_replaces_the_interval_answer_and_keeps_the_t_plan():
    cp = plan_scores(0.3, 0.05, diff=0.05, current_n=20)
    assert cp.calibrated.factor.source == "normal" and cp.n_ci == cp.calibrated.n_ci
    assert cp.n_ci >= cp.calibrated.n_t == n_continuous_ci(0.3, 0.05)
    d = cp.to_dict()
    assert d["calibrated"]["n_t"] == cp.calibrated.n_t and d["n_power"] == cp.n_power


def test_shape_of_needs_a_spread():
    class C:
        a_values = np.zeros(5)
        b_values = np.array([0.1, 0.2, 0.0, 0.5, 0.3])
    assert np.allclose(shape_of(C()), C.b_values)
    C.b_values = np.zeros(5)
    assert shape_of(C()) is None and shape_of(None) is None
    with pytest.raises(ValueError):
        width_factor([1.0, 1.0, 1.0])
