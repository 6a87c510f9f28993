"""Issue 36's ordinary and hard rows on real TREC data: per-topic nDCG@20 of the 48 ad hoc runs
of the TREC 2012 Web track on its 50 topics (``bench/data/trec_web2012_ndcg20.csv``; source,
licence and provenance in ``bench/data/README.md``), the data set the issue measured.

Every pair of runs (i < j, B = run j, A = run i; 1,128 pairs, the two pairs of identical runs
left out) gives a population of 50 per-topic differences B - A, with its exact ties kept at 0
and the non-zero values shifted so the mean is exactly 0 (as ``bench/ordinary_pairs.py`` and
``bench/hard_shapes.populations`` do). A set draws n = 10 / 20 / 30 of them with replacement.

- **coverage**: the share of sets whose interval of B - A holds 0 (the true mean), for the
  calibrated t-interval without the skew guard and for the product's interval
  (``score_intervals(..., "calibrated_t", skew_guard=True)``: the guard, and 0 added where 5
  or fewer cases differ, ``core.paired.skew_intervals.reach_zero_when_few``; both from
  ``bench/skew_guard.intervals``: one bootstrap per set, ``--resamples`` resamples; the card
  draws 20,000); **null rejection** = 100% - coverage;
- **ordinary** pairs: |skewness| <= 1 and at most 30% ties (``bench/hard_shapes.shape`` of the
  mean-zero population); pooled = equal weight per pair, as the issue pooled its run pairs;
  also pooled over every pair and by skewness band;
- **hard** pairs (``--hard-sets`` sets each): the pairs shaped like the issue's (skewness
  -1.8, 18% ties), the most left- and most right-skewed pairs, and the two pairs with the most
  ties; on all but the last two also the product's whole verdict
  (``bench/hard_shapes.card_verdicts``: ``compare_paired`` with its self-check;
  ``--verdict-sets`` sets, 2,000 resamples): the interval as the card prints it leaves out 0,
  and the type-I rate of "better" either way after the self-check's withholding.

Monte-Carlo SE of a rate r over S sets: sqrt(r (1 - r) / S); of the pooled mean of k pair rates:
sqrt(sum r_i (1 - r_i) / S) / k. The share of sets with 5 or fewer non-zero differences (where
no exact sign test can reach p < 0.05: ``too_few_differing``) is printed beside each hard row.

``nice -n 10 python bench/trec_pairs.py [--sets 1000] [--hard-sets 4000] [--verdict-sets 300]
[--resamples 400] [--seed 36]``: about 25 CPU-minutes on one core with ``--sets 500``.
"""
from __future__ import annotations

import argparse
import itertools
import math
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.hard_shapes import card_verdicts, shape  # noqa: E402
from bench.skew_guard import CONF, intervals  # noqa: E402
from core.paired.skew_intervals import too_few_differing  # noqa: E402

DATA = ROOT / "bench" / "data" / "trec_web2012_ndcg20.csv"
NS = (10, 20, 30)
ISSUE_SKEW, ISSUE_TIES = (1.7, 1.9), (0.15, 0.21)   # the issue's real pair: -1.8, 18% ties
BANDS = ((0.0, 0.5), (0.5, 1.0), (1.0, 2.0), (2.0, float("inf")))


def read_runs(path=DATA):
    """(run names, topics x runs array) from the CSV: a header of run names, one row per
    topic, one per-topic nDCG@20 per run."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    names = [s.strip('"') for s in lines[0].split(",")]
    return names, np.array([[float(v) for v in ln.split(",")] for ln in lines[1:]])


def populations(names, scores):
    """[(label 'B - A', mean-zero differences with ties kept at 0, (skewness, ties))] for every
    pair i < j whose runs differ on some topic."""
    out = []
    for i, j in itertools.combinations(range(len(names)), 2):
        d = scores[:, j] - scores[:, i]
        nz = d != 0
        if not nz.any():
            continue
        pop = np.where(nz, d - d.sum() / nz.sum(), 0.0)
        out.append((f"{names[j]} - {names[i]}", pop, shape(pop)))
    return out


def ordinary(sk_ties):
    sk, ties = sk_ties
    return abs(sk) <= 1.0 and ties <= 0.30


def hard_pairs(pops):
    """[(why, label, population, shape, verdict?)]: the pairs shaped like the issue's (|skewness|
    1.7-1.9, 15-21% ties; turned round to A - B when the skew is positive, so they are
    left-skewed like the issue's: the interval of -d mirrors d's, coverage is the same), the
    most left- and most right-skewed pairs (the product's whole verdict is run on these), and
    the two pairs with the most ties (interval only)."""
    rng_k = range(len(pops))
    like = [k for k in rng_k if ISSUE_SKEW[0] <= abs(pops[k][2][0]) <= ISSUE_SKEW[1]
            and ISSUE_TIES[0] <= pops[k][2][1] <= ISSUE_TIES[1]]
    picks = [("like the issue's pair", k, True) for k in like]
    picks += [("most left-skewed", min(rng_k, key=lambda k: pops[k][2][0]), True),
              ("most right-skewed", max(rng_k, key=lambda k: pops[k][2][0]), True)]
    picks += [("tie-heavy", k, False) for k in sorted(rng_k, key=lambda k: -pops[k][2][1])[:2]]
    out, seen = [], set()
    for why, k, verdict in picks:
        if k in seen:
            continue
        seen.add(k)
        label, pop, (sk, ties) = pops[k]
        if k in like and sk > 0:
            b, a = label.split(" - ")
            label, pop, sk = f"{a} - {b}", -pop, -sk
        out.append((why, label, pop, (sk, ties), verdict))
    return out


def coverage(pop, n, sets, resamples, rng):
    """(no guard, product) coverage of 0 over ``sets`` sets of n drawn with replacement, and
    the share of sets with 5 or fewer non-zero values."""
    x = rng.choice(pop, size=(sets, n))
    before, _, after = intervals(x, resamples, rng)
    cov = tuple(float(np.mean((lo <= 0) & (hi >= 0))) for lo, hi in (before, after))
    return cov + (float(np.mean(too_few_differing(x, CONF))),)


def run(sets, hard_sets, verdict_sets, resamples, seed):
    rng = np.random.default_rng(seed)
    names, scores = read_runs()
    pops = populations(names, scores)
    res = []
    for k, (label, pop, sh) in enumerate(pops):
        res.append({n: coverage(pop, n, sets, resamples, rng) for n in NS})
        if k % 100 == 0:
            print(f"{k}/{len(pops)} pairs: {time.process_time():.0f} s CPU",
                  file=sys.stderr, flush=True)
    hard = []
    for why, label, pop, sh, verdict in hard_pairs(pops):
        row = {"why": why, "label": label, "shape": sh}
        for n in NS:
            row[n] = coverage(pop, n, hard_sets, resamples, rng)
            if verdict_sets and verdict:
                r, _ = card_verdicts(rng.choice(pop, size=(verdict_sets, n)), resamples=2000)
                row[(n, "verdict")] = (float(r[:, 0].mean()), float(r[:, 3].mean()))
        hard.append(row)
        print(f"hard {label}: {time.process_time():.0f} s CPU", file=sys.stderr, flush=True)
    return pops, res, hard


def pooled(rates, sets):
    """Mean of pair rates and its Monte-Carlo SE (independent sets per pair)."""
    r = np.asarray(rates)
    return float(r.mean()), math.sqrt(float(np.sum(r * (1 - r))) / sets) / len(r)


def _pm(v, se):
    return f"{100 * v:.1f} ± {100 * se:.1f}"


def table(pops, res, hard, sets, hard_sets, verdict_sets):
    groups = [("ordinary: abs(skew) <= 1, ties <= 30%", [ordinary(p[2]) for p in pops])]
    groups += [(f"abs(skew) in [{lo:g}, {hi:g}), ties <= 30%",
                [lo <= abs(p[2][0]) < hi and p[2][1] <= 0.30 for p in pops]) for lo, hi in BANDS]
    groups += [("ties > 30%", [p[2][1] > 0.30 for p in pops]), ("every pair", [True] * len(pops))]
    out = [f"Coverage of B - A in %, no guard / product; {sets:,} sets per pair and n, "
           f"± one Monte-Carlo SE of the pooled mean (equal weight per pair).", "",
           "| pairs | how many | " + " | ".join(f"n = {n}" for n in NS) + " |",
           "|---|---|" + "---|" * len(NS)]
    for name, mask in groups:
        idx = [k for k, m in enumerate(mask) if m]
        if not idx:
            continue
        cells = [" / ".join(_pm(*pooled([res[k][n][j] for k in idx], sets)) for j in (0, 1))
                 for n in NS]
        out.append(f"| {name} | {len(idx)} | {' | '.join(cells)} |")
    idx = [k for k, p in enumerate(pops) if ordinary(p[2])]
    out += ["", "Ordinary pairs, the product's coverage per pair (each pair ± "
            f"{100 * math.sqrt(0.0475 / sets):.1f} near 95%):", ""]
    for n in NS:
        g = np.array([res[k][n][1] for k in idx])
        q = np.percentile(g, [5, 50, 95])
        out.append(f"- n = {n}: min {100 * g.min():.1f}, 5th pct {100 * q[0]:.1f}, median "
                   f"{100 * q[1]:.1f}, 95th pct {100 * q[2]:.1f}, max {100 * g.max():.1f}; "
                   f"below 93%: {np.mean(g < 0.93) * 100:.0f}% of pairs, above 96.5%: "
                   f"{np.mean(g > 0.965) * 100:.0f}%")
    se_h = math.sqrt(0.05 * 0.95 / hard_sets)
    out += ["", f"Hard pairs: null rejection of the interval (100% - coverage), no guard / "
            f"product, {hard_sets:,} sets (SE about {100 * se_h:.1f} near 5%); sets with 5 or "
            "fewer differing topics" +
            (f"; the product's whole verdict on {verdict_sets:,} other sets: the card's interval "
             "leaves out 0 / type-I of \"better\" after the self-check" if verdict_sets else ""),
            "",
            "| pair B - A | why | skew | ties | n | interval: no guard / product | ≤ 5 differ |"
            + (" card: interval out / type-I |" if verdict_sets else ""),
            "|---|---|---|---|---|---|---|" + ("---|" if verdict_sets else "")]
    for r in hard:
        sk, ties = r["shape"]
        for n in NS:
            b, a, few = r[n]
            sb, sa = (math.sqrt(max(c * (1 - c), 1e-12) / hard_sets) for c in (b, a))
            line = (f"| {r['label']} | {r['why']} | {sk:+.1f} | {100 * ties:.0f}% | {n} | "
                    f"{_pm(1 - b, sb)} / {_pm(1 - a, sa)} | {100 * few:.0f}% |")
            if (n, "verdict") in r:
                vo, vt = r[(n, "verdict")]
                sv, st = (math.sqrt(max(c * (1 - c), 1e-12) / verdict_sets) for c in (vo, vt))
                line += f" {_pm(vo, sv)} / {_pm(vt, st)} |"
            out.append(line + ("" if (n, "verdict") in r or not verdict_sets else " — |"))
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sets", type=int, default=1000)
    p.add_argument("--hard-sets", type=int, default=4000)
    p.add_argument("--verdict-sets", type=int, default=300)
    p.add_argument("--resamples", type=int, default=400)
    p.add_argument("--seed", type=int, default=36)
    a = p.parse_args(argv)
    pops, res, hard = run(a.sets, a.hard_sets, a.verdict_sets, a.resamples, a.seed)
    print("\n".join(table(pops, res, hard, a.sets, a.hard_sets, a.verdict_sets)))
    print(f"(CPU {time.process_time():.0f} s)", file=sys.stderr)


if __name__ == "__main__":
    main()
