"""Two clumps in one method's timings (a cache that hits sometimes, a fallback path), beyond
what the spread between queries gives: ``bimodality`` (the statistics) and ``clumps`` (the
calibrated check the fairness warnings use; ``docs/latency_checks.md`` has its false-alarm
and detection rates from ``bench/bench_latency_checks.py``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

CACHE_MIN_SHARE, CACHE_MIN_ASHMAN_D, BIMODALITY_COEFFICIENT = 0.05, 3.5, 5 / 9
CACHE_ALPHA, CACHE_SIMULATIONS, CACHE_MIN_COUNT = 0.01, 199, 2
# A within-query fast clump must come from at least this share of the queries (and >= 3): a
# cache that hits on some runs touches most queries; one very slow run taken as a query's
# reference puts all that query's other runs in a clump (``_min_groups``).
CACHE_MIN_QUERY_SHARE = 1 / 3
# The between-query view's null family: query effects t with these degrees of freedom (None:
# normal); its p is the largest over the family (``_between_p``).
CACHE_NULL_TAILS = (3, 5, None)


def skew_kurtosis(x: np.ndarray) -> tuple:
    """Bias-corrected sample skewness G1 and excess kurtosis G2 along the last axis (Joanes &
    Gill 1998): with m_r = mean((x - xbar)^r), G1 = sqrt(n (n - 1)) / (n - 2) m3 / m2^1.5
    (n > 2) and G2 = ((n^2 - 1) m4 / m2^2 - 3 (n - 1)^2) / ((n - 2)(n - 3)) (n > 3); NaN where
    m2 <= (eps xbar)^2 (constant data). The same operations in the same order as
    ``scipy.stats.skew/kurtosis(x, axis=-1, bias=False)``, so the same numbers (tested), without
    importing scipy.stats (~0.6 s of CPU on every latency run)."""
    n = x.shape[-1]
    mean = np.mean(x, axis=-1, keepdims=True)
    a0 = x - mean
    sq = a0 ** 2
    m2 = np.mean(sq, axis=-1)
    m3 = np.mean(sq * a0, axis=-1)
    m4 = np.mean(sq ** 2, axis=-1)
    with np.errstate(all="ignore"):
        zero = m2 <= (np.finfo(m2.dtype).eps * np.squeeze(mean, axis=-1)) ** 2
        g = np.where(zero, np.nan, m3 / m2 ** 1.5)
        k = np.where(zero, np.nan, m4 / m2 ** 2.0)
        if n > 2:
            g = np.where(~zero, ((n - 1.0) * n) ** 0.5 / (n - 2.0) * m3 / m2 ** 1.5, g)
        if n > 3:
            k = np.where(~zero, 1.0 / (n - 2) / (n - 3) * ((n ** 2 - 1.0) * m4 / m2 ** 2.0
                                                            - 3 * (n - 1) ** 2.0) + 3.0, k)
    k = k - 3
    return (g[()], k[()]) if g.ndim == 0 else (g, k)


def bimodality(log_values) -> tuple[float, float, float, float, float]:
    """Is a distribution of log latencies two clumps? Returns (bimodality coefficient,
    Ashman's D, share of the fast clump, geometric mean of the fast clump, of the slow one).

    The split is the threshold minimising the within-clump squared error (Otsu's 1979
    two-class criterion, exact over every cut of the sorted values), and Ashman's D = sqrt(2)
    |mu1 - mu2| / sqrt(s1^2 + s2^2) of the two clumps (Ashman, Bird & Zepf 1994). D > 2 means
    separated components for fitted mixtures; the two halves of a split single normal already
    give D = 2.7 and of a uniform 3.5, so the checks here ask for D >= 3.5;
    the sample bimodality coefficient BC = (g^2 + 1) / (k + 3 (n-1)^2 / ((n-2)(n-3))) with g
    the skewness and k the excess kurtosis (bias-corrected) exceeds 5/9 for bimodal shapes
    (SAS; Pfister et al. 2013).
    """
    x = np.sort(np.asarray(log_values, dtype=float))
    n = x.size
    if n < 10:
        return 0.0, 0.0, 0.0, float("nan"), float("nan")
    g, k = skew_kurtosis(x)
    bc = float((g * g + 1) / (k + 3 * (n - 1) ** 2 / ((n - 2) * (n - 3))))
    cs, cs2 = np.cumsum(x), np.cumsum(x * x)
    i = np.arange(1, n)  # left clump = first i values
    left_ss = cs2[:-1] - cs[:-1] ** 2 / i
    right_ss = (cs2[-1] - cs2[:-1]) - (cs[-1] - cs[:-1]) ** 2 / (n - i)
    cut = int(np.argmin(left_ss + right_ss)) + 1
    lo, hi = x[:cut], x[cut:]
    var = lo.var() + hi.var()
    d = float(math.sqrt(2) * abs(hi.mean() - lo.mean()) / math.sqrt(var)) if var > 0 \
        else float("inf")
    return bc, d, cut / n, float(np.exp(lo.mean())), float(np.exp(hi.mean()))


def gated_separation(x: np.ndarray, min_count: int = CACHE_MIN_COUNT
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``bimodality``'s gated separation for each row of ``x`` (rows sorted ascending):
    Ashman's D of the Otsu split when BC > 5/9 and each clump holds at least
    ``CACHE_MIN_SHARE`` of the values and at least ``min_count`` of them (one value
    apart is an outlier, not a clump), else 0; with BC and the split (the fast clump is the
    first ``cut`` values). Vectorised over rows; ``min_count`` 1 gives the gate before issue
    25's heavy-tail calibration (the bench compares both)."""
    r, n = x.shape
    with np.errstate(divide="ignore", invalid="ignore"):
        g, k = skew_kurtosis(x)
        bc = np.nan_to_num((g * g + 1) / (k + 3 * (n - 1) ** 2 / ((n - 2) * (n - 3))))
    cs, cs2 = np.cumsum(x, axis=1), np.cumsum(x * x, axis=1)
    i = np.arange(1, n)
    left = cs2[:, :-1] - cs[:, :-1] ** 2 / i
    right = (cs2[:, -1:] - cs2[:, :-1]) - (cs[:, -1:] - cs[:, :-1]) ** 2 / (n - i)
    cut = np.argmin(left + right, axis=1)
    rows = np.arange(r)
    n1 = cut + 1.0
    m1 = cs[rows, cut] / n1
    m2 = (cs[:, -1] - cs[rows, cut]) / (n - n1)
    v1 = np.maximum(cs2[rows, cut] / n1 - m1 ** 2, 0.0)
    v2 = np.maximum((cs2[:, -1] - cs2[rows, cut]) / (n - n1) - m2 ** 2, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        d = np.where(v1 + v2 > 0, math.sqrt(2) * np.abs(m2 - m1) / np.sqrt(v1 + v2),
                     np.where(m2 > m1, np.inf, 0.0))
    share = n1 / n
    ok = (bc > BIMODALITY_COEFFICIENT) & (share >= CACHE_MIN_SHARE) & \
        (share <= 1 - CACHE_MIN_SHARE) & (n1 >= min_count) & (n - n1 >= min_count)
    return np.where(ok, d, 0.0), bc, cut + 1


class QueryLayout:
    """A log's query structure for ``clumps``: each value's query, and the padded (queries x
    runs) positions of the queries with >= 3 runs. Within such a query, each timing against
    the query's slowest one (left out) shows a cache that hits on some runs only: the hits
    sit far below, the misses near it (the query's median would itself be a hit in some
    queries and a miss in others, making three clumps out of two)."""

    def __init__(self, codes: np.ndarray):
        self.codes = codes
        self.k = np.bincount(codes)
        order = np.argsort(codes, kind="stable")
        self.idx = order[self.k[codes[order]] >= 3]       # values of the eligible queries
        eligible = np.flatnonzero(self.k >= 3)
        width = int(self.k[eligible].max()) if eligible.size else 0
        self.cells = np.full((eligible.size, width), -1)
        qs = codes[self.idx]
        pos = np.searchsorted(eligible, qs)
        rank = np.arange(self.idx.size) - np.searchsorted(qs, qs)
        self.cells[pos, rank] = np.arange(self.idx.size)
        self.size = self.idx.size - eligible.size

    def residuals(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rows of ``x``: each eligible value minus its query's largest, the largest left
        out; (residuals (rows x ``size``), the positions in ``x`` they come from)."""
        v = x[:, self.idx]
        filled = self.cells >= 0
        pad = np.where(filled, v[:, np.maximum(self.cells, 0)], -np.inf)
        top = np.argmax(pad, axis=2)
        res = pad - np.take_along_axis(pad, top[:, :, None], axis=2)
        keep = filled[None, :, :] & (np.arange(pad.shape[2])[None, None, :] != top[:, :, None])
        rows = res[keep].reshape(x.shape[0], self.size)
        where = np.broadcast_to(self.cells, pad.shape)[keep].reshape(x.shape[0], self.size)
        return rows, self.idx[where]


@dataclass(frozen=True)
class ClumpCheck:
    """Two clumps in one method's timings: gated Ashman's ``d`` and ``bc`` of the view that
    found them (``basis`` ``within``: each timing against its query's slowest, a cache that
    hits on some runs of a query; ``queries``: the queries' mean log latencies, some queries
    far faster than the rest), the fast clump's ``share`` of the timings, the geometric means
    of the fast and slow timings (ms), the calibrated ``p`` of that view (``clumps``) and
    ``runs``, the most runs any query has (1: a cache that always serves some queries cannot
    be told from queries that are simply fast), and ``fast_queries``, how many queries have a
    timing in the fast clump."""

    d: float
    bc: float
    share: float
    fast: float
    slow: float
    basis: str
    p: float
    runs: int = 1
    fast_queries: int = 0

    @property
    def detected(self) -> bool:
        return self.d >= CACHE_MIN_ASHMAN_D and self.p < CACHE_ALPHA


def _gated(v: np.ndarray) -> tuple[float, float, np.ndarray]:
    """``gated_separation`` of one unsorted vector: (gated D, BC, positions of the fast clump)."""
    order = np.argsort(v, kind="stable")
    stat, bc, cut = gated_separation(v[order][None, :])
    return float(stat[0]), float(bc[0]), order[:cut[0]]


def _chunks(simulations: int, width: int):
    """Sizes of simulation batches holding at most ~2 million values each."""
    chunk = max(1, min(simulations, 2_000_000 // max(width, 1)))
    done = 0
    while done < simulations:
        m = min(chunk, simulations - done)
        yield m
        done += m


def _null_stats(sim: np.ndarray, labels: np.ndarray | None = None,
                min_groups: int = 0) -> np.ndarray:
    """Gated D of each row of ``sim`` (unsorted): rows whose bimodality coefficient is at most
    5/9 score 0 without being sorted and split (most null rows). With ``labels`` (each
    value's query, same shape), a row also scores 0 when its fast clump holds values of fewer
    than ``min_groups`` queries."""
    n = sim.shape[1]
    with np.errstate(divide="ignore", invalid="ignore"):
        g, k = skew_kurtosis(sim)
        bc = np.nan_to_num((g * g + 1) / (k + 3 * (n - 1) ** 2 / ((n - 2) * (n - 3))))
    out = np.zeros(sim.shape[0])
    keep = np.flatnonzero(bc > BIMODALITY_COEFFICIENT)
    if keep.size and labels is None:
        out[keep] = gated_separation(np.sort(sim[keep], axis=1))[0]
    elif keep.size:
        order = np.argsort(sim[keep], axis=1, kind="stable")
        stat, _, cut = gated_separation(np.take_along_axis(sim[keep], order, axis=1))
        out[keep] = np.where(_groups(np.take_along_axis(labels[keep], order, axis=1), cut)
                             >= min_groups, stat, 0.0)
    return out


def _groups(sorted_labels: np.ndarray, cut: np.ndarray) -> np.ndarray:
    """For each row, how many distinct labels the first ``cut`` values carry."""
    r, n = sorted_labels.shape
    fast = np.arange(n)[None, :] < cut[:, None]
    seen = np.zeros((r, int(sorted_labels.max()) + 1), bool)
    seen[np.broadcast_to(np.arange(r)[:, None], (r, n))[fast], sorted_labels[fast]] = True
    return seen.sum(axis=1)


def _min_groups(layout: QueryLayout) -> int:
    """Queries a within-query fast clump must span: ``CACHE_MIN_QUERY_SHARE`` of the queries
    with >= 3 runs, at least 3."""
    return max(3, math.ceil(CACHE_MIN_QUERY_SHARE * layout.cells.shape[0]))


def _within_p(layout: QueryLayout, n: int, d: float, simulations: int, rng) -> float:
    """Monte-Carlo p of the within-query view: runs of each query i.i.d. normal around the
    query's own level. Residuals from the query's largest and Ashman's D are free of the
    query levels and of the scale, so the null needs neither: standard normals laid out as
    the log's queries and runs (Efron & Tibshirani 1993, ch. 16, parametric bootstrap; here
    the statistic is pivotal). p = (1 + #{T* >= T}) / (1 + simulations). Heavy-tailed run
    noise (occasional very slow runs) is outside this null; the fast clump's query span
    (``_min_groups``, applied to T and T* alike) keeps it within 5 % in the bench, where a t
    null here (as ``_between_p``) cost most of the power against a 2x cache.
    Rows whose bimodality coefficient fails the gate are not sorted (``_null_stats``)."""
    exceed, need = 0, _min_groups(layout)
    for m in _chunks(simulations, n):
        res, where = layout.residuals(rng.standard_normal((m, n)))
        exceed += int(np.count_nonzero(_null_stats(res, layout.codes[where], need)
                                       >= d - 1e-12))
    return (1 + exceed) / (1 + simulations)


def _between_p(nq: int, d: float, simulations: int, rng) -> float:
    """Monte-Carlo p of the between-query view, the largest over a family of null query
    effects: i.i.d. t with ``CACHE_NULL_TAILS`` degrees of freedom (down to 2: a few extreme
    queries, as real latency logs have) and normal. D is free of location and scale, so each
    member is one pivotal simulation; taking the largest p over the family is the supremum
    p-value of a composite null (Berger & Boos 1994, JASA 89:1012), valid when the truth is
    any member. A cache that always serves some queries and a group of simply faster queries
    give the same query levels: this view says 'two groups of queries', not 'a cache'."""
    worst = 0.0
    for df in CACHE_NULL_TAILS:
        exceed = 0
        for m in _chunks(simulations, nq):
            sim = rng.standard_t(df, (m, nq)) if df else rng.standard_normal((m, nq))
            exceed += int(np.count_nonzero(_null_stats(sim) >= d - 1e-12))
        worst = max(worst, (1 + exceed) / (1 + simulations))
    return worst


def clumps(log_values, query, *, simulations: int = CACHE_SIMULATIONS,
           seed: int = 0) -> ClumpCheck:
    """Are there two clumps in one method's log latencies beyond what query-to-query spread
    gives? Two views, each with the gated Ashman's D of ``gated_separation`` (D when BC > 5/9 and
    each clump holds >= 5 % and >= 2 values, else 0) and its own calibrated p:

    * ``within`` (queries with >= 3 runs, >= 10 timings besides each query's slowest): each
      timing against its query's slowest (``QueryLayout``), the fast clump spanning at least
      a third of those queries (``_min_groups``); p under normal runs around each query's
      level (``_within_p``), whatever the query levels are. This is where a cache that hits
      on some runs of a query shows.
    * ``queries`` (>= 10 queries): the queries' mean log latencies; p is the largest over
      null query effects from normal to t with 2 df (``_between_p``), so a few extreme queries
      are not read as a clump. With one run per query this is the only view.

    Detected when a view's D >= ``CACHE_MIN_ASHMAN_D`` and its p < ``CACHE_ALPHA`` (within
    first); two views at 0.01 each keep null logs below 2 % (Bonferroni). Before calibration
    21 % of null logs at 10 queries were flagged; a pooled-timings view against a normal
    null still flagged 10 % of logs with heavy-tailed query effects (``docs/latency_checks.md``).
    Simulated only for a view whose D >= ``CACHE_MIN_ASHMAN_D``."""
    x = np.asarray(log_values, dtype=float)
    codes = np.unique(np.asarray(query), return_inverse=True)[1].ravel()
    if x.size < 10:
        return ClumpCheck(0.0, 0.0, 0.0, float("nan"), float("nan"), "queries", 1.0)
    layout = QueryLayout(codes)
    runs = int(layout.k.max())
    rng = np.random.default_rng(seed)
    found = []
    if layout.size >= 10:
        res, where = layout.residuals(x[None, :])
        d, bc, fast = _gated(res[0])
        if np.unique(codes[where[0][fast]]).size < _min_groups(layout):
            d = 0.0  # a clump from a few queries: their odd runs, not a cache
        p = _within_p(layout, x.size, d, simulations, rng) if d >= CACHE_MIN_ASHMAN_D else 1.0
        found.append((d, bc, where[0][fast], "within", p))
    means = np.bincount(codes, weights=x) / layout.k
    if means.size >= 10:
        d, bc, fast = _gated(means)
        p = _between_p(means.size, d, simulations, rng) if d >= CACHE_MIN_ASHMAN_D else 1.0
        found.append((d, bc, np.flatnonzero(np.isin(codes, fast)), "queries", p))
    if not found:
        return ClumpCheck(0.0, 0.0, 0.0, float("nan"), float("nan"), "queries", 1.0, runs)
    hits = [f for f in found if f[0] >= CACHE_MIN_ASHMAN_D and f[4] < CACHE_ALPHA]
    d, bc, fast_idx, basis, p = hits[0] if hits else max(found, key=lambda f: (f[0], -f[4]))
    fast_mask = np.zeros(x.size, bool)
    fast_mask[fast_idx] = True
    share = float(fast_mask.mean())
    fast = float(np.exp(x[fast_mask].mean())) if fast_mask.any() else float("nan")
    slow = float(np.exp(x[~fast_mask].mean())) if (~fast_mask).any() else float("nan")
    return ClumpCheck(d, bc, share, fast, slow, basis, p, runs,
                      int(np.unique(codes[fast_mask]).size))
