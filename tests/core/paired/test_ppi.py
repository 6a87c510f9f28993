"""core.paired.ppi (issue 34): PPI++ means and B − A against ``ppi_py`` 0.2.3 (the reference:
``ppi_mean_ci`` / ``ppi_mean_pointestimate`` with lam tuned, to 1e-9), the t version against
scipy's t and Welch's degrees of freedom written out, the test matching the interval, the
effective n and the planner formula against brute force."""
import math

import numpy as np
import pytest
from scipy import stats

from core.paired.ppi import (LAMBDA_NONE, PPIEstimate, gold_cases_needed, ppi_difference,
                             ppi_lambda_rows, ppi_mean, ppi_rows)

ppi_py = pytest.importorskip("ppi_py")


def _data(n=400, m=4000, rho=0.8, bias=0.07, seed=3):
    rng = np.random.default_rng(seed)
    z = rng.standard_normal(n + m)
    zh = rho * z + math.sqrt(1 - rho ** 2) * rng.standard_normal(n + m)
    y = 0.5 + 0.2 * z
    yh = 0.5 + 0.2 * zh + bias
    return y[:n], yh[:n], yh[n:]


@pytest.mark.parametrize("rho", [0.0, 0.3, 0.8, 0.95])
@pytest.mark.parametrize("confidence", [0.9, 0.95])
def test_z_method_equals_ppi_py_with_lambda_tuning(rho, confidence):
    y, yh, yu = _data(rho=rho)
    lo, hi = ppi_py.ppi_mean_ci(y, yh, yu, alpha=1 - confidence)
    point = ppi_py.ppi_mean_pointestimate(y, yh, yu)
    got = ppi_mean(y, yh, yu, confidence=confidence, method="z")
    assert got.ci_low == pytest.approx(float(np.ravel(lo)[0]), abs=1e-9)
    assert got.ci_high == pytest.approx(float(np.ravel(hi)[0]), abs=1e-9)
    assert got.estimate == pytest.approx(float(np.ravel(point)[0]), abs=1e-9)


def test_lambda_equals_ppi_py_calc_lam_glm():
    from ppi_py.ppi import _calc_lam_glm
    y, yh, yu = _data(n=60, m=500, rho=0.6)
    theta = float(np.ravel(ppi_py.ppi_mean_pointestimate(y, yh, yu, lam=1))[0])
    ref = _calc_lam_glm(y - theta, yh - theta, yu - theta, np.eye(1), clip=True)
    assert ppi_lambda_rows(y[None], yh[None], yu[None])[0] == pytest.approx(ref, abs=1e-12)


def test_fixed_lambda_zero_and_one_equal_ppi_py():
    y, yh, yu = _data(n=80, m=800)
    for lam in (0.0, 1.0, 0.4):
        lo, hi = ppi_py.ppi_mean_ci(y, yh, yu, alpha=0.05, lam=lam)
        got = ppi_mean(y, yh, yu, method="z", lam=lam)
        assert (got.ci_low, got.ci_high) == pytest.approx(
            (float(np.ravel(lo)[0]), float(np.ravel(hi)[0])), abs=1e-12)


def test_t_method_is_welch_t_written_out():
    y, yh, yu = _data(n=25, m=300, rho=0.7)
    got = ppi_mean(y, yh, yu, confidence=0.95)
    lam = got.lam
    n, m = y.size, yu.size
    assert lam > 0
    a = lam ** 2 * np.var(yu, ddof=1) / m
    b = np.var(y - lam * yh, ddof=2) / n      # lam tuned on these cases: one more df spent
    # ... and lam's own variance (the least-squares slope's, s_e^2 / S_xx) times the slope of
    # the estimate in lam, (mean(yh) - mean(yu))^2
    s_e2 = np.var(y - lam * yh, ddof=2)
    b += s_e2 / np.sum((yh - yh.mean()) ** 2) * (yh.mean() - yu.mean()) ** 2
    df = (a + b) ** 2 / (a ** 2 / (m - 1) + b ** 2 / (n - 2))
    est = lam * yu.mean() + np.mean(y - lam * yh)
    q = stats.t.ppf(0.975, df)
    assert got.df == pytest.approx(df, rel=1e-12)
    assert (got.ci_low, got.ci_high) == pytest.approx(
        (est - q * math.sqrt(a + b), est + q * math.sqrt(a + b)), abs=1e-12)
    assert got.p_value == pytest.approx(2 * stats.t.sf(abs(est) / math.sqrt(a + b), df),
                                        rel=1e-9)
    # gold-only beside it: the plain t-interval of the gold scores (scipy)
    lo, hi = stats.t.interval(0.95, n - 1, loc=y.mean(), scale=stats.sem(y))
    assert (got.gold_only_low, got.gold_only_high) == pytest.approx((lo, hi), abs=1e-12)
    assert got.effective_n == pytest.approx(n * np.var(y, ddof=1) / n / (a + b), rel=1e-12)
    assert got.correlation == pytest.approx(np.corrcoef(y, yh)[0, 1], abs=1e-12)
    assert got.n_gold == 25 and got.n_cheap == 325


def test_lambda_zero_is_gold_only_exactly():
    y, yh, yu = _data(n=30, m=300)
    got = ppi_mean(y, yh, yu, lam=0.0)
    assert (got.ci_low, got.ci_high) == (got.gold_only_low, got.gold_only_high)
    assert got.effective_n == pytest.approx(30) and not got.helps


def test_uncorrelated_cheap_labels_do_not_help():
    y, yh, yu = _data(n=200, m=2000, rho=0.0, seed=11)
    got = ppi_mean(y, yh, yu)
    assert got.lam < 0.1 and not got.helps
    assert got.effective_n < 1.05 * got.n_gold and got.width_ratio < 1.02
    strong = ppi_mean(*_data(n=200, m=2000, rho=0.8, seed=11))
    assert strong.lam > LAMBDA_NONE and strong.helps and strong.width_ratio < 0.8


def test_interval_and_test_agree():
    """The interval excludes 0 exactly when p < 1 - confidence (same statistic)."""
    rng = np.random.default_rng(5)
    for _ in range(200):
        n, m = 20, 200
        shift = rng.uniform(-0.3, 0.3)
        y = rng.normal(shift, 1, n)
        yh = y + rng.normal(0.2, 0.7, n)
        yu = rng.normal(shift + 0.2, 1.2, m)
        e = ppi_mean(y, yh, yu)
        assert (e.ci_low > 0 or e.ci_high < 0) == (e.p_value < 0.05)


def test_difference_is_ppi_of_the_per_case_difference_and_removes_system_bias():
    rng = np.random.default_rng(8)
    n, m = 50, 500
    a = rng.uniform(0, 1, n + m)
    b = np.clip(a + rng.normal(0.05, 0.1, n + m), 0, 1)
    ca = a + 0.1 + rng.normal(0, 0.05, n + m)   # the cheap labels flatter A by 0.1 ...
    cb = b + 0.0 + rng.normal(0, 0.05, n + m)   # ... and B not at all
    d = ppi_difference(a[:n], b[:n], ca[:n], cb[:n], ca[n:], cb[n:])
    same = ppi_mean(b[:n] - a[:n], cb[:n] - ca[:n], cb[n:] - ca[n:])
    assert d == same
    # the cheap-only difference is off by -0.1; the PPI estimate is not
    assert abs(np.mean(cb - ca) - np.mean(b - a) + 0.1) < 0.02
    assert d.ci_low <= np.mean(b - a) <= d.ci_high


def test_to_dict_holds_the_ppi_block():
    y, yh, yu = _data(n=40, m=400)
    e = ppi_mean(y, yh, yu)
    d = e.to_dict()
    assert set(d) == {"lambda", "correlation", "n_gold", "n_cheap", "effective_n", "interval",
                      "p_value", "gold_only"}
    assert d["gold_only"] == {"estimate": e.gold_only_estimate, "ci_low": e.gold_only_low,
                              "ci_high": e.gold_only_high}
    assert d["interval"] == "ppi++_t" and isinstance(e, PPIEstimate)


def test_constant_values_give_a_point_and_p_of_one_or_zero():
    y = np.full(10, 0.25)
    e = ppi_mean(y, y, np.full(50, 0.25))
    assert (e.ci_low, e.ci_high, e.p_value, e.lam) == (0.25, 0.25, 0.0, 0.0)
    assert e.correlation is None
    # 0/1 data all 0: Agresti & Coull's pseudo cases keep the interval from collapsing
    z = ppi_mean(np.zeros(10), np.zeros(10), np.zeros(50))
    half = stats.t.ppf(0.975, 9) * math.sqrt(1 / 9 / 10)
    assert (z.ci_low, z.ci_high) == pytest.approx((-half, half), abs=1e-12)
    assert z.p_value == 1.0


def test_rows_equal_single_calls():
    rng = np.random.default_rng(2)
    y, yh, yu = rng.normal(size=(4, 20)), rng.normal(size=(4, 20)), rng.normal(size=(4, 90))
    r = ppi_rows(y, yh, yu, confidence=0.95)
    for s in range(4):
        e = ppi_mean(y[s], yh[s], yu[s])
        assert (e.ci_low, e.ci_high) == pytest.approx((r["low"][s], r["high"][s]), abs=1e-14)


@pytest.mark.parametrize("bad, match", [
    (dict(gold=[1.0, 2.0]), "gold needs at least 3"),
    (dict(cheap_gold=[1.0, 2.0, 3.0, 4.0]), "same length|gold and cheap_gold"),
    (dict(cheap_rest=[1.0]), "cheap_rest needs at least 2"),
    (dict(method="bootstrap"), "method"),
    (dict(confidence=1.5), "confidence"),
    (dict(lam=1.5), "lam"),
    (dict(gold=[1.0, float("nan"), 2.0]), "NaN"),
])
def test_bad_arguments_name_themselves(bad, match):
    args = dict(gold=[1.0, 2.0, 3.0], cheap_gold=[1.0, 2.0, 2.0], cheap_rest=[1.0, 2.0, 3.0])
    args.update(bad)
    with pytest.raises(ValueError, match=match):
        ppi_mean(**args)


def test_gold_cases_needed_matches_the_variance_formula_by_search():
    for n0, m, rho in [(100, 500, 0.8), (50, 1000, 0.5), (200, 300, 0.9), (30, 1000, 0.0)]:
        got = gold_cases_needed(n0, m, rho)
        # smallest n whose PPI++ variance (1 - rho^2 M/(M+n))/n is at most gold-only 1/n0
        brute = next(n for n in range(3, n0 + 1)
                     if (1 - rho ** 2 * m / (m + n)) / n <= 1 / n0 + 1e-15)
        assert got == brute
    assert gold_cases_needed(100, 0, 0.9) == 100
    assert gold_cases_needed(100, 500, 0.0) == 100


def test_zero_one_data_add_pseudo_cases_to_the_rectifier_variance():
    """0/1 gold and cheap labels that agree on every gold case: the rectifier's sum of squares
    gets lam^2 (one pseudo disagreement, half at +lam, half at -lam) and (1 - lam)^2 (Agresti &
    Coull's four agreeing cases at +/- 1/2), n + 1 - 2 df (lam tuned), plus the tuned lam's
    variance; the gold-only interval gets the same agreeing cases (+1 to its sum of squares)."""
    rng = np.random.default_rng(4)
    y = (rng.uniform(size=20) < 0.6).astype(float)
    yu = (rng.uniform(size=300) < 0.62).astype(float)
    got = ppi_mean(y, y.copy(), yu)
    lam, n, m = got.lam, 20, 300
    rect = y - lam * y
    a = lam ** 2 * np.var(yu, ddof=1) / m
    ss = np.sum((rect - rect.mean()) ** 2) + lam ** 2 + (1 - lam) ** 2
    b = ss / (n + 1 - 2) / n + ss / (n + 1 - 2) / np.sum((y - y.mean()) ** 2) * (
        y.mean() - yu.mean()) ** 2
    assert got.se == pytest.approx(math.sqrt(a + b), rel=1e-12)
    gold_se = math.sqrt((np.sum((y - y.mean()) ** 2) + 1) / (n - 1) / n)
    q = stats.t.ppf(0.975, n - 1)
    assert (got.gold_only_low, got.gold_only_high) == pytest.approx(
        (y.mean() - q * gold_se, y.mean() + q * gold_se), abs=1e-12)
    plain = ppi_rows(y[None], y[None], yu[None], confidence=0.95)
    assert got.se > float(plain["se"][0])
    assert got.estimate == pytest.approx(float(plain["estimate"][0]), abs=1e-15)
    # the z method stays ppi_py's, pseudo-free
    lo, hi = ppi_py.ppi_mean_ci(y, y.copy(), yu, alpha=0.05)
    z = ppi_mean(y, y.copy(), yu, method="z")
    assert (z.ci_low, z.ci_high) == pytest.approx((float(np.ravel(lo)[0]),
                                                   float(np.ravel(hi)[0])), abs=1e-9)


def test_a_fixed_lambda_spends_no_extra_degree_of_freedom():
    y, yh, yu = _data(n=25, m=300, rho=0.7)
    got = ppi_mean(y, yh, yu, lam=0.5)
    a = 0.25 * np.var(yu, ddof=1) / 300
    b = np.var(y - 0.5 * yh, ddof=1) / 25
    assert got.se == pytest.approx(math.sqrt(a + b), rel=1e-12)
    assert got.df == pytest.approx((a + b) ** 2 / (a ** 2 / 299 + b ** 2 / 24), rel=1e-12)
