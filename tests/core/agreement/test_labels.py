"""core.agreement.labels: levels 1-2 formulas (kappa, weighted kappa, MAE, pairwise accuracy)
against scikit-learn and brute force."""
import itertools

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from core.agreement.labels import (LEVELS, binarize, binary_kappa, cohen_kappa, confusion,
                                   kappa_band, kappa_from_confusion, mae_from_confusion,
                                   pairwise_accuracy, per_query_confusion, preference_counts,
                                   weight_matrix)


def _labels(seed, n=200):
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 3, n)
    o = np.where(rng.random(n) < 0.7, g, rng.integers(0, 3, n))
    q = rng.integers(0, 15, n)
    return q, g, o


def test_confusion_counts_pairs_and_checks_labels():
    c = confusion([0, 1, 2, 2], [0, 2, 2, 1])
    assert c.tolist() == [[1, 0, 0], [0, 0, 1], [0, 1, 1]]
    with pytest.raises(ValueError, match="labels 0, 1 or 2"):
        confusion([0, 3], [0, 1])
    with pytest.raises(ValueError):
        confusion([0, 1], [0])


def test_binarize_merges_1_and_2_on_stacks_too():
    c = np.arange(9).reshape(3, 3)
    assert binarize(c).tolist() == [[0, 1 + 2], [3 + 6, 4 + 5 + 7 + 8]]
    stack = np.stack([c, 2 * c])
    assert np.array_equal(binarize(stack)[1], 2 * binarize(c))


def test_weight_matrix():
    assert weight_matrix(3, None).tolist() == [[0, 1, 1], [1, 0, 1], [1, 1, 0]]
    assert weight_matrix(3, "linear").tolist() == [[0, 1, 2], [1, 0, 1], [2, 1, 0]]
    assert weight_matrix(3, "quadratic")[0, 2] == 4
    with pytest.raises(ValueError, match="weights"):
        weight_matrix(3, "cubic")


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_kappa_equals_scikit_learn(seed, weights):
    _, g, o = _labels(seed)
    ref = cohen_kappa_score(g, o, labels=range(LEVELS), weights=weights)
    assert cohen_kappa(g, o, weights=weights) == pytest.approx(ref, abs=1e-12)
    assert kappa_from_confusion(confusion(g, o), weights) == pytest.approx(ref, abs=1e-12)


def test_kappa_on_a_stack_and_undefined_case():
    _, g, o = _labels(4)
    c = confusion(g, o)
    both = kappa_from_confusion(np.stack([c, c]))
    assert both.shape == (2,) and both[0] == both[1] == pytest.approx(cohen_kappa(g, o))
    assert np.isnan(kappa_from_confusion(np.diag([5, 0, 0])))  # one class everywhere


def test_binary_kappa_equals_scikit_learn_on_merged_labels():
    _, g, o = _labels(5)
    ref = cohen_kappa_score(g > 0, o > 0)
    assert binary_kappa(g, o) == pytest.approx(ref, abs=1e-12)


def test_mae_from_confusion():
    _, g, o = _labels(6)
    assert mae_from_confusion(confusion(g, o), 2.0) == pytest.approx(np.mean(np.abs(g - o)) / 2)


@pytest.mark.parametrize("k,band", [(-0.1, "poor"), (0.1, "slight"), (0.3, "fair"),
                                    (0.5, "moderate"), (0.7, "substantial"),
                                    (0.9, "almost_perfect"), (float("nan"), None)])
def test_kappa_band_landis_koch(k, band):
    assert kappa_band(k) == band


def _brute_pairwise(q, g, o):
    credit = pairs = 0.0
    for i, j in itertools.combinations(range(len(g)), 2):
        if q[i] != q[j] or g[i] == g[j]:
            continue
        a, b = (i, j) if g[i] > g[j] else (j, i)
        pairs += 1
        credit += 1.0 if o[a] > o[b] else 0.5 if o[a] == o[b] else 0.0
    return credit, pairs


@pytest.mark.parametrize("seed", [0, 3])
def test_pairwise_accuracy_and_preference_counts_equal_enumerating_pairs(seed):
    q, g, o = _labels(seed, n=120)
    credit, pairs = _brute_pairwise(q, g, o)
    assert pairwise_accuracy(q, g, o) == pytest.approx(credit / pairs, abs=1e-12)
    cq = per_query_confusion(q, g, o)
    c, p = preference_counts(cq)
    assert c.sum() == pytest.approx(credit) and p.sum() == pairs
    assert np.isnan(pairwise_accuracy([1, 2], [0, 1], [0, 1]))  # no same-query pair


def test_per_query_confusion_sums_to_the_confusion_matrix():
    q, g, o = _labels(7)
    cq = per_query_confusion(q, g, o)
    assert cq.shape == (q.max() + 1, 3, 3)
    assert np.array_equal(cq.sum(0), confusion(g, o))
    assert np.array_equal(cq[2], confusion(g[q == 2], o[q == 2]))
    assert per_query_confusion(q, g, o, n_queries=20).shape == (20, 3, 3)
    with pytest.raises(ValueError, match="n_queries"):
        per_query_confusion(q, g, o, n_queries=2)
    with pytest.raises(ValueError):
        per_query_confusion(q[:-1], g, o)
