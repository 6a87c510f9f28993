"""Latency comparison speed (issues 15 and 25). ``python bench/bench_latency.py [--quick]``.

0. The whole ``python -m core latency FILE --json`` on the 100,000-row log below, CPU time
   (all threads) and its own peak RSS (``bench.memory.run_process``), best of 3. Targets
   (issue 25): <= 2 s CPU and <= 300 MiB; reference in the same run: a process that only
   runs ``import numpy, pandas`` (the ratio is printed).
1. 100,000 timing rows (2,000 queries x 2 methods x 25 runs) analysed by
   ``core.latency.compare.compare_latency`` with the defaults (20,000 paired resamples, 2,000 nested
   resamples for each method's median and p95, warm-up permutation tests), CPU time.
   Reference: the same point estimates in plain numpy (pooled medians and p95, per-query
   medians, geometric mean ratio) measured in the same run; reading the CSV is timed apart.
2. Per resample: the nested (queries, then runs) bootstrap kernel against a plain numpy
   version of the same scheme, and the paired ratio-of-medians kernel (walks from the
   observed median) against numpy medians of the replicated resample.
"""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.memory import run_process  # noqa: E402
from bench.timing import best  # noqa: E402

from core.latency.compare import compare_latency  # noqa: E402
from core.latency.log import load_timings  # noqa: E402
from core.latency.resample import (nested_bootstrap_quantiles,  # noqa: E402
                                   paired_median_ratio_bootstrap)

N_QUERIES, RUNS = 2_000, 25


def _log_bytes(rng) -> tuple[bytes, np.ndarray, np.ndarray]:
    base = rng.normal(np.log(30), 0.5, N_QUERIES)
    a = np.exp(base[:, None] + rng.normal(0, 0.3, (N_QUERIES, RUNS)))
    b = 0.9 * np.exp(base[:, None] + rng.normal(0, 0.3, (N_QUERIES, RUNS)))
    lines = ["query_id,method,run,latency_ms"]
    for q in range(N_QUERIES):
        for r in range(RUNS):
            lines.append(f"q{q},A,{r + 1},{a[q, r]:.4f}")
            lines.append(f"q{q},B,{r + 1},{b[q, r]:.4f}")
    return ("\n".join(lines) + "\n").encode(), a, b


def _numpy_point_estimates(a, b):
    out = [np.median(a), np.quantile(a, 0.95), np.median(b), np.quantile(b, 0.95)]
    ma, mb = np.median(a, axis=1), np.median(b, axis=1)
    out.append(np.exp(np.mean(np.log(mb) - np.log(ma))))
    return out


def _numpy_nested(groups, resamples, rng):
    sizes = np.array([g.size for g in groups])
    flat = np.concatenate(groups)
    offs = np.concatenate([[0], np.cumsum(sizes)])[:-1]
    out = np.empty(resamples)
    for r in range(resamples):
        qs = rng.integers(0, len(groups), len(groups))
        k = sizes[qs]
        idx = np.repeat(offs[qs], k) + (rng.random(k.sum()) * np.repeat(k, k)).astype(int)
        out[r] = np.median(flat[idx])
    return out


def _cli(data: bytes, repeat: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "timings_100k.csv"
        path.write_bytes(data)
        run_process(["-m", "core", "latency", str(path), "--json"], cwd=ROOT)  # compile/cache
        cli = [run_process(["-m", "core", "latency", str(path), "--json"], cwd=ROOT)
               for _ in range(repeat)]
    ref = [run_process(["-c", "import numpy, pandas"], cwd=ROOT) for _ in range(repeat)]
    c, r = min(x.cpu for x in cli), min(x.cpu for x in ref)
    peak = max(x.peak_mb for x in cli)
    print(f"0. CLI latency --json, {len(data) / 2**20:.1f} MB log: CPU best {c:.2f} s "
          f"(target <= 2 s), peak {peak:.0f} MiB (target <= 300 MiB); "
          f"'import numpy, pandas' {r:.2f} s -> {c / r:.1f}x")


def main() -> None:
    quick = "--quick" in sys.argv[1:]
    rng = np.random.default_rng(0)
    data, a, b = _log_bytes(rng)
    _cli(data, 2 if quick else 3)
    t = time.process_time()
    log = load_timings(data, "bench.csv")
    t_load = time.process_time() - t
    print(f"timing log: {log.n_rows:,} rows ({N_QUERIES:,} queries x 2 methods x {RUNS} runs),"
          f" {len(data) / 2**20:.1f} MB; load_timings {t_load:.2f} s")
    compare_latency(log, "A", "B", resamples=1000, quantile_resamples=1000)  # compile kernels
    cpu = time.process_time
    t_full = best(lambda: compare_latency(log, "A", "B"), repeat=1 if quick else 3, clock=cpu)
    t_np = best(lambda: _numpy_point_estimates(a, b), repeat=5, clock=cpu)
    print(f"1. compare_latency, defaults (20,000 paired + 2 x 2,000 nested resamples): "
          f"{t_full:.2f} s CPU")
    print(f"   numpy point estimates only: {1000 * t_np:.1f} ms; full analysis = "
          f"{t_full / t_np:,.0f}x the point estimates")

    groups = list(a)
    R = 2000
    t_kernel = best(lambda: nested_bootstrap_quantiles(groups, [0.5], resamples=R, seed=1),
                    clock=cpu)
    t_numpy = best(lambda: _numpy_nested(groups, 50, np.random.default_rng(1)), repeat=1,
                   clock=cpu) * R / 50
    print(f"2. nested bootstrap of a median, 50,000 timings (walking kernel): {1000 * t_kernel / R:.2f} ms per "
          f"resample vs numpy {1000 * t_numpy / R:.2f} ms ({t_numpy / t_kernel:.1f}x faster)")
    q = np.repeat(np.arange(N_QUERIES), RUNS)
    R2 = 20_000
    t_walk = best(lambda: paired_median_ratio_bootstrap(a.ravel(), q, b.ravel(), q, N_QUERIES,
                                                         resamples=R2, seed=1), clock=cpu)
    rng2 = np.random.default_rng(2)

    def numpy_ratio(resamples=50):
        for _ in range(resamples):
            w = np.bincount(rng2.integers(0, N_QUERIES, N_QUERIES), minlength=N_QUERIES)
            np.log(np.median(np.repeat(b, w, axis=0))) - np.log(np.median(np.repeat(a, w, axis=0)))
    t_np_ratio = best(numpy_ratio, repeat=1, clock=cpu) / 50
    print(f"   paired ratio of medians: {1e6 * t_walk / R2:.1f} us per resample "
          f"({t_walk:.2f} s for 20,000) vs numpy {1e6 * t_np_ratio:.0f} us "
          f"({t_np_ratio / (t_walk / R2):,.0f}x faster)")


if __name__ == "__main__":
    main()
