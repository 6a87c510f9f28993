"""``python -m core scifact``: BM25 vs dense vs hybrid on a BEIR folder, per-query paired verdict."""
from __future__ import annotations

import sys
import time
from pathlib import Path

from core.commands._common import (add_harm_args, add_margin_arg, add_stat_args,
                                   check_margin_text, metric_option)
from core.errors import InputError
from core.paired import BEST_METHODS
from core.i18n import t
from core.retrieval import (BM25Params, DEFAULT_RESAMPLES, ENV_VAR, RETRIEVERS, TOKENIZERS,
                            check_metric, find_or_download, load_beir, provenance, run_scifact,
                            vector_summary)
from core.serialize import print_json, to_csv_bytes
from core.views import result_text

MAX_DOCS = 50_000
NAME = "scifact"
HELP = "re-measure BM25 vs dense vs hybrid on a BEIR folder (default: scifact) with a paired verdict"


def register(p) -> None:
    p.add_argument("--data", metavar="DIR",
                   help=f"BEIR folder (corpus.jsonl, queries.jsonl, qrels/test.tsv); default: "
                        f"${ENV_VAR}, else data/beir/scifact (unpacked from the shipped "
                        f"copy on first use)")
    p.add_argument("--a", default="bm25", choices=RETRIEVERS, help="retriever A (default bm25)")
    p.add_argument("--b", default="dense", choices=RETRIEVERS, help="retriever B (default dense)")
    p.add_argument("--metric", default="ndcg@10", type=metric_option(check_metric),
                   help="metric compared: ndcg@10 (nDCG@10, default), recall@100 (R@100), "
                        "hit@10 (Success@10) or mrr@10 (RR@10); any spelling of the "
                        "metric registry")
    p.add_argument("--k1", type=float, default=1.5, help="BM25 k1 (default 1.5)")
    p.add_argument("--bm25-b", type=float, default=0.75, help="BM25 b (default 0.75)")
    p.add_argument("--tokenizer", default="en", choices=TOKENIZERS,
                   help="BM25 tokens: en (English stopwords, default), en_stem (+ stemming), "
                        "char_bigram (Korean and other languages)")
    p.add_argument("--model", default=None,
                   help="sentence-transformers model path or name (default: bundled "
                        "all-MiniLM-L6-v2)")
    p.add_argument("--encode", default="auto", choices=("auto", "all"),
                   help="document vectors: auto (shipped vectors when they pass their checksum "
                        "and a 32-document spot check, else the disk cache, else encode) or "
                        "all (re-encode every document live and refresh the cache)")
    p.add_argument("--queries", type=int, default=None, metavar="N",
                   help="compare on a seeded random subset of N judged queries")
    p.add_argument("--max-docs", type=int, default=MAX_DOCS, metavar="N",
                   help=f"refuse collections of more than N documents before encoding "
                        f"(default {MAX_DOCS:,}; dense encoding takes minutes per 10,000)")
    p.add_argument("--unjudged-csv", metavar="FILE",
                   help="write the pooled unjudged documents (every retriever's top 10 "
                        "without a judgement, deduplicated, with the query text) to FILE")
    p.add_argument("--sequential", action="store_true",
                   help="B - A per query as a confidence sequence valid at every number of "
                        "queries (queries in the order compared), with its e-process verdict, "
                        "for a collection re-measured again and again")
    p.add_argument("--best-method", choices=BEST_METHODS, default="mcb",
                   help="how the tied-for-best set of the three retrievers is read: mcb "
                        "(default; Hsu's one-sided multiple comparisons with the best) or "
                        "all-pairs (every pair's simultaneous interval; larger sets)")
    add_harm_args(p)
    add_stat_args(p, resamples=DEFAULT_RESAMPLES, interval=True)
    add_margin_arg(p)


def _progress(done: int, total: int, eta: float | None) -> None:
    if sys.stderr.isatty() or done in (0, total):
        eta_txt = "" if eta is None else f", ~{eta:.0f} s left"
        sys.stderr.write(f"\rencoding documents {done:,}/{total:,}{eta_txt}   ")
        if done == total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def run(args) -> int:
    if args.max_docs < 1:
        raise ValueError(f"--max-docs must be at least 1, got {args.max_docs}")
    check_margin_text(args.margin)   # before the retrievers run
    folder = find_or_download(args.data)
    data = load_beir(folder)
    if data.n_docs > args.max_docs:
        raise InputError("scifact.err_too_many_docs", file=str(folder),
                         n=f"{data.n_docs:,}", limit=f"{args.max_docs:,}")
    t0 = time.perf_counter()
    notes: list = []
    vectors: list = []
    res = run_scifact(data, args.a, args.b, args.metric,
                      bm25=BM25Params(args.k1, args.bm25_b, args.tokenizer), model=args.model,
                      queries=args.queries, resamples=args.resamples,
                      confidence=args.confidence, seed=args.seed, interval=args.interval,
                      progress=_progress, notes=notes, encode_all=args.encode == "all",
                      vectors=vectors, best_method=args.best_method)
    for code, params in notes:
        sys.stderr.write("note: " + t(f"scifact.note_{code}", "en", **params) + "\n")
    for enc in vectors:
        source, params = provenance(enc)
        sys.stderr.write(t(f"scifact.vectors_{source}", "en", **params) + "\n")
    from core.inputs import margin_answer  # lazy: the margin's rooms, loaded when asked
    margin = margin_answer(res.comparison, args.margin)
    seq = None
    if args.sequential:
        from core.paired import sequential_compare  # lazy: only in the sequential mode
        c = res.comparison
        seq = sequential_compare(c.a_values, c.b_values, args.confidence, seed=args.seed)
    harm = None
    if args.harm or args.harm_delta is not None:  # issue 35; off: outputs unchanged
        from core.paired import no_harm  # lazy: only with --harm
        c = res.comparison
        harm = no_harm(c.data.a, c.data.b, delta=args.harm_delta, alpha=args.alpha,
                       confidence=args.confidence, resamples=args.resamples, seed=args.seed)
    if args.unjudged_csv and res.judged is not None:
        Path(args.unjudged_csv).write_bytes(to_csv_bytes(res.judged.pool))
    if args.json:
        out = res.to_dict()
        if margin is not None:
            out["margin"] = margin.to_dict()
        if seq is not None:   # queries in the order compared
            from core.paired import sequential_block  # lazy: the sequential mode
            out["sequential"] = sequential_block(seq, queries=True)
        if harm is not None:
            out["harm"] = harm.to_dict()
        out["vectors"] = [vector_summary(enc) for enc in vectors]
        out["seconds"] = round(time.perf_counter() - t0, 3)
        print_json(out)
    else:
        if seq is not None:
            from core.views import sequential_lines  # lazy: the sequential mode
            print("\n".join(sequential_lines(seq, res.comparison.a, res.comparison.b,
                                              queries=True)))
            print(t("sequential.cli_fixed_below", "en"))
        print(result_text(res, margin=margin))
        if harm is not None:
            from core.views import harm_lines  # lazy: only with --harm
            c = res.comparison
            print("\n".join(harm_lines(harm, c.a, c.b,
                                        "rate" if c.binary else "score")))
    return 0
