"""``python -m core agreement FILE``: can cheaper labels stand in for the gold labels?

The four levels of Thomas, Spielman, Craswell & Mitra (SIGIR 2024) for a label source
against gold: document labels (kappa, weighted kappa, MAE), document preference (pairwise
accuracy), and with runs query ordering and system ordering (RBO, Kendall's tau).
"""
from __future__ import annotations

from core.agreement import (DEFAULT_RESAMPLES, DEFAULT_SPLITS, QUERY_P, SYSTEM_P, WEIGHTS, analyse,
                            load_label_files, load_labels, load_runs)
from core.commands._common import add_stat_args, metric_option, read_bytes
from core.serialize import print_json
from core.inputs import parse_measure
from core.views import text

NAME = "agreement"
HELP = "label agreement: a label source (crowd, heuristic, LLM) against gold labels"


def register(p) -> None:
    p.add_argument("file", help="labels: query_id, doc_id, gold, <source> ... (CSV/TSV/XLSX); "
                                "with --other, the gold labels only")
    p.add_argument("--other", metavar="FILE",
                   help="a second label file joined on (query_id, doc_id); FILE is then gold")
    p.add_argument("--runs", nargs="+", default=[], metavar="RUN",
                   help="TREC run files or query_id, doc_id, rank tables")
    p.add_argument("--metric", default="ndcg@10",
                   type=metric_option(lambda text: str(parse_measure(text))),
                   help="per-query metric for levels 3-4: ndcg@10, p@10, ap@100, RR@10, "
                        "Success@10, ... (any spelling of the metric registry; default "
                        "ndcg@10)")
    p.add_argument("--source", help="the source to judge (default: the first non-gold column)")
    p.add_argument("--gold", help="name of the gold column (default: gold / reference / 정답)")
    p.add_argument("--weights", choices=WEIGHTS, default="linear",
                   help="weighted-kappa weights (default linear)")
    p.add_argument("--baseline", help="baseline source of the split-half check (default: the "
                                      "first source)")
    p.add_argument("--splits", type=int, default=DEFAULT_SPLITS,
                   help=f"random half splits (default {DEFAULT_SPLITS:,})")
    p.add_argument("--query-run", help="run for the query ordering (default: the first run)")
    p.add_argument("--query-p", type=float, default=QUERY_P,
                   help=f"RBO persistence for query ordering (default {QUERY_P})")
    p.add_argument("--system-p", type=float, default=SYSTEM_P,
                   help=f"RBO persistence for system ordering (default {SYSTEM_P})")
    p.add_argument("--conclusions", action="store_true",
                   help="with 2 or more runs: compare every pair of runs under gold and under "
                        "the source; do the verdicts agree? (false 'better', missed "
                        "differences; Otero et al. 2024)")
    add_stat_args(p, resamples=DEFAULT_RESAMPLES)


def run(args) -> int:
    if args.other:
        labels = load_label_files(read_bytes(args.file), args.file, read_bytes(args.other),
                                  args.other)
    else:
        labels = load_labels(read_bytes(args.file), args.file, gold=args.gold)
    runs = load_runs([(read_bytes(f), f) for f in args.runs])
    report = analyse(labels, source=args.source, runs=runs, measure=args.metric,
                     weights=args.weights, resamples=args.resamples,
                     confidence=args.confidence, seed=args.seed, baseline=args.baseline,
                     splits=args.splits, query_run=args.query_run, query_p=args.query_p,
                     system_p=args.system_p, conclusions=args.conclusions)
    if args.json:
        print_json(report.to_dict())
    else:
        print(text(report))
    return 0
