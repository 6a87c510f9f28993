"""Conclusion agreement (issue 34, item 3): would the cheap labels have reached the same
verdicts as the gold ones?

With per-query scores of several systems under gold and under cheap labels (the agreement
page's runs scored under both label sets, ``core.agreement.orderings.QueryOrdering``), every
pair of systems is compared twice with the product's own paired comparison
(``core.paired.compare_paired``: the interval of B − A, its matching test and the self-check
behind the card's verdict), once on the gold scores and once on the cheap ones, on the same
queries. Each pair's two verdicts are then

* ``agree``: the same verdict;
* ``false_better``: gold finds no difference, the cheap labels call one system better;
* ``missed``: gold finds a difference, the cheap labels find none;
* ``reversed``: the two call opposite systems better.

Otero, Parapar & Barreiro (2024, "Can we use LLMs to replace human judges in IR system
evaluation?", arXiv 2411.13212) count these for LLM relevance labels against TREC's; Voorhees
(2000) and Sakai (2006) read label sources by the same pairwise significance decisions.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Sequence

import numpy as np

from core import checks
from core.paired import compare_paired

KINDS = ("agree", "false_better", "missed", "reversed")


@dataclass(frozen=True)
class PairConclusion:
    """One pair of systems: B − A and its verdict under gold and under cheap labels."""

    a: str
    b: str
    n: int
    gold_diff: float
    gold_low: float
    gold_high: float
    gold_verdict: str
    cheap_diff: float
    cheap_low: float
    cheap_high: float
    cheap_verdict: str

    @property
    def kind(self) -> str:
        """``agree``, ``false_better``, ``missed`` or ``reversed`` (module docstring)."""
        if self.gold_verdict == self.cheap_verdict:
            return "agree"
        if self.gold_verdict == "no_difference":
            return "false_better"
        if self.cheap_verdict == "no_difference":
            return "missed"
        return "reversed"

    def to_dict(self) -> dict:
        return {"a": self.a, "b": self.b, "n": self.n,
                "gold": {"b_minus_a": self.gold_diff, "ci_low": self.gold_low,
                         "ci_high": self.gold_high, "verdict": self.gold_verdict},
                "cheap": {"b_minus_a": self.cheap_diff, "ci_low": self.cheap_low,
                          "ci_high": self.cheap_high, "verdict": self.cheap_verdict},
                "kind": self.kind}


@dataclass(frozen=True)
class ConclusionAgreement:
    """Every pair of systems, its gold and cheap verdicts, and the counts of each kind."""

    source: str
    measure: str
    pairs: tuple[PairConclusion, ...]

    def count(self, kind: str) -> int:
        checks.choice("kind", kind, KINDS)
        return sum(p.kind == kind for p in self.pairs)

    @property
    def gold_differences(self) -> int:
        """Pairs gold calls different (the denominator of ``missed``)."""
        return sum(p.gold_verdict != "no_difference" for p in self.pairs)

    @property
    def gold_ties(self) -> int:
        """Pairs gold finds no difference in (the denominator of ``false_better``)."""
        return len(self.pairs) - self.gold_differences

    def to_dict(self) -> dict:
        return {"source": self.source, "measure": self.measure, "n_pairs": len(self.pairs),
                **{k: self.count(k) for k in KINDS},
                "gold_differences": self.gold_differences, "gold_ties": self.gold_ties,
                "pairs": [p.to_dict() for p in self.pairs]}


def conclusion_agreement(scores: dict, *, source: str, measure: str, resamples: int = 10_000,
                         confidence: float = 0.95, seed: int = 0) -> ConclusionAgreement:
    """Every pair (A, B) of the systems in ``scores`` (system name -> a pandas frame indexed
    by query id with columns ``gold`` and ``other``: the per-query metric under each label
    set, ``QueryOrdering.scores``), in the given order (A before B), compared on the queries
    both systems have a gold and a cheap score for, once with the gold scores and once with
    the cheap ones (``core.paired.compare_paired``, same ``resamples``, ``confidence`` and
    ``seed``). Needs at least 2 systems."""
    names = checks.distinct("systems", list(scores))
    if len(names) < 2:
        raise ValueError(f"conclusion agreement needs at least 2 systems, got {len(names)}")
    pairs = []
    for a, b in combinations(names, 2):
        sa, sb = scores[a], scores[b]
        common = sa.index.intersection(sb.index)
        ga, gb = sa["gold"].reindex(common).to_numpy(float), sb["gold"].reindex(common).to_numpy(float)
        oa, ob = sa["other"].reindex(common).to_numpy(float), sb["other"].reindex(common).to_numpy(float)
        ok = ~(np.isnan(ga) | np.isnan(gb) | np.isnan(oa) | np.isnan(ob))
        kw = dict(name_a=a, name_b=b, resamples=resamples, confidence=confidence, seed=seed)
        gold = compare_paired(ga[ok], gb[ok], **kw)
        cheap = compare_paired(oa[ok], ob[ok], **kw)
        pairs.append(PairConclusion(
            a=a, b=b, n=int(ok.sum()),
            gold_diff=gold.bootstrap.mean, gold_low=gold.bootstrap.ci_low,
            gold_high=gold.bootstrap.ci_high, gold_verdict=gold.verdict,
            cheap_diff=cheap.bootstrap.mean, cheap_low=cheap.bootstrap.ci_low,
            cheap_high=cheap.bootstrap.ci_high, cheap_verdict=cheap.verdict))
    return ConclusionAgreement(source, measure, tuple(pairs))
