"""Sample-size planning: how many golden cases make an interval narrow enough, or a difference
detectable? Three designs, each a small frozen result with ``to_dict()``:

* one method's binary rate (``plan_rate``): the smallest n whose Wilson (1927) interval at the
  assumed rate p has half-width <= E, found by searching over n; the normal-approximation
  n = z^2 p(1-p) / E^2 beside it;
* two methods on the same binary cases (``plan_paired``): the n at which the CI of the paired
  difference (Tango's interval, the one the verdict uses) has half-width <= E, the n for the McNemar test by Connor (1987), and the smallest
  difference an exact McNemar test would call significant at the current n;
* continuous per-case scores, e.g. nDCG (``plan_continuous``): Sakai's (2016) CI-based design,
  smallest n with t(1-alpha/2, n-1) * sigma / sqrt(n) <= E, and the paired t-test power design;
* non-inferiority (``core.planning.noninferiority.plan_noninferiority``): the n for 80% power to
  show that B is not worse than A by more than a margin.

Rates, discordance, differences and half-widths are shares (0.02 = 2 %p), never percents.
Impossible inputs raise ``core.errors.InputError`` (a ``ValueError``) with a
``sample_size.err_*`` code, so the page shows it translated and the CLI exits 2 with one line.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Callable

import numpy as np

from core import checks
from core.errors import InputError
from core.paired import (alpha_of, is_binary, mcnemar_midp, nct_sf, tango_limits, wilson_bounds,
                         z_two_sided)

MAX_N = 100_000_000  # searches stop here: a plan beyond 10^8 cases is not a plan


def ceil_n(x: float) -> int:
    """ceil that ignores float noise: 1600.0000000000002 -> 1600 (a planned n)."""
    return int(math.ceil(round(x, 9)))


# ----------------------------------------------------------------------------- search
def smallest_n(ok: Callable[[int], bool], *, start: int = 1, limit: int = MAX_N) -> int:
    """Smallest n >= ``start`` with ``ok(n)`` true, for a monotone ``ok`` (false ... true).

    Doubling from ``start`` until ``ok`` holds, then bisection between the last false and the
    first true n: about 2*log2(n) calls. Raises ``InputError`` when n would exceed ``limit``.
    """
    start, limit = checks.plan_n(start, name="start"), checks.plan_n(limit, name="limit")
    if ok(start):
        return start
    lo, hi = start, start  # ok(lo) is false
    while True:
        hi = min(2 * hi, limit)
        if ok(hi):
            break
        if hi >= limit:
            raise InputError("sample_size.err_too_many", limit=f"{limit:,}")
        lo = hi
    while hi - lo > 1:  # invariant: ok(lo) false, ok(hi) true
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi


# ----------------------------------------------------------------------------- one rate
def wilson_half_width(rate, n, confidence: float = 0.95):
    """Half-width of the Wilson (1927) score interval when the observed rate is ``rate``.

    With z the two-sided normal quantile of ``confidence``::

        half(n) = z / (1 + z^2/n) * sqrt(p(1-p)/n + z^2/(4 n^2))

    the same half as ``core.paired.stats.wilson_interval`` (the interval never leaves [0, 1], so no
    clipping). ``n`` may be an array. For fixed 0 < p < 1 the half-width strictly decreases in n:
    d/dn of half^2 has the sign of p(1-p)(z^2 - n) - z^2/2 < 0, because p(1-p) <= 1/4.
    """
    p = np.asarray(rate, dtype=float)
    z = z_two_sided(confidence)
    n = checks.at_least("n", n, 1)
    _, _, half = wilson_bounds(p * n, n, z)   # the one Wilson formula (core.paired.intervals)
    return float(half) if half.ndim == 0 else half


def n_wilson(rate: float, half_width: float, confidence: float = 0.95) -> int:
    """Smallest n with ``wilson_half_width(rate, n) <= half_width``, by search over n
    (``smallest_n``: the half-width is monotone in n, see ``wilson_half_width``)."""
    p, e, confidence = checks.rate_plan_iv(rate, half_width, confidence)
    return smallest_n(lambda n: wilson_half_width(p, n, confidence) <= e)


def n_normal(rate: float, half_width: float, confidence: float = 0.95) -> int:
    """Normal-approximation (Wald) sample size: n = ceil(z^2 p(1-p) / E^2)."""
    p, e = checks.plan_rate(rate), checks.plan_half_width(half_width)
    z = z_two_sided(confidence)
    return max(1, ceil_n(z * z * p * (1 - p) / (e * e)))


@dataclass(frozen=True)
class RatePlan:
    """How many cases pin one method's rate down to +/- ``half_width``."""

    rate: float
    half_width: float
    confidence: float
    n_wilson: int
    n_normal: int
    current_n: int | None = None
    current_half_width: float | None = None  # Wilson half-width at current_n

    @property
    def resolution(self) -> float:
        """One case as a share of the planned n (1/n); times 100 it is %p."""
        return 1.0 / self.n_wilson

    def to_dict(self) -> dict:
        return {**asdict(self), "resolution": self.resolution}


def plan_rate(rate: float, half_width: float, confidence: float = 0.95, *,
              current_n: int | None = None) -> RatePlan:
    """Wilson and normal-approximation n for one rate, and the half-width at ``current_n``."""
    p, e, confidence = checks.rate_plan_iv(rate, half_width, confidence)
    cur = checks.current_n_iv(current_n)
    return RatePlan(p, e, confidence, n_wilson(p, e, confidence), n_normal(p, e, confidence),
                    cur, None if cur is None else wilson_half_width(p, cur, confidence))


def half_width_curve(rate: float, confidence: float = 0.95, *, n_max: int,
                     points: int = 160):
    """Wilson half-width against n on a log grid 1..n_max (at most ``points`` rows):
    columns ``n`` and ``half_width`` (share); a pandas DataFrame."""
    import pandas as pd
    p = checks.plan_rate(rate)
    n_max = checks.plan_n(n_max, name="n_max")
    grid = np.unique(np.round(np.geomspace(1, max(n_max, 2), points)).astype(int))
    return pd.DataFrame({"n": grid, "half_width": wilson_half_width(p, grid, confidence)})


# ----------------------------------------------------------------------------- paired binary
def paired_half_width(discordance: float, diff: float, n, confidence: float = 0.95):
    """Half-width of the interval the verdict uses for a paired difference of binary outcomes
    (Tango's, ``core.paired.difference.tango_limits``) at the expected table of n cases:
    n (d + Delta)/2 where only B is right, n (d - Delta)/2 where only A is (discordance
    d = P(a != b), Delta = B - A); (U - L)/2, decreasing in n (an array too). For large n it
    approaches the Wald half-width z sqrt((d - Delta^2)/n); at small n it is wider, as the
    interval is. ``docs/calibration.md`` (bench section d) checks that the *mean* half-width
    over every table of the planned n reaches the target."""
    d, delta = checks.plan_discordance(discordance, diff)
    n = np.asarray(n, dtype=float)
    lo, hi = tango_limits(n * (d + delta) / 2, n * (d - delta) / 2, n, z_two_sided(confidence))
    half = (hi - lo) / 2
    return float(half) if half.ndim == 0 else half


def n_paired_ci(discordance: float, diff: float, half_width: float,
                confidence: float = 0.95) -> int:
    """Smallest n with ``paired_half_width(d, Delta, n) <= half_width`` (search over n;
    at least the Wald n ceil(z^2 (d - Delta^2) / E^2))."""
    d, delta = checks.plan_discordance(discordance, diff)
    e = checks.plan_half_width(half_width)
    confidence = checks.confidence(confidence)
    return smallest_n(lambda n: paired_half_width(d, delta, n, confidence) <= e * (1 + 1e-12))


def n_mcnemar(discordance: float, diff: float, *, alpha: float = 0.05,
              power: float = 0.8) -> int:
    """Cases needed for a two-sided McNemar test to detect a true difference Delta.

    Connor (1987), "Sample size for testing differences in proportions for the paired-sample
    design", Biometrics 43:207-211, with psi = discordance d and delta = Delta::

        n = [ z(1-alpha/2) * sqrt(d) + z(power) * sqrt(d - Delta^2) ]^2 / Delta^2

    (the McNemar z statistic without continuity correction; the exact test needs a few more).
    """
    d, delta = checks.plan_discordance(discordance, diff)
    alpha, power = checks.power_plan_iv(alpha, power)
    if delta == 0.0:
        raise InputError("sample_size.err_zero_diff")
    from scipy.special import ndtri  # = scipy.stats.norm.ppf (scipy.stats: ~0.7 s to import)
    za, zb = ndtri(1 - alpha / 2), ndtri(power)
    n = (za * math.sqrt(d) + zb * math.sqrt(d - delta * delta)) ** 2 / (delta * delta)
    if n > MAX_N:
        raise InputError("sample_size.err_too_many", limit=f"{MAX_N:,}")
    return max(1, ceil_n(n))


def mcnemar_power(n: int, discordance: float, diff: float, *, alpha: float = 0.05) -> float:
    """Approximate power of the two-sided McNemar test at n cases: Connor's (1987) formula
    solved for power, Phi((|Delta| sqrt(n) - z(1-alpha/2) sqrt(d)) / sqrt(d - Delta^2))."""
    n = checks.plan_n(n)
    d, delta = checks.plan_discordance(discordance, diff)
    alpha = checks.plan_level("alpha", alpha)
    from scipy.special import ndtr, ndtri  # = scipy.stats.norm.cdf / .ppf
    za = ndtri(1 - alpha / 2)
    return float(ndtr((abs(delta) * math.sqrt(n) - za * math.sqrt(d))
                              / math.sqrt(d - delta * delta)))


@dataclass(frozen=True)
class MinSignificant:
    """The smallest split of m discordant cases an exact McNemar test calls significant."""

    n: int
    discordant: int
    a_only: int
    b_only: int
    p_value: float

    @property
    def diff(self) -> float:
        """(a_only - b_only) / n: the difference in accuracy that split means."""
        return (self.a_only - self.b_only) / self.n

    def to_dict(self) -> dict:
        return {**asdict(self), "diff": self.diff}


def discordant_count(n: int, discordance: float) -> int:
    """The number of discordant cases a share ``discordance`` of ``n`` cases means: round(d n)."""
    return int(round(discordance * n))


def min_significant_diff(n: int, discordance: float, *,
                         alpha: float = 0.05) -> MinSignificant | None:
    """With m = round(d n) discordant cases, the most even split (a_only >= b_only) whose
    mid-p McNemar p-value (``core.paired.significance.mcnemar_midp``, the test the 0/1 verdict uses)
    is below ``alpha``; None if even m-0 is not.

    The two-sided mid-p value falls as the split gets more lopsided, so a bisection over
    a_only in [ceil(m/2), m] finds it in log2(m) tests.
    """
    n = checks.plan_n(n)
    d = checks.plan_number("discordance", discordance)
    if not 0.0 <= d <= 1.0:
        raise InputError("sample_size.err_discordance", value=f"{d:g}")
    alpha = checks.plan_level("alpha", alpha)
    m = discordant_count(n, d)
    if m == 0 or mcnemar_midp(m, 0) >= alpha:
        return None
    lo, hi = (m + 1) // 2 - 1, m  # p(lo) >= alpha (or below range), p(hi) < alpha
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if mid >= (m + 1) // 2 and mcnemar_midp(mid, m - mid) < alpha:
            hi = mid
        else:
            lo = mid
    return MinSignificant(n, m, hi, m - hi, mcnemar_midp(hi, m - hi))


@dataclass(frozen=True)
class PairedPlan:
    """Two methods on the same binary cases: n for a narrow CI of B - A and for the test."""

    discordance: float
    diff: float
    half_width: float
    confidence: float
    alpha: float
    power: float
    n_ci: int
    n_power: int | None  # None when diff = 0 (nothing to detect)
    current_n: int | None = None
    current_half_width: float | None = None
    current_power: float | None = None
    min_significant: MinSignificant | None = None

    def to_dict(self) -> dict:
        out = asdict(self)
        out["min_significant"] = (None if self.min_significant is None
                                  else self.min_significant.to_dict())
        return out


def plan_paired(discordance: float, diff: float, half_width: float, *,
                confidence: float = 0.95, alpha: float = 0.05, power: float = 0.8,
                current_n: int | None = None) -> PairedPlan:
    """``n_paired_ci``, ``n_mcnemar`` (Connor 1987) and, at ``current_n``, the CI half-width,
    the approximate power and ``min_significant_diff``."""
    d, delta = checks.plan_discordance(discordance, diff)
    e = checks.plan_half_width(half_width)
    confidence = checks.confidence(confidence)
    alpha, power = checks.power_plan_iv(alpha, power)
    cur = checks.current_n_iv(current_n)
    n_pow = None if delta == 0 else n_mcnemar(d, delta, alpha=alpha, power=power)
    return PairedPlan(
        d, delta, e, confidence, alpha, power, n_paired_ci(d, delta, e, confidence), n_pow,
        cur,
        None if cur is None else paired_half_width(d, delta, cur, confidence),
        None if cur is None or delta == 0 else mcnemar_power(cur, d, delta, alpha=alpha),
        None if cur is None else min_significant_diff(cur, d, alpha=alpha))


# ----------------------------------------------------------------------------- continuous
def t_half_width(sigma: float, n, confidence: float = 0.95):
    """Half-width of the t interval of a mean paired difference: t(1-a/2, n-1) sigma / sqrt(n),
    with a = 1 - confidence (n >= 2). Decreasing in n (both factors are)."""
    s = checks.plan_sigma(sigma)
    confidence = checks.confidence(confidence)
    n = checks.at_least("n", n, 2)  # a t interval needs 2 cases
    from scipy.special import stdtrit  # = scipy.stats.t.ppf (tested), without scipy.stats
    half = stdtrit(n - 1, 0.5 + confidence / 2) * s / np.sqrt(n)
    return float(half) if half.ndim == 0 else half


def n_continuous_ci(sigma: float, half_width: float, confidence: float = 0.95) -> int:
    """Sakai's (2016) CI-based design ("Topic set size design", Information Retrieval Journal
    19:256-283): the smallest n >= 2 with t(1-alpha/2, n-1) * sigma / sqrt(n) <= E, by search
    over n (Sakai's guess-and-check with sigma as the variance estimate)."""
    s, e = checks.plan_sigma(sigma), checks.plan_half_width(half_width)
    confidence = checks.confidence(confidence)
    return smallest_n(lambda n: t_half_width(s, n, confidence) <= e, start=2)


def paired_t_power(n: int, diff: float, sigma: float, *, alpha: float = 0.05) -> float:
    """Power of the two-sided paired t-test at n cases when the true mean difference is
    ``diff`` and the per-case differences have SD ``sigma``: with df = n-1, the noncentrality
    lambda = |diff| sqrt(n) / sigma and c = t(1-alpha/2, df),
    power = P(T' > c) + P(T' < -c), T' ~ noncentral t(df, lambda). Equals
    ``statsmodels.stats.power.TTestPower().power`` (tested)."""
    n = checks.plan_n(n, min_n=2)
    delta, s = checks.plan_number("diff", diff), checks.plan_sigma(sigma)
    alpha = checks.plan_level("alpha", alpha)
    df, nc = n - 1, abs(delta) * math.sqrt(n) / s
    from scipy.special import nctdtr, stdtrit  # = scipy.stats.t.ppf, nct.cdf
    c = stdtrit(df, 1 - alpha / 2)
    return float(nct_sf(c, df, nc) + nctdtr(df, nc, -c))


def n_continuous_power(diff: float, sigma: float, *, alpha: float = 0.05,
                       power: float = 0.8) -> int:
    """Sakai's (2016) t-test-based design, computed exactly: the smallest n >= 2 whose
    ``paired_t_power`` reaches ``power`` (search over n; power rises with n)."""
    delta, s = checks.plan_number("diff", diff), checks.plan_sigma(sigma)
    alpha, power = checks.power_plan_iv(alpha, power)
    if delta == 0.0:
        raise InputError("sample_size.err_zero_diff")
    return smallest_n(lambda n: paired_t_power(n, delta, s, alpha=alpha) >= power, start=2)


@dataclass(frozen=True)
class ContinuousPlan:
    """Continuous per-case scores (e.g. nDCG@10): n for a narrow CI and for the paired t-test."""

    sigma: float
    half_width: float
    confidence: float
    diff: float
    alpha: float
    power: float
    n_ci: int
    n_power: int | None  # None when diff = 0
    current_n: int | None = None
    current_half_width: float | None = None
    current_power: float | None = None
    calibrated: object = None   # core.planning.shape.CalibratedPlan (plan_scores)

    def to_dict(self) -> dict:
        return asdict(self)


def plan_continuous(sigma: float, half_width: float, *, diff: float = 0.0,
                    confidence: float = 0.95, alpha: float = 0.05, power: float = 0.8,
                    current_n: int | None = None) -> ContinuousPlan:
    """``n_continuous_ci`` and ``n_continuous_power`` (Sakai 2016), and the t half-width and
    power at ``current_n`` (n >= 2)."""
    s, e = checks.plan_sigma(sigma), checks.plan_half_width(half_width)
    delta = checks.plan_number("diff", diff)
    confidence = checks.confidence(confidence)
    alpha, power = checks.power_plan_iv(alpha, power)
    cur = checks.current_n_iv(current_n, min_n=2)
    return ContinuousPlan(
        s, e, confidence, delta, alpha, power, n_continuous_ci(s, e, confidence),
        None if delta == 0 else n_continuous_power(delta, s, alpha=alpha, power=power),
        cur,
        None if cur is None else t_half_width(s, cur, confidence),
        None if cur is None or delta == 0 else paired_t_power(cur, delta, s, alpha=alpha))


# ----------------------------------------------------------------------------- power curve
def power_curve(*, diff: float, n_max: int, alpha: float = 0.05,
                discordance: float | None = None, sigma: float | None = None,
                points: int = 80):
    """Power against n on a log grid 2..n_max (at most ``points`` rows), a DataFrame of ``n``
    and ``power``: with ``discordance`` (paired 0/1 outcomes) ``mcnemar_power`` (Connor 1987),
    with ``sigma`` (scores) ``paired_t_power`` (noncentral t); give exactly one. The power at
    the planned n of ``plan_paired`` / ``plan_continuous`` reaches the planned power on this
    curve (non-inferiority: ``core.planning.noninferiority.noninferiority_power_curve``)."""
    if (discordance is None) == (sigma is None):
        raise ValueError("give exactly one of discordance (binary) or sigma (scores)")
    n_max = checks.plan_n(n_max, name="n_max", min_n=2)
    points = checks.whole("points", points, lo=2)
    alpha = checks.plan_level("alpha", alpha)
    if discordance is not None:
        d, delta = checks.plan_discordance(discordance, diff)
        power = (lambda n: mcnemar_power(n, d, delta, alpha=alpha))
    else:
        delta, s = checks.plan_number("diff", diff), checks.plan_sigma(sigma)
        power = (lambda n: paired_t_power(n, delta, s, alpha=alpha))
    if delta == 0.0:
        raise InputError("sample_size.err_zero_diff")
    grid = np.unique(np.round(np.geomspace(2, n_max, points)).astype(int))
    import pandas as pd
    return pd.DataFrame({"n": grid, "power": [power(int(n)) for n in grid]})


# ----------------------------------------------------------------------------- page defaults
DEFAULT_RATE, DEFAULT_DISCORDANCE, DEFAULT_DIFF, DEFAULT_SIGMA = 0.8, 0.2, 0.03, 0.3
_RATE_CLIP = (0.001, 0.999)


@dataclass(frozen=True)
class PlanDefaults:
    """Starting values for the planner and where each came from (``*_from_data``).

    ``source`` is "comparison" (a ``GoldenComparison``), "golden_set" (a ``GoldenSet`` only)
    or "none". Rates are shares; ``sigma`` and ``cdiff`` are in score units.
    """

    source: str
    name: str | None
    a: str | None
    b: str | None
    binary: bool | None
    current_n: int | None
    rate: float
    rate_from_data: bool
    discordance: float
    diff: float
    paired_from_data: bool
    sigma: float
    cdiff: float
    sigma_from_data: bool


def defaults_from(comparison=None, golden=None) -> PlanDefaults:
    """Planner defaults from the loaded golden data, else general ones (rate 0.8, discordance
    0.2, difference 0.03, SD 0.3).

    * rate: method A's rate in a binary comparison, else the first binary method's rate in the
      golden set (clipped to [0.001, 0.999], since 0% and 100% give no interval to plan);
    * discordance and difference B - A: the binary comparison's (when A and B disagree at all);
    * SD of per-case differences and the difference to detect: std(b - a, ddof=1) and
      |mean(b - a)| of the comparison (any kind of scores), when both are above 0.
    """
    rate, rate_data = DEFAULT_RATE, False
    disc, diff, paired_data = DEFAULT_DISCORDANCE, DEFAULT_DIFF, False
    sigma, cdiff, sigma_data = DEFAULT_SIGMA, DEFAULT_DIFF, False
    if comparison is not None:
        c = comparison.comparison
        name, a, b, binary, n = comparison.golden.source, c.a, c.b, c.binary, comparison.n_cases
        if binary:
            rate, rate_data = float(np.clip(c.rate_a.mean, *_RATE_CLIP)), True
            if c.discordance and c.discordance - c.bootstrap.mean ** 2 > 0:
                disc, diff, paired_data = float(c.discordance), float(c.bootstrap.mean), True
        dvals = np.asarray(comparison.b_values, float) - np.asarray(comparison.a_values, float)
        sd = float(np.std(dvals, ddof=1)) if dvals.size >= 2 else 0.0
        if sd > 0 and abs(dvals.mean()) > 0:
            sigma, cdiff, sigma_data = sd, float(abs(dvals.mean())), True
        return PlanDefaults("comparison", name, a, b, binary, n, rate, rate_data, disc, diff,
                            paired_data, sigma, cdiff, sigma_data)
    if golden is not None:
        binary_methods = [m for m in golden.methods if golden.is_binary(m)]
        a = binary_methods[0] if binary_methods else (golden.methods or [None])[0]
        if binary_methods:
            rate, rate_data = float(np.clip(golden.scores[a].dropna().mean(), *_RATE_CLIP)), True
        n = int(golden.scores[a].notna().sum()) if a is not None else None
        return PlanDefaults("golden_set", golden.source, a, None, bool(binary_methods), n,
                            rate, rate_data, disc, diff, False, sigma, cdiff, False)
    return PlanDefaults("none", None, None, None, None, None, rate, False, disc, diff, False,
                        sigma, cdiff, False)


# ----------------------------------------------------------------------------- the next step
@dataclass(frozen=True)
class CasesNeeded:
    """How many cases a comparison that could not tell A and B apart would need to tell apart
    a true difference the size of the one it saw, with ``power`` (80%) at alpha = 1 -
    ``confidence``. ``design`` is "paired" (0/1 outcomes: McNemar, Connor 1987, from the
    data's discordance) or "continuous" (scores: paired t, Sakai 2016, from the SD of the
    per-case differences B - A). ``n_needed`` is None when no number of cases would do (the
    observed difference is 0, or the plan passes ``MAX_N``)."""

    design: str
    n_needed: int | None
    n_have: int
    diff: float                  # observed mean difference B - A (a share or score units)
    discordance: float | None    # paired design: share of cases where A and B disagree
    sigma: float | None          # continuous design: SD of b - a (ddof 1)
    confidence: float
    power: float

    def url_params(self) -> dict[str, str]:
        """The planner page's URL values for this plan (percent and %p for the paired
        design, points x 100 for the continuous one), so its link opens filled in."""
        out = {"design": self.design, "n": str(self.n_have),
               "confidence": f"{100 * self.confidence:g}", "power": f"{100 * self.power:g}",
               "alpha": f"{100 * (1 - self.confidence):.3g}"}
        if self.design == "paired":
            out.update(disc=f"{100 * self.discordance:.1f}", diff=f"{100 * self.diff:.1f}")
        else:
            out.update(sigma=f"{self.sigma:.3f}", cdiff=f"{100 * abs(self.diff):.1f}")
        return out

    def to_dict(self) -> dict:
        return asdict(self)


def data_spread(a: np.ndarray, b: np.ndarray) -> tuple:
    """(binary, Delta = mean(b - a), discordance mean(a != b) | None, SD(b - a) | None)."""
    if is_binary(a) and is_binary(b):
        return True, float((b - a).mean()), float(np.mean(a != b)), None
    return False, float((b - a).mean()), None, float(np.std(b - a, ddof=1))


def cases_needed(a, b, *, confidence: float = 0.95, power: float = 0.8) -> CasesNeeded:
    """The planner run on a comparison's own data: binary a, b (both 0/1) give discordance d =
    mean(a != b), Delta = mean(b - a) and ``n_mcnemar(d, Delta)``; scores give sigma = std(b -
    a, ddof=1), Delta = mean(b - a) and ``n_continuous_power(|Delta|, sigma)``; alpha = 1 -
    ``confidence``. The plan uses the values as the planner page shows them
    (``CasesNeeded.url_params``: d and Delta to 0.1 %p, sigma to 0.001), so the card's "about
    N cases" and the page its link opens give the same N."""
    return cases_needed_of(*checks.pair(a, b, min_n=2), power=power,
                           confidence=checks.confidence(confidence))


def cases_needed_of(a, b, *, confidence: float, power: float = 0.8) -> CasesNeeded:
    """``cases_needed`` of arrays and a level the caller checked (``core.inputs.groups``)."""
    alpha, (binary, delta, disc, sigma) = alpha_of(confidence), data_spread(a, b)
    n_needed = None
    if binary:
        d_r, delta_r = round(disc, 3), round(delta, 3)   # as the planner shows them
        if d_r > 0 and delta_r != 0 and d_r - delta_r * delta_r > 0 and abs(delta_r) <= d_r:
            try:
                n_needed = n_mcnemar(d_r, delta_r, alpha=alpha, power=power)
            except InputError:
                n_needed = None
        return CasesNeeded("paired", n_needed, int(a.size), delta, disc, None, confidence,
                           float(power))
    s_r, delta_r = round(sigma, 3), round(abs(delta), 3)   # as the planner shows them
    if s_r > 0 and delta_r > 0:
        try:
            n_needed = n_continuous_power(delta_r, s_r, alpha=alpha, power=power)
        except InputError:
            n_needed = None
    return CasesNeeded("continuous", n_needed, int(a.size), delta, None, sigma, confidence,
                       float(power))
