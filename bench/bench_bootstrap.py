"""Paired bootstrap speed and memory (issue: golden-case comparison).

1. n = 300 continuous, 20,000 resamples: NoiseFloor vs ``scipy.stats.bootstrap`` (paired,
   percentile) on the same data. Target: >= 4x faster.
2. Binary outcomes, 20,000 resamples at n = 31 and n = 100,000 (four-cell multinomial).
   Target: < 10 ms each; reference: numpy index resampling (batched) in the same run.
3. Continuous, n = 100,000, 20,000 resamples. Target: <= 2 s and peak memory <= 300 MB,
   measured in a fresh subprocess: its peak RSS (``VmHWM``) over the whole process, and the
   growth of that peak during the call (reset after warm-up, ``bench.memory.reset_peak``).
   Not ``ru_maxrss``: it survives ``exec`` and would report ``bench/run.py``'s own peak.
"""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.timing import best  # noqa: E402

from core.paired.stats import paired_bootstrap  # noqa: E402


def _numpy_index_bootstrap(d, resamples, batch=256, seed=0):
    rng = np.random.default_rng(seed)
    out = np.empty(resamples)
    for i in range(0, resamples, batch):
        k = min(batch, resamples - i)
        out[i:i + k] = d[rng.integers(0, d.size, size=(k, d.size))].mean(axis=1)
    return out


_MEMORY_CHILD = r"""
import json, sys, time
import numpy as np
sys.path.insert(0, sys.argv[1])
from bench.memory import peak_mb, reset_peak, rss_mb
from core.paired.stats import paired_bootstrap
rng = np.random.default_rng(0)
a, b = rng.random(100_000), rng.random(100_000)
paired_bootstrap(a[:50], b[:50], resamples=100)  # load compiled kernels
before = peak_mb()
reset_peak()
base = rss_mb()
t = time.perf_counter()
r = paired_bootstrap(a, b, resamples=20_000, seed=0)
dt = time.perf_counter() - t
peak = peak_mb()
print(json.dumps({"seconds": dt, "base_mb": base, "peak_mb": max(before, peak),
                  "call_peak_mb": peak}))
"""


def main() -> None:
    rng = np.random.default_rng(0)
    # 1. n = 300 continuous vs scipy
    a, b = rng.random(300), rng.random(300)
    paired_bootstrap(a[:10], b[:10], resamples=100)  # compile/load once, outside the timing
    ours = best(lambda: paired_bootstrap(a, b, resamples=20_000, seed=0))
    ref = best(lambda: stats.bootstrap(
        (a, b), lambda x, y, axis=-1: np.mean(y - x, axis=axis), paired=True, vectorized=True,
        n_resamples=20_000, method="percentile", random_state=np.random.default_rng(0)))
    print(f"n=300 continuous, 20,000 resamples: NoiseFloor {ours * 1e3:.1f} ms, "
          f"scipy.stats.bootstrap {ref * 1e3:.1f} ms -> {ref / ours:.1f}x faster (target >= 4x)")

    # 2. binary via cells
    for n in (31, 100_000):
        a = (rng.random(n) < 0.8).astype(float)
        b = np.where(rng.random(n) < 0.2, 1 - a, a)
        ours = best(lambda: paired_bootstrap(a, b, resamples=20_000, seed=0), repeat=5)
        ref_r = 2_000 if n > 1_000 else 20_000
        ref = best(lambda: _numpy_index_bootstrap(b - a, ref_r), repeat=1) * 20_000 / ref_r
        print(f"binary n={n:,}, 20,000 resamples: {ours * 1e3:.2f} ms (target < 10 ms); "
              f"numpy index resampling {ref * 1e3:.0f} ms"
              f"{' (extrapolated from 2,000)' if ref_r < 20_000 else ''} -> {ref / ours:.0f}x")

    # 3. continuous n = 100,000 in a fresh process
    out = subprocess.run([sys.executable, "-c", _MEMORY_CHILD, str(ROOT)], capture_output=True,
                         text=True, check=True)
    m = json.loads(out.stdout)
    d = rng.random(100_000) - rng.random(100_000)
    ref = best(lambda: _numpy_index_bootstrap(d, 200), repeat=1) * 100
    print(f"continuous n=100,000, 20,000 resamples: {m['seconds']:.2f} s (target <= 2 s); "
          f"numpy index resampling {ref:.1f} s (extrapolated from 200) -> "
          f"{ref / m['seconds']:.1f}x; peak RSS growth {m['call_peak_mb'] - m['base_mb']:.0f} MB "
          f"(target <= 300 MB; whole process {m['peak_mb']:.0f} MB incl. libraries)")


if __name__ == "__main__":
    main()
