"""The skew guard of the score interval of B - A (issue 36, items 1 and 3): before / after.

The interval of a paired difference of scores is the calibrated t-interval; issue 36 adds its
skew guard (``core.paired.skew_intervals.skew_guard_interval``: Hall's transformed t with three
times the sample skewness of the non-zero differences beyond its noise). This bench measures,
on the populations of ``bench/hard_shapes.py`` (hard: left skew -2 with 18% ties, right skew +2
with 50% ties, lognormal with skewness 4.8, Exp(1) - 1, normal with 50% ties; ordinary: normal
and the real scifact dense - BM25 nDCG@10 differences with their 53% ties), vectorised:

- **interval**: the share of null sets (true mean 0) whose interval of B - A leaves out 0;
- **type-I**: the verdict's "better" (the interval leaves out 0 and the two-sided sign-flip
  test has p < 0.05), either way;
- **margin**: "non-inferior" when B - A is truly -delta (the margin's promise, at most 2.5%):
  the interval's lower end above -delta and the one-sided sign-flip test on d + delta below
  0.025 (``core.paired.margin``); d drawn with its ties kept at 0 and its non-zero values
  shifted so the mean is -delta, delta = 0.25 population SD;
- **power** (ordinary rows): "better" with every value shifted by 0.5 SD (the alternative of
  ``bench/calibration.py``), and on scifact also with the ties kept at 0 and the non-zero
  values shifted (mean 0.5 SD): closer to real retrieval data, where a better method still
  ties on half the queries;
- **coverage** of the true mean 0 on the ordinary rows.

"No guard" is the calibrated t-interval alone, "ramp on m" the guard as first shipped (its noise
allowance phased in over the non-zero values m: ``skew_guard_interval(..., ramp=
SKEW_GUARD_FIRST_RAMP)``), "now" the product's guard
(the allowance phased in over the cases n), on the same sets
(the product's ``core.paired.intervals.score_intervals``). Each set's bootstrap has
``--resamples`` (400) resamples (the card: 20,000), the sign-flip test a shared matrix of
1,999 random sign vectors (the card: exact up to 20 non-zero values), so a set near a
boundary may differ from the card; the self-check's withholding is not applied here
(``bench/hard_shapes.py`` runs the product's whole verdict). Monte-Carlo SE of a rate r over S
sets: sqrt(r (1 - r) / S).

``python bench/skew_guard.py [--sets 3000] [--seed 36]``: a few minutes on two cores.
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

from bench.hard_shapes import populations, shape  # noqa: E402
from core.paired.intervals import score_intervals, side  # noqa: E402
from core.paired.skew_intervals import (SKEW_GUARD_FIRST_RAMP,  # noqa: E402
                                         skew_guard_interval)

CONF = 0.95
NS = (10, 15, 20, 25, 30, 50)
BLOCK = 200
KINDS = ("before", "mramp", "after")   # no guard / the guard's first ramp (on m) / the product


def boot_means_sds(x, resamples, rng):
    """Means and SDs (ddof 1) of ``resamples`` bootstrap resamples of each row of x (numpy's
    generator ``rng``; the benches' vectorised stand-in for the card's bootstrap)."""
    S, n = x.shape
    idx = rng.integers(0, n, size=(S, resamples, n))
    r = x[np.arange(S)[:, None, None], idx]
    return r.mean(axis=2), r.std(axis=2, ddof=1)


def intervals(x, resamples, rng):
    """(before, m-ramp, after): the calibrated t-interval of each row of x without the skew
    guard, with the guard as first shipped (``ramp=SKEW_GUARD_FIRST_RAMP``) and with the
    product's guard, each (low, high), from one bootstrap per row."""
    out = [np.empty((2, x.shape[0])) for _ in range(3)]
    for s in range(0, x.shape[0], BLOCK):
        part = x[s:s + BLOCK]
        means, sds = boot_means_sds(part, resamples, rng)
        lo, hi = score_intervals(part, means, sds, CONF, "calibrated_t")
        out[0][0, s:s + BLOCK], out[0][1, s:s + BLOCK] = lo, hi
        g_lo, g_hi = skew_guard_interval(part, CONF, ramp=SKEW_GUARD_FIRST_RAMP)
        out[1][0, s:s + BLOCK], out[1][1, s:s + BLOCK] = np.minimum(lo, g_lo), np.maximum(hi, g_hi)
        lo, hi = score_intervals(part, means, sds, CONF, "calibrated_t", skew_guard=True)
        out[2][0, s:s + BLOCK], out[2][1, s:s + BLOCK] = lo, hi
    return out


def signflip_p(x, signs, alternative="two-sided"):
    """Monte-Carlo sign-flip p of each row's sum (shared sign matrix; Phipson & Smyth 2010)."""
    obs = x.sum(axis=1)
    null = x @ signs.T
    tol = (1e-12 * np.maximum(1.0, np.abs(x).sum(axis=1)))[:, None]
    if alternative == "greater":
        far = null >= obs[:, None] - tol
    else:
        far = np.abs(null) >= np.abs(obs)[:, None] - tol
    return (1 + far.sum(axis=1)) / (1 + signs.shape[0])


def verdicts(x, resamples, rng, signs):
    """Per row: (interval leaves out 0, "better") before and after the guard, and covers 0."""
    p = signflip_p(x, signs)
    scale = np.max(np.abs(x), axis=1)
    res = {}
    for name, (lo, hi) in zip(KINDS, intervals(x, resamples, rng)):
        out = side(lo, hi, scale) != 0
        res[name] = (out, out & (p < 0.05))
    return res


def margin_cell(pop, n, delta, sets, resamples, rng, signs):
    """P(non-inferior) when B - A is -delta: ties kept at 0, non-zero values shifted."""
    nz = pop != 0
    d_pop = np.where(nz, pop - delta / nz.mean(), 0.0)
    d = rng.choice(d_pop, size=(sets, n))
    p = signflip_p(d + delta, signs[:, :n], "greater")
    return {name: float(np.mean((lo > -delta) & (p < 0.025)))
            for name, (lo, _) in zip(KINDS, intervals(d, resamples, rng))}


def run(sets, resamples, seed):
    rng = np.random.default_rng(seed)
    pops = populations(rng)
    signs = rng.choice([-1.0, 1.0], size=(1999, max(NS)))
    rows = []
    for name, (pop, ordinary) in pops.items():
        sd = float(np.std(pop))
        for n in NS:
            x = rng.choice(pop, size=(sets, n))
            v = verdicts(x, resamples, rng, signs[:, :n])
            row = {"name": name, "n": n, "ordinary": ordinary, "shape": shape(pop)}
            for k in KINDS:
                row[f"int_{k}"] = float(v[k][0].mean())
                row[f"t1_{k}"] = float(v[k][1].mean())
            if n >= 20:
                row.update({f"margin_{k}": r for k, r in
                            margin_cell(pop, n, 0.25 * sd, sets, resamples, rng, signs).items()})
            if ordinary:
                v1 = verdicts(x + 0.5 * sd, resamples, rng, signs[:, :n])
                row.update({f"pow_{k}": float(v1[k][1].mean()) for k in KINDS})
                if np.mean(pop == 0) > 0.1:
                    nzp = pop != 0
                    alt = np.where(nzp, pop + 0.5 * sd / nzp.mean(), 0.0)
                    v2 = verdicts(rng.choice(alt, size=(sets, n)), resamples, rng,
                                  signs[:, :n])
                    row.update({f"tiepow_{k}": float(v2[k][1].mean()) for k in KINDS})
            rows.append(row)
        print(f"{name}: {time.process_time():.0f} s CPU", file=sys.stderr, flush=True)
    return rows


def pct_mc(r, sets=None):
    """A rate as a percentage, with its Monte-Carlo error over ``sets`` simulated sets."""
    if r is None:
        return "—"
    if sets is None:
        return f"{100 * r:.1f}%"
    return f"{100 * r:.1f}% ± {100 * math.sqrt(max(r * (1 - r), 1e-12) / sets):.1f}"


def table(rows, sets) -> list[str]:
    lines = ["| population | skew | ties | n | interval leaves out 0: no guard | ramp on m | "
             "now | type-I: no guard | ramp on m | now | margin, non-inferior at −δ: no guard | "
             "ramp on m | now |", "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        sk, ties = r["shape"]
        cells = [pct_mc(r[f"int_{k}"], sets) for k in KINDS] + \
            [pct_mc(r[f"t1_{k}"], sets) for k in KINDS] + \
            [pct_mc(r[f"margin_{k}"], sets) if f"margin_{k}" in r else "—" for k in KINDS]
        lines.append(f"| {r['name']} | {sk:+.1f} | {100 * ties:.0f}% | {r['n']} | "
                     + " | ".join(cells) + " |")
    lines += ["", "| ordinary row | n | coverage: no guard | ramp on m | now | power: no guard | "
              "ramp on m | now | power, ties kept: no guard | ramp on m | now |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if not r["ordinary"]:
            continue
        cells = [pct_mc(1 - r[f"int_{k}"], sets) for k in KINDS] + \
            [pct_mc(r[f"pow_{k}"], sets) for k in KINDS] + \
            [pct_mc(r.get(f"tiepow_{k}"), sets if f"tiepow_{k}" in r else None) for k in KINDS]
        lines.append(f"| {r['name']} | {r['n']} | " + " | ".join(cells) + " |")
    return lines


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sets", type=int, default=3000)
    p.add_argument("--resamples", type=int, default=400)
    p.add_argument("--seed", type=int, default=36)
    args = p.parse_args(argv)
    t0 = time.time()
    rows = run(args.sets, args.resamples, args.seed)
    print("\n".join(table(rows, args.sets)))
    print(f"\n({args.sets:,} sets per cell, seed {args.seed}, {time.time() - t0:.0f} s, "
          f"CPU {time.process_time():.0f} s)")


if __name__ == "__main__":
    main()
