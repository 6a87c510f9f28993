"""core.inputs.metrics.REGISTRY: the one place metric names are read, used by lists, TREC, scifact
and agreement."""
from __future__ import annotations

import re
from pathlib import Path

import ir_measures
import pytest

from core.agreement.levels import METRICS as AGREEMENT_METRICS
from core.inputs.lists import LIST_METRICS, parse_metric
from core.inputs.metrics import REGISTRY, Measure, UnknownMeasure, parse_measure, query_score
from core.retrieval.scifact import MEASURES as SCIFACT_MEASURES, check_metric
from core.inputs.trec import parse_measures

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize("name", list(REGISTRY))
def test_every_spelling_parses_to_its_metric(name):
    spec = REGISTRY[name]
    allowed = tuple(REGISTRY)
    for spelling in (spec.name, *spec.aliases):
        for text in (f"{spelling}@5", f"{spelling.upper()}@5", f" {spelling} @ 5 "):
            assert parse_measure(text, allowed=allowed) == Measure(name, 5)


def test_ir_measures_spelling_names_the_same_measure():
    qrels = {"q1": {"d1": 1, "d3": 2, "d9": 1}, "q2": {"d2": 1}}
    run = {"q1": {"d3": 3.0, "d2": 2.0, "d1": 1.0}, "q2": {"d5": 2.0, "d2": 1.0}}
    ranked = {"q1": ["d3", "d2", "d1"], "q2": ["d5", "d2"]}
    for name, spec in REGISTRY.items():
        if spec.ir_measures is None:
            continue
        m = parse_measure(f"{name}@2")
        ref = {r.query_id: r.value for r in
               ir_measures.iter_calc([ir_measures.parse_measure(m.ir_measures)], qrels, run)}
        for q in qrels:
            assert query_score(m, ranked[q], qrels[q]) == pytest.approx(ref.get(q, 0.0),
                                                                        abs=1e-9), (name, q)


def test_display_and_ir_measures_spellings():
    assert parse_measure("mrr@10").ir_measures == "RR@10"
    assert parse_measure("hit@10").ir_measures == "Success@10"
    assert parse_measure("ndcg@10").display == "nDCG@10"
    assert parse_measure("map").ir_measures == "AP"


def test_unknown_and_bad_cutoffs():
    with pytest.raises(UnknownMeasure, match="unknown measure 'bleu@4'"):
        parse_measure("bleu@4")
    with pytest.raises(UnknownMeasure):
        parse_measure("context_recall@5")  # a list metric, not a ranking metric of core.inputs.metrics
    with pytest.raises(ValueError, match="at least 1"):
        parse_measure("ndcg@0")
    with pytest.raises(ValueError, match="needs a cutoff"):
        parse_measure("recall")


def test_every_module_goes_through_the_registry():
    assert parse_metric("Success@5") == ("hit", 5)
    assert [str(m) for m in parse_measures("ndcg@10 mrr@10 hit@5")] == \
        ["nDCG@10", "RR@10", "Success@5"]
    assert [str(m) for m in parse_measures("P(rel=2)@10")] == ["P(rel=2)@10"]  # ir_measures'
    assert check_metric("nDCG@10") == "ndcg@10" and check_metric("RR@10") == "mrr@10"
    for text in (*AGREEMENT_METRICS, *SCIFACT_MEASURES):
        assert str(parse_measure(text)) == text
    assert set(LIST_METRICS) <= set(REGISTRY)


def test_no_other_alias_table():
    """Spellings such as 'rr' -> 'mrr' live in the registry only."""
    pattern = re.compile(r"""["'](rr|success|precision)["']\s*:\s*["']""")
    offenders = [str(p.relative_to(ROOT)) for p in (ROOT / "core").rglob("*.py")
                 if p.name != "metrics.py" and pattern.search(p.read_text(encoding="utf-8"))]
    assert offenders == []
