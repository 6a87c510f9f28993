"""The price of the issue's hard row on real TREC pairs (issue 36, 2026-12-03 evening): how much
power on ordinary real run pairs does a sample-only rule have to give up to bring the pairs
shaped like the issue's (TREC 2012 Web nDCG@20, skewness -1.7 to -1.9, 16-20% ties,
``bench/trec_pairs.hard_pairs``) to a verdict type-I of 5.5% and an interval null rejection
of 6.5% at n = 20-30?

Each rule is an interval of B - A and a verdict "better" (the interval leaves out 0 and the
two-sided sign-flip test, 1,999 shared random sign vectors, is below 1 - confidence), on the
same sets and one bootstrap per set (``--resamples``), the self-check's withholding not applied
(it stops almost none of these: ``docs/calibration.md``, "Real TREC run pairs"):

- ``none``: the calibrated t-interval alone; ``product``: the card's rule (skew guard, reach 0);
- ``guard c C``: the skew guard with noise allowance C (the product: 1) — less allowance
  protects more, more costs less;
- ``conf Q``: the product's rule at confidence Q with the sign-flip test at 1 - Q: the plain
  way of being more careful for everyone;
- ``adverse c C``: the product's rule and Hall's transformed t-interval computed with the sample
  skewness moved by C noise SDs (sqrt(6 / m), m the non-zero differences) towards the side that
  would make the verdict false (left for a positive mean, right for a negative one), with no
  noise allowance: "assume the tail this sample may have missed".

Cells: interval leaves out 0 / verdict type-I on the four issue-like pairs pooled (equal
weight; ``--sets`` sets each, n = 20 and 30) and the most right-skewed pair (run3 - run1);
power at a shift of 0.5 population SD (every value shifted, as ``bench/trec_guard_variants.py``)
and null rejection pooled over ``--pairs`` ordinary pairs (abs(skew) <= 1, ties <= 30%) drawn
at random, ``--sets / 4`` sets each. Monte-Carlo SE of a rate r over S sets: sqrt(r (1 - r) / S).

``nice -n 10 python bench/trec_frontier.py [--sets 2000] [--pairs 40] [--seed 7]``.
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

from bench.skew_guard import boot_means_sds, signflip_p  # noqa: E402
from bench.trec_pairs import hard_pairs, ordinary, populations, read_runs  # noqa: E402
from core.paired.intervals import score_intervals, side  # noqa: E402
from core.paired.skew_intervals import skew_guard_interval  # noqa: E402

BLOCK = 200
NS = (20, 30)
# name -> (kind, value)
RULES = {"none": ("none", 0.95), "product": ("product", 0.95),
         "guard c 1.5": ("guard", 1.5), "guard c 2": ("guard", 2.0),
         "conf 0.96": ("product", 0.96), "conf 0.97": ("product", 0.97),
         "conf 0.98": ("product", 0.98),
         "adverse c 0.5": ("adverse", 0.5), "adverse c 1": ("adverse", 1.0)}


def evaluate(x, rng, signs, resamples):
    """rule -> (share of rows whose interval leaves out 0, share "better")."""
    scale = np.max(np.abs(x), axis=1)
    out = {k: (np.empty(x.shape[0], bool), np.empty(x.shape[0], bool)) for k in RULES}
    p = signflip_p(x, signs)
    for s in range(0, x.shape[0], BLOCK):
        part = x[s:s + BLOCK]
        sl = slice(s, s + BLOCK)
        means, sds = boot_means_sds(part, resamples, rng)
        for name, (kind, v) in RULES.items():
            conf = v if kind in ("none", "product") else 0.95
            if kind == "none":
                lo, hi = score_intervals(part, means, sds, conf, "calibrated_t")
            else:
                lo, hi = score_intervals(part, means, sds, conf, "calibrated_t", skew_guard=True)
            if kind == "guard":
                lo0, hi0 = score_intervals(part, means, sds, conf, "calibrated_t")
                glo, ghi = skew_guard_interval(part, conf, v, ramp=("n", 10, 25), factor=3)
                lo, hi = np.minimum(lo0, glo), np.maximum(hi0, ghi)
            if kind == "adverse":
                alo, ahi = skew_guard_interval(part, conf, 0.0, adverse=v)
                lo, hi = np.minimum(lo, alo), np.maximum(hi, ahi)
            out_ = side(lo, hi, scale[sl]) != 0
            out[name][0][sl] = out_
            out[name][1][sl] = out_ & (p[sl] < 1 - conf)
    return {k: (float(a.mean()), float(b.mean())) for k, (a, b) in out.items()}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", type=int, default=2000)
    ap.add_argument("--pairs", type=int, default=40)
    ap.add_argument("--resamples", type=int, default=400)
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args(argv)
    pops = populations(*read_runs())
    rng = np.random.default_rng(a.seed)
    signs = rng.choice([-1.0, 1.0], size=(1999, max(NS)))
    hard = hard_pairs(pops)
    like = [h for h in hard if h[0] == "like the issue's pair"]
    right = [h for h in hard if h[0] == "most right-skewed"]
    rows = {}
    for n in NS:
        acc = np.zeros((len(RULES), 2))
        for _, _, pop, _, _ in like:
            r = evaluate(rng.choice(pop, size=(a.sets, n)), rng, signs[:, :n], a.resamples)
            acc += np.array(list(r.values()))
        rows[("like", n)] = acc / len(like)
        r = evaluate(rng.choice(right[0][2], size=(a.sets, n)), rng, signs[:, :n], a.resamples)
        rows[("right", n)] = np.array(list(r.values()))
        print(f"hard n={n}: {time.process_time():.0f} s CPU", file=sys.stderr, flush=True)
    pick = rng.choice([k for k in range(len(pops)) if ordinary(pops[k][2])], a.pairs,
                      replace=False)
    for n in NS:
        null = np.zeros(len(RULES))
        power = np.zeros(len(RULES))
        for k in pick:
            pop = pops[k][1]
            x = rng.choice(pop, size=(a.sets // 4, n))
            null += [v[0] for v in evaluate(x, rng, signs[:, :n], a.resamples).values()]
            y = x + 0.5 * float(pop.std())
            power += [v[1] for v in evaluate(y, rng, signs[:, :n], a.resamples).values()]
        rows[("null", n)] = null / a.pairs
        rows[("power", n)] = power / a.pairs
        print(f"ordinary n={n}: {time.process_time():.0f} s CPU", file=sys.stderr, flush=True)
    se_like = 100 * math.sqrt(0.065 * 0.935 / (a.sets * len(like)))
    print("| rule | issue-like pairs n = 20: interval / type-I | n = 30 | run3 − run1 n = 20 | "
          "n = 30 | ordinary power at 0.5 SD n = 20 (loss vs none) | n = 30 (loss) | ordinary "
          "null rejection n = 20 / 30 |")
    print("|---|---|---|---|---|---|---|---|")
    for j, name in enumerate(RULES):
        def pair(key):
            v = rows[key][j]
            return f"{100 * v[0]:.1f} / {100 * v[1]:.1f}"
        pw = [100 * rows[("power", n)][j] for n in NS]
        base = [100 * rows[("power", n)][0] for n in NS]
        print(f"| {name} | {pair(('like', 20))} | {pair(('like', 30))} | {pair(('right', 20))} "
              f"| {pair(('right', 30))} | {pw[0]:.1f} ({base[0] - pw[0]:+.1f}) | {pw[1]:.1f} "
              f"({base[1] - pw[1]:+.1f}) | {100 * rows[('null', 20)][j]:.1f} / "
              f"{100 * rows[('null', 30)][j]:.1f} |")
    print(f"\n({a.sets:,} sets per hard pair and n (issue-like pooled over {len(like)}: SE about "
          f"{se_like:.2f} points at 6.5%), {a.sets // 4:,} per ordinary pair x {a.pairs}, "
          f"{a.resamples} resamples, seed {a.seed}; CPU {time.process_time():.0f} s)")


if __name__ == "__main__":
    main()
