"""Can the 0/1 prediction-powered interval be narrowed where it over-covers? (issue 34,
2026-12-03 evening; ``docs/cheap_labels_binary.md`` section 5.)

Jeffreys MOVER 2 (``core.paired.ppi.mover_limits``) over-covers at 20-30 gold cases with high
agreement (up to 98-99%, goal 94-96.5%) and is 29-30% narrower than the gold-only W_0 at
n = 50, N = 500, rho 0.8 per method (goal 30%). The narrowest change that reads the same data:
the disagreements' Jeffreys intervals at the normal tail instead of Student's t(n - 1)
(``mover_limits(..., disagreement_quantile="z")``; the gold parts keep Student's quantile, so
W_0 is unchanged). Both rules on the same data sets:

1. **grid**: ``bench/ppi.py``'s 0/1 grid (n gold 20/30/50/100, N 300/1,000, rho 0.3/0.6/0.9,
   four biases, A, B and B − A: 288 cells), ``--reps`` sets per cell (errors independent
   between the systems); cells under 94% and over 96.5%, lowest / highest by n, widest mean
   width against W_0 (``ppi_rows``' w0_low / w0_high);
2. **width** at n = 50, N = 500, no bias, rho 0.8 and 0.9: mean width against W_0 per estimand
   with its Monte-Carlo SE (delta method) and coverage.

``nice -n 10 python bench/ppi_binary_tails.py [--reps 4000] [--seed 11]`` (4,000 sets: about
2 CPU-minutes).
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from core.paired.ppi import mover_limits, ppi_rows  # noqa: E402
import ppi as grid  # noqa: E402
from ppi_binary_mover import ratio_se  # noqa: E402

RULES = (("t", "Jeffreys MOVER 2 (product): Student's t on the disagreements"),
         ("z", "the same with the normal tail on the disagreements"))
WIDTH_RHOS = (0.8, 0.9)


def cell(rng, n, total, rho, bias, reps):
    """{estimand: {rule: (hits, widths), "w0": (hits, widths)}} on one cell's sets."""
    rs = (grid.latent_r("binary", rho, bias[0], 0), grid.latent_r("binary", rho, bias[1], 1))
    ga, gb, ca, cb = grid.simulate(rng, "binary", n, total, rs, bias, reps, 0.0)
    truths = grid.truth("binary")
    out = {}
    for name, (g, c, true) in {"A": (ga, ca, truths[0]), "B": (gb, cb, truths[1]),
                               "B − A": (gb - ga, cb - ca, truths[1] - truths[0])}.items():
        kind = "difference" if name == "B − A" else "mean"
        r = ppi_rows(g, c[:, :n], c[:, n:], confidence=0.95, method="t", plus=1.0, mover=kind)
        mover = (kind, n, c.shape[1] - n, r["lam"], *r["mover_counts"].T)
        row = {"w0": ((r["w0_low"] <= true) & (true <= r["w0_high"]), r["w0_high"] - r["w0_low"])}
        for rule, _ in RULES:
            lo, hi = mover_limits(mover, r["estimate"], 0.95, disagreement_quantile=rule)
            row[rule] = ((lo <= true) & (true <= hi), hi - lo)
        out[name] = row
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=11)
    a = ap.parse_args(argv)
    if a.reps < 100:
        ap.error(f"--reps must be at least 100 (got {a.reps})")
    rng = np.random.default_rng(a.seed)
    cells = []
    for n in grid.NS:
        for total in grid.NCHEAP:
            for rho in grid.RHOS:
                for bias in grid.BIASES:
                    for name, row in cell(rng, n, total, rho, bias, a.reps).items():
                        cells.append(((n, total, rho, bias, name), row))
        print(f"n = {n}: {time.process_time():.0f} s CPU", file=sys.stderr, flush=True)
    se = 100 * math.sqrt(0.95 * 0.05 / a.reps)
    print(f"**Grid** ({len(cells)} cells, {a.reps:,} sets each, seed {a.seed}; MC SE {se:.2f} "
          "points at 95%)\n")
    print("| rule | cells < 94% | cells > 96.5% | lowest / highest at n = 20 | n = 30 | n = 50 | "
          "n = 100 | widest vs W_0 | cells under 94% |")
    print("|---|---|---|---|---|---|---|---|---|")
    for rule, label in RULES + (("w0", "W_0, gold-only (MOVER at lambda 0)"),):
        cov = np.array([row[rule][0].mean() for _, row in cells])
        wid = np.array([row[rule][1].mean() / row["w0"][1].mean() for _, row in cells])
        by_n = []
        for n in grid.NS:
            c = np.array([row[rule][0].mean() for k, row in cells if k[0] == n])
            by_n.append(f"{100 * c.min():.1f} / {100 * c.max():.1f}")
        under = [f"n {k[0]} N {k[1]} rho {k[2]} bias {k[3][0]:+.2f}/{k[3][1]:+.2f} {k[4]}: "
                 f"{100 * row[rule][0].mean():.1f}" for k, row in cells if row[rule][0].mean() < 0.94]
        print(f"| {label} | {int(np.sum(cov < 0.94))} | {int(np.sum(cov > 0.965))} | "
              + " | ".join(by_n) + f" | {100 * (wid.max() - 1):+.2f}% | "
              + (("; ".join(under[:12]) + ("; …" if len(under) > 12 else "")) if under
                 else "none") + " |")
    print("\n**Width at n = 50, N = 500, no bias** (mean width against W_0 on the same sets, ± one "
          "MC SE; coverage in %)\n")
    print("| rho | estimand | " + " | ".join(f"{r}: width vs W_0 / coverage" for r, _ in RULES)
          + " |")
    print("|---|---|" + "---|" * len(RULES))
    for rho in WIDTH_RHOS:
        for name, row in cell(rng, 50, 500, rho, (0.0, 0.0), a.reps).items():
            parts = []
            for rule, _ in RULES:
                ratio, rse = ratio_se(row[rule][1], row["w0"][1])
                parts.append(f"{100 * (ratio - 1):+.1f}% ± {100 * rse:.1f} / "
                             f"{100 * row[rule][0].mean():.1f}")
            print(f"| {rho} | {name} | " + " | ".join(parts) + " |")
    print(f"\n(CPU {time.process_time():.0f} s)")


if __name__ == "__main__":
    main()
