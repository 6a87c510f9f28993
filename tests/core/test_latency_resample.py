"""core.latency_resample: the walking-median kernels against recomputing each resample from
the drawn query counts, and the nested bootstrap's shape, seeding and bounds."""
import numpy as np
import pytest

from core.latency_resample import (draw_query_counts, nested_bootstrap_quantiles,
                                   paired_median_ratio_bootstrap)
from core.stats import resample_seeds


def test_draw_query_counts_draw_nq_queries():
    w = draw_query_counts(np.uint64(12345), 9)
    assert w.sum() == 9 and w.shape == (9,) and (w >= 0).all()
    assert np.array_equal(w, draw_query_counts(np.uint64(12345), 9))
    many = np.sum([draw_query_counts(np.uint64(s), 5) for s in range(4000)], axis=0)
    assert np.allclose(many / 4000, 1.0, atol=0.1)  # each query drawn once on average


def test_paired_median_ratio_equals_the_median_of_each_resampled_sample():
    rng = np.random.default_rng(0)
    nq, runs = 12, 3
    q = np.repeat(np.arange(nq), runs)
    a = rng.lognormal(3, 0.4, nq * runs)
    b = a * rng.lognormal(-0.2, 0.2, nq * runs)
    obs, dist = paired_median_ratio_bootstrap(a, q, b, q, nq, resamples=1000, seed=7)
    assert obs == pytest.approx(np.log(np.median(b)) - np.log(np.median(a)))
    assert dist.shape == (1000,)
    for r, s in enumerate(resample_seeds(7, 5)):
        w = draw_query_counts(s, nq)
        ra, rb = np.repeat(a, w[q]), np.repeat(b, w[q])
        assert dist[r] == pytest.approx(np.log(np.median(rb)) - np.log(np.median(ra)), abs=1e-12)
    again = paired_median_ratio_bootstrap(a, q, b, q, nq, resamples=1000, seed=7)[1]
    assert np.array_equal(dist, again)


def test_paired_median_ratio_checks_its_arguments():
    with pytest.raises(ValueError):
        paired_median_ratio_bootstrap([1.0, 2.0], [0, 5], [1.0, 2.0], [0, 1], 2)


def test_nested_bootstrap_quantiles_shape_seed_and_bounds():
    rng = np.random.default_rng(1)
    groups = [rng.lognormal(3, 0.5, 4) for _ in range(30)]
    d = nested_bootstrap_quantiles(groups, [0.5, 0.95], resamples=1000, seed=3)
    allv = np.concatenate(groups)
    assert d.shape == (1000, 2)
    assert (d >= allv.min()).all() and (d <= allv.max()).all() and (d[:, 1] >= d[:, 0]).all()
    assert np.array_equal(d, nested_bootstrap_quantiles(groups, [0.5, 0.95], resamples=1000,
                                                        seed=3))
    med = np.median(allv)
    assert np.quantile(d[:, 0], 0.025) < med < np.quantile(d[:, 0], 0.975)


def test_with_one_run_per_query_it_is_the_ordinary_bootstrap():
    """One repetition per query: the spread of the resampled median matches the ordinary
    bootstrap's (drawn with numpy), within simulation error."""
    x = np.random.default_rng(2).lognormal(3, 0.5, 200)
    d = nested_bootstrap_quantiles([np.array([v]) for v in x], [0.5], resamples=2000, seed=0)
    idx = np.random.default_rng(9).integers(0, x.size, size=(2000, x.size))
    ref = np.median(x[idx], axis=1)
    assert np.std(d[:, 0]) == pytest.approx(np.std(ref), rel=0.15)
    assert np.mean(d[:, 0]) == pytest.approx(np.mean(ref), rel=0.02)
