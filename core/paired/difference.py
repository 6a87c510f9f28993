"""B − A of one checked pair, made once: the two vectors checked at the public door
(``paired_data`` -> ``PairedData``: their kind, 0/1 outcomes or scores, and for 0/1 the 2x2
table; scipy's ``_iv`` style, issue 20 item 7a: helpers that take a ``PairedData`` trust it),
the bootstrap of mean(B − A) (``bootstrap_difference``; Efron & Tibshirani 1993, ch. 13-14) and
its interval (``guarded_interval``: Tango's for a 0/1 table, ``core.paired.intervals``; the
calibrated t with the skew guard for scores, ``core.paired.skew_intervals``), in one
``BootstrapResult``. The room the card's number is made in (docs/CONTRIBUTING.md);
``core.paired.compare`` decides on it, and ``core.paired.stats`` holds the checked public
entries (``paired_bootstrap``, ``bootstrap_mean``) and re-exports these names.

Functions here take checked arguments (``paired_data``, ``checks.bootstrap_iv``,
``check_interval``) and never check again; seeds are explicit, the same seed gives identical
output.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Literal

import numpy as np

from core import checks
from core.paired.intervals import (PAIRED_PROPORTION_METHODS, STUDENTIZED_METHODS,
                                   interval_of_means, resolve_interval, snap_zero,
                                   table_interval)
from core.paired.skew_intervals import widen_by_skew_guard
from core.paired.streams import stream_key


@dataclass(frozen=True)
class PairedData:
    """Two aligned vectors A (baseline) and B (new), checked once at the public door
    (``paired_data``): finite, one-dimensional, the same length. ``binary`` when both hold
    only 0 and 1, and then ``table`` = (both right, A only, B only, neither). Functions that
    take a ``PairedData`` trust it (scipy's ``_iv`` style: validate once, not in every
    helper)."""

    a: np.ndarray = field(repr=False)
    b: np.ndarray = field(repr=False)
    binary: bool
    table: tuple[int, int, int, int] | None

    @property
    def n(self) -> int:
        return int(self.a.size)

    @property
    def d(self) -> np.ndarray:
        """The paired differences B - A (computed when asked: 0/1 data rarely need them)."""
        return self.b - self.a

    @property
    def scale(self) -> float:
        """max |B - A|: the size a rounding tolerance is relative to (1 for 0/1 data)."""
        if self.binary:
            return 1.0
        return float(np.max(np.abs(self.d))) if self.n else 0.0

    @property
    def unit_scores(self) -> bool:
        """Every value of A and B lies in [0, 1] (golden outcomes, IR metrics), so B - A
        cannot leave [-1, 1]: an interval end beyond it (a bootstrap-t over a few non-zero
        differences can reach 2) is cut there, which can only raise coverage."""
        return bool(self.n and self.a.min() >= 0 and self.a.max() <= 1 and self.b.min() >= 0
                    and self.b.max() <= 1)


def _only_zeros_and(x: np.ndarray, ones: int) -> bool:
    """True when every non-zero value of the float array ``x`` is one of its ``ones`` ones
    (so x is 0/1). Non-zero bit patterns are counted on an int64 view (fast); -0.0 has a
    non-zero pattern, so a mismatch is confirmed with the float count."""
    if int(np.count_nonzero(x.view(np.int64))) == ones:
        return True
    return int(np.count_nonzero(x)) == ones


def paired_data(a, b, *, min_n: int = 1) -> PairedData:
    """Check two paired vectors once (``checks.pair``) and find their kind in one pass each:
    0/1 outcomes get their 2x2 table."""
    a, b = checks.pair(a, b, min_n=min_n)
    return checked_pair(a, b)


def checked_pair(a: np.ndarray, b: np.ndarray) -> PairedData:
    """``paired_data`` of two float arrays the caller checked (``checks.pair``; e.g. one
    group's cases of a checked pair, ``core.inputs.groups``): the kind and the 2x2 table
    found the same way, nothing checked again."""
    a1 = a == 1
    ones_a = int(np.count_nonzero(a1))
    binary = _only_zeros_and(a, ones_a)
    table = None
    if binary:
        b1 = b == 1
        ones_b = int(np.count_nonzero(b1))
        binary = _only_zeros_and(b, ones_b)
        if binary:
            both = int(np.count_nonzero(a1 & b1))
            table = (both, ones_a - both, ones_b - both, a.size - ones_a - ones_b + both)
    return PairedData(a, b, binary, table)


Interval = str   # one of INTERVALS (the name actually used is kept in BootstrapResult)


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


def is_constant(values) -> bool:
    """True when the values are all equal up to rounding: their spread (max - min) is at most
    ``CONSTANT_RTOL`` (1e-12) of their scale max|x|. So 0.25 stored exactly and 0.25 reached
    as 0.35 - 0.1 (or 0.250000001 - 1e-9) count the same."""
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        return True
    scale = float(np.max(np.abs(x)))
    return float(np.ptp(x)) <= CONSTANT_RTOL * scale


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


def read_ci(dist: np.ndarray, values: np.ndarray, confidence: float,
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
        lo, hi, used = read_ci(dist, data.d, confidence, used)
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
