"""Statistics for small golden sets: Wilson intervals, the paired bootstrap, paired tests.

Every function validates its arguments first (``core.checks``) and raises ``ValueError``
naming the argument.
Seeds are explicit keyword arguments; the same seed gives identical output.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from scipy import stats as _st

from core import _kernels, checks

Verdict = Literal["no_difference", "a_better", "b_better"]
CONFIDENCE_LEVELS = (0.90, 0.95, 0.99)
MIN_RESAMPLES, MAX_RESAMPLES = 1_000, 100_000


def is_binary(values) -> bool:
    """True when every value is 0 or 1."""
    arr = np.asarray(values, dtype=float)
    return bool(arr.size) and bool(np.all((arr == 0) | (arr == 1)))


def z_value(confidence: float) -> float:
    """Two-sided standard-normal quantile: z such that P(|Z| <= z) = confidence."""
    return float(_st.norm.ppf(0.5 + checks.confidence(confidence) / 2))


def resolution(n: int) -> float:
    """One case as a share of ``n`` cases (1/n); times 100 it is the %p step of a rate."""
    return 1.0 / checks.whole("n", n, lo=1)


def seeds_for(seed: int, resamples: int) -> np.ndarray:
    """One independent 64-bit stream seed per resample, from ``numpy.random.SeedSequence``."""
    resamples, seed = checks.resampling_iv(resamples, seed)
    return np.random.SeedSequence(seed).generate_state(resamples, np.uint64)


def verdict(ci_low: float, ci_high: float) -> Verdict:
    """``a_better`` if the CI of A - B lies above 0, ``b_better`` if below, else no difference."""
    if ci_low > 0:
        return "a_better"
    if ci_high < 0:
        return "b_better"
    return "no_difference"


# ----------------------------------------------------------------------------- Wilson
def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (Wilson 1927, JASA 22:209-212).

    With p = k/n and z the two-sided normal quantile::

        centre = (p + z^2/(2n)) / (1 + z^2/n)
        half   = z / (1 + z^2/n) * sqrt(p(1-p)/n + z^2/(4n^2))

    Equals ``scipy.stats.binomtest(k, n).proportion_ci(method="wilson")`` (tested to 1e-9).
    """
    successes, n, confidence = checks.wilson_iv(successes, n, confidence)
    z = z_value(confidence)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


# ----------------------------------------------------------------------------- results
@dataclass(frozen=True)
class RateEstimate:
    """One method's score on the paired cases, with its interval."""

    n: int
    mean: float
    ci_low: float
    ci_high: float
    interval: Literal["wilson", "bootstrap"]
    successes: int | None = None

    @property
    def resolution(self) -> float:
        return resolution(self.n)

    def to_dict(self) -> dict:
        out = {"n": self.n}
        if self.successes is not None:
            out["successes"] = self.successes
        out.update(rate=self.mean, ci_low=self.ci_low, ci_high=self.ci_high,
                   interval=self.interval, resolution=self.resolution)
        return out


@dataclass(frozen=True)
class BootstrapResult:
    """Percentile bootstrap of a mean (Efron & Tibshirani 1993, ch. 13).

    ``distribution`` holds every resampled mean so pages can plot without recomputing.
    """

    mean: float
    ci_low: float
    ci_high: float
    confidence: float
    resamples: int
    seed: int
    method: Literal["cells", "resample"]
    distribution: np.ndarray = field(repr=False)

    @property
    def standard_error(self) -> float:
        return float(np.std(self.distribution, ddof=1)) if self.resamples > 1 else float("nan")


def percentile_ci(dist: np.ndarray, confidence: float) -> tuple[float, float]:
    """The (alpha/2, 1 - alpha/2) percentiles of a bootstrap distribution (Efron &
    Tibshirani 1993, ch. 13), numpy's linear interpolation as in scipy."""
    alpha = 1 - confidence
    lo, hi = np.percentile(dist, [100 * alpha / 2, 100 * (1 - alpha / 2)])
    return float(lo), float(hi)


def cells(a, b) -> tuple[int, int, int, int]:
    """2x2 table of paired binary outcomes: (both right, A only, B only, both wrong)."""
    a, b = checks.pair(a, b)
    if not (is_binary(a) and is_binary(b)):
        raise ValueError("cells needs binary (0/1) outcomes in a and b")
    a1, b1 = a == 1, b == 1
    return (int(np.sum(a1 & b1)), int(np.sum(a1 & ~b1)), int(np.sum(~a1 & b1)),
            int(np.sum(~a1 & ~b1)))


def bootstrap_mean(values, *, resamples: int = 20_000, confidence: float = 0.95,
                   seed: int = 0) -> BootstrapResult:
    """Percentile bootstrap CI of the mean of ``values`` (Efron & Tibshirani 1993).

    Resample the n cases with replacement ``resamples`` times, take each resample's mean, and
    read the CI off the (alpha/2, 1-alpha/2) percentiles. Binary values take the same
    distribution from one binomial draw per resample (``method="cells"``).
    """
    x = checks.values("values", values)
    resamples, confidence, seed = checks.bootstrap_iv(resamples, confidence, seed)
    n = x.size
    if is_binary(x):
        rng = np.random.default_rng(seed)
        dist = rng.binomial(n, x.mean(), size=resamples) / n
        method = "cells"
    else:
        dist = _kernels.bootstrap_means(x, seeds_for(seed, resamples))
        method = "resample"
    lo, hi = percentile_ci(dist, confidence)
    return BootstrapResult(float(x.mean()), lo, hi, confidence, resamples, int(seed), method, dist)


def paired_bootstrap(a, b, *, resamples: int = 20_000, confidence: float = 0.95,
                     seed: int = 0) -> BootstrapResult:
    """Paired percentile bootstrap of mean(A - B) (Efron & Tibshirani 1993, ch. 13).

    Cases are resampled with replacement, A and B kept together, so each resample's statistic
    is the mean of the resampled differences d_i = a_i - b_i.

    Binary outcomes: a resample of n cases is fully described by its four 2x2 cell counts,
    which are Multinomial(n; p11, p10, p01, p00) with the observed cell shares; the resampled
    difference is (n10 - n01)/n. Only the discordant cells matter, and the multinomial is
    drawn hierarchically: m* ~ Binomial(n, (n10 + n01)/n), n10* ~ Binomial(m*, n10/(n10 + n01)),
    difference = (2 n10* - m*)/n. Two binomial draws per resample replace n index draws, so
    the cost does not grow with n (``method="cells"``). Continuous values are resampled case by
    case in compiled code (``method="resample"``); memory stays O(n + resamples).
    """
    a, b = checks.pair(a, b)
    resamples, confidence, seed = checks.bootstrap_iv(resamples, confidence, seed)
    n = a.size
    d = a - b
    if is_binary(a) and is_binary(b):
        _, n10, n01, _ = cells(a, b)
        rng = np.random.default_rng(seed)
        m = n10 + n01
        # Multinomial cells, drawn hierarchically: discordant count, then its split.
        disc = rng.binomial(n, m / n, size=resamples)
        a_only = rng.binomial(disc, n10 / m if m else 0.0)
        dist = (2 * a_only - disc) / n
        method = "cells"
    else:
        dist = _kernels.bootstrap_means(d, seeds_for(seed, resamples))
        method = "resample"
    lo, hi = percentile_ci(dist, confidence)
    return BootstrapResult(float(d.mean()), lo, hi, confidence, resamples, int(seed), method, dist)


# ----------------------------------------------------------------------------- paired tests
def mcnemar_exact(a_only: int, b_only: int) -> float:
    """Exact (binomial) McNemar test, two-sided (McNemar 1947).

    Under H0 the a_only discordant cases among the m = a_only + b_only discordant pairs are
    Binomial(m, 1/2); p = ``scipy.stats.binomtest(a_only, m, 0.5).pvalue``; p = 1 when m = 0.
    """
    a_only, b_only = checks.counts_iv(a_only=a_only, b_only=b_only)
    m = a_only + b_only
    if m == 0:
        return 1.0
    return float(_st.binomtest(a_only, m, 0.5).pvalue)


def randomization_p(a, b, *, resamples: int = 20_000, seed: int = 0) -> float:
    """Paired randomization (sign-flip) test of mean(A - B) = 0, two-sided.

    Under H0 each difference d_i is as likely to be -d_i, so random signs s_i give the null
    distribution of mean(s_i d_i). p = (1 + #{|T*| >= |T|}) / (1 + R), the +1 correction of
    Phipson & Smyth (2010) that keeps a Monte-Carlo p-value from being 0. For binary outcomes
    only the m discordant pairs move: n*T* = 2*Binomial(m, 1/2) - m, drawn directly.
    """
    a, b = checks.pair(a, b)
    resamples, seed = checks.resampling_iv(resamples, seed)
    d = a - b
    n = d.size
    observed = abs(d.mean())
    if is_binary(a) and is_binary(b):
        m = int(np.count_nonzero(d))
        rng = np.random.default_rng(seed)
        null = np.abs(2 * rng.binomial(m, 0.5, size=resamples) - m) / n
    else:
        null = np.abs(_kernels.signflip_means(d, seeds_for(seed, resamples)))
    tol = 1e-12 * max(1.0, float(np.max(np.abs(d))))
    extreme = int(np.count_nonzero(null >= observed - tol))
    return (1 + extreme) / (1 + resamples)


def paired_ttest_p(a, b) -> float | None:
    """Two-sided paired t-test p-value (``scipy.stats.ttest_rel``); None when undefined
    (fewer than 2 cases or all differences equal)."""
    a, b = checks.pair(a, b)
    d = a - b
    if d.size < 2 or np.all(d == d[0]):
        return None
    return float(_st.ttest_rel(a, b).pvalue)


def cohens_dz(a, b) -> float | None:
    """Paired Cohen's d (d_z = mean(d) / sd(d), sd with n-1; Cohen 1988); None if sd = 0."""
    a, b = checks.pair(a, b)
    d = a - b
    if d.size < 2:
        return None
    sd = float(np.std(d, ddof=1))
    return None if sd == 0 else float(d.mean() / sd)


# ----------------------------------------------------------------------------- one call
@dataclass(frozen=True)
class PairedComparison:
    """Everything the golden-case page shows for methods A and B on their paired cases."""

    a: str
    b: str
    binary: bool
    rate_a: RateEstimate
    rate_b: RateEstimate
    bootstrap: BootstrapResult
    mcnemar_p: float | None
    randomization_p: float
    ttest_p: float | None
    table: tuple[int, int, int, int] | None  # (both, a_only, b_only, neither)
    cohens_dz: float | None

    @property
    def n(self) -> int:
        return self.rate_a.n

    @property
    def verdict(self) -> Verdict:
        return verdict(self.bootstrap.ci_low, self.bootstrap.ci_high)

    @property
    def discordance(self) -> float | None:
        """Share of cases where A and B disagree (binary only)."""
        if self.table is None:
            return None
        return (self.table[1] + self.table[2]) / self.n

    def difference_dict(self) -> dict:
        bs = self.bootstrap
        return {"a": self.a, "b": self.b, "mean": bs.mean, "ci_low": bs.ci_low,
                "ci_high": bs.ci_high, "confidence": bs.confidence, "resamples": bs.resamples,
                "seed": bs.seed, "mcnemar_p": self.mcnemar_p,
                "randomization_p": self.randomization_p, "ttest_p": self.ttest_p,
                "discordance": self.discordance, "cohens_dz": self.cohens_dz,
                "table": (dict(zip(("both", "a_only", "b_only", "neither"), self.table))
                          if self.table else None)}


def rate_estimate(values, *, confidence: float = 0.95, resamples: int = 20_000,
                  seed: int = 0, binary: bool | None = None) -> RateEstimate:
    """A method's rate with a Wilson interval (binary) or its mean with a bootstrap CI."""
    x = checks.values("values", values)
    resamples, confidence, seed = checks.bootstrap_iv(resamples, confidence, seed)
    if binary is None:
        binary = is_binary(x)
    if binary:
        k = int(x.sum())
        lo, hi = wilson_interval(k, x.size, confidence)
        return RateEstimate(x.size, k / x.size, lo, hi, "wilson", k)
    bs = bootstrap_mean(x, resamples=resamples, confidence=confidence, seed=seed)
    return RateEstimate(x.size, bs.mean, bs.ci_low, bs.ci_high, "bootstrap")


def compare_paired(a, b, *, name_a: str = "A", name_b: str = "B", resamples: int = 20_000,
                   confidence: float = 0.95, seed: int = 0) -> PairedComparison:
    """Rates, the paired bootstrap of A - B, and the paired tests, for two aligned vectors.

    Binary data when both vectors are 0/1 (Wilson intervals, McNemar, 2x2 table); otherwise
    continuous (bootstrap CIs of each mean, paired t-test, Cohen's d_z).
    """
    a, b = checks.pair(a, b, min_n=2)
    resamples, confidence, seed = checks.bootstrap_iv(resamples, confidence, seed)
    binary = is_binary(a) and is_binary(b)
    kw = dict(confidence=confidence, resamples=resamples, seed=seed, binary=binary)
    table = cells(a, b) if binary else None
    return PairedComparison(
        a=name_a, b=name_b, binary=binary,
        rate_a=rate_estimate(a, **kw), rate_b=rate_estimate(b, **kw),
        bootstrap=paired_bootstrap(a, b, resamples=resamples, confidence=confidence, seed=seed),
        mcnemar_p=mcnemar_exact(table[1], table[2]) if binary else None,
        randomization_p=randomization_p(a, b, resamples=resamples, seed=seed),
        ttest_p=None if binary else paired_ttest_p(a, b),
        table=table,
        cohens_dz=None if binary else cohens_dz(a, b),
    )
