"""One hard row, many sets (issue 36, item 2): the verdict's type-I on the right-skew +2,
50%-ties population of ``bench/hard_shapes.py`` at n = 20 / 25 / 30, without the skew guard
("before": the calibrated t-interval alone) and with it (the product's interval of B - A),
with ``bench.skew_guard.verdicts`` (400 bootstrap resamples per set, the two-sided sign-flip
test on 1,999 shared random sign vectors; the self-check's withholding not applied, it can
only lower type-I). Each cell: "interval leaves out 0 ± SE / type-I ± SE", the Monte-Carlo SE
sqrt(r (1 - r) / S) over S sets.

``python bench/skew_guard_row.py [--sets 30000] [--seed 2]`` (30,000 sets: about 20 s CPU).
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

from bench.hard_shapes import populations  # noqa: E402
from bench.skew_guard import verdicts  # noqa: E402

ROW = "right skew +2, 50% ties"
CHUNK = 5000


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", type=int, default=30000)
    ap.add_argument("--seed", type=int, default=2)
    args = ap.parse_args(argv)
    sets = args.sets
    rng = np.random.default_rng(args.seed)
    pop = populations(rng, real=False)[ROW][0]
    signs = rng.choice([-1.0, 1.0], size=(1999, 30))
    print(f"| {ROW} | n | before: interval / type-I | now: interval / type-I |")
    print("|---|---|---|---|")
    for n in (20, 25, 30):
        acc = {"before": [0, 0], "after": [0, 0]}
        for _ in range(0, sets, CHUNK):
            v = verdicts(rng.choice(pop, size=(CHUNK, n)), 400, rng, signs[:, :n])
            for k in acc:
                acc[k][0] += int(v[k][0].sum())
                acc[k][1] += int(v[k][1].sum())
        done = CHUNK * math.ceil(sets / CHUNK)

        def cell(c):
            r = c / done
            return f"{100 * r:.2f}% ± {100 * math.sqrt(r * (1 - r) / done):.2f}"
        print(f"| | {n} | " + " | ".join(f"{cell(acc[k][0])} / {cell(acc[k][1])}"
                                         for k in ("before", "after")) + " |", flush=True)
    print(f"\n({CHUNK * math.ceil(sets / CHUNK):,} sets per cell, seed {args.seed}, "
          f"CPU {time.process_time():.0f} s)")


if __name__ == "__main__":
    main()
