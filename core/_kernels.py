"""Compiled inner loops (numba) for resampling statistics over continuous per-case values.

Each resample r draws its own stream from ``seeds[r]`` (splitmix64; Steele, Lea & Flood 2014),
so a result does not depend on thread count, scheduling or batching: same seeds -> same output.
Indices are drawn without modulo bias by Lemire's multiply-and-reject method (Lemire 2019,
"Fast random integer generation in an interval"), two 32-bit draws per 64-bit word.
Memory is O(n + R): no (R x n) index matrix is ever built.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange, uint64

_GOLDEN = uint64(0x9E3779B97F4A7C15)
_M1 = uint64(0xBF58476D1CE4E5B9)
_M2 = uint64(0x94D049BB133111EB)
_LOW32 = uint64(0xFFFFFFFF)


@njit(cache=True, inline="always")
def _splitmix(x):
    x = x + _GOLDEN
    z = x
    z = (z ^ (z >> uint64(30))) * _M1
    z = (z ^ (z >> uint64(27))) * _M2
    return x, z ^ (z >> uint64(31))


@njit(parallel=True, cache=True)
def bootstrap_means(values: np.ndarray, seeds: np.ndarray) -> np.ndarray:
    """Mean of ``len(values)`` draws with replacement from ``values``, once per seed."""
    n = values.shape[0]
    R = seeds.shape[0]
    out = np.empty(R)
    nn = uint64(n)
    thresh = (uint64(4294967296) - nn) % nn  # Lemire: reject low parts below this
    for r in prange(R):
        state = uint64(seeds[r])
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
        out[r] = total / n
    return out


@njit(parallel=True, cache=True)
def signflip_means(values: np.ndarray, seeds: np.ndarray) -> np.ndarray:
    """Mean of ``s_i * values_i`` with independent fair random signs ``s_i``, once per seed."""
    n = values.shape[0]
    R = seeds.shape[0]
    out = np.empty(R)
    for r in prange(R):
        state = uint64(seeds[r])
        total = 0.0
        bits = uint64(0)
        left = 0
        for i in range(n):
            if left == 0:
                state, bits = _splitmix(state)
                left = 64
            if bits & uint64(1):
                total += values[i]
            else:
                total -= values[i]
            bits = bits >> uint64(1)
            left -= 1
        out[r] = total / n
    return out
