"""Compiled inner loops (numba) for resampling statistics over continuous per-case values.

Counter-based streams: resample r of a run keyed by ``key`` starts its own splitmix64 stream
(Steele, Lea & Flood 2014) at state = mix64(key + (r + 1) * golden), a hash of (seed, r) in
the style of counter-based generators (Salmon et al. 2011, "Parallel random numbers: as easy
as 1, 2, 3"). No per-resample seed array is built, and a resample does not depend on thread
count, scheduling or batching: resamples [start, start + count) are the same numbers whether
computed in one call or many. Indices are drawn without modulo bias by Lemire's
multiply-and-reject method (Lemire 2019, "Fast random integer generation in an interval"),
two 32-bit draws per 64-bit word. Memory is O(n + R): no (R x n) index matrix is ever built.

This module imports numba; ``core.paired.stats`` imports it only when continuous data need it, and
the functions compile on first call (``cache=True`` keeps the machine code on disk).
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange, uint64

from core.kernel_cache import prepare

prepare(__file__)   # a damaged or stale compiled cache is removed before numba reads it

_GOLDEN = uint64(0x9E3779B97F4A7C15)
_M1 = uint64(0xBF58476D1CE4E5B9)
_M2 = uint64(0x94D049BB133111EB)
_LOW32 = uint64(0xFFFFFFFF)


@njit(cache=True, inline="always")
def _mix(z):
    z = (z ^ (z >> uint64(30))) * _M1
    z = (z ^ (z >> uint64(27))) * _M2
    return z ^ (z >> uint64(31))


@njit(cache=True, inline="always")
def splitmix(x):
    """One step of splitmix64 (Steele, Lea & Flood 2014): the next state and its 64-bit
    output word. The one generator step of every kernel here and in
    ``core.latency.resample``."""
    x = x + _GOLDEN
    return x, _mix(x)


@njit(cache=True, inline="always")
def _stream(key, r):
    """Start state of resample ``r``'s stream: a hash of (key, r)."""
    return _mix(key + (uint64(r) + uint64(1)) * _GOLDEN)


@njit(parallel=True, cache=True)
def bootstrap_means(values, key, start, count):
    """Mean of ``len(values)`` draws with replacement from ``values`` for resamples
    ``start .. start + count - 1`` of the run keyed by ``key``."""
    n = values.shape[0]
    out = np.empty(count)
    nn = uint64(n)
    thresh = (uint64(4294967296) - nn) % nn  # Lemire: reject low parts below this
    for j in prange(count):
        state = _stream(key, start + j)
        total = 0.0
        i = 0
        while i < n:
            state, word = splitmix(state)
            m = (word & _LOW32) * nn
            if (m & _LOW32) >= thresh:
                total += values[m >> uint64(32)]
                i += 1
            if i < n:
                m = (word >> uint64(32)) * nn
                if (m & _LOW32) >= thresh:
                    total += values[m >> uint64(32)]
                    i += 1
        out[j] = total / n
    return out


@njit(parallel=True, cache=True, fastmath={"contract"})
def bootstrap_means_sd(values, centre, key, start, count):
    """``bootstrap_means`` plus, from the same drawn cases, each resample's SD (ddof 1): what
    the studentized intervals (bootstrap-t, calibrated t) need, in one pass. Returns an array
    of shape (2, count): means (row 0, equal to ``bootstrap_means(values, key, start, count)``
    exactly: the same draws summed in the same order) and SDs (row 1).

    Running sums per drawn value x: sum x, and sum (x - c)^2 with c = ``centre`` (the caller
    passes the mean of ``values``, so the resamples' means lie close to it), the squares of the
    low and high 32-bit draws of each random word in two partial sums, each a fused
    multiply-add (``fastmath={"contract"}`` fuses only those; the sum of x is untouched). The
    loop is bound by instruction throughput: this costs 1.3x ``bootstrap_means`` at
    n = 100,000, where three separate operations per square cost 1.55x (docs/speed.md). With
    m* the resample's mean, (n - 1) var* = sum (x - c)^2 - n (m* - c)^2: the shift by the
    sample mean keeps the subtraction free of cancellation (Chan, Golub & LeVeque 1983,
    "Algorithms for computing the sample variance", *Am. Stat.* 37:242-247). An SD within
    rounding of 0, (n - 1) var* <= 4 n eps (sum (x - c)^2 + n |m* - c| (|m*| + |c|)), is
    exactly 0: a resample of one repeated value has no spread, and its rounding must not pass
    for one (it would give an enormous studentized value)."""
    n = values.shape[0]
    out = np.empty((2, count))
    nn = uint64(n)
    thresh = (uint64(4294967296) - nn) % nn
    tol = 4.0 * n * 2.220446049250313e-16
    for j in prange(count):
        state = _stream(key, start + j)
        total = 0.0
        t_lo = 0.0
        t_hi = 0.0
        i = 0
        while i < n:
            state, word = splitmix(state)
            m = (word & _LOW32) * nn
            if (m & _LOW32) >= thresh:
                x = values[m >> uint64(32)]
                total += x
                v = x - centre
                t_lo += v * v
                i += 1
            if i < n:
                m = (word >> uint64(32)) * nn
                if (m & _LOW32) >= thresh:
                    x = values[m >> uint64(32)]
                    total += x
                    v = x - centre
                    t_hi += v * v
                    i += 1
        mean = total / n
        out[0, j] = mean
        out[1, j] = 0.0
        if n > 1:
            t2 = t_lo + t_hi
            dm = mean - centre
            ss = t2 - n * (dm * dm)
            if ss > tol * (t2 + n * abs(dm) * (abs(mean) + abs(centre))):
                out[1, j] = np.sqrt(ss / (n - 1))
    return out


@njit(cache=True, inline="always")
def _sign(bits, b):
    """+1.0 or -1.0 from bit ``b`` of ``bits`` (branch-free: a random sign bit would defeat
    branch prediction)."""
    return 2.0 * float((bits >> uint64(b)) & uint64(1)) - 1.0


@njit(parallel=True, cache=True)
def signflip_sums(values, key, start, count):
    """Sum of ``s_i * values_i`` with independent fair random signs ``s_i`` (bit i % 64 of the
    stream's (i // 64)-th word), for resamples ``start .. start + count - 1``. Four running
    sums break the chain of dependent additions (about 1.6x faster at n = 100,000); the
    signs do not depend on it, the sum differs from one running sum only by rounding."""
    n = values.shape[0]
    out = np.empty(count)
    full = n - n % 64
    for j in prange(count):
        state = _stream(key, start + j)
        t0 = 0.0
        t1 = 0.0
        t2 = 0.0
        t3 = 0.0
        i = 0
        while i < full:
            state, bits = splitmix(state)
            for b in range(0, 64, 4):
                t0 += values[i + b] * _sign(bits, b)
                t1 += values[i + b + 1] * _sign(bits, b + 1)
                t2 += values[i + b + 2] * _sign(bits, b + 2)
                t3 += values[i + b + 3] * _sign(bits, b + 3)
            i += 64
        if i < n:
            state, bits = splitmix(state)
            for r in range(n - i):
                t0 += values[i + r] * _sign(bits, r)
        out[j] = (t0 + t1) + (t2 + t3)
    return out


@njit(parallel=True, cache=True)
def bootstrap_sets(sets, key, count):
    """For each row s of ``sets`` (S sets of n values), ``count`` bootstrap resamples: their
    means (out[0]) and SDs with ddof 1 (out[1]), shape (2, S, count). Set s draws from the run
    keyed by key + s * M1 (wrapping), so row 0 gives the same means as
    ``bootstrap_means(sets[0], key, 0, count)`` up to summation order (sums are taken relative
    to the set's first value, which keeps the SD of a tied resample exactly 0)."""
    S = sets.shape[0]
    n = sets.shape[1]
    out = np.empty((2, S, count))
    nn = uint64(n)
    thresh = (uint64(4294967296) - nn) % nn
    for job in prange(S * count):
        s = job // count
        j = job - s * count
        skey = key + uint64(s) * _M1
        state = _stream(skey, j)
        x0 = sets[s, 0]
        t1 = 0.0
        t2 = 0.0
        i = 0
        while i < n:
            state, word = splitmix(state)
            m = (word & _LOW32) * nn
            if (m & _LOW32) >= thresh:
                v = sets[s, m >> uint64(32)] - x0
                t1 += v
                t2 += v * v
                i += 1
            if i < n:
                m = (word >> uint64(32)) * nn
                if (m & _LOW32) >= thresh:
                    v = sets[s, m >> uint64(32)] - x0
                    t1 += v
                    t2 += v * v
                    i += 1
        mean = t1 / n
        out[0, s, j] = x0 + mean
        if n > 1:
            var = (t2 - n * mean * mean) / (n - 1)
            out[1, s, j] = np.sqrt(var) if var > 0 else 0.0
        else:
            out[1, s, j] = 0.0
    return out
