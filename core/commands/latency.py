"""``python -m core latency FILE``: is B really faster than A? Per-query timings of two
methods, paired by query (the same ``core.latency.compare_latency`` as the Latency page).

JSON keys: ``methods{<name>: {median, median_ci, p95, p95_ci (null where withheld),
p95_ci_withheld, p95_ci_min_queries, p95_ci_min_timings, n_queries, n_runs}}``,
``ratio{median_ratio, ci_low, ci_high, geo_mean_ratio, geo_ci_low, geo_ci_high,
randomization_p, ...}``, ``warnings[]`` (``code``, ``message`` and the evidence), ``verdict``
(``a_faster | b_faster | no_difference``, or ``units_unclear`` while the unit check withholds
it: state the units with ``--units``), plus ``units``, ``scale`` (unit suspicions left),
``pair_order`` (who ran first within each query), ``warmup``, ``alternative`` (the verdict with
the other warm-up choice) and ``sample_size``.
"""
from __future__ import annotations

import gc
import sys
from contextlib import contextmanager
from pathlib import Path

from core.commands._common import add_stat_args, print_json, read_bytes
from core.errors import InputError


@contextmanager
def cycles_collected_after(*, freeze: bool = False):
    """Python's cyclic garbage collector paused for the block (reference counting frees
    everything else as usual), then restored. Reading a 100,000-row log and loading numba's
    kernels allocate millions of objects, and every 700 allocations start a collection
    walking the young ones, every so often all of them: 0.14 s of a 2 s run (issue 25).

    With ``freeze`` the objects still alive after the block (numba's registries, the modules
    imported, the results) are moved to the collector's permanent generation
    (``gc.freeze``) before it is turned back on, so neither the next collection nor the ones
    at interpreter exit walk them again: another 0.15-0.2 s, for a process about to end.
    Cycles among them are then never collected: only for ``python -m core`` itself."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if freeze:
            gc.freeze()
        if was:
            gc.enable()


def started_as_cli() -> bool:
    """True when this process is ``python -m core ...`` (``sys.argv[0]`` is this package's
    ``__main__.py``), False for callers running the command in-process (tests)."""
    first = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    return (first is not None and first.name == "__main__.py"
            and first.resolve().parent == Path(__file__).resolve().parents[1])


# numpy, pandas, numba and scipy are imported here: paused and, in the CLI's own process,
# frozen like the command's own objects (cycles_collected_after)
with cycles_collected_after(freeze=started_as_cli()):
    from core.latency import compare_latency
    from core.latency_log import load_timings
    from core.latency_resample import DEFAULT_QUANTILE_RESAMPLES
    from core.latency_units import parse_units
    from core.views.latency import comparison_text

NAME = "latency"
HELP = "compare the latency of two methods from a timing log (paired by query, ratio B/A)"


def register(p) -> None:
    p.add_argument("file", metavar="FILE",
                   help="timing log: long query_id, method, latency_ms[, run, cache, timestamp] "
                        "or wide query_id, <method>, <method>, ... (CSV/TSV/XLSX)")
    p.add_argument("--a", help="method A, the baseline (default: first method in the file)")
    p.add_argument("--b", help="method B, the new one (default: second method in the file)")
    p.add_argument("--drop-warmup", type=int, default=0, metavar="K",
                   help="leave out the first K runs of every query and method (default 0)")
    p.add_argument("--quantile-resamples", type=int, default=DEFAULT_QUANTILE_RESAMPLES,
                   help="nested bootstrap resamples for each method's median and p95 "
                        f"(default {DEFAULT_QUANTILE_RESAMPLES:,})")
    p.add_argument("--units", metavar="UNITS",
                   help="the unit of each method's timings, converted to ms: METHOD=UNIT pairs "
                        "such as a=ms,b=s (a and b are the methods compared) or one unit for "
                        "all (ns, us, ms, s). Stating them also settles the unit check, which "
                        "otherwise withholds the verdict when medians differ by more than 50x "
                        "or a column holds two scales about 1,000x apart")
    add_stat_args(p)


def run(args) -> int:
    with cycles_collected_after(freeze=started_as_cli()):
        return _run(args)


def _run(args) -> int:
    log = load_timings(read_bytes(args.file), file=args.file)
    if len(log.methods) < 2:
        raise InputError("need_two_methods", file=args.file, methods=", ".join(log.methods))
    a = args.a if args.a is not None else log.methods[0]
    b = args.b if args.b is not None else next(m for m in log.methods if m != a)
    units = None if args.units is None else parse_units(args.units, log.methods, a=a, b=b)
    res = compare_latency(log, a, b, resamples=args.resamples,
                          quantile_resamples=args.quantile_resamples,
                          confidence=args.confidence, seed=args.seed,
                          drop_warmup=args.drop_warmup, units=units)
    if args.json:
        print_json(res.to_dict())
    else:
        print(comparison_text(res))
    return 0
