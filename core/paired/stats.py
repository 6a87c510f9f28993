"""Statistics for small golden sets: Wilson intervals and the (paired) bootstrap.

The exact paired tests are in ``core.paired.significance``; the verdict that needs both, and the one
call the golden page makes, in ``core.paired.compare``.

Every function validates its arguments first (``core.checks``) and raises ``ValueError``
naming the argument.
Seeds are explicit keyword arguments; the same seed gives identical output.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

from statistics import NormalDist

import numpy as np

from core import checks
from core.paired.intervals import (BINARY_INTERVALS, DEFAULT_INTERVALS, INTERVALS,  # noqa: F401
                            PAIRED_PROPORTION_METHODS, SCORE_INTERVALS, STUDENTIZED_METHODS,
                            check_interval,
                            interval_warning, resolve_interval,
                            interval_of_means, score_intervals, side, snap_zero,
                            table_interval, wilson_bounds, z_of, z_two_sided)
from core.paired.data import PairedData, paired_data  # noqa: F401  (re-exported)
from core.paired.skew_intervals import widen_by_skew_guard
from core.paired.method_intervals import (RATE_INTERVALS, RateEstimate, mean_intervals,  # noqa: F401
                                   method_resamples)
from core.paired.streams import (STREAM_BOOTSTRAP, STREAM_SIGNFLIP, resample_seeds,  # noqa: F401
                          stream_key)

Verdict = Literal["no_difference", "a_better", "b_better"]
Interval = str   # one of INTERVALS (the name actually used is kept in BootstrapResult)
CONFIDENCE_LEVELS = (0.90, 0.95, 0.99)
MIN_RESAMPLES, MAX_RESAMPLES = 1_000, 100_000
DEGENERATE_DISTINCT = 10   # fewer distinct resampled means than this: a degenerate bootstrap
CONSTANT_RTOL = 1e-12      # differences whose spread is below this share of their scale


def kernels():
    """The numba kernels (``core._kernels``), imported on first use: numba is only needed
    for continuous data, and the CLI's start-up time depends on not importing it."""
    from core import _kernels as k  # lazy: numba
    return k


# Cheap special functions: importing scipy.special / scipy.stats costs more than the whole
# binary computation, so the normal quantile and cdf come from the standard library
# (``statistics.NormalDist``: Wichura's AS241, ~1e-16) and small binomial tails are summed
# exactly (``core.paired.significance``); scipy.special only for large tails and the t distribution.
_NORMAL = NormalDist()


def _ndtri(q: float) -> float:
    """Standard-normal quantile; -inf / inf at 0 / 1."""
    if q <= 0:
        return -math.inf
    if q >= 1:
        return math.inf
    return _NORMAL.inv_cdf(q)


def _ndtr(x: float) -> float:
    """Standard-normal cdf."""
    return 0.5 * math.erfc(-x / math.sqrt(2))


def is_binary(values) -> bool:
    """True when every value is 0 or 1."""
    arr = np.asarray(values, dtype=float)
    return bool(arr.size) and bool(np.all((arr == 0) | (arr == 1)))


def is_constant(values) -> bool:
    """True when the values are all equal up to rounding: their spread (max - min) is at most
    ``CONSTANT_RTOL`` (1e-12) of their scale max|x|. So 0.25 stored exactly and 0.25 reached
    as 0.35 - 0.1 (or 0.250000001 - 1e-9) count the same."""
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        return True
    scale = float(np.max(np.abs(x)))
    return float(np.ptp(x)) <= CONSTANT_RTOL * scale


def resolution(n: int) -> float:
    """One case as a share of ``n`` cases (1/n); times 100 it is the %p step of a rate."""
    return 1.0 / checks.whole("n", n, lo=1)


def significance_level(confidence: float) -> float:
    """alpha = 1 - confidence, rounded to 12 decimals: every verdict compares a p-value with
    this one number (1 - 0.95 is 0.050000000000000044 in floating point, so p = 0.05 would
    pass an unrounded test and fail ``decide``'s)."""
    return alpha_of(checks.confidence(confidence))


def alpha_of(confidence: float) -> float:
    """``significance_level`` of a confidence the caller checked (``core.checks.confidence``
    at its public door): the same number, no check again."""
    return round(1 - confidence, 12)


def verdict(ci_low: float, ci_high: float, p: float | None = None, *,
            confidence: float | None = None, alpha: float | None = None) -> Verdict:
    """The one verdict rule. ``b_better`` if the CI of B - A (new minus baseline) lies above
    0, ``a_better`` if below, else ``no_difference``; an end within 1e-12 of 0 relative to the
    interval's size counts as 0 (``core.paired.intervals.side``), so an end printed as 0.000 never
    decides.

    With the matching test's ``p`` (and the ``confidence`` of the CI), "better" also needs
    p < ``significance_level(confidence)``; otherwise ``no_difference``. ``core.paired.compare.decide``
    applies this function and adds the reason, passing ``alpha`` (``alpha_of`` its checked
    confidence) instead of ``confidence``.
    """
    if p is not None:
        if alpha is None:
            if confidence is None:
                raise ValueError("confidence is needed when p is given")
            alpha = significance_level(confidence)
        if not p < alpha:
            return "no_difference"
    scale = max(abs(float(ci_low)), abs(float(ci_high)))
    where = side(ci_low, ci_high, scale)
    return "b_better" if where > 0 else "a_better" if where < 0 else "no_difference"


# ----------------------------------------------------------------------------- Wilson
def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (Wilson 1927, JASA 22:209-212).

    With p = k/n and z the two-sided normal quantile::

        centre = (p + z^2/(2n)) / (1 + z^2/n)
        half   = z / (1 + z^2/n) * sqrt(p(1-p)/n + z^2/(4n^2))

    Equals ``scipy.stats.binomtest(k, n).proportion_ci(method="wilson")`` (tested to 1e-9).
    The formula is written once, in ``core.paired.intervals.wilson_bounds`` (the planner and
    Newcombe's interval use it too); this is its checked entry.
    """
    successes, n, confidence = checks.wilson_iv(successes, n, confidence)
    lo, hi, _ = wilson_bounds(successes, n, z_of(confidence))
    return float(lo), float(hi)


# ----------------------------------------------------------------------------- results
@dataclass(frozen=True)
class BootstrapResult:
    """Bootstrap of a mean (Efron & Tibshirani 1993): percentile (ch. 13) or BCa (ch. 14)
    interval. ``distribution`` holds every resampled mean so pages can plot without
    recomputing. ``interval`` is the interval actually used (BCa falls back to percentile when
    it is undefined: all values equal). ``constant``: every value was equal (up to rounding).
    ``skew_guard``: the skew guard moved an end (scores; issue 36: the labels name it)."""

    mean: float
    ci_low: float
    ci_high: float
    confidence: float
    resamples: int
    seed: int
    method: Literal["cells", "resample"]
    distribution: np.ndarray = field(repr=False)
    interval: Interval = "percentile"
    constant: bool = False
    skew_guard: bool = False

    @property
    def standard_error(self) -> float:
        return float(np.std(self.distribution, ddof=1)) if self.resamples > 1 else float("nan")

    @property
    def distinct(self) -> int:
        """Distinct resampled means (equal up to 1e-10 of their scale counted once)."""
        dist = self.distribution
        scale = float(np.max(np.abs(dist))) if dist.size else 0.0
        if scale == 0:
            return 1 if dist.size else 0
        return int(np.unique(np.round(dist / scale, 10)).size)

    @property
    def degenerate(self) -> str | None:
        """Why this bootstrap cannot be trusted as a distribution, or None: ``"constant"``
        (all differences equal: every resample gives the same mean) or ``"few_distinct"``
        (fewer than ``DEGENERATE_DISTINCT`` = 10 distinct resampled means, so the interval
        endpoints jump between a handful of values)."""
        if self.constant:
            return "constant"
        if self.distinct < DEGENERATE_DISTINCT:
            return "few_distinct"
        return None


def percentile_ci(dist: np.ndarray, confidence: float) -> tuple[float, float]:
    """The (alpha/2, 1 - alpha/2) percentiles of a bootstrap distribution (Efron &
    Tibshirani 1993, ch. 13), numpy's linear interpolation as in scipy."""
    alpha = 1 - confidence
    lo, hi = np.percentile(dist, [100 * alpha / 2, 100 * (1 - alpha / 2)])
    return float(lo), float(hi)


def bca_ci(dist, values, confidence: float) -> tuple[float, float] | None:
    """Bias-corrected and accelerated (BCa) bootstrap interval of mean(values) (Efron &
    Tibshirani 1993, ch. 14.3 and eq. 14.15; DiCiccio & Efron 1996), as
    ``scipy.stats.bootstrap(method="BCa")`` defines it.

    With theta = mean(values), B resampled means theta*_b and alpha = (1 - confidence)/2::

        z0 = Phi^-1( (#{theta*_b < theta} + #{theta*_b <= theta}) / (2B) )
        theta_(i) = mean of values without case i (jackknife), U_i = (n - 1)(mean(theta_(.)) - theta_(i))
        a = sum U_i^3 / (6 (sum U_i^2)^(3/2))
        alpha_1 = Phi(z0 + (z0 + z_alpha) / (1 - a (z0 + z_alpha)))
        alpha_2 = Phi(z0 + (z0 + z_(1-alpha)) / (1 - a (z0 + z_(1-alpha))))

    and the interval is the (alpha_1, alpha_2) percentiles of theta*. None when BCa is
    undefined (all values equal, or every resample on one side of theta).
    """
    return _bca(checks.values("dist", dist), checks.values("values", values, min_n=2),
                checks.confidence(confidence))


def _bca(dist: np.ndarray, x: np.ndarray, confidence: float) -> tuple[float, float] | None:
    """``bca_ci`` of checked arrays (at least 2 values) and level."""
    theta = float(x.mean())
    share = (np.count_nonzero(dist < theta) + np.count_nonzero(dist <= theta)) / (2 * dist.size)
    z0 = _ndtri(share)
    n = x.size
    jack = (x.sum() - x) / (n - 1)
    u = (n - 1) * (jack.mean() - jack)
    den = float(np.sum(u * u))
    if den <= 0 or not math.isfinite(z0):
        return None
    acc = float(np.sum(u ** 3)) / (6 * den ** 1.5)
    z_lo = _ndtri((1 - confidence) / 2)
    a1 = _ndtr(z0 + (z0 + z_lo) / (1 - acc * (z0 + z_lo)))
    a2 = _ndtr(z0 + (z0 - z_lo) / (1 - acc * (z0 - z_lo)))
    if not (math.isfinite(a1) and math.isfinite(a2)):
        return None
    lo, hi = np.percentile(dist, [100 * a1, 100 * a2])
    return float(lo), float(hi)


def _read_ci(dist: np.ndarray, values: np.ndarray, confidence: float,
             interval: str) -> tuple[float, float, str]:
    """The CI read off a bootstrap distribution ``dist`` of a mean of ``values``: BCa
    (``bca_ci``) when ``interval`` is ``"bca"``, there are 2 values or more and it is
    defined, else the percentile interval (``percentile_ci``); returns (low, high, the
    interval used). The one percentile/BCa fallback (``bootstrap_mean`` and
    ``interval_of_difference``); the caller checked every argument."""
    if interval == "bca" and values.size >= 2:
        ci = _bca(dist, values, confidence)
        if ci is not None:
            return ci[0], ci[1], "bca"
    lo, hi = percentile_ci(dist, confidence)
    return lo, hi, "percentile"


def bootstrap_mean(values, *, resamples: int = 20_000, confidence: float = 0.95,
                   seed: int = 0, interval: str = "percentile") -> BootstrapResult:
    """Bootstrap CI of the mean of ``values`` (Efron & Tibshirani 1993).

    Resample the n cases with replacement ``resamples`` times, take each resample's mean, and
    read the CI off the (alpha/2, 1-alpha/2) percentiles (or the BCa percentiles, ``bca_ci``).
    Binary values take the same distribution from one binomial draw per resample
    (``method="cells"``).
    """
    x = checks.values("values", values)
    resamples, confidence, seed = checks.bootstrap_iv(resamples, confidence, seed)
    interval = check_interval(interval)
    key = stream_key(seed)
    n = x.size
    if is_binary(x):
        rng = np.random.default_rng(seed)
        dist = rng.binomial(n, x.mean(), size=resamples) / n
        method = "cells"
    else:
        dist = kernels().bootstrap_means(x, key, 0, resamples)
        method = "resample"
    lo, hi, used = _read_ci(dist, x, confidence, interval)
    return BootstrapResult(float(x.mean()), lo, hi, confidence, resamples, int(seed), method,
                           dist, used, is_constant(x))


def difference_draws(d: np.ndarray, resamples: int, seed: int,
                     studentized: bool) -> tuple[np.ndarray, np.ndarray | None]:
    """The bootstrap of mean(d) for checked continuous differences: the resampled means
    (``core._kernels.bootstrap_means``, key ``stream_key(seed)``) and, when ``studentized``,
    each resample's SD from the same pass (``core._kernels.bootstrap_means_sd``: the means are
    the same numbers, bit for bit). Returns (means, SDs of shape (1, resamples) or None)."""
    key = stream_key(seed)
    if not studentized:
        return kernels().bootstrap_means(d, key, 0, resamples), None
    out = kernels().bootstrap_means_sd(d, float(d.mean()), key, 0, resamples)
    return out[0], out[1][None, :]


def _binary_paired_dist(n: int, n10: int, n01: int, resamples: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    m = n10 + n01
    # Multinomial cells, drawn hierarchically: discordant count, then its split.
    disc = rng.binomial(n, m / n, size=resamples)
    a_only = rng.binomial(disc, n10 / m if m else 0.0)
    return (disc - 2 * a_only) / n   # (b_only - a_only) / n: B - A


def difference_interval(data: PairedData, dist: np.ndarray, *, confidence: float,
                        interval: str, seed: int,
                        sds: np.ndarray | None = None) -> tuple[float, float, str]:
    """The CI of mean(B - A) with ``interval`` (``resolve_interval`` picks the one used for
    the data's kind), given the bootstrap distribution ``dist`` of the mean difference that
    the caller drew from ``data``. Returns (low, high, interval used); ends within 1e-12 of 0
    relative to ``data.scale`` are exactly 0 (``core.paired.intervals.snap_zero``), so the printed
    interval and the verdict read the same numbers.

    * 0/1 outcomes, ``tango`` / ``newcombe`` / ``bonett_price`` / ``wald``: closed form from
      the 2x2 table (``core.paired.intervals``), with n12 = B only and n21 = A only;
    * ``percentile``, ``bca`` (falls back to percentile where BCa is undefined),
      ``expanded_percentile``: read off ``dist``;
    * ``bootstrap_t``: studentized resamples, the SDs of the very resamples of ``dist``
      (``difference_draws``);
    * ``calibrated_t`` (the default for scores): the t-interval, each end widened to the
      bootstrap-t's when that is further out (``core.paired.intervals.calibrated_t_interval``), with
      the bootstrap-t's resamples drawn as for ``bootstrap_t``;
    * ``t``: the t-interval; ``johnson_t`` / ``hall_t``: Johnson's (1978) and Hall's (1992)
      skewness-corrected t-intervals (closed forms, no bootstrap; ``core.paired.intervals``).

    ``sds``: the SDs of B - A of the same resamples as ``dist``, when the caller drew them in
    the same pass (``difference_draws``); else the studentized intervals draw them again.
    Scores all in [0, 1] keep their interval inside [-1, 1], the range of B - A.
    """
    checks.instance("data", data, PairedData, "a PairedData from paired_data")
    return interval_of_difference(data, dist, checks.confidence(confidence), interval, seed,
                                  sds)


def interval_of_difference(data: PairedData, dist: np.ndarray, confidence: float,
                           interval: str, seed: int,
                           sds: np.ndarray | None = None) -> tuple[float, float, str]:
    """``difference_interval`` for arguments the caller checked (``core.paired.multi``)."""
    return guarded_interval(data, dist, confidence, interval, seed, sds)[:3]


def guarded_interval(data: PairedData, dist: np.ndarray, confidence: float, interval: str,
                     seed: int, sds: np.ndarray | None = None) -> tuple[float, float, str, bool]:
    """``interval_of_difference`` and whether the skew guard moved an end
    (``core.paired.skew_intervals.widen_by_skew_guard``; False but for the calibrated t)."""
    used, guarded = resolve_interval(interval, data.binary), False
    if used in PAIRED_PROPORTION_METHODS:
        both, a_only, b_only, neither = data.table
        lo, hi = table_interval(both, b_only, a_only, neither, confidence, used)
    elif used in ("percentile", "bca"):
        lo, hi, used = _read_ci(dist, data.d, confidence, used)
    else:
        d = data.d[None, :]
        if used not in STUDENTIZED_METHODS:
            sds = None
        elif sds is None:
            sds = difference_draws(data.d, dist.size, seed, True)[1]
        l, h = interval_of_means(d, dist[None, :], sds, confidence, used)
        lo, hi = float(l[0]), float(h[0])
        if used == "calibrated_t":   # the skew guard (issue 36): a union, it only widens
            lo, hi, guarded = widen_by_skew_guard(data.d, lo, hi, confidence,
                                                  unit=data.unit_scores, scale=data.scale)
        elif data.unit_scores:   # B - A of scores in [0, 1] lies in [-1, 1]
            lo, hi = max(lo, -1.0), min(hi, 1.0)
    return float(snap_zero(lo, data.scale)), float(snap_zero(hi, data.scale)), used, guarded


def bootstrap_difference(data: PairedData, *, resamples: int = 20_000,
                         confidence: float = 0.95, seed: int = 0,
                         interval: str = "auto") -> BootstrapResult:
    """Paired bootstrap of mean(B - A) with the CI of ``difference_interval``, for arguments
    the caller checked (``paired_bootstrap``, ``core.paired.compare.compare_paired``: data from
    ``paired_data``, ``checks.bootstrap_iv``, ``check_interval``); nothing is checked again."""
    n = data.n
    if data.binary:
        _, a_only, b_only, _ = data.table
        dist, sds = _binary_paired_dist(n, a_only, b_only, resamples, seed), None
        mean = (b_only - a_only) / n
        constant = a_only + b_only == 0 or a_only == n or b_only == n
        method = "cells"
    else:
        d = data.d
        dist, sds = difference_draws(d, resamples, seed,
                                     resolve_interval(interval, False) in STUDENTIZED_METHODS)
        mean, constant, method = float(d.mean()), is_constant(d), "resample"
    lo, hi, used, guarded = guarded_interval(data, dist, confidence, interval, seed, sds)
    return BootstrapResult(float(mean), lo, hi, confidence, resamples, int(seed), method, dist,
                           used, bool(constant), guarded)


def paired_bootstrap(a, b, *, resamples: int = 20_000, confidence: float = 0.95,
                     seed: int = 0, interval: str = "percentile") -> BootstrapResult:
    """Paired bootstrap of mean(B - A), new minus baseline (Efron & Tibshirani 1993, ch. 13;
    BCa: ch. 14).

    Cases are resampled with replacement, A and B kept together, so each resample's statistic
    is the mean of the resampled differences d_i = b_i - a_i. ``interval="percentile"`` reads
    the CI off the (alpha/2, 1 - alpha/2) percentiles; ``"bca"`` off the bias-corrected and
    accelerated ones (``bca_ci``, scipy's definition); every other name of ``INTERVALS``
    (``"auto"``: the calibrated default of the data's kind) as ``difference_interval`` says.

    Binary outcomes: a resample of n cases is fully described by its four 2x2 cell counts,
    which are Multinomial(n; p11, p10, p01, p00) with the observed cell shares; the resampled
    difference is (n01 - n10)/n (n01: B right, A wrong). Only the discordant cells matter, and
    the multinomial is drawn hierarchically: m* ~ Binomial(n, (n10 + n01)/n),
    n10* ~ Binomial(m*, n10/(n10 + n01)), difference = (m* - 2 n10*)/n. Two binomial draws per resample replace n index draws, so
    the cost does not grow with n (``method="cells"``). Continuous values are resampled case by
    case in compiled code with counter-based streams (``method="resample"``; see
    ``core._kernels``); memory stays O(n + resamples).
    """
    data = paired_data(a, b)
    resamples, confidence, seed = checks.bootstrap_iv(resamples, confidence, seed)
    return bootstrap_difference(data, resamples=resamples, confidence=confidence, seed=seed,
                                interval=check_interval(interval))
