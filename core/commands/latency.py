"""``python -m core latency FILE``: is B really faster than A? Per-query timings of two
methods, paired by query (the same ``core.latency.compare.compare_latency`` as the Latency page).

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

from core.commands._common import add_stat_args, read_bytes
from core.serialize import print_json
from core.errors import InputError
from core.latency import DEFAULT_QUANTILE_RESAMPLES, compare_latency, load_timings, parse_units
from core.views import comparison_text

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
