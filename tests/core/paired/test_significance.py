"""core.paired.significance: the exact McNemar test vs scipy's binomial test, the sign-flip
randomization test vs enumerating every sign pattern, the paired t-test vs scipy and d_z."""
import itertools

import numpy as np
import pytest
from scipy import stats

from core.paired.significance import (EXACT_MAX_NONZERO, PairedTest, cohens_dz, mcnemar_exact,
                               mcnemar_midp, mcnemar_test, min_exact_p, paired_test, paired_ttest_p, randomization_p)


@pytest.mark.parametrize("a_only,b_only", [(0, 0), (3, 9), (9, 3), (10, 10), (0, 7), (40, 61),
                                           (1200, 1300)])
def test_mcnemar_exact_equals_scipy_binomtest(a_only, b_only):
    m = a_only + b_only
    ref = 1.0 if m == 0 else stats.binomtest(a_only, m, 0.5).pvalue
    assert mcnemar_exact(a_only, b_only) == pytest.approx(ref, rel=1e-9)


def test_mcnemar_refuses_negative_or_fractional_counts():
    for bad in ((-1, 2), (1.5, 2)):
        with pytest.raises(ValueError):
            mcnemar_exact(*bad)


def test_min_exact_p():
    assert [min_exact_p(m) for m in (0, 1, 2, 5)] == [1.0, 1.0, 0.5, 2 * 0.5 ** 5]


def _enumerated_p(d):
    nz = d[d != 0]
    obs = abs(nz.sum())
    hits = sum(abs(np.dot(s, nz)) >= obs - 1e-12
               for s in itertools.product((-1, 1), repeat=nz.size))
    return hits / 2 ** nz.size


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_exact_sign_flip_p_equals_enumerating_every_sign_pattern(seed):
    rng = np.random.default_rng(seed)
    a = rng.random(14)
    b = a - rng.normal(0.1, 0.2, 14)
    b[:2] = a[:2]  # two zero differences: they do not count
    t = paired_test(a, b)
    assert isinstance(t, PairedTest) and t.name == "randomization" and t.exact
    assert t.nonzero == 12 and t.resamples == 0 and t.min_p == min_exact_p(12)
    assert t.p == pytest.approx(_enumerated_p(a - b), abs=1e-12)
    assert randomization_p(a, b) == t.p


def test_binary_outcomes_get_mid_p_mcnemar():
    """The verdict's test on 0/1 data is the mid-p McNemar test: the exact McNemar p (which
    equals the enumerated sign-flip p) minus the probability of the observed split."""
    a = np.array([1, 1, 0, 0, 1, 0, 1, 1])
    b = np.array([1, 0, 1, 1, 1, 1, 1, 1])
    t = paired_test(a, b)
    assert (t.name, t.nonzero, t.exact, t.mid_p) == ("mcnemar", 4, True, True)
    assert mcnemar_exact(1, 3) == pytest.approx(_enumerated_p(a - b))
    assert t.p == mcnemar_midp(1, 3) == pytest.approx(mcnemar_exact(1, 3) - 4 / 16)
    assert t.min_p == 1 / 16 and mcnemar_test(1, 3, mid_p=False).min_p == 2 / 16
    assert t.to_dict()["min_p"] == min_exact_p(4) / 2 and t.to_dict()["mid_p"] is True


def test_monte_carlo_sign_flip_above_the_exact_limit():
    rng = np.random.default_rng(4)
    n = EXACT_MAX_NONZERO + 20
    a, b = rng.random(n), rng.random(n)
    t = paired_test(a, b, resamples=20_000, seed=1)
    assert not t.exact and t.resamples == 20_000 and t.min_p == 1 / 20_001
    ref = stats.permutation_test((a - b,), np.sum, permutation_type="samples",
                                 n_resamples=20_000, random_state=0).pvalue
    assert t.p == pytest.approx(ref, abs=0.02)
    assert paired_test(a, b, resamples=20_000, seed=1).p == t.p  # seeded


def test_paired_ttest_equals_scipy_and_is_none_when_undefined():
    rng = np.random.default_rng(5)
    a, b = rng.random(30), rng.random(30)
    assert paired_ttest_p(a, b) == pytest.approx(stats.ttest_rel(a, b).pvalue, rel=1e-9)
    assert paired_ttest_p(a, a + 0.25) is None and paired_ttest_p([1.0], [0.0]) is None


def test_cohens_dz_is_mean_over_sd_of_the_differences():
    rng = np.random.default_rng(6)
    a, b = rng.random(25), rng.random(25)
    d = a - b
    assert abs(cohens_dz(a, b)) == pytest.approx(abs(d.mean() / d.std(ddof=1)))
    assert cohens_dz(a, a) is None
    # cohens_dz trusts its vectors (validate once, issue 31): the door that hands them on
    # refuses unpaired ones
    from core.paired.compare import compare_paired
    with pytest.raises(ValueError, match="paired"):
        compare_paired([1.0, 2.0, 3.0], [1.0, 2.0])


@pytest.mark.parametrize("a_only,b_only", [(0, 0), (3, 9), (10, 10), (0, 7), (40, 61)])
def test_mcnemar_midp_is_the_exact_p_minus_the_observed_split(a_only, b_only):
    from core.paired.significance import mcnemar_midp

    m = a_only + b_only
    if m == 0:
        assert mcnemar_midp(0, 0) == 1.0
        return
    k = min(a_only, b_only)
    ref = min(1.0, 2 * stats.binom.cdf(k, m, 0.5)) - stats.binom.pmf(k, m, 0.5)
    assert mcnemar_midp(a_only, b_only) == pytest.approx(ref, rel=1e-9)
    assert mcnemar_midp(a_only, b_only) <= mcnemar_exact(a_only, b_only)


def test_shifted_signflip_at_zero_is_half_the_two_sided_test():
    from core.paired.significance import shifted_signflip_p
    d = np.array([0.3, 0.1, -0.05, 0.2, 0.15, -0.1, 0.25, 0.05])
    one = shifted_signflip_p(d, 0.0, alternative="greater")
    two = paired_test(np.zeros(d.size), d)
    assert one.exact and 2 * one.p == pytest.approx(two.p, abs=1e-15)
    assert shifted_signflip_p(d, 0.0, alternative="less").p > 0.5
    with pytest.raises(ValueError, match="alternative"):
        shifted_signflip_p(d, 0.0, alternative="two-sided")


def test_large_signflip_test_stops_once_its_p_is_resolved_against_alpha():
    """Issue 25: above SIGNFLIP_WORK sign flips, with the verdict's alpha, the test draws
    blocks of SIGNFLIP_BLOCK resamples of the same stream and stops once the exceedance
    rate's 99.9% Wilson interval excludes alpha. Its p is the count over the first R' of the
    full run's resamples; the side of alpha is the full run's; without alpha (or small) it is
    the full run."""
    from core.paired import significance as pt
    from core.paired.intervals import wilson_bounds
    from core.paired.intervals import z_two_sided as z_value
    from core.paired.difference import paired_data
    from core.paired.resampling import kernels
    from core.paired.streams import STREAM_SIGNFLIP
    from core.paired.streams import stream_key

    rng = np.random.default_rng(3)
    n = 20_001
    z = z_value(pt.SIGNFLIP_SURE)
    for shift in (0.0, 0.02, 0.004, 0.005):
        a = rng.random(n)
        b = a + rng.normal(shift, 0.3, n)
        data = paired_data(a, b)
        full = pt.difference_test(data, resamples=20_000, seed=1)
        sized = pt.difference_test(data, resamples=20_000, seed=1, alpha=0.05)
        nz = data.d[data.d != 0]
        null = np.abs(kernels().signflip_sums(nz, stream_key(1, STREAM_SIGNFLIP), 0, 20_000))
        hit = null >= abs(nz.sum()) - 1e-12 * max(1.0, np.abs(nz).sum())
        r = sized.resamples
        assert full.resamples == 20_000 and full.p == (1 + hit.sum()) / 20_001
        assert sized.p == (1 + hit[:r].sum()) / (1 + r)
        assert (sized.p <= 0.05) == (full.p <= 0.05)
        assert r % pt.SIGNFLIP_BLOCK == 0
        for drawn in range(pt.SIGNFLIP_BLOCK, r + 1, pt.SIGNFLIP_BLOCK):
            lo, hi, _ = wilson_bounds(int(hit[:drawn].sum()), drawn, z)
            assert (lo > 0.05 or hi < 0.05) == (drawn == r)  # stops at the first such block
    assert r > pt.SIGNFLIP_BLOCK  # the last case (p near alpha) needed several blocks
    small = paired_data(rng.random(500), rng.random(500))
    assert pt.difference_test(small, resamples=20_000, seed=1, alpha=0.05) == \
        pt.difference_test(small, resamples=20_000, seed=1)


def test_nct_sf_is_scipy_stats_nct_sf_within_rounding():
    """``nct_sf`` (1 - scipy.special.nctdtr) against scipy.stats.nct.sf over the planner's
    range and beyond: df 1..200,000, noncentrality 0..60 (scipy.special's series gives NaN
    above about 35, where scipy.stats' value is taken), t 0.01..8; the scalar form too."""
    from core.paired.significance import nct_sf
    from scipy import stats as st
    df = np.unique(np.geomspace(1, 200_000, 40).astype(int))[:, None, None]
    nc = np.linspace(0, 60, 61)[None, :, None]
    t = np.linspace(0.01, 8, 30)[None, None, :]
    with np.errstate(all="ignore"):
        ref = st.nct.sf(t, df, nc)
    got = nct_sf(t, df, nc)
    ok = ~np.isnan(ref)
    assert ok.mean() > 0.99 and np.array_equal(np.isnan(got), np.isnan(ref))
    np.testing.assert_allclose(got[ok], ref[ok], rtol=0, atol=2.3e-16)
    assert abs(float(nct_sf(2.1, 30, 3.0)) - st.nct.sf(2.1, 30, 3.0)) <= 2.3e-16
