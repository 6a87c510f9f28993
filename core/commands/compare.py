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

from core.commands._common import add_harm_args, add_margin_arg, add_stat_args, read_bytes
from core.errors import InputError
from core.i18n import t
from core.inputs import (Clustered, compare_systems, golden_systems, load_clustered,
                         load_golden, read_cluster_labels, read_group_labels)
from core.serialize import print_json, to_csv_bytes
from core.views import compare_text

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


def _golden(args):
    """(the ``Systems`` of a golden file, its ``Clustered``, the arrival order or None, the cheap
    labels' golden set or None)."""
    if len(args.files) != 1:
        raise InputError("systems.err_one_file", format="golden", n=len(args.files))
    arrival = None
    if args.sequential:   # the date/added column gives the order, and is not a method
        from core.inputs import load_arriving   # lazy: only in the sequential mode
        cl, arrival = load_arriving(read_bytes(args.files[0]), file=args.files[0],
                                    cluster=args.cluster)
    else:
        cl = load_clustered(read_bytes(args.files[0]), file=args.files[0],
                            cluster=args.cluster)
    cheap = load_golden(read_bytes(args.cheap), file=args.cheap) if args.cheap else None
    return golden_systems(cl.golden), cl, arrival, cheap


def _lists(args):
    # lazy: pandas, and only for --format lists (every command module is imported at start-up)
    from core.inputs import parse_metric, read_lists_systems

    if len(args.files) != 1:
        raise InputError("systems.err_one_file", format="lists", n=len(args.files))
    name, k = parse_metric(args.measure or "ndcg", args.k)
    systems, cl = read_lists_systems(read_bytes(args.files[0]), args.files[0], metric=name,
                                     k=k, kind=args.match, cluster=args.cluster)
    return systems, cl, None, None


def _trec(args):
    # lazy: ir_measures and pandas, only for --format trec (every command module is imported at start-up)
    from core.inputs import read_qrels, read_run, score_runs, trec_systems

    if not args.qrels:
        raise InputError("systems.err_need_qrels")
    measure = args.measure or "nDCG@10"
    qrels = read_qrels(read_bytes(args.qrels), args.qrels)
    runs = [read_run(read_bytes(f), f) for f in args.files]
    ts = score_runs(runs, qrels, [measure], qrels_file=args.qrels)
    cheap = None
    if args.cheap_qrels:
        cheap_qrels = read_qrels(read_bytes(args.cheap_qrels), args.cheap_qrels)
        cheap = score_runs(runs, cheap_qrels, [measure],
                           qrels_file=args.cheap_qrels).golden(ts.measures[0])
    return trec_systems(ts, args.qrels, args.cheap_qrels), None, None, cheap


def _with_cluster_file(args, cl):
    """The ``Clustered`` the comparison reads: a ``--clusters`` side file replaces a file's
    column (issue 32)."""
    if not args.clusters:
        return cl
    labels = read_cluster_labels(read_bytes(args.clusters), args.clusters)
    return cl.with_file(labels, args.clusters) if cl is not None else Clustered(
        None, labels, None, args.clusters)


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
    systems, cl, arrival, cheap_set = {"golden": _golden, "lists": _lists,
                                       "trec": _trec}[args.format](args)
    cl = _with_cluster_file(args, cl)
    groups = read_group_labels(read_bytes(args.groups), args.groups) if args.groups else None
    sc = compare_systems(
        systems, args.a, args.b, resamples=args.resamples, confidence=args.confidence,
        seed=args.seed, interval=args.interval, baseline=args.baseline,
        correction=args.correction, best_method=args.best_method, margin=args.margin,
        harm=(args.harm_delta, args.alpha) if args.harm or args.harm_delta is not None
        else None, clusters=cl, cheap=cheap_set, sequential=args.sequential, arrival=arrival,
        groups=groups, group_file=args.groups, judged_k=args.judged_k)
    result, c = sc.result, sc.result.comparison
    if sc.hint is not None and sc.runs is None:
        from core.views import hint_line  # lazy: only when ids look clustered
        sys.stderr.write("note: " + hint_line(sc.hint) + "\n")
    if sc.many_fallback is not None:  # all pairs would not fit the limits: said, then less
        sys.stderr.write("note: " + t("systems.many_fallback_cli", "en",
                                      **sc.many_fallback.params(),
                                      baseline=systems.golden.methods[0]) + "\n")
    if sc.many_cost is not None and not sc.many_cost.fits:   # even the baseline's pairs
        raise InputError("too_much_work", **sc.many_cost.params())
    if sc.best_cost is not None and not sc.best_cost.fits:   # the ranking needs every pair
        sys.stderr.write("note: " + t("systems.best_too_much", "en", **sc.best_cost.params())
                         + "\n")
    if args.unjudged_csv and sc.judged is not None:
        Path(args.unjudged_csv).write_bytes(to_csv_bytes(sc.judged.pool))
    if args.json:
        print_json(sc.to_dict())
        return 0
    cluster_text = []
    if sc.clustered is not None or sc.runs is not None:
        from core.views import cluster_lines, runs_lines  # lazy: only with clusters/runs
        if sc.clustered is not None:
            cluster_text += cluster_lines(sc.clustered, c.a, c.b, cl.column or cl.file,
                                          c.binary)
        if sc.runs is not None:
            cluster_text += runs_lines(sc.runs)
            if args.format == "lists":   # lists_bounds would read each case's first run only
                cluster_text.append(t("clusters.runs_no_judged", "en"))
        if sc.cluster_margin is not None:
            from core.views import margin_line  # lazy: clusters only
            cluster_text.append(margin_line(sc.cluster_margin, c.a, c.b, c.binary))
    if sc.cheap is not None:
        from core.views import cheap_lines  # lazy: only with cheap labels
        print("\n".join(cheap_lines(sc.cheap)) + "\n")
    if cluster_text:
        print("\n".join(cluster_text))
        if sc.clustered is not None:
            print(t("clusters.cli_independent", "en"))
    if sc.seq is not None:
        from core.views import sequential_lines  # lazy: only in the sequential mode
        print("\n".join(sequential_lines(sc.seq, c.a, c.b, sc.arrival)))
        print(t("sequential.cli_fixed_below", "en"))
    # with clusters the margin's answer is the cluster block's line (above), never both
    print(compare_text(result, systems.extra, sc.many, args.format,
                       margin=sc.margin if sc.cluster_margin is None else None, best=sc.best))
    harm = sc.harm
    if harm is not None:
        from core.views import harm_lines  # lazy: only with --harm
        if harm.n_clusters is not None:
            from core.views import harm_unit_line  # lazy: clusters only
            print(harm_unit_line(harm))
        print("\n".join(harm_lines(harm, c.a, c.b, "rate" if c.binary else "score")))
    if sc.groups is not None or sc.judged is not None:
        from core.views import group_cli_lines, judged_cli_lines  # lazy: pandas
    if sc.groups is not None:
        print("\n".join(group_cli_lines(sc.groups)))
    if sc.judged is not None:
        print("\n".join(judged_cli_lines(sc.judged, "rate" if c.binary else "score")))
    return 0
