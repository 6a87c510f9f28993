"""The 0/1 cells at the edges of the coverage goal, rerun on fresh data sets (issue 34).

The main grid (``bench/ppi.py``, 4,000 sets per cell, seed 20261202) has 0/1 cells under 94%
(all method B, shared one-way bias +0.10 / +0.10 at rho 0.9) and cells over 98.5% (20-30 gold
cases, rho 0.9, high agreement). ``bench/ppi.py --recheck`` reran the first configuration on
16,000 sets (seed 7). This reruns both groups on ``REPS`` = 8,000 fresh sets per cell with
another seed (3434), reusing ``bench/ppi.py``'s ``cell`` (same simulation, same core
interval), so Monte-Carlo noise (SE about 0.24 points at 95%) is told apart from real misses.
Each row gives the estimand the grid flagged, the PPI t coverage ± one MC SE and the gold-only
t-interval's coverage on the same sets. ``python bench/ppi_binary_edges.py`` prints a table.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from ppi import NCHEAP, NS, _bias, cell, mc, truth  # noqa: E402

REPS, SEED = 8000, 3434
LOW = [(n, total, 0.9, (0.10, 0.10), "B") for n in NS for total in NCHEAP]
HIGH = [(20, 300, 0.9, (0.0, 0.0), "B − A"), (20, 300, 0.9, (0.05, -0.05), "B"),
        (20, 1000, 0.9, (0.0, 0.0), "A"), (20, 1000, 0.9, (0.0, 0.0), "B − A"),
        (20, 1000, 0.9, (-0.10, 0.0), "B"), (30, 1000, 0.9, (0.0, 0.0), "A")]


def main() -> None:
    t0 = time.process_time()
    rng = np.random.default_rng(SEED)
    truths = truth("binary")
    print("| group | n gold | N | rho | bias A / B | estimand | PPI t (± MC SE) | gold-only t |")
    print("|---|---|---|---|---|---|---|---|")
    for group, cells in (("under 94%", LOW), ("over 98.5%", HIGH)):
        for n, total, rho, bias, name in cells:
            row = cell(rng, "binary", n, total, rho, bias, REPS, truths)[name]
            print(f"| {group} | {n} | {total:,} | {rho} | {_bias(bias)} | {name} "
                  f"| {100 * row['t']:.1f} ± {mc(row['t'], REPS):.1f} "
                  f"| {100 * row['gold']:.1f} ± {mc(row['gold'], REPS):.1f} |", flush=True)
    print(f"\n{REPS} data sets per cell, seed {SEED}; {time.process_time() - t0:.0f} s CPU")


if __name__ == "__main__":
    main()
