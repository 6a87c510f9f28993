"""CLI start-up and the fused ``compare_paired`` pass (issue #11, part 3).

1. ``python -m core compare data/demo_golden.csv --json`` (31 binary cases), whole process,
   CPU (user + sys) and wall, best and median of ``RUNS`` runs. Targets: <= 0.8 s on a quiet
   machine; the import share (a process that only imports what the command imports, over the
   whole command); and the ratio to a reference measured in the same run: a plain
   ``python -c "import pandas, numpy"`` process plus the in-process compute of the same
   comparison (``compare_golden`` warm). Target: the CLI <= 40% above that reference.
2. Continuous n = 100,000, 20,000 resamples: the whole ``compare_paired`` (rates of A and B,
   the CI of B - A and the sign-flip test) over ``paired_bootstrap`` alone. Target: <= 2x
   (one fused pass draws each index once for A, B and B - A).
"""
from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.timing import best  # noqa: E402

from core.golden import compare_golden, load_golden  # noqa: E402
from core.paired import compare_paired  # noqa: E402
from core.stats import paired_bootstrap  # noqa: E402

DEMO = ROOT / "data" / "demo_golden.csv"
RUNS = 7
IMPORTS_ONLY = ("import core.__main__, core.commands.compare, core.golden, core.serialize, "
                "core.views.golden, core.views.verdicts")


def _process(args: list[str]) -> tuple[float, float]:
    """(CPU seconds of the child, wall seconds) of one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(args, cwd=ROOT, check=True, stdout=subprocess.DEVNULL,
                   env={**os.environ, "PYTHONPATH": str(ROOT)})
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def _runs(args: list[str], n: int = RUNS) -> dict:
    cpu, wall = zip(*(_process(args) for _ in range(n)))
    return {"cpu_best": min(cpu), "cpu_median": statistics.median(cpu),
            "wall_best": min(wall), "wall_median": statistics.median(wall)}


def _fmt(r: dict) -> str:
    return (f"CPU best {r['cpu_best']:.2f} s, median {r['cpu_median']:.2f} s; wall best "
            f"{r['wall_best']:.2f} s, median {r['wall_median']:.2f} s")


def main() -> None:
    py = sys.executable
    # 1. whole CLI process on the demo
    _process([py, "-m", "core", "compare", str(DEMO), "--json"])  # warm the file cache
    cli = _runs([py, "-m", "core", "compare", str(DEMO), "--json"])
    imports = _runs([py, "-c", IMPORTS_ONLY])
    bare = _runs([py, "-c", "import pandas, numpy"])
    gs = load_golden(DEMO.read_bytes(), file=str(DEMO))
    compute = best(lambda: compare_golden(load_golden(DEMO.read_bytes(), file=str(DEMO))),
                   repeat=5, clock=time.process_time)
    ref = bare["cpu_best"] + compute
    print(f"CLI compare demo_golden.csv --json ({len(gs.scores)} cases): {_fmt(cli)} "
          f"(target <= 0.8 s on a quiet machine)")
    print(f"  imports only: {_fmt(imports)} -> import share {imports['cpu_best'] / cli['cpu_best']:.0%}"
          f" (best) / {imports['cpu_median'] / cli['cpu_median']:.0%} (median)")
    print(f"  reference: python -c 'import pandas, numpy' CPU best {bare['cpu_best']:.2f} s, "
          f"median {bare['cpu_median']:.2f} s + compute {compute * 1e3:.1f} ms = {ref:.2f} s -> "
          f"CLI is {cli['cpu_best'] / ref - 1:+.0%} (best) / "
          f"{cli['cpu_median'] / (bare['cpu_median'] + compute) - 1:+.0%} (median) over it "
          f"(target <= +40%)")

    # 2. fused compare_paired vs paired_bootstrap, continuous n = 100,000
    rng = np.random.default_rng(0)
    a, b = rng.random(100_000), rng.random(100_000)
    compare_paired(a[:50], b[:50], resamples=100)  # load compiled kernels
    pb = best(lambda: paired_bootstrap(a, b, resamples=20_000, seed=0), clock=time.process_time)
    cp = best(lambda: compare_paired(a, b, resamples=20_000, seed=0), clock=time.process_time)
    print(f"continuous n=100,000, 20,000 resamples (CPU, best of 3): compare_paired "
          f"{cp:.2f} s, paired_bootstrap {pb:.2f} s -> {cp / pb:.2f}x (target <= 2x)")


if __name__ == "__main__":
    main()
