"""Statistics for small golden sets, their checked public entries: the verdict rule, the
Wilson interval of a rate, the bootstrap of one mean (``bootstrap_mean``) and of B − A
(``paired_bootstrap``). B − A itself is made in ``core.paired.difference`` (the checked pair,
the bootstrap of the difference and its interval; its draws and their reading in
``core.paired.resampling``), the exact paired tests are
in ``core.paired.significance``, and the verdict that needs both, the one call the golden page
makes, in ``core.paired.compare``.

Every function validates its arguments first (``core.checks``) and raises ``ValueError``
naming the argument.
Seeds are explicit keyword arguments; the same seed gives identical output.
"""
from __future__ import annotations

from typing import Literal

import numpy as np

from core import checks
from core.paired.difference import bootstrap_difference, paired_data
from core.paired.intervals import check_interval, side, wilson_bounds, z_of
from core.paired.resampling import BootstrapResult, is_constant, kernels, read_ci
from core.paired.streams import stream_key


Verdict = Literal["no_difference", "a_better", "b_better"]
CONFIDENCE_LEVELS = (0.90, 0.95, 0.99)
MIN_RESAMPLES, MAX_RESAMPLES = 1_000, 100_000


def is_binary(values) -> bool:
    """True when every value is 0 or 1."""
    arr = np.asarray(values, dtype=float)
    return bool(arr.size) and bool(np.all((arr == 0) | (arr == 1)))


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
    lo, hi, used = read_ci(dist, x, confidence, interval)
    return BootstrapResult(float(x.mean()), lo, hi, confidence, resamples, int(seed), method,
                           dist, used, is_constant(x))


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
