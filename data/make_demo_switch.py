"""Make the demo pair of the "Switch?" page (seeded): a golden-case file and a timing log
that name the same two methods.

    python data/make_demo_switch.py

writes ``data/demo_switch_golden.csv`` (``case_id, rerank, hybrid``: 600 cases with 0/1
outcomes) and ``data/demo_switch_latency.csv`` (long ``query_id, method, run, latency_ms``:
60 queries x 3 runs of each method). The numbers are invented. The story: ``rerank`` (A, the
baseline) re-ranks with a cross-encoder; ``hybrid`` (B, the candidate) skips it. Quality: the
two disagree on 6% of the cases (19 where only hybrid is right, 17 where only rerank is), so
B − A = +0.3 %p with a 95% lower bound near −1.6 %p: within a 2 %p margin. Speed: hybrid
takes about 0.7 times rerank's time on every query (log-normal noise, no warm-up, no cache).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

SEED = 20261223
HERE = Path(__file__).resolve().parent
N_CASES = 600
TABLE = {(1, 1): 480, (0, 0): 84, (0, 1): 19, (1, 0): 17}   # (rerank, hybrid): cases
N_QUERIES, RUNS = 60, 3
COST = {"rerank": 1.0, "hybrid": 0.7}


def golden(rng: np.random.Generator) -> list[str]:
    pairs = [p for p, k in TABLE.items() for _ in range(k)]
    assert len(pairs) == N_CASES
    order = rng.permutation(N_CASES)
    lines = ["case_id,rerank,hybrid"]
    lines += [f"c{i + 1:03d},{pairs[j][0]},{pairs[j][1]}" for i, j in enumerate(order)]
    return lines


def latency(rng: np.random.Generator) -> list[str]:
    base = np.exp(rng.normal(np.log(120.0), 0.35, size=N_QUERIES))  # ms, per query
    lines = ["query_id,method,run,latency_ms"]
    order = np.random.default_rng(SEED + 1)   # who runs first: a coin per pair
    for run in range(1, RUNS + 1):
        for q in range(N_QUERIES):
            ms = [base[q] * cost * np.exp(rng.normal(0, 0.10)) for cost in COST.values()]
            pair = [f"q{q + 1:03d},{method},{run},{x:.2f}" for method, x in zip(COST, ms)]
            # the very first pair keeps rerank (the baseline, A) first: the log's first method
            flip = order.random() < 0.5 and (run, q) != (1, 0)
            lines += pair[::-1] if flip else pair
    return lines


def main() -> None:
    rng = np.random.default_rng(SEED)
    (HERE / "demo_switch_golden.csv").write_text("\n".join(golden(rng)) + "\n",
                                                 encoding="utf-8")
    (HERE / "demo_switch_latency.csv").write_text("\n".join(latency(rng)) + "\n",
                                                  encoding="utf-8")
    print("wrote data/demo_switch_golden.csv and data/demo_switch_latency.csv")


if __name__ == "__main__":
    main()
