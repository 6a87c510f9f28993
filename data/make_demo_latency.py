"""Make the synthetic demo timing log of the latency page (seeded).

    python data/make_demo_latency.py

writes ``data/demo_latency.csv``: long ``query_id, method, run, latency_ms, cache, timestamp``
for 60 queries, methods ``bm25`` and ``hybrid``, 6 runs each. The numbers are invented:
each query has its own base cost (log-normal); hybrid is about 1.25x slower than bm25 at a
fair steady state. Two unfair conditions are planted so the page has something to find:

* warm-up: the first two runs of every query pay a cold start (about 3x and 1.8x slower);
* cache: a third of bm25's later runs hit a result cache (about 10x faster) and are marked
  ``hit`` in the ``cache`` column, so bm25 looks faster than it is on a cold cache.

Runs interleave the two methods query by query, and a coin (its own seeded generator, so
the timings themselves do not depend on it) picks which method runs first within each pair:
no order effect to find. Timestamps are seconds from the start of the session.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

SEED = 20261201
HERE = Path(__file__).resolve().parent
N_QUERIES, RUNS = 60, 6
COST = {"bm25": 1.0, "hybrid": 1.25}
WARMUP = (3.0, 1.8)      # slowdown of runs 1 and 2
CACHE_SHARE, CACHE_SPEEDUP = 1 / 3, 10.0


def make(rng: np.random.Generator, order: np.random.Generator) -> list[tuple]:
    base = np.exp(rng.normal(np.log(35.0), 0.45, size=N_QUERIES))  # ms, per query
    rows, clock = [], 0.0
    for run in range(1, RUNS + 1):
        for q in range(N_QUERIES):
            pair = []
            for method, cost in COST.items():
                ms = base[q] * cost * np.exp(rng.normal(0, 0.12))
                if run <= len(WARMUP):
                    ms *= WARMUP[run - 1]
                hit = method == "bm25" and run > len(WARMUP) and rng.random() < CACHE_SHARE
                if hit:
                    ms /= CACHE_SPEEDUP
                pair.append((method, ms, hit))
            # who runs first: a coin per pair, except the very first pair, whose order makes
            # the baseline (bm25) the log's first method and so the page's A
            if order.random() < 0.5 and (run, q) != (1, 0):
                pair.reverse()
            for method, ms, hit in pair:
                clock += ms / 1000 + 0.005
                rows.append((f"q{q + 1:03d}", method, run, round(float(ms), 2),
                             "hit" if hit else "miss", round(clock, 3)))
    return rows


def main() -> None:
    rows = make(np.random.default_rng(SEED), np.random.default_rng(SEED + 1))
    lines = ["query_id,method,run,latency_ms,cache,timestamp"]
    lines += [f"{q},{m},{r},{ms},{c},{ts}" for q, m, r, ms, c, ts in rows]
    (HERE / "demo_latency.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {len(rows)} timings to data/demo_latency.csv")


if __name__ == "__main__":
    main()
