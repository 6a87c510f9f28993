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

import sys
from dataclasses import dataclass
from typing import Callable, Mapping, NamedTuple, Sequence

import numpy as np

from core import checks
from core.inputs.golden_cases import (CaseScores, CaseText, PandasField, mean_of_defined,
                                      stored_form)
from core.inputs.metrics import per_query
from core.inputs.tables import find_column
from core.paired import check_interval, compare_checked, paired_data, score_table

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


def judged_values(rankings: Mapping[str, Mapping[str, Sequence[str]]],
                  qrels: Mapping[str, Mapping[str, int]], k: int = DEFAULT_K,
                  queries: Sequence[str] | None = None) -> CaseScores:
    """Judged@k per query (rows: ``queries``, default every query of ``qrels`` in sorted
    order) and method (columns, in ``rankings`` order), without pandas (index name
    ``query_id``)."""
    k = checks.whole("k", k, lo=1)
    qids = sorted(qrels) if queries is None else list(queries)
    cols = [[judged_at_k(r.get(q, ()), qrels.get(q, {}), k) for q in qids]
            for r in rankings.values()]
    values = np.array(cols, dtype=float).T.reshape(len(qids), len(cols))
    return CaseScores(tuple(qids), tuple(rankings), values, index_name="query_id")


def judged_table(rankings: Mapping[str, Mapping[str, Sequence[str]]],
                 qrels: Mapping[str, Mapping[str, int]], k: int = DEFAULT_K,
                 queries: Sequence[str] | None = None):
    """``judged_values`` as a pandas DataFrame (index ``query_id``)."""
    return judged_values(rankings, qrels, k, queries).frame()


def pool_rows(rankings: Mapping[str, Mapping[str, Sequence[str]]],
              qrels: Mapping[str, Mapping[str, int]], k: int = DEFAULT_K,
              queries: Sequence[str] | None = None,
              query_text: Mapping[str, str] | None = None) -> list[tuple]:
    """The documents to label next: per query, the union of every method's top ``k`` that
    has no judgement, one row (``POOL_COLUMNS``) per (query, document), with the query's
    text when known, the best rank any method gave it and the methods that retrieved it
    ("|"-joined, in ``rankings`` order). Rows by query (``queries`` order), then best rank,
    then doc id. No pandas (``unjudged_pool``: the same as a frame)."""
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
    return rows


def pool_frame(rows: list[tuple]):
    """``pool_rows`` as a pandas DataFrame (columns ``POOL_COLUMNS``)."""
    import pandas as pd

    return pd.DataFrame(rows, columns=list(POOL_COLUMNS))


def unjudged_pool(rankings: Mapping[str, Mapping[str, Sequence[str]]],
                  qrels: Mapping[str, Mapping[str, int]], k: int = DEFAULT_K,
                  queries: Sequence[str] | None = None,
                  query_text: Mapping[str, str] | None = None):
    """``pool_rows`` as a pandas DataFrame."""
    return pool_frame(pool_rows(rankings, qrels, k, queries, query_text))


def relevant_bound_qrels(qrels: Mapping[str, Mapping[str, int]],
                         pool) -> dict[str, dict[str, int]]:
    """``qrels`` with every pooled document of a query judged relevant (grade 1): the
    "unjudged = relevant" reading. ``pool``: ``pool_rows`` or its frame. A new dict;
    ``qrels`` is not changed."""
    out = {q: dict(j) for q, j in qrels.items()}
    pairs = ((r[0], r[2]) for r in pool) if isinstance(pool, list) else \
        zip(pool["query_id"], pool["doc_id"])
    for q, d in pairs:
        out.setdefault(q, {})[d] = 1
    return out


class JudgedRow(NamedTuple):
    """One method's line of ``JudgedBounds.summary_rows``."""

    method: str
    judged: float
    low: float
    high: float


@dataclass(frozen=True)
class JudgedBounds:
    """Judged@k of each method, its metric under both readings, the A vs B verdict under
    both, and the pool. ``low`` / ``high``: per-query values (queries x methods) with the
    unjudged documents non-relevant / relevant; ``judged``: Judged@k per query and method.
    These three are given as ``CaseScores`` or pandas frames and the pool as ``pool_rows``
    or a frame; read, they are pandas frames (built on first access: the CLI's lists path
    never imports pandas, issue 38)."""

    k: int
    metric: str
    a: str
    b: str
    judged: pd.DataFrame = PandasField(CaseScores, CaseScores.frame)
    low: pd.DataFrame = PandasField(CaseScores, CaseScores.frame)
    high: pd.DataFrame = PandasField(CaseScores, CaseScores.frame)
    pool: pd.DataFrame = PandasField(list, pool_frame)
    verdict_low: str
    verdict_high: str
    diff_low: tuple[float, float, float]    # B − A, CI low, CI high
    diff_high: tuple[float, float, float]

    @property
    def differ(self) -> bool:
        """True when the verdict depends on labels that are missing."""
        return self.verdict_low != self.verdict_high

    def _table(self, name: str) -> tuple[tuple[str, ...], np.ndarray]:
        """(the methods, the values) of the field ``name`` as stored."""
        _, methods, values = score_table(stored_form(self, name))
        return methods, values

    def _pool(self) -> list[tuple]:
        given = stored_form(self, "pool")
        return given if isinstance(given, list) else \
            list(given.itertuples(index=False, name=None))

    def summary_rows(self) -> list[JudgedRow]:
        """One row per method: mean Judged@k, the metric under each reading (no pandas)."""
        methods, judged = self._table("judged")
        (low_m, low), (high_m, high) = self._table("low"), self._table("high")
        return [JudgedRow(m, float(mean_of_defined(judged[:, j])),
                          float(mean_of_defined(low[:, low_m.index(m)])),
                          float(mean_of_defined(high[:, high_m.index(m)])))
                for j, m in enumerate(methods)]

    def summary(self):
        """``summary_rows`` as a pandas DataFrame (columns method, judged, low, high)."""
        import pandas as pd

        rows = self.summary_rows()
        return pd.DataFrame({"method": [r.method for r in rows],
                             "judged": [r.judged for r in rows],
                             "low": [r.low for r in rows], "high": [r.high for r in rows]})

    def to_dict(self) -> dict:
        pool = self._pool()
        return {"k": self.k, "metric": self.metric,
                "methods": {r.method: {f"judged@{self.k}": r.judged,
                                       "unjudged_nonrelevant": r.low,
                                       "unjudged_relevant": r.high}
                            for r in self.summary_rows()},
                "a": self.a, "b": self.b,
                "verdict": {"unjudged_nonrelevant": self.verdict_low,
                            "unjudged_relevant": self.verdict_high},
                "difference": {"unjudged_nonrelevant": dict(zip(
                    ("b_minus_a", "ci_low", "ci_high"), self.diff_low)),
                               "unjudged_relevant": dict(zip(
                                   ("b_minus_a", "ci_low", "ci_high"), self.diff_high))},
                "verdict_depends_on_missing_labels": self.differ,
                "pool_size": len(pool),
                "pool_queries": len({r[0] for r in pool})}


def _rows(table, qids: list) -> tuple[CaseScores, np.ndarray]:
    """The rows ``qids`` (in that order) of a per-query table (a pandas frame or a
    ``CaseScores``): (the stored form, the values); a query the table lacks is a
    ``KeyError``, as ``DataFrame.loc`` raises."""
    pd = sys.modules.get("pandas")  # a frame exists only once pandas has been imported
    ids, methods, values = score_table(table)
    where = {q: i for i, q in enumerate(ids)}
    missing = [q for q in qids if q not in where]
    if missing:
        raise KeyError(f"queries not scored: {missing[:5]}")
    rows = values[[where[q] for q in qids]]
    if pd is not None and isinstance(table, pd.DataFrame):
        return table.loc[qids], rows
    return CaseScores(tuple(qids), methods, rows, index_name=table.index_name), rows


def judged_bounds(rankings: Mapping[str, Mapping[str, Sequence[str]]],
                  qrels: Mapping[str, Mapping[str, int]],
                  score: Callable[[Mapping[str, Mapping[str, int]]], object], *,
                  a: str, b: str, metric: str, k: int = DEFAULT_K,
                  queries: Sequence[str] | None = None,
                  query_text: Mapping[str, str] | None = None, resamples: int = 20_000,
                  confidence: float = 0.95, seed: int = 0,
                  interval: str = "auto") -> JudgedBounds:
    """Judged@k, the two readings and their verdicts (see the module docstring).

    ``score(qrels)`` returns the per-query metric (a pandas frame, index: query ids,
    columns: methods, or a ``CaseScores``) for a set of judgements; it is called twice,
    with ``qrels`` and with the relevant-bound judgements, so both readings use the page's
    own scorer. ``queries`` (default: the
    index ``score(qrels)`` returns) are the queries compared; rows with a NaN for A or B
    are left out of the verdicts."""
    k = checks.whole("k", k, lo=1)
    resamples, confidence, seed = checks.bootstrap_iv(resamples, confidence, seed)
    interval = check_interval(interval)   # checked once: both readings trust it
    checks.instance("rankings", rankings, Mapping, "a mapping of method -> {query: ranking}")
    for name in (a, b):
        checks.choice("a" if name == a else "b", name, list(rankings))
    low_t = score(qrels)
    qids = list(score_table(low_t)[0]) if queries is None else list(queries)
    low, low_v = _rows(low_t, qids)
    pool = pool_rows(rankings, qrels, k, qids, query_text)
    high, high_v = _rows(score(relevant_bound_qrels(qrels, pool)), qids)
    judged = judged_values(rankings, qrels, k, qids)
    out = []
    for stored, values in ((low, low_v), (high, high_v)):
        methods = score_table(stored)[1]
        av, bv = values[:, methods.index(a)], values[:, methods.index(b)]
        both = ~(np.isnan(av) | np.isnan(bv))
        c = compare_checked(paired_data(av[both], bv[both], min_n=2), name_a=a, name_b=b,
                            resamples=resamples, confidence=confidence, seed=seed,
                            interval=interval, self_check=False)
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
    if metric not in list_scores.arrays:
        raise ValueError(f"metric must be one of {', '.join(list_scores.arrays)}")
    name = metric.split("@")[0]
    cases = [c for c, g in zip(ls.cases, ls.gold) if g]
    qrels = {c: {d: 1 for d in g} for c, g in zip(ls.cases, ls.gold) if g}
    rankings = {m: dict(zip(ls.cases, (list(x) for x in ls.retrieved[m]))) for m in ls.methods}
    text = stored_form(ls, "text")
    if isinstance(text, CaseText):   # the reader's form: no pandas
        text_col = find_column(list(text.cells), QUERY_NAMES)
        cell = dict(zip(text.ids, text.cells[text_col])) if text_col is not None else None
    else:
        text_col = find_column(text.columns, QUERY_NAMES)
        cell = {c: text.at[c, text_col] for c in cases} if text_col is not None else None
    query_text = {c: str(cell[c]) for c in cases} if cell is not None else None

    def score(q):
        if q is qrels:  # the judgements as they are: the values already scored
            return list_scores.arrays[metric]
        cols = [[case_values(rankings[m][c], [d for d, g in q[c].items() if g > 0],
                             list_scores.k, "ids", only=name)[name] for c in cases]
                for m in ls.methods]
        return CaseScores(tuple(cases), tuple(ls.methods),
                          np.array(cols, dtype=float).T.reshape(len(cases), len(cols)))

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
        import pandas as pd

        return pd.DataFrame({n: per_query(run, q, [metric])[metric] for n, run in runs.items()})

    return judged_bounds(runs, data.qrels, score, a=a, b=b, metric=metric, k=k,
                         queries=queries, query_text=data.queries, **stat)
