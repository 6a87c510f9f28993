"""Confidence intervals for a paired difference that hold their level at 10-30 cases.

Two families, each chosen by the simulation in ``bench/calibration.py`` (table in
``docs/calibration.md``):

* **0/1 outcomes** (a paired 2x2 table): closed-form intervals for the difference of two paired
  proportions, compared by Fagerland, Lydersen & Laake (2014, "Recommended tests and confidence
  intervals for paired binomial proportions", *Statistics in Medicine* 33:2850-2875):
  Newcombe's square-and-add (MOVER) Wilson interval (Newcombe 1998, method 10), Tango's
  asymptotic score interval (Tango 1998) and the Bonett-Price adjusted Wald interval (Bonett &
  Price 2012), with the plain Wald interval for reference;
* **scores** (continuous per-case values): intervals read off a bootstrap of the mean
  (Efron & Tibshirani 1993): percentile (ch. 13), BCa (ch. 14), Hesterberg's expanded
  percentile (Hesterberg 2015), the studentized bootstrap-t (ch. 12), the t-interval and two
  closed-form skewness-corrected t-intervals (Johnson 1978; Hall 1992).

Notation (Fagerland et al.): a paired 2x2 table ``n11, n12, n21, n22`` with N cases; the
difference is delta = (n12 - n21) / N = pi_1+ - pi_+1. The functions do not know which
method is which: pass n12 = "only the new method right" and n21 = "only the baseline right" to
get an interval of B - A. Every table function takes scalars or equal-shape integer arrays
(so the bench evaluates every possible table at once) and returns ``(low, high)``.

Functions validate their arguments once (``core.checks``); the ``*_from_boot`` helpers take
bootstrap output the caller built and trust it.
"""
from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

from core import checks
from core.paired.skew_intervals import (calibrated_t_interval, hall_t_interval,  # noqa: F401
                                 johnson_t_interval, quantiles_rows, t_quantile)

PAIRED_PROPORTION_METHODS = ("tango", "newcombe", "bonett_price", "wald")
SCORE_METHODS = ("calibrated_t", "expanded_percentile", "bootstrap_t", "t", "johnson_t", "hall_t",
                 "percentile", "bca")
SKEW_T_METHODS = ("johnson_t", "hall_t")   # closed-form skewness-corrected t-intervals
CLOSED_FORM_METHODS = ("t",) + SKEW_T_METHODS   # score intervals that need no bootstrap
STUDENTIZED_METHODS = ("calibrated_t", "bootstrap_t")   # need the resamples' SDs too
BCA_MIN_N = 50     # below this many cases BCa under-covers (docs/calibration.md): warn
_NORMAL = NormalDist()


def z_two_sided(confidence: float) -> float:
    """z with P(|Z| <= z) = confidence (standard normal; ``statistics.NormalDist``, Wichura's
    AS241): the one normal quantile of a confidence level, checked; ``z_of`` trusts it."""
    return z_of(checks.confidence(confidence))


def z_of(confidence: float) -> float:
    """``z_two_sided`` of a confidence the caller checked (``core.checks.confidence`` at its
    public door): the same number, no check again."""
    return _NORMAL.inv_cdf(0.5 + confidence / 2)


# ----------------------------------------------------------------------------- Wilson
def wilson_bounds(successes, n, z: float):
    """Wilson (1927) score interval of a proportion, vectorised; the one Wilson formula here.

    With p = k/n::

        centre = (p + z^2/(2n)) / (1 + z^2/n)
        half   = z / (1 + z^2/n) * sqrt(p(1-p)/n + z^2/(4n^2))

    Returns (centre - half, centre + half, half). The bounds stay in [0, 1] without clipping
    (up to rounding, clipped). Callers validate; ``core.paired.stats.wilson_interval`` is the checked
    entry and equals ``scipy.stats.binomtest(k, n).proportion_ci(method="wilson")``.
    """
    k = np.asarray(successes, dtype=float)
    n = np.asarray(n, dtype=float)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z / denom * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return np.clip(centre - half, 0.0, 1.0), np.clip(centre + half, 0.0, 1.0), half


# ----------------------------------------------------------------------------- scores
def expanded_level(n: int, confidence: float) -> float:
    """Hesterberg's expanded percentile level (Hesterberg 2015, "What teachers should know
    about the bootstrap", *The American Statistician* 69:371-386, section 6.4): read the
    percentile interval at the tail share alpha'/2 instead of alpha/2, with

        alpha'/2 = Phi(-sqrt(n / (n - 1)) * t(1 - alpha/2, n - 1))

    which widens the interval by the t-quantile and the sqrt(n/(n-1)) bias of the plug-in SD
    (the bootstrap's narrowness bias at small n). Returns the confidence 1 - alpha'."""
    n = checks.whole("n", n, lo=2)
    alpha = 1 - checks.confidence(confidence)
    t = float(t_quantile(1 - alpha / 2, n - 1))
    return 1 - 2 * _NORMAL.cdf(-math.sqrt(n / (n - 1)) * t)


def score_intervals(values, boot_means, boot_sds, confidence: float, method: str, *,
                    skew_guard: bool = False):
    """The ``method`` interval of the mean of each row of ``values`` (S sets of n cases), from
    that set's bootstrap: ``boot_means[s, r]`` and ``boot_sds[s, r]`` (mean and SD, ddof 1,
    of resample r of set s; rows need not be sorted). One code path for the displayed interval
    (S = 1) and the calibration self-check (S null sets). Returns arrays (low, high) of
    length S. With alpha = 1 - confidence, xbar the mean and se = sd / sqrt(n):

    * ``percentile``: the alpha/2 and 1 - alpha/2 quantiles of the resampled means (Efron &
      Tibshirani 1993, ch. 13);
    * ``expanded_percentile``: the same at Hesterberg's alpha'/2 (``expanded_level``);
    * ``bootstrap_t``: xbar - t*(1 - alpha/2) se, xbar - t*(alpha/2) se with the studentized
      resamples t* = (mean* - xbar)/(sd*/sqrt(n)) (Efron & Tibshirani 1993, ch. 12.5;
      resamples with sd* = 0 count as t* = +/-inf, or 0 when mean* = xbar);
    * ``t``: xbar +/- t(1 - alpha/2, n - 1) se (Student 1908; no bootstrap);
    * ``calibrated_t``: the t-interval, each end widened to the bootstrap-t's when that is
      further out (``calibrated_t_interval``; the default for scores); with ``skew_guard``
      (the interval of a paired difference B - A and its self-check, issue 36) also to the
      skew guard's (``core.paired.skew_intervals.skew_guard_interval``);
    * ``johnson_t`` / ``hall_t``: the skewness-corrected t-intervals of Johnson (1978) and
      Hall (1992), closed forms in ``johnson_t_interval`` / ``hall_t_interval`` (no bootstrap);
    * ``bca``: bias-corrected and accelerated percentiles (Efron & Tibshirani 1993, eq. 14.15;
      ``core.paired.resampling.bca_ci``), with the jackknife acceleration of a mean,
      a = sum(u^3) / (6 (sum u^2)^1.5), u_i = x_i - xbar. Falls back to percentile where
      undefined. Below ``BCA_MIN_N`` cases it under-covers: callers warn.
    """
    return interval_of_means(values, boot_means, boot_sds, checks.confidence(confidence),
                             checks.choice("method", method, SCORE_METHODS),
                             skew_guard=skew_guard)


def interval_of_means(values, boot_means, boot_sds, confidence: float, method: str, *,
                      skew_guard: bool = False):
    """``score_intervals`` for a ``confidence`` and ``method`` the caller checked (the
    displayed interval, ``core.paired.difference.interval_of_difference``; the self-check's null
    sets, ``core.paired.calibration``): the same intervals, no check again."""
    x = np.atleast_2d(np.asarray(values, dtype=float))
    if method not in ("t", "bootstrap_t", "calibrated_t") + SKEW_T_METHODS:
        means = np.sort(np.atleast_2d(np.asarray(boot_means, dtype=float)), axis=1)
    S, n = x.shape
    alpha = 1 - confidence
    xbar = x.mean(axis=1)
    if method == "t":
        if n < 2:
            return xbar.copy(), xbar.copy()
        se = x.std(axis=1, ddof=1) / math.sqrt(n)
        t = float(t_quantile(1 - alpha / 2, n - 1))
        return xbar - t * se, xbar + t * se
    if method == "calibrated_t":
        return calibrated_t_interval(x, boot_means, boot_sds, confidence,
                                     skew_guard=skew_guard)
    if method in SKEW_T_METHODS:
        if n < 2:
            return xbar.copy(), xbar.copy()
        f = johnson_t_interval if method == "johnson_t" else hall_t_interval
        return f(x, confidence)
    if method == "percentile" or (method == "expanded_percentile" and n < 2):
        return quantiles_rows(means, alpha / 2), quantiles_rows(means, 1 - alpha / 2)
    if method == "expanded_percentile":
        a2 = (1 - expanded_level(n, confidence)) / 2
        return quantiles_rows(means, a2), quantiles_rows(means, 1 - a2)
    if method == "bootstrap_t":
        sds = np.atleast_2d(np.asarray(boot_sds, dtype=float))
        raw = np.atleast_2d(np.asarray(boot_means, dtype=float))
        se = x.std(axis=1, ddof=1) / math.sqrt(n) if n >= 2 else np.zeros(S)
        diff = raw - xbar[:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            tstar = np.where(sds > 0, diff / (sds / math.sqrt(n)),
                             np.where(diff > 0, np.inf, np.where(diff < 0, -np.inf, 0.0)))
        tstar.sort(axis=1)
        t_hi = quantiles_rows(tstar, 1 - alpha / 2)
        t_lo = quantiles_rows(tstar, alpha / 2)
        with np.errstate(invalid="ignore"):
            lo = np.where(se > 0, xbar - t_hi * se, xbar)
            hi = np.where(se > 0, xbar - t_lo * se, xbar)
        return lo, hi
    # bca
    B = means.shape[1]
    share = (np.sum(means < xbar[:, None], axis=1) + np.sum(means <= xbar[:, None], axis=1)) \
        / (2 * B)
    u = x - xbar[:, None]
    den = np.sum(u * u, axis=1)
    ok = (den > 0) & (share > 0) & (share < 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        acc = np.where(ok, np.sum(u ** 3, axis=1) / (6 * den ** 1.5), 0.0)
    inv = np.vectorize(lambda s: _NORMAL.inv_cdf(s) if 0 < s < 1 else 0.0, otypes=[float])
    cdf = np.vectorize(_NORMAL.cdf, otypes=[float])
    z0 = inv(share)
    zl = _NORMAL.inv_cdf(alpha / 2)
    a1 = cdf(z0 + (z0 + zl) / (1 - acc * (z0 + zl)))
    a2 = cdf(z0 + (z0 - zl) / (1 - acc * (z0 - zl)))
    a1 = np.where(ok, a1, alpha / 2)
    a2 = np.where(ok, a2, 1 - alpha / 2)
    return quantiles_rows(means, a1), quantiles_rows(means, a2)


def log_ratio_t_interval(log_ratios, confidence: float = 0.95) -> tuple[float, float, float]:
    """Geometric-mean ratio with a t-interval on the per-query log ratios:
    exp(mean +/- t(1 - alpha/2, n - 1) sd / sqrt(n)) (the t-interval of ``score_intervals``
    on the log scale, back-transformed; Student 1908). Returns (ratio, low, high). Kept by
    name; the latency page uses ``log_ratio_interval`` (the calibrated t-interval)."""
    d = checks.values("log_ratios", log_ratios, min_n=2)
    lo, hi = score_intervals(d[None, :], d[None, :], None, confidence, "t")
    return math.exp(float(d.mean())), math.exp(float(lo[0])), math.exp(float(hi[0]))


def log_ratio_interval(log_ratios, boot_means, boot_sds, confidence: float = 0.95, *,
                       method: str = "calibrated_t") -> tuple[float, float, float]:
    """Geometric-mean ratio exp(mean of the per-query log ratios) with the ``method`` interval
    (one of ``SCORE_METHODS``; default the calibrated t-interval, ``calibrated_t_interval``,
    chosen for latency by ``bench/calibration.py``) of the mean log ratio, back-transformed.
    ``boot_means`` / ``boot_sds``: mean and SD of each bootstrap resample of the log ratios
    (the same draws as the page's chart). Returns (ratio, low, high)."""
    d = checks.values("log_ratios", log_ratios, min_n=2)
    method = checks.choice("method", method, SCORE_METHODS)
    lo, hi = score_intervals(d[None, :], np.atleast_2d(boot_means),
                             None if boot_sds is None else np.atleast_2d(boot_sds),
                             confidence, method)
    return math.exp(float(d.mean())), math.exp(float(lo[0])), math.exp(float(hi[0]))


def distribution_interval(dist, n: int, confidence: float = 0.95, *,
                          method: str = "percentile") -> tuple[float, float]:
    """An interval read off a plain bootstrap distribution (e.g. of a log median ratio) of a
    statistic of ``n`` resampled units: the alpha/2 and 1 - alpha/2 percentiles
    (``percentile``), or Hesterberg's (2015) alpha'/2 ones (``expanded_percentile``,
    ``expanded_level(n)``), numpy's linear interpolation."""
    dist = checks.values("dist", dist)
    method = checks.choice("method", method, ("percentile", "expanded_percentile"))
    level = checks.confidence(confidence)
    if method == "expanded_percentile" and checks.whole("n", n, lo=1) >= 2:
        level = expanded_level(n, confidence)
    lo, hi = np.quantile(dist, [(1 - level) / 2, (1 + level) / 2])
    return float(lo), float(hi)


# ----------------------------------------------------------------------------- the sign
ZERO_RTOL = 1e-12   # an interval end this close to 0, relative to the data's scale, is 0


def snap_zero(x, scale):
    """``x`` with values within ``ZERO_RTOL * scale`` of 0 set to exactly 0 (vectorised), so
    a bound that is 0 up to rounding (2.8e-18 from a BCa of two-decimal scores) is printed
    and judged as 0. ``scale`` is the data's size, e.g. max |d_i|; at least 1e-300."""
    x = np.asarray(x, dtype=float)
    tol = ZERO_RTOL * np.maximum(np.abs(np.asarray(scale, dtype=float)), 1e-300)
    out = np.where(np.abs(x) <= tol, 0.0, x)
    return float(out) if out.ndim == 0 else out


def side(ci_low, ci_high, scale=1.0):
    """+1 when the interval lies above 0, -1 when below, 0 when it holds 0 (vectorised);
    ends are first ``snap_zero``-ed, so an end that is 0 up to rounding holds 0."""
    lo, hi = snap_zero(ci_low, scale), snap_zero(ci_high, scale)
    out = np.where(np.asarray(lo) > 0, 1, np.where(np.asarray(hi) < 0, -1, 0))
    return int(out) if out.ndim == 0 else out


P_FLOOR = 1e-12        # the smallest p an inverted interval gives (``inverted_p``)


def inverted_p(interval_at, excluded, *, confidence: float | None = None,
               excluded_here: bool | None = None, floor: float = P_FLOOR,
               steps: int = 40) -> float:
    """The test of an interval rule by inversion: p = the largest alpha = 1 - c at which
    ``excluded(*interval_at(c))`` is False, for a rule whose intervals nest (wider as c grows),
    so p < alpha exactly when the interval at 1 - alpha excludes (the duality of tests and
    confidence sets: Lehmann & Romano 2005, *Testing Statistical Hypotheses*, section 3.5).
    Found by bisection on log(alpha) between ``floor`` and 1 - ``floor`` (``steps`` halvings:
    relative precision about 1e-11). With ``confidence`` and the reported interval's answer
    ``excluded_here`` the search starts from that level, so p < 1 - ``confidence`` exactly
    when the reported interval excludes, whatever rounding the bisection meets. p is
    ``floor`` when even the interval at 1 - ``floor`` excludes, 1 when the interval at
    ``floor`` does not. Used by the prediction-powered MOVER interval (``core.paired.ppi``)
    and TRisk's skew guard (``core.paired.harm``)."""
    if (confidence is None) != (excluded_here is None):
        raise ValueError("inverted_p: give confidence and excluded_here together, or neither")

    def out_at(alpha: float) -> bool:
        return bool(excluded(*interval_at(1 - alpha)))

    if confidence is not None:
        alpha = 1 - confidence
        held, out = (floor, alpha) if excluded_here else (alpha, 1 - floor)
    else:
        held, out = floor, 1 - floor
    if held == floor and out_at(floor):
        return floor
    if out == 1 - floor and not out_at(1 - floor):
        return 1.0
    for _ in range(steps):
        mid = math.sqrt(held * out)
        if out_at(mid):
            out = mid
        else:
            held = mid
    return held


# ----------------------------------------------------------------------------- names
# Intervals of B - A. "auto" is the calibrated default of the data's kind (docs/calibration.md):
# Tango's score interval for 0/1 outcomes, the calibrated t-interval for scores. The paired-proportion
# intervals exist for 0/1 data only, t / expanded percentile / bootstrap-t for scores; an
# interval that does not fit the data falls back to the default (the result names the one used).
INTERVALS = ("auto", "tango", "newcombe", "bonett_price", "wald", "calibrated_t", "t",
             "johnson_t", "hall_t", "expanded_percentile", "bootstrap_t", "percentile", "bca")
BINARY_INTERVALS = PAIRED_PROPORTION_METHODS + ("percentile", "bca")
SCORE_INTERVALS = ("calibrated_t", "t", "johnson_t", "hall_t", "expanded_percentile",
                   "bootstrap_t", "percentile", "bca")
DEFAULT_INTERVALS = {True: "tango", False: "calibrated_t"}   # binary -> default


def check_interval(interval: str) -> str:
    """One of ``INTERVALS``, or ``ValueError`` naming the argument and listing them."""
    return checks.choice("interval", interval, INTERVALS)


def resolve_interval(interval: str, binary: bool) -> str:
    """The interval actually used for data of this kind: ``interval`` when it fits (see
    ``BINARY_INTERVALS`` / ``SCORE_INTERVALS``), else the calibrated default
    (``DEFAULT_INTERVALS``: Tango for 0/1 outcomes, the calibrated t-interval for scores).
    The caller checked ``interval`` (``check_interval``, at its public door)."""
    fits = BINARY_INTERVALS if binary else SCORE_INTERVALS
    return interval if interval in fits else DEFAULT_INTERVALS[bool(binary)]


def resampled(interval: str) -> bool:
    """Whether the interval of B - A named ``interval`` (a resolved name, not ``"auto"``) is
    read off bootstrap resamples: False for the closed forms (Tango, Newcombe, Bonett-Price,
    Wald for 0/1 tables; the t, Johnson and Hall t-intervals for scores), True for the
    percentile, BCa, expanded percentile, bootstrap-t and calibrated t (whose ends come from
    the bootstrap-t). The labels use it to give resamples only where resampling happened.
    ``interval`` is a resolved name (``BootstrapResult.interval``); ``auto`` is refused."""
    return is_resampled(checks.choice("interval", interval, INTERVALS[1:]))


def is_resampled(interval: str) -> bool:
    """``resampled`` of a name core resolved itself (``BootstrapResult.interval``, read by
    ``core.paired.compare.interval_provenance``): no check again."""
    return interval not in PAIRED_PROPORTION_METHODS + CLOSED_FORM_METHODS


def interval_warning(interval: str, n: int) -> str | None:
    """``"bca_small_n"`` when the BCa interval is used on fewer than ``BCA_MIN_N`` (50) cases:
    in ``docs/calibration.md`` it under-covers there (on 0/1 data and on real scores alike)."""
    return "bca_small_n" if interval == "bca" and n < BCA_MIN_N else None
