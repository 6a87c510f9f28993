"""``python -m core compare FILE...``: two methods paired by case id, and three or more
systems: the tied-for-best set with each system's rank interval (``core.best_set``) first, then
pairwise tests adjusted by Holm or, with ``--correction bh``, Benjamini–Hochberg.

Formats:

- ``golden`` (default): one golden-case file (CSV/TSV/XLSX), as before.
- ``lists``: one retrieval-list CSV (``case_id, query, gold_ids, <method> ...``); ``--measure``
  picks the metric compared (``ndcg``, ``hit``, ``recall``, ``p``, ``mrr``,
  ``context_precision``, ``context_recall``, ``context_precision_ranked``) at ``--k``.
- ``trec``: one or more run files and ``--qrels``; ``--measure`` is an ir_measures string.

The difference is always B - A (new minus baseline): the text names it "B − A" with B's and
A's names in that order; with ``--baseline`` the baseline is A. JSON: the golden-case contract
for A and B (``n_cases, methods, difference, resolution, excluded, verdict``; ``difference``
holds ``b_minus_a`` and ``ci_low``/``ci_high`` of B - A), plus, for three or more systems,
``best_set`` (``core.best_set.BestSet.to_dict``: ``best``, ``behind``, ``ranks`` with
``rank_low``/``rank_high``) and ``pairs`` (``p_holm`` and ``p_adjusted``, the chosen
correction's; ``multiple.adjustment`` names it), ``metrics``
(per-method means of every list metric) for lists, and ``queries`` (missing/unjudged) for TREC.
With ``--margin`` (``core.margin``; A vs B only, every format) a ``margin`` block holds the
margin's answer (``MarginResult.to_dict``); without it the output is unchanged.
"""
from __future__ import annotations

from core.commands._common import (add_margin_arg, add_stat_args, margin_of, print_json,
                                  read_bytes)
from core.errors import InputError
from core.golden import compare_golden, load_golden
from core.views.golden import compare_text

NAME = "compare"
HELP = ("compare methods: a golden-case file, a retrieval-list CSV (--format lists) or TREC "
        "runs with qrels (--format trec)")
FORMATS = ("golden", "lists", "trec")
CORRECTIONS = ("holm", "bh")  # core.multi.CORRECTIONS (not imported: start-up time)


def register(p) -> None:
    p.add_argument("files", nargs="+", metavar="FILE",
                   help="golden: one results file (wide case_id, A, B, ... or long case_id, "
                        "method, score); lists: one retrieval-list CSV; trec: run file(s)")
    p.add_argument("--format", choices=FORMATS, default="golden",
                   help="input format (default golden)")
    p.add_argument("--qrels", help="TREC qrels file (qid 0 docid rel), for --format trec")
    p.add_argument("--measure", help="any spelling of the metric registry (ndcg@10, RR@10, "
                                     "Success@10, R@100, ...); trec: also any ir_measures "
                                     "name (default nDCG@10); lists: optionally with @k "
                                     "(default ndcg at --k)")
    p.add_argument("--k", type=int, default=10, help="lists: cutoff k (default 10)")
    p.add_argument("--match", choices=("auto", "ids", "text"), default="auto",
                   help="lists: cells hold ids or passages (default: auto-detect)")
    p.add_argument("--baseline", help="with three or more systems: compare each to this one "
                                      "instead of all pairs")
    p.add_argument("--a", help="method A, the baseline (default: first method in the file)")
    p.add_argument("--b", help="method B, the new one; the difference is B - A "
                               "(default: second method in the file)")
    p.add_argument("--correction", choices=CORRECTIONS, default="holm",
                   help="with three or more systems: adjust the pairs' p-values by holm "
                        "(default; the chance of even one false 'different' stays below "
                        "alpha) or bh, Benjamini-Hochberg (the expected share of false ones "
                        "among the pairs called different stays below alpha; more power with "
                        "many systems)")
    add_stat_args(p, interval=True)
    add_margin_arg(p)


def _stat_kw(args) -> dict:
    return dict(resamples=args.resamples, confidence=args.confidence, seed=args.seed,
                interval=args.interval)


def _golden(args):
    if len(args.files) != 1:
        raise InputError("systems.err_one_file", format="golden", n=len(args.files))
    gs = load_golden(read_bytes(args.files[0]), file=args.files[0])
    return gs, {}


def _lists(args):
    from core.lists import load_lists, metric_key, parse_metric, score_lists

    if len(args.files) != 1:
        raise InputError("systems.err_one_file", format="lists", n=len(args.files))
    name, k = parse_metric(args.measure or "ndcg", args.k)
    ls = load_lists(read_bytes(args.files[0]), file=args.files[0], kind=args.match)
    scores = score_lists(ls, k)
    key = metric_key(name, k)
    extra = {"format": "lists", "measure": key, "k": k, "match": ls.kind,
             "metrics": scores.to_dict(), "undefined": scores.undefined(),
             "no_reference": list(ls.no_reference),
             "empty_lists": {m: list(v) for m, v in ls.empty_cells.items()}}
    return scores.golden(key), extra


def _trec(args):
    from core.trec import read_qrels, read_run, score_runs

    if not args.qrels:
        raise InputError("systems.err_need_qrels")
    measure = args.measure or "nDCG@10"
    qrels = read_qrels(read_bytes(args.qrels), args.qrels)
    runs = [read_run(read_bytes(f), f) for f in args.files]
    ts = score_runs(runs, qrels, [measure], qrels_file=args.qrels)
    key = ts.measures[0]
    gs = ts.golden(key)
    extra = {"format": "trec", "measure": key, "qrels": args.qrels,
             "runs": {r.name: r.file for r in ts.runs},
             "metrics": {key: ts.means()[key].to_dict()}, "queries": ts.report()}
    return gs, extra


def run(args) -> int:
    gs, extra = {"golden": _golden, "lists": _lists, "trec": _trec}[args.format](args)
    a, b = args.a, args.b
    if args.baseline is not None and a is None and b is None and len(gs.methods) >= 2:
        others = [m for m in gs.methods if m != args.baseline]
        a, b = args.baseline, (others[0] if others else None)  # B - A = other - baseline
    result = compare_golden(gs, a, b, **_stat_kw(args))
    margin = margin_of(result, args.margin)
    many = best = None
    if len(gs.methods) >= 3:
        import sys

        from core.best_set import best_set
        from core.i18n import t
        from core.multi import compare_many, estimate_cost, plan_mode

        wanted = "baseline" if args.baseline else "all"
        mode, cost = plan_mode(len(gs.methods), len(gs.scores), args.resamples, wanted)
        if mode != wanted:  # all pairs would not fit the limits: say so, then do less
            full = estimate_cost(len(gs.methods), len(gs.scores), args.resamples, wanted)
            sys.stderr.write("note: " + t("systems.many_fallback_cli", "en", **full.params(),
                                          baseline=gs.methods[0]) + "\n")
        many = compare_many(gs.scores, mode=mode, baseline=args.baseline,
                            correction=args.correction, **_stat_kw(args))
        all_pairs = estimate_cost(len(gs.methods), len(gs.scores), args.resamples, "all")
        if all_pairs.fits:
            best = best_set(gs.scores, resamples=args.resamples, confidence=args.confidence,
                            seed=args.seed)
        else:  # cost before work: the ranking needs every pair
            sys.stderr.write("note: " + t("systems.best_too_much", "en", **all_pairs.params())
                             + "\n")
    if args.json:
        out = result.to_dict()
        out.update(extra)
        if margin is not None:
            out["margin"] = margin.to_dict()
        if best is not None:
            out["best_set"] = best.to_dict()
        if many is not None:
            out["multiple"] = {k: v for k, v in many.to_dict().items() if k != "pairs"}
            out["pairs"] = [{k: p[k] for k in ("a", "b", "b_minus_a", "ci_low", "ci_high", "p",
                                               "p_holm", "p_adjusted", "verdict", "n",
                                               "cohens_dz")}
                            for p in many.to_dict()["pairs"]]
        print_json(out)
        return 0
    print(compare_text(result, extra, many, args.format, margin=margin, best=best))
    return 0
