"""core.paired: the verdict rule (CI and exact test must agree, with the reason when they do
not) and ``compare_paired`` against the pieces it is made of (Wilson, the bootstrap, the
paired tests). Assertions name the better method, not the sign of the difference."""
import numpy as np
import pytest
from scipy import stats

from core.paired import (REASONS, Decided, Decision, PairedComparison, compare_paired, decide,
                         rate_estimate)
from core.paired_tests import PairedTest, paired_test, paired_ttest_p
from core.stats import bootstrap_mean, wilson_interval


def _test(p, nonzero=30, name="mcnemar"):
    return PairedTest(name, p, nonzero, True, 0)


def test_decide_names_why_there_is_no_difference():
    assert set(REASONS) == {"ci_includes_zero", "too_few_discordant", "too_few_nonzero",
                            "test_disagrees"}
    inside = decide(-0.1, 0.2, _test(0.3), 0.95)
    assert isinstance(inside, Decision)
    assert (inside.verdict, inside.reason, inside.alpha) == ("no_difference", "ci_includes_zero",
                                                             0.05)
    tiny = decide(0.1, 0.3, _test(0.5, nonzero=4), 0.95)  # 2 * (1/2)^4 = 0.125 >= 0.05
    assert (tiny.verdict, tiny.reason) == ("no_difference", "too_few_discordant")
    assert decide(0.1, 0.3, _test(0.5, 4, "randomization"), 0.95).reason == "too_few_nonzero"
    split = decide(0.1, 0.3, _test(0.2), 0.95)
    assert (split.verdict, split.reason) == ("no_difference", "test_disagrees")


def test_decide_says_better_only_when_ci_and_test_agree():
    up, down = decide(0.1, 0.3, _test(0.01), 0.95), decide(-0.3, -0.1, _test(0.01), 0.95)
    assert up.reason is None and down.reason is None
    assert {up.verdict, down.verdict} == {"a_better", "b_better"}
    assert decide(0.1, 0.3, _test(0.03), 0.99).verdict == "no_difference"  # alpha 0.01
    d = up.to_dict()
    assert d["p"] == 0.01 and d["test"] == "mcnemar" and d["min_p"] == up.min_p
    with pytest.raises(ValueError):
        decide(0.1, 0.3, 0.01, 0.95)


def _binary(seed, n=200, pa=0.55, pb=0.75):
    rng = np.random.default_rng(seed)
    u = rng.random(n)
    return (u < pa).astype(float), (u < pb).astype(float)  # B right wherever A is, and more


def test_compare_paired_binary_is_made_of_wilson_mcnemar_and_the_bootstrap():
    a, b = _binary(0)
    c = compare_paired(a, b, name_a="old", name_b="new", resamples=2000, seed=3)
    assert isinstance(c, PairedComparison) and isinstance(c, Decided) and c.binary
    assert (c.a, c.b, c.n) == ("old", "new", 200)
    assert (c.rate_a.ci_low, c.rate_a.ci_high) == wilson_interval(int(a.sum()), 200, 0.95)
    assert c.rate_b.mean == b.mean() and c.rate_b.successes == int(b.sum())
    both, a_only, b_only, neither = c.table
    assert (both, a_only) == (int(a.sum()), 0) and b_only == int((b > a).sum())
    assert c.discordance == (a_only + b_only) / 200
    assert c.mcnemar_p == paired_test(a, b).p == c.test.p
    assert abs(c.bootstrap.mean) == pytest.approx(b.mean() - a.mean())
    assert c.verdict == "b_better" and c.decision.reason is None
    assert c.ttest_p is None and c.cohens_dz is None
    d = c.difference_dict()
    assert d["table"] == {"both": both, "a_only": a_only, "b_only": b_only, "neither": neither}
    assert d["decision"]["verdict"] == "b_better"


def test_compare_paired_continuous_uses_the_same_numbers_as_its_parts():
    rng = np.random.default_rng(1)
    a = rng.random(80)
    b = np.clip(a + rng.normal(-0.15, 0.1, 80), 0, 1)
    c = compare_paired(a, b, resamples=2000, seed=4)
    assert not c.binary and c.table is None and c.discordance is None
    ref = bootstrap_mean(a, resamples=2000, seed=4)
    assert c.rate_a.mean == pytest.approx(a.mean())
    assert (c.rate_a.ci_low, c.rate_a.ci_high) == pytest.approx((ref.ci_low, ref.ci_high))
    assert c.ttest_p == pytest.approx(stats.ttest_rel(a, b).pvalue) == paired_ttest_p(a, b)
    assert c.randomization_p == c.test.p and c.test.name == "randomization"
    assert c.verdict == "a_better"
    assert c.bootstrap.distribution.shape == (2000,)


def test_compare_paired_checks_its_arguments():
    with pytest.raises(ValueError):
        compare_paired([1.0], [0.0])
    with pytest.raises(ValueError):
        compare_paired([1.0, 0.0], [0.0, 1.0], resamples=0)
    with pytest.raises(ValueError):
        compare_paired([1.0, 0.0], [0.0, 1.0], interval="studentized")


def test_rate_estimate_wilson_for_binary_bootstrap_for_scores():
    x = np.array([1, 0, 1, 1, 0, 1, 1, 1.0])
    r = rate_estimate(x)
    ref = stats.binomtest(6, 8).proportion_ci(0.95, method="wilson")
    assert r.interval == "wilson" and (r.ci_low, r.ci_high) == pytest.approx((ref.low, ref.high))
    s = rate_estimate(x * 0.5 + 0.1, resamples=1000, seed=2)
    ref = bootstrap_mean(x * 0.5 + 0.1, resamples=1000, seed=2)
    assert s.interval == "bootstrap" and (s.ci_low, s.ci_high) == (ref.ci_low, ref.ci_high)
