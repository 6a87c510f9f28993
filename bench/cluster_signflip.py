"""Is the whole-cluster sign flip too conservative, and does a mid-p fix it? (issue 32 item 2)

The verdict with clusters needs two things to agree (``core.paired.clusters.compare_clustered``):
the calibrated CR2 interval of B − A leaves out 0, and the whole-cluster sign-flip test has
p below alpha. The exact sign-flip p counts every pattern whose |sum| is at least the data's;
with few clusters of 0/1 outcomes many cluster sums are 0 or equal, the null distribution is
lumpy and the exact p is conservative. The mid-p (Lancaster 1961) counts the patterns that
tie with the data's |sum| at one half:

    p_mid = P(|T*| > |T|) + 1/2 P(|T*| = |T|)

as the independent-cases McNemar test of the house already does (``core.paired.significance``:
mid-p McNemar, chosen by ``bench/calibration.py``).

Designs and data are those of ``bench/clusters.py`` (imported: ``designs``, ``gen_binary``,
``gen_scores``, ``cluster_boot``). For each cell: the test's null rejection (c = 0), exact vs
mid-p; the verdict's false "better or worse" rate at c = 0 (interval and test agree) and its
power at c = 0.3, exact vs mid-p. Sign patterns: all 2^G up to 12 clusters, else 999 random.

``python bench/cluster_signflip.py [--reps N]``; prints the table (markdown) to stdout.
"""
from __future__ import annotations

import math
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from clusters import (CONF, SHIFT, cluster_boot, designs,  # noqa: E402
                      gen_binary, gen_scores, signflip_both)
from core.paired.clusters import cluster_layout  # noqa: E402


def cell(kind, sizes, rho, c, vary, S, rng):
    layout = cluster_layout(np.repeat(np.arange(sizes.size), sizes))
    gen = gen_binary if kind == "0/1" else gen_scores
    a, b, _, _, _ = gen(rng, S, sizes, rho, c, vary)
    d = b - a
    _, cal = cluster_boot(d, layout, CONF, rng)
    excl = (cal[:, 0] > 0) | (cal[:, 1] < 0)
    exact, mid = signflip_both(d, layout, rng)
    alpha = 1 - CONF
    return {"test_exact": float(np.mean(exact < alpha)), "test_mid": float(np.mean(mid < alpha)),
            "verdict_exact": float(np.mean(excl & (exact < alpha))),
            "verdict_mid": float(np.mean(excl & (mid < alpha)))}


def main(argv=None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    S = int(argv[argv.index("--reps") + 1]) if "--reps" in argv else 2000
    rng = np.random.default_rng(20261202)
    t0 = time.process_time()
    w0 = time.time()
    print("| design | outcome | ICC | effect | test rejects at c = 0: exact | mid-p "
          "| verdict at c = 0: exact | mid-p | verdict power at c = 0.3: exact | mid-p |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    worst = {"test_mid": 0.0, "verdict_mid": 0.0}
    gain = []
    for label, sizes in designs(rng):
        for kind in ("0/1", "scores"):
            for rho in (0.05, 0.2, 0.5):
                for vary in (False, True):
                    r0 = cell(kind, sizes, rho, 0.0, vary, S, rng)
                    r1 = cell(kind, sizes, rho, SHIFT, vary, S, rng)
                    worst["test_mid"] = max(worst["test_mid"], r0["test_mid"])
                    worst["verdict_mid"] = max(worst["verdict_mid"], r0["verdict_mid"])
                    gain.append((r1["verdict_mid"] - r1["verdict_exact"], label, kind, rho,
                                 vary))
                    print(f"| {label} | {kind} | {rho} | {'varying' if vary else 'constant'} "
                          f"| {100 * r0['test_exact']:.1f} | {100 * r0['test_mid']:.1f} "
                          f"| {100 * r0['verdict_exact']:.1f} | {100 * r0['verdict_mid']:.1f} "
                          f"| {100 * r1['verdict_exact']:.1f} | {100 * r1['verdict_mid']:.1f} |",
                          flush=True)
    se = 100 * math.sqrt(0.05 * 0.95 / S)
    print(f"\n{S:,} sets a cell; Monte-Carlo SE of a rate near 5%: {se:.2f} points. "
          f"Worst mid-p test rejection {100 * worst['test_mid']:.1f}%, worst mid-p verdict "
          f"false alarm {100 * worst['verdict_mid']:.1f}%; largest power gain "
          f"{100 * max(gain)[0]:.1f} points ({max(gain)[1:]}). CPU {time.process_time() - t0:.0f} s, "
          f"wall {time.time() - w0:.0f} s.")


if __name__ == "__main__":
    main()
