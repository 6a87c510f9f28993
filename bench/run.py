"""Run every benchmark: ``python bench/run.py [name ...]`` (names like ``bootstrap``).

``bench/calibration.py`` (name ``calibration``) runs last: it is not a speed benchmark but the
coverage simulation whose table is kept in ``docs/calibration.md`` (a few minutes); before it,
``bench/best_set.py`` (name ``best_set``), the tied-for-best set's coverage simulation, table in
``docs/many_systems.md``, and ``bench/noninferiority_plan.py`` (name
``noninferiority_plan``), the planner's non-inferiority power in simulation, table in
``docs/noninferiority_plan.md``.

Each ``bench/bench_<name>.py`` has a ``main()`` that prints its figures as ratios against a
reference measured in the same run (these machines are shared and noisy: absolute seconds
are printed for context only). Nothing here is a test; nothing asserts.
"""
from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))


def main(argv: list[str]) -> int:
    wanted = set(argv)
    for path in (sorted(HERE.glob("bench_*.py")) + [HERE / "best_set.py"]
                 + [HERE / "noninferiority_plan.py"]
                 + [HERE / "calibration.py"]):
        name = path.stem.removeprefix("bench_")
        if wanted and name not in wanted:
            continue
        print(f"\n=== {name} ({path.name})", flush=True)
        spec = importlib.util.spec_from_file_location(path.stem, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        t0 = time.perf_counter()
        saved, sys.argv = sys.argv, [str(path)]  # each bench parses its own (empty) options
        try:
            mod.main()
        finally:
            sys.argv = saved
        print(f"--- {name}: {time.perf_counter() - t0:.1f} s wall", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
