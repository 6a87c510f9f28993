"""How honest is this interval on *these* data? Two self-checks under nulls built from the
user's own differences (issue 19, item 4).

Flipping the sign of each paired difference at random (d_i -> s_i |d_i|, s_i = +/-1 fair)
keeps the data's spread, ties and zeros but makes the true mean difference 0: the null of
the sign-flip randomization test (Fisher 1935; Good 2005, ch. 3). On each such null set the
displayed interval is computed again, the same way; the share of null sets where it leaves out
0 (ends within 1e-12 of 0 count as 0, ``core.paired.intervals.side``) estimates its false-alarm rate
on data like the user's. The promise is 1 - confidence (5% at 95%).

* 0/1 outcomes: a sign flip turns a discordant pair "A only" into "B only" and leaves the
  concordant cells alone, so the null tables are (n11, k, m - k, n22) with
  k ~ Binomial(m, 1/2), m the discordant pairs: the rate is **exact** (a sum over the m + 1
  tables weighted by their binomial probability). Bootstrap intervals on 0/1 data take
  ``CELL_RESAMPLES`` cell resamples per null table.
* scores: ``sets`` (1,000) seeded Monte-Carlo null sets; bootstrap intervals take
  R = clamp(1e8 / (sets n), 100, 500) resamples per set (the compiled kernel
  ``core._kernels.bootstrap_sets``), which keeps n <= 1,000 under a second on two cores; the
  Monte-Carlo SE sqrt(r (1 - r) / sets) is reported beside the rate.

A sign flip makes the differences symmetric, so the first check cannot see **skew**, the one
thing that makes a t-type interval miss at 10-30 cases (``docs/calibration.md``). The second
check keeps it: **centred resamples** (Efron & Tibshirani 1993, section 16.4, Algorithm 16.2:
translate the data to the null, z_i = d_i - mean(d), and resample them with replacement) give
null sets with the data's own shape, skew included, and true mean 0.

* scores: ``sets`` centred-resample null sets of n values (seeded), the displayed interval
  recomputed on each as above;
* 0/1 outcomes: the 0/1 counterpart, ``sets`` multinomial tables of n cases drawn from the
  table's cell shares with the discordant shares made equal, p12 = p21 = (n12 + n21) / (2n)
  (the null-restricted estimate): unlike the sign flip, the number of discordant pairs varies.

When a check finds the displayed interval leaving out 0 clearly more often than it does at
the same size on data where the interval holds (``warn_limit``: 6% + 0.6 / m for the
resample check, 6% + 0.2 / m for the sign-flip one from m = 6 on, m the non-zero
differences (n for a table), each compared with the
Monte-Carlo rate's one-sided 95% Wilson lower bound; for a 0/1 table only the unconditional
resample check counts), ``Calibration.warns`` is true: the card says so, and the verdict keeps a
"better" only if it survives a test that holds its level under *both* nulls
(``survival_p``; ``core.paired.compare.decide``): for scores the studentized bootstrap test of
Efron & Tibshirani (1993, Algorithm 16.2: two-sided, the share of the centred-resample null
sets whose t* = sqrt(n) mean* / sd* lies at least as far out as the data's t, on the side the
data's t lies, doubled; Phipson & Smyth 2010 +1 correction), which the sign-flip test of the
verdict already backs under the sign-flip null; for 0/1 outcomes the exact conditional
McNemar test (exact under the sign-flip null, hence valid under the resample null too).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from core import checks
from core.paired.difference import table_interval
from core.paired.intervals import (CLOSED_FORM_METHODS, PAIRED_PROPORTION_METHODS, SCORE_METHODS,
                                   interval_of_means, score_intervals, side, wilson_bounds)
from core.paired.significance import mcnemar_exact
from core.paired.resampling import kernels
from core.paired.streams import stream_key

DEFAULT_SETS = 1_000
WARN_RATE = 0.06          # a check above this rate warns (issue 19: goal <= 6% at n = 10-30)
SMALL_N_EXCESS = 0.6      # resample check's own excess where the interval holds: this / n
SIGNFLIP_EXCESS = 0.2     # the sign-flip check's, over the number of non-zero differences
MIN_SIGNFLIP_NONZERO = 6  # fewer non-zero differences: the sign-flip check does not warn
WARN_Z = 1.6448536269514722  # z(0.95): a Monte-Carlo rate warns when its one-sided 95% Wilson
#                              lower bound does
WITHHOLD_FACTOR = 2.0     # the card withholds "better" when its figure is >= this x the promise
STREAM_RESAMPLE_NULL = 3
SURVIVAL_TESTS = ("bootstrap_t", "mcnemar_exact")   # Calibration.survival_test: scores, 0/1
CELL_RESAMPLES = 2_000
MAX_TABLES = 200_000      # 0/1, closed-form interval: at most this many discordant pairs
MAX_CELL_WORK = 2e7       # 0/1, bootstrap interval: (m + 1) n values held at once
MAX_SCORE_WORK = 8e8      # scores: both checks' sets x n x resamples per set
STREAM_CALIBRATION = 2
WORK = 1e8          # resampled values drawn in all, for each check's null sets (scores)
BLOCK_VALUES = 1 << 18  # null-set values held at once for a closed-form interval (2 MB)


@dataclass(frozen=True)
class Calibration:
    """Share of sign-flip null sets built from the user's differences in which the displayed
    interval leaves out 0 (``null_rejection``), over ``sets`` null sets of ``n`` cases; and,
    when measured, the same share over ``resample_sets`` centred-resample null sets, which
    keep the data's skew (``resample_null_rejection``), with the p of the test a "better"
    must survive when either share is above ``WARN_RATE`` (``survival_test``,
    ``survival_p``; see the module docstring)."""

    null_rejection: float
    sets: int
    n: int
    interval: str
    confidence: float
    exact: bool          # an exact sum over every null table (0/1 outcomes)
    resamples: int       # bootstrap resamples per null set (0 for closed-form intervals)
    mc_se: float | None  # Monte-Carlo standard error of null_rejection (None when exact)
    resample_null_rejection: float | None = None
    resample_sets: int = 0
    resample_mc_se: float | None = None
    survival_test: str | None = None     # "bootstrap_t" (scores) or "mcnemar_exact" (0/1)
    survival_p: float | None = None
    nonzero: int | None = None   # scores: differences that are not 0 (sign flips move them)

    @property
    def promise(self) -> float:
        """The rate the interval promises: 1 - confidence."""
        return round(1 - self.confidence, 12)

    @property
    def worst(self) -> float:
        """The larger of the two measured null rejections (the sign-flip one alone when the
        centred-resample check was not run)."""
        if self.resample_null_rejection is None:
            return self.null_rejection
        return max(self.null_rejection, self.resample_null_rejection)

    @property
    def _table(self) -> bool:
        return self.survival_test == "mcnemar_exact"

    @property
    def shown(self) -> float:
        """The figure of the plain sentence under the card: for a 0/1 table the resample
        check's (unconditional: the number of discordant pairs varies, as it does between
        golden sets; the sign-flip rate of a table is conditional on its discordant pairs,
        where a discrete interval cannot hold exactly 5%, e.g. 7.0% with 8 of them), for
        scores the worse of the two checks (``worst``)."""
        if self._table and self.resample_null_rejection is not None:
            return self.resample_null_rejection
        return self.worst

    @property
    def warn_above(self) -> float:
        """The rate above which the resample check warns at this n (``warn_limit``)."""
        return warn_limit(self.nonzero or self.n)

    @property
    def warns(self) -> bool:
        """True when a check shows the interval leaving out 0 clearly more often than it
        does at this n on data where the interval keeps its promise: the rate (for a
        Monte-Carlo rate its one-sided 95% Wilson lower bound, so that Monte-Carlo noise
        alone does not warn) above ``warn_limit(m)`` for the resample check and above
        6% + 0.2 / m for the sign-flip one, m the non-zero differences (n for a table):
        a zero difference says nothing about which method is better, and tie-heavy
        retrieval differences behave in both checks like a sample of m. The sign-flip
        check's null sets differ only in the signs of the m non-zero differences, so its
        rate moves in steps of 2^(1 - m): it warns only from m = 6 on. The checks considered: for scores
        both, for a 0/1 table the resample check (``shown``; the sign-flip one only when
        the resample check was not run)."""
        limit = self.warn_above
        if self._table:
            if self.resample_null_rejection is None:
                return self.null_rejection > limit
            r, sets = self.resample_null_rejection, self.resample_sets
            return float(wilson_bounds(r * sets, sets, WARN_Z)[0]) > limit
        m = self.nonzero or self.n
        # sign flips of m non-zero differences: 2^m equally likely sets, so the rate moves in
        # steps of 2^(1 - m); below 6 of them (2^(1 - m) >= 5%) it cannot say more than that
        # the sample is tiny (and the verdict's sign-flip test cannot reach p < 5% either)
        over = (m >= MIN_SIGNFLIP_NONZERO
                and float(wilson_bounds(self.null_rejection * self.sets, self.sets, WARN_Z)[0])
                > WARN_RATE + SIGNFLIP_EXCESS / m)
        if self.resample_null_rejection is not None:
            r, sets = self.resample_null_rejection, self.resample_sets
            over = over or float(wilson_bounds(r * sets, sets, WARN_Z)[0]) > limit
        return over

    @property
    def _shown_sets(self) -> int:
        """Null sets behind ``shown`` (0 when it is an exact sum)."""
        if self.resample_null_rejection is not None and self.shown == self.resample_null_rejection:
            return self.resample_sets
        return 0 if self.exact else self.sets

    @property
    def reads_above(self) -> bool:
        """Whether the figure the card shows (``shown``) reads above the promise beyond
        Monte-Carlo error: its one-sided 95% Wilson lower bound (the one Wilson formula,
        ``core.paired.intervals.wilson_bounds``, at ``WARN_Z`` with k = rate x sets; the figure
        itself when exact) above 1 - confidence. Then the card's self-check sentence is a
        warning, not a footnote (issue 36)."""
        sets = self._shown_sets
        low = float(wilson_bounds(self.shown * sets, sets, WARN_Z)[0]) if sets else self.shown
        return low > self.promise + 1e-12

    @property
    def withhold_above(self) -> float:
        """The stated level at and above which the verdict is withheld: twice the promise
        (``WITHHOLD_FACTOR``; 10% at 95%)."""
        return round(WITHHOLD_FACTOR * self.promise, 12)

    @property
    def withholds(self) -> bool:
        """Whether the card must withhold a "better" (issue 36): the figure it shows says the
        interval would wrongly leave out 0 in ``withhold_above`` (10% at 95%) of null sets
        shaped like the data or more. A card never reads "B is better" beside "this interval
        would wrongly leave out 0 in 12%"; it says instead that on data shaped like this, at
        this n, the comparison cannot tell."""
        return self.shown >= self.withhold_above - 1e-12

    @property
    def needs_survival(self) -> bool:
        """Whether a "better" must also pass ``survival_test``: whenever a check warns
        (``warns``: beyond its own small-n allowance). A figure at or above
        ``withhold_above`` withholds the verdict whatever the survival test says
        (``withholds``, ``core.paired.decide``)."""
        return self.warns

    @property
    def survives(self) -> bool:
        """Whether a "better" survives the self-check: always when ``needs_survival`` is
        false, else when ``survival_p`` is below 1 - confidence."""
        if not self.needs_survival:
            return True
        return self.survival_p is not None and self.survival_p < self.promise

    def to_dict(self) -> dict:
        return {"null_rejection": self.null_rejection, "sets": self.sets, "n": self.n,
                "interval": self.interval, "promise": self.promise, "exact": self.exact,
                "resamples": self.resamples, "mc_se": self.mc_se,
                "resample_null_rejection": self.resample_null_rejection,
                "resample_sets": self.resample_sets, "resample_mc_se": self.resample_mc_se,
                "warn_above": self.warn_above, "warning": self.warns,
                "reads_above_promise": self.reads_above,
                "withhold_above": self.withhold_above, "withholds": self.withholds,
                "shown_rate": self.shown,
                "survival_test": self.survival_test, "survival_p": self.survival_p,
                "survives": self.survives}


def warn_limit(n: int) -> float:
    """WARN_RATE + SMALL_N_EXCESS / n: the resample check's own excess at small n (n: the
    non-zero differences for scores). On normal data and
    on real retrieval differences, where the default interval keeps its promise, the
    centred-resample check still shows it leaving out 0 in up to about 9-12% of null sets at
    n = 10 (a resample of 10 values is often lopsided, and its interval is computed again
    on a resample of that), 6-7% at n = 20; the allowance shrinks as 1 / n (bench section e,
    ``docs/calibration.md``, measures the warning's false alarms with it)."""
    return WARN_RATE + SMALL_N_EXCESS / max(int(n), 1)


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


def _table_rejection(n11, n12, n21, n22, n: int, interval: str, confidence: float,
                     rng) -> np.ndarray:
    """Whether ``interval`` leaves out 0 on each of the tables (arrays of cells)."""
    if interval in PAIRED_PROPORTION_METHODS:
        lo, hi = table_interval(n11, n12, n21, n22, confidence, interval)
        return side(np.atleast_1d(lo), np.atleast_1d(hi)) != 0
    m = n12 + n21
    disc = rng.binomial(n, (m / n)[:, None], size=(m.size, CELL_RESAMPLES))
    up = rng.binomial(disc, (n12 / np.maximum(m, 1))[:, None])
    means = (2 * up - disc) / n
    idx = np.arange(n)[None, :]
    vals = np.where(idx < n12[:, None], 1.0, np.where(idx < m[:, None], -1.0, 0.0))
    lo, hi = score_intervals(vals, means, None, confidence, interval)
    return side(lo, hi) != 0


def calibrate_table(n11: int, n12: int, n21: int, n22: int, *, interval: str,
                    confidence: float = 0.95, seed: int = 0,
                    resample_sets: int = DEFAULT_SETS) -> Calibration:
    """Exact null rejection of ``interval`` for a paired 2x2 table (Fagerland's notation:
    n12 and n21 the discordant cells) over the sign-flip null tables, and its Monte-Carlo
    rate over ``resample_sets`` multinomial null tables with p12 = p21 (0: not run). ``interval``
    is one of ``core.paired.intervals.PAIRED_PROPORTION_METHODS`` or ``percentile`` / ``bca`` (the
    cell bootstrap, ``CELL_RESAMPLES`` per null table, seeded). The survival test is the exact
    McNemar test of the table."""
    n11, n12, n21, n22 = checks.counts_iv(n11=n11, n12=n12, n21=n21, n22=n22)
    confidence = checks.confidence(confidence)
    seed = checks.seed(seed)
    resample_sets = checks.whole("resample_sets", resample_sets, lo=0, hi=100_000)
    interval = checks.choice("interval", interval, PAIRED_PROPORTION_METHODS + ("percentile", "bca"))
    if n11 + n12 + n21 + n22 == 0:
        raise ValueError("the table needs at least one case")
    return _calibrate_table(n11, n12, n21, n22, interval, confidence, seed, resample_sets)


def _calibrate_table(n11: int, n12: int, n21: int, n22: int, interval: str, confidence: float,
                     seed: int, resample_sets: int) -> Calibration:
    """``calibrate_table`` on checked arguments."""
    n = n11 + n12 + n21 + n22
    m = n12 + n21
    k = np.arange(m + 1)
    w = _binom_half_pmf(m)
    rng = np.random.default_rng(seed)
    out = _table_rejection(np.full(k.size, n11), k, m - k, np.full(k.size, n22), n, interval,
                           confidence, rng)
    rate = float(np.sum(w * out))
    resamples = 0 if interval in PAIRED_PROPORTION_METHODS else CELL_RESAMPLES
    extra = {}
    if resample_sets:
        r = np.random.default_rng([seed, STREAM_RESAMPLE_NULL])
        ms = r.binomial(n, m / n, size=resample_sets)
        ks = r.binomial(ms, 0.5)
        conc = n - ms
        a11 = r.binomial(conc, n11 / (n11 + n22) if n11 + n22 else 0.0)
        rej = _table_rejection(a11, ks, ms - ks, conc - a11, n, interval, confidence, r)
        rr = float(np.mean(rej))
        extra = dict(resample_null_rejection=rr, resample_sets=resample_sets,
                     resample_mc_se=math.sqrt(rr * (1 - rr) / resample_sets))
    return Calibration(rate, m + 1, n, interval, confidence, True, resamples, None,
                       survival_test="mcnemar_exact",
                       survival_p=float(mcnemar_exact(n21, n12)), **extra)


def null_resamples(n: int, sets: int) -> int:
    """Bootstrap resamples per null set: clamp(1e8 / (sets n), 100, 500), so both checks
    together stay under a second for n <= 1,000 (``bench/bench_paired.py``); the rate is an
    average over the null sets, so the resampling noise of each set's interval ends mostly
    averages out."""
    return int(min(500, max(100, WORK // (sets * n))))


def _null_sets(d: np.ndarray, rng: np.random.Generator, rows: int) -> np.ndarray:
    """The next ``rows`` sign-flip null sets of ``d`` from ``rng``: |d_i| s_i with fair signs
    (``rows`` x n; drawn row after row, so blocks of rows give the same sets as one draw)."""
    return np.abs(d)[None, :] * (2.0 * rng.integers(0, 2, size=(rows, d.size)) - 1.0)


def null_centred(d: np.ndarray) -> np.ndarray:
    """The differences moved to a true mean of 0 for the centred-resample check: the non-zero
    differences shifted by mean(d) n / (number of non-zero ones), the zeros kept at 0
    (Efron & Tibshirani 1993, section 16.4, translate the data to the null; a case on which A
    and B score the same stays a tie under the null). Without zeros this is d - mean(d);
    with them, shifting every value would move the ties off 0, and a resample drawn from the
    ties alone would then be a spread-free set with a non-zero mean that any interval
    "rejects" (on tie-heavy retrieval differences such sets made the check cry wolf)."""
    nz = d != 0
    if not nz.any():
        return d.copy()
    return np.where(nz, d - d.sum() / np.count_nonzero(nz), 0.0)


def _resample_sets(z: np.ndarray, rng: np.random.Generator, rows: int) -> np.ndarray:
    """The next ``rows`` centred-resample null sets: n values drawn with replacement from
    ``z`` = d - mean(d) (row after row, as ``_null_sets``)."""
    return z[rng.integers(0, z.size, size=(rows, z.size))]


def _blocks(sets: int, n: int):
    """Row counts that cover ``sets`` null sets in blocks of at most ``BLOCK_VALUES`` values
    (one row at least): a closed-form interval needs each set once, so memory stays
    O(BLOCK_VALUES) instead of O(sets n) (1,000 x 100,000 doubles would be 800 MB)."""
    step = max(1, BLOCK_VALUES // n)
    for start in range(0, sets, step):
        yield min(step, sets - start)


def _set_rejection(draw, sets: int, n: int, interval: str, confidence: float, key: int,
                   scale: float) -> tuple[float, int, np.ndarray]:
    """Share of ``sets`` null sets (``draw(rows)`` gives the next rows of them) on which
    ``interval`` leaves out 0, the bootstrap resamples per set it took, and each set's
    studentized mean (``_studentized``). Closed-form intervals go block by block
    (``_blocks``)."""
    if interval in CLOSED_FORM_METHODS:
        rejected, stud = 0, []
        for rows in _blocks(sets, n):
            x = draw(rows)
            lo, hi = interval_of_means(x, x, None, confidence, interval, skew_guard=True)
            rejected += int(np.count_nonzero(side(lo, hi, scale) != 0))
            stud.append(_studentized(x))
        return rejected / sets, 0, np.concatenate(stud)
    x = np.ascontiguousarray(draw(sets))
    resamples = null_resamples(n, sets)
    boot = kernels().bootstrap_sets(x, key, resamples)
    lo, hi = interval_of_means(x, boot[0], boot[1], confidence, interval, skew_guard=True)
    return float(np.mean(side(lo, hi, scale) != 0)), resamples, _studentized(x)


def _studentized(x: np.ndarray) -> np.ndarray:
    """sqrt(n) mean / sd (ddof 1) of each row; +/-inf (0) for a row with sd 0 and a non-zero
    (zero) mean."""
    n = x.shape[1]
    mean = x.mean(axis=1)
    sd = x.std(axis=1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(sd > 0, math.sqrt(n) * mean / np.where(sd > 0, sd, 1.0),
                        np.where(mean > 0, np.inf, np.where(mean < 0, -np.inf, 0.0)))


def bootstrap_t_test_p(d, t_null: np.ndarray) -> float:
    """Two-sided p of the studentized bootstrap test of mean(d) = 0 (Efron & Tibshirani
    1993, Algorithm 16.2) from the studentized means ``t_null`` of centred-resample null sets
    (n values drawn from d - mean(d); ``_studentized``): with t = sqrt(n) mean(d) / sd(d),
    p = min(1, 2 (1 + #{t*_j >= t}) / (1 + S)) when t >= 0, with <= for t < 0 (Phipson &
    Smyth 2010: the +1 keeps p above 0)."""
    d = np.asarray(d, dtype=float)
    t_obs = float(_studentized(d[None, :])[0])
    t_null = np.asarray(t_null, dtype=float)
    far = np.sum(t_null >= t_obs) if t_obs >= 0 else np.sum(t_null <= t_obs)
    return float(min(1.0, 2 * (1 + far) / (1 + t_null.size)))


def calibrate_scores(d, *, interval: str, confidence: float = 0.95, sets: int = DEFAULT_SETS,
                     seed: int = 0, resample_sets: int = DEFAULT_SETS) -> Calibration:
    """Monte-Carlo null rejection of ``interval`` (one of ``core.paired.intervals.SCORE_METHODS``)
    on ``sets`` sign-flip null sets of the paired differences ``d`` and on ``resample_sets``
    centred-resample null sets (d - mean(d) drawn with replacement; 0: not run), with the
    studentized bootstrap test's p from the latter (``bootstrap_t_test_p``). Seeded: the same
    seed gives the same rates."""
    d = checks.values("d", d, min_n=2)
    interval = checks.choice("interval", interval, SCORE_METHODS)
    confidence = checks.confidence(confidence)
    sets = checks.whole("sets", sets, lo=10, hi=100_000)
    resample_sets = checks.whole("resample_sets", resample_sets, lo=0, hi=100_000)
    if 0 < resample_sets < 10:
        raise ValueError(f"resample_sets must be 0 or at least 10, got {resample_sets}")
    seed = checks.seed(seed)
    return _calibrate_scores(d, interval, confidence, sets, seed, resample_sets)


def _calibrate_scores(d: np.ndarray, interval: str, confidence: float, sets: int, seed: int,
                      resample_sets: int) -> Calibration:
    """``calibrate_scores`` on checked arguments."""
    n = d.size
    scale = float(np.max(np.abs(d)))
    rng = np.random.default_rng([seed, STREAM_CALIBRATION])
    rate, resamples, _ = _set_rejection(lambda rows: _null_sets(d, rng, rows), sets, n,
                                        interval, confidence,
                                        stream_key(seed, STREAM_CALIBRATION), scale)
    extra = {}
    if resample_sets:
        r = np.random.default_rng([seed, STREAM_RESAMPLE_NULL])
        z = null_centred(d)
        rr, _, t_null = _set_rejection(lambda rows: _resample_sets(z, r, rows), resample_sets,
                                       n, interval, confidence,
                                       stream_key(seed, STREAM_RESAMPLE_NULL), scale)
        extra = dict(resample_null_rejection=rr, resample_sets=resample_sets,
                     resample_mc_se=math.sqrt(rr * (1 - rr) / resample_sets),
                     survival_test="bootstrap_t", survival_p=bootstrap_t_test_p(d, t_null))
    return Calibration(rate, sets, n, interval, confidence, False, resamples,
                       math.sqrt(rate * (1 - rate) / sets), nonzero=int(np.count_nonzero(d)),
                       **extra)


def calibrate_comparison(bootstrap, data) -> Calibration | None:
    """The self-checks of a comparison's displayed interval (``bootstrap.interval``, at its
    confidence and seed) on its checked data (``core.paired.stats.PairedData``): ``calibrate_table``
    for 0/1 outcomes, ``calibrate_scores`` with ``DEFAULT_SETS`` null sets of each kind
    otherwise. None
    when repeating it would cost too much (more than ``MAX_TABLES`` discordant pairs, or more
    than ``MAX_CELL_WORK`` / ``MAX_SCORE_WORK`` values to draw): large sets are where these
    intervals are accurate anyway. The caller checked both (``core.paired.compare.settle``,
    inside ``compare_paired``: a ``BootstrapResult`` of that ``PairedData``)."""
    interval, conf, seed = bootstrap.interval, bootstrap.confidence, bootstrap.seed
    if data.binary:
        both, a_only, b_only, neither = data.table
        m = a_only + b_only
        if interval in PAIRED_PROPORTION_METHODS:
            if m > MAX_TABLES:
                return None
        elif (m + 1 + DEFAULT_SETS) * data.n > MAX_CELL_WORK:
            return None
        return _calibrate_table(both, b_only, a_only, neither, interval, conf, seed,
                                DEFAULT_SETS)
    per_set = 1 if interval in CLOSED_FORM_METHODS else null_resamples(data.n, DEFAULT_SETS)
    if 2 * DEFAULT_SETS * data.n * per_set > MAX_SCORE_WORK:
        return None
    return _calibrate_scores(data.d, interval, conf, DEFAULT_SETS, seed, DEFAULT_SETS)
