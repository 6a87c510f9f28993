"""The one timer the benchmarks share: the best of a few runs, wall clock or CPU time.

The best (minimum) of several runs is the least disturbed by other work on a shared machine;
the ratios the benchmarks print are built from it (reference and candidate timed alike).
"""
from __future__ import annotations

import time
from typing import Callable


def best(fn: Callable[[], object], repeat: int = 3, *,
         clock: Callable[[], float] = time.perf_counter) -> float:
    """Seconds of the fastest of ``repeat`` calls of ``fn`` on ``clock`` (wall clock by default;
    pass ``time.process_time`` for CPU time)."""
    if repeat < 1:
        raise ValueError(f"repeat must be at least 1, got {repeat!r}")
    fastest = float("inf")
    for _ in range(repeat):
        t0 = clock()
        fn()
        fastest = min(fastest, clock() - t0)
    return fastest
