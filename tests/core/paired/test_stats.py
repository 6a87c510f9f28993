"""core.paired.stats against scipy, by exact enumeration, and by simulation (fixed seeds)."""
import itertools

import numpy as np
import pytest
from scipy import stats

from core import _kernels
from core.paired.compare import compare_paired
from core.paired.significance import cohens_dz, mcnemar_exact, paired_ttest_p, randomization_p
from core.paired.difference import paired_data
from core.paired.method_intervals import mean_intervals
from core.paired.stats import bootstrap_mean, paired_bootstrap, verdict, wilson_interval
from core.paired.streams import stream_key


# ----------------------------------------------------------------------------- Wilson
@pytest.mark.parametrize("n", [1, 2, 5, 10, 31, 100, 301, 10_000])
@pytest.mark.parametrize("confidence", [0.90, 0.95, 0.99])
def test_wilson_equals_scipy_on_grid(n, confidence):
    ks = sorted({0, 1, n // 3, n // 2, n - 1, n} & set(range(n + 1)))
    for k in ks:
        ref = stats.binomtest(k, n).proportion_ci(confidence_level=confidence, method="wilson")
        lo, hi = wilson_interval(k, n, confidence)
        assert lo == pytest.approx(ref.low, abs=1e-9)
        assert hi == pytest.approx(ref.high, abs=1e-9)


def test_wilson_demo_numbers():
    lo, hi = wilson_interval(26, 31)
    assert (round(lo, 3), round(hi, 3)) == (0.674, 0.929)


@pytest.mark.parametrize("k,n,conf", [(-1, 10, .95), (11, 10, .95), (1, 0, .95), (1.5, 10, .95),
                                      (1, 10, 1.0), (1, 10, 0.2), (True, 10, .95)])
def test_wilson_rejects_bad_arguments(k, n, conf):
    with pytest.raises(ValueError):
        wilson_interval(k, n, conf)


# ----------------------------------------------------------------------------- bootstrap
def _continuous_pair(n, seed=0, shift=0.0):
    rng = np.random.default_rng(seed)
    base = rng.beta(2, 2, size=n)
    return (np.clip(base + shift + rng.normal(0, .15, n), 0, 1),
            np.clip(base + rng.normal(0, .15, n), 0, 1))


def _binary_pair(n, seed=0):
    rng = np.random.default_rng(seed)
    c = rng.choice(4, size=n, p=[.6, .15, .1, .15])
    return np.isin(c, [0, 1]).astype(float), np.isin(c, [0, 2]).astype(float)


@pytest.mark.parametrize("make", [_continuous_pair, _binary_pair])
@pytest.mark.parametrize("n", [31, 300])
def test_paired_bootstrap_agrees_with_scipy(make, n):
    a, b = make(n, seed=n)
    ours = paired_bootstrap(a, b, resamples=20_000, seed=1)
    ref = stats.bootstrap((a, b), lambda x, y, axis=-1: np.mean(y - x, axis=axis), paired=True,
                          vectorized=True, n_resamples=20_000, method="percentile",
                          random_state=np.random.default_rng(2))
    se = ref.standard_error
    # Percentile endpoints of two independent 20,000-resample runs: agree to well within
    # 0.1 standard errors (Monte-Carlo error of a 2.5% quantile is about 0.03 SE here).
    assert ours.ci_low == pytest.approx(ref.confidence_interval.low, abs=0.1 * se + 1.5 / n * (make is _binary_pair))
    assert ours.ci_high == pytest.approx(ref.confidence_interval.high, abs=0.1 * se + 1.5 / n * (make is _binary_pair))
    assert ours.standard_error == pytest.approx(se, rel=0.03)
    assert ours.mean == pytest.approx(np.mean(b - a), abs=1e-12)  # B - A


@pytest.mark.parametrize("make", [_continuous_pair, _binary_pair])
def test_same_seed_same_output_other_seed_differs(make):
    a, b = make(50)
    r1 = paired_bootstrap(a, b, resamples=5_000, seed=7)
    r2 = paired_bootstrap(a, b, resamples=5_000, seed=7)
    r3 = paired_bootstrap(a, b, resamples=5_000, seed=8)
    assert np.array_equal(r1.distribution, r2.distribution)
    assert (r1.ci_low, r1.ci_high) == (r2.ci_low, r2.ci_high)
    assert not np.array_equal(r1.distribution, r3.distribution)
    assert r1.method == ("cells" if make is _binary_pair else "resample")


def test_batching_does_not_change_the_result():
    """Each resample has its own counter-based stream (a hash of seed and resample index):
    computing the resamples in any batches (or threads) gives exactly the same distribution
    as computing them at once."""
    a, b = _continuous_pair(200)
    d = b - a
    key, R = stream_key(3), 4_000
    whole = _kernels.bootstrap_means(d, key, 0, R)
    assert np.array_equal(np.concatenate([_kernels.bootstrap_means(d, key, i, 1)
                                          for i in range(50)]), whole[:50])
    for batch in (7, 1_000, 3_999):
        parts = [_kernels.bootstrap_means(d, key, i, min(batch, R - i))
                 for i in range(0, R, batch)]
        assert np.array_equal(np.concatenate(parts), whole)
        fused = np.concatenate([_kernels.bootstrap_means_sd(d, float(d.mean()), key, i,
                                                            min(batch, R - i))
                                for i in range(0, R, batch)], axis=1)
        assert np.array_equal(fused[0], whole)
        assert np.array_equal(fused, _kernels.bootstrap_means_sd(d, float(d.mean()), key, 0, R))
        flips = np.concatenate([_kernels.signflip_sums(d, key, i, min(batch, R - i))
                                for i in range(0, R, batch)])
        assert np.array_equal(flips, _kernels.signflip_sums(d, key, 0, R))
    assert np.array_equal(paired_bootstrap(a, b, resamples=4_000, seed=3).distribution, whole)
    c = compare_paired(a, b, resamples=4_000, seed=3)
    assert np.array_equal(c.bootstrap.distribution, whole)
    lo, hi, _ = mean_intervals(np.vstack((a, b)), resamples=4_000, seed=3)
    assert (c.rate_a.ci_low, c.rate_a.ci_high, c.rate_b.ci_low, c.rate_b.ci_high) == (
        lo[0], hi[0], lo[1], hi[1])


@pytest.mark.parametrize("n", [5, 63, 64, 65, 130, 1_000])
def test_signflip_sums_use_every_value_once_with_a_fair_sign(n):
    """Each value enters each random sum exactly once, as +v or -v (the kernel keeps four
    running sums over 64-bit words plus a tail; every position must still be covered)."""
    key, R = stream_key(11), 2_000
    for k in sorted({0, n // 2, n - 1, min(63, n - 1), min(64, n - 1)}):
        e = np.zeros(n)
        e[k] = 1.0
        s = _kernels.signflip_sums(e, key, 0, R)
        assert set(np.unique(s)) == {-1.0, 1.0}
        assert abs(s.mean()) < 4 / np.sqrt(R)
    ones = _kernels.signflip_sums(np.ones(n), key, 0, R)
    assert np.all(np.abs(ones) <= n) and np.all((ones - n) % 2 == 0)
    assert abs(ones.var() / n - 1) < 0.15
    d = np.random.default_rng(n).normal(size=n)
    assert abs(np.mean(_kernels.signflip_sums(d, key, 0, R) ** 2) / np.sum(d * d) - 1) < 0.15


def test_stream_keys_differ_by_seed_and_stream():
    keys = {int(stream_key(s, k)) for s in range(100) for k in (0, 1)}
    assert len(keys) == 200


def test_kernel_draws_are_uniform_over_cases():
    """Resampling one-hot vectors: each case should be drawn n/n = 1 time per resample."""
    n, R = 7, 40_000
    counts = np.array([_kernels.bootstrap_means(np.eye(n)[i], stream_key(i), 0, R).mean() * n
                       for i in range(n)])
    assert np.allclose(counts, 1.0, atol=0.02)


def test_binary_cells_distribution_matches_row_resampling():
    """The multinomial-cells shortcut has the same distribution as resampling rows."""
    a, b = _binary_pair(40, seed=5)
    cellwise = paired_bootstrap(a, b, resamples=40_000, seed=0).distribution
    rows = _kernels.bootstrap_means(b - a, stream_key(1), 0, 40_000)
    assert cellwise.mean() == pytest.approx(rows.mean(), abs=0.003)
    assert cellwise.std() == pytest.approx(rows.std(), rel=0.03)
    assert np.percentile(cellwise, 2.5) == pytest.approx(np.percentile(rows, 2.5), abs=1 / 40)


def test_bootstrap_mean_ci_brackets_the_mean():
    x = np.random.default_rng(0).random(100)
    r = bootstrap_mean(x, resamples=5_000)
    assert r.ci_low < x.mean() < r.ci_high


@pytest.mark.parametrize("kwargs", [dict(resamples=0), dict(resamples=2.5), dict(confidence=1.5),
                                    dict(seed=-1), dict(seed="x")])
def test_bootstrap_rejects_bad_arguments(kwargs):
    with pytest.raises(ValueError):
        paired_bootstrap([0.1, 0.2], [0.2, 0.3], **kwargs)


def test_bootstrap_rejects_bad_values():
    with pytest.raises(ValueError, match="same length"):
        paired_bootstrap([1, 0, 1], [1, 0])
    with pytest.raises(ValueError, match="NaN"):
        paired_bootstrap([1, np.nan], [1, 0])
    with pytest.raises(ValueError, match="at least 1"):
        paired_bootstrap([], [])


# ----------------------------------------------------------------------------- paired tests
@pytest.mark.parametrize("a_only,b_only", [(0, 0), (5, 3), (3, 5), (10, 0), (0, 1), (40, 25)])
def test_mcnemar_equals_binomtest(a_only, b_only):
    m = a_only + b_only
    ref = 1.0 if m == 0 else stats.binomtest(a_only, m, 0.5).pvalue
    assert mcnemar_exact(a_only, b_only) == pytest.approx(ref, abs=1e-12)


def test_randomization_binary_approaches_exact_mcnemar():
    a, b = _binary_pair(60, seed=11)
    _, a_only, b_only, _ = paired_data(a, b).table
    p = randomization_p(a, b, resamples=100_000, seed=0)
    assert p == pytest.approx(mcnemar_exact(a_only, b_only), abs=0.006)


def test_randomization_continuous_equals_full_enumeration():
    a, b = _continuous_pair(12, seed=4, shift=0.08)
    d = a - b
    signs = np.array(list(itertools.product([-1, 1], repeat=d.size)))
    null = np.abs((signs * d).mean(axis=1))
    exact = np.mean(null >= abs(d.mean()) - 1e-12)
    p = randomization_p(a, b, resamples=100_000, seed=0)
    assert p == pytest.approx(exact, abs=0.005)
    assert p >= 1 / 100_001  # the +1 correction: never zero


def test_ttest_and_cohens_d_match_scipy():
    a, b = _continuous_pair(80, seed=9, shift=0.05)
    assert paired_ttest_p(a, b) == pytest.approx(stats.ttest_rel(a, b).pvalue, abs=1e-12)
    d = b - a  # B - A: positive d_z when B scores higher
    assert cohens_dz(a, b) == pytest.approx(d.mean() / d.std(ddof=1))
    assert paired_ttest_p([1, 0.5], [1, 0.5]) is None


def test_verdict_rule():
    """The CI is of B - A: above 0 means B is better, below 0 means A is."""
    assert verdict(0.01, 0.2) == "b_better"
    assert verdict(-0.2, -0.01) == "a_better"
    assert verdict(-0.1, 0.1) == "no_difference"
    assert verdict(0.0, 0.1) == "no_difference"


def test_compare_paired_on_the_demo_story():
    a = np.array([1] * 26 + [0] * 5, float)
    b = np.array([1] * 21 + [0] * 5 + [1] * 3 + [0] * 2, float)
    c = compare_paired(a, b, name_a="title-only", name_b="RRF")
    assert c.binary and c.rate_a.successes == 26 and c.rate_b.successes == 24
    assert c.table == (21, 5, 3, 2)
    assert c.bootstrap.ci_low < 0 < c.bootstrap.ci_high
    assert c.verdict == "no_difference"
    # the verdict's test is the mid-p McNemar test: exact p 0.7265625 minus P(X = 3 | 8, 1/2)
    assert c.ttest_p is None and c.mcnemar_p == pytest.approx(0.7265625 - 56 / 256)
    assert c.discordance == pytest.approx(8 / 31)


# ----------------------------------------------------------------------------- simulation
@pytest.mark.slow
@pytest.mark.parametrize("binary", [True, False])
@pytest.mark.parametrize("n", [31, 300])
def test_ci_coverage_when_there_is_no_difference(n, binary, capsys):
    """With no true difference the 95% CI should contain 0 in 93.5-96.5% of golden sets.

    Binary sets: A-only and B-only cases equally likely. Continuous sets: per-case scores
    around a case difficulty with independent normal noise for A and B. (For continuous data
    at n = 31 the percentile interval's known narrowness bias, sqrt((n-1)/n) in the plug-in
    SD, puts the true coverage near 93.7% (P(|t_30| <= 1.96 sqrt(30/31))), so that cell
    uses 10,000 sets to keep the Monte-Carlo error of the coverage near 0.25 %p.)
    """
    rng = np.random.default_rng(2024 + n)
    sets = 10_000 if (n == 31 and not binary) else 3_000
    resamples = 2_000
    hits = 0
    for s in range(sets):
        if binary:
            c = rng.choice(4, size=n, p=[.65, .1, .1, .15])
            a, b = np.isin(c, [0, 1]).astype(float), np.isin(c, [0, 2]).astype(float)
        else:
            base = rng.uniform(0.2, 0.8, size=n)
            a = base + rng.normal(0, .1, n)
            b = base + rng.normal(0, .1, n)
        r = paired_bootstrap(a, b, resamples=resamples, seed=s)
        hits += r.ci_low <= 0 <= r.ci_high
    coverage = hits / sets
    with capsys.disabled():
        print(f"\n  coverage n={n} {'binary' if binary else 'continuous'}: {coverage:.2%} "
              f"of {sets:,} simulated golden sets")
    assert 0.935 <= coverage <= 0.965, f"coverage {coverage:.2%}"


# ----------------------------------------------------------------------------- verdict honesty
from hypothesis import given, settings, strategies as st  # noqa: E402

from core.paired.compare import decide  # noqa: E402
from core.paired.significance import PairedTest, min_exact_p, paired_test  # noqa: E402
from core.paired.resampling import bca_ci, is_constant  # noqa: E402


@pytest.mark.parametrize("a,b,reason", [
    ([1, 1], [0, 0], "too_few_discordant"),                       # CI [1, 1], McNemar p 0.5
    ([1] * 4 + [0] * 6, [0] * 10, "too_few_discordant"),          # CI [0.1, 0.7], p 0.125
    ([0.5] * 5, [0.25] * 5, "too_few_nonzero"),                   # CI [0.25, 0.25], p 0.0625
])
def test_small_n_cases_from_the_issue_give_no_difference(a, b, reason):
    c = compare_paired(np.array(a, float), np.array(b, float), resamples=5_000,
                       interval="percentile")
    assert c.bootstrap.ci_high < 0  # the percentile CI alone would have said "A is better"
    assert c.verdict == "no_difference"
    assert c.decision.reason == reason
    assert c.decision.p >= 0.05 and c.decision.min_p >= 0.05
    # smallest possible p: mid-p McNemar (0/1) (1/2)^m, exact sign-flip 2 (1/2)^m
    factor = 1 if c.decision.test == "mcnemar" else 2
    assert c.decision.min_p == pytest.approx(factor * 0.5 ** c.decision.nonzero)


def test_constant_differences_are_flagged_degenerate():
    c = compare_paired(np.full(5, 0.5), np.full(5, 0.25), resamples=2_000)
    assert c.bootstrap.degenerate == "constant" and c.bootstrap.distinct == 1
    c = compare_paired(np.array([1, 1, 0, 0, 1, 0], float), np.array([0, 1, 0, 0, 1, 0], float))
    assert c.bootstrap.degenerate == "few_distinct" and c.bootstrap.distinct < 10
    a, b = _continuous_pair(40, seed=1)
    assert compare_paired(a, b, resamples=2_000).bootstrap.degenerate is None


def test_ci_excluding_zero_with_a_test_that_disagrees():
    t = PairedTest("randomization", 0.07, 25, False, 20_000)
    dec = decide(0.01, 0.2, t, 0.95)
    assert (dec.verdict, dec.reason) == ("no_difference", "test_disagrees")
    ok = decide(0.01, 0.2, PairedTest("randomization", 0.01, 25, False, 20_000), 0.95)
    assert (ok.verdict, ok.reason) == ("b_better", None)  # the CI of B - A lies above 0
    assert decide(-0.1, 0.2, t, 0.95).reason == "ci_includes_zero"
    assert verdict(0.01, 0.2, 0.07, confidence=0.95) == "no_difference"
    assert verdict(-0.2, -0.01, 0.01, confidence=0.95) == "a_better"


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 40), st.integers(0, 10_000), st.booleans(),
       st.sampled_from([0.90, 0.95, 0.99]))
def test_property_better_only_when_the_exact_test_agrees(n, seed, binary, confidence):
    """Whenever the verdict is "better", the matching test's p < 1 - confidence (for 0/1
    outcomes the mid-p McNemar p, recomputed from scipy: exact binomial p minus the point
    probability of the observed split) and the CI excludes 0 on that side."""
    rng = np.random.default_rng(seed)
    if binary:
        a = (rng.random(n) < rng.uniform(0.2, 1)).astype(float)
        b = (rng.random(n) < rng.uniform(0, 0.8)).astype(float)
    else:
        a = np.round(rng.random(n) + rng.uniform(0, 0.6), int(rng.integers(1, 4)))
        b = np.round(rng.random(n), int(rng.integers(1, 4)))
    c = compare_paired(a, b, resamples=1_000, seed=seed, confidence=confidence)
    m = c.table[1] + c.table[2] if binary else 0
    ref = (stats.binomtest(c.table[1], m).pvalue
           - stats.binom.pmf(min(c.table[1], c.table[2]), m, 0.5) if m else None)
    if c.verdict != "no_difference":
        assert c.test.p < 1 - confidence
        if ref is not None:
            assert ref < 1 - confidence
        if c.verdict == "b_better":  # the CI is of B - A
            assert c.bootstrap.ci_low > 0
        else:
            assert c.bootstrap.ci_high < 0


@pytest.mark.parametrize("m", [0, 1, 3, 8, 13, 20])
def test_exact_signflip_p_equals_brute_force(m):
    rng = np.random.default_rng(m)
    d = np.round(rng.normal(0.1, 0.3, m), 2)  # ties in |d| on purpose
    d[d == 0] = 0.01
    a, b = np.concatenate([d, [0.0, 0.0]]) + 0.5, np.full(m + 2, 0.5)
    t = paired_test(a, b)
    assert t.exact and t.nonzero == m
    if m == 0:
        assert t.p == 1.0
    elif m <= 13:
        signs = np.array(list(itertools.product([-1, 1], repeat=m))).reshape(-1, m)
        sums = np.abs((signs * (a - b)[:m]).sum(axis=1))
        ref = np.mean(sums >= abs((a - b).sum()) - 1e-9)
        assert t.p == pytest.approx(ref, abs=1e-12)
    assert t.p >= min_exact_p(m) - 1e-15


def test_binary_randomization_is_the_exact_mcnemar():
    for seed in range(5):
        a, b = _binary_pair(60, seed=seed)
        _, a_only, b_only, _ = paired_data(a, b).table
        assert randomization_p(a, b) == pytest.approx(
            stats.binomtest(a_only, a_only + b_only, 0.5).pvalue, abs=1e-12)


def test_monte_carlo_above_twenty_nonzero():
    a, b = _continuous_pair(40, seed=3, shift=0.05)
    t = paired_test(a, b, resamples=5_000)
    assert not t.exact and t.resamples == 5_000 and t.nonzero == 40
    assert t.p == paired_test(a, b, resamples=5_000).p  # same seed, same p


def test_bca_equals_scipy_on_the_same_distribution():
    """scipy computes BCa from our own bootstrap distribution (``bootstrap_result`` with
    no new resamples): the endpoints must be equal."""
    for make, n in ((_continuous_pair, 31), (_continuous_pair, 200), (_binary_pair, 60)):
        a, b = make(n, seed=n)
        ours = paired_bootstrap(a, b, resamples=5_000, seed=2, interval="bca")
        assert ours.interval == "bca"
        prior = stats._resampling.BootstrapResult(
            confidence_interval=None, bootstrap_distribution=ours.distribution,
            standard_error=None)
        ref = stats.bootstrap((a, b), lambda x, y, axis=-1: np.mean(y - x, axis=axis),
                              paired=True, vectorized=True, n_resamples=0, method="BCa",
                              bootstrap_result=prior, confidence_level=0.95)
        assert ours.ci_low == pytest.approx(ref.confidence_interval.low, abs=1e-12)
        assert ours.ci_high == pytest.approx(ref.confidence_interval.high, abs=1e-12)


def test_bca_falls_back_to_percentile_when_undefined():
    r = paired_bootstrap(np.full(6, 0.5), np.full(6, 0.75), resamples=1_000, interval="bca")
    assert r.interval == "percentile" and r.ci_low == r.ci_high == pytest.approx(0.25)
    assert bca_ci(np.full(10, 0.2), np.full(4, 0.2), 0.95) is None
    with pytest.raises(ValueError, match="interval"):
        paired_bootstrap([0.1, 0.2], [0.2, 0.3], interval="bcx")


def test_ttest_treats_nearly_equal_differences_as_constant():
    x = np.random.default_rng(0).random(8)
    assert paired_ttest_p(x + 0.25, x) is None
    assert paired_ttest_p(x + 0.250000001, x + 1e-9) is None
    assert is_constant([0.25, 0.25 + 1e-15]) and not is_constant([0.25, 0.2500001])
    assert paired_ttest_p(x + 0.25 + 1e-3 * x, x) == pytest.approx(
        stats.ttest_rel(x + 0.25 + 1e-3 * x, x).pvalue, rel=1e-9)


@pytest.mark.slow
def test_bca_coverage_when_there_is_no_difference(capsys):
    """BCa at n = 31 continuous, the same simulated golden sets as the percentile cell of
    ``test_ci_coverage_when_there_is_no_difference`` (10,000 sets; Monte-Carlo error of the
    coverage about 0.25 %p)."""
    n, sets = 31, 10_000
    rng = np.random.default_rng(2024 + n)
    hits = {"percentile": 0, "bca": 0}
    for s in range(sets):
        base = rng.uniform(0.2, 0.8, size=n)
        a = base + rng.normal(0, .1, n)
        b = base + rng.normal(0, .1, n)
        r = paired_bootstrap(a, b, resamples=2_000, seed=s, interval="bca")
        lo, hi = bca_ci(r.distribution, b - a, 0.95)
        assert (lo, hi) == (r.ci_low, r.ci_high)
        plo, phi = np.percentile(r.distribution, [2.5, 97.5])
        hits["bca"] += lo <= 0 <= hi
        hits["percentile"] += plo <= 0 <= phi
    cov = {k: v / sets for k, v in hits.items()}
    with capsys.disabled():
        print(f"\n  coverage n={n} continuous: BCa {cov['bca']:.2%}, percentile "
              f"{cov['percentile']:.2%} of {sets:,} simulated golden sets")
    assert 0.93 <= cov["bca"] <= 0.965, f"BCa coverage {cov['bca']:.2%}"


def test_a_score_interval_never_leaves_the_range_of_b_minus_a():
    """Scores in [0, 1]: B - A lies in [-1, 1], so no interval end goes beyond (the
    bootstrap-t over 2 non-zero differences of 12 reached +2.04 before the cut)."""
    from core.paired.compare import compare_paired
    a = np.zeros(12)
    b = np.array([0.0] * 10 + [0.5, 0.54])
    for interval in ("auto", "calibrated_t", "bootstrap_t", "t", "johnson_t", "hall_t"):
        c = compare_paired(a, b, resamples=2_000, interval=interval)
        assert -1.0 <= c.bootstrap.ci_low <= c.bootstrap.ci_high <= 1.0, interval
    # values outside [0, 1] are not cut
    big = compare_paired(a, b * 10, resamples=2_000, interval="bootstrap_t")
    assert big.bootstrap.ci_high > 1.0
