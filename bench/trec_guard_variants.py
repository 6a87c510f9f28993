"""The skew guard's variants on real TREC run pairs (issue 36, 2026-12-03): can a larger factor
or a smaller noise allowance bring the real pairs shaped like the issue's (TREC 2012 Web
nDCG@20, skewness -1.7 to -1.9, 16-20% ties; ``bench/trec_pairs.hard_pairs``) under the
goals, and what does each cost the ordinary pairs' power?

Each variant is ``core.paired.skew_intervals.skew_guard_interval`` with its keywords in the
union with the calibrated t-interval, as ``bench/skew_guard_variants.evaluate`` computes it
on the same sets and bootstrap (400 resamples per set): "none" is the calibrated t alone,
"now" the product's guard (k 3, c 1, ramp 10-25) and the last column the product itself (the
guard and 0 added where 5 or fewer cases differ). Each hard-pair cell: "interval leaves out
0 / verdict type-I" in % (the verdict: the interval leaves out 0 and the two-sided sign-flip
test, 1,999 shared random sign vectors, has p < 0.05; the self-check's withholding not
applied, it can only lower type-I). Ordinary pairs (``bench/trec_pairs.ordinary``: skewness
within +/-1, at most 30% ties): ``--pairs`` of them drawn at random, ``sets / 4`` sets each,
pooled: the interval's null rejection and the power at a shift of 0.5 population SD (every
value shifted). Monte-Carlo SE of a rate r over S sets: sqrt(r (1 - r) / S).

``python bench/trec_guard_variants.py [--sets 2000] [--pairs 40] [--seed 7]`` (2,000 sets:
about 35 s CPU).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import bench.skew_guard_variants as variants  # noqa: E402
from bench.trec_pairs import hard_pairs, ordinary, populations, read_runs  # noqa: E402

# name -> (factor k, allowance c, ramp start, ramp full), ramp on the cases n
VARIANTS = {"now k3 c1 10-25": (3, 1, 10, 25), "k4 c1": (4, 1, 10, 25), "k5 c1": (5, 1, 10, 25),
            "k6 c1": (6, 1, 10, 25), "k3 c0.5": (3, 0.5, 10, 25), "k4 c0.5": (4, 0.5, 10, 25),
            "k3 c0": (3, 0, 10, 25)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", type=int, default=2000)
    ap.add_argument("--pairs", type=int, default=40)
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args(argv)
    variants.VARIANTS = VARIANTS   # evaluate() reads the module's table
    names, scores = read_runs()
    pops = populations(names, scores)
    rng = np.random.default_rng(a.seed)
    signs = rng.choice([-1.0, 1.0], size=(1999, 30))
    cols = ["none"] + list(VARIANTS) + [variants.PRODUCT]
    print("| pair B − A | skew | ties | n | " + " | ".join(cols) + " |")
    print("|---|---|---|---|" + "---|" * len(cols))
    for why, label, pop, (sk, ties), _ in hard_pairs(pops):
        for n in (10, 20, 30):
            r = variants.evaluate(rng.choice(pop, size=(a.sets, n)), rng, signs[:, :n])
            print(f"| {label} ({why}) | {sk:+.1f} | {100 * ties:.0f}% | {n} | "
                  + " | ".join(f"{100 * x:.1f} / {100 * y:.1f}" for x, y in r.values()) + " |",
                  flush=True)
    pick = rng.choice([k for k in range(len(pops)) if ordinary(pops[k][2])], a.pairs,
                      replace=False)
    for n in (20, 30):
        null = np.zeros(len(cols))
        power = np.zeros(len(cols))
        for k in pick:
            pop = pops[k][1]
            x = rng.choice(pop, size=(a.sets // 4, n))
            null += [v[0] for v in variants.evaluate(x, rng, signs[:, :n]).values()]
            y = x + 0.5 * float(pop.std())
            power += [v[1] for v in variants.evaluate(y, rng, signs[:, :n]).values()]
        for what, v in (("null rejection", null), ("power at 0.5 SD", power)):
            print(f"| {a.pairs} ordinary pairs pooled: {what} | | | {n} | "
                  + " | ".join(f"{100 * x / a.pairs:.1f}" for x in v) + " |", flush=True)
    print(f"\n({a.sets:,} sets per hard cell, {a.sets // 4:,} per ordinary pair, seed {a.seed}; "
          f"CPU {time.process_time():.0f} s)")


if __name__ == "__main__":
    main()
