"""core.calibration (the self-check on the user's data) and a short seeded calibration run of
the default intervals with loose bounds (the long one is bench/calibration.py)."""
import math

import numpy as np
import pytest
from scipy import stats

from core import _kernels
from core.calibration import calibrate_scores, calibrate_table, null_resamples
from core.intervals import (hall_t_interval, johnson_t_interval, paired_proportion_ci,
                            score_intervals, side)
from core.stats import stream_key


def test_table_self_check_is_an_exact_binomial_sum():
    # (10, 7, 3, 11): m = 10 discordant pairs; under the sign-flip null the B-only count is
    # Binomial(10, 1/2). Sum by hand over k with scipy's pmf.
    cal = calibrate_table(10, 7, 3, 11, interval="tango")
    ref = sum(stats.binom.pmf(k, 10, 0.5) for k in range(11)
              if side(*paired_proportion_ci(10, k, 10 - k, 11, method="tango")) != 0)
    assert cal.null_rejection == pytest.approx(ref, abs=1e-12)
    assert (cal.sets, cal.n, cal.exact, cal.mc_se) == (11, 31, True, None)
    d = cal.to_dict()
    assert {"null_rejection", "sets", "n"} <= set(d) and d["promise"] == pytest.approx(0.05)


def test_table_self_check_no_discordant_pairs_never_rejects():
    assert calibrate_table(12, 0, 0, 8, interval="newcombe").null_rejection == 0.0


def test_scores_self_check_is_seeded_and_reports_its_error():
    d = np.random.default_rng(0).normal(size=40)
    a = calibrate_scores(d, interval="expanded_percentile", seed=3, sets=300)
    b = calibrate_scores(d, interval="expanded_percentile", seed=3, sets=300)
    assert a == b
    assert a.resamples == null_resamples(40, 300) and a.sets == 300 and not a.exact
    assert a.mc_se == pytest.approx(math.sqrt(a.null_rejection * (1 - a.null_rejection) / 300))


def test_scores_self_check_t_interval_equals_a_direct_count():
    d = np.random.default_rng(1).exponential(size=15) - 1
    cal = calibrate_scores(d, interval="t", seed=0, sets=500)
    rng = np.random.default_rng([0, 2])
    x = np.abs(d)[None, :] * (2.0 * rng.integers(0, 2, size=(500, d.size)) - 1.0)
    t = stats.t.ppf(0.975, d.size - 1)
    se = x.std(axis=1, ddof=1) / math.sqrt(d.size)
    direct = np.mean(np.abs(x.mean(axis=1)) > t * se)
    assert cal.null_rejection == pytest.approx(direct)


def test_self_check_rejects_bad_arguments():
    with pytest.raises(ValueError):
        calibrate_scores([1.0, 2.0], interval="tango")
    with pytest.raises(ValueError):
        calibrate_table(1, 2, 3, 4, interval="expanded_percentile")
    with pytest.raises(ValueError):
        calibrate_scores([1.0], interval="t")


# ----------------------------------------------------------------------------- short run
def test_short_calibration_run_of_the_score_defaults():
    """400 seeded null sets of n = 20 skewed mean-zero differences (Exp(1) - 1): the
    expanded percentile and the t-interval leave out 0 in 1-11% of sets (Monte-Carlo SE about
    1.1%; the bench has 2,000 sets and the tight goals); the plain percentile is no better."""
    rng = np.random.default_rng(11)
    x = rng.exponential(size=(400, 20)) - 1.0
    boot = _kernels.bootstrap_sets(x, stream_key(5), 1000)
    rates = {}
    for m in ("expanded_percentile", "t", "percentile"):
        lo, hi = score_intervals(x, boot[0], boot[1], 0.95, m)
        rates[m] = float(np.mean(side(lo, hi) != 0))
    assert 0.01 <= rates["expanded_percentile"] <= 0.11
    assert 0.01 <= rates["t"] <= 0.11
    assert rates["percentile"] >= rates["expanded_percentile"]


def test_short_exact_calibration_of_the_table_default():
    """Exact coverage of the Tango interval at n = 31 over p_A x discordance (true difference
    0 and d/3): every cell above 90%, the mean within 93-97.5% (bench goal: >= 94.5%)."""
    n = 31
    i, j = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")
    keep = i + j <= n
    b, c = i[keep], j[keep]
    lo, hi = paired_proportion_ci(n - b - c, b, c, np.zeros_like(b), method="tango")
    covs = []
    for pa in (0.5, 0.7, 0.85):
        for d in (0.05, 0.15, 0.30):
            for delta in (0.0, d / 3):
                p12, p21 = (d + delta) / 2, (d - delta) / 2
                if pa - p21 < 0 or 1 - pa - p12 < 0:
                    continue
                w = stats.multinomial.pmf(np.column_stack([b, c, n - b - c]), n,
                                          [p12, p21, 1 - p12 - p21])
                covs.append(float(np.sum(w * ((lo <= delta + 1e-12) & (delta - 1e-12 <= hi)))))
    assert min(covs) > 0.90
    assert 0.93 <= np.mean(covs) <= 0.975


def test_comparison_self_check_is_skipped_when_it_would_cost_too_much():
    from core.calibration import MAX_SCORE_WORK, calibrate_comparison
    from core.stats import BootstrapResult, paired_data
    n = 400_000
    data = paired_data(np.zeros(n), np.linspace(-1, 1, n))
    bs = BootstrapResult(0.0, -0.01, 0.01, 0.95, 1000, 0, "resample", np.zeros(1000),
                         "expanded_percentile")
    assert 1_000 * n * null_resamples(n, 1_000) > MAX_SCORE_WORK
    assert calibrate_comparison(bs, data) is None
    small = paired_data(np.zeros(40), np.linspace(-1, 1, 40))
    bs_t = BootstrapResult(0.0, -0.1, 0.1, 0.95, 1000, 0, "resample", np.zeros(1000), "t")
    cal = calibrate_comparison(bs_t, small)
    assert cal is not None and cal.interval == "t" and cal.n == 40


@pytest.mark.parametrize("interval", ("johnson_t", "hall_t"))
def test_scores_self_check_skew_t_is_closed_form_and_a_direct_count(interval):
    d = np.random.default_rng(2).exponential(size=14) - 1
    cal = calibrate_scores(d, interval=interval, seed=0, sets=400)
    rng = np.random.default_rng([0, 2])
    x = np.abs(d)[None, :] * (2.0 * rng.integers(0, 2, size=(400, d.size)) - 1.0)
    f = johnson_t_interval if interval == "johnson_t" else hall_t_interval
    lo, hi = f(x, 0.95)
    assert cal.resamples == 0 and cal.interval == interval
    assert cal.null_rejection == pytest.approx(np.mean((lo > 0) | (hi < 0)))


@pytest.mark.parametrize("interval", ["t", "johnson_t", "hall_t"])
def test_scores_self_check_in_blocks_equals_one_draw(monkeypatch, interval):
    """Closed-form intervals run the null sets in blocks of rows (bounded memory, issue 25):
    the sets are drawn row after row from one generator, so the rate is the same number
    whatever the block size (here 7 rows, 1 row, and all sets at once)."""
    import core.calibration as cal_mod

    d = np.random.default_rng(4).normal(0.05, 1.0, 300) * (np.arange(300) % 7 != 0)
    rates = []
    for block in (7 * d.size, d.size, 10 ** 9):
        monkeypatch.setattr(cal_mod, "BLOCK_VALUES", block)
        rates.append(calibrate_scores(d, interval=interval, seed=3, sets=250).null_rejection)
    assert rates[0] == rates[1] == rates[2]
    rng = np.random.default_rng([3, 2])  # the direct count, one (sets x n) draw
    x = np.abs(d)[None, :] * (2.0 * rng.integers(0, 2, size=(250, d.size)) - 1.0)
    if interval == "t":
        t = stats.t.ppf(0.975, d.size - 1)
        se = x.std(axis=1, ddof=1) / math.sqrt(d.size)
        assert rates[0] == np.mean(np.abs(x.mean(axis=1)) > t * se)
