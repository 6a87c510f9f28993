"""Compiled inner loops (numba) for resampling statistics over continuous per-case values.

Counter-based streams: resample r of a run keyed by ``key`` starts its own splitmix64 stream
(Steele, Lea & Flood 2014) at state = mix64(key + (r + 1) * golden), a hash of (seed, r) in
the style of counter-based generators (Salmon et al. 2011, "Parallel random numbers: as easy
as 1, 2, 3"). No per-resample seed array is built, and a resample does not depend on thread
count, scheduling or batching: resamples [start, start + count) are the same numbers whether
computed in one call or many. Indices are drawn without modulo bias by Lemire's
multiply-and-reject method (Lemire 2019, "Fast random integer generation in an interval"),
two 32-bit draws per 64-bit word. Memory is O(n + R): no (R x n) index matrix is ever built.

This module imports numba; ``core.stats`` imports it only when continuous data need it, and
the functions compile on first call (``cache=True`` keeps the machine code on disk).
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange, uint64

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
def _splitmix(x):
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
            state, word = _splitmix(state)
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


@njit(parallel=True, cache=True)
def paired_means(ab, key, start, count):
    """One fused pass over the (n, 2) array ``ab`` of paired values (A and B of a case side
    by side, so one drawn case is one cache line): for each resample the same n drawn cases
    give mean(A), mean(B) and mean(A - B) (columns 0, 1, 2). Column 2 equals
    ``bootstrap_means(a - b, ...)`` exactly (same draws, same summation order)."""
    n = ab.shape[0]
    out = np.empty((count, 3))
    nn = uint64(n)
    thresh = (uint64(4294967296) - nn) % nn
    for j in prange(count):
        state = _stream(key, start + j)
        sa = 0.0
        sb = 0.0
        sd = 0.0
        i = 0
        while i < n:
            state, word = _splitmix(state)
            m = (word & _LOW32) * nn
            if (m & _LOW32) >= thresh:
                k = m >> uint64(32)
                x = ab[k, 0]
                y = ab[k, 1]
                sa += x
                sb += y
                sd += x - y
                i += 1
            if i < n:
                m = (word >> uint64(32)) * nn
                if (m & _LOW32) >= thresh:
                    k = m >> uint64(32)
                    x = ab[k, 0]
                    y = ab[k, 1]
                    sa += x
                    sb += y
                    sd += x - y
                    i += 1
        out[j, 0] = sa / n
        out[j, 1] = sb / n
        out[j, 2] = sd / n
    return out


@njit(parallel=True, cache=True)
def signflip_sums(values, key, start, count):
    """Sum of ``s_i * values_i`` with independent fair random signs ``s_i`` (one bit each of
    the stream), for resamples ``start .. start + count - 1``."""
    n = values.shape[0]
    out = np.empty(count)
    for j in prange(count):
        state = _stream(key, start + j)
        total = 0.0
        bits = uint64(0)
        left = 0
        for i in range(n):
            if left == 0:
                state, bits = _splitmix(state)
                left = 64
            # branch-free: a random sign bit would defeat branch prediction
            total += values[i] * (2.0 * float(bits & uint64(1)) - 1.0)
            bits = bits >> uint64(1)
            left -= 1
        out[j] = total
    return out
