"""``python -m core decide --quality FILE --latency LOG --margin 0.02 --max-slowdown 1.10``:
one decision from quality and speed (``core.switch.decide_files``, the same as the Switch?
page).

The quality file is a golden-case table (default) or, with ``--format lists``, a
retrieval-list CSV scored per case by ``--measure`` at ``--k`` (as ``compare --format
lists``). A and B: ``--a``/``--b`` when given, else the first two methods of the quality file (its
column order, A first); both must be named the same in the timing log (a name missing from
either file is refused with both files' method lists). ``--margin`` is read as on
``compare``: ``0.02`` or ``2pp`` for 0/1 outcomes (2 %p), a plain number on the score's scale
for scores.

Exit codes: 0 switch, 1 do not switch, 3 inconclusive, 2 bad input. JSON keys: ``decision``
(``switch | stay | inconclusive``), ``exit_code``, ``a``, ``b``, ``margin``, ``max_slowdown``,
``confidence``, ``kind``, ``conditions{quality, speed}`` (``state`` holds/fails/unsure,
``holds``, ``bound``, ``limit``, ``gap``), ``quality`` (the margin result, as ``compare
--margin``), ``speed{geo_mean_ratio, ci_low, ci_high, n_queries}``, ``n_cases``,
``next_step`` (cases needed to show non-inferiority, with the planner's ``url_params``, or
null) and ``sources``.
"""
from __future__ import annotations

from core.commands._common import add_stat_args, print_json, read_bytes
from core.latency_resample import DEFAULT_QUANTILE_RESAMPLES
from core.switch import DEFAULT_MAX_SLOWDOWN, QUALITY_FORMATS, decide_files
from core.views.switch import decision_text

NAME = "decide"
HELP = ("switch from A to B? one decision from a golden-case file (quality, with a margin) "
        "and a timing log (speed); exit 0 switch, 1 do not switch, 3 inconclusive")


def register(p) -> None:
    p.add_argument("--quality", required=True, metavar="FILE",
                   help="golden-case file (CSV/TSV/XLSX): case_id, then one column per method")
    p.add_argument("--format", choices=QUALITY_FORMATS, default="golden",
                   help="quality file format: golden (default; case_id + one column per "
                        "method) or lists (case_id, query, gold_ids + one column of ranked "
                        "ids per method, scored per case by --measure at --k)")
    p.add_argument("--measure", help="lists: the metric compared, any registry spelling "
                                     "(default ndcg at --k)")
    p.add_argument("--k", type=int, default=10, help="lists: cutoff k (default 10)")
    p.add_argument("--latency", required=True, metavar="LOG",
                   help="timing log (CSV/TSV/XLSX), long or wide, with the same method names")
    p.add_argument("--margin", required=True,
                   help="largest loss of quality accepted: 0.02 or 2pp = 2 %%p for 0/1 "
                        "outcomes; a number on the score's scale for scores")
    p.add_argument("--max-slowdown", type=float, default=DEFAULT_MAX_SLOWDOWN,
                   help="largest time ratio B/A allowed (default "
                        f"{DEFAULT_MAX_SLOWDOWN:.2f}: B may take 10%% more time)")
    p.add_argument("--a", help="method A, the baseline (default: first method of the quality "
                               "file)")
    p.add_argument("--b", help="method B, the candidate (default: second method of the "
                               "quality file)")
    p.add_argument("--drop-warmup", type=int, default=0, metavar="K",
                   help="leave out the first K runs of every query and method (default 0)")
    p.add_argument("--quantile-resamples", type=int, default=DEFAULT_QUANTILE_RESAMPLES,
                   help="nested bootstrap resamples of each method's median and p95 "
                        f"(default {DEFAULT_QUANTILE_RESAMPLES:,})")
    add_stat_args(p, interval=True)


def run(args) -> int:
    dec = decide_files(read_bytes(args.quality), args.quality, read_bytes(args.latency),
                       args.latency, margin=args.margin, max_slowdown=args.max_slowdown,
                       a=args.a, b=args.b, confidence=args.confidence,
                       resamples=args.resamples, seed=args.seed, interval=args.interval,
                       drop_warmup=args.drop_warmup,
                       quantile_resamples=args.quantile_resamples,
                       quality_format=args.format, measure=args.measure, k=args.k)
    if args.json:
        print_json(dec.to_dict())
    else:
        print(decision_text(dec))
    return dec.exit_code
