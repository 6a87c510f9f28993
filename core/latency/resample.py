"""Resampling latencies: the nested bootstrap of pooled quantiles and the paired bootstrap
of the ratio of medians, as numba kernels on sorted timings (no timing is copied per resample).

Random streams are counter-based (``core.paired.streams.resample_seeds``): resample r's draws depend
on the seed and r only, so results do not depend on threads or batch sizes.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit, prange, uint64

from core.kernel_cache import prepare

prepare(__file__)   # a damaged or stale compiled cache is removed before numba reads it

from core import checks
from core._kernels import splitmix
from core.paired import resample_seeds

DEFAULT_RESAMPLES, DEFAULT_QUANTILE_RESAMPLES = 20_000, 2_000

_U53 = 1.0 / 9007199254740992.0  # 2**-53: a 64-bit word's top 53 bits as a uniform in [0, 1)


@njit(cache=True, inline="always")
def _below(state, n):
    """An index in [0, n) from the next splitmix64 word (top 53 bits as a uniform; the bias
    is below n / 2**53)."""
    state, word = splitmix(state)
    return state, int((word >> uint64(11)) * _U53 * n)


@njit(cache=True, inline="always")
def _bin(n, p):
    """Binomial(n, p) with the edge cases numba's sampler rejects handled."""
    if n <= 0 or p <= 0.0:
        return 0
    if p >= 1.0:
        return n
    return np.random.binomial(n, p)


# The nested walk's first draws, Binomial(w_q k_q, b_q / k_q) for every drawn query and
# quantile, were 85 % of its time with numba's sampler (q**n and a pmf walk from 0 on every
# call, on a thread-local Mersenne Twister). They are drawn from alias tables of that law
# (Walker 1977; Vose 1991), one per (k_q, b_q, w_q): one uniform from the resample's own
# splitmix64 stream picks a column and decides between it and its alias, without branches
# that depend on the draw.
TABLE_MAX_W = 8                # copies of a query with a table (more: drawn without one)
TABLE_MAX_ENTRIES = 1 << 21    # table entries kept per call (beyond: drawn without a table)
_NESTED_SALT = uint64(0x6A09E667F3BCC909)   # the nested streams differ from the paired ones


@njit(cache=True, inline="always")
def _uniform(state):
    """A uniform in [0, 1) from the next splitmix64 word (its top 53 bits)."""
    state, word = splitmix(state)
    return state, (word >> uint64(11)) * _U53


@njit(cache=True)
def _binomial(state, n, p, seed, seeded):
    """Binomial(n, p) by inversion (one uniform from the stream, the pmf walked from 0;
    Devroye 1986, "Non-Uniform Random Variate Generation", sec. X.4) when the smaller of
    n p and n (1 - p) is at most 30; above, numba's BTPE sampler, its generator seeded from
    ``seed`` on first use in the resample (``seeded``). Returns (state, draw, seeded)."""
    if n <= 0 or p <= 0.0:
        return state, 0, seeded
    if p >= 1.0:
        return state, n, seeded
    flipped = p > 0.5
    pp = 1.0 - p if flipped else p
    q = 1.0 - pp
    qn = q ** n
    if n * pp <= 30.0 and qn > 1e-300:
        state, u = _uniform(state)
        x = 0
        px = qn
        c = px
        while u >= c and x < n:
            x += 1
            px = px * ((n - x + 1) * pp) / (x * q)
            c += px
        return state, (n - x if flipped else x), seeded
    if not seeded:
        np.random.seed(seed)
        seeded = True
    return state, np.random.binomial(n, p), seeded


@njit(cache=True)
def _binomial_pmf(n, p, out):
    """The pmf of Binomial(n, p) on x = 0..n into ``out``: from its mode (log-gamma) outwards
    by the ratios pmf(x+1) / pmf(x) = (n - x) p / ((x + 1) q)."""
    q = 1.0 - p
    mode = min(n, int(math.floor((n + 1) * p)))
    out[mode] = math.exp(math.lgamma(n + 1) - math.lgamma(mode + 1) - math.lgamma(n - mode + 1)
                         + mode * math.log(p) + (n - mode) * math.log(q))
    for x in range(mode, n):
        out[x + 1] = out[x] * ((n - x) * p) / ((x + 1) * q)
    for x in range(mode, 0, -1):
        out[x - 1] = out[x] * (x * q) / ((n - x + 1) * p)


@njit(cache=True)
def _alias_table(pmf, prob, alias):
    """Vose's (1991) alias table of the law ``pmf`` on 0..m-1: draw column i uniformly, keep i
    with probability ``prob[i]``, else take ``alias[i]``. ``pmf`` is normalised here."""
    m = pmf.shape[0]
    scaled = pmf * (m / pmf.sum())
    small = np.empty(m, np.int64)
    large = np.empty(m, np.int64)
    ns = nl = 0
    for i in range(m):
        if scaled[i] < 1.0:
            small[ns] = i
            ns += 1
        else:
            large[nl] = i
            nl += 1
    while ns > 0 and nl > 0:
        ns -= 1
        s_ = small[ns]
        g = large[nl - 1]
        prob[s_] = scaled[s_]
        alias[s_] = g
        scaled[g] = (scaled[g] + scaled[s_]) - 1.0
        if scaled[g] < 1.0:
            nl -= 1
            small[ns] = g
            ns += 1
    for i in range(nl):
        prob[large[i]] = 1.0
        alias[large[i]] = large[i]
    for i in range(ns):   # left by rounding: their mass is 1 up to rounding
        prob[small[i]] = 1.0
        alias[small[i]] = small[i]


@njit(cache=True)
def _binomial_tables(pair_k, pair_b, max_w, max_entries):
    """Alias tables of Binomial(w k, b / k) on x = 0..w k for every (k, b) pair and
    w = 1..max_w. Returns (offset into the tables (pairs, max_w), -1 = none within
    ``max_entries``; prob; alias)."""
    P = pair_k.shape[0]
    off = np.full((P, max_w), -1, np.int64)
    total = 0
    for i in range(P):
        for w1 in range(max_w):
            n = (w1 + 1) * pair_k[i]
            if total + n + 1 <= max_entries:
                off[i, w1] = total
                total += n + 1
    prob = np.empty(total)
    alias = np.empty(total, np.int64)
    for i in range(P):
        for w1 in range(max_w):
            o = off[i, w1]
            if o < 0:
                continue
            n = (w1 + 1) * pair_k[i]
            pmf = np.empty(n + 1)
            _binomial_pmf(n, pair_b[i] / pair_k[i], pmf)
            _alias_table(pmf, prob[o:o + n + 1], alias[o:o + n + 1])
    return off, prob, alias


@njit(cache=True, inline="always")
def _table_draw(state, o, m, prob, alias):
    """One draw from the alias table at ``[o, o + m)``: column i = floor(u m), kept when the
    rest of u m is below ``prob``, else its alias."""
    state, u = _uniform(state)
    y = u * m
    i = min(int(y), m - 1)
    x = i if y - i < prob[o + i] else alias[o + i]
    return state, x


@njit(parallel=True, cache=True)
def _nested_walk(sv, sq, k, starts, below, probs, seeds, pairs, pair_k, pair_b, max_w,
                 max_entries):
    """Two-stage bootstrap of pooled quantiles without drawing every timing.

    ``sv`` is one method's sorted timings, ``sq`` the query of each, ``k`` the runs per query,
    and for quantile j ``starts[j]`` its observed position and ``below[j, q]`` query q's runs
    before it. A resample draws each query's copy count w_q (queries with replacement); the
    D_q = w_q k_q run draws of query q are Multinomial(D_q; 1/k_q, ...) over its runs. The
    order statistic is found by walking in sorted order from the observed quantile, drawing
    only the counts the walk needs, each from its exact conditional law: the draws of q before
    the start are Binomial(D_q, b_q/k_q) (from the alias table of ``pairs[j, q]`` for
    w_q <= TABLE_MAX_W); a count at the edge of the visited stretch is Binomial(remaining
    draws of q on that side, 1 / remaining runs of q on that side).
    Each quantile gets its own within-query draws (its marginal law is the nested bootstrap's).
    Resample r draws from its own splitmix64 stream started at ``seeds[r]`` (salted), so the
    output does not depend on threads.
    """
    N = sv.shape[0]
    nq = k.shape[0]
    R = seeds.shape[0]
    P = probs.shape[0]
    off, prob, alias = _binomial_tables(pair_k, pair_b, max_w, max_entries)  # built once
    W = off.shape[1]
    out = np.empty((R, P))
    for r in prange(R):
        state = seeds[r] + _NESTED_SALT
        mseed = np.int64(seeds[r] >> uint64(33))
        seeded = False
        w = np.zeros(nq, np.int64)
        for _ in range(nq):
            state, i = _below(state, nq)
            w[i] += 1
        T = 0
        for q in range(nq):
            T += w[q] * k[q]
        cnt = np.zeros(N, np.int64)
        L = np.empty(nq, np.int64)
        U = np.empty(nq, np.int64)
        lb = np.empty(nq, np.int64)
        ub = np.empty(nq, np.int64)
        for j in range(P):
            p0 = starts[j]
            c = 0
            for q in range(nq):
                d = w[q] * k[q]
                lb[q] = below[j, q]
                ub[q] = k[q] - lb[q]
                pr = pairs[j, q]
                if d == 0 or pr < 0:   # not drawn, or all its runs on one side
                    x = d if lb[q] == k[q] else 0
                elif w[q] <= W and off[pr, w[q] - 1] >= 0:
                    state, x = _table_draw(state, off[pr, w[q] - 1], d + 1, prob, alias)
                else:
                    state, x, seeded = _binomial(state, d, lb[q] / k[q], mseed, seeded)
                L[q] = x
                U[q] = d - x
                c += x
            lo = p0
            hi = p0  # visited stretch [lo, hi); c = weight before p
            h = (T - 1) * probs[j]
            rank = int(math.floor(h))
            p = p0
            while c > rank:
                p -= 1
                if p < lo:
                    q = sq[p]
                    state, x, seeded = _binomial(state, L[q], 1.0 / lb[q], mseed, seeded)
                    L[q] -= x
                    lb[q] -= 1
                    cnt[p] = x
                    lo = p
                c -= cnt[p]
            while True:
                if p >= hi:
                    q = sq[p]
                    state, x, seeded = _binomial(state, U[q], 1.0 / ub[q], mseed, seeded)
                    U[q] -= x
                    ub[q] -= 1
                    cnt[p] = x
                    hi = p + 1
                if c + cnt[p] > rank:
                    break
                c += cnt[p]
                p += 1
            v = sv[p]
            if h > rank:
                c2 = c + cnt[p]
                p2 = p
                if rank + 1 >= c2:  # the next order statistic lies further up
                    p2 = p + 1
                    while True:
                        if p2 >= hi:
                            q = sq[p2]
                            state, x, seeded = _binomial(state, U[q], 1.0 / ub[q], mseed,
                                                         seeded)
                            U[q] -= x
                            ub[q] -= 1
                            cnt[p2] = x
                            hi = p2 + 1
                        if c2 + cnt[p2] > rank + 1:
                            break
                        c2 += cnt[p2]
                        p2 += 1
                v = v + (h - rank) * (sv[p2] - v)
            out[r, j] = v
    return out


@njit(cache=True)
def draw_query_counts(seed, nq):
    """How often each of ``nq`` queries is drawn in one resample of ``nq`` with replacement
    (the draws ``_paired_median_ratio`` makes for that seed)."""
    state = uint64(seed)
    w = np.zeros(nq, np.int64)
    for _ in range(nq):
        state, q = _below(state, nq)
        w[q] += 1
    return w


@njit(cache=True, inline="always")
def _weighted_order_stat(sv, sq, w, rank, p, c):
    """Position of the ``rank``-th (0-based) value of the sample in which sorted value
    ``sv[i]`` appears ``w[sq[i]]`` times, walking from position ``p`` where ``c`` is the
    weight strictly before ``p``. Returns (position, weight before it)."""
    while c > rank:
        p -= 1
        c -= w[sq[p]]
    while c + w[sq[p]] <= rank:
        c += w[sq[p]]
        p += 1
    return p, c


@njit(cache=True)
def _resampled_median(sv, sq, below0, p0, w):
    total = 0
    c = 0
    for q in range(w.shape[0]):
        c += w[q] * below0[q, 0]
        total += w[q] * below0[q, 1]
    h = (total - 1) * 0.5
    lo = int(math.floor(h))
    p, c = _weighted_order_stat(sv, sq, w, lo, p0, c)
    v = sv[p]
    if h > lo:
        p2, _ = _weighted_order_stat(sv, sq, w, lo + 1, p, c)
        v = 0.5 * (v + sv[p2])
    return v


@njit(parallel=True, cache=True)
def _paired_median_ratio(sv_a, sq_a, below_a, p0_a, sv_b, sq_b, below_b, p0_b, seeds):
    """log(median of B's timings) - log(median of A's timings) when the queries are resampled
    with replacement (A and B together); each query keeps all its runs. The median of a
    resample is found in sorted order by walking from the observed median, so a resample
    costs O(queries + walk) instead of O(timings)."""
    nq = below_a.shape[0]
    R = seeds.shape[0]
    out = np.empty(R)
    for r in prange(R):
        w = draw_query_counts(seeds[r], nq)
        ma = _resampled_median(sv_a, sq_a, below_a, p0_a, w)
        mb = _resampled_median(sv_b, sq_b, below_b, p0_b, w)
        out[r] = math.log(mb) - math.log(ma)
    return out


def _sorted_index(values: np.ndarray, query_idx: np.ndarray, nq: int):
    """Sorted values, the query of each, and per query (#runs before the observed median's
    position, #runs), with that position."""
    order = np.argsort(values, kind="stable")
    sv, sq = values[order], query_idx[order].astype(np.int64)
    p0 = (sv.size - 1) // 2
    below = np.zeros((nq, 2), np.int64)
    below[:, 0] = np.bincount(sq[:p0], minlength=nq)
    below[:, 1] = np.bincount(sq, minlength=nq)
    return sv, sq, below, p0


def nested_bootstrap_quantiles(groups, probs, *, resamples: int = DEFAULT_QUANTILE_RESAMPLES,
                               seed: int = 0) -> np.ndarray:
    """Two-stage (nested) bootstrap distribution of pooled quantiles: (resamples, len(probs)).

    ``groups`` is a list of 1-D arrays, one per query (its repetitions). Each resample draws
    the queries with replacement, then each drawn query's repetitions with replacement from
    its own, and takes numpy's linear quantiles of everything drawn (Davison & Hinkley 1997,
    "Bootstrap Methods and their Application", sec. 3.8; resampling at both stages errs on the
    wide side). With one repetition per query it is the ordinary bootstrap of the quantile
    (Efron & Tibshirani 1993), equal in distribution to ``scipy.stats.bootstrap``'s.
    """
    arrays, p, resamples, seed = checks.quantile_bootstrap_iv(groups, probs, resamples, seed)
    k = np.array([a.size for a in arrays], np.int64)
    values = np.concatenate(arrays)
    order = np.argsort(values, kind="stable")
    sv, sq = values[order], np.repeat(np.arange(k.size), k)[order]
    starts = np.floor((sv.size - 1) * p).astype(np.int64)
    below = np.stack([np.bincount(sq[:s], minlength=k.size) for s in starts]).astype(np.int64)
    return _nested_walk(sv, sq.astype(np.int64), k, starts, below, p,
                        resample_seeds(seed, resamples), *_first_draw_pairs(k, below),
                        TABLE_MAX_W, TABLE_MAX_ENTRIES)


def _first_draw_pairs(k: np.ndarray, below: np.ndarray):
    """The (k_q, b_q) pair of every quantile and query (an index into ``pair_k``/``pair_b``;
    -1 where b_q is 0 or k_q: no draw), for the alias tables ``_nested_walk`` builds
    (``_binomial_tables``)."""
    kk = np.broadcast_to(k, below.shape)
    inner = (below > 0) & (below < kk)
    base = int(k.max()) + 1
    uniq, inv = np.unique(kk[inner] * base + below[inner], return_inverse=True)
    pairs = np.full(below.shape, -1, np.int64)
    pairs[inner] = inv
    pair_k = (uniq // base).astype(np.int64)
    return pairs, pair_k, (uniq - pair_k * base).astype(np.int64)


def paired_median_ratio_bootstrap(a_values, a_query, b_values, b_query, nq: int, *,
                                  resamples: int = DEFAULT_RESAMPLES, seed: int = 0):
    """Observed log(median B / median A) of all timings and its paired bootstrap
    distribution, resampling the ``nq`` queries with replacement (both methods' timings of a
    drawn query go in together; Efron & Tibshirani 1993, ch. 6, for clustered data). ``*_query``
    gives each timing's query index in [0, nq)."""
    a, qa, b, qb, nq, resamples, seed = checks.timings_iv(
        a_values, a_query, b_values, b_query, nq, resamples, seed)
    ia, ib = _sorted_index(a, qa, nq), _sorted_index(b, qb, nq)
    dist = _paired_median_ratio(*ia, *ib, resample_seeds(seed, resamples))
    return float(np.log(np.median(b)) - np.log(np.median(a))), dist
