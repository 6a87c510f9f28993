"""The cost of drawing report charts in a contained worker (issue 30).

vl-convert aborts the process on some inputs, so ``core.views.report.chart_svg`` renders in
one persistent worker process (``core.views.svg_worker``). Measured in the same run:

1. Per chart: the same Vega-Lite spec (a golden-page-sized bar chart) through the worker vs
   ``vl_convert.vegalite_to_svg`` in this process, after both have drawn one chart, interleaved, medians of 10 (the
   worker's start and vl-convert's first-chart warm-up are printed apart).
   Target: the ratio within a few per cent of 1 (the pipe carries a few kB each way).
2. The worker's start: the first chart through a fresh worker vs vl-convert's first chart
   in-process (both pay V8's warm-up; the worker also starts Python).
3. A crash: the chart that aborts vl-convert (an ESC in a label) costs that chart only; the
   next chart starts a new worker. Printed: the time of the crashed chart and of the next one.
4. Memory: the worker's peak RSS (``VmHWM``), which the server no longer holds.
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.views.svg_worker import ChartCrash, render_svg, worker_pid, workers_started  # noqa: E402

REPEATS = 10


def _spec(label: str = "B") -> dict:
    values = [{"method": "A" if i % 2 else label, "case": f"c{i}", "score": (i * 37 % 100) / 100}
              for i in range(400)]
    return {"data": {"values": values}, "mark": "bar", "width": 640,
            "encoding": {"x": {"field": "method", "type": "nominal"},
                         "y": {"aggregate": "mean", "field": "score", "type": "quantitative"}}}


def _each(fn, n: int = REPEATS) -> float:
    t = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t) / n


def _worker_peak_mb() -> float:
    pid = worker_pid()
    if pid is None:
        return float("nan")
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    import vl_convert

    spec = _spec()
    t = time.perf_counter()
    vl_convert.vegalite_to_svg(spec)
    first_in = time.perf_counter() - t
    t = time.perf_counter()
    render_svg(spec)
    first_worker = time.perf_counter() - t
    pairs = [(_each(lambda: vl_convert.vegalite_to_svg(spec), 1),
              _each(lambda: render_svg(spec), 1)) for _ in range(REPEATS)]
    in_process = statistics.median(p[0] for p in pairs)  # interleaved: a shared, noisy machine
    worker = statistics.median(p[1] for p in pairs)
    print(f"1. per chart: worker {worker * 1000:.1f} ms, in-process {in_process * 1000:.1f} ms,"
          f" ratio {worker / in_process:.3f}")
    print(f"2. first chart: fresh worker {first_worker:.2f} s, in-process {first_in:.2f} s,"
          f" ratio {first_worker / first_in:.2f}")
    print(f"4. worker peak RSS {_worker_peak_mb():.0f} MB")
    t = time.perf_counter()
    try:
        render_svg(_spec("new\x1b[31mB"))
        crashed = "no crash"
    except ChartCrash as exc:
        crashed = str(exc)
    crash = time.perf_counter() - t
    t = time.perf_counter()
    render_svg(spec)
    after = time.perf_counter() - t
    print(f"3. crashing chart {crash:.2f} s ({crashed}); next chart {after:.2f} s;"
          f" workers started {workers_started()}")


if __name__ == "__main__":
    main()
