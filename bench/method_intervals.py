"""Per-method intervals of scores (issue 25): does each method's "95%" interval of its mean score
cover the true mean 95% of the time at 10-30 cases? ``python bench/method_intervals.py
[--quick]``; writes its table into ``docs/calibration.md`` (between the
``method-intervals`` markers) unless ``--quick``.

Populations (the true value is the population mean): the per-query nDCG@10 and MRR@10 of BM25
and dense on BEIR scifact's 300 judged test queries (``bench.calibration.scifact_tables``;
sets drawn with replacement), Normal(0.5, 0.1) and Exp(1). For each n in {10, 20, 30},
``SETS`` seeded sets of n cases; for each set three intervals of the mean:

* ``percentile``: the percentile bootstrap the card showed before, read off the very resampled
  means the calibrated t draws (same rows, same streams);
* ``t``: Student's t-interval (no bootstrap);
* ``calibrated t``: ``core.paired.method_intervals.mean_intervals`` itself (the product's function,
  clipping to [0, 1] included: every population but Exp(1) lies in [0, 1]), with the
  resamples the product draws at these n (20,000; 2,000 with ``--quick``).

Coverage in %, with its Monte-Carlo standard error sqrt(p (1 - p) / sets) in the note.
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.paired.method_intervals import mean_intervals, method_resamples  # noqa: E402
from core.paired.resampling import kernels  # noqa: E402
from core.paired.streams import stream_key  # noqa: E402
from core.paired.streams import STREAM_METHODS, row_key  # noqa: E402

OUT = ROOT / "docs" / "calibration.md"
NS = (10, 20, 30)
SETS = 2_000
RESAMPLES = 20_000
CONF = 0.95
START, END = "<!-- method-intervals:start -->", "<!-- method-intervals:end -->"


def populations() -> tuple[dict[str, np.ndarray], str]:
    """name -> population values, and a note on the scifact source."""
    from bench.calibration import scifact_tables
    pops, note = {}, ""
    tables, why = scifact_tables(("bm25", "dense"))
    if tables is None:
        note = f"scifact rows left out: {why}"
    else:
        for metric, label in (("ndcg@10", "nDCG@10"), ("mrr@10", "MRR@10")):
            for method in ("bm25", "dense"):
                pops[f"scifact {method} {label}"] = tables[method][metric].to_numpy(float)
        note = f"scifact: {why}"
    rng = np.random.default_rng(2025)
    pops["Normal(0.5, 0.1)"] = rng.normal(0.5, 0.1, 200_000)
    pops["Exp(1)"] = rng.exponential(1.0, 200_000)
    return pops, note


def cell(pop: np.ndarray, n: int, sets: int, resamples: int, seed: int) -> dict[str, float]:
    """Coverage (share of sets) of the three intervals at n cases."""
    rng = np.random.default_rng(seed)
    x = rng.choice(pop, (sets, n))
    truth = float(pop.mean())
    lo, hi, drawn = mean_intervals(x, confidence=CONF, resamples=resamples, seed=seed)
    key = stream_key(seed, STREAM_METHODS)
    q = [100 * (1 - CONF) / 2, 100 * (1 + CONF) / 2]
    pct = np.array([np.percentile(kernels().bootstrap_means(np.ascontiguousarray(row),
                                                            row_key(key, s), 0, drawn), q)
                    for s, row in enumerate(x)])
    c = stats.t.ppf(1 - (1 - CONF) / 2, n - 1)
    se = x.std(axis=1, ddof=1) / np.sqrt(n)
    xbar = x.mean(axis=1)
    covered = {"percentile": (pct[:, 0] <= truth) & (truth <= pct[:, 1]),
               "t": (xbar - c * se <= truth) & (truth <= xbar + c * se),
               "calibrated t": (lo <= truth) & (truth <= hi)}
    return {k: float(v.mean()) for k, v in covered.items()}


def table(rows: dict, sets: int, resamples: int, note: str) -> str:
    methods = ("percentile", "t", "calibrated t")
    ns = "/".join(map(str, NS))
    lines = ["### (f) each method's own interval of its mean score (the card's per-method "
             "intervals)", "",
             f"Coverage of the true mean in % at n = {ns} cases ({sets:,} sets per cell, "
             f"{resamples:,} resamples per set, the product's `mean_intervals`; Monte-Carlo "
             f"SE about {100 * np.sqrt(0.95 * 0.05 / sets):.1f} points at 95%). {note}.", "",
             "| population | n | " + " | ".join(methods) + " |",
             "|---|---|" + "---|" * len(methods)]
    for name, by_n in rows.items():
        lines.append(f"| {name} | {ns} | " + " | ".join(
            "/".join(f"{100 * by_n[n][m]:.1f}" for n in NS) for m in methods) + " |")
    worst = min(by_n[n]["calibrated t"] for by_n in rows.values() for n in NS)
    worst_pct = min(by_n[n]["percentile"] for by_n in rows.values() for n in NS)
    most = max(by_n[n]["calibrated t"] for by_n in rows.values() for n in NS)
    lines += ["", f"Lowest coverage: calibrated t {100 * worst:.1f}%, percentile "
              f"{100 * worst_pct:.1f}%. Highest: calibrated t {100 * most:.1f}% (wider than "
              "needed where the bootstrap-t widens for the ties and the floor at 0 of "
              "per-query scores: it errs on the safe side). Studentized resamples per method at larger n: "
              f"{method_resamples(10_000, 20_000):,} at 10,000 cases, "
              f"{method_resamples(100_000, 20_000):,} at 100,000 "
              "(`core.paired.method_intervals.method_resamples`, docs/speed.md)."]
    return "\n".join(lines)


def main(argv=None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    quick = "--quick" in argv
    sets, resamples = (400, 2_000) if quick else (SETS, RESAMPLES)
    t0 = time.perf_counter()
    pops, note = populations()
    rows = {}
    for i, (name, pop) in enumerate(pops.items()):
        rows[name] = {n: cell(pop, n, sets, resamples, seed=100 * i + n) for n in NS}
        print(name, {n: {m: round(100 * v, 1) for m, v in r.items()}
                     for n, r in rows[name].items()}, flush=True)
    text = table(rows, sets, resamples, note)
    print(text)
    if quick:
        return
    stamp = (f"_Generated by `bench/method_intervals.py` on "
             f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} in "
             f"{time.perf_counter() - t0:.0f} s ({os.cpu_count()} cores, load average "
             f"{os.getloadavg()[0]:.1f} at the end; `python bench/method_intervals.py`, also "
             f"`python bench/run.py method_intervals`)._")
    block = f"{START}\n{text}\n\n{stamp}\n{END}"
    doc = OUT.read_text(encoding="utf-8")
    if START in doc and END in doc:
        doc = doc[:doc.index(START)] + block + doc[doc.index(END) + len(END):]
    else:
        doc = doc.rstrip("\n") + "\n\n" + block + "\n"
    OUT.write_text(doc, encoding="utf-8")
    print(f"written to {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
