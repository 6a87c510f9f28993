"""Label agreement, levels 3-4 (``core.agreement.levels`` puts the levels together): a run's
per-query metric under gold vs other labels (query ordering) and systems ordered by mean
metric (system ordering), compared by rank-biased overlap and Kendall's tau
(``core.agreement.rank_similarity``), with how each run meets the labels (``RunCoverage``)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
import pandas as pd

from core.agreement.files import LabelSet, MISSING
from core.agreement.rank_similarity import RBOResult, kendall_tau, rbo, tie_groups
from core.inputs import Measure, Run, per_query

QUERY_P, SYSTEM_P = 0.9, 0.7
BOTTOM_N, TOP_N = 5, 3


# ----------------------------------------------------------------------------- levels 3-4
def qrels_for(labels: LabelSet, column: str, mask: np.ndarray | None = None) -> dict:
    """{query: {doc: label}} for the gold column (``column == labels.gold_name``) or a
    source, over pairs in ``mask`` (default: pairs that column labelled)."""
    vals = labels.gold if column == labels.gold_name else labels.sources[column]
    m = vals != MISSING if mask is None else mask
    out: dict = {}
    for q, d, v in zip(labels.pairs["query_id"].to_numpy()[m],
                       labels.pairs["doc_id"].to_numpy()[m], vals[m]):
        out.setdefault(q, {})[d] = int(v)
    return out


@dataclass(frozen=True)
class RunCoverage:
    """How a run meets the labels: what counts as not relevant, what is ignored."""

    run: str
    retrieved: int            # (query, doc) pairs in the evaluated depth, labelled queries
    unlabelled: int           # of those, without a label: counted as not relevant
    extra_queries: int        # run queries with no labels: ignored
    missing_queries: int      # labelled queries the run did not answer: score 0

    def to_dict(self) -> dict:
        return {"run": self.run, "retrieved": self.retrieved, "unlabelled": self.unlabelled,
                "extra_queries": self.extra_queries, "missing_queries": self.missing_queries}


def run_coverage(run: Run, qrels: dict, measure: Measure) -> RunCoverage:
    retrieved = unlabelled = 0
    for q, judged in qrels.items():
        docs = list(dict.fromkeys(run.ranking.get(q, ())))
        top = docs if measure.k is None else docs[: measure.k]
        retrieved += len(top)
        unlabelled += sum(1 for d in top if d not in judged)
    extra = sum(1 for q in run.ranking if q not in qrels)
    missing = sum(1 for q in qrels if q not in run.ranking)
    return RunCoverage(run.name, retrieved, unlabelled, extra, missing)


@dataclass(frozen=True)
class QueryOrdering:
    """Level 3: one run's per-query metric under gold vs other labels."""

    run: str
    measure: str
    scores: pd.DataFrame = field(repr=False)  # index query_id; columns gold, other
    rbo: RBOResult
    tau: float
    tau_p: float
    bottom_gold: list
    bottom_other: list

    def to_dict(self) -> dict:
        return {"run": self.run, "measure": self.measure, "n_queries": len(self.scores),
                **self.rbo.to_dict(),
                "tau": self.tau, "tau_p": self.tau_p,
                "bottom_gold": self.bottom_gold, "bottom_other": self.bottom_other}


def query_ordering(run: Run, gold_qrels: dict, other_qrels: dict, measure: Measure, *,
                   p: float = QUERY_P, bottom: int = BOTTOM_N) -> QueryOrdering:
    """Per-query ``measure`` of ``run`` under both label sets (``core.inputs.metrics.per_query``);
    queries ordered worst first, equal scores tied; normalised RBO (persistence ``p``) and
    Kendall's tau-b between the two score vectors; the ``bottom`` worst queries of each."""
    g = per_query(run.ranking, gold_qrels, [measure]).iloc[:, 0]
    o = per_query(run.ranking, other_qrels, [measure]).iloc[:, 0].reindex(g.index)
    scores = pd.DataFrame({"gold": g, "other": o})
    r = rbo(tie_groups(g.index, g.to_numpy(), descending=False),
            tie_groups(o.index, o.to_numpy(), descending=False), p)
    tau, tau_p = kendall_tau(g.to_numpy(), o.to_numpy())

    def worst(col):
        srt = scores.sort_values([col], kind="stable")  # index already sorted by query id
        return [{"query_id": q, "score": float(v)} for q, v in srt[col].head(bottom).items()]

    return QueryOrdering(run.name, str(measure), scores, r, tau, tau_p, worst("gold"),
                         worst("other"))


@dataclass(frozen=True)
class SystemOrdering:
    """Level 4: systems ordered by mean metric under gold vs other labels."""

    measure: str
    means: pd.DataFrame = field(repr=False)  # index run; columns gold, other
    rbo: RBOResult
    tau: float
    tau_p: float
    top_gold: list
    top_other: list

    @property
    def top_same_set(self) -> bool:
        return set(self.top_gold) == set(self.top_other)

    @property
    def top_same_order(self) -> bool:
        return self.top_gold == self.top_other

    def to_dict(self) -> dict:
        return {"measure": self.measure, "n_systems": len(self.means),
                "means": {r: {"gold": float(v.gold), "other": float(v.other)}
                          for r, v in self.means.iterrows()},
                **self.rbo.to_dict(),
                "tau": self.tau, "tau_p": self.tau_p, "top_gold": self.top_gold,
                "top_other": self.top_other, "top_same_set": self.top_same_set,
                "top_same_order": self.top_same_order}


def system_ordering(orderings: Sequence[QueryOrdering], *, p: float = SYSTEM_P,
                    top: int = TOP_N) -> SystemOrdering:
    """Mean per-query metric of each run under both label sets, best first (equal means
    tied); normalised RBO with persistence ``p`` (0.7: the top 3-4 systems matter), Kendall's
    tau-b of the means, and whether the ``top`` systems agree. Needs >= 3 runs."""
    if len(orderings) < 3:
        raise ValueError(f"system ordering needs at least 3 runs, got {len(orderings)}")
    means = pd.DataFrame({"gold": [o.scores["gold"].mean() for o in orderings],
                          "other": [o.scores["other"].mean() for o in orderings]},
                         index=pd.Index([o.run for o in orderings], name="run"))
    r = rbo(tie_groups(means.index, means["gold"].to_numpy(), descending=True),
            tie_groups(means.index, means["other"].to_numpy(), descending=True), p)
    tau, tau_p = kendall_tau(means["gold"].to_numpy(), means["other"].to_numpy())

    def best(col):
        return means.sort_values(col, ascending=False, kind="stable").index[:top].tolist()

    return SystemOrdering(orderings[0].measure, means, r, tau, tau_p, best("gold"),
                          best("other"))
