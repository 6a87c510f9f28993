"""The README's demo commands warm, and their first use after ``warm-up`` (issue 38).
``python bench/bench_demo.py [--quick] [--before DIR] [--no-pages] [--only WORD,...]
[--warm-only]`` (``--only lists,trec``: the demos whose name holds one of the words;
``--warm-only``: part 1 alone, for a before/after of one path on a shared machine).

1. Every demo command (``DEMOS``: the demo files of the README, each command once) run as
   ``python -m core ...`` in a child process, CPU time (user + system, all threads) through
   ``bench.memory.run_process``, best and median of ``RUNS`` runs, against
   ``python -c "import numpy, pandas"`` measured in the same run. Targets: <= 1.0 s CPU on a
   quiet 2-core machine, or <= 2.5x the reference. With ``--before DIR`` (a checkout of an
   older commit, e.g. ``git archive <commit> | tar -x -C DIR``) the same commands run there
   too, interleaved with these (its own compiled kernels loaded, not compiled: it is run once
   first), so before and after share the machine's load.
2. First use: into an empty temporary ``NUMBA_CACHE_DIR``, ``python -m core warm-up``, then
   each command twice; the ratio first / second (target <= 1.3: nothing is compiled or
   cached on first use). The warm-up's own CPU is printed.
3. Pages (``--no-pages`` skips): each page of ``app.PAGE_ORDER`` rendered once by AppTest in a
   fresh process, twice, after the same warm-up: first / second (target <= 1.3).

The scifact command is not among the demos: it encodes queries with the dense model (torch),
which costs more than a second to import; ``bench/bench_scifact.py`` measures it.
"""
from __future__ import annotations

import ast
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.memory import run_process  # noqa: E402

RUNS = 5
DEMOS = {
    "compare golden": ["compare", "data/demo_golden.csv"],
    "compare lists": ["compare", "data/demo_lists.csv", "--format", "lists"],
    "compare trec": ["compare", "--format", "trec", "--qrels", "data/demo_trec/qrels.txt",
                     "data/demo_trec/bm25.run", "data/demo_trec/dense.run",
                     "data/demo_trec/hybrid.run"],
    "latency": ["latency", "data/demo_latency.csv"],
    "agreement": ["agreement", "data/demo_labels.csv"],
    "decide": ["decide", "--quality", "data/demo_switch_golden.csv", "--latency",
               "data/demo_switch_latency.csv", "--margin", "0.02", "--max-slowdown", "1.10"],
    "sample-size": ["sample-size", "--rate", "0.8", "--half-width", "0.05"],
    "beir-table": ["beir-table"],
}
REFERENCE = ["-c", "import numpy, pandas"]
PAGE = ("import sys; from streamlit.testing.v1 import AppTest; "
        "at = AppTest.from_file(sys.argv[1], default_timeout=300).run(); "
        "sys.exit(1 if at.exception else 0)")


def page_order() -> list[str]:
    """The page stems of ``app.PAGE_ORDER``, read without running app.py."""
    tree = ast.parse((ROOT / "app.py").read_text(encoding="utf-8"))
    node = next(n for n in tree.body if isinstance(n, ast.Assign)
                and getattr(n.targets[0], "id", "") == "PAGE_ORDER")
    return [stem for stem, _ in ast.literal_eval(node.value)]


def _env(root: Path, cache: Path | None = None) -> dict:
    env = {**os.environ, "PYTHONPATH": str(root), "STREAMLIT_LOGGER_LEVEL": "error"}
    if cache is not None:
        env["NUMBA_CACHE_DIR"] = str(cache)
    return env


def _cpu(args: list[str], root: Path, cache: Path | None = None) -> float:
    return run_process(args, cwd=root, env=_env(root, cache)).cpu


def _summary(xs: list[float]) -> str:
    return f"best {min(xs):.2f} s, median {statistics.median(xs):.2f} s"


def warm(runs: int, before: Path | None, demos: dict = DEMOS) -> None:
    roots = {"now": ROOT} | ({"before": before} if before else {})
    for name, root in roots.items():          # load (or compile) each checkout's kernels once
        for args in demos.values():
            _cpu(["-m", "core", *args], root)
    ref: list[float] = []
    cpu = {(w, d): [] for w in roots for d in demos}
    for _ in range(runs):                     # interleaved: before and after share the load
        ref.append(_cpu(REFERENCE, ROOT))
        for d, args in demos.items():
            for w, root in roots.items():
                cpu[w, d].append(_cpu(["-m", "core", *args], root))
    r = min(ref)
    print(f"1. warm, CPU of {runs} runs each; reference python -c 'import numpy, pandas': "
          f"{_summary(ref)}")
    for d in demos:
        line = f"   {d:15s}"
        for w in roots:
            xs = cpu[w, d]
            line += f"  {w}: {_summary(xs)} = {min(xs) / r:.2f}x"
        ok = min(cpu['now', d]) <= 1.0 or min(cpu['now', d]) / r <= 2.5
        print(line + ("" if ok else "  (over both targets)"))
    print(f"   load average at the end: {os.getloadavg()[0]:.1f}")


def first_use(pages: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "numba"
        t = time.perf_counter()
        c = _cpu(["-m", "core", "warm-up"], ROOT, cache)
        print(f"2. warm-up into an empty cache: {c:.1f} s CPU (with the child that "
              f"compiles), {time.perf_counter() - t:.0f} s wall")
        noop = _cpu(["-m", "core", "warm-up"], ROOT, cache)
        print(f"   warm-up again (nothing to do): {noop:.2f} s CPU")
        for d, args in DEMOS.items():
            first = _cpu(["-m", "core", *args], ROOT, cache)
            second = _cpu(["-m", "core", *args], ROOT, cache)
            print(f"   {d:15s} first {first:.2f} s, second {second:.2f} s -> "
                  f"{first / second:.2f} (target <= 1.3)")
        if not pages:
            return
        print("3. pages, first render (AppTest) in a fresh process after warm-up, twice:")
        for stem in page_order():
            path = ROOT / "pages" / f"{stem}.py"
            if not path.exists():
                continue
            try:
                first = _cpu(["-c", PAGE, str(path)], ROOT, cache)
                second = _cpu(["-c", PAGE, str(path)], ROOT, cache)
            except subprocess.CalledProcessError:
                print(f"   {stem:15s} did not render (see its page test)")
                continue
            print(f"   {stem:15s} first {first:.2f} s, second {second:.2f} s -> "
                  f"{first / second:.2f} (target <= 1.3)")


def main() -> None:
    argv = sys.argv[1:]
    quick = "--quick" in argv
    before = Path(argv[argv.index("--before") + 1]).resolve() if "--before" in argv else None
    words = argv[argv.index("--only") + 1].split(",") if "--only" in argv else [""]
    warm(3 if quick else RUNS, before,
         {d: a for d, a in DEMOS.items() if any(w in d for w in words)})
    if "--warm-only" not in argv:
        first_use("--no-pages" not in argv)


if __name__ == "__main__":
    main()
