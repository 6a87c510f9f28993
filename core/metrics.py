"""Per-query ranking metrics from ranked lists and relevance judgements (qrels).

Measure names are data, parsed into a ``Measure`` (never evaluated): ``ndcg@10``,
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
import pandas as pd

_ALIASES = {"ndcg": "ndcg", "recall": "recall", "r": "recall", "hit": "hit",
            "success": "hit", "mrr": "mrr", "rr": "mrr", "p": "p", "precision": "p",
            "ap": "ap", "map": "ap"}
_NEEDS_K = {"ndcg", "recall", "hit", "mrr", "p"}


@dataclass(frozen=True)
class Measure:
    """A metric and its cutoff k (None = whole ranking, allowed for AP, MRR and nDCG)."""

    name: str
    k: int | None

    def __str__(self) -> str:
        return self.name if self.k is None else f"{self.name}@{self.k}"


def parse_measure(text: str) -> Measure:
    """'nDCG@10' -> Measure('ndcg', 10). Raises ValueError listing the valid names."""
    if not isinstance(text, str):
        raise ValueError(f"measure must be a string like 'ndcg@10', got {text!r}")
    m = re.fullmatch(r"\s*([A-Za-z]+)\s*(?:@\s*(\d+))?\s*", text)
    name = _ALIASES.get(m.group(1).lower()) if m else None
    if name is None:
        raise ValueError(f"unknown measure {text!r}; use one of ndcg@k, recall@k (R@k), "
                         "hit@k, mrr@k (RR@k), p@k, ap or ap@k")
    k = int(m.group(2)) if m.group(2) else None
    if k is not None and k < 1:
        raise ValueError(f"the cutoff in {text!r} must be at least 1")
    if k is None and name in _NEEDS_K - {"ndcg", "mrr"}:
        raise ValueError(f"measure {text!r} needs a cutoff, e.g. {name}@10")
    return Measure(name, k)


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
              measures: Sequence[Measure | str]) -> pd.DataFrame:
    """Per-query values: index = every query in ``qrels`` (sorted), one column per measure.

    A judged query missing from ``run`` scores 0 (as trec_eval with ``-c``); queries in
    ``run`` without judgements are ignored. Callers report both.
    """
    ms = [parse_measure(m) if isinstance(m, str) else m for m in measures]
    if not ms:
        raise ValueError("measures must name at least one measure")
    qids = sorted(qrels)
    data = {str(m): [query_score(m, run.get(q, ()), qrels[q]) for q in qids] for m in ms}
    return pd.DataFrame(data, index=pd.Index(qids, name="query_id"))


def mean_scores(table: pd.DataFrame) -> dict[str, float]:
    """Mean over queries of each measure column."""
    return {col: float(table[col].mean()) for col in table.columns}

