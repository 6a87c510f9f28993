"""Issue 36's ordinary rows from scifact itself: every pair of BM25, dense and hybrid on three
per-query metrics (nDCG@10, recall@100, MRR@10), coverage of the card's interval (calibrated
t; without and with the product's skew guard, ``bench/skew_guard.intervals``) at n = 10/20/30,
per pair and pooled (equal weight per pair, as the issue pooled its TREC run pairs).

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
from bench.skew_guard import intervals  # noqa: E402

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
            row[n] = tuple(float(np.mean((lo <= 0) & (hi >= 0))) for lo, hi in (before, after))
        rows.append(row)
        print(f"{key}: {time.process_time():.0f} s CPU", file=sys.stderr, flush=True)
    return rows


def table(rows, sets):
    out = ["| metric | pair B - A | skew | ties | " +
           " | ".join(f"n = {n}: no guard / guard" for n in NS) + " |",
           "|---|---|---|---|" + "---|" * len(NS)]
    for r in rows:
        sk, ties = r["shape"]
        cells = " | ".join(f"{100 * r[n][0]:.1f} / {100 * r[n][1]:.1f}" for n in NS)
        out.append(f"| {r['key'][0]} | {r['key'][1]} | {sk:+.1f} | {100 * ties:.0f}% | {cells} |")
    groups = [(m, [r for r in rows if r["key"][0] == m]) for m in METRICS] + [("all 9", rows)]
    for name, rs in groups:
        cells = []
        for n in NS:
            vals = []
            for j in (0, 1):
                rates = [r[n][j] for r in rs]
                se = math.sqrt(sum(v * (1 - v) for v in rates) / sets) / len(rates)
                vals.append(f"{100 * np.mean(rates):.1f} ± {100 * se:.1f}")
            cells.append(" / ".join(vals))
        out.append(f"| pooled {name} | equal weight per pair | | | {' | '.join(cells)} |")
    spread = []
    for n in NS:
        g = [r[n][1] for r in rows]
        spread.append(f"n = {n}: {100 * min(g):.1f}-{100 * max(g):.1f}%")
    out.append("")
    out.append(f"Per-pair spread with the guard: {'; '.join(spread)}. {sets:,} sets per cell; "
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
