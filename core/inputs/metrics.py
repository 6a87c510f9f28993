"""Per-query ranking metrics from ranked lists and relevance judgements (qrels).

Measure names are data: ``REGISTRY`` declares every metric (name, aliases, cutoff rule,
ir_measures spelling, display name, citation) and ``parse_measure`` is the only parser of
metric strings in the codebase, giving a ``Measure`` (never evaluated): ``ndcg@10``,
``recall@100`` (``R@100``), ``hit@10`` (``Success@10``), ``mrr@10`` (``RR@10``), ``p@10``,
``ap@100`` (``AP``). Definitions follow trec_eval / ir_measures (tests compare to
``ir_measures`` within 1e-9), with a document relevant when its judgement is > 0:

- nDCG@k  = DCG@k / IDCG@k, DCG = sum_{i<=k} gain_i / log2(i + 1), gain = judgement
  (binary qrels: 0/1); IDCG from the best ordering of the judged documents (Jarvelin &
  Kekalainen 2002).
- Recall@k = |relevant in top k| / |relevant|.
- Hit@k    = 1 if any relevant document is in the top k.
- MRR@k    = 1 / rank of the first relevant document in the top k (0 if none).
- P@k      = |relevant in top k| / k.
- AP@k     = sum over relevant ranks i <= k of P@i, divided by |relevant|.

Per-query scores first, means second: every function returns one value per query.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

import numpy as np

from core import checks

# ----------------------------------------------------------------------------- the registry
@dataclass(frozen=True)
class MetricSpec:
    """One metric, as data: every spelling, its cutoff rule, how ir_measures and people write
    it, and where its definition comes from. ``REGISTRY`` is the only place metric names are
    read (``parse_measure``); ``core.inputs.lists``, ``core.inputs.trec``, ``core.retrieval.scifact`` and
    ``core.agreement.levels`` all go through it."""

    name: str                   # canonical, lower case: "ndcg"
    aliases: tuple[str, ...]    # other accepted spellings (case-insensitive)
    display: str                # how people write it: "nDCG"
    ir_measures: str | None     # ir_measures / trec_eval spelling, None when it has none
    cutoff: str                 # "required" or "optional" (None = the whole ranking)
    kind: str                   # "rank": ``core.inputs.metrics``; "context": ``core.inputs.lists`` (Ragas)
    binary: bool                # per-query values are 0 or 1
    citation: str


REGISTRY: dict[str, MetricSpec] = {s.name: s for s in (
    MetricSpec("ndcg", (), "nDCG", "nDCG", "optional", "rank", False,
               "Järvelin & Kekäläinen 2002, ACM TOIS 20(4); trec_eval ndcg_cut"),
    MetricSpec("recall", ("r",), "Recall", "R", "required", "rank", False,
               "trec_eval recall (Voorhees & Harman 2005, TREC)"),
    MetricSpec("hit", ("success",), "Hit", "Success", "required", "rank", True,
               "ir_measures Success@k (success_k of trec_eval)"),
    MetricSpec("mrr", ("rr",), "MRR", "RR", "optional", "rank", False,
               "Voorhees 1999, TREC-8 QA track; ir_measures RR"),
    MetricSpec("p", ("precision",), "P", "P", "required", "rank", False,
               "trec_eval P_k (Voorhees & Harman 2005, TREC)"),
    MetricSpec("ap", ("map",), "AP", "AP", "optional", "rank", False,
               "trec_eval map (Voorhees & Harman 2005, TREC)"),
    MetricSpec("context_precision", (), "Context precision", None, "optional", "context",
               False, "Ragas IDBasedContextPrecision / NonLLMContextPrecision (docs.ragas.io)"),
    MetricSpec("context_recall", (), "Context recall", None, "optional", "context", False,
               "Ragas IDBasedContextRecall / NonLLMContextRecall (docs.ragas.io)"),
    MetricSpec("context_precision_ranked", (), "Context precision (ranked)", None, "optional",
               "context", False, "Ragas NonLLMContextPrecisionWithReference (docs.ragas.io)"),
)}
_BY_SPELLING = {n: s.name for s in REGISTRY.values() for n in (s.name, *s.aliases)}
RANK_MEASURES = tuple(n for n, s in REGISTRY.items() if s.kind == "rank")
_NAME = re.compile(r"\s*([A-Za-z_]+)\s*(?:@\s*(\d+))?\s*")


@dataclass(frozen=True)
class Measure:
    """A metric and its cutoff k (None = whole ranking, allowed for AP, MRR and nDCG)."""

    name: str
    k: int | None

    def __str__(self) -> str:
        return self.name if self.k is None else f"{self.name}@{self.k}"

    @property
    def spec(self) -> MetricSpec:
        return REGISTRY[self.name]

    @property
    def display(self) -> str:
        """'nDCG@10', 'MRR@10', 'AP'."""
        d = self.spec.display
        return d if self.k is None else f"{d}@{self.k}"

    @property
    def ir_measures(self) -> str | None:
        """The ir_measures spelling ('nDCG@10', 'RR@10', 'Success@10'), or None."""
        base = self.spec.ir_measures
        if base is None:
            return None
        return base if self.k is None else f"{base}@{self.k}"


class UnknownMeasure(ValueError):
    """A metric name the registry does not know (or not allowed where it is asked for)."""


def parse_measure(text: str, *, allowed=RANK_MEASURES, default_k: int | None = None) -> Measure:
    """'nDCG@10' -> Measure('ndcg', 10): the one parser of metric names (``REGISTRY``).

    Names are matched case-insensitively with their aliases (``R@100`` = ``recall@100``,
    ``RR@10`` = ``mrr@10``, ``Success@10`` = ``hit@10``); only names in ``allowed`` (default:
    the ranking metrics of this module) are accepted. ``default_k`` is the cutoff when the
    text has none. Raises ``UnknownMeasure`` (a ``ValueError``) naming the valid spellings, or
    ``ValueError`` for a bad cutoff.
    """
    checks.instance("measure", text, str, "a string like 'ndcg@10'")
    m = _NAME.fullmatch(text)
    name = _BY_SPELLING.get(m.group(1).lower()) if m else None
    if name is None or name not in allowed:
        raise UnknownMeasure(f"unknown measure {text!r}; use one of "
                         + ", ".join(_spelling(REGISTRY[n]) for n in allowed))
    k = int(m.group(2)) if m.group(2) else default_k
    if k is not None and k < 1:
        raise ValueError(f"the cutoff in {text!r} must be at least 1")
    if k is None and REGISTRY[name].cutoff == "required":
        raise ValueError(f"measure {text!r} needs a cutoff, e.g. {name}@10")
    return Measure(name, k)


def _spelling(spec: MetricSpec) -> str:
    base = spec.name + ("@k" if spec.cutoff == "required" else " or " + spec.name + "@k")
    alias = [a.upper() if len(a) <= 2 else a for a in spec.aliases]
    return base + (f" ({', '.join(a + '@k' for a in alias)})" if alias else "")


def _gains(ranked: Sequence[str], judged: Mapping[str, int], k: int | None) -> np.ndarray:
    top = ranked if k is None else ranked[:k]
    return np.array([max(judged.get(d, 0), 0) for d in top], dtype=float)


def _ndcg(ranked, judged, k, n_rel):
    g = _gains(ranked, judged, k)
    depth = len(g) if k is None else k
    ideal = np.sort(np.array([v for v in judged.values() if v > 0], dtype=float))[::-1][:depth]
    if ideal.size == 0:
        return 0.0
    disc = 1.0 / np.log2(np.arange(2, max(len(g), ideal.size) + 2))
    idcg = float(np.sum(ideal * disc[:ideal.size]))
    return float(np.sum(g * disc[:len(g)]) / idcg)


def _recall(ranked, judged, k, n_rel):
    return float(np.count_nonzero(_gains(ranked, judged, k))) / n_rel if n_rel else 0.0


def _hit(ranked, judged, k, n_rel):
    return 1.0 if np.any(_gains(ranked, judged, k) > 0) else 0.0


def _mrr(ranked, judged, k, n_rel):
    hits = np.flatnonzero(_gains(ranked, judged, k) > 0)
    return 1.0 / (hits[0] + 1) if hits.size else 0.0


def _precision(ranked, judged, k, n_rel):
    return float(np.count_nonzero(_gains(ranked, judged, k))) / k


def _ap(ranked, judged, k, n_rel):
    rel = _gains(ranked, judged, k) > 0
    if not n_rel or not rel.any():
        return 0.0
    ranks = np.flatnonzero(rel) + 1
    precision_at = np.arange(1, ranks.size + 1) / ranks
    return float(precision_at.sum() / n_rel)


_FUNCS: dict[str, Callable] = {"ndcg": _ndcg, "recall": _recall, "hit": _hit, "mrr": _mrr,
                               "p": _precision, "ap": _ap}


def query_score(measure: Measure | str, ranked: Sequence[str], judged: Mapping[str, int]) -> float:
    """One query's value of ``measure`` for a ranked list of doc ids and its judgements."""
    m = parse_measure(measure) if isinstance(measure, str) else measure
    ranked = list(dict.fromkeys(ranked))  # a document counts once, at its first rank
    n_rel = sum(1 for v in judged.values() if v > 0)
    return _FUNCS[m.name](ranked, judged, m.k, n_rel)


def per_query(run: Mapping[str, Sequence[str]], qrels: Mapping[str, Mapping[str, int]],
              measures: Sequence[Measure | str]):
    """Per-query values (a pandas DataFrame): index = every query in ``qrels`` (sorted), one
    column per measure.

    A judged query missing from ``run`` scores 0 (as trec_eval with ``-c``); queries in
    ``run`` without judgements are ignored. Callers report both.
    """
    ms = [parse_measure(m) if isinstance(m, str) else m for m in measures]
    checks.nonempty("measures", ms, what="measure")
    qids = sorted(qrels)
    data = {str(m): [query_score(m, run.get(q, ()), qrels[q]) for q in qids] for m in ms}
    import pandas as pd

    return pd.DataFrame(data, index=pd.Index(qids, name="query_id"))


def mean_scores(table) -> dict[str, float]:
    """Mean over queries of each measure column."""
    return {col: float(table[col].mean()) for col in table.columns}

