"""Timing logs whose truth is known, for the latency tests (core, CLI and page).

Each returns the bytes of a CSV as a user would upload it. Latencies are lognormal: a query
effect (``spread`` in log units between queries) times run noise (``noise``)."""
from __future__ import annotations

import numpy as np


def pair_log(*, queries: int = 40, runs: int = 5, ratio: float = 1.0, gain: float = 1.0,
             order: str = "fixed", seed: int = 0, spread: float = 0.5,
             noise: float = 0.1, timestamps: bool = True) -> bytes:
    """Long ``query_id, method, run, latency_ms[, timestamp]``: for each run, each query
    times A and B back to back. True B/A = ``ratio``; whichever runs second in a pair is
    ``gain`` times faster (a cache the first one warmed). ``order``: ``fixed`` (A first
    always), ``random`` (a coin per pair) or ``per_query`` (a coin per query)."""
    rng = np.random.default_rng(seed)
    base = rng.lognormal(np.log(30), spread, queries)
    coin_q = rng.random(queries) < 0.5
    lines = ["query_id,method,run,latency_ms" + (",timestamp" if timestamps else "")]
    clock = 0.0
    for r in range(runs):
        for q in range(queries):
            a_first = {"fixed": True, "random": rng.random() < 0.5,
                       "per_query": bool(coin_q[q])}[order]
            pair = [("A", base[q] * rng.lognormal(0, noise)),
                    ("B", base[q] * ratio * rng.lognormal(0, noise))]
            if not a_first:
                pair.reverse()
            for i, (m, ms) in enumerate(pair):
                ms = ms / gain if i == 1 else ms
                clock += ms / 1000
                lines.append(f"q{q},{m},{r + 1},{ms:.5f}" + (f",{clock:.5f}" if timestamps
                                                              else ""))
    return ("\n".join(lines) + "\n").encode()


def wide_log(*, queries: int = 30, runs: int = 3, ratio: float = 0.8, b_scale: float = 1.0,
             mixed_share: float = 0.0, seed: int = 0, spread: float = 0.5,
             noise: float = 0.1) -> bytes:
    """Wide ``query_id, A, B`` with ``runs`` repeated rows per query. B's true ratio is
    ``ratio``; its column is multiplied by ``b_scale`` (1/1000: logged in seconds), and a
    share ``mixed_share`` of its cells is divided by 1,000 (seconds pasted among ms)."""
    rng = np.random.default_rng(seed)
    base = rng.lognormal(np.log(40), spread, queries)
    lines = ["query_id,A,B"]
    for _ in range(runs):
        for q in range(queries):
            a = base[q] * rng.lognormal(0, noise)
            b = base[q] * ratio * rng.lognormal(0, noise) * b_scale
            if rng.random() < mixed_share:
                b /= 1000
            lines.append(f"q{q},{a:.5f},{b:.8f}")
    return ("\n".join(lines) + "\n").encode()


def cache_log(*, queries: int = 20, runs: int = 5, hit_share: float = 0.3,
              speedup: float = 5.0, seed: int = 0, spread: float = 0.5,
              noise: float = 0.1) -> bytes:
    """Long log without a cache column in which a share ``hit_share`` of A's runs hit a
    cache that makes them ``speedup`` times faster; B never hits. Pair order random."""
    rng = np.random.default_rng(seed)
    base = rng.lognormal(np.log(30), spread, queries)
    lines = ["query_id,method,run,latency_ms"]
    for r in range(runs):
        for q in range(queries):
            a = base[q] * rng.lognormal(0, noise) / (speedup if rng.random() < hit_share else 1)
            b = base[q] * rng.lognormal(0, noise)
            pair = [f"q{q},A,{r + 1},{a:.5f}", f"q{q},B,{r + 1},{b:.5f}"]
            lines += pair if rng.random() < 0.5 else pair[::-1]
    return ("\n".join(lines) + "\n").encode()
