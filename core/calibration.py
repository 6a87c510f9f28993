"""How honest is this interval on *these* data? A self-check under a null built from the
user's own differences (issue 19, item 4).

Flipping the sign of each paired difference at random (d_i -> s_i |d_i|, s_i = +/-1 fair)
keeps the data's spread, ties and zeros but makes the true mean difference 0: the null of
the sign-flip randomization test (Fisher 1935; Good 2005, ch. 3). On each such null set the
displayed interval is computed again, the same way; the share of null sets where it leaves out
0 (ends within 1e-12 of 0 count as 0, ``core.intervals.side``) estimates its false-alarm rate
on data like the user's. The promise is 1 - confidence (5% at 95%).

* 0/1 outcomes: a sign flip turns a discordant pair "A only" into "B only" and leaves the
  concordant cells alone, so the null tables are (n11, k, m - k, n22) with
  k ~ Binomial(m, 1/2), m the discordant pairs: the rate is **exact** (a sum over the m + 1
  tables weighted by their binomial probability). Bootstrap intervals on 0/1 data take
  ``CELL_RESAMPLES`` cell resamples per null table.
* scores: ``sets`` (1,000) seeded Monte-Carlo null sets; bootstrap intervals take
  R = clamp(2e8 / (sets n), 200, 1,000) resamples per set (the compiled kernel
  ``core._kernels.bootstrap_sets``), which keeps n <= 1,000 under a second on two cores; the
  Monte-Carlo SE sqrt(r (1 - r) / sets) is reported beside the rate.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from core import checks
from core.intervals import (CLOSED_FORM_METHODS, PAIRED_PROPORTION_METHODS, SCORE_METHODS,
                            paired_proportion_ci, score_intervals, side)
from core.stats import BootstrapResult, PairedData, kernels, stream_key

DEFAULT_SETS = 1_000
CELL_RESAMPLES = 2_000
MAX_TABLES = 200_000      # 0/1, closed-form interval: at most this many discordant pairs
MAX_CELL_WORK = 2e7       # 0/1, bootstrap interval: (m + 1) n values held at once
MAX_SCORE_WORK = 4e8      # scores: sets x n x resamples per set
STREAM_CALIBRATION = 2
WORK = 2e8          # resampled values drawn in all, for the scores' null sets
BLOCK_VALUES = 1 << 18  # null-set values held at once for a closed-form interval (2 MB)


@dataclass(frozen=True)
class Calibration:
    """Share of sign-flip null sets built from the user's differences in which the displayed
    interval leaves out 0 (``null_rejection``), over ``sets`` null sets of ``n`` cases."""

    null_rejection: float
    sets: int
    n: int
    interval: str
    confidence: float
    exact: bool          # an exact sum over every null table (0/1 outcomes)
    resamples: int       # bootstrap resamples per null set (0 for closed-form intervals)
    mc_se: float | None  # Monte-Carlo standard error of null_rejection (None when exact)

    @property
    def promise(self) -> float:
        """The rate the interval promises: 1 - confidence."""
        return round(1 - self.confidence, 12)

    def to_dict(self) -> dict:
        return {"null_rejection": self.null_rejection, "sets": self.sets, "n": self.n,
                "interval": self.interval, "promise": self.promise, "exact": self.exact,
                "resamples": self.resamples, "mc_se": self.mc_se}


def _binom_half_pmf(m: int) -> np.ndarray:
    """P(K = k), K ~ Binomial(m, 1/2), k = 0..m: exact integer binomial coefficients up to
    m = 2,000, log-gamma above."""
    if m <= 2000:
        row, total = [1], 1 << m
        for i in range(m):
            row.append(row[-1] * (m - i) // (i + 1))
        return np.array([c / total for c in row], dtype=float)
    from scipy.special import gammaln  # only for more than 2,000 discordant pairs
    k = np.arange(m + 1)
    return np.exp(gammaln(m + 1) - gammaln(k + 1) - gammaln(m - k + 1) - m * math.log(2))


def calibrate_table(n11: int, n12: int, n21: int, n22: int, *, interval: str,
                    confidence: float = 0.95, seed: int = 0) -> Calibration:
    """Exact null rejection of ``interval`` for a paired 2x2 table (Fagerland's notation:
    n12 and n21 the discordant cells). ``interval`` is one of
    ``core.intervals.PAIRED_PROPORTION_METHODS`` or ``percentile`` / ``bca`` (the cell
    bootstrap, ``CELL_RESAMPLES`` per null table, seeded)."""
    n11, n12, n21, n22 = checks.counts_iv(n11=n11, n12=n12, n21=n21, n22=n22)
    confidence = checks.confidence(confidence)
    seed = checks.seed(seed)
    interval = checks.choice("interval", interval, PAIRED_PROPORTION_METHODS + ("percentile", "bca"))
    n = n11 + n12 + n21 + n22
    if n == 0:
        raise ValueError("the table needs at least one case")
    m = n12 + n21
    k = np.arange(m + 1)
    w = _binom_half_pmf(m)
    if interval in PAIRED_PROPORTION_METHODS:
        lo, hi = paired_proportion_ci(np.full(k.size, n11), k, m - k, np.full(k.size, n22),
                                      confidence, method=interval)
        lo, hi = np.atleast_1d(lo), np.atleast_1d(hi)
        resamples = 0
    else:
        rng = np.random.default_rng(seed)
        disc = rng.binomial(n, m / n, size=(k.size, CELL_RESAMPLES))
        up = rng.binomial(disc, (k / max(m, 1))[:, None])
        means = (2 * up - disc) / n
        idx = np.arange(n)[None, :]
        vals = np.where(idx < k[:, None], 1.0, np.where(idx < m, -1.0, 0.0))
        lo, hi = score_intervals(vals, means, None, confidence, interval)
        resamples = CELL_RESAMPLES
    rate = float(np.sum(w * (side(lo, hi) != 0)))
    return Calibration(rate, m + 1, n, interval, confidence, True, resamples, None)


def null_resamples(n: int, sets: int) -> int:
    """Bootstrap resamples per null set: clamp(2e8 / (sets n), 200, 1,000)."""
    return int(min(1_000, max(200, WORK // (sets * n))))


def _null_sets(d: np.ndarray, rng: np.random.Generator, rows: int) -> np.ndarray:
    """The next ``rows`` sign-flip null sets of ``d`` from ``rng``: |d_i| s_i with fair signs
    (``rows`` x n; drawn row after row, so blocks of rows give the same sets as one draw)."""
    return np.abs(d)[None, :] * (2.0 * rng.integers(0, 2, size=(rows, d.size)) - 1.0)


def _blocks(sets: int, n: int):
    """Row counts that cover ``sets`` null sets in blocks of at most ``BLOCK_VALUES`` values
    (one row at least): a closed-form interval needs each set once, so memory stays
    O(BLOCK_VALUES) instead of O(sets n) (1,000 x 100,000 doubles would be 800 MB)."""
    step = max(1, BLOCK_VALUES // n)
    for start in range(0, sets, step):
        yield min(step, sets - start)


def calibrate_scores(d, *, interval: str, confidence: float = 0.95, sets: int = DEFAULT_SETS,
                     seed: int = 0) -> Calibration:
    """Monte-Carlo null rejection of ``interval`` (one of ``core.intervals.SCORE_METHODS``)
    on ``sets`` sign-flip null sets of the paired differences ``d`` (seeded: the same seed
    gives the same rate)."""
    d = checks.values("d", d, min_n=2)
    interval = checks.choice("interval", interval, SCORE_METHODS)
    confidence = checks.confidence(confidence)
    sets = checks.whole("sets", sets, lo=10, hi=100_000)
    seed = checks.seed(seed)
    n = d.size
    rng = np.random.default_rng([seed, STREAM_CALIBRATION])
    scale = float(np.max(np.abs(d)))
    if interval in CLOSED_FORM_METHODS:
        resamples = 0
        rejected = 0
        for rows in _blocks(sets, n):
            x = _null_sets(d, rng, rows)
            lo, hi = score_intervals(x, x, None, confidence, interval)
            rejected += int(np.count_nonzero(side(lo, hi, scale) != 0))
        rate = rejected / sets
    else:
        x = _null_sets(d, rng, sets)
        resamples = null_resamples(n, sets)
        boot = kernels().bootstrap_sets(x, stream_key(seed, STREAM_CALIBRATION), resamples)
        lo, hi = score_intervals(x, boot[0], boot[1], confidence, interval)
        rate = float(np.mean(side(lo, hi, scale) != 0))
    return Calibration(rate, sets, n, interval, confidence, False, resamples,
                       math.sqrt(rate * (1 - rate) / sets))


def calibrate_comparison(bootstrap, data) -> Calibration | None:
    """The self-check of a comparison's displayed interval (``bootstrap.interval``, at its
    confidence and seed) on its checked data (``core.stats.PairedData``): ``calibrate_table``
    for 0/1 outcomes, ``calibrate_scores`` with ``DEFAULT_SETS`` null sets otherwise. None
    when repeating it would cost too much (more than ``MAX_TABLES`` discordant pairs, or more
    than ``MAX_CELL_WORK`` / ``MAX_SCORE_WORK`` values to draw): large sets are where these
    intervals are accurate anyway."""
    checks.instance("bootstrap", bootstrap, BootstrapResult)
    checks.instance("data", data, PairedData)
    interval, conf, seed = bootstrap.interval, bootstrap.confidence, bootstrap.seed
    if data.binary:
        both, a_only, b_only, neither = data.table
        m = a_only + b_only
        if interval in PAIRED_PROPORTION_METHODS:
            if m > MAX_TABLES:
                return None
        elif (m + 1) * data.n > MAX_CELL_WORK:
            return None
        return calibrate_table(both, b_only, a_only, neither, interval=interval,
                               confidence=conf, seed=seed)
    per_set = 1 if interval in CLOSED_FORM_METHODS else null_resamples(data.n, DEFAULT_SETS)
    if DEFAULT_SETS * data.n * per_set > MAX_SCORE_WORK:
        return None
    return calibrate_scores(data.d, interval=interval, confidence=conf, seed=seed)
