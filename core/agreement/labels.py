"""Label agreement, levels 1-2 as formulas (``core.agreement.levels`` puts them together): the
confusion matrix, Cohen's kappa (Cohen 1960) and weighted kappa (Cohen 1968), mean absolute
error, and pairwise preference accuracy (Thomas, Spielman, Craswell & Mitra, SIGIR 2024),
all computed from (stacks of) confusion matrices so a bootstrap resample is one product."""
from __future__ import annotations

import math
from typing import Literal

import numpy as np
import pandas as pd

from core import checks

Weights = Literal["linear", "quadratic"]
WEIGHTS: tuple[str, ...] = ("linear", "quadratic")
LEVELS = 3  # labels 0, 1, 2


# ----------------------------------------------------------------------------- level 1 formulas
def confusion(gold, other, levels: int = LEVELS) -> np.ndarray:
    """Confusion matrix C[i, j] = #pairs with gold label i and other label j (i, j in 0..2)."""
    g, o = checks.labels("gold", gold), checks.labels("other", other)
    checks.same_length(gold=g, other=o)
    return np.bincount(g * levels + o, minlength=levels * levels).reshape(levels, levels)


def binarize(c: np.ndarray) -> np.ndarray:
    """A 3x3 (graded) confusion matrix -> 2x2 with labels 1 and 2 merged into 'relevant'.
    Works on stacks (..., 3, 3)."""
    c = np.asarray(c)
    out = np.empty(c.shape[:-2] + (2, 2), dtype=c.dtype)
    out[..., 0, 0] = c[..., 0, 0]
    out[..., 0, 1] = c[..., 0, 1:].sum(-1)
    out[..., 1, 0] = c[..., 1:, 0].sum(-1)
    out[..., 1, 1] = c[..., 1:, 1:].sum((-1, -2))
    return out


def weight_matrix(k: int, weights: str | None) -> np.ndarray:
    """Disagreement weights w[i, j] for label values 0..k-1 (Cohen 1968):
    None -> 1 off the diagonal (plain kappa); 'linear' -> |i - j|; 'quadratic' -> (i - j)^2."""
    i, j = np.indices((k, k))
    if weights is None:
        return (i != j).astype(float)
    checks.choice("weights", weights, WEIGHTS)
    d = np.abs(i - j).astype(float)
    return d if weights == "linear" else d * d


def kappa_from_confusion(c, weights: str | None = None) -> np.ndarray | float:
    """Cohen's kappa (Cohen 1960) or weighted kappa (Cohen 1968) of confusion matrices.

    With O = C / n the observed shares, E[i, j] = (row_i / n)(col_j / n) the shares expected
    by chance from the marginals, and disagreement weights w (``weight_matrix``)::

        kappa_w = 1 - sum(w * O) / sum(w * E)

    With w = 1 off the diagonal this is kappa = (p_o - p_e) / (1 - p_e). Undefined (NaN) when
    sum(w * E) = 0, i.e. both sources put every pair in one and the same class. Takes a single
    (k, k) matrix or a stack (..., k, k); equals ``sklearn.metrics.cohen_kappa_score`` with
    ``labels=range(k)`` (tests check to 1e-12).
    """
    c = np.asarray(c, dtype=float)
    k = c.shape[-1]
    w = weight_matrix(k, weights)
    n = c.sum((-1, -2))
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = c.sum(-1)[..., :, None] * c.sum(-2)[..., None, :] / n[..., None, None]
        num = (w * c).sum((-1, -2))
        den = (w * expected).sum((-1, -2))
        out = np.where(den > 0, 1.0 - num / np.where(den > 0, den, 1.0), np.nan)
    return float(out) if out.ndim == 0 else out


def mae_from_confusion(c, scale: float) -> np.ndarray | float:
    """Mean absolute error sum_ij C[i,j] |i - j| / (n * scale): labels divided by ``scale``
    (2 for graded 0/1/2, 1 for binary) so the error lies in [0, 1]."""
    c = np.asarray(c, dtype=float)
    k = c.shape[-1]
    i, j = np.indices((k, k))
    n = c.sum((-1, -2))
    with np.errstate(invalid="ignore", divide="ignore"):
        out = (np.abs(i - j) * c).sum((-1, -2)) / (n * scale)
    return float(out) if out.ndim == 0 else out


def cohen_kappa(gold, other, *, weights: str | None = None) -> float:
    """Kappa of two label vectors on the 0/1/2 scale (weighted with ``weights``)."""
    return kappa_from_confusion(confusion(gold, other), weights)


def kappa_band(kappa: float) -> str | None:
    """Landis & Koch (1977, Biometrics 33:159-174) words for kappa: 'poor' (< 0), 'slight'
    (0-0.20), 'fair' (0.21-0.40), 'moderate' (0.41-0.60), 'substantial' (0.61-0.80),
    'almost_perfect' (0.81-1); None when kappa is NaN. A reading aid, not a test."""
    if kappa is None or not math.isfinite(kappa):
        return None
    if kappa < 0:
        return "poor"
    for upper, word in ((0.2, "slight"), (0.4, "fair"), (0.6, "moderate"),
                        (0.8, "substantial")):
        if kappa <= upper:
            return word
    return "almost_perfect"


def binary_kappa(gold, other) -> float:
    """Cohen's kappa with labels 1 and 2 merged into 'relevant' (Cohen 1960)."""
    return kappa_from_confusion(binarize(confusion(gold, other)))


# ----------------------------------------------------------------------------- level 2 formula
_ORDER = np.sign(np.subtract.outer(np.arange(LEVELS), np.arange(LEVELS)))  # sign(g_a - g_b)
# credit for an other-source label pair (s_a, s_b) when gold says a > b: 1, ties 1/2, else 0
_CREDIT = np.where(_ORDER > 0, 1.0, np.where(_ORDER == 0, 0.5, 0.0))
_GOLD_PREF = (_ORDER > 0).astype(float)  # gold label pairs (g_a, g_b) with g_a > g_b


def preference_counts(c) -> tuple[np.ndarray, np.ndarray]:
    """(credit, pairs) of pairwise accuracy from one query's confusion matrix C (or a stack).

    Over unordered pairs {a, b} of documents of one query whose gold labels differ (a the one
    gold prefers), the other source scores 1 if it also prefers a, 1/2 if it ties them, 0 if
    it prefers b. With n[g, s] = C[g, s] documents per (gold, other) cell::

        pairs  = sum_{g > g'} (sum_s n[g, s]) (sum_s' n[g', s'])
        credit = sum_{g > g'} sum_{s, s'} n[g, s] n[g', s'] * h(s - s'),
        h = 1 (> 0), 1/2 (= 0), 0 (< 0)

    so no pair list is ever built (tests compare to enumerating the pairs).
    """
    c = np.asarray(c, dtype=float)
    rows = c.sum(-1)
    pairs = np.einsum("...g,gh,...h->...", rows, _GOLD_PREF, rows)
    credit = np.einsum("...gs,gh,st,...ht->...", c, _GOLD_PREF, _CREDIT, c)
    return credit, pairs


def pairwise_accuracy(query_ids, gold, other) -> float:
    """Share of same-query pairs with different gold labels that ``other`` orders the same
    way (ties count 1/2); NaN when no query has two documents with different gold labels."""
    qi = pd.factorize(np.asarray(query_ids))[0]
    cq = per_query_confusion(qi, gold, other)
    credit, pairs = preference_counts(cq)
    total = pairs.sum()
    return float(credit.sum() / total) if total else float("nan")


def per_query_confusion(query_index, gold, other, n_queries: int | None = None) -> np.ndarray:
    """One 3x3 confusion matrix per query: ``C[q, g, o]`` counts the pairs of query ``q``
    with gold label ``g`` and other label ``o`` (``query_index`` = 0-based query numbers, as
    ``pandas.factorize`` gives; labels 0, 1, 2). Shape (``n_queries``, 3, 3), ``n_queries``
    defaulting to ``max(query_index) + 1``. The per-query tables sum to the confusion matrix
    of all pairs, and a query bootstrap re-weights them (``core.agreement.sources``)."""
    g, o = checks.labels("gold", gold), checks.labels("other", other)
    qi = np.asarray(query_index, dtype=np.int64)
    checks.same_length(query_index=qi, gold=g, other=o)
    if n_queries is None:
        n_queries = int(qi.max()) + 1 if qi.size else 0
    nq = checks.whole("n_queries", n_queries, lo=int(qi.max()) + 1 if qi.size else 0)
    idx = qi * LEVELS * LEVELS + g * LEVELS + o
    return np.bincount(idx, minlength=nq * LEVELS * LEVELS).reshape(nq, LEVELS, LEVELS)
