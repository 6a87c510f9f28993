"""t-type intervals of a mean that correct for skew: Johnson's (1978) and Hall's (1992)
closed forms, and the calibrated t-interval (the t-interval widened tail by tail to the
bootstrap-t's ends), the default for scores and latency ratios. Each takes S sets of n cases
as the rows of an array and returns arrays (low, high); ``core.paired.intervals.score_intervals``
is the checked entry that dispatches to them by name.
"""
from __future__ import annotations

import math

import numpy as np


def t_quantile(q: float, df):
    """Student's t quantile (scipy, imported here only: continuous data only)."""
    from scipy.special import stdtrit
    return stdtrit(df, q)


def quantiles_rows(sorted_rows: np.ndarray, q, counts=None) -> np.ndarray:
    """numpy's linear-interpolation quantile of each row of an already sorted (S, B) array,
    at one share per row (``q`` broadcast to S). With ``counts`` (S,), row s holds its values
    in its first counts[s] places (NaN after them, as ``np.sort`` leaves them) and the quantile
    is over those; callers handle counts of 0."""
    S, B = sorted_rows.shape
    last = (np.full(S, B) if counts is None else np.maximum(np.asarray(counts), 1)) - 1
    pos = np.clip(np.broadcast_to(np.asarray(q, float), (S,)), 0.0, 1.0) * last
    lo = np.floor(pos).astype(np.int64)
    hi = np.minimum(lo + 1, last)
    frac = pos - lo
    rows = np.arange(S)
    a, b = sorted_rows[rows, lo], sorted_rows[rows, hi]
    with np.errstate(invalid="ignore"):
        return np.where((frac == 0) | (a == b), a, a + frac * (b - a))


def _skew_parts(x: np.ndarray):
    """Row-wise mean, SD s (ddof 1) and third central moment mu3 = sum((x - xbar)^3) / n."""
    xbar = x.mean(axis=1)
    u = x - xbar[:, None]
    return xbar, x.std(axis=1, ddof=1), np.mean(u ** 3, axis=1)


def johnson_t_interval(x: np.ndarray, confidence: float):
    """Johnson's modified-t interval of the mean of each row of ``x`` (S sets of n >= 2 cases;
    Johnson 1978, "Modified t tests and confidence intervals for asymmetrical populations",
    *JASA* 73:536-544). Johnson's statistic, with mu3 = sum((x_i - xbar)^3) / n and s the SD
    (ddof 1), is

        t1(mu) = [(xbar - mu) + mu3 / (6 s^2 n) + mu3 / (3 s^4) (xbar - mu)^2] / (s / sqrt(n)).

    With delta = xbar - mu, g = mu3 / (3 s^4), b = mu3 / (6 s^2 n) and c = t(1 - alpha/2, n - 1)
    s / sqrt(n), the interval is {mu : -c <= t1 * s / sqrt(n) <= c}, solved on the branch where
    t1 is monotone (1 + 2 g delta > 0): delta(q) = 2 (q - b) / (1 + sqrt(1 - 4 g (b - q))) for
    q = +c (lower end mu = xbar - delta(c)) and q = -c (upper end mu = xbar - delta(-c)). Where
    the quadratic has no root (1 - 4 g (b - q) < 0: the statistic never gets that far on that
    side) the end is the turning point delta = -1 / (2 g). With mu3 = 0 it is the t-interval.
    Returns arrays (low, high)."""
    xbar, s, mu3 = _skew_parts(x)
    n = x.shape[1]
    c = float(t_quantile(1 - (1 - confidence) / 2, n - 1)) * s / math.sqrt(n)
    ok = s > 0
    s_ = np.where(ok, s, 1.0)
    g = np.where(ok, mu3 / (3 * s_ ** 4), 0.0)
    b = np.where(ok, mu3 / (6 * s_ ** 2 * n), 0.0)

    def delta(q):
        disc = 1 - 4 * g * (b - q)
        with np.errstate(divide="ignore", invalid="ignore"):
            root = 2 * (q - b) / (1 + np.sqrt(np.maximum(disc, 0.0)))
            turn = np.where(g != 0, -1 / (2 * np.where(g != 0, g, 1.0)), root)
        return np.where(disc >= 0, root, turn)

    return xbar - delta(c), xbar - delta(-c)


def hall_t_interval(x: np.ndarray, confidence: float):
    """Hall's transformation-based t-interval of the mean of each row of ``x`` (S sets of
    n >= 2 cases; Hall 1992, "On the removal of skewness by transformation", *JRSS-B*
    54:221-228). With T = sqrt(n) (xbar - mu) / s, the sample skewness
    gamma = mu3 / s2^1.5 (mu3 = sum((x_i - xbar)^3) / n, s2 = sum((x_i - xbar)^2) / n) and
    a = gamma / sqrt(n), Hall's monotone transformation

        g(T) = T + a T^2 / 3 + a^2 T^3 / 27 + a / 6

    removes the n^(-1/2) skewness term of T's distribution; its inverse is
    g^(-1)(y) = (3 / a) [(1 + a (y - a / 6))^(1/3) - 1] (real cube root; computed as
    3 (y - a/6) / (w^2 + w + 1), w the cube root, which is exact at a = 0). The interval is

        [xbar - g^(-1)(q_hi) s / sqrt(n),  xbar - g^(-1)(q_lo) s / sqrt(n)]

    with Student quantiles q = t(1 -/+ alpha/2, n - 1) and s the SD (ddof 1) in place of Hall's
    normal quantiles and plug-in SD, so that with gamma = 0 it is exactly the t-interval.
    Returns arrays (low, high)."""
    xbar, s, mu3 = _skew_parts(x)
    n = x.shape[1]
    m2 = np.mean((x - xbar[:, None]) ** 2, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.where(m2 > 0, mu3 / np.where(m2 > 0, m2, 1.0) ** 1.5, 0.0) / math.sqrt(n)
    q = float(t_quantile(1 - (1 - confidence) / 2, n - 1))

    def ginv(y):
        # (3/a)(w - 1) = 3 (y - a/6) / (w^2 + w + 1), w = cbrt(1 + a (y - a/6)): no 0/0 and no
        # cancellation when a is 0 or tiny (mu3 of symmetric data is 0 only up to rounding)
        w = np.cbrt(1 + a * (y - a / 6))
        return 3 * (y - a / 6) / (w * w + w + 1)

    se = s / math.sqrt(n)
    return xbar - ginv(q) * se, xbar - ginv(-q) * se


SKEW_GUARD_FACTOR = 3.0       # the sample skewness understates a skewed population's at 10-30
SKEW_GUARD_RAMP = ("n", 10.0, 25.0)  # noise allowance by cases n: none up to 10, full from 25
SKEW_GUARD_FIRST_RAMP = ("m", 5.0, 25.0)  # as first shipped: by non-zero values m, 5 to 25


def skew_guard_interval(x: np.ndarray, confidence: float, allowance: float = 1.0, *,
                        ramp: tuple[str, float, float] = SKEW_GUARD_RAMP,
                        factor: float = SKEW_GUARD_FACTOR, adverse: float = 0.0):
    """The skew guard of the interval of a paired difference (issue 36): Hall's transformed
    t-interval (``hall_t_interval``'s formula) of the mean of each row of ``x`` (S sets of
    n >= 2 cases), with the skewness a = k gamma' / sqrt(n) where

    * gamma is the sample skewness of the row's **non-zero** values (m of them; mu3 / m2^1.5
      about their own mean): a tie says nothing about the shape of the differences, and on
      tie-heavy data the skewness of all values is mostly that of the spike at 0;
    * gamma' = sign(gamma) max(|gamma| - tau, 0): the part beyond its noise on symmetric data,
      tau = w(n) sqrt(6 / m) (the SD of the sample skewness of m normal values), with
      w(n) = clip((n - 10) / 15, 0, 1) (``SKEW_GUARD_RAMP``): no allowance up to 10 cases,
      where a skewness of 0.8 is both noise on normal data and all a lognormal sample shows,
      the full one from 25 on. The ramp reads the number of cases n, not m: ties widen the
      noise of the skewness (m < n) but do not make the sample smaller for the goals, and a
      ramp on m left tie-heavy symmetric data (scifact, 53% ties) with almost no allowance at
      20-30 cases (coverage 97.5-98.1% at n = 20);
    * k = ``SKEW_GUARD_FACTOR`` (3): on a skewed population a small sample mostly misses the
      long tail, so its skewness understates the population's (lognormal with skewness 4.8:
      a median sample skewness of about 1 at n = 20), and the t-interval's error on the side
      away from the tail is that of the population's skewness.

    ``allowance`` scales tau (1: the interval of B - A; the margin decision of scores reads
    it at ``core.paired.margin.MARGIN_GUARD_ALLOWANCE``, 0.5, for its one-sided 2.5% promise).
    ``ramp`` = (count, start, full): the allowance's weight is clip((count - start) /
    (full - start), 0, 1) with count the cases n ("n", the default ``SKEW_GUARD_RAMP``) or the
    non-zero values m ("m"; ``SKEW_GUARD_FIRST_RAMP``, the guard as first shipped, kept for
    ``bench/skew_guard.py``'s before / after). ``factor`` is k (default ``SKEW_GUARD_FACTOR``;
    other values for the bench's variants only). ``adverse`` (bench variants only,
    ``bench/trec_frontier.py``; 0 in the product): gamma' is further moved by adverse x
    sqrt(6 / m) against the sign of the row's mean, the tail a small sample may have missed
    on the side that would make its verdict false.

    k, the noise allowance and its ramp were chosen by simulation (``bench/skew_guard.py``,
    ``docs/calibration.md``): the smallest correction that keeps the verdict's type-I at or
    below 5.5% on the hard shapes at 10-30 cases, with at most 3 points of power lost on the
    ordinary rows at 20-30. With gamma' = 0 it is the t-interval. Returns arrays (low, high)."""
    x = np.atleast_2d(np.asarray(x, dtype=float))
    S, n = x.shape
    xbar = x.mean(axis=1)
    if n < 2:
        return xbar.copy(), xbar.copy()
    nz = x != 0
    m = nz.sum(axis=1)
    mz = np.where(nz, x, 0.0).sum(axis=1) / np.maximum(m, 1)
    u = np.where(nz, x - mz[:, None], 0.0)
    m2 = (u ** 2).sum(axis=1) / np.maximum(m, 1)
    m3 = (u ** 3).sum(axis=1) / np.maximum(m, 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        gamma = np.where((m >= 3) & (m2 > 0), m3 / np.where(m2 > 0, m2, 1.0) ** 1.5, 0.0)
    count, start, full = ramp
    if count not in ("n", "m"):
        raise ValueError(f"ramp counts 'n' (cases) or 'm' (non-zero values), not {count!r}")
    by = n if count == "n" else m
    tau = allowance * np.clip((by - start) / (full - start), 0.0, 1.0) * np.sqrt(
        6.0 / np.maximum(m, 3))
    g = np.sign(gamma) * np.maximum(np.abs(gamma) - tau, 0.0)
    if adverse:
        g = g - np.sign(xbar) * adverse * np.sqrt(6.0 / np.maximum(m, 3))
    a = factor * g / math.sqrt(n)
    q = float(t_quantile(1 - (1 - confidence) / 2, n - 1))

    def ginv(y):   # Hall's inverse transformation, as in hall_t_interval
        w = np.cbrt(1 + a * (y - a / 6))
        return 3 * (y - a / 6) / (w * w + w + 1)

    se = x.std(axis=1, ddof=1) / math.sqrt(n)
    return xbar - ginv(q) * se, xbar - ginv(-q) * se


def smallest_exact_p(nonzero):
    """The smallest two-sided p an exact sign test (McNemar, or the sign-flip randomization
    test) can give with m = ``nonzero`` discordant pairs / non-zero differences: 2 (1/2)^m,
    all m on one side (the two one-sided patterns are the only ones as extreme), 1 when
    m = 0. Elementwise on an array of counts (``core.paired.significance.min_exact_p`` is the
    checked entry for one count)."""
    m = np.asarray(nonzero)
    return np.where(m > 0, np.minimum(1.0, np.exp2(1.0 - np.maximum(m, 1))), 1.0)


def too_few_differing(x: np.ndarray, confidence: float) -> np.ndarray:
    """For each row of ``x`` (S sets of paired differences): True when so few of its values
    are not 0 that no exact sign test could reach p < alpha on it (``smallest_exact_p(m)``
    >= alpha = 1 - confidence, rounded as ``core.paired.stats.alpha_of`` rounds it): at 95%,
    5 or fewer cases that differ. Then every verdict on the row is "no difference"
    (``core.paired.compare.Decision``'s ``too_few_nonzero``), and an interval that left out 0
    would claim what no test can: the interval of B - A is widened to reach 0
    (``reach_zero_when_few``)."""
    x = np.atleast_2d(np.asarray(x, dtype=float))
    return smallest_exact_p(np.count_nonzero(x, axis=1)) >= round(1 - confidence, 12)


def reach_zero_when_few(x: np.ndarray, lo, hi, confidence: float):
    """The interval [lo, hi] of the mean of each row of ``x`` with 0 added to it (low =
    min(low, 0), high = max(high, 0)) on the rows where ``too_few_differing``: with m <= 5
    non-zero differences at 95%, no exact test can tell B from A, and a t-type interval can
    still leave out 0 (four or five equal gains and 25 ties give a t of about 2: recall@100
    of hybrid - BM25 on scifact, 91% ties, left out the true 0 in 12% of sets of 30; issue 36,
    ``bench/ordinary_pairs.py``, docs/calibration.md). Bahadur & Savage (1956): no interval
    keeps its level on every shape; here the data say so, and the interval says "cannot
    tell" with them. Returns arrays (low, high, widened rows)."""
    few = too_few_differing(x, confidence)
    lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
    return np.where(few, np.minimum(lo, 0.0), lo), np.where(few, np.maximum(hi, 0.0), hi), few


def widen_by_skew_guard(d: np.ndarray, lo: float, hi: float, confidence: float, *,
                        unit: bool, scale: float) -> tuple[float, float, bool, bool]:
    """The calibrated t-interval [lo, hi] of mean(d) (one set of paired differences, checked
    by the caller) with each end moved out to ``skew_guard_interval``'s when that lies
    further out, bounded to [-1, 1] when ``unit`` (differences of scores in [0, 1]), then
    widened to reach 0 when too few cases differ for any exact test (``reach_zero_when_few``);
    and whether the guard moved an end as printed (by more than 1e-12 of ``scale``), and
    whether reaching 0 did: the interval of B - A on scores
    (``core.paired.difference.interval_of_difference``) and its label (issue 36).
    Returns (low, high, guard moved, reached 0)."""
    g_lo, g_hi = skew_guard_interval(d[None, :], confidence)
    lo1, hi1 = min(lo, float(g_lo[0])), max(hi, float(g_hi[0]))
    if unit:
        lo, hi, lo1, hi1 = max(lo, -1.0), min(hi, 1.0), max(lo1, -1.0), min(hi1, 1.0)
    tol = 1e-12 * max(scale, 1e-300)
    z_lo, z_hi, _ = reach_zero_when_few(d[None, :], lo1, hi1, confidence)
    z_lo, z_hi = float(z_lo[0]), float(z_hi[0])
    return (z_lo, z_hi, bool(lo1 < lo - tol or hi1 > hi + tol),
            bool(z_lo < lo1 - tol or z_hi > hi1 + tol))


def calibrated_t_interval(x: np.ndarray, boot_means, boot_sds, confidence: float, *,
                          skew_guard: bool = False):
    """The t-interval of the mean of each row of ``x`` (S sets of n >= 2 cases), each end
    moved out to the bootstrap-t's end when that lies further out: the default for scores
    and for the latency geometric-mean ratio (chosen by ``bench/calibration.py``,
    ``docs/calibration.md``).

    With xbar the mean, se = s / sqrt(n) (s the SD, ddof 1), c = t(1 - alpha/2, n - 1) and the
    studentized resamples t*_r = (mean*_r - xbar) / (sd*_r / sqrt(n)) of the bootstrap
    (``boot_means[s, r]``, ``boot_sds[s, r]``; resamples with sd* = 0 carry no studentized
    value and are left out), with q_lo, q_hi their alpha/2 and 1 - alpha/2 quantiles::

        low  = xbar - max(c, q_hi) se,    high = xbar - min(-c, q_lo) se

    Resampling the differences around their own mean keeps their skew, so q_lo and q_hi are
    the nominal levels at which the t-interval's two tails would each leave out the truth
    alpha/2 of the time on data like these: a bootstrap calibration of the t-interval's
    level, tail by tail (Loh 1987, "Calibrating confidence coefficients", *JASA* 82:155-162;
    Hall & Martin 1988, *Biometrika* 75:661-671; the bootstrap-t itself: Efron & Tibshirani
    1993, ch. 12.5), kept from ever being narrower than the t-interval. Equivalently the
    union of the t-interval and the bootstrap-t interval: it leaves out a value only when both
    do (an intersection-union test, Berger 1982, *Technometrics* 24:295-300), so its false
    alarms are never more than either's. Where the t-distribution is right (symmetric data)
    the bootstrap-t quantiles are close to +/-c and it is the t-interval up to a slight
    widening.

    ``skew_guard`` (the interval of a paired difference B - A of scores, issue 36): each end
    is also moved out to ``skew_guard_interval``'s when that lies further out (a union again:
    it can only widen), and the interval reaches 0 where too few cases differ for any exact
    test (``reach_zero_when_few``). Returns arrays (low, high)."""
    x = np.atleast_2d(np.asarray(x, dtype=float))
    S, n = x.shape
    xbar = x.mean(axis=1)
    alpha = 1 - confidence
    if n < 2:
        return xbar.copy(), xbar.copy()
    se = x.std(axis=1, ddof=1) / math.sqrt(n)
    c = float(t_quantile(1 - alpha / 2, n - 1))
    means = np.atleast_2d(np.asarray(boot_means, dtype=float))
    sds = np.atleast_2d(np.asarray(boot_sds, dtype=float))
    with np.errstate(divide="ignore", invalid="ignore"):
        tstar = np.where(sds > 0, (means - xbar[:, None]) / (sds / math.sqrt(n)), np.nan)
    counts = np.sum(sds > 0, axis=1)
    tstar.sort(axis=1)
    q_hi = np.where(counts > 0, quantiles_rows(tstar, 1 - alpha / 2, counts), c)
    q_lo = np.where(counts > 0, quantiles_rows(tstar, alpha / 2, counts), -c)
    lo, hi = xbar - np.maximum(c, q_hi) * se, xbar - np.minimum(-c, q_lo) * se
    if skew_guard:
        g_lo, g_hi = skew_guard_interval(x, confidence)
        lo, hi = np.minimum(lo, g_lo), np.maximum(hi, g_hi)
        lo, hi, _ = reach_zero_when_few(x, lo, hi, confidence)
    return lo, hi
