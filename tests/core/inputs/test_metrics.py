"""core.inputs.metrics against ir_measures (pytrec_eval) on generated runs, within 1e-9."""
import ir_measures
import numpy as np
import pytest

from core.inputs.metrics import Measure, parse_measure, per_query, query_score

PAIRS = [("ndcg@10", "nDCG@10"), ("recall@100", "R@100"), ("mrr@10", "RR@10"),
         ("p@10", "P@10"), ("ap", "AP"), ("ap@100", "AP@100"), ("hit@10", "Success@10"),
         ("ndcg", "nDCG")]


def _generated(seed, graded):
    rng = np.random.default_rng(seed)
    docs = [f"d{i}" for i in range(300)]
    qrels, run, trec_run = {}, {}, []
    for q in range(40):
        qid = f"q{q}"
        judged = rng.choice(docs, size=rng.integers(1, 12), replace=False)
        rels = rng.integers(0, 3 if graded else 2, size=judged.size)
        if q % 7 == 0:
            rels[:] = 0  # a query judged but with nothing relevant
        qrels[qid] = {d: int(r) for d, r in zip(judged, rels)}
        if q == 3:
            continue  # judged query missing from the run -> scores 0
        ranked = list(rng.choice(docs, size=rng.integers(5, 150), replace=False))
        run[qid] = ranked
        trec_run += [ir_measures.ScoredDoc(qid, d, float(1000 - i)) for i, d in enumerate(ranked)]
    trec_qrels = [ir_measures.Qrel(q, d, r) for q, j in qrels.items() for d, r in j.items()]
    return qrels, run, trec_qrels, trec_run


@pytest.mark.parametrize("graded", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_equals_ir_measures(seed, graded):
    qrels, run, trec_qrels, trec_run = _generated(seed, graded)
    ours = per_query(run, qrels, [p[0] for p in PAIRS])
    for ours_name, ref_name in PAIRS:
        ref = {m.query_id: m.value for m in
               ir_measures.iter_calc([ir_measures.parse_measure(ref_name)], trec_qrels, trec_run)}
        for qid in qrels:
            assert ours.at[qid, ours_name] == pytest.approx(ref.get(qid, 0.0), abs=1e-9), \
                (ours_name, qid)


def test_parse_measure_names_and_errors():
    assert parse_measure("nDCG@10") == Measure("ndcg", 10)
    assert parse_measure("R@100") == Measure("recall", 100)
    assert parse_measure("RR@10") == Measure("mrr", 10)
    assert str(parse_measure("AP")) == "ap"
    for bad in ["foo@10", "ndcg@0", "recall", "", "ndcg@x", "__import__('os')"]:
        with pytest.raises(ValueError):
            parse_measure(bad)


def test_hand_computed_values():
    judged = {"a": 1, "c": 1, "z": 1}
    ranked = ["b", "a", "c", "d"]
    assert query_score("hit@1", ranked, judged) == 0.0
    assert query_score("hit@2", ranked, judged) == 1.0
    assert query_score("mrr@10", ranked, judged) == 0.5
    assert query_score("p@4", ranked, judged) == 0.5
    assert query_score("recall@4", ranked, judged) == pytest.approx(2 / 3)
    assert query_score("ap", ranked, judged) == pytest.approx((1 / 2 + 2 / 3) / 3)
    dcg = 1 / np.log2(3) + 1 / np.log2(4)
    idcg = 1 + 1 / np.log2(3) + 1 / np.log2(4)
    assert query_score("ndcg@10", ranked, judged) == pytest.approx(dcg / idcg)


def test_mean_scores_and_unknown_measure():
    import pandas as pd

    from core.inputs.metrics import REGISTRY, UnknownMeasure, mean_scores

    table = pd.DataFrame({"ndcg@10": [0.5, 1.0, 0.0], "p@5": [0.2, 0.4, 0.6]})
    assert mean_scores(table) == pytest.approx({"ndcg@10": 0.5, "p@5": 0.4})
    with pytest.raises(UnknownMeasure) as e:
        parse_measure("bleu@4")
    assert isinstance(e.value, ValueError) and "ndcg" in str(e.value)
    for spec in REGISTRY.values():  # every alias names its metric
        for alias in (spec.name, *spec.aliases):
            k = "" if spec.cutoff == "optional" else "@3"
            allowed = tuple(REGISTRY)
            assert parse_measure(alias.upper() + k, allowed=allowed).name == spec.name
