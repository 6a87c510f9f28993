"""core.latency.resample: the walking-median kernels against recomputing each resample from
the drawn query counts, and the nested bootstrap's shape, seeding and bounds."""
import numpy as np
import pytest

from core.latency.resample import (draw_query_counts, nested_bootstrap_quantiles,
                                   paired_median_ratio_bootstrap)
from core.paired.streams import resample_seeds


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


# ------------------------------------------------ issue 25: the nested walk's binomial draws
def _alias_law(prob, alias):
    """The law an alias table draws: column i with 1/m, kept with prob[i], else alias[i]."""
    m = prob.size
    law = prob / m
    np.add.at(law, alias, (1 - prob) / m)
    return law


def test_first_draw_tables_draw_the_binomial_law():
    """``_binomial_tables``: for every (k, b) pair and w copies, an alias table whose law is
    Binomial(w k, b/k) (scipy's pmf), including a large n where the pmf is built from its
    mode; beyond the entry budget a (pair, w) gets no table."""
    from scipy import stats

    from core.latency.resample import _binomial_tables

    pair_k, pair_b = np.array([25, 7, 2, 400]), np.array([3, 6, 1, 200])
    off, prob, alias = _binomial_tables(pair_k, pair_b, 3, 1 << 20)
    for i, (k, b) in enumerate(zip(pair_k, pair_b)):
        for w in (1, 2, 3):
            n = w * k
            o = off[i, w - 1]
            assert o >= 0
            law = _alias_law(prob[o:o + n + 1], alias[o:o + n + 1])
            assert np.allclose(law, stats.binom.pmf(np.arange(n + 1), n, b / k),
                               rtol=1e-9, atol=1e-13)
    off, prob, _ = _binomial_tables(pair_k, pair_b, 3, 30)
    assert off[0, 0] == 0 and (off.ravel()[1:] == -1).sum() >= 10 and prob.size <= 30


@pytest.mark.parametrize("n,p", [(20, 0.3), (30, 0.9), (5, 0.5), (400, 0.5), (90, 0.97)])
def test_binomial_draws_from_the_stream_have_the_binomial_law(n, p):
    """``_binomial`` (inversion on the splitmix stream; numba's BTPE above a mean of 30, its
    generator seeded once) draws Binomial(n, p): frequencies within ~4 Monte-Carlo SE of
    scipy's pmf; the same start state gives the same draws."""
    from numba import njit
    from scipy import stats

    from core.latency.resample import _binomial

    @njit
    def many(n, p, R):
        out = np.empty(R, np.int64)
        state = np.uint64(12345)
        seeded = False
        for r in range(R):
            state, out[r], seeded = _binomial(state, n, p, 7, seeded)
        return out

    R = 20_000
    draws = many(n, p, R)
    pmf = stats.binom.pmf(np.arange(n + 1), n, p)
    f = np.bincount(draws, minlength=n + 1) / R
    assert np.max(np.abs(f - pmf)) < 4 * np.sqrt(pmf.max() / R)
    assert np.array_equal(draws, many(n, p, R))


def test_table_draws_have_the_binomial_law():
    from numba import njit
    from scipy import stats

    from core.latency.resample import _binomial_tables, _table_draw

    @njit
    def many(o, m, prob, alias, R):
        out = np.empty(R, np.int64)
        state = np.uint64(99)
        for r in range(R):
            state, out[r] = _table_draw(state, o, m, prob, alias)
        return out

    off, prob, alias = _binomial_tables(np.array([25, 10]), np.array([12, 9]), 3, 1 << 20)
    R = 20_000
    for i, (k, b) in enumerate(((25, 12), (10, 9))):
        for w in (1, 3):
            n = w * k
            x = many(off[i, w - 1], n + 1, prob, alias, R)
            pmf = stats.binom.pmf(np.arange(n + 1), n, b / k)
            f = np.bincount(x, minlength=n + 1) / R
            assert np.max(np.abs(f - pmf)) < 4 * np.sqrt(pmf.max() / R)


def test_nested_walk_without_tables_has_the_same_law(monkeypatch):
    """With no table (entry budget 0: every first draw by ``_binomial``, inversion or BTPE)
    the nested bootstrap differs draw by draw but not in law: outcome by outcome on a tiny
    log, by a two-sample KS statistic on a log of 40 runs a query (means above 30: BTPE)."""
    from scipy import stats

    import core.latency.resample as LR

    small = [np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0]), np.array([6.0]),
             np.array([2.0, 7.0, 8.0, 9.0])]
    rng = np.random.default_rng(8)
    big = [rng.lognormal(3, 0.3, 40) for _ in range(3)]
    R = 20_000
    tab = [LR.nested_bootstrap_quantiles(g, [0.5, 0.95], resamples=R, seed=3)
           for g in (small, big)]
    monkeypatch.setattr(LR, "TABLE_MAX_ENTRIES", 0)
    bare = [LR.nested_bootstrap_quantiles(g, [0.5, 0.95], resamples=R, seed=3)
            for g in (small, big)]
    for t, b in zip(tab, bare):
        assert not np.array_equal(t, b)
    for j in range(2):
        values = np.union1d(tab[0][:, j], bare[0][:, j])
        f1 = np.array([np.mean(tab[0][:, j] == v) for v in values])
        f2 = np.array([np.mean(bare[0][:, j] == v) for v in values])
        assert np.max(np.abs(f1 - f2)) < 0.012   # ~4 Monte-Carlo SE at 20,000 draws
        ks = stats.ks_2samp(tab[1][:, j], bare[1][:, j])
        assert ks.statistic < 0.02   # 1.36 * sqrt(2 / R) = 0.0136 is the 5% critical value
