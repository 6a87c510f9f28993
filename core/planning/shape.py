"""Plan the width of the interval the verdict shows for scores, not the t-interval's (issue 19,
item 6).

The default interval for scores is the calibrated t-interval (``core.paired.skew_intervals``): the
t-interval with each end moved out to the studentized bootstrap-t's end when that lies further
out. It is never narrower than the t-interval, and on skewed differences it is wider: Sakai's
(2016) n, planned for t(1 - a/2, n - 1) sigma / sqrt(n) <= E, then misses the target.

Here the planned half-width is the t half-width times a **width factor** read from the shape
of the differences::

    H(n) = t(1 - a/2, n - 1) sigma / sqrt(n) * (1 + c / sqrt(n)),   c >= 0

The 1 / sqrt(n) term is the order of the bootstrap-t's skewness correction of the t-interval's
ends (Hall 1992, *The Bootstrap and Edgeworth Expansion*, ch. 3.5; Efron & Tibshirani 1993,
ch. 12.5). ``c`` is fitted by least squares to simulated ratios r(n) = mean calibrated
half-width / mean t half-width at n in ``FIT_NS``: ``sets`` sets of n values drawn with
replacement from the user's differences standardised to mean 0 and SD 1 (``width_factor(d)``;
the shape comes from the data, the scale from the planner's sigma), or from the standard
normal when there are no data (``normal_width_factor()``; the calibrated interval is a little
wider than t even on normal data, because its ends follow the bootstrap-t's noise). Planned n:
the smallest n with H(n) <= E (``n_calibrated_ci``); H decreases in n, so the search is exact.
``bench/calibration.py`` (section d, ``docs/calibration.md``) checks that the **mean**
half-width of the calibrated interval at the planned n reaches the target on normal, real
scifact and Exp(1) - 1 differences.
"""
from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import asdict, dataclass

import numpy as np

from core import checks
from core.paired import kernels, score_intervals, stream_key
from core.planning.sample_size import n_continuous_ci, plan_continuous, smallest_n, t_half_width

FIT_NS = (20, 40, 80)      # the set sizes the factor is fitted on
SETS, RESAMPLES = 300, 1_000
RATIO_CAP = 5.0            # a degenerate set (nearly all ties) counts at most 5x the t half-width
STREAM_WIDTH = 7


@dataclass(frozen=True)
class WidthFactor:
    """How much wider the calibrated interval is than the t-interval on data of this shape:
    factor(n) = 1 + ``excess`` / sqrt(n). ``source`` is "data" (the user's differences,
    ``n_data`` of them, sample skewness ``skewness``) or "normal"; ``ratios`` the simulated
    r(n) at ``FIT_NS`` it was fitted to."""

    excess: float
    source: str
    n_data: int | None
    skewness: float | None
    ratios: tuple[float, ...]
    confidence: float

    def factor(self, n):
        """1 + excess / sqrt(n) (n may be an array)."""
        return 1.0 + self.excess / np.sqrt(n)

    def to_dict(self) -> dict:
        out = asdict(self)
        out["ratios"] = dict(zip(map(str, FIT_NS), self.ratios))
        return out


def _ratios(pop: np.ndarray, confidence: float, seed: int, sets: int,
            resamples: int) -> tuple[float, ...]:
    """r(n) = mean calibrated half-width / mean t half-width over ``sets`` sets of n values
    drawn from ``pop``, each with ``resamples`` bootstrap resamples, for n in ``FIT_NS``."""
    rng = np.random.default_rng([seed, STREAM_WIDTH])
    out = []
    for n in FIT_NS:
        x = np.ascontiguousarray(pop[rng.integers(0, pop.size, size=(sets, n))])
        boot = kernels().bootstrap_sets(x, stream_key(seed, STREAM_WIDTH) + n, resamples)
        tlo, thi = score_intervals(x, boot[0], boot[1], confidence, "t")
        clo, chi = score_intervals(x, boot[0], boot[1], confidence, "calibrated_t")
        t_half = (thi - tlo) / 2
        keep = t_half > 0
        cal = np.minimum((chi - clo)[keep] / 2, RATIO_CAP * t_half[keep])
        out.append(float(np.mean(cal) / np.mean(t_half[keep])) if keep.any() else 1.0)
    return tuple(out)


def _fit(ratios) -> float:
    """Least-squares c >= 0 of r(n) - 1 = c / sqrt(n) over ``FIT_NS``."""
    x = 1.0 / np.sqrt(np.asarray(FIT_NS, float))
    y = np.asarray(ratios, float) - 1.0
    return max(0.0, float(np.sum(x * y) / np.sum(x * x)))


def width_factor(d, *, confidence: float = 0.95, seed: int = 0, sets: int = SETS,
                 resamples: int = RESAMPLES) -> WidthFactor:
    """The width factor of the user's paired differences ``d`` (at least 3 values with a
    spread): sets drawn from (d - mean) / sd. Seeded: the same seed gives the same factor."""
    d = checks.values("d", d, min_n=3)
    confidence = checks.confidence(confidence)
    seed = checks.seed(seed)
    sets = checks.whole("sets", sets, lo=20, hi=100_000)
    resamples = checks.whole("resamples", resamples, lo=100, hi=100_000)
    sd = float(np.std(d, ddof=1))
    if not sd > 0:
        raise ValueError("d needs at least two different values to have a shape")
    z = (d - d.mean()) / sd
    skew = float(np.mean(z ** 3) * (d.size - 1) ** 1.5 / d.size ** 1.5)
    r = _ratios(z, confidence, seed, sets, resamples)
    return WidthFactor(_fit(r), "data", int(d.size), skew, r, confidence)


@functools.lru_cache(maxsize=8)
def normal_width_factor(confidence: float = 0.95) -> WidthFactor:
    """The width factor when no differences are at hand: normal data (a seeded draw of
    200,000 standard normal values as the population)."""
    confidence = checks.confidence(confidence)
    pop = np.random.default_rng([0, STREAM_WIDTH]).standard_normal(200_000)
    r = _ratios(pop, confidence, 0, SETS, RESAMPLES)
    return WidthFactor(_fit(r), "normal", None, None, r, confidence)


def calibrated_half_width(sigma: float, n, factor: WidthFactor):
    """H(n) = t(1 - a/2, n - 1) sigma / sqrt(n) * factor(n), at the factor's confidence."""
    checks.instance("factor", factor, WidthFactor)
    half = t_half_width(sigma, n, factor.confidence) * factor.factor(np.asarray(n, float))
    return float(half) if np.ndim(half) == 0 else half


def n_calibrated_ci(sigma: float, half_width: float, factor: WidthFactor) -> int:
    """Smallest n >= 2 with ``calibrated_half_width(sigma, n, factor)`` <= ``half_width``."""
    s, e = checks.plan_sigma(sigma), checks.plan_half_width(half_width)
    return smallest_n(lambda n: calibrated_half_width(s, n, factor) <= e, start=2)


@dataclass(frozen=True)
class CalibratedPlan:
    """The planner's interval answer for scores: ``n_ci`` cases for the calibrated interval
    (the verdict's), beside ``n_t`` for the plain t-interval (Sakai 2016), with the factor
    assumed and the planned half-width at ``current_n``."""

    sigma: float
    half_width: float
    confidence: float
    n_ci: int
    n_t: int
    factor: WidthFactor
    current_n: int | None = None
    current_half_width: float | None = None

    @property
    def percent_wider(self) -> float:
        """How much wider than the t half-width the plan assumes at ``n_ci``, in percent."""
        return 100.0 * (float(self.factor.factor(self.n_ci)) - 1.0)

    def to_dict(self) -> dict:
        out = asdict(self)
        out["factor"] = self.factor.to_dict()
        out["percent_wider"] = self.percent_wider
        return out


def plan_calibrated(sigma: float, half_width: float, *, confidence: float = 0.95,
                    d=None, current_n: int | None = None, seed: int = 0) -> CalibratedPlan:
    """``n_calibrated_ci`` with the factor of ``d`` (the comparison's differences B - A, when
    the planner was opened with data; ``width_factor``) or of normal data (``d`` None), and
    Sakai's t-interval n beside it."""
    s, e = checks.plan_sigma(sigma), checks.plan_half_width(half_width)
    confidence = checks.confidence(confidence)
    cur = checks.current_n_iv(current_n, min_n=2)
    factor = (normal_width_factor(confidence) if d is None
              else width_factor(d, confidence=confidence, seed=seed))
    return CalibratedPlan(s, e, confidence, n_calibrated_ci(s, e, factor),
                          n_continuous_ci(s, e, confidence), factor, cur,
                          None if cur is None else calibrated_half_width(s, cur, factor))


def plan_scores(sigma: float, half_width: float, *, diff: float = 0.0,
                confidence: float = 0.95, alpha: float = 0.05, power: float = 0.8,
                current_n: int | None = None, d=None, seed: int = 0):
    """The planner's continuous design (``core.planning.sample_size.plan_continuous``) with its
    interval answer planned for the calibrated interval (``plan_calibrated``): ``n_ci`` and
    ``current_half_width`` are the calibrated interval's, ``calibrated`` holds the plan with
    the factor it assumed and the t-interval's n."""
    cp = plan_continuous(sigma, half_width, diff=diff, confidence=confidence, alpha=alpha,
                         power=power, current_n=current_n)
    cal = plan_calibrated(sigma, half_width, confidence=confidence, d=d,
                          current_n=current_n, seed=seed)
    return dataclasses.replace(cp, n_ci=cal.n_ci, current_half_width=cal.current_half_width,
                               calibrated=cal)


def shape_of(comparison) -> np.ndarray | None:
    """The differences B - A of a golden comparison (``GoldenComparison``: ``a_values``,
    ``b_values``) when they can give a shape (at least 3 values, not all equal), else None."""
    if comparison is None:
        return None
    d = np.asarray(comparison.b_values, float) - np.asarray(comparison.a_values, float)
    d = d[np.isfinite(d)]
    if d.size < 3 or not np.std(d) > 0 or math.isnan(float(np.std(d))):
        return None
    return d
