"""Missing labels: how much of each method's top k carries a judgement (Judged@k), each
method's metric when the unjudged documents are counted non-relevant or relevant, and the
A vs B verdict under both readings.

- Judged@k (ir_measures ``Judged@k``; Sakai 2007 calls 1 − Judged@k the "hole" rate, BEIR
  reports it as Hole@k, Thakur et al. 2021): per query, |{d in top k : d judged}| / |top k|,
  where "judged" means the pair (query, d) has a judgement of any grade, 0 included, and
  |top k| = min(k, documents retrieved) (as ir_measures divides); 0 when nothing was
  retrieved (as ir_measures gives a judged query missing from the run, and as a missing
  query's metric is 0). A method's Judged@k is the mean over the queries compared.
- The pool to label next: per query, the union over the methods of their top-k documents
  that carry no judgement, deduplicated, with the methods that retrieved each and its best
  rank (the depth-k pool of TREC, Voorhees & Harman 2005).
- The two readings: "unjudged = non-relevant" is the usual one (trec_eval, ir_measures);
  "unjudged = relevant" gives every pooled document grade 1 (the lowest relevant grade of
  trec_eval; a measure with a higher threshold, such as ``P(rel=2)@10``, sees no change)
  for its query (one label per
  document, the same in every method, so the verdict compares like with like) and scores
  every method again with the same scorer. Documents below rank k stay non-relevant in both.
  For metrics that only look at a method's own top k (P@k, Hit@k, MRR@k) the two are the
  lowest and highest values any labelling of the pool can give; for nDCG, recall and AP a
  pooled document another method found also raises the ideal (the denominator), so the
  second reading can be lower than the first for a method that missed it.
- The verdict of A vs B under each reading is ``core.paired.compare.compare_paired`` on that
  reading's per-query values (the page's machinery, the same seed); when the two verdicts
  differ, the verdict depends on labels that are missing.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from core import checks
from core.inputs.metrics import per_query
from core.inputs.tables import find_column
from core.paired import check_interval, compare_checked, paired_data

DEFAULT_K = 10
POOL_COLUMNS = ("query_id", "query", "doc_id", "best_rank", "methods")


def judged_at_k(ranked: Sequence[str], judged: Mapping[str, int], k: int = DEFAULT_K) -> float:
    """Share of the first ``k`` documents of ``ranked`` that have a judgement in ``judged``
    (any grade); 0 when nothing was retrieved. Equal to ir_measures' ``Judged@k``."""
    k = checks.whole("k", k, lo=1)
    top = list(dict.fromkeys(ranked))[:k]
    if not top:
        return 0.0
    return sum(1 for d in top if d in judged) / len(top)


def judged_table(rankings: Mapping[str, Mapping[str, Sequence[str]]],
                 qrels: Mapping[str, Mapping[str, int]], k: int = DEFAULT_K,
                 queries: Sequence[str] | None = None) -> pd.DataFrame:
    """Judged@k per query (rows: ``queries``, default every query of ``qrels`` in sorted
    order) and method (columns, in ``rankings`` order)."""
    k = checks.whole("k", k, lo=1)
    qids = sorted(qrels) if queries is None else list(queries)
    return pd.DataFrame({m: [judged_at_k(r.get(q, ()), qrels.get(q, {}), k) for q in qids]
                         for m, r in rankings.items()},
                        index=pd.Index(qids, name="query_id"))


def unjudged_pool(rankings: Mapping[str, Mapping[str, Sequence[str]]],
                  qrels: Mapping[str, Mapping[str, int]], k: int = DEFAULT_K,
                  queries: Sequence[str] | None = None,
                  query_text: Mapping[str, str] | None = None) -> pd.DataFrame:
    """The documents to label next: per query, the union of every method's top ``k`` that
    has no judgement, one row per (query, document), with the query's text when known, the
    best rank any method gave it and the methods that retrieved it ("|"-joined, in
    ``rankings`` order). Rows by query (``queries`` order), then best rank, then doc id."""
    k = checks.whole("k", k, lo=1)
    qids = sorted(qrels) if queries is None else list(queries)
    rows = []
    for q in qids:
        judged = qrels.get(q, {})
        found: dict[str, list] = {}
        for m, r in rankings.items():
            for rank, d in enumerate(list(dict.fromkeys(r.get(q, ())))[:k], start=1):
                if d in judged:
                    continue
                best, who = found.setdefault(d, [rank, []])
                found[d][0] = min(best, rank)
                who.append(m)
        for d, (best, who) in sorted(found.items(), key=lambda x: (x[1][0], x[0])):
            rows.append((q, (query_text or {}).get(q, ""), d, best, "|".join(who)))
    return pd.DataFrame(rows, columns=list(POOL_COLUMNS))


def relevant_bound_qrels(qrels: Mapping[str, Mapping[str, int]],
                         pool: pd.DataFrame) -> dict[str, dict[str, int]]:
    """``qrels`` with every pooled document of a query judged relevant (grade 1): the
    "unjudged = relevant" reading. A new dict; ``qrels`` is not changed."""
    out = {q: dict(j) for q, j in qrels.items()}
    for q, d in zip(pool["query_id"], pool["doc_id"]):
        out.setdefault(q, {})[d] = 1
    return out


@dataclass(frozen=True)
class JudgedBounds:
    """Judged@k of each method, its metric under both readings, the A vs B verdict under
    both, and the pool. ``low`` / ``high``: per-query values (queries x methods) with the
    unjudged documents non-relevant / relevant."""

    k: int
    metric: str
    a: str
    b: str
    judged: pd.DataFrame = field(repr=False)
    low: pd.DataFrame = field(repr=False)
    high: pd.DataFrame = field(repr=False)
    pool: pd.DataFrame = field(repr=False)
    verdict_low: str
    verdict_high: str
    diff_low: tuple[float, float, float]    # B − A, CI low, CI high
    diff_high: tuple[float, float, float]

    @property
    def differ(self) -> bool:
        """True when the verdict depends on labels that are missing."""
        return self.verdict_low != self.verdict_high

    def summary(self) -> pd.DataFrame:
        """One row per method: mean Judged@k, the metric under each reading."""
        return pd.DataFrame({"method": list(self.judged.columns),
                             "judged": [float(self.judged[m].mean()) for m in self.judged],
                             "low": [float(self.low[m].mean()) for m in self.judged],
                             "high": [float(self.high[m].mean()) for m in self.judged]})

    def to_dict(self) -> dict:
        s = self.summary()
        return {"k": self.k, "metric": self.metric,
                "methods": {r.method: {f"judged@{self.k}": r.judged,
                                       "unjudged_nonrelevant": r.low,
                                       "unjudged_relevant": r.high}
                            for r in s.itertuples(index=False)},
                "a": self.a, "b": self.b,
                "verdict": {"unjudged_nonrelevant": self.verdict_low,
                            "unjudged_relevant": self.verdict_high},
                "difference": {"unjudged_nonrelevant": dict(zip(
                    ("b_minus_a", "ci_low", "ci_high"), self.diff_low)),
                               "unjudged_relevant": dict(zip(
                                   ("b_minus_a", "ci_low", "ci_high"), self.diff_high))},
                "verdict_depends_on_missing_labels": self.differ,
                "pool_size": int(len(self.pool)),
                "pool_queries": int(self.pool["query_id"].nunique())}


def judged_bounds(rankings: Mapping[str, Mapping[str, Sequence[str]]],
                  qrels: Mapping[str, Mapping[str, int]],
                  score: Callable[[Mapping[str, Mapping[str, int]]], pd.DataFrame], *,
                  a: str, b: str, metric: str, k: int = DEFAULT_K,
                  queries: Sequence[str] | None = None,
                  query_text: Mapping[str, str] | None = None, resamples: int = 20_000,
                  confidence: float = 0.95, seed: int = 0,
                  interval: str = "auto") -> JudgedBounds:
    """Judged@k, the two readings and their verdicts (see the module docstring).

    ``score(qrels)`` returns the per-query metric (index: query ids, columns: methods) for
    a set of judgements; it is called twice, with ``qrels`` and with the relevant-bound
    judgements, so both readings use the page's own scorer. ``queries`` (default: the
    index ``score(qrels)`` returns) are the queries compared; rows with a NaN for A or B
    are left out of the verdicts."""
    k = checks.whole("k", k, lo=1)
    resamples, confidence, seed = checks.bootstrap_iv(resamples, confidence, seed)
    interval = check_interval(interval)   # checked once: both readings trust it
    checks.instance("rankings", rankings, Mapping, "a mapping of method -> {query: ranking}")
    for name in (a, b):
        checks.choice("a" if name == a else "b", name, list(rankings))
    low = score(qrels)
    qids = list(low.index) if queries is None else list(queries)
    low = low.loc[qids]
    pool = unjudged_pool(rankings, qrels, k, qids, query_text)
    high = score(relevant_bound_qrels(qrels, pool)).loc[qids]
    judged = judged_table(rankings, qrels, k, qids)
    out = []
    for frame in (low, high):
        both = frame[[a, b]].dropna()
        c = compare_checked(paired_data(both[a].to_numpy(float), both[b].to_numpy(float),
                                        min_n=2), name_a=a, name_b=b, resamples=resamples,
                            confidence=confidence, seed=seed, interval=interval,
                            self_check=False)
        bs = c.bootstrap
        out.append((c.verdict, (float(bs.mean), float(bs.ci_low), float(bs.ci_high))))
    return JudgedBounds(k, metric, a, b, judged, low, high, pool, out[0][0], out[1][0],
                        out[0][1], out[1][1])


# ----------------------------------------------------------------------------- the sources
def trec_bounds(scores, a: str, b: str, *, k: int = DEFAULT_K, **stat) -> JudgedBounds:
    """``judged_bounds`` for TREC runs (a ``core.inputs.trec.TrecScores``): every run's ranking in
    trec_eval order, its first measure scored again by ``core.inputs.trec.score_runs`` (ir_measures)
    under each reading, on the judged queries."""
    from core.inputs.trec import score_runs  # lazy: ir_measures, only for TREC runs

    measure = scores.measures[0]
    rankings = {r.name: r.ranking for r in scores.runs}
    runs = list(scores.runs)

    def score(qrels):
        if qrels is scores.qrels:  # the judgements as they are: the values already scored
            return scores.values[measure]
        return score_runs(runs, qrels, [measure], qrels_file=scores.qrels_file).values[measure]

    return judged_bounds(rankings, scores.qrels, score, a=a, b=b, metric=measure, k=k, **stat)


def lists_bounds(list_scores, metric: str, a: str, b: str, *, k: int = DEFAULT_K,
                 **stat) -> JudgedBounds:
    """``judged_bounds`` for a retrieval-list file (``core.inputs.lists.ListScores``, ids only: a
    passage matched by similarity has no id to label): the reference ids are the
    judgements (all relevant), the cases with a reference are the queries, ``metric`` (a
    ``ListScores.values`` key such as ``ndcg@10``) is scored by ``core.inputs.lists.case_values``
    at the list cutoff."""

    # lazy: core.inputs.lists (and its pandas reader) only for list files; TREC runs skip it
    from core.inputs.lists import QUERY_NAMES, case_values

    ls = list_scores.lists
    if ls.kind != "ids":
        raise ValueError("Judged@k needs document ids; this list file holds passages")
    if metric not in list_scores.values:
        raise ValueError(f"metric must be one of {', '.join(list_scores.values)}")
    name = metric.split("@")[0]
    cases = [c for c, g in zip(ls.cases, ls.gold) if g]
    qrels = {c: {d: 1 for d in g} for c, g in zip(ls.cases, ls.gold) if g}
    rankings = {m: dict(zip(ls.cases, (list(x) for x in ls.retrieved[m]))) for m in ls.methods}
    text_col = find_column(ls.text.columns, QUERY_NAMES)
    query_text = ({c: str(ls.text.at[c, text_col]) for c in cases}
                  if text_col is not None else None)

    def score(q):
        if q is qrels:  # the judgements as they are: the values already scored
            return list_scores.values[metric].loc[cases]
        return pd.DataFrame({m: [case_values(rankings[m][c],
                                             [d for d, g in q[c].items() if g > 0],
                                             list_scores.k, "ids", only=name)[name]
                                 for c in cases]
                             for m in ls.methods}, index=pd.Index(cases, name="case_id"))

    return judged_bounds(rankings, qrels, score, a=a, b=b, metric=metric, k=k,
                         queries=cases, query_text=query_text, **stat)


def beir_bounds(data, rankings, metric: str, a: str, b: str, *, k: int = DEFAULT_K,
                queries: Sequence[str] | None = None, **stat) -> JudgedBounds:
    """``judged_bounds`` for a BEIR collection (``core.retrieval.beir.BeirData``) and the rankings of
    ``core.retrieval.scifact`` (``{name: core.retrieval.search.Ranking}``): ``metric`` from
    ``core.inputs.metrics.per_query`` under each reading, on ``queries`` (default: every judged
    query); the pool carries each query's text."""

    runs = {n: r.to_run(data.doc_ids) for n, r in rankings.items()}

    def score(q):
        return pd.DataFrame({n: per_query(run, q, [metric])[metric] for n, run in runs.items()})

    return judged_bounds(runs, data.qrels, score, a=a, b=b, metric=metric, k=k,
                         queries=queries, query_text=data.queries, **stat)
