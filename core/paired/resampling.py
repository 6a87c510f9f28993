"""The bootstrap of a mean, drawn and read (Efron & Tibshirani 1993): the resampled means of
B − A (``difference_draws``: the counter-based numba kernels of ``core._kernels``; a 0/1 table
from its cells, ``binary_paired_dist``), their reading (``percentile_ci``, ch. 13; ``bca_ci``,
ch. 14; ``read_ci``, the one percentile/BCa fallback) and the result that keeps every resampled
mean (``BootstrapResult``). A room below ``core.paired.difference``, where B − A and its
interval are made; ``core.paired.stats`` holds the checked public entries (``paired_bootstrap``,
``bootstrap_mean``).

Functions here take checked arguments and never check again, except ``bca_ci``, a public door
of its own; seeds are explicit, the same seed gives identical output.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Literal

import numpy as np

from core import checks
from core.paired.streams import stream_key

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
    ``skew_guard``: the skew guard moved an end (scores; issue 36: the labels name it).
    ``reaches_zero``: the interval was widened to reach 0 because too few cases differ for any
    exact test to tell (scores; ``core.paired.skew_intervals.reach_zero_when_few``)."""

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
    reaches_zero: bool = False

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


def binary_paired_dist(n: int, n10: int, n01: int, resamples: int, seed: int) -> np.ndarray:
    """The paired bootstrap of mean(B - A) of a 0/1 table drawn from its cells: the
    discordant count ~ Binomial(n, (n10 + n01)/n), then its split A-only ~ Binomial(that,
    n10/(n10 + n01)); returns (B-only - A-only)/n per resample (same draws as resampling the
    cases, in O(resamples)). Checked arguments (``bootstrap_difference``)."""
    rng = np.random.default_rng(seed)
    m = n10 + n01
    # Multinomial cells, drawn hierarchically: discordant count, then its split.
    disc = rng.binomial(n, m / n, size=resamples)
    a_only = rng.binomial(disc, n10 / m if m else 0.0)
    return (disc - 2 * a_only) / n   # (b_only - a_only) / n: B - A
