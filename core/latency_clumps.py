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
CACHE_ALPHA, CACHE_SIMULATIONS = 0.01, 199


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


def _clump_stats(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``bimodality``'s gated separation for each row of ``x`` (rows sorted ascending):
    Ashman's D of the Otsu split when BC > 5/9 and the fast clump's share is within
    [``CACHE_MIN_SHARE``, 1 - ``CACHE_MIN_SHARE``], else 0; with BC and the split (the
    fast clump is the first ``cut`` values). Vectorised over rows."""
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
        (share <= 1 - CACHE_MIN_SHARE)
    return np.where(ok, d, 0.0), bc, cut + 1


class _Layout:
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
    separates best (``basis`` ``pooled``: all log timings; ``within``: each timing against
    its query's slowest), the fast clump's ``share`` and the geometric means of the fast and
    slow timings (ms), and the calibrated ``p`` (``clumps``)."""

    d: float
    bc: float
    share: float
    fast: float
    slow: float
    basis: str
    p: float

    @property
    def detected(self) -> bool:
        return self.d >= CACHE_MIN_ASHMAN_D and self.p < CACHE_ALPHA


def _best_view(x: np.ndarray, layout: _Layout) -> tuple[float, float, np.ndarray, str]:
    """The larger gated D of the pooled and the within-query view of one sample (row)."""
    views = [("pooled", x, np.arange(x.size))]
    if layout.size >= 10:
        res, where = layout.residuals(x[None, :])
        views.append(("within", res[0], where[0]))
    best = (0.0, 0.0, np.array([], int), "pooled")
    for basis, v, where in views:
        order = np.argsort(v, kind="stable")
        stat, bc, cut = _clump_stats(v[order][None, :])
        if stat[0] > best[0]:
            best = (float(stat[0]), float(bc[0]), where[order[:cut[0]]], basis)
    return best


def clumps(log_values, query, *, simulations: int = CACHE_SIMULATIONS,
           seed: int = 0) -> ClumpCheck:
    """Are there two clumps in one method's log latencies, beyond what the spread between
    queries gives? The statistic is the larger gated Ashman's D (``_clump_stats``: D when
    BC > 5/9 and each clump holds >= 5 %, else 0) of two views: all timings pooled, and each
    timing against its query's slowest (queries with >= 3 runs; a cache that hits on some runs
    of a query, ``_Layout``). Its p is a parametric bootstrap (Efron & Tibshirani 1993, ch. 16) under the
    one-way random-effects normal model with the log's own query structure: query effects
    N(0, s_b^2), runs N(0, s_w^2), s_w^2 the pooled within-query variance and s_b^2 =
    var(query means) - s_w^2 mean(1/k_q) (moments, floored at 0); p = (1 + #{T* >= T}) /
    (1 + simulations). With few queries the spread between them alone often looks like two
    clumps (21 % of null logs at 10 queries before this test); the null reproduces that
    (``docs/latency_checks.md``). Simulated only when D >= ``CACHE_MIN_ASHMAN_D``."""
    x = np.asarray(log_values, dtype=float)
    codes = np.unique(np.asarray(query), return_inverse=True)[1].ravel()
    if x.size < 10:
        return ClumpCheck(0.0, 0.0, 0.0, float("nan"), float("nan"), "pooled", 1.0)
    layout = _Layout(codes)
    d, bc, fast_idx, basis = _best_view(x, layout)
    fast_mask = np.zeros(x.size, bool)
    fast_mask[fast_idx] = True
    share = float(fast_mask.mean())
    fast = float(np.exp(x[fast_mask].mean())) if fast_mask.any() else float("nan")
    slow = float(np.exp(x[~fast_mask].mean())) if (~fast_mask).any() else float("nan")
    if d < CACHE_MIN_ASHMAN_D:
        return ClumpCheck(d, bc, share, fast, slow, basis, 1.0)
    k = layout.k
    means = np.bincount(codes, weights=x) / k
    resid = x - means[codes]
    dof = x.size - k.size
    s_w2 = float(resid @ resid / dof) if dof > 0 else 0.0
    s_b2 = max(0.0, float(np.var(means, ddof=1)) - s_w2 * float(np.mean(1.0 / k))) \
        if k.size > 1 else 0.0
    rng = np.random.default_rng(seed)
    chunk = max(1, min(simulations, 2_000_000 // x.size))
    exceed, done = 0, 0
    while done < simulations:
        m = min(chunk, simulations - done)
        sim = rng.normal(0.0, math.sqrt(s_b2), (m, k.size))[:, codes] + \
            rng.normal(0.0, math.sqrt(s_w2), (m, x.size))
        stat = _clump_stats(np.sort(sim, axis=1))[0]
        if layout.size >= 10:
            res = np.sort(layout.residuals(sim)[0], axis=1)
            stat = np.maximum(stat, _clump_stats(res)[0])
        exceed += int(np.count_nonzero(stat >= d - 1e-12))
        done += m
    return ClumpCheck(d, bc, share, fast, slow, basis, (1 + exceed) / (1 + simulations))
