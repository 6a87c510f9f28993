"""TREC path speed: NoiseFloor (core.inputs.trec read_run/read_qrels + score_runs) vs ir_measures alone.

A generated 7,000-query x 1,000-document run (7M lines) and its qrels are written to a temp
dir (never the repo). Both sides start from the file on disk and end with per-query nDCG@10
and R@100 for every judged query:

- reference: ``ir_measures.iter_calc`` over ``ir_measures.read_trec_qrels`` /
  ``ir_measures.read_trec_run`` (its own reader);
- NoiseFloor: ``core.inputs.trec.read_qrels`` + ``read_run`` (bytes, as an upload arrives) +
  ``score_runs`` (ir_measures' pytrec_eval provider underneath).

Target: NoiseFloor / ir_measures <= 1.2. Run: ``python bench/bench_trec.py [queries docs]``.
"""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import ir_measures  # noqa: E402

from core.inputs.trec import read_qrels, read_run, score_runs  # noqa: E402

MEASURES = ("nDCG@10", "R@100")
TARGET = 1.2


def generate(folder: Path, n_queries: int = 7_000, n_docs: int = 1_000, seed: int = 0):
    """Write ``run.txt`` and ``qrels.txt`` (seeded) into ``folder``; return their paths."""
    rng = np.random.default_rng(seed)
    pool = 2_000_000
    q = np.repeat(np.arange(n_queries), n_docs)
    docs = rng.integers(0, pool, size=(n_queries, n_docs))
    # unique docs per query: offset each query's draws into its own stride
    docs = (docs % (pool // n_docs)) * n_docs + np.arange(n_docs)
    ranks = np.tile(np.arange(1, n_docs + 1), n_queries)
    scores = np.round(np.sort(rng.random((n_queries, n_docs)) * 50, axis=1)[:, ::-1], 4)
    run = pd.DataFrame({"q": "q" + pd.Series(q).astype(str), "z": "Q0",
                        "d": "D" + pd.Series(docs.ravel()).astype(str), "r": ranks,
                        "s": scores.ravel(), "t": "bench"})
    run_path = folder / "run.txt"
    run.to_csv(run_path, sep=" ", header=False, index=False)
    rows = []
    for i in range(n_queries):
        hits = rng.choice(n_docs, size=rng.integers(1, 8), replace=False)
        judged = [(docs[i, h], int(rng.integers(1, 3))) for h in hits[: len(hits) // 2 + 1]]
        judged += [(pool + i * 10 + j, 1) for j in range(int(rng.integers(0, 3)))]
        judged += [(docs[i, h], 0) for h in hits[len(hits) // 2 + 1:]]
        rows += [f"q{i} 0 D{d} {r}" for d, r in judged]
    qrels_path = folder / "qrels.txt"
    qrels_path.write_text("\n".join(rows) + "\n")
    return run_path, qrels_path


def reference(run_path: Path, qrels_path: Path) -> dict:
    ms = [ir_measures.parse_measure(m) for m in MEASURES]
    out = {}
    for r in ir_measures.iter_calc(ms, ir_measures.read_trec_qrels(str(qrels_path)),
                                   ir_measures.read_trec_run(str(run_path))):
        out[(str(r.measure), r.query_id)] = r.value
    return out


PARTS: dict[str, float] = {}


def noisefloor(run_path: Path, qrels_path: Path):
    t = time.perf_counter()
    qrels = read_qrels(qrels_path.read_bytes(), str(qrels_path))
    run = read_run(run_path.read_bytes(), str(run_path))
    PARTS["parse"] = time.perf_counter() - t
    t = time.perf_counter()
    out = score_runs([run], qrels, list(MEASURES), qrels_file=str(qrels_path))
    PARTS["score"] = time.perf_counter() - t
    return out


def _timed(fn, *args):
    t = time.perf_counter()
    out = fn(*args)
    return time.perf_counter() - t, out


def main(argv: list[str] | None = None) -> dict:
    """Print the figures; ``argv`` = [queries, docs] (default 7,000 x 1,000)."""
    argv = argv or []
    n_q = int(argv[0]) if argv else 7_000
    n_d = int(argv[1]) if len(argv) > 1 else 1_000
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        run_path, qrels_path = generate(Path(tmp), n_q, n_d)
        gen = time.perf_counter() - t0
        size_mb = run_path.stat().st_size / 2 ** 20
        # alternate order so neither side always gets the warm page cache
        t_ref1, ref = _timed(reference, run_path, qrels_path)
        t_nf1, ours = _timed(noisefloor, run_path, qrels_path)
        t_nf2, _ = _timed(noisefloor, run_path, qrels_path)
        t_ref2, _ = _timed(reference, run_path, qrels_path)
    t_ref, t_nf = min(t_ref1, t_ref2), min(t_nf1, t_nf2)
    worst = 0.0
    for m in MEASURES:
        col = ours.values[m].iloc[:, 0]
        for qid, v in col.items():
            worst = max(worst, abs(v - ref.get((m, qid), 0.0)))
    ratio = t_nf / t_ref
    print(f"TREC run {n_q:,} queries x {n_d:,} docs = {n_q * n_d:,} lines ({size_mb:.0f} MB); "
          f"generated in {gen:.1f}s")
    print(f"  ir_measures alone (read_trec_run + iter_calc {', '.join(MEASURES)}): "
          f"{t_ref:.2f}s  (runs: {t_ref1:.2f}s, {t_ref2:.2f}s)")
    print(f"  NoiseFloor (read_run + read_qrels + score_runs):            "
          f"{t_nf:.2f}s  (runs: {t_nf1:.2f}s, {t_nf2:.2f}s)")
    print(f"    of which (last run) parse {PARTS['parse']:.2f}s, ir_measures scoring "
          f"{PARTS['score']:.2f}s")
    print(f"  ratio NoiseFloor / ir_measures = {ratio:.2f}x  (target <= {TARGET}x)  "
          f"{'OK' if ratio <= TARGET else 'OVER TARGET'}")
    print(f"  largest per-query difference from ir_measures: {worst:.2e}")
    return {"ratio": ratio, "noisefloor_s": t_nf, "ir_measures_s": t_ref, "max_diff": worst}


if __name__ == "__main__":
    main(sys.argv[1:])
