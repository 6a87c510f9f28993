"""CLI start-up, the fused ``compare_paired`` pass and the whole CLI on a large file
(issues 11 and 25). ``python bench/bench_cli.py [--quick]``.

Every process is measured through ``bench.memory.run_process``: CPU time (user + system, all
threads) of that one child and its own peak RSS (``VmHWM``; ``ru_maxrss`` would carry a large
parent's peak over ``exec``). Best and median of ``RUNS`` runs (3 with ``--quick``).

1. ``python -m core compare data/demo_golden.csv --json`` (31 binary cases) against a
   ``python -c "import numpy"`` process measured in the same run. Target (issue 25): CPU
   <= 2.5x ``import numpy``. The import share: a process that only imports what the command
   imports, over the whole command.
2. Continuous n = 100,000, 20,000 resamples, in process (CPU): the whole ``compare_paired``
   (rates of A and B, the CI of B - A and the sign-flip test) over ``paired_bootstrap``
   alone. Target: <= 2x.
3. The whole CLI on the same kind of data written as a 2.5 MB CSV (``case_id, A, B``, five
   decimals), ``python -m core compare FILE --json`` with the defaults (the self-check under
   the card included). Targets: <= 4 s CPU and <= 300 MiB; reference in the same run: a
   process that imports numpy and pandas and reads the file with ``pandas.read_csv``.
"""
from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.memory import run_process  # noqa: E402
from bench.timing import best  # noqa: E402

from core.paired.compare import compare_paired  # noqa: E402
from core.paired.stats import paired_bootstrap  # noqa: E402

DEMO = ROOT / "data" / "demo_golden.csv"
RUNS = 7
IMPORTS_ONLY = ("import core.__main__, core.commands.compare, core.inputs.golden, core.serialize, "
                "core.views.golden, core.views.verdicts")
N_BIG = 100_000


def _runs(args: list[str], n: int) -> dict:
    runs = [run_process(args, cwd=ROOT) for _ in range(n)]
    cpu = [r.cpu for r in runs]
    wall = [r.wall for r in runs]
    return {"cpu_best": min(cpu), "cpu_median": statistics.median(cpu),
            "wall_best": min(wall), "wall_median": statistics.median(wall),
            "peak_mb": max(r.peak_mb for r in runs)}


def _fmt(r: dict) -> str:
    return (f"CPU best {r['cpu_best']:.2f} s, median {r['cpu_median']:.2f} s; wall best "
            f"{r['wall_best']:.2f} s, median {r['wall_median']:.2f} s; peak {r['peak_mb']:.0f} MiB")


def write_scores_csv(path: Path, n: int = N_BIG, seed: int = 1) -> None:
    """``case_id, A, B`` with n rows of uniform scores at five decimals (about 2.3 MB)."""
    rng = np.random.default_rng(seed)
    a, b = rng.random(n), rng.random(n)
    with open(path, "w") as fh:
        fh.write("case_id,A,B\n")
        fh.writelines(f"c{i},{x:.5f},{y:.5f}\n" for i, (x, y) in enumerate(zip(a, b)))


def main() -> None:
    quick = "--quick" in sys.argv[1:]
    runs = 3 if quick else RUNS
    # 1. whole CLI process on the demo
    run_process(["-m", "core", "compare", str(DEMO), "--json"], cwd=ROOT)  # warm file cache
    cli = _runs(["-m", "core", "compare", str(DEMO), "--json"], runs)
    imports = _runs(["-c", IMPORTS_ONLY], runs)
    bare = _runs(["-c", "import numpy"], runs)
    print(f"1. CLI compare demo_golden.csv --json (31 cases): {_fmt(cli)}")
    print(f"   python -c 'import numpy': {_fmt(bare)}")
    print(f"   -> CLI = {cli['cpu_best'] / bare['cpu_best']:.2f}x import numpy (best), "
          f"{cli['cpu_median'] / bare['cpu_median']:.2f}x (median) (target <= 2.5x)")
    print(f"   imports only: {_fmt(imports)} -> import share "
          f"{imports['cpu_best'] / cli['cpu_best']:.0%} (best)")

    # 2. fused compare_paired vs paired_bootstrap, continuous n = 100,000
    rng = np.random.default_rng(0)
    a, b = rng.random(N_BIG), rng.random(N_BIG)
    compare_paired(a[:50], b[:50], resamples=100)  # load compiled kernels
    pb = best(lambda: paired_bootstrap(a, b, resamples=20_000, seed=0), clock=time.process_time)
    cp = best(lambda: compare_paired(a, b, resamples=20_000, seed=0), clock=time.process_time)
    print(f"2. continuous n=100,000, 20,000 resamples (CPU, best of 3): compare_paired "
          f"{cp:.2f} s, paired_bootstrap {pb:.2f} s -> {cp / pb:.2f}x (target <= 2x)")

    # 3. the whole CLI on a 2.5 MB CSV of the same kind
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "scores_100k.csv"
        write_scores_csv(path)
        mb = path.stat().st_size / 2**20
        big = _runs(["-m", "core", "compare", str(path), "--json"], 2 if quick else 3)
        ref = _runs(["-c", f"import numpy, pandas; pandas.read_csv({str(path)!r})"],
                    2 if quick else 3)
    print(f"3. CLI compare on a {mb:.1f} MB CSV ({N_BIG:,} cases, continuous): {_fmt(big)} "
          f"(targets <= 4 s CPU, <= 300 MiB)")
    print(f"   reference (import numpy, pandas + pandas.read_csv of the file): {_fmt(ref)} "
          f"-> CLI = {big['cpu_best'] / ref['cpu_best']:.1f}x (best)")


if __name__ == "__main__":
    main()
