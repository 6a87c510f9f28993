"""Issue 36's ordinary rows from scifact itself: every pair of BM25, dense and hybrid on three
per-query metrics (nDCG@10, recall@100, MRR@10), coverage of the card's interval (calibrated
t; without the skew guard, with it, and the product's interval: the guard and, where 5 or fewer
cases differ, widened to reach 0, ``core.paired.skew_intervals.reach_zero_when_few``; from
``bench/skew_guard.intervals``) at n = 10/20/30, per pair and pooled (equal weight per pair, as
the issue pooled its TREC run pairs), and the share of sets with 5 or fewer non-zero values.

Each population is the pair's 300 per-query differences B - A with their exact ties kept at 0
and the non-zero values shifted so the mean is 0 (as ``bench/hard_shapes.populations`` does for
scifact dense - BM25); a set draws n of them with replacement; coverage = share of sets whose
interval holds 0. Monte-Carlo SE of a rate r over S sets: sqrt(r (1 - r) / S); of the pooled
mean of k pair rates: sqrt(sum r_i (1 - r_i) / S) / k. No real TREC per-topic data was found in
the time given (issue 36's TREC rows remain the issue's own measurement).

``python bench/ordinary_pairs.py [--sets 2000] [--resamples 400] [--seed 36]``
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

from bench.calibration import scifact_tables  # noqa: E402
from bench.hard_shapes import shape  # noqa: E402
from bench.skew_guard import CONF, intervals  # noqa: E402
from core.paired.skew_intervals import skew_guard_interval, too_few_differing  # noqa: E402

METRICS = ("ndcg@10", "recall@100", "mrr@10")
SYSTEMS = ("bm25", "dense", "hybrid")
NS = (10, 20, 30)


def populations():
    """(metric, 'B - A') -> mean-zero differences with ties kept at 0."""
    tables, why = scifact_tables(SYSTEMS)
    if tables is None:
        raise SystemExit(why)
    pops = {}
    for metric in METRICS:
        for a, b in itertools.combinations(SYSTEMS, 2):
            d = (tables[b][metric] - tables[a][metric]).to_numpy(float)
            nz = d != 0
            pops[(metric, f"{b} - {a}")] = np.where(nz, d - d.sum() / nz.sum(), 0.0)
    return pops


def run(sets, resamples, seed):
    rng = np.random.default_rng(seed)
    rows = []
    for key, pop in populations().items():
        row = {"key": key, "shape": shape(pop)}
        for n in NS:
            x = rng.choice(pop, size=(sets, n))
            before, _, after = intervals(x, resamples, rng)
            g_lo, g_hi = skew_guard_interval(x, CONF)   # the guard without reaching 0
            guard = (np.minimum(before[0], g_lo), np.maximum(before[1], g_hi))
            row[n] = tuple(float(np.mean((lo <= 0) & (hi >= 0)))
                           for lo, hi in (before, guard, after))
            row[(n, "few")] = float(np.mean(too_few_differing(x, CONF)))
        rows.append(row)
        print(f"{key}: {time.process_time():.0f} s CPU", file=sys.stderr, flush=True)
    return rows


def table(rows, sets):
    out = ["| metric | pair B - A | skew | ties | " +
           " | ".join(f"n = {n}: no guard / guard / product" for n in NS) +
           " | sets with ≤ 5 differing: " + " / ".join(f"n = {n}" for n in NS) + " |",
           "|---|---|---|---|" + "---|" * (len(NS) + 1)]
    for r in rows:
        sk, ties = r["shape"]
        cells = " | ".join(" / ".join(f"{100 * v:.1f}" for v in r[n]) for n in NS)
        few = " / ".join(f"{100 * r[(n, 'few')]:.0f}%" for n in NS)
        out.append(f"| {r['key'][0]} | {r['key'][1]} | {sk:+.1f} | {100 * ties:.0f}% | {cells} "
                   f"| {few} |")
    groups = [(m, [r for r in rows if r["key"][0] == m]) for m in METRICS] + [("all 9", rows)]
    for name, rs in groups:
        cells = []
        for n in NS:
            vals = []
            for j in (0, 1, 2):
                rates = [r[n][j] for r in rs]
                se = math.sqrt(sum(v * (1 - v) for v in rates) / sets) / len(rates)
                vals.append(f"{100 * np.mean(rates):.1f} ± {100 * se:.1f}")
            cells.append(" / ".join(vals))
        out.append(f"| pooled {name} | equal weight per pair | | | {' | '.join(cells)} | |")
    spread = []
    for n in NS:
        g = [r[n][2] for r in rows]
        spread.append(f"n = {n}: {100 * min(g):.1f}-{100 * max(g):.1f}%")
    out.append("")
    out.append(f"Per-pair spread of the product's interval: {'; '.join(spread)}. {sets:,} sets per cell; "
               f"per-pair SE ≤ {100 * math.sqrt(0.25 / sets):.1f} points (≈ {100 * math.sqrt(0.0475 / sets):.1f} near 95%).")
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sets", type=int, default=2000)
    p.add_argument("--resamples", type=int, default=400)
    p.add_argument("--seed", type=int, default=36)
    a = p.parse_args(argv)
    print("\n".join(table(run(a.sets, a.resamples, a.seed), a.sets)))


if __name__ == "__main__":
    main()
