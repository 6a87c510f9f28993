"""Run every benchmark: ``python bench/run.py [--quick] [name ...]`` (names like
``bootstrap``; ``--quick`` is handed to each bench).

``bench/calibration.py`` (name ``calibration``) runs last: it is not a speed benchmark but the
coverage simulation whose table is kept in ``docs/calibration.md`` (a few minutes); before it,
``bench/best_set.py`` (name ``best_set``), the tied-for-best set's coverage simulation, table in
``docs/many_systems.md``, ``bench/best_harm.py`` (name ``best_harm``, issue 35), one-sided MCB
against the all-pairs set (``docs/many_systems.md``) and the hurt share, ``--max-harm`` and
TRisk (``docs/harm.md``), ``bench/query_groups.py`` (name ``query_groups``), the per-group
verdicts' family-wise error and the interaction test in simulation, table in
``docs/query_groups.md``, and ``bench/noninferiority_plan.py`` (name
``noninferiority_plan``), the planner's non-inferiority power in simulation, table in
``docs/noninferiority_plan.md``, ``bench/ppi.py`` (name ``ppi``), the cheap labels'
prediction-powered intervals (coverage and width, ``docs/cheap_labels.md``), ``bench/ppi_binary.py``
(name ``ppi_binary``), what drives the 0/1 misses (``docs/cheap_labels_binary.md``),
``bench/ppi_binary_mover.py`` (name ``ppi_binary_mover``), the 0/1 rule rerun against the
pseudo-case rule on the same sets (section 4 of that doc),
``bench/ppi_shared.py`` (name ``ppi_shared``), B − A when the cheap labels' errors follow the
query (``docs/cheap_labels_shared.md``), and
``bench/margin.py`` (name ``margin``), the margin
verdict's error rate at B − A = −δ and its power beside a naive "cannot tell → switch" rule,
table in ``docs/margin.md``, and ``bench/method_intervals.py`` (name ``method_intervals``), the
coverage of each method's own interval of its mean score, table (f) in ``docs/calibration.md``,
and ``bench/sequential.py`` (name ``sequential``), the sequential mode's any-look false
verdicts, width and power beside the fixed-n rules, table in ``docs/sequential.md``.

Each ``bench/bench_<name>.py`` has a ``main()`` that prints its figures as ratios against a
reference measured in the same run (these machines are shared and noisy: absolute seconds
are printed for context only). Nothing here is a test; nothing asserts.

After each bench the line ``--- name: ...`` gives its wall time, the CPU time of this process
(all threads) and the peak RSS of this process *during that bench* (``VmHWM`` reset before it,
``bench.memory``); benches that start children report the children's own peaks themselves.
"""
from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from bench.memory import peak_mb, reset_peak  # noqa: E402


def main(argv: list[str]) -> int:
    flags = [a for a in argv if a.startswith("--")]
    wanted = {a for a in argv if not a.startswith("--")}
    for path in (sorted(HERE.glob("bench_*.py")) + [HERE / "best_set.py"]
                 + [HERE / "best_harm.py"]
                 + [HERE / "query_groups.py"]
                 + [HERE / "noninferiority_plan.py"] + [HERE / "margin.py"]
                 + [HERE / "ppi.py"] + [HERE / "ppi_binary.py"]
                 + [HERE / "ppi_binary_mover.py"] + [HERE / "ppi_shared.py"]
                 + [HERE / "method_intervals.py"] + [HERE / "sequential.py"]
                 + [HERE / "calibration.py"]):
        name = path.stem.removeprefix("bench_")
        if wanted and name not in wanted:
            continue
        print(f"\n=== {name} ({path.name})", flush=True)
        spec = importlib.util.spec_from_file_location(path.stem, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        reset = reset_peak()
        t0, c0 = time.perf_counter(), time.process_time()
        saved, sys.argv = sys.argv, [str(path), *flags]  # each bench parses its own options
        try:
            mod.main()
        finally:
            sys.argv = saved
        peak = f"peak RSS {peak_mb():.0f} MB" + ("" if reset else " (whole run: reset refused)")
        print(f"--- {name}: {time.perf_counter() - t0:.1f} s wall, "
              f"{time.process_time() - c0:.1f} s CPU (this process), {peak}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
