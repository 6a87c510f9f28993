"""Bench (issue 32, Required 2): does the clustered self-check estimate the clustered
interval's true false-exclusion rate?

For each design, data with a true B − A of 0 are simulated; the **true rate** is the share of
``TRUE_SETS`` data sets on which the card's interval of B − A (``calibrated_cr2``, the one
``compare_clustered`` shows) leaves out 0; the **check's estimate** is
``cluster_self_check`` (whole-cluster centred resamples, ``CHECK_SETS`` null sets each) on
``CHECKED`` of those data sets: its mean over them (with the Monte-Carlo SE of that mean),
and the share of them on which the check warns / withholds.

Run: ``nice -n 10 .venv/bin/python bench/cluster_self_check.py`` (about 3 CPU-minutes)."""
from __future__ import annotations

import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.paired.cluster_check import cluster_self_check  # noqa: E402
from core.paired.clusters import calibrated_cr2, cluster_layout  # noqa: E402
from core.paired.intervals import side  # noqa: E402

TRUE_SETS = 2_000
CHECKED = 60
CHECK_SETS = 300


def scores(g, m, icc, skew, rng):
    """B − A of scores: cluster effect + case noise, both mean 0; ``skew``: exponential
    cluster effects (centred) instead of normal."""
    u = (rng.exponential(1.0, g) - 1.0) if skew else rng.normal(0, 1, g)
    return np.repeat(u * math.sqrt(icc), m) + rng.normal(0, math.sqrt(1 - icc), g * m)


def binary(g, m, icc, skew, rng):
    """B − A of 0/1 outcomes, A and B with the same per-document success probability
    (Beta with intraclass correlation ``icc``, mean 0.6): true B − A = 0."""
    mu = 0.6
    a_, b_ = mu * (1 - icc) / icc, (1 - mu) * (1 - icc) / icc
    p = np.repeat(rng.beta(a_, b_, g), m)
    return (rng.random(g * m) < p).astype(float) - (rng.random(g * m) < p).astype(float)


DESIGNS = [("scores, 30 × 5, ICC 0.2, normal", scores, 30, 5, 0.2, False),
           ("scores, 8 × 5, ICC 0.5, skewed documents", scores, 8, 5, 0.5, True),
           ("0/1, 20 × 10, ICC 0.2", binary, 20, 10, 0.2, False)]


def main():
    t0 = time.process_time()
    rows = []
    for name, gen, g, m, icc, skew in DESIGNS:
        rng = np.random.default_rng(20261202)
        layout = cluster_layout([k for k in range(g) for _ in range(m)])
        rej, est, warn, withhold = 0, [], 0, 0
        for s in range(TRUE_SETS):
            d = gen(g, m, icc, skew, rng)
            _, lo, hi, _ = calibrated_cr2(d, layout, 0.95, seed=s)
            rej += int(side(lo, hi, float(np.max(np.abs(d))) or 1.0) != 0)
            if s < CHECKED:
                c = cluster_self_check(d, layout, 0.95, sets=CHECK_SETS, seed=s)
                est.append(c.null_rejection)
                warn += c.warns
                withhold += c.withholds
        true = rej / TRUE_SETS
        est = np.array(est)
        rows.append((name, true, math.sqrt(true * (1 - true) / TRUE_SETS), est.mean(),
                     est.std(ddof=1) / math.sqrt(est.size), np.quantile(est, 0.1),
                     np.quantile(est, 0.9), warn / CHECKED, withhold / CHECKED))
        print(name, rows[-1][1:], flush=True)
    cpu = time.process_time() - t0
    print(f"\n{TRUE_SETS:,} data sets a design for the true rate; the check on the first "
          f"{CHECKED} of them, {CHECK_SETS} null sets each; {cpu:.0f} s CPU.\n")
    print("| design | true rate of the card's interval (± MC SE) | check's mean estimate (± MC SE)"
          " | check, 10th–90th percentile over data sets | check warns | check withholds |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r[0]} | {100 * r[1]:.1f}% ± {100 * r[2]:.1f} | {100 * r[3]:.1f}% ± "
              f"{100 * r[4]:.1f} | {100 * r[5]:.1f}–{100 * r[6]:.1f}% | {100 * r[7]:.0f}% | "
              f"{100 * r[8]:.0f}% |")


if __name__ == "__main__":
    main()
