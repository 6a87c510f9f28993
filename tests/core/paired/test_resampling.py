"""core.paired.resampling: the bootstrap of a mean, drawn and read, against numpy and scipy."""
import numpy as np
import pytest
from scipy import stats

from core import _kernels
from core.paired.resampling import (DEGENERATE_DISTINCT, BootstrapResult, bca_ci,
                                    binary_paired_dist, difference_draws, is_constant,
                                    percentile_ci, read_ci)
from core.paired.streams import stream_key


def _result(dist, constant=False):
    return BootstrapResult(float(np.mean(dist)), 0.0, 0.0, 0.95, dist.size, 0, "resample",
                           np.asarray(dist, float), constant=constant)


def test_percentile_ci_is_numpys_linear_percentile():
    dist = np.random.default_rng(1).normal(size=4_001)
    lo, hi = percentile_ci(dist, 0.9)
    assert (lo, hi) == pytest.approx((np.percentile(dist, 5), np.percentile(dist, 95)), abs=1e-12)


def test_bca_equals_scipy_on_the_same_distribution():
    """scipy's BCa read off our own resampled means (``bootstrap_result``, no new draws)."""
    x = np.random.default_rng(7).lognormal(0, 1, 31) - 1.5
    dist = difference_draws(x, 5_000, 2, False)[0]
    prior = stats._resampling.BootstrapResult(confidence_interval=None,
                                              bootstrap_distribution=dist, standard_error=None)
    ref = stats.bootstrap((x,), np.mean, vectorized=True, n_resamples=0, method="BCa",
                          bootstrap_result=prior, confidence_level=0.95)
    lo, hi = bca_ci(dist, x, 0.95)
    assert lo == pytest.approx(ref.confidence_interval.low, abs=1e-12)
    assert hi == pytest.approx(ref.confidence_interval.high, abs=1e-12)


def test_read_ci_falls_back_to_the_percentile_where_bca_is_undefined():
    dist = np.random.default_rng(3).normal(size=1_000)
    flat = np.full(5, 0.2)
    assert bca_ci(dist, flat, 0.95) is None                       # no jackknife spread
    assert read_ci(dist, flat, 0.95, "bca") == (*percentile_ci(dist, 0.95), "percentile")
    assert read_ci(dist, np.array([0.3]), 0.95, "bca")[2] == "percentile"   # one value
    x = np.random.default_rng(4).normal(size=20)
    lo, hi, used = read_ci(dist, x, 0.95, "bca")
    assert used == "bca" and (lo, hi) == bca_ci(dist, x, 0.95)
    with pytest.raises(ValueError, match="values"):
        bca_ci(dist, [0.1], 0.95)


def test_studentized_draws_keep_the_same_means_and_give_each_resamples_sd():
    d = np.random.default_rng(5).normal(size=25)
    plain, none = difference_draws(d, 3_000, 9, False)
    means, sds = difference_draws(d, 3_000, 9, True)
    assert none is None and sds.shape == (1, 3_000)
    np.testing.assert_array_equal(plain, means)                  # bit for bit
    np.testing.assert_array_equal(plain, _kernels.bootstrap_means(d, stream_key(9), 0, 3_000))
    assert np.all(sds > 0) and float(np.median(sds)) == pytest.approx(d.std(ddof=1), rel=0.1)


def test_binary_cells_draws_match_resampling_the_rows():
    """The two-step binomial of the 2x2 cells has the law of resampling the cases."""
    n, a_only, b_only = 40, 6, 11
    d = np.r_[np.full(a_only, -1.0), np.full(b_only, 1.0), np.zeros(n - a_only - b_only)]
    cells = binary_paired_dist(n, a_only, b_only, 40_000, 0)
    rows = _kernels.bootstrap_means(d, stream_key(1), 0, 40_000)
    assert cells.mean() == pytest.approx(rows.mean(), abs=0.003)
    assert cells.std() == pytest.approx(rows.std(), rel=0.03)
    assert np.all(np.isin(np.round(cells * n), np.arange(-n, n + 1)))
    assert np.all(binary_paired_dist(n, 0, 0, 100, 0) == 0)      # no discordant pair


def test_distinct_degenerate_and_constant():
    assert _result(np.full(50, 0.25), constant=True).degenerate == "constant"
    few = _result(np.repeat(np.arange(DEGENERATE_DISTINCT - 1) / 10, 20))
    assert few.distinct == DEGENERATE_DISTINCT - 1 and few.degenerate == "few_distinct"
    many = _result(np.random.default_rng(2).normal(size=500))
    assert many.distinct == 500 and many.degenerate is None
    assert many.standard_error == pytest.approx(np.std(many.distribution, ddof=1))
    assert is_constant([0.25, 0.35 - 0.1]) and is_constant([]) and not is_constant([0.2, 0.3])
