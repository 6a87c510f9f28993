"""Retriever A vs B on a BEIR collection, per query, with the golden-case page's paired verdict.

Steps (the page and ``python -m core scifact`` call the same functions):

1. ``run_retrievers``: only the retrievers needed (``hybrid`` needs ``bm25`` and ``dense``).
2. ``evaluate``: per-query nDCG@10, Recall@100, Hit@10 and MRR@10 from ``core.inputs.metrics``
   (equal to ir_measures / pytrec_eval; one implementation in the codebase).
3. ``compare_retrievers``: on all judged queries or a seeded random subset of n, the mean of
   each, per-query wins / losses / ties, the Hit@10 2x2 overlap, and the paired percentile
   bootstrap CI of mean(B - A) (new minus baseline) from ``core.paired.stats.paired_bootstrap`` (percentile or BCa), the
   matching exact test (``core.paired.significance.paired_test``) and the verdict of ``core.paired.compare.decide``.
4. ``rank_retrievers``: the tied-for-best set of BM25, dense and hybrid on the same metric and
   queries, with each one's rank interval (``core.paired.best.best_set``: simultaneous bootstrap
   max-|t| intervals of the three pairwise differences read as ranks).

Reference numbers for BEIR scifact (Thakur et al. 2021, Table 2): BM25 (Anserini) nDCG@10 0.665.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd

from core import checks
from core.errors import InputError
from core.inputs import JudgedBounds, beir_bounds, parse_measure, per_query
from core.paired import (TIE_TOL, BestSet, PairedComparison, RateEstimate, best_set,
                         compare_paired, interval_provenance, rate_estimate)
from core.retrieval.beir import BeirData
from core.retrieval.search import (BM25Params, CACHE_DIR, DEFAULT_MODEL, Encoded, Progress,
                                   RRF_DEPTH, RRF_K, Ranking, bm25_search, dense_search,
                                   encode_texts, load_model, rrf)
from core.retrieval.vectors import (SPOT_N, checks_on_record, document_vectors, file_loader,
                                    floor5, queries_check_pending, shipped_queries, shipped_vectors,
                                    spot_check_pending)

RETRIEVERS = ("bm25", "dense", "hybrid")
MEASURES = ("ndcg@10", "recall@100", "hit@10", "mrr@10")
DEFAULT_RESAMPLES = 10_000
PAPER_BM25_NDCG10 = 0.665  # Thakur et al. 2021, Table 2, scifact, BM25 (Anserini)


def check_retriever(name: str, arg: str = "retriever") -> str:
    return checks.choice(arg, name, RETRIEVERS)


def check_metric(metric: str) -> str:
    """One of ``MEASURES``, read through the metric registry (``core.inputs.metrics.parse_measure``:
    'nDCG@10' and 'RR@10' are 'ndcg@10' and 'mrr@10')."""
    try:
        m = str(parse_measure(str(metric)))
    except ValueError:
        m = None
    if m not in MEASURES:
        raise ValueError(f"metric must be one of {', '.join(MEASURES)}, got {metric!r}")
    return m


def needed(names: Sequence[str]) -> tuple[str, ...]:
    """The retrievers to run for ``names``, in RETRIEVERS order (hybrid brings its parts)."""
    want = {check_retriever(n) for n in names}
    if "hybrid" in want:
        want |= {"bm25", "dense"}
    return tuple(r for r in RETRIEVERS if r in want)


# ----------------------------------------------------------------------------- running
def run_retrievers(data: BeirData, names: Sequence[str], *, bm25: BM25Params = BM25Params(),
                   model: str | None = None, get_model=None, cache_dir=CACHE_DIR,
                   progress: Progress | None = None, notes: list | None = None,
                   encode_all: bool = False, vectors: list | None = None
                   ) -> dict[str, Ranking]:
    """Rankings (top 100) of every judged query for ``needed(names)``.

    Document vectors come from ``core.retrieval.vectors.document_vectors``: shipped (checksum and
    spot check), else the disk cache, else a live encode (``encode_all``: always live);
    queries are always encoded live (``dense_from``). The
    model is loaded only when needed, through ``get_model`` when given (the page passes its
    ``st.cache_resource`` loader). ``progress(done, total, eta)`` follows the document
    encoding. Notes (cache and shipped-vector checks) are appended to ``notes`` and the
    documents' ``Encoded`` to ``vectors`` when given.
    """
    todo = needed(names)
    qids = data.query_ids
    qtexts = [data.queries[q] for q in qids]
    out: dict[str, Ranking] = {}
    if "bm25" in todo:
        out["bm25"] = bm25_search(data.texts, qids, qtexts, bm25)
    if "dense" in todo:
        out["dense"], docs, found = dense_ranking(data, model=model, get_model=get_model,
                                                  cache_dir=cache_dir, encode_all=encode_all,
                                                  progress=progress)
        if notes is not None:
            notes.extend(found)
        if vectors is not None:
            vectors.append(docs)
    if "hybrid" in todo:
        out = with_hybrid(out)
    return out


def dense_ranking(data: BeirData, *, model: str | None = None, get_model=None,
                  cache_dir=CACHE_DIR, encode_all: bool = False, allow_encode: bool = True,
                  shipped: bool = True, progress: Progress | None = None, step=None
                  ) -> tuple[Ranking | None, Encoded | None, list]:
    """The dense side in its steps (``core.retrieval.encode_job.STEPS``), the same for the
    CLI (``run_retrievers``) and the page's server job (``core.retrieval.live``):
    ``load`` the model (skipped when the shipped document and query vectors are used and
    both their spot checks passed before, ``core.retrieval.vectors.checks_on_record``: then
    nothing needs it); ``check`` the shipped document and query vectors (``SPOT_N`` of each
    encoded live, once: a passed check is kept on disk, ``core.retrieval.spot_record``);
    the document vectors (``document_vectors``: shipped unless ``shipped=False`` or
    ``encode_all``, else the cache, else a live encode when ``allow_encode``, ``progress``
    following it); ``queries``: their vectors (shipped or
    live, ``dense_from``) and the ranking. ``step(name, done, total)`` is called as each
    step starts and as it counts (without it, the checks run inside ``document_vectors``
    and ``dense_from``, as their ``Encoded.seconds`` count them). Returns (ranking, the
    documents' Encoded, notes), or (None, None, notes) when the documents need an encode
    that is not allowed."""
    get_model = get_model or file_loader(model)
    qids = data.query_ids
    qtexts = [data.queries[q] for q in qids]
    shown = step is not None   # else (the CLI) the checks run inside the calls below
    use_shipped = shipped and not encode_all
    if shown and not (use_shipped and checks_on_record(qids, qtexts, data.content_hash,
                                                       model)):
        step("load", None, None)
        get_model()
    elif not shown:
        step = lambda *_a: None  # noqa: E731
    check_docs = shown and use_shipped and spot_check_pending(data.content_hash, model)
    check_queries = shown and use_shipped and queries_check_pending(
        qids, qtexts, data.content_hash, model)
    n_docs, n_q = min(SPOT_N, data.n_docs) * check_docs, min(SPOT_N, len(qids)) * check_queries
    if n_docs or n_q:
        step("check", 0, n_docs + n_q)
        if n_docs:
            shipped_vectors(data.texts, data.content_hash, model_name=model,
                            get_model=get_model,
                            progress=lambda d, t, e: step("check", d, n_docs + n_q))
        if n_q:
            shipped_queries(qids, qtexts, data.content_hash, model_name=model,
                            get_model=get_model,
                            progress=lambda d, t, e: step("check", n_docs + d, n_docs + n_q))
    docs, notes = document_vectors(data.texts, data.content_hash, encode_all=encode_all,
                                   allow_encode=allow_encode, shipped=shipped,
                                   progress=progress, model_name=model, get_model=get_model,
                                   cache_dir=cache_dir)
    if docs is None:
        return None, None, notes
    step("queries", 0, len(qids))
    ranking, docs, more = dense_from(data, docs, model=model, get_model=get_model,
                                     cache_dir=cache_dir,
                                     progress=lambda d, t, e: step("queries", d, t))
    return ranking, docs, notes + more


def dense_from(data: BeirData, docs: Encoded, *, model: str | None = None, get_model=None,
               cache_dir=CACHE_DIR, progress: Progress | None = None
               ) -> tuple[Ranking, Encoded, list]:
    """The dense ranking of every judged query from the document vectors ``docs``: the
    queries' vectors are the shipped ones when the documents' are and they pass their checks
    (``core.retrieval.vectors.shipped_queries``, a ``queries_shipped`` note), else encoded
    live (``core.retrieval.search.encode_texts``, no cache; ``progress`` follows it), ranked
    by cosine (``dense_search``). When the two widths differ (a cache entry written by
    another model under the same key), the documents are encoded again live, with a
    ``cache_width`` note. Returns (ranking, the documents' Encoded actually used, notes)."""
    qids = data.query_ids
    qtexts = [data.queries[q] for q in qids]
    kw = dict(model_name=model, get_model=get_model or file_loader(model), cache_dir=cache_dir)
    queries, notes = (shipped_queries(qids, qtexts, data.content_hash, model_name=model,
                                      get_model=kw["get_model"])
                      if docs.source == "shipped" else (None, []))
    if queries is not None and queries.width == docs.width:
        notes.append(("queries_shipped", {"file": Path(queries.path).name,
                                          "n": queries.check.n,
                                          "min": floor5(queries.check.min_cosine)}))
    else:
        queries = encode_texts(qtexts, kind="queries", width=docs.width, progress=progress,
                               **{**kw, "cache_dir": None})
        notes += list(queries.notes)
    if queries.width != docs.width:
        notes.append(("cache_width", {"cached": docs.width, "model": queries.width}))
        docs, _ = document_vectors(data.texts, data.content_hash, encode_all=True, **kw)
    return dense_search(qids, queries.embeddings, docs.embeddings), docs, notes


def with_hybrid(rankings: dict[str, Ranking]) -> dict[str, Ranking]:
    """``rankings`` plus ``hybrid``: reciprocal rank fusion of ``bm25`` and ``dense``
    (``core.retrieval.search.rrf`` with its RRF_K and RRF_DEPTH)."""
    for name in ("bm25", "dense"):
        if name not in rankings:
            raise ValueError(f"rankings must hold {name!r} to build the hybrid")
    return {**rankings, "hybrid": rrf([rankings["bm25"], rankings["dense"]])}


def run_settings(bm25: BM25Params, model: str, *, seed: int, queries: int | None) -> dict:
    """The settings a result depends on, as the CLI's JSON and the page's summary show them:
    BM25 parameters, the dense model, RRF's k and depth, the seed and the query subset."""
    return {"bm25": bm25.to_dict(), "model": model, "rrf_k": RRF_K, "rrf_depth": RRF_DEPTH,
            "seed": seed, "queries": queries}


def evaluate(data: BeirData, rankings: dict[str, Ranking]) -> dict[str, pd.DataFrame]:
    """Per-query tables (index = query id, columns = MEASURES) via ``core.inputs.metrics.per_query``."""
    return {name: per_query(r.to_run(data.doc_ids), data.qrels, MEASURES)
            for name, r in rankings.items()}


def subsample(query_ids: Sequence[str], n: int | None, *, seed: int = 0) -> tuple[str, ...]:
    """A seeded random subset of ``n`` query ids, in the order of ``query_ids``. The subsets are nested: for one
    seed, the first n of one fixed permutation, so shrinking n only removes queries."""
    ids = tuple(query_ids)
    if n is None or n == len(ids):
        return ids
    n = checks.whole("queries", n, lo=1, hi=len(ids))
    perm = np.random.default_rng(checks.seed(seed)).permutation(len(ids))[:n]
    return tuple(ids[i] for i in sorted(perm))


def means(tables: dict[str, pd.DataFrame], queries: Sequence[str] | None = None) -> dict:
    """``{retriever: {measure: mean over queries}}``."""
    out = {}
    for name, tab in tables.items():
        sub = tab if queries is None else tab.loc[list(queries)]
        out[name] = {m: float(sub[m].mean()) for m in MEASURES}
    return out


def retriever_estimate(tables: dict[str, pd.DataFrame], name: str, metric: str, *,
                       queries: Sequence[str] | None = None, confidence: float = 0.95,
                       resamples: int = DEFAULT_RESAMPLES, seed: int = 0) -> RateEstimate:
    """One retriever's mean ``metric`` over ``queries`` (all by default) with its own
    interval (``core.paired.rate_estimate``: Wilson for Hit@10's 0/1 values, the calibrated
    t-interval for scores): what the page shows for BM25 while the dense side gets ready."""
    check_retriever(name)
    check_metric(metric)
    if name not in tables:
        raise ValueError(f"tables has no retriever {name!r}; it has {sorted(tables)}")
    tab = tables[name] if queries is None else tables[name].loc[list(queries)]
    return rate_estimate(tab[metric].to_numpy(float), confidence=confidence,
                         resamples=resamples, seed=seed, binary=metric.startswith("hit@"))


# ----------------------------------------------------------------------------- comparing
def hit_overlap(hit_a: np.ndarray, hit_b: np.ndarray) -> dict[str, int]:
    """Hit@10 overlap: queries with a relevant document in the top 10 of A only, B only,
    both, or neither (the caller passes aligned per-query Hit@10 values)."""
    a, b = hit_a > 0, hit_b > 0
    return {"a_only": int(np.sum(a & ~b)), "b_only": int(np.sum(~a & b)),
            "both": int(np.sum(a & b)), "neither": int(np.sum(~a & ~b))}


def compare_retrievers(tables: dict[str, pd.DataFrame], a: str, b: str,
                       metric: str = "ndcg@10", *, queries: Sequence[str] | None = None,
                       resamples: int = DEFAULT_RESAMPLES, confidence: float = 0.95,
                       seed: int = 0, interval: str = "auto",
                       self_check: bool = True) -> PairedComparison:
    """Paired comparison of A and B over ``queries`` (default: all judged queries): the one
    paired result (``core.paired.compare_paired`` with ``detail=False``: the means and the
    verdict's test), with ``case_ids`` the query ids, ``metric`` and the Hit@10 overlap
    ``hits``.

    Difference d_q = metric_B(q) - metric_A(q) (new minus baseline); its mean gets the paired
    bootstrap CI of B - A, the matching exact test (McNemar for 0/1 metrics such as Hit@10,
    sign-flip randomization otherwise) and the verdict of ``core.paired.compare.decide``
    (better only when the CI excludes 0 and the test's p < 1 - confidence), with the
    self-check, both computed there (``self_check=False`` when only the verdict is wanted).
    """
    check_retriever(a, "a")
    check_retriever(b, "b")
    if a == b:
        raise InputError("same_method", method=a)
    metric = check_metric(metric)
    for name in (a, b):
        if name not in tables:
            raise ValueError(f"no per-query table for {name!r}; run it first")
    qids = tuple(tables[a].index) if queries is None else tuple(queries)
    if len(qids) < 2:
        raise InputError("too_few_paired", count=len(qids), a=a, b=b)
    ta, tb = tables[a].loc[list(qids)], tables[b].loc[list(qids)]
    comp = compare_paired(ta[metric].to_numpy(float), tb[metric].to_numpy(float), name_a=a,
                          name_b=b, resamples=resamples, confidence=confidence, seed=seed,
                          interval=interval, self_check=self_check, detail=False,
                          case_ids=qids, metric=metric)
    return replace(comp, hits=hit_overlap(ta["hit@10"].to_numpy(float),
                                          tb["hit@10"].to_numpy(float)))


def comparison_dict(comp: PairedComparison) -> dict:
    """The ``comparison`` block of ``python -m core scifact --json``: the means, per-query
    wins, the Hit@10 overlap and the difference B - A with its CI, test and decision."""
    bs = comp.bootstrap
    return {"a": comp.a, "b": comp.b, "metric": comp.metric, "n_queries": comp.n,
            "mean_a": comp.mean_a, "mean_b": comp.mean_b, "a_wins": comp.a_wins,
            "b_wins": comp.b_wins, "ties": comp.ties, "hits": comp.hits,
            "difference": {"b_minus_a": bs.mean, "ci_low": bs.ci_low,
                           "ci_high": bs.ci_high, "confidence": bs.confidence,
                           **interval_provenance(bs), "degenerate": bs.degenerate,
                           "interval_warning": comp.interval_warning,
                           "calibration": (None if comp.calibration is None
                                           else comp.calibration.to_dict())},
            "resamples": bs.resamples, "seed": bs.seed, "verdict": comp.verdict,
            "test": comp.test.to_dict(), "decision": comp.decision.to_dict()}


def query_frame(comp: PairedComparison) -> pd.DataFrame:
    """One row per query: query_id, value of A, value of B, ``diff`` = B - A."""
    return pd.DataFrame({"query_id": list(comp.case_ids), comp.a: comp.a_values,
                         comp.b: comp.b_values, "diff": comp.diff})


def ci_by_n(tables: dict[str, pd.DataFrame], a: str, b: str, metric: str, ns: Sequence[int],
            *, resamples: int = DEFAULT_RESAMPLES, confidence: float = 0.95,
            seed: int = 0, interval: str = "auto") -> pd.DataFrame:
    """The CI of mean(B - A) on nested seeded subsets of each size in ``ns``:
    columns n, mean (of B - A), ci_low, ci_high, verdict."""
    all_ids = tuple(tables[a].index)
    rows = []
    for n in sorted({int(x) for x in ns if 2 <= int(x) <= len(all_ids)}):
        c = compare_retrievers(tables, a, b, metric, queries=subsample(all_ids, n, seed=seed),
                               resamples=resamples, confidence=confidence, seed=seed,
                               interval=interval, self_check=False)
        rows.append({"n": n, "mean": c.bootstrap.mean, "ci_low": c.bootstrap.ci_low,
                     "ci_high": c.bootstrap.ci_high, "verdict": c.verdict})
    return pd.DataFrame(rows, columns=["n", "mean", "ci_low", "ci_high", "verdict"])


def rank_retrievers(tables: dict[str, pd.DataFrame], metric: str = "ndcg@10", *,
                    queries: Sequence[str] | None = None, resamples: int = DEFAULT_RESAMPLES,
                    confidence: float = 0.95, seed: int = 0, method: str = "mcb") -> BestSet:
    """The tied-for-best set and rank intervals of every retriever in ``tables`` (in
    ``RETRIEVERS`` order; the page and the CLI pass all three) on ``metric`` over ``queries``
    (default: all judged queries): ``core.paired.best.best_set`` on the per-query table, queries
    x retrievers, larger is better; ``method`` names how the set is read
(``core.paired.best.BEST_METHODS``: mcb, the default, or all-pairs). Its sentence reads "Best: hybrid or dense — cannot tell
    which; bm25 is behind both" (``core.views.best_set.best_sentence``)."""
    metric = check_metric(metric)
    names = [r for r in RETRIEVERS if r in tables]
    if len(names) < 2:
        raise ValueError(f"rank_retrievers needs per-query tables of two or more retrievers, "
                         f"got {sorted(tables)}")
    qids = list(tables[names[0]].index) if queries is None else list(queries)
    scores = pd.DataFrame({r: tables[r].loc[qids, metric].to_numpy(float) for r in names},
                          index=qids)
    return best_set(scores, resamples=resamples, confidence=confidence, seed=seed,
                    method=method)


# ----------------------------------------------------------------------------- drill-down
def disagreements(comp: PairedComparison) -> pd.DataFrame:
    """Queries where A and B score differently (``diff`` = B - A), largest |B - A| first."""
    f = query_frame(comp)
    f = f[np.abs(f["diff"]) > TIE_TOL]
    return f.reindex(f["diff"].abs().sort_values(ascending=False, kind="stable").index) \
        .reset_index(drop=True)


def side_by_side(data: BeirData, rankings: dict[str, Ranking], query_id: str, a: str, b: str,
                 k: int = 10) -> pd.DataFrame:
    """The top ``k`` of A and of B for one query, relevant documents marked, titles shown."""
    if query_id not in data.qrels:
        raise ValueError(f"query_id {query_id!r} has no judgements")
    judged = data.qrels[query_id]
    rows = {"rank": list(range(1, k + 1))}
    for side, name in (("a", a), ("b", b)):
        top = rankings[name].top(query_id, k) + [(-1, float("nan"))] * k
        ids = [data.doc_ids[j] if j >= 0 else "" for j, _ in top[:k]]
        rows[f"{side}_doc"] = ids
        rows[f"{side}_relevant"] = [bool(d) and judged.get(d, 0) > 0 for d in ids]
        rows[f"{side}_title"] = [data.titles[j] if j >= 0 else "" for j, _ in top[:k]]
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------- one call
@dataclass(frozen=True)
class ScifactResult:
    """Everything ``python -m core scifact --json`` prints."""

    collection: dict
    scores: dict
    comparison: PairedComparison
    settings: dict
    judged: JudgedBounds | None = None   # Judged@10 and both bounds (core.inputs.judged)
    best: BestSet | None = None   # tied-for-best set of the three retrievers (rank_retrievers)

    def to_dict(self) -> dict:
        return {"collection": self.collection["name"], "path": self.collection["path"],
                "n_queries": self.comparison.n, "n_queries_judged":
                    self.collection["n_queries"], "n_docs": self.collection["n_docs"],
                "n_judgements": self.collection["n_judgements"], "scores": self.scores,
                "comparison": comparison_dict(self.comparison), "settings": self.settings,
                "judged": None if self.judged is None else self.judged.to_dict(),
                "best_set": None if self.best is None else self.best.to_dict()}


def run_scifact(data: BeirData, a: str = "bm25", b: str = "dense", metric: str = "ndcg@10", *,
                bm25: BM25Params = BM25Params(), model: str | None = None,
                queries: int | None = None, resamples: int = DEFAULT_RESAMPLES,
                confidence: float = 0.95, seed: int = 0, interval: str = "auto",
                cache_dir=CACHE_DIR,
                progress: Progress | None = None, get_model=None,
                notes: list | None = None, encode_all: bool = False,
                vectors: list | None = None, best_method: str = "mcb") -> ScifactResult:
    """Run all three retrievers (any A and B need BM25 and dense; hybrid is their RRF),
    score every judged query, compare A and B on a seeded subset of ``queries`` of them (all
    when None). Means in ``scores`` are over the same subset; ``best``: the tied-for-best
    set of the three on ``metric`` (``rank_retrievers``); ``judged``: Judged@10 of every
    retriever and ``metric`` with unjudged documents non-relevant / relevant, with the
    verdict under both (``core.inputs.judged.beir_bounds``); ``best_method``: how the set is
    read (``rank_retrievers``' ``method``). Notes go to ``notes``, the documents' ``Encoded`` to ``vectors`` (see ``run_retrievers``)."""
    check_retriever(a, "a")
    check_retriever(b, "b")
    metric = check_metric(metric)
    if a == b:
        raise InputError("same_method", method=a)
    rankings = run_retrievers(data, RETRIEVERS, bm25=bm25, model=model, cache_dir=cache_dir,
                              progress=progress, get_model=get_model, notes=notes,
                              encode_all=encode_all, vectors=vectors)
    tables = evaluate(data, rankings)
    qids = subsample(data.query_ids, queries, seed=seed)
    comp = compare_retrievers(tables, a, b, metric, queries=qids, resamples=resamples,
                              confidence=confidence, seed=seed, interval=interval)
    settings = run_settings(bm25, model or DEFAULT_MODEL, seed=seed, queries=queries)
    judged = beir_bounds(data, rankings, metric, a, b, queries=qids, resamples=resamples,
                         confidence=confidence, seed=seed, interval=interval)
    best = rank_retrievers(tables, metric, queries=qids, resamples=resamples,
                           confidence=confidence, seed=seed, method=best_method)
    return ScifactResult(data.to_dict(), means(tables, qids), comp, settings, judged, best)
