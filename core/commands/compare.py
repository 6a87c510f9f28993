"""``python -m core compare FILE...``: two methods paired by case id, and three or more
systems: the tied-for-best set with each system's rank interval (``core.paired.best``) first, then
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
``best_set`` (``core.paired.best.BestSet.to_dict``: ``best``, ``behind``, ``ranks`` with
``rank_low``/``rank_high``) and ``pairs`` (``p_holm`` and ``p_adjusted``, the chosen
correction's; ``multiple.adjustment`` names it), ``metrics``
(per-method means of every list metric) for lists, and ``queries`` (missing/unjudged) for TREC.
With ``--margin`` (``core.paired.margin``; A vs B only, every format) a ``margin`` block holds the
margin's answer (``MarginResult.to_dict``); without it the output is unchanged. With ``--harm``
(or ``--harm-delta``; issue 35, ``core.paired.harm``) a ``harm`` block: ``delta``,
``hurt_share``, ``hurt_ci``, ``helped_share``, ``trisk``, ``trisk_p``, ``alpha`` (and the counts
and ``helped_ci``) of A vs B. ``--best-method`` (mcb, the default, or all-pairs) names how the
tied-for-best set is read; ``best_set.method`` says which.
With ``--cheap FILE`` (golden) or ``--cheap-qrels FILE`` (trec), the same methods' scores under
cheap labels on more cases sharpen A vs B by prediction-powered inference
(``core.inputs.cheap``, issue 34): ``difference``, A's and B's ``methods`` entries and
``verdict`` hold the PPI figures, ``ppi`` the rest (``CheapComparison.apply``); the text starts
with the PPI lines (``core.views.cheap``). Several systems' pairs stay gold-only.
"""
from __future__ import annotations

import sys
from pathlib import Path

from core.commands._common import (add_harm_args, add_margin_arg, add_stat_args, print_json,
                                   read_bytes)
from core.errors import InputError
from core.i18n import t
from core.inputs import (Clustered, by_group, cluster_hint, clusters_of, compare_golden,
                         compare_in_clusters,
                         load_clustered, load_golden, read_cluster_labels, read_group_labels,
                         runs_block)
from core.serialize import to_csv_bytes
from core.views import compare_summary, compare_text

NAME = "compare"
HELP = ("compare methods: a golden-case file, a retrieval-list CSV (--format lists) or TREC "
        "runs with qrels (--format trec)")
FORMATS = ("golden", "lists", "trec")
CORRECTIONS = ("holm", "bh")  # core.paired.multi.CORRECTIONS (not imported: start-up time)
BEST_METHODS = ("mcb", "all-pairs")  # core.paired.best.BEST_METHODS (not imported: pandas)


def register(p) -> None:
    p.add_argument("files", nargs="+", metavar="FILE",
                   help="golden: one results file (wide case_id, A, B, ... or long case_id, "
                        "method, score); lists: one retrieval-list CSV; trec: one or more "
                        "run files")
    p.add_argument("--format", choices=FORMATS, default="golden",
                   help="input format (default golden)")
    p.add_argument("--qrels", help="TREC qrels file (qid 0 docid rel), for --format trec")
    p.add_argument("--cheap", metavar="FILE",
                   help="golden: the same methods' scores computed with cheap labels (crowd, "
                        "heuristic, LLM judge) on more cases, covering the gold ones; A vs B "
                        "then gets prediction-powered intervals (PPI++)")
    p.add_argument("--cheap-qrels", metavar="FILE",
                   help="trec: cheap labels' qrels on more queries; each run is scored under "
                        "--qrels (gold) and these, and A vs B gets prediction-powered "
                        "intervals (PPI++)")
    p.add_argument("--measure", help="any spelling of the metric registry (ndcg@10, RR@10, "
                                     "Success@10, R@100, ...); trec: also any ir_measures "
                                     "name (default nDCG@10); lists: optionally with @k "
                                     "(default ndcg at --k)")
    p.add_argument("--k", type=int, default=10, help="lists: cutoff k (default 10)")
    p.add_argument("--match", choices=("auto", "ids", "text"), default="auto",
                   help="lists: cells hold ids or passages (default: auto-detect)")
    p.add_argument("--baseline", help="with three or more systems: compare each to this one "
                                      "instead of all pairs")
    p.add_argument("--groups", metavar="FILE",
                   help="query groups: a qid,group file (CSV/TSV/XLSX) giving B - A per group "
                        "(trec; golden and lists files may carry a 'group' column instead, "
                        "which this file replaces)")
    p.add_argument("--judged-k", type=int, default=10, metavar="K",
                   help="lists and trec: Judged@K and the metric with unjudged documents "
                        "counted non-relevant / relevant, on the top K (default 10)")
    p.add_argument("--unjudged-csv", metavar="FILE",
                   help="lists and trec: write the pooled unjudged documents (every method's "
                        "top --judged-k without a judgement, deduplicated) to FILE to label "
                        "next")
    p.add_argument("--a", help="method A, the baseline (default: first method in the file)")
    p.add_argument("--b", help="method B, the new one; the difference is B - A "
                               "(default: second method in the file)")
    p.add_argument("--correction", choices=CORRECTIONS, default="holm",
                   help="with three or more systems: adjust the pairs' p-values by holm "
                        "(default; the chance of even one false 'different' stays below "
                        "alpha) or bh, Benjamini-Hochberg (the expected share of false ones "
                        "among the pairs called different stays below alpha; more power with "
                        "many systems)")
    p.add_argument("--cluster", metavar="NAME",
                   help="golden and lists: the column naming each case's document (cluster); "
                        "found by itself when named cluster, document, doc_id, source, 문서 "
                        "or 클러스터. Every interval and test then treats the cluster as the "
                        "unit")
    p.add_argument("--clusters", metavar="FILE",
                   help="a qid,cluster file (CSV/TSV/XLSX) giving each case's cluster (trec; "
                        "replaces a file's cluster column)")
    p.add_argument("--sequential", action="store_true",
                   help="the set grows and is looked at again and again (a CI gate on every "
                        "merge, a page opened every sprint): B - A and each method get a "
                        "confidence sequence valid at every n (betting, Waudby-Smith & Ramdas "
                        "2024) and the verdict its e-process test; cases in file order or by a "
                        "date/added column; A vs B, values in [0, 1]")
    p.add_argument("--best-method", choices=BEST_METHODS, default="mcb",
                   help="with three or more systems: how the tied-for-best set is read: mcb "
                        "(default; Hsu's one-sided multiple comparisons with the best) or "
                        "all-pairs (every pair's simultaneous interval; larger sets)")
    add_harm_args(p)
    add_stat_args(p, interval=True)
    add_margin_arg(p)


def _stat_kw(args) -> dict:
    return dict(resamples=args.resamples, confidence=args.confidence, seed=args.seed,
                interval=args.interval)


def _golden(args):
    if len(args.files) != 1:
        raise InputError("systems.err_one_file", format="golden", n=len(args.files))
    if args.sequential:   # the date/added column gives the order, and is not a method
        from core.inputs import load_arriving   # lazy: only in the sequential mode
        cl, args.arrival = load_arriving(read_bytes(args.files[0]), file=args.files[0],
                                         cluster=args.cluster)
    else:
        cl = load_clustered(read_bytes(args.files[0]), file=args.files[0],
                            cluster=args.cluster)
    args.cluster_info = cl
    cheap = load_golden(read_bytes(args.cheap), file=args.cheap) if args.cheap else None
    return cl.golden, {}, None, cheap


def _lists(args):
    # lazy: pandas, and only for --format lists (every command module is imported at start-up)
    from core.inputs import load_lists_clustered, metric_key, parse_metric, score_lists

    if len(args.files) != 1:
        raise InputError("systems.err_one_file", format="lists", n=len(args.files))
    name, k = parse_metric(args.measure or "ndcg", args.k)
    ls, labels, col = load_lists_clustered(read_bytes(args.files[0]), file=args.files[0],
                                           kind=args.match, cluster=args.cluster)
    scores = score_lists(ls, k)
    key = metric_key(name, k)
    extra = {"format": "lists", "measure": key, "k": k, "match": ls.kind,
             "metrics": scores.to_dict(), "undefined": scores.undefined(),
             "no_reference": list(ls.no_reference),
             "empty_lists": {m: list(v) for m, v in ls.empty_cells.items()}}

    def judged(a, b, **stat):
        from core.inputs import lists_bounds  # lazy: pandas, only with a judged pool
        return None if ls.kind != "ids" else lists_bounds(scores, key, a, b,
                                                         k=args.judged_k, **stat)
    gs = scores.golden(key)
    args.cluster_info = Clustered(gs, labels, col)
    return gs, extra, judged, None


def _trec(args):
    # lazy: ir_measures and pandas, only for --format trec (every command module is imported at start-up)
    from core.inputs import read_qrels, read_run, score_runs

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

    def judged(a, b, **stat):
        from core.inputs import trec_bounds  # lazy: pandas, only with a judged pool
        return trec_bounds(ts, a, b, k=args.judged_k, **stat)
    cheap = None
    if args.cheap_qrels:
        cheap_qrels = read_qrels(read_bytes(args.cheap_qrels), args.cheap_qrels)
        cheap = score_runs(runs, cheap_qrels, [measure],
                           qrels_file=args.cheap_qrels).golden(key)
        extra["cheap_qrels"] = args.cheap_qrels
    return gs, extra, judged, cheap


def _groups(args, result):
    """B − A per query group (``core.inputs.groups.by_group``) when the file has a group column or
    ``--groups`` names a side file; else None."""
    labels = read_group_labels(read_bytes(args.groups), args.groups) if args.groups else None
    return by_group(result, labels, args.groups, clusters=getattr(args, "cluster_labels", None),
                    **_stat_kw(args))


def _clusters(args, result):
    """(the cluster comparison or None, the ``Clustered`` it read or None, the repeated-runs
    block or None, the text lines) when the file has a cluster column, ``--cluster`` names one
    or ``--clusters`` gives a side file; the repeated-runs block and line when a long file has
    a run column."""
    from core.views import cluster_lines, runs_lines  # lazy: only with clusters/runs

    cl = getattr(args, "cluster_info", None)
    if args.clusters:
        labels = read_cluster_labels(read_bytes(args.clusters), args.clusters)
        cl = (cl.with_file(labels, args.clusters) if cl is not None else None)
        if cl is None:
            cl = Clustered(None, labels, None, args.clusters)
    runs, lines = None, []
    if cl is not None and cl.runs is not None:
        runs = runs_block(cl.runs, result)
        lines += runs_lines(runs)
    if cl is None or cl.labels is None:
        return None, cl, runs, lines
    args.cluster_labels = cl.labels   # margin, harm, groups and best set take them (issue 32)
    args.cluster_file = cl.file or result.golden.source
    c = result.comparison
    cc = compare_in_clusters(result, cl.labels, cl.file or result.golden.source,
                             resamples=args.resamples, confidence=args.confidence,
                             seed=args.seed)
    source = cl.column or cl.file
    lines = cluster_lines(cc, c.a, c.b, source, c.binary) + lines
    return cc, cl, runs, lines


def _sequential(args, result):
    """The confidence sequence of B − A (``core.paired.sequential``) with the cases in arrival
    order (a golden file's date/added column, else file order), or None without
    ``--sequential``."""
    if not args.sequential:
        return None, None
    # lazy: only in the sequential mode
    from core.paired import sequential_compare

    arrival = getattr(args, "arrival", None)
    ids = list(result.case_ids)
    order = arrival.order(ids) if arrival is not None else list(range(len(ids)))
    seq = sequential_compare(result.a_values[order], result.b_values[order], args.confidence,
                             seed=args.seed)
    return seq, arrival


def run(args) -> int:
    if args.judged_k < 1:
        raise ValueError(f"--judged-k must be at least 1, got {args.judged_k}")
    if args.cluster and args.format == "trec":
        raise ValueError("--cluster names a column of a golden or lists file; TREC runs take "
                         "a qid,cluster file: --clusters FILE")
    if args.unjudged_csv and args.format == "golden":
        raise ValueError("--unjudged-csv needs --format lists or trec (ranked documents)")
    if args.cheap and args.format != "golden":
        raise InputError("cheap.err_cheap_format")
    if args.cheap_qrels and args.format != "trec":
        raise InputError("cheap.err_cheap_qrels_format")
    if (args.cheap or args.cheap_qrels) and args.margin is not None:
        raise ValueError("--margin reads the gold-only interval: it cannot be combined with "
                         "--cheap / --cheap-qrels yet")
    gs, extra, judged_of, cheap_set = {"golden": _golden, "lists": _lists,
                                       "trec": _trec}[args.format](args)
    a, b = args.a, args.b
    if args.baseline is not None and a is None and b is None and len(gs.methods) >= 2:
        others = [m for m in gs.methods if m != args.baseline]
        a, b = args.baseline, (others[0] if others else None)  # B - A = other - baseline
    result = compare_golden(gs, a, b, **_stat_kw(args))
    clustered, cl, runs, cluster_text = _clusters(args, result)
    if clustered is None and runs is None:
        hint = cluster_hint(result.case_ids)
        if hint is not None:
            from core.views import hint_line  # lazy: only when ids look clustered
            sys.stderr.write("note: " + hint_line(hint) + "\n")
    from core.inputs import margin_answer  # lazy: the margin's rooms, loaded when asked
    margin = margin_answer(result.comparison, args.margin)
    in_clusters = None   # each compared case's cluster (issue 32), in case order
    cluster_margin_ = None
    if clustered is not None:
        in_clusters = clusters_of(result.case_ids, args.cluster_labels, args.cluster_file)
        if margin is not None:   # the margin's answer with clusters as the unit
            from core.paired import cluster_margin  # lazy: clusters only
            from core.views import margin_line  # lazy: clusters only
            cluster_margin_ = cluster_margin(result.a_values, result.b_values, in_clusters,
                                             margin.margin, confidence=args.confidence,
                                             resamples=args.resamples, seed=args.seed)
            c = result.comparison
            cluster_text.append(margin_line(cluster_margin_, c.a, c.b, c.binary))
    harm = None
    if args.harm or args.harm_delta is not None:
        from core.paired import no_harm  # lazy: only with --harm
        harm = no_harm(result.a_values, result.b_values, delta=args.harm_delta,
                       alpha=args.alpha, confidence=args.confidence,
                       resamples=args.resamples, seed=args.seed, clusters=in_clusters)
    cheap = None
    if cheap_set is not None:
        if clustered is not None:
            raise ValueError("cheap labels treat cases as independent: --cheap / --cheap-qrels "
                             "cannot be combined with clusters yet")
        from core.inputs import compare_cheap  # lazy: the PPI rooms, only with cheap labels
        cheap = compare_cheap(result, cheap_set, confidence=args.confidence)
    many = best = None
    if len(gs.methods) >= 3:
        # lazy: pandas, only with three or more methods
        from core.paired import best_set, compare_many, estimate_cost, plan_mode

        wanted = "baseline" if args.baseline else "all"
        n_cases = len(gs.cases.ids)
        mode, cost = plan_mode(len(gs.methods), n_cases, args.resamples, wanted)
        if mode != wanted:  # all pairs would not fit the limits: say so, then do less
            full = estimate_cost(len(gs.methods), n_cases, args.resamples, wanted)
            sys.stderr.write("note: " + t("systems.many_fallback_cli", "en", **full.params(),
                                          baseline=gs.methods[0]) + "\n")
        many = compare_many(gs.cases, mode=mode, baseline=args.baseline,
                            correction=args.correction, **_stat_kw(args))
        all_pairs = estimate_cost(len(gs.methods), n_cases, args.resamples, "all")
        if all_pairs.fits:
            best = best_set(gs.cases, resamples=args.resamples, confidence=args.confidence,
                            seed=args.seed, method=args.best_method,
                            clusters=None if clustered is None else clusters_of(
                                [str(i) for i in gs.cases.ids], args.cluster_labels,
                                args.cluster_file))
        else:  # cost before work: the ranking needs every pair
            sys.stderr.write("note: " + t("systems.best_too_much", "en", **all_pairs.params())
                             + "\n")
    seq, arrival = _sequential(args, result)
    groups = _groups(args, result)
    judged = None if judged_of is None else judged_of(result.comparison.a,
                                                      result.comparison.b, **_stat_kw(args))
    if args.unjudged_csv and judged is not None:
        Path(args.unjudged_csv).write_bytes(to_csv_bytes(judged.pool))
    if args.json:
        print_json(compare_summary(result, extra=extra, clustered=clustered,
                                   cluster_column=None if cl is None else cl.column,
                                   cluster_file=None if cl is None else cl.file, runs=runs,
                                   seq=seq, arrival=arrival,
                                   margin=margin, harm=harm, cheap=cheap, best=best,
                                   groups=groups, judged=judged, many=many,
                                   cluster_margin=cluster_margin_))
        return 0
    if cheap is not None:
        from core.views import cheap_lines  # lazy: only with cheap labels
        print("\n".join(cheap_lines(cheap)) + "\n")
    if cluster_text:
        print("\n".join(cluster_text))
        if clustered is not None:
            print(t("clusters.cli_independent", "en"))
    if seq is not None:
        from core.views import sequential_lines  # lazy: only in the sequential mode
        c = result.comparison
        print("\n".join(sequential_lines(seq, c.a, c.b, arrival)))
        print(t("sequential.cli_fixed_below", "en"))
    # with clusters the margin's answer is the cluster block's line (above), never both
    print(compare_text(result, extra, many, args.format,
                       margin=margin if cluster_margin_ is None else None, best=best))
    if harm is not None:
        from core.views import harm_lines  # lazy: only with --harm
        c = result.comparison
        if harm.n_clusters is not None:
            from core.views import harm_unit_line  # lazy: clusters only
            print(harm_unit_line(harm))
        print("\n".join(harm_lines(harm, c.a, c.b, "rate" if c.binary else "score")))
    if groups is not None or judged is not None:
        from core.views import group_cli_lines, judged_cli_lines  # lazy: pandas
    if groups is not None:
        print("\n".join(group_cli_lines(groups)))
    if judged is not None:
        print("\n".join(judged_cli_lines(judged, "rate" if result.comparison.binary
                                           else "score")))
    return 0
