"""core.paired.ppi (issue 34): PPI++ means and B − A against ``ppi_py`` 0.2.3 (the reference:
``ppi_mean_ci`` / ``ppi_mean_pointestimate`` with lam tuned, to 1e-9), the t version against
scipy's t and Welch's degrees of freedom written out, the test matching the interval, the
effective n and the planner formula against brute force."""
import math
from types import SimpleNamespace

import numpy as np
import pytest
from scipy import stats

from core.paired.ppi import (LAMBDA_NONE, P_FLOOR, PLUS, PSEUDO, PPIEstimate,
                             gold_cases_needed, jeffreys_bounds, mover_limits, ppi_difference,
                             ppi_lambda_rows, ppi_mean, ppi_rows)
from core.paired.difference import tango_limits
from core.paired.stats import verdict

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
    # 0/1 data all 0: lam = 0 and the MOVER interval is Wilson's of 0 in 10 at Student's
    # t(9) quantile (scipy's Wilson at the matching normal level)
    z = ppi_mean(np.zeros(10), np.zeros(10), np.zeros(50))
    level = 2 * stats.norm.cdf(stats.t.ppf(0.975, 9)) - 1
    ci = stats.binomtest(0, 10).proportion_ci(confidence_level=level, method="wilson")
    assert (z.ci_low, z.ci_high) == pytest.approx((ci.low, ci.high), abs=1e-12)
    assert z.lam == 0.0 and z.p_value == 1.0


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
    variance; the gold-only interval gets the same agreeing cases (+1 to its sum of squares).
    Since issue 34's rerun the checked entries use this rule on whole-valued data other than
    0/1 (counts; 0/1 data get the MOVER interval); the row kernel keeps it for the bench."""
    rng = np.random.default_rng(4)
    y = (rng.uniform(size=20) < 0.6).astype(float)
    yu = (rng.uniform(size=300) < 0.62).astype(float)
    r = ppi_rows(y[None], y[None], yu[None], confidence=0.95, pseudo=PSEUDO, plus=PLUS)
    got = SimpleNamespace(**{k: float(r[v][0]) for k, v in (
        ("lam", "lam"), ("se", "se"), ("gold_only_low", "gold_low"),
        ("gold_only_high", "gold_high"), ("estimate", "estimate"))})
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
    # the checked entry takes this rule on counts (whole values other than 0/1) ...
    counts = ppi_mean(y + 2 * (np.arange(20) == 0), y + 2 * (np.arange(20) == 0), yu)
    r2 = ppi_rows((y + 2 * (np.arange(20) == 0))[None], (y + 2 * (np.arange(20) == 0))[None], yu[None],
                  confidence=0.95, pseudo=PSEUDO, plus=PLUS)
    assert (counts.ci_low, counts.ci_high, counts.se) == (
        float(r2["low"][0]), float(r2["high"][0]), float(r2["se"][0])) and not counts.mover
    # ... and the MOVER interval on 0/1 outcomes
    assert ppi_mean(y, y.copy(), yu).mover[0] == "mean"
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


# ----------------------------------------------------------------------------- 0/1: MOVER
def _binary(n=30, m=400, agree=0.9, p=0.6, seed=0, rng=None):
    rng = rng or np.random.default_rng(seed)
    g = (rng.uniform(size=n + m) < p).astype(float)
    c = np.where(rng.uniform(size=n + m) > agree, 1 - g, g)
    return g[:n], c[:n], c[n:]


def _wilson(k, n, q):
    """scipy's Wilson interval at the normal level whose quantile is q."""
    ci = stats.binomtest(int(k), int(n)).proportion_ci(
        confidence_level=2 * stats.norm.cdf(q) - 1, method="wilson")
    return ci.low, ci.high


def _jeffreys(k, n, q):
    tail = stats.norm.cdf(-q)
    return (0.0 if k == 0 else stats.beta.ppf(tail, k + 0.5, n - k + 0.5),
            1.0 if k == n else stats.beta.ppf(1 - tail, k + 0.5, n - k + 0.5))


def _units(d, n, q):
    """Distances down and up of mean(d) for whole-valued d: Jeffreys of the + and - units,
    multinomial MOVER."""
    kp, km = float(np.sum(np.maximum(d, 0))), float(np.sum(np.maximum(-d, 0)))
    pp, pm = kp / n, km / n
    lp, up = _jeffreys(kp, n, q)
    lm, um = _jeffreys(km, n, q)
    r = -math.sqrt(pp * pm / ((1 - pp) * (1 - pm))) if pp < 1 and pm < 1 else 0.0
    return (math.sqrt((pp - lp) ** 2 + (um - pm) ** 2 - 2 * r * (pp - lp) * (um - pm)),
            math.sqrt((up - pp) ** 2 + (pm - lm) ** 2 - 2 * r * (up - pp) * (pm - lm)))


def _mover(est, lam, part1, part2, units, r):
    """MOVER (Zou & Donner 2008) of lam p1 + (1 - lam) p2 + lam d; part = (est, low, high)."""
    l1, u1 = lam * (part1[0] - part1[1]), lam * (part1[2] - part1[0])
    l2, u2 = (1 - lam) * (part2[0] - part2[1]), (1 - lam) * (part2[2] - part2[0])
    l3, u3 = lam * units[0], lam * units[1]
    return (est - math.sqrt(l1 ** 2 + l2 ** 2 + l3 ** 2 + 2 * r * l2 * l3),
            est + math.sqrt(u1 ** 2 + u2 ** 2 + u3 ** 2 + 2 * r * u2 * u3))


def test_jeffreys_bounds_equal_scipy_beta_quantiles():
    for k, n in [(0, 20), (1, 20), (7, 20), (20, 20), (3, 50)]:
        lo, hi = jeffreys_bounds(k, n, 0.025)
        ref = (0.0 if k == 0 else stats.beta.ppf(0.025, k + 0.5, n - k + 0.5),
               1.0 if k == n else stats.beta.ppf(0.975, k + 0.5, n - k + 0.5))
        assert (float(lo), float(hi)) == pytest.approx(ref, abs=1e-12)


@pytest.mark.parametrize("seed, confidence", [(0, 0.95), (1, 0.9), (2, 0.95), (3, 0.95)])
def test_zero_one_mean_is_jeffreys_mover_2_written_out(seed, confidence):
    """A 0/1 mean: Wilson (z) for the cheap-only mean, Wilson at Student's t(n - 1) quantile
    for the gold mean, Jeffreys (scipy's beta quantiles at the tail Phi(-q)) for the + and -
    disagreements, combined by MOVER with the sample correlation of gold and gold - cheap."""
    y, yh, yu = _binary(n=25 + 10 * seed, seed=seed)
    got = ppi_mean(y, yh, yu, confidence=confidence)
    n, m, lam = y.size, yu.size, got.lam
    assert got.mover and got.mover[0] == "mean" and 0 < lam < 1
    assert lam == pytest.approx(ppi_lambda_rows(y[None], yh[None], yu[None])[0], abs=1e-15)
    z, q = stats.norm.ppf(0.5 + confidence / 2), stats.t.ppf(0.5 + confidence / 2, n - 1)
    d = y - yh
    est = lam * yu.mean() + (1 - lam) * y.mean() + lam * d.mean()
    r = np.corrcoef(y, d)[0, 1] if np.ptp(d) > 0 else 0.0
    low, high = _mover(est, lam, (yu.mean(), *_wilson(yu.sum(), m, z)),
                       (y.mean(), *_wilson(y.sum(), n, q)), _units(d, n, q), r)
    assert got.estimate == pytest.approx(est, abs=1e-14)
    assert (got.ci_low, got.ci_high) == pytest.approx((low, high), abs=1e-9)
    # gold-only beside it: the same rule at lam = 0, W_0 = Wilson's interval of the gold
    # cases at Student's quantile (scipy)
    assert (got.gold_only_low, got.gold_only_high) == pytest.approx(
        _wilson(y.sum(), n, q), abs=1e-12)
    # worth about n (W_0 / PPI width)^2 gold cases
    w0 = np.subtract(*_wilson(y.sum(), n, q)[::-1])
    assert got.width_ratio == pytest.approx((high - low) / w0, rel=1e-9)
    assert got.effective_n == pytest.approx(n * (w0 / (high - low)) ** 2, rel=1e-8)
    assert math.isnan(got.se) and got.interval_name == "ppi++_mover_t"
    assert got.to_dict()["interval"] == "ppi++_mover_t"


def test_the_normal_tail_variant_changes_only_the_disagreements():
    """``mover_limits(..., disagreement_quantile="z")`` (bench/ppi_binary_tails.py's rejected
    variant) puts the disagreements' Jeffreys intervals at the normal tail and keeps Student's
    quantile in the gold part: the hand formula with z in ``_units``, narrower than the
    product's, and at lam 0 (W_0) the same interval."""
    y, yh, yu = _binary(n=25, seed=4)
    got = ppi_mean(y, yh, yu)
    n, m, lam = y.size, yu.size, got.lam
    z, q = stats.norm.ppf(0.975), stats.t.ppf(0.975, n - 1)
    d = y - yh
    r = np.corrcoef(y, d)[0, 1] if np.ptp(d) > 0 else 0.0
    want = _mover(got.estimate, lam, (yu.mean(), *_wilson(yu.sum(), m, z)),
                  (y.mean(), *_wilson(y.sum(), n, q)), _units(d, n, z), r)
    lo, hi = mover_limits(got.mover, got.estimate, 0.95, disagreement_quantile="z")
    assert (float(lo[0]), float(hi[0])) == pytest.approx(want, abs=1e-9)
    assert hi[0] - lo[0] < got.ci_high - got.ci_low - 1e-6
    at0 = (*got.mover[:3], 0.0, *got.mover[4:])
    assert np.allclose(mover_limits(at0, y.mean(), 0.95, disagreement_quantile="z"),
                       mover_limits(at0, y.mean(), 0.95), atol=1e-15)
    with pytest.raises(ValueError, match="disagreement_quantile"):
        mover_limits(got.mover, got.estimate, 0.95, disagreement_quantile="normal")


def test_uncorrelated_zero_one_cheap_labels_are_worth_no_gold_cases():
    """Cheap labels unrelated to gold, lam 0: "worth about" stays at n and the interval is the
    gold-only one beside it (W_0), not narrower than it."""
    rng = np.random.default_rng(31)
    y = (rng.uniform(size=20) < 0.6).astype(float)
    yh = (rng.uniform(size=20) < 0.6).astype(float)
    got = ppi_mean(y, yh, (rng.uniform(size=1000) < 0.6).astype(float), lam=0.0)
    assert got.mover and got.effective_n == pytest.approx(20, rel=1e-12) and not got.helps
    assert (got.ci_low, got.ci_high) == pytest.approx(
        (got.gold_only_low, got.gold_only_high), abs=1e-12)
    assert got.width_ratio == pytest.approx(1, abs=1e-12)
    # W_0 is Wilson's interval of the gold cases at Student's t(19) quantile, by hand
    q, k, n = stats.t.ppf(0.975, 19), y.sum(), 20
    p, den = k / n, 1 + q * q / n
    mid = (p + q * q / (2 * n)) / den
    half = q * math.sqrt(p * (1 - p) / n + q * q / (4 * n * n)) / den
    assert (got.gold_only_low, got.gold_only_high) == pytest.approx((mid - half, mid + half),
                                                                    abs=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_cheap_labels_without_information_give_the_gold_only_interval(seed):
    """Constant cheap labels (lam tuned to 0): the PPI interval of a 0/1 mean and of B − A is
    the gold-only interval shown beside it to 1e-12, the verdicts from the two agree, the
    inverted test matches it, and "worth about" is n."""
    rng = np.random.default_rng(seed)
    n = 20 + 10 * seed
    ga = (rng.uniform(size=n) < 0.5).astype(float)
    gb = (rng.uniform(size=n) < 0.5 + 0.3 * (seed == 2)).astype(float)
    const, rest = np.ones(n), np.ones(300)
    for e in (ppi_mean(gb, const, rest),
              ppi_difference(ga, gb, const, const, rest, rest)):
        assert e.mover and e.lam == 0 and not e.helps
        assert (e.ci_low, e.ci_high) == pytest.approx((e.gold_only_low, e.gold_only_high),
                                                      abs=1e-12)
        assert e.estimate == pytest.approx(e.gold_only_estimate, abs=1e-15)
        assert e.effective_n == pytest.approx(n, rel=1e-12)
        assert verdict(e.ci_low, e.ci_high, e.p_value, confidence=0.95) == verdict(
            e.gold_only_low, e.gold_only_high)
        assert (e.p_value < 0.05) == (e.gold_only_low > 0 or e.gold_only_high < 0)
    q = stats.t.ppf(0.975, n - 1)
    G = gb - ga
    lo, hi = tango_limits(float(np.sum(G == 1)), float(np.sum(G == -1)), float(n), q)
    assert (e.gold_only_low, e.gold_only_high) == pytest.approx((lo, hi), abs=1e-12)


def test_zero_one_difference_is_jeffreys_mover_2_with_tango_parts():
    """B − A of 0/1 outcomes: Tango's paired interval (z) for cheap B vs cheap A on the
    cheap-only cases, Tango at Student's quantile for gold B vs gold A, Jeffreys units of
    (gold B − A) − (cheap B − A)."""
    rng = np.random.default_rng(13)
    ga, ca, ra = _binary(n=40, m=500, rng=rng)
    gb, cb, rb = _binary(n=40, m=500, p=0.7, rng=rng)
    got = ppi_difference(ga, gb, ca, cb, ra, rb)
    G, F, R = gb - ga, cb - ca, rb - ra
    n, m, lam = 40, 500, got.lam
    z, q = stats.norm.ppf(0.975), stats.t.ppf(0.975, n - 1)

    def tango(v, zq):
        lo, hi = tango_limits(float(np.sum(v == 1)), float(np.sum(v == -1)), float(v.size), zq)
        return v.mean(), lo, hi
    est = lam * R.mean() + (1 - lam) * G.mean() + lam * (G - F).mean()
    low, high = _mover(est, lam, tango(R, z), tango(G, q), _units(G - F, n, q),
                       np.corrcoef(G, G - F)[0, 1])
    assert got.mover[0] == "difference" and 0 < lam < 1
    assert (got.ci_low, got.ci_high) == pytest.approx((low, high), abs=1e-9)
    w0 = tango(G, q)[2] - tango(G, q)[1]        # the same rule at lam = 0: gold-only Tango
    assert got.effective_n == pytest.approx(n * (w0 / (high - low)) ** 2, rel=1e-8)
    assert got.estimate == pytest.approx(est, abs=1e-14)
    # the rows kernel gives the same interval
    r = ppi_rows(G[None], F[None], R[None], confidence=0.95, plus=PLUS, mover="difference")
    assert (float(r["low"][0]), float(r["high"][0])) == pytest.approx(
        (got.ci_low, got.ci_high), abs=1e-9)
    # gold-only beside it: W_0, gold-only Tango at Student's quantile, in both
    assert (got.gold_only_low, got.gold_only_high) == pytest.approx(tango(G, q)[1:], abs=1e-12)
    assert (float(r["w0_low"][0]), float(r["w0_high"][0])) == pytest.approx(
        tango(G, q)[1:], abs=1e-12)


def _pair(rng, n, shift):
    ga, ca, ra = _binary(n=n, m=300, p=0.55, rng=rng)
    gb, cb, rb = _binary(n=n, m=300, p=0.55 + shift, rng=rng)
    return ga, gb, ca, cb, ra, rb


@pytest.mark.parametrize("confidence", [0.9, 0.95])
def test_mover_test_is_its_interval_inverted(confidence):
    """The interval excludes 0 exactly when p < 1 - confidence; p is where 0 leaves the
    interval: a little wider holds 0, a little narrower does not."""
    rng = np.random.default_rng(21)
    alpha, seen = 1 - confidence, set()
    for i in range(40):
        d = ppi_difference(*_pair(rng, 20 + 15 * (i % 3), rng.uniform(-0.1, 0.35)),
                           confidence=confidence)
        assert d.mover
        assert d.interval_at(confidence) == (d.ci_low, d.ci_high)
        excluded = d.ci_low > 0 or d.ci_high < 0
        assert excluded == (d.p_value < alpha)
        seen.add(excluded)
        if P_FLOOR < d.p_value < 1:
            lo, hi = d.interval_at(1 - d.p_value * (1 - 1e-6))
            assert lo <= 0 <= hi
            lo, hi = d.interval_at(1 - d.p_value * (1 + 1e-6))
            assert lo > 0 or hi < 0
    assert seen == {True, False}


def test_mover_p_above_is_the_lower_end_inverted():
    rng = np.random.default_rng(22)
    d = ppi_difference(*_pair(rng, 30, 0.1))
    assert d.mover and d.p_above(d.estimate) == 0.5
    ps = []
    for limit in np.linspace(d.estimate - 0.3, d.estimate + 0.3, 25):
        p = d.p_above(limit)
        assert (d.ci_low > limit) == (p < 0.025)
        ps.append(p)
    assert np.all(np.diff(ps) >= 0)      # a higher limit is harder to clear
    assert ps[0] < 0.025 < ps[-1] and ps[-1] > 0.5


def test_t_interval_at_its_own_confidence_is_the_reported_one():
    y, yh, yu = _data(n=30, m=300)
    e = ppi_mean(y, yh, yu, confidence=0.9)
    assert e.interval_at(0.9) == pytest.approx((e.ci_low, e.ci_high), abs=1e-12)
    assert not e.mover and e.interval_name == "ppi++_t" and e.test_name == "ppi++ t-test"
