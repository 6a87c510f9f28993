"""``python -m core decide --quality FILE --latency LOG --margin 0.02 --max-slowdown 1.10``:
one decision from quality and speed (``core.switch.decide_files``, the same as the Switch?
page).

The quality is a golden-case table (default); with ``--format lists`` a retrieval-list CSV
scored per case by ``--measure`` at ``--k`` (as ``compare --format lists``); with ``--format
trec`` one or more TREC run files (``--quality A.run B.run``) with ``--qrels``, scored per
query by ``--measure`` (any ir_measures name, default nDCG@10; as ``compare --format
trec``); with ``--scifact`` instead of ``--quality``, BM25 / dense / hybrid on the BEIR
folder ``--data`` (default: as ``python -m core scifact``: $NOISEFLOOR_SHARED_BEIR, else the
shipped scifact) compared per query on ``--measure`` (default ndcg@10) over all judged
queries or a seeded subset of ``--queries N``; the timing log then names the retrievers
bm25 / dense / hybrid. A and B: ``--a``/``--b`` when given, else the first two methods of the quality file (its
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
null), ``next_step_speed`` (an unsure speed condition: ``n_needed`` queries for the time
ratio's upper bound to reach ``--max-slowdown`` at the observed ratio, null when the ratio
is not below it, ``n_double_runs``, ``n_have``, ``ratio``, ``max_slowdown`` and the latency
``plan`` retargeted; else null) and ``sources``. With ``--max-harm SHARE`` (issue 35) a third
condition, ``conditions.harm`` (bound = the upper end of the hurt share's Wilson interval when
it holds or is unsure, the lower end when it fails; limit = SHARE), plus ``max_harm`` and
``harm`` (``core.paired.harm.Harm.to_dict``: ``delta``, ``hurt_share``, ``hurt_ci``,
``helped_share``, ``trisk``, ``trisk_p``, ``alpha``, ...); ``--harm-delta`` and ``--alpha``
set them. Without it the output is unchanged. With ``--cheap FILE`` (issue 34; golden quality
files only) the quality condition is read off the prediction-powered interval of B − A
(``core.inputs.cheap``: the same methods' scores under cheap labels on more cases): JSON ``ppi``
(``CheapComparison.ppi_dict``, with ``quality_gold_only`` and ``decision_gold_only``).
"""
from __future__ import annotations

import dataclasses
import sys

from core import checks
from core.commands._common import add_harm_args, add_stat_args, read_bytes
from core.serialize import print_json
from core.errors import InputError
from core.i18n import t
from core.latency import DEFAULT_QUANTILE_RESAMPLES
from core.switch import (DEFAULT_MAX_SLOWDOWN, QUALITY_FORMATS, Condition, QualityFigures,
                         combine, decide_files, decide_retrievers, load_quality)
from core.views import format as fmt
from core.views import decision_text

NAME = "decide"
HELP = ("switch from A to B? one decision from quality (a golden-case file, retrieval lists, "
        "TREC runs or the scifact retrievers, with a margin) and a timing log (speed); exit 0 "
        "switch, 1 do not switch, 3 inconclusive")


def register(p) -> None:
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--quality", nargs="+", metavar="FILE",
                     help="golden-case file (CSV/TSV/XLSX): case_id, then one column per "
                          "method; --format lists: a retrieval-list CSV; --format trec: one "
                          "or more run files")
    src.add_argument("--scifact", action="store_true",
                     help="quality from BM25 / dense / hybrid on a BEIR folder (--data; "
                          "default scifact), as `python -m core scifact`")
    p.add_argument("--format", choices=QUALITY_FORMATS, default="golden",
                   help="quality file format: golden (default; case_id + one column per "
                        "method), lists (case_id, query, gold_ids + one column of ranked "
                        "ids per method, scored per case by --measure at --k) or trec (run "
                        "files with --qrels, scored per query by --measure)")
    p.add_argument("--qrels", metavar="FILE", help="trec: the qrels (qid 0 docid rel)")
    p.add_argument("--measure", help="the metric compared: lists, any registry spelling "
                                     "(default ndcg at --k); trec, any ir_measures name "
                                     "(default nDCG@10); --scifact, ndcg@10 (default), "
                                     "recall@100, hit@10 or mrr@10")
    p.add_argument("--k", type=int, default=10, help="lists: cutoff k (default 10)")
    p.add_argument("--data", metavar="DIR",
                   help="--scifact: BEIR folder (default as `python -m core scifact`)")
    p.add_argument("--queries", type=int, default=None, metavar="N",
                   help="--scifact: compare on a seeded random subset of N judged queries")
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
    p.add_argument("--cluster", metavar="NAME",
                   help="golden: the column naming each case's document (found by itself when "
                        "named cluster, document, doc_id, source, 문서 or 클러스터); the quality "
                        "condition then treats the document as the unit")
    p.add_argument("--clusters", metavar="FILE",
                   help="a qid,cluster file (CSV/TSV/XLSX) giving each case's cluster (any "
                        "--format)")
    p.add_argument("--sequential", action="store_true",
                   help="for a CI gate that runs on every merge: the quality condition is read "
                        "off a confidence sequence of B - A, valid however often the gate ran "
                        "(no state file; the golden file's rows in order, or by a date/added "
                        "column). Exit codes as without it")
    p.add_argument("--cheap", metavar="FILE",
                   help="golden: the same methods' scores under cheap labels (crowd, heuristic, "
                        "LLM judge) on more cases, covering the gold ones; the quality "
                        "condition is then read off the prediction-powered interval (PPI++)")
    add_harm_args(p, max_harm=True, flag=False)
    add_stat_args(p, interval=True)


DECIDE_KEYS = {"holds": "clusters.decide_holds", "unsure": "clusters.decide_unsure",
               "fails": "clusters.decide_fails"}


def _clustered(args, dec):
    """(the decision with the quality condition taken with clusters as the unit, the JSON
    block, the text line) when the quality file has a cluster column or --clusters gives a
    side file (``core.paired.cluster_margin``); else (dec, None, None)."""
    if args.scifact or (args.format != "golden" and not args.clusters):
        return dec, None, None
    from core.inputs import clusters_of, load_clustered, read_cluster_labels  # lazy: rare path
    from core.paired import cluster_margin

    file = args.quality[0]
    if args.format == "golden":
        cl = load_clustered(read_bytes(file), file, cluster=args.cluster)
        gs, labels, column = cl.golden, cl.labels, cl.column
    else:
        runs = (tuple((f, read_bytes(f)) for f in args.quality) if args.format == "trec"
                else ())
        data, name = ((read_bytes(args.qrels), args.qrels) if args.format == "trec"
                      else (read_bytes(file), file))
        gs = load_quality(data, name, quality_format=args.format, measure=args.measure,
                          k=args.k, runs=runs)
        labels, column = None, None
    if args.clusters:
        labels, column = read_cluster_labels(read_bytes(args.clusters), args.clusters), None
    if labels is None:
        return dec, None, None
    if args.sequential:   # a confidence sequence in clusters is not built: say so, never mix
        raise ValueError("--sequential reads cases as independent; this quality file has "
                         "clusters (a cluster column or --clusters): drop one of the two")
    ids, av, bv, _ = gs.paired_values(dec.a, dec.b)
    in_clusters = clusters_of(ids, labels, args.clusters or file)
    cm = cluster_margin(av, bv, in_clusters, dec.margin,
                        confidence=args.confidence, resamples=args.resamples, seed=args.seed)
    limit = -dec.margin
    bound = cm.ci_high if cm.state == "fails" else cm.ci_low
    gap = 0.0 if cm.state == "holds" else max(limit - bound, 0.0)
    qc = Condition("quality", cm.state, bound, limit, gap)
    block = {"column": column, "file": args.clusters, **cm.to_dict(),
             "quality_independent_cases": dec.quality_condition.to_dict(),
             "decision_independent_cases": dec.decision}
    if dec.harm_condition is not None:   # the max-harm share with clusters as the unit too
        from core.paired import no_harm  # lazy: clusters only
        from core.switch import harm_condition  # lazy: clusters only

        harm = no_harm(av, bv, delta=args.harm_delta, alpha=args.alpha,
                       confidence=args.confidence, clusters=in_clusters)
        block["harm_independent_cases"] = dec.harm_condition.to_dict()
        dec = dataclasses.replace(dec, harm=harm,
                                  harm_condition=harm_condition(harm, dec.max_harm))
    line = t(DECIDE_KEYS[cm.state], "en", b=dec.b, a=dec.a, clusters=cm.n_clusters,
             lo=fmt.diff(cm.ci_low, dec.kind), hi=fmt.diff(cm.ci_high, dec.kind),
             limit=fmt.diff(limit, dec.kind))
    return (dataclasses.replace(dec, quality_condition=qc,
                                decision=combine(qc, dec.speed_condition,
                                                 *(() if dec.harm_condition is None
                                                   else (dec.harm_condition,)))), block, line)


CHEAP_KEYS = {"holds": "cheap.decide_holds", "unsure": "cheap.decide_unsure",
              "fails": "cheap.decide_fails"}


def _cheap(args, dec):
    """(the decision with the quality condition read off the prediction-powered interval of
    B − A, the JSON block, the text line) with --cheap; else (dec, None, None). The condition
    holds when the PPI interval's lower end is above −margin, fails when its upper end is below
    it (the one-sided PPI t-test at alpha/2 is the same statistic, so it agrees; on 0/1
    outcomes ``p_above`` inverts the Jeffreys MOVER interval, which agrees by construction)."""
    if not args.cheap:
        return dec, None, None
    from core.inputs import compare_cheap, compare_golden, load_golden  # lazy: --cheap only

    file = args.quality[0]
    res = compare_golden(load_golden(read_bytes(file), file), dec.a, dec.b,
                         resamples=args.resamples, confidence=args.confidence, seed=args.seed,
                         interval=args.interval)
    cc = compare_cheap(res, load_golden(read_bytes(args.cheap), args.cheap),
                       confidence=args.confidence)
    d, limit = cc.difference, -dec.margin
    state = "holds" if d.ci_low > limit else "fails" if d.ci_high < limit else "unsure"
    bound = d.ci_high if state == "fails" else d.ci_low
    gap = 0.0 if state == "holds" else max(limit - bound, 0.0)
    qc = Condition("quality", state, bound, limit, gap)
    block = {**cc.ppi_dict(), "b_minus_a": d.estimate, "ci_low": d.ci_low, "ci_high": d.ci_high,
             "quality_gold_only": dec.quality_condition.to_dict(),
             "decision_gold_only": dec.decision}
    line = t(CHEAP_KEYS[state], "en", a=dec.a, b=dec.b, n_gold=d.n_gold,
             n_rest=d.n_cheap - d.n_gold, lo=fmt.diff(d.ci_low, dec.kind),
             hi=fmt.diff(d.ci_high, dec.kind), limit=fmt.diff(limit, dec.kind))
    used = QualityFigures("ppi_mover" if d.mover else "ppi", d.estimate, d.ci_low, d.ci_high,
                          d.p_above(limit))
    return (dataclasses.replace(dec, quality_condition=qc, quality_used=used,
                                decision=combine(qc, dec.speed_condition,
                                                 *(() if dec.harm_condition is None
                                                   else (dec.harm_condition,)))), block, line)


def _scifact(args, common: dict):
    """The decision with retrievers on the BEIR folder as quality: A and B (default bm25 and
    dense, or the first retriever other than the one named) are run and scored per query
    (``core.retrieval.scifact``), then ``core.switch.decide_retrievers``."""
    # lazy: the retrieval wing (bm25s, the model), only for --scifact (every command module is imported at start-up)
    from core.retrieval import (RETRIEVERS, check_metric, check_retriever, evaluate,
                                find_or_download, load_beir, needed, run_retrievers, subsample)
    a, b = common.pop("a"), common.pop("b")
    a = check_retriever(a, "a") if a else next(r for r in RETRIEVERS if r != b)
    b = check_retriever(b, "b") if b else next(r for r in RETRIEVERS if r != a)
    metric = check_metric(args.measure or "ndcg@10")
    data = load_beir(find_or_download(args.data))
    notes: list = []
    tables = evaluate(data, run_retrievers(data, needed([a, b]), notes=notes))
    for code, params in notes:
        sys.stderr.write("note: " + t(f"scifact.note_{code}", "en", **params) + "\n")
    return decide_retrievers({n: tables[n] for n in RETRIEVERS if n in tables},
                             *common.pop("latency"), metric=metric, a=a, b=b,
                             queries=subsample(data.query_ids, args.queries, seed=args.seed),
                             collection=data.name, sequential=args.sequential, **common)


def run(args) -> int:
    common = dict(latency=(read_bytes(args.latency), args.latency), margin=args.margin,
                  max_slowdown=args.max_slowdown, a=args.a, b=args.b,
                  confidence=args.confidence, resamples=args.resamples, seed=args.seed,
                  interval=args.interval, drop_warmup=args.drop_warmup,
                  quantile_resamples=args.quantile_resamples)
    if args.max_harm is not None:  # checked before the work; off: outputs unchanged
        common.update(max_harm=checks.share("--max-harm", args.max_harm),
                      harm_delta=args.harm_delta, alpha=args.alpha)
    if args.cheap and (args.scifact or args.format != "golden" or args.sequential
                       or args.cluster or args.clusters):
        raise InputError("cheap.err_decide_cheap")
    if args.scifact:
        dec = _scifact(args, common)
    else:
        files = args.quality
        if args.format == "trec":
            if not args.qrels:
                raise InputError("systems.err_need_qrels")
            runs = tuple((f, read_bytes(f)) for f in files)
            quality = (read_bytes(args.qrels), args.qrels)
        else:
            if len(files) != 1:
                raise ValueError(f"--quality takes one file with --format {args.format} "
                                 f"(several run files need --format trec); got {len(files)}")
            runs, quality = (), (read_bytes(files[0]), files[0])
        dec = decide_files(*quality, *common.pop("latency"), quality_format=args.format,
                           measure=args.measure, k=args.k, runs=runs,
                           sequential=args.sequential, **common)
    dec, block, line = _clustered(args, dec)
    if block is not None and args.cheap:   # a cluster column found by itself: never mix
        raise InputError("cheap.err_decide_cheap")
    dec, cheap_block, cheap_line = _cheap(args, dec)
    if args.json:
        out = dec.to_dict()
        if block is not None:
            out["clusters"] = block
        if cheap_block is not None:
            out["ppi"] = cheap_block
        print_json(out)
    else:
        if line:
            print(line)
        if cheap_line:
            print(cheap_line)
        print(decision_text(dec))
    return dec.exit_code
