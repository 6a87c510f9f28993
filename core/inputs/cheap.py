"""A gold comparison sharpened by cheap labels (issue 34): the same methods' scores computed
with cheap labels (crowd, heuristic, LLM judge) on N cases that include the n gold cases, read
as a second golden-case file (or a second TREC qrels: ``core.inputs.trec.score_runs`` under
both), turned into prediction-powered figures for A, B and B − A (``core.paired.ppi``).

Checked once here, each with one message naming the file: the methods A and B must be in the
cheap file (``cheap.err_missing_method``), the cheap file must hold both methods' values on
every paired gold case (``cheap.err_missing_ids``), both files must be on the same scale (0/1
outcomes or scores: ``cheap.err_scale_gold_*``), there must be at least ``MIN_GOLD`` gold cases and
2 cheap-only cases (``cheap.err_too_few``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.errors import InputError
from core.inputs.golden import GoldenSet
from core.paired import MIN_GOLD, PPIEstimate, is_binary, ppi_difference, ppi_mean, verdict

SHOWN_IDS = 10               # ids named in a message


@dataclass(frozen=True)
class CheapComparison:
    """A vs B with gold labels on n cases and cheap labels on n + M: the prediction-powered
    mean of each method and of B − A, the verdict from the PPI interval and its test, and the
    gold-only figures beside them (the same formula at lambda = 0)."""

    a: str
    b: str
    rate_a: PPIEstimate
    rate_b: PPIEstimate
    difference: PPIEstimate
    verdict: str
    gold_only_verdict: str
    source: str
    binary: bool
    left_out: tuple[str, ...] = ()   # cheap-only cases without a value for A or B

    @property
    def n_gold(self) -> int:
        return self.difference.n_gold

    @property
    def n_cheap(self) -> int:
        return self.difference.n_cheap

    def ppi_dict(self) -> dict:
        """The ``ppi`` block of the JSON: lambda, correlation, n_gold, n_cheap, effective_n,
        the gold-only interval and verdict of B − A (the same rule at lambda = 0: ``mover_t``,
        Wilson's / Tango's interval at Student's quantile, on 0/1 outcomes; ``t`` otherwise),
        each method's PPI figures."""
        d = self.difference
        out = d.to_dict()
        out["gold_only"].update(b_minus_a=out["gold_only"].pop("estimate"),
                                interval="mover_t" if d.mover else "t",
                                verdict=self.gold_only_verdict)
        out.update(source=self.source, test=d.test_name, helps=d.helps,
                   cheap_left_out=list(self.left_out),
                   methods={name: r.to_dict() for name, r in ((self.a, self.rate_a),
                                                              (self.b, self.rate_b))})
        return out

    def apply(self, out: dict) -> dict:
        """The golden-case JSON ``out`` (``GoldenComparison.to_dict``) with the PPI figures in
        ``difference``, ``methods`` and ``verdict`` (issue 34, item 4); the gold card's own
        difference moves, whole, to ``ppi.gold_difference``. Returns ``out``."""
        d = self.difference
        gold_difference = out["difference"]
        out["difference"] = {"a": self.a, "b": self.b, "b_minus_a": d.estimate,
                             "ci_low": d.ci_low, "ci_high": d.ci_high,
                             "confidence": d.confidence, "interval": d.interval_name,
                             "test": d.test_name, "p": d.p_value}
        for name, r in ((self.a, self.rate_a), (self.b, self.rate_b)):
            out["methods"][name] = {"n": r.n_gold, "n_cheap": r.n_cheap, "rate": r.estimate,
                                    "ci_low": r.ci_low, "ci_high": r.ci_high,
                                    "interval": r.interval_name}
        out["verdict"] = self.verdict
        out["ppi"] = {**self.ppi_dict(), "gold_difference": gold_difference}
        return out


def _shown(ids) -> str:
    ids = list(ids)
    more = f" (+{len(ids) - SHOWN_IDS})" if len(ids) > SHOWN_IDS else ""
    return ", ".join(ids[:SHOWN_IDS]) + more


def _kind(values) -> str:
    return "binary" if is_binary(values) else "scores"


def compare_cheap(result, cheap: GoldenSet, *,
                  confidence: float = 0.95) -> CheapComparison:
    """The gold comparison ``result`` (a ``GoldenComparison`` of ``core.inputs.systems.compare_golden``) sharpened by the
    cheap-label file ``cheap`` (``load_golden``, or a TREC run's scores under cheap qrels):
    gold cases are ``result``'s paired cases; cheap-only cases are the cheap file's cases that
    are not among them (with both methods' values; the others are listed in ``left_out``).
    Raises ``InputError`` (``cheap.*`` codes) on the problems of the module docstring."""
    a, b = result.comparison.a, result.comparison.b
    src = cheap.source
    for name in (a, b):
        if name not in cheap.methods:
            raise InputError("cheap.err_missing_method", file=src, method=name,
                             methods=", ".join(cheap.methods) or "-")
    cs = cheap.cases
    ca = cs.values[:, cs.methods.index(a)]
    cb = cs.values[:, cs.methods.index(b)]
    where = {cid: i for i, cid in enumerate(cs.ids)}
    gold_ids = list(result.case_ids)
    rows = [where.get(cid) for cid in gold_ids]
    missing = [cid for cid, r in zip(gold_ids, rows)
               if r is None or np.isnan(ca[r]) or np.isnan(cb[r])]
    if missing:
        raise InputError("cheap.err_missing_ids", file=src, count=len(missing),
                         n=len(gold_ids), ids=_shown(missing))
    rows = np.asarray(rows, dtype=np.int64)
    gold_set = set(gold_ids)
    rest, left_out = [], []
    for i, cid in enumerate(cs.ids):
        if cid in gold_set:
            continue
        (left_out if np.isnan(ca[i]) or np.isnan(cb[i]) else rest).append(i)
    rest = np.asarray(rest, dtype=np.int64)
    gold_kind = _kind(np.concatenate([result.a_values, result.b_values]))
    cheap_kind = _kind(np.concatenate([ca[rows], cb[rows], ca[rest], cb[rest]]))
    if gold_kind != cheap_kind:
        raise InputError("cheap.err_scale_gold_binary" if gold_kind == "binary"
                         else "cheap.err_scale_gold_scores", file=src)
    if len(gold_ids) < MIN_GOLD or rest.size < 2:
        raise InputError("cheap.err_too_few", file=src, n_gold=len(gold_ids),
                         n_rest=int(rest.size), min_gold=MIN_GOLD)
    kw = dict(confidence=confidence)
    ra = ppi_mean(result.a_values, ca[rows], ca[rest], **kw)
    rb = ppi_mean(result.b_values, cb[rows], cb[rest], **kw)
    d = ppi_difference(result.a_values, result.b_values, ca[rows], cb[rows], ca[rest],
                       cb[rest], **kw)
    return CheapComparison(
        a=a, b=b, rate_a=ra, rate_b=rb, difference=d,
        verdict=verdict(d.ci_low, d.ci_high, d.p_value, confidence=confidence),
        gold_only_verdict=verdict(d.gold_only_low, d.gold_only_high),
        source=src, binary=gold_kind == "binary",
        left_out=tuple(cs.ids[i] for i in left_out))
