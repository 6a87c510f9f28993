"""core.agreement.sources: the query bootstrap (weights vs drawing queries by hand, scikit-learn
with sample weights), ranking sources, disagreements and the split-half check."""
import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

from core.agreement.files import load_labels
from core.agreement.sources import (Estimate, disagreements, query_weights, rank_sources,
                                    source_agreement, split_half)
from core.errors import InputError


def _file(seed=0, n=240, queries=20):
    rng = np.random.default_rng(seed)
    q = rng.integers(0, queries, n)
    g = rng.integers(0, 3, n)
    good = np.where(rng.random(n) < 0.85, g, rng.integers(0, 3, n))
    bad = np.where(rng.random(n) < 0.4, g, rng.integers(0, 3, n))
    rows = ["query_id,doc_id,gold,good,bad"] + [f"q{a},d{i},{b},{c},{d}"
                                                for i, (a, b, c, d) in
                                                enumerate(zip(q, g, good, bad))]
    return load_labels("\n".join(rows).encode(), "labels.csv")


def test_query_weights_count_draws_and_do_not_depend_on_the_batch():
    w = np.concatenate(list(query_weights(7, 50, 3, batch=50)))
    assert w.shape == (50, 7) and (w.sum(1) == 7).all()
    idx = np.random.default_rng(3).integers(0, 7, size=(50, 7))
    assert np.array_equal(w, np.stack([np.bincount(r, minlength=7) for r in idx]))
    small = np.concatenate(list(query_weights(7, 50, 3, batch=16)))
    assert np.array_equal(small, w)


def test_source_agreement_point_values_and_bootstrap_against_weighted_sklearn():
    ls = _file()
    res = source_agreement(ls, "good", resamples=300, seed=1, weights="quadratic")
    g, o = ls.gold, ls.sources["good"]
    assert res.weighted_kappa.value == pytest.approx(
        cohen_kappa_score(g, o, labels=[0, 1, 2], weights="quadratic"), abs=1e-12)
    assert res.kappa_binary.value == pytest.approx(cohen_kappa_score(g > 0, o > 0), abs=1e-12)
    assert res.mae.value == pytest.approx(np.mean(np.abs(g - o)) / 2)
    # resample 0 of the kappa distribution = sklearn with the drawn queries' multiplicities
    qi, _ = pd.factorize(ls.pairs["query_id"])
    w0 = next(query_weights(qi.max() + 1, 300, 1))[0]
    ref = cohen_kappa_score(g, o, labels=[0, 1, 2], sample_weight=w0[qi].astype(float))
    assert res.distributions["kappa"][0] == pytest.approx(ref, abs=1e-9)
    for est in (res.kappa, res.weighted_kappa, res.mae, res.pairwise_accuracy):
        assert isinstance(est, Estimate) and est.ci_low <= est.value <= est.ci_high
    d = res.to_dict()
    assert d["n_pairs"] == 240 and d["resamples"] == 300 and d["weights"] == "quadratic"


def test_rank_sources_puts_the_better_source_first():
    ls = _file(2)
    ranked = rank_sources(ls, resamples=200)
    assert [r.name for r in ranked] == ["good", "bad"]
    with pytest.raises(InputError) as e:
        source_agreement(ls, "nobody", resamples=200)
    assert e.value.code == "agreement.err_unknown_source"


def test_disagreements_largest_gap_first():
    ls = load_labels(b"query_id,doc_id,gold,crowd\nq,a,0,1\nq,b,2,0\nq,c,1,1\nq,d,1,\n", "l.csv")
    d = disagreements(ls, "crowd")
    assert d["doc_id"].tolist() == ["b", "a"] and d["gap"].tolist() == [-2, 1]


def test_split_half_counts_wins_of_the_source_picked_on_the_other_half():
    ls = _file(3)
    sh = split_half(ls, "bad", splits=200, seed=4, batch=64)
    assert sh.splits == 200 and sh.n_pairs == 240 and sum(sh.picked.values()) == 200
    assert sh.picked["good"] > 150 and sh.wins > 150  # the clearly better source wins
    assert sh.baseline_best == sh.picked["bad"] and 0 <= sh.win_rate <= 1
    again = split_half(ls, "bad", splits=200, seed=4, batch=200)
    assert again.to_dict() == sh.to_dict()  # the batch size does not change the splits
    one = load_labels(b"query_id,doc_id,gold,x\nq,a,1,1\nq,b,0,0\n", "one.csv")
    with pytest.raises(InputError):
        split_half(one)
