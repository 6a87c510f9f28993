"""The label files feed the prediction-powered comparison directly (issue 34, Required 1): the
agreement page's runs scored per query under the gold labels and under a source's labels
(crowd, heuristic, LLM judge), and for every pair of runs the PPI++ B − A of
``core.inputs.compare_cheap``.

The gold cases are the queries with at least one gold label; the cheap-only cases are the
queries the source labelled and gold did not. Each run is scored as ``python -m core compare
RUN_A RUN_B --format trec --qrels GOLD --cheap-qrels CHEAP`` scores it
(``core.inputs.score_runs`` under the gold labels, and again under the source's), so the
figures equal that command's on the same labels written as two qrels files (the test checks
it). Label files without cheap-only queries (every labelled query has a gold label, as in the
demo) give no pairs and ``n_rest`` says why; a gold query the source did not label at all is
``compare_cheap``'s one message (``cheap.err_missing_ids``), kept in ``error``.

The method: PPI++ with the power-tuned lambda and the small-sample t-interval
(``core.paired.ppi``; Angelopoulos, Duchi & Zrnic 2023), the verdict from that interval and
its matching test; the gold-only interval beside it.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Sequence

from core import checks
from core.agreement.files import LabelSet
from core.agreement.orderings import qrels_for
from core.errors import InputError
from core.inputs import Run, compare_cheap, compare_golden, score_runs
from core.paired import MIN_GOLD


@dataclass(frozen=True)
class CheapPairs:
    """Every pair of runs (A before B, in the given order) compared with gold labels on
    ``n_gold`` queries and the source's labels on ``n_rest`` more (``pairs``: one
    ``core.inputs.CheapComparison`` each; empty when there are fewer than ``MIN_GOLD`` gold
    queries or 2 cheap-only ones, or when ``error`` holds the input problem)."""

    source: str
    measure: str
    n_gold: int
    n_rest: int
    pairs: tuple = ()
    error: InputError | None = None

    @property
    def applies(self) -> bool:
        return self.n_gold >= MIN_GOLD and self.n_rest >= 2 and self.error is None

    def to_dict(self) -> dict:
        """The JSON block: each pair as ``compare --cheap-qrels`` writes it (``difference``,
        ``methods``, ``verdict``, ``ppi`` without the gold card's own difference)."""
        pairs = []
        for cc in self.pairs:
            d = cc.apply({"a": cc.a, "b": cc.b, "methods": {}, "difference": None})
            d["ppi"].pop("gold_difference")
            pairs.append(d)
        return {"source": self.source, "measure": self.measure, "n_gold": self.n_gold,
                "n_cheap_only": self.n_rest, "min_gold": MIN_GOLD,
                "error": None if self.error is None else self.error.message("en"),
                "pairs": pairs}


def cheap_pairs(labels: LabelSet, runs: Sequence[Run], *, source: str, measure: str,
                resamples: int = 10_000, confidence: float = 0.95, seed: int = 0) -> CheapPairs:
    """The prediction-powered comparison of every pair of ``runs`` (module docstring): gold
    qrels are every pair gold labelled, cheap qrels every pair ``source`` labelled
    (``core.agreement.orderings.qrels_for``); ``measure`` as ``score_runs`` reads it.
    ``resamples``/``seed`` go to the gold comparison's bootstrap (``compare_golden``), which
    the PPI figures do not use."""
    runs = list(runs)
    if len(runs) < 2:
        raise ValueError(f"a comparison needs at least 2 runs, got {len(runs)}")
    checks.choice("source", source, labels.names)
    gold_q = qrels_for(labels, labels.gold_name)
    cheap_q = qrels_for(labels, source)
    n_rest = len(set(cheap_q) - set(gold_q))
    out = CheapPairs(source, measure, len(gold_q), n_rest)
    if not out.applies:
        return out
    gold_ts = score_runs(runs, gold_q, [measure], qrels_file=f"{labels.source} (gold)")
    key = gold_ts.measures[0]
    gold = gold_ts.golden(key)
    cheap = score_runs(runs, cheap_q, [measure],
                       qrels_file=f"{labels.source} ({source})").golden(key)
    pairs = []
    try:
        for a, b in combinations(gold.methods, 2):
            res = compare_golden(gold, a, b, resamples=resamples, confidence=confidence,
                                 seed=seed)
            pairs.append(compare_cheap(res, cheap, confidence=confidence))
    except InputError as exc:
        return CheapPairs(source, key, len(gold_q), n_rest, error=exc)
    return CheapPairs(source, key, len(gold_q), n_rest, tuple(pairs))
