"""Three or more systems: which ones are tied for best, and each system's rank interval.

The question a leaderboard raises is not "which pairs differ" but "which system is best, and
how sure are we". This module answers it with simultaneous confidence intervals for every
pairwise difference of means, read as ranks (Klein, Wright & Wieczorek 2020, "A joint
confidence region for an overall ranking of populations", J. R. Stat. Soc. C 69(3):589-606;
Mogstad, Romano, Shaikh & Wilhelm 2024, "Inference for ranks with applications to mobility
across neighbourhoods and academic achievement across countries", Rev. Econ. Stud.
91(1):476-518), and the set of systems that no other system is shown to beat, which holds the
true best with the chosen confidence: a conservative form of Hsu's multiple comparisons with
the best (Hsu 1996, "Multiple Comparisons: Theory and Methods", ch. 4, the "possibly best"
set).

On the n cases where every system has a value (cases with any missing value are left out and
listed), with x_ci the value of system i on case c and, for each pair i < j,
d_c = x_cj - x_ci (B - A with A = i, B = j), dbar its mean and se = sd(d) / sqrt(n) moderated
toward the pooled se of all pairs (``moderated_se``: Hsu's randomized-block MCB pools every
pair's variance into 2 MSE; the pair's own se alone held the true best in only 86.5% of
scifact's near ties of 10 systems at 20 cases, the moderated one in 98%; issue 35):

1. Resample the n cases with replacement, all systems together (one draw of case indices per
   resample, so every pair sees the same cases), R times. For each pair the standardized
   difference t*_p = (dbar*_p - dbar_p) / se_p, scaled by the pair's standard error on the
   data (so pairs on different scales weigh alike; a pair with se = 0, the same difference
   on every case, has t* = 0). The resample's own SD is not used: with 0/1 outcomes near 0%
   or 100% many resamples have SD 0, and t* = +/-inf there would make c infinite.
2. Two readings of the same resamples: the standardized t*_p above, and the bootstrap-t
   t*_s,p = (dbar*_p - dbar_p) / se*_p with the resample's own standard error (0 where se*_p
   = 0; Efron & Tibshirani 1993, ch. 12.5). c = the larger of (a) the ``confidence``
   quantile of max_p |t*_p| read on Student's t with n - 1 df, t_(n-1)^(-1)(Phi(q)) (the
   single-step max-|t| bootstrap of Romano & Wolf 2005, "Exact and approximate stepdown
   methods for multiple hypothesis testing", JASA 100:94-108, as Mogstad et al. 2024 use it
   for ranks, the bootstrap analogue of Tukey's studentized range; the t reading because
   the statistic divides by an estimated SD: the house's calibrated t, issue 35) and
   (b) the ``confidence`` quantile of max_p |t*_s,p| (se*_p moderated as se_p is, toward
   the resample's own pool).
3. The simultaneous interval of each pair is dbar_p +/- c se_p, each end moved out to the
   skew guard's at the same Student quantile c (``core.paired.skew_intervals
   .skew_guard_interval`` at level 2 F_(n-1)(c) - 1, issue 36: Hall's transformed t with
   the skewness of the non-zero differences, tripled): all of them hold together with
   probability ~ ``confidence``. Without (a), (b) and the guard, the set held the true best
   in only 80-94% of near ties at 20 cases (``bench/best_harm.py``, ``docs/many_systems.md``):
   per-query differences of retrieval scores are zero-heavy and skewed, and a sample of 20
   mostly misses their long tail.
4. System i's rank interval (rank 1 = highest mean) is
   [1 + #{j : low(x_j - x_i) > 0}, k - #{j : high(x_j - x_i) < 0}]; the rank intervals of all
   systems hold together with the same probability (Klein et al. 2020, Prop. 1).
5. ``method="all-pairs"``: the tied-for-best set is every system whose rank interval starts
   at 1: no other system is shown better than it. When all intervals hold, the true best is in
   it, so it holds the true best with probability >= ~``confidence``. It is never empty (the
   highest mean is in it). It is conservative: all k(k-1)/2 pairs pay for a promise that only
   the k - 1 comparisons with the best need.

``method="mcb"`` (the default): Hsu's constrained multiple comparisons with the best (Hsu 1981,
"Simultaneous confidence intervals for all distances from the 'best'", Ann. Statist. 9:1026-1034;
Hsu 1996, "Multiple Comparisons", ch. 4, the upper MCB bounds and the unbalanced form with one
critical value per system). From the same resamples, for each system i taken as the control,
d_i = the larger of the ``confidence`` quantile of max_{j != i} t*_(j - i), one-sided, read
on Student's t as in step 2 (the bootstrap analogue of the one-sided Dunnett quantile: 1.916,
2.160, 2.417 for 3, 5, 10 systems with equal variances, correlation 0.5, infinite df) and the
same quantile of the bootstrap-t maxima. With L_i(j) = the lower end of x_j - x_i at
allowance d_i, min(xbar_j - xbar_i - d_i se_ij, the skew guard's lower end at d_i), system i
is possibly the best unless some j is ahead of it: L_i(j) > 0. The true best i* is left out
only when some j's difference, whose true value is <= 0, has its lower end above 0, which has
probability <= ~1 - ``confidence``: the set holds the true best with probability
>= ~``confidence``, is never empty (the highest mean stays) and is a subset of the all-pairs
set (d_i <= c on every resample). Hsu's constrained intervals for mu_i - max_{j != i} mu_j,
with G the set and U_i(j) = -L_i(j) the upper end of x_i - x_j at d_i:

    high_i = max(0, min_{j != i} U_i(j))
    low_i  = 0 if G = {i}, else min(0, min_{j in G, j != i} L_j(i))

(``SystemRank.mcb_low``/``mcb_high``). The rank intervals are the all-pairs ones whichever
method names the set: a system can have rank interval 1-2 and be outside the MCB set.

With k = 2 there is one pair and c comes from the symmetric bootstrap quantiles of
|dbar* - dbar| / se and |dbar* - dbar| / se*: the set is the winner alone exactly when that
pair's interval leaves out 0. The resampling is seeded: resamples come in blocks of ``BLOCK``, block b drawn by
``numpy.random.default_rng([seed, b])``, so the same seed gives the same set whatever the
memory; a block costs ``BLOCK`` x n x pairs multiply-adds (a matrix product of the resample
counts with the differences).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from core import checks
from core.errors import InputError
from core.paired.multi import cost_of, score_table
from core.paired.skew_intervals import skew_guard_interval

BLOCK = 64  # resamples per seeded block
POOL_PRIOR = 10  # weight, in cases, of the pooled variance in each pair's (``moderated_se``)
BEST_METHODS = ("mcb", "all-pairs")  # how the tied-for-best set is read (the module docstring)


@dataclass(frozen=True)
class SystemRank:
    """One system: its mean on the shared cases, observed rank (1 = highest mean; tied means
    share the better rank), rank interval [rank_low, rank_high] (all-pairs), whether it is
    tied for best (in the set of the method used: all-pairs, rank_low == 1; mcb, no system
    ahead of it by more than its MCB allowance), the systems shown better than it
    (``behind_of``, input order, by the same method), and the MCB interval of
    mu_i - max_{j != i} mu_j (``mcb_low``, ``mcb_high``; None with all-pairs)."""

    name: str
    mean: float
    rank: int
    rank_low: int
    rank_high: int
    in_best: bool
    behind_of: tuple[str, ...] = ()
    mcb_low: float | None = None
    mcb_high: float | None = None

    def to_dict(self) -> dict:
        out = {"system": self.name, "mean": self.mean, "rank": self.rank,
               "rank_low": self.rank_low, "rank_high": self.rank_high,
               "tied_for_best": self.in_best, "behind": list(self.behind_of)}
        if self.mcb_high is not None:
            out["mcb_low"], out["mcb_high"] = self.mcb_low, self.mcb_high
        return out


@dataclass(frozen=True)
class PairInterval:
    """The simultaneous interval of mean(B - A) for one pair (new minus baseline)."""

    a: str
    b: str
    mean: float
    ci_low: float
    ci_high: float

    def to_dict(self) -> dict:
        return {"a": self.a, "b": self.b, "b_minus_a": self.mean, "ci_low": self.ci_low,
                "ci_high": self.ci_high}


@dataclass(frozen=True)
class BestSet:
    """The tied-for-best set of ``systems`` and every system's rank interval.

    ``ranks`` are ordered by mean, highest first; ``best`` (the set) and ``behind`` (the
    others) in the same order. ``method``: how the set was read (``BEST_METHODS``). ``critical``
    is c, the simultaneous max-|t| critical value of the rank intervals (step 2 of the module
    docstring); ``max_t`` the R resampled maxima of the data-se reading (for a chart or a
    check); ``mcb_critical`` each system's one-sided MCB allowance d_i (input order of
    ``systems``)."""

    systems: tuple[str, ...]
    ranks: tuple[SystemRank, ...]
    pairs: tuple[PairInterval, ...]
    n: int
    excluded: tuple[str, ...]
    confidence: float
    resamples: int
    seed: int
    critical: float
    max_t: np.ndarray
    method: str = "mcb"
    mcb_critical: tuple[float, ...] = ()
    n_clusters: int | None = None   # clusters as the unit (issue 32): ``clustered_critical``

    @property
    def best(self) -> tuple[str, ...]:
        return tuple(r.name for r in self.ranks if r.in_best)

    @property
    def behind(self) -> tuple[str, ...]:
        return tuple(r.name for r in self.ranks if not r.in_best)

    def table(self):
        """One row per system, highest mean first (a pandas DataFrame)."""
        import pandas as pd

        return pd.DataFrame([r.to_dict() for r in self.ranks],
                            columns=["system", "mean", "rank", "rank_low", "rank_high",
                                     "tied_for_best"])

    def to_dict(self) -> dict:
        return {"method": self.method,
                "mcb_critical": dict(zip(self.systems, self.mcb_critical)),
                "confidence": self.confidence, "resamples": self.resamples,
                "seed": self.seed, "n": self.n, "excluded": list(self.excluded),
                "critical": self.critical, "best": list(self.best),
                "behind": list(self.behind), "ranks": [r.to_dict() for r in self.ranks],
                "pairs": [p.to_dict() for p in self.pairs],
                **({} if self.n_clusters is None else {
                    "unit": "clusters", "n_clusters": self.n_clusters,
                    "critical_from": "bonferroni_cr2_t"})}


def best_set_iv(scores, resamples, confidence, seed, method="mcb") -> tuple:
    """Checks of ``best_set``'s arguments (the door); ``scores`` becomes
    ``core.paired.multi.score_table``'s (case ids, systems, values)."""
    table = score_table(scores)
    resamples, confidence, seed = checks.bootstrap_iv(resamples, confidence, seed)
    method = checks.choice("method", method, BEST_METHODS)
    return table, resamples, confidence, seed, method


def moderated_se(se: np.ndarray, n: int) -> np.ndarray:
    """Each pair's standard error moderated toward the pooled one (over the last axis, the
    k(k - 1)/2 pairs): se~^2 = (d0 pool + (n - 1) se^2) / (d0 + n - 1), d0 = ``POOL_PRIOR``,
    pool = the mean of se^2 over the pairs, which is 2 MSE / n of the two-way (cases x
    systems) ANOVA that Hsu's randomized-block MCB uses for every pair (Hsu 1996, ch. 4;
    Smyth 2004, "Linear models and empirical Bayes methods for assessing differential
    expression in microarray experiments", Stat. Appl. Genet. Mol. Biol. 3(1), art. 3: the
    moderated t). The pair's own se follows unequal variances; at 20 cases it is often far too
    small (a sample that holds none of a pair's rare large losses), and the pool, fed by
    every pair, is not. Where the pool understates a pair's se (one system far noisier than
    the rest), both bootstrap readings divide by the same moderated se, so the resampled
    maxima grow and c with them. One pair (k = 2): se~ = se."""
    if se.shape[-1] < 2:
        return se
    pool = np.mean(se * se, axis=-1, keepdims=True)
    return np.sqrt((POOL_PRIOR * pool + (n - 1) * se * se) / (POOL_PRIOR + n - 1))


def _max_t(d: np.ndarray, se: np.ndarray, resamples: int, seed: int,
           controls: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For ``resamples`` joint resamples of the rows of the differences ``d`` (n x P; columns
    with se = 0 count 0), ``BLOCK`` resamples per seeded block, two standardized differences
    per pair: t* = (dbar* - dbar) / se (the data's se) and the bootstrap-t
    t*_s = (dbar* - dbar) / se* (the resample's own se; a resample with se* = 0 for a pair,
    below 1e-6 se, counts 0 for it). For each: the max over columns of |t*| (R), and for each system i the
    one-sided max of t*_(j - i) over j != i (R x k): ``controls[i]`` indexes the columns of
    [t*, -t*] that are j - i. Returns (max |t*|, one-sided, max |t*_s|, one-sided of t*_s)."""
    n, p = d.shape
    dc = d - d.mean(axis=0)
    dc2 = dc * dc
    scale = np.where(se > 0, 1.0 / np.where(se > 0, se, 1.0), 0.0)
    out = np.empty((2, resamples))
    one = np.empty((2, resamples, len(controls)))
    for b, start in enumerate(range(0, resamples, BLOCK)):
        m = min(BLOCK, resamples - start)
        idx = np.random.default_rng([seed, b]).integers(0, n, size=(m, n))
        counts = np.bincount((np.arange(m)[:, None] * n + idx).ravel(),
                             minlength=m * n).reshape(m, n).astype(float)
        shift = counts @ dc / n                    # dbar* - dbar, per resample and pair
        var = np.maximum(counts @ dc2 / n - shift * shift, 0.0) * (n / (n - 1))
        se_star = moderated_se(np.sqrt(var / n), n)
        # a resample whose differences are all equal has se* = 0 up to the rounding of the
        # one-pass variance (about 1e-8 of se): below 1e-6 se it carries no bootstrap-t value
        ok = (se_star > 1e-6 * se) & (se > 0)
        studs = (shift * scale, np.where(ok, shift / np.where(ok, se_star, 1.0), 0.0))
        for v, tt in enumerate(studs):
            out[v, start:start + m] = np.max(np.abs(tt), axis=1)
            both = np.concatenate([tt, -tt], axis=1)
            for i, cols in enumerate(controls):
                one[v, start:start + m, i] = both[:, cols].max(axis=1)
    return out[0], one[0], out[1], one[1]


def t_scale(c, n: int):
    """A normal-scale critical value read on Student's t with n - 1 df at the same tail
    share: t_(n-1)^(-1)(Phi(c)) (the bootstrap of (dbar* - dbar) / se imitates a mean over
    its SD known; the statistic divides by an estimated one). +inf stays +inf."""
    from scipy.special import ndtr, stdtrit
    c = np.asarray(c, dtype=float)
    with np.errstate(invalid="ignore", over="ignore"):
        q = np.where(np.isfinite(c), stdtrit(n - 1, np.minimum(ndtr(c), 1 - 1e-15)), np.inf)
    return np.where(np.isfinite(c), np.maximum(q, c), np.inf)


def guarded_bounds(d: np.ndarray, q, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The skew guard's interval ends (``core.paired.skew_intervals.skew_guard_interval``,
    issue 36) of each column of ``d`` (n x P) at the Student quantile ``q`` (one per column or
    one for all): the two-sided level 2 F_(n-1)(q) - 1. q = +inf gives (-inf, +inf)."""
    from scipy.special import stdtr
    q = np.broadcast_to(np.asarray(q, dtype=float), (d.shape[1],))
    lo = np.full(d.shape[1], -np.inf)
    hi = np.full(d.shape[1], np.inf)
    for v in np.unique(q[np.isfinite(q)]):
        cols = np.flatnonzero(q == v)
        level = min(2.0 * float(stdtr(n - 1, v)) - 1.0, 1.0 - 1e-15)
        if level <= 0:
            lo[cols] = hi[cols] = d[:, cols].mean(axis=0)
            continue
        with np.errstate(invalid="ignore", divide="ignore"):
            g_lo, g_hi = skew_guard_interval(d[:, cols].T, level)
        lo[cols] = np.where(np.isfinite(g_lo), g_lo, -np.inf)
        hi[cols] = np.where(np.isfinite(g_hi), g_hi, np.inf)
    return lo, hi


def clustered_critical(d: np.ndarray, layout, k: int, confidence: float):
    """Clusters as the unit (issue 32): (CR2 standard errors of the P pair differences'
    means, c, the MCB d_i) with Bonferroni's critical values of Student's t at the
    Bell–McCaffrey df of the layout (``core.paired.clusters``): c = t(1 − α / (2P)) for the
    all-pairs intervals, d_i = t(1 − α / (k − 1)) one-sided for every control (Hsu 1996,
    section 4.1.1, the Bonferroni form of MCB). No bootstrap: resampling whole clusters
    under-covers with few clusters (``docs/clusters.md``: the cluster percentile bootstrap
    of B − A covers 87.9–95.3% at 10+ clusters), Bonferroni over CR2 t-tests does not
    depend on it and is conservative. ``d``: (n, P) pair differences in layout order."""
    from core.paired.clusters import cr2_rows  # lazy: clusters only
    from core.paired.skew_intervals import t_quantile  # lazy: clusters only

    _, var = cr2_rows(d.T, layout)
    alpha = 1.0 - confidence
    p = d.shape[1]
    crit = float(t_quantile(1 - alpha / (2 * p), layout.df))
    one = float(t_quantile(1 - alpha / max(k - 1, 1), layout.df))
    return np.sqrt(var), crit, np.full(k, one)


def best_set(scores, *, resamples: int = 20_000, confidence: float = 0.95,
             seed: int = 0, method: str = "mcb", clusters=None) -> BestSet:
    """The tied-for-best set and rank intervals of the columns of ``scores`` (cases x systems,
    larger is better: a pandas DataFrame or the pandas-free ``CaseScores``,
    ``core.paired.multi.score_table``), as the module docstring says; ``method`` "mcb" (Hsu's
    one-sided multiple comparisons with the best, the default) or "all-pairs" names how the
    set is read.
    Cost: resamples x cases x pairs (``core.paired.multi.estimate_cost``); more than
    ``core.paired.multi.MAX_WORK`` raises ``InputError("too_much_work")`` before anything
    runs. ``clusters``: one cluster label per row of ``scores`` when cases share a document
    (issue 32): the standard errors are CR2 and c, d_i Bonferroni t
    (``clustered_critical``); no resampling then (``max_t`` is empty)."""
    (ids, systems, values), resamples, confidence, seed, method = best_set_iv(
        scores, resamples, confidence, seed, method)
    if clusters is not None:
        clusters = list(clusters)
        if len(clusters) != len(ids):
            raise ValueError(f"clusters must give one cluster label per row of scores: "
                             f"{len(clusters)} labels for {len(ids)} rows")
    k = len(systems)
    if k < 2:
        raise InputError("need_two_methods", methods=", ".join(systems))
    gaps = np.isnan(values).any(axis=1)   # a case is kept only where every system has a value
    excluded = tuple(c for c, gap in zip(ids, gaps) if gap)
    x = values[~gaps]
    if values.flags.f_contiguous and not values.flags.c_contiguous:
        # kept in the memory order of the values, as a frame's dropna keeps it: the means
        # below sum the cases in the same order (the same bits) from a frame or its arrays
        x = np.asfortranarray(x)
    n = len(x)
    if n < 2:
        raise InputError("too_few_paired", count=n, a=systems[0], b=systems[1])
    cost = cost_of(k, n, resamples, "all")   # resamples checked by best_set_iv
    if not cost.fits:
        raise InputError("too_much_work", **cost.params())
    pair_idx = [(i, j) for i in range(k) for j in range(i + 1, k)]
    d = np.column_stack([x[:, j] - x[:, i] for i, j in pair_idx])
    dbar = d.mean(axis=0)
    se = d.std(axis=0, ddof=1) / math.sqrt(n)
    # se below rounding of the data's scale is 0 (the same difference on every case)
    se = np.where(se > 1e-12 * max(float(np.max(np.abs(x))), 1e-300), se, 0.0)
    npairs = len(pair_idx)
    # columns of [t*, -t*] that are t*_(j - i) for control i: pair (i, j) as is, (j, i) negated
    controls = [np.array([p for p, (a, _) in enumerate(pair_idx) if a == i]
                         + [npairs + p for p, (_, b) in enumerate(pair_idx) if b == i])
                for i in range(k)]
    layout = None
    if clusters is not None:   # clusters as the unit: CR2 se, Bonferroni t (issue 32)
        from core.paired.clusters import layout_for  # lazy: clusters only
        layout = layout_for([g for g, gap in zip(clusters, gaps) if not gap], n)
        se, crit, mcb_d = clustered_critical(d, layout, k, confidence)
        se = np.where(se > 1e-12 * max(float(np.max(np.abs(x))), 1e-300), se, 0.0)
        max_t = np.empty(0)
        low, high = dbar - crit * se, dbar + crit * se   # se = 0: the interval is the point
    else:
        se = moderated_se(se, n)   # toward the pooled se (Hsu's 2 MSE), d0 = POOL_PRIOR cases
        max_t, one_sided, max_ts, one_ts = _max_t(d, se, resamples, seed, controls)
        crit = float(max(t_scale(np.quantile(max_t, confidence, method="higher"), n),
                         np.quantile(max_ts, confidence, method="higher")))
        mcb_d = np.maximum(np.maximum(
            t_scale(np.quantile(one_sided, confidence, axis=0, method="higher"), n),
            np.quantile(one_ts, confidence, axis=0, method="higher")), 0.0)
        g_lo, g_hi = guarded_bounds(d, crit, n)
        with np.errstate(invalid="ignore"):   # se = 0: the interval is the point
            low = np.minimum(dbar - crit * se, g_lo)
            high = np.maximum(dbar + crit * se, g_hi)
    # better[i, j]: j is shown better than i; worse[i, j]: j is shown worse than i
    better = np.zeros((k, k), dtype=bool)
    worse = np.zeros((k, k), dtype=bool)
    for p, (i, j) in enumerate(pair_idx):  # interval of x_j - x_i
        if low[p] > 0:
            better[i, j] = worse[j, i] = True
        elif high[p] < 0:
            better[j, i] = worse[i, j] = True
    means = x.mean(axis=0)
    mcb = _mcb(means, d, se, pair_idx, mcb_d) if method == "mcb" else None
    ranks = []
    for i in range(k):
        lo_rank = 1 + int(better[i].sum())
        if mcb is None:
            in_best, ahead, low_i, high_i = lo_rank == 1, better[i], None, None
        else:
            ahead, low_i, high_i = mcb[0][i], float(mcb[1][i]), float(mcb[2][i])
            in_best = not ahead.any()
        ranks.append(SystemRank(systems[i], float(means[i]), 1 + int(np.sum(means > means[i])),
                                lo_rank, k - int(worse[i].sum()), bool(in_best),
                                tuple(systems[j] for j in np.flatnonzero(ahead)),
                                low_i, high_i))
    ranks.sort(key=lambda r: (-r.mean, systems.index(r.name)))
    pairs = tuple(PairInterval(systems[i], systems[j], float(dbar[p]), float(low[p]),
                               float(high[p])) for p, (i, j) in enumerate(pair_idx))
    return BestSet(systems, tuple(ranks), pairs, n, excluded, confidence, resamples, int(seed),
                   crit, max_t, method, tuple(float(v) for v in mcb_d),
                   None if layout is None else layout.n_clusters)


def _mcb(means: np.ndarray, d: np.ndarray, se: np.ndarray, pair_idx: list,
         mcb_d: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Hsu's constrained MCB (the module docstring): ahead[i, j] (j is ahead of i: the lower
    end of x_j - x_i at system i's allowance d_i is above 0), and each system's interval
    (low_i, high_i) of mu_i - max_{j != i} mu_j. The lower end of x_j - x_i at allowance q is
    min(xbar_j - xbar_i - q se_ij, the skew guard's lower end at q); the upper end likewise."""
    k = len(means)
    n = d.shape[0]
    # lower[i, j]: the lower end of x_j - x_i at allowance mcb_d[i]
    lower = np.full((k, k), -np.inf)
    cols = np.concatenate([d, -d], axis=1)     # pair (i, j) as x_j - x_i, then x_i - x_j
    ses = np.concatenate([se, se])
    rows, cs, qs = [], [], []
    for p, (i, j) in enumerate(pair_idx):
        rows += [(i, j), (j, i)]
        cs += [p, len(pair_idx) + p]
        qs += [mcb_d[i], mcb_d[j]]
    qs = np.array(qs)
    g_lo, _ = guarded_bounds(cols[:, cs], qs, n)
    with np.errstate(invalid="ignore"):
        lo = np.minimum(cols[:, cs].mean(axis=0) - qs * ses[cs], g_lo)
    for r, (i, j) in enumerate(rows):
        lower[i, j] = lo[r]
    off = ~np.eye(k, dtype=bool)
    ahead = off & (lower > 0)
    in_g = ~ahead.any(axis=1)
    # high_i: the upper end of x_i - x_j at d_i is -lower[i, j]
    high = np.maximum(0.0, np.min(np.where(off, -lower, np.inf), axis=1))
    low = np.zeros(k)
    for i in range(k):
        others = off[i] & in_g
        if others.any():
            # the lower end of x_i - x_j at d_j is lower[j, i]
            low[i] = min(0.0, float(np.min(lower[others, i])))
    return ahead, low, high
