"""Counter-based random streams for the resampling kernels: one 64-bit key per (seed,
stream), one start state per resample (splitmix64, Steele, Lea & Flood 2014; in the style of
Salmon et al. 2011, "Parallel random numbers: as easy as 1, 2, 3"). ``core.paired.stats`` re-exports
these names."""
from __future__ import annotations

import numpy as np

from core import checks

_MASK64 = (1 << 64) - 1
STREAM_BOOTSTRAP, STREAM_SIGNFLIP = 0, 1
STREAM_METHODS = 4   # per-method intervals of scores (core.paired.method_intervals.mean_intervals)
_M1 = 0xBF58476D1CE4E5B9


def _mix64(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


def stream_key(seed: int, stream: int = STREAM_BOOTSTRAP) -> np.uint64:
    """The 64-bit key of a counter-based run of resamples: a splitmix64 hash of (seed, stream).
    Resample r then draws from a stream started at a hash of (key, r) inside the compiled
    kernel (``core._kernels``), so no per-resample seed array is built. The caller checked
    ``seed`` (``core.checks.seed``, at its public door): this runs inside every resampling
    call and never checks it again."""
    return np.uint64(_mix64((int(seed) * 2 + int(stream) + 0x9E3779B97F4A7C15) & _MASK64))


def row_key(key, row: int) -> np.uint64:
    """The key of row ``row`` (a row index >= 0 of the caller's own array, not checked) of a
    run keyed by ``key`` when each row of values draws its own resamples: key + row * M1
    (wrapping), the convention of ``core._kernels.bootstrap_sets``."""
    return np.uint64((int(key) + int(row) * _M1) & _MASK64)


def resample_seeds(seed: int, resamples: int, stream: int = STREAM_BOOTSTRAP) -> np.ndarray:
    """One 64-bit seed per resample for kernels that seed a generator per resample (the
    latency bootstraps): seed r = mix64(key + (r + 1) * golden), the same counter-based start
    state ``core._kernels`` gives resample r of the run keyed by ``stream_key(seed, stream)``
    (splitmix64, Steele, Lea & Flood 2014). Vectorised, no ``SeedSequence``; resample r's seed
    does not depend on how many resamples are asked for."""
    key = stream_key(checks.seed(seed), stream)
    z = (np.arange(1, checks.resamples(resamples) + 1, dtype=np.uint64)
         * np.uint64(0x9E3779B97F4A7C15) + key)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))
