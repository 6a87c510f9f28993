"""Each method's own score with its interval, on every surface that shows one (the golden
page and CLI, the systems page's pair, lists and TREC runs through ``core.inputs.golden``): Wilson for
0/1 outcomes (``core.paired.stats.wilson_interval``), the calibrated t-interval for scores
(``mean_intervals``). ``core.paired.stats`` re-exports these names.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from core import checks
from core.paired.skew_intervals import calibrated_t_interval
from core.paired.streams import STREAM_METHODS, row_key, stream_key

RATE_INTERVALS = ("wilson", "calibrated_t")   # RateEstimate.interval: 0/1, scores
# Studentized resamples per method (``method_resamples``): all R while n x R <= METHOD_WORK,
# fewer above (METHOD_WORK // n), never fewer than METHOD_MIN_RESAMPLES (nor more than R).
METHOD_WORK = 200_000_000
METHOD_MIN_RESAMPLES = 2_000


@dataclass(frozen=True)
class RateEstimate:
    """One method's score on the paired cases, with its interval: Wilson for 0/1 outcomes
    (``successes`` of ``n``), the calibrated t-interval for scores (``mean_intervals``, from
    ``resamples`` studentized resamples)."""

    n: int
    mean: float
    ci_low: float
    ci_high: float
    interval: Literal["wilson", "calibrated_t"]
    successes: int | None = None
    resamples: int | None = None

    @property
    def resolution(self) -> float:
        """One case as a share of the n cases (1/n; ``core.paired.stats.resolution``)."""
        return 1.0 / self.n

    def to_dict(self) -> dict:
        out = {"n": self.n}
        if self.successes is not None:
            out["successes"] = self.successes
        out.update(rate=self.mean, ci_low=self.ci_low, ci_high=self.ci_high,
                   interval=self.interval, resolution=self.resolution)
        if self.resamples is not None:
            out["resamples"] = self.resamples
        return out


def method_resamples(n: int, resamples: int) -> int:
    """How many studentized resamples one method's interval of scores draws (``mean_intervals``):
    all ``resamples`` while n x resamples <= ``METHOD_WORK`` (2 x 10^8 drawn values), else
    METHOD_WORK // n, but never fewer than ``METHOD_MIN_RESAMPLES`` (2,000) nor more than
    ``resamples``. Up to 10,000 cases at the default 20,000 resamples every figure keeps full
    precision; at 100,000 cases each method draws 2,000 (a tenth of the difference's work), where
    the bootstrap-t's ends barely move the t-interval's (the skew's effect shrinks as
    1/sqrt(n))."""
    return _method_resamples(checks.whole("n", n, lo=1), checks.resamples(resamples))


def _method_resamples(n: int, resamples: int) -> int:
    """``method_resamples`` of checked arguments."""
    return min(resamples, max(METHOD_MIN_RESAMPLES, METHOD_WORK // n))


def mean_intervals(values, *, confidence: float = 0.95, resamples: int = 20_000,
                   seed: int = 0) -> tuple[np.ndarray, np.ndarray, int]:
    """Each method's interval of its mean score: the calibrated t-interval
    (``core.paired.skew_intervals.calibrated_t_interval``: the t-interval, each end widened to the
    studentized bootstrap-t's when that lies further out) of each row of ``values`` (S methods
    x n cases, or one vector). The one way every page, the CLI and the JSON show a per-method
    interval of continuous scores (0/1 outcomes keep Wilson); the percentile bootstrap it
    replaces covered 86-94% at 10-30 cases, this meets 95% (``docs/calibration.md``, per-method
    block).

    Row s draws ``method_resamples(n, resamples)`` resamples in one compiled pass
    (``core._kernels.bootstrap_means_sd``: each resample's mean and SD) from the run keyed by
    ``row_key(stream_key(seed, STREAM_METHODS), s)``. A row whose values all lie in [0, 1] keeps
    its interval inside [0, 1] (a mean of such scores cannot leave it), as
    ``core.paired.difference.difference_interval`` keeps B - A inside [-1, 1]. Returns (low, high, resamples drawn);
    low and high are arrays of length S."""
    x = np.atleast_2d(np.asarray(values, dtype=float))
    if x.ndim != 2 or x.shape[1] < 1 or not np.all(np.isfinite(x)):
        raise ValueError("values must be finite numbers: one row of n >= 1 cases per method")
    resamples, confidence, seed = checks.bootstrap_iv(resamples, confidence, seed)
    return mean_intervals_of(x, confidence, resamples, seed)


def mean_intervals_of(x: np.ndarray, confidence: float, resamples: int,
                      seed: int) -> tuple[np.ndarray, np.ndarray, int]:
    """``mean_intervals`` of a finite 2-D float array (methods x cases) and settings the
    caller checked (``core.paired.compare.compare_paired``): the same intervals, no check
    again."""
    from core import _kernels   # lazy: numba, imported on first use, as core.paired.resampling.kernels does
    S, n = x.shape
    r = _method_resamples(n, resamples)
    key = stream_key(seed, STREAM_METHODS)
    means, sds = np.empty((S, r)), np.empty((S, r))
    for s in range(S):
        row = np.ascontiguousarray(x[s])
        means[s], sds[s] = _kernels.bootstrap_means_sd(row, float(row.mean()), row_key(key, s),
                                                        0, r)
    lo, hi = calibrated_t_interval(x, means, sds, confidence)
    unit = np.all((x >= 0) & (x <= 1), axis=1)
    lo = np.where(unit, np.maximum(lo, 0.0), lo)
    hi = np.where(unit, np.minimum(hi, 1.0), hi)
    return lo, hi, r
