"""Label agreement: can cheaper labels stand in for the gold labels? (issue 6)

A second label source (a crowd, a heuristic, an LLM run elsewhere) is judged against gold
labels at the four levels of Thomas, Spielman, Craswell & Mitra, "Large Language Models can
Accurately Predict Searcher Preferences", SIGIR 2024:

1. Document labels: the confusion matrix; Cohen's kappa (Cohen 1960) on the graded labels
   (``kappa``, equal to ``sklearn.metrics.cohen_kappa_score``) and on binary labels (1 and 2
   merged into "relevant"; ``kappa_binary``); weighted kappa on the graded labels (Cohen
   1968); mean absolute error with labels scaled to [0, 1].
2. Document preference: pairwise accuracy over same-query document pairs whose gold labels
   differ.
3. Query ordering (needs a run): a per-query metric under gold vs other labels; queries
   ordered worst first; agreement by rank-biased overlap (Webber, Moffat & Zobel 2010:
   RBO_ext, and the rescaled prefix RBO@k; ``core.rank_similarity``) and Kendall's tau-b.
4. System ordering (needs >= 3 runs): systems ordered by mean metric; RBO, tau, top 3.

Levels 1-2 carry percentile bootstrap CIs that resample *queries* (the clusters of the data;
Efron & Tibshirani 1993, ch. 13; pairs of one query are not independent), computed from
per-query confusion matrices so a resample is one matrix product. Several sources are ranked
by kappa, and the split-half check of Thomas et al. §4.4 asks how often the source that is
best on a random half of the pairs also beats a baseline source on the other half.
Everything random is seeded (keyword ``seed``; same seed -> same output).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal, Sequence

import numpy as np
import pandas as pd

from core.agreement_io import MISSING, LabelSet, Run
from core.errors import InputError
from core.metrics import Measure, parse_measure, per_query
from core.rank_similarity import RBOResult, kendall_tau, rbo, tie_groups  # noqa: F401
from core.stats import check_confidence, percentile_ci

Weights = Literal["linear", "quadratic"]
WEIGHTS: tuple[str, ...] = ("linear", "quadratic")
LEVELS = 3  # labels 0, 1, 2
METRICS: tuple[str, ...] = ("ndcg@10", "p@10", "ap@100")
DEFAULT_RESAMPLES = 10_000
DEFAULT_SPLITS = 1_000
QUERY_P, SYSTEM_P = 0.9, 0.7
BOTTOM_N, TOP_N = 5, 3
_BATCH = 2_048  # bootstrap resamples per batch: memory O(batch * queries)


# ----------------------------------------------------------------------------- validation
def _check_weights(weights) -> str:
    if weights not in WEIGHTS:
        raise ValueError(f"weights must be one of {WEIGHTS}, got {weights!r}")
    return weights


def _check_int(name: str, v, lo: int, hi: int) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not lo <= int(v) <= hi:
        raise ValueError(f"{name} must be a whole number in [{lo:,}, {hi:,}], got {v!r}")
    return int(v)


def _check_labels(name: str, x) -> np.ndarray:
    a = np.asarray(x)
    if a.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {a.shape}")
    if a.size and not np.isin(a, (0, 1, 2)).all():
        raise ValueError(f"{name} must hold labels 0, 1 or 2 only")
    return a.astype(np.int64)


# ----------------------------------------------------------------------------- level 1 formulas
def confusion(gold, other, levels: int = LEVELS) -> np.ndarray:
    """Confusion matrix C[i, j] = #pairs with gold label i and other label j (i, j in 0..2)."""
    g, o = _check_labels("gold", gold), _check_labels("other", other)
    if g.shape != o.shape:
        raise ValueError(f"gold and other must be paired (same length), got {g.size} and {o.size}")
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
    _check_weights(weights)
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
    cq = _per_query_confusion(qi, _check_labels("gold", gold), _check_labels("other", other),
                              int(qi.max()) + 1 if qi.size else 0)
    credit, pairs = preference_counts(cq)
    total = pairs.sum()
    return float(credit.sum() / total) if total else float("nan")


def _per_query_confusion(qi: np.ndarray, g: np.ndarray, o: np.ndarray, nq: int) -> np.ndarray:
    idx = qi * LEVELS * LEVELS + g * LEVELS + o
    return np.bincount(idx, minlength=nq * LEVELS * LEVELS).reshape(nq, LEVELS, LEVELS)


# ----------------------------------------------------------------------------- bootstrap
@dataclass(frozen=True)
class Estimate:
    """A statistic with its percentile bootstrap CI over resampled queries.

    ``undefined`` counts resamples where the statistic was undefined (e.g. kappa when a
    resample holds one class only); the CI is read from the others.
    """

    value: float
    ci_low: float
    ci_high: float
    undefined: int = 0

    def to_dict(self) -> dict:
        return {"value": self.value, "ci_low": self.ci_low, "ci_high": self.ci_high,
                "undefined_resamples": self.undefined}


def query_weights(n_queries: int, resamples: int, seed: int, *, batch: int = _BATCH):
    """Yield (b, n_queries) blocks of bootstrap multiplicities: each row counts how often each
    query was drawn when ``n_queries`` queries are drawn with replacement (Efron & Tibshirani
    1993). Draws come from one ``numpy.random.default_rng(seed)`` stream, row by row, so the
    batch size does not change the result."""
    rng = np.random.default_rng(seed)
    done = 0
    while done < resamples:
        b = min(batch, resamples - done)
        idx = rng.integers(0, n_queries, size=(b, n_queries))
        idx += (np.arange(b) * n_queries)[:, None]
        yield np.bincount(idx.ravel(), minlength=b * n_queries).reshape(b, n_queries)
        done += b


def _percentile(dist: np.ndarray, confidence: float) -> tuple[float, float, int]:
    ok = dist[np.isfinite(dist)]
    undefined = int(dist.size - ok.size)
    if ok.size == 0:
        return float("nan"), float("nan"), undefined
    lo, hi = percentile_ci(ok, confidence)
    return lo, hi, undefined


# ----------------------------------------------------------------------------- levels 1-2 result
@dataclass(frozen=True)
class SourceAgreement:
    """Levels 1 and 2 for one source against gold, on the pairs both labelled."""

    name: str
    gold_name: str
    n_pairs: int
    n_queries: int
    n_excluded: int            # pairs left out because gold or this source is blank
    confusion: np.ndarray      # 3x3, rows = gold 0/1/2, columns = this source 0/1/2
    graded: bool
    scale: float
    weights: str
    kappa_binary: Estimate     # Cohen's kappa on binary labels (1, 2 -> relevant)
    weighted_kappa: Estimate   # graded 0/1/2 with ``weights``
    mae: Estimate
    pairwise_accuracy: Estimate
    n_preference_pairs: int
    confidence: float
    resamples: int
    seed: int
    distributions: dict = field(repr=False)  # statistic -> resampled values
    kappa: Estimate | None = None  # unweighted Cohen's kappa on the graded labels

    @property
    def binary_confusion(self) -> np.ndarray:
        return binarize(self.confusion)

    def to_dict(self) -> dict:
        levels = [0, 1, 2] if self.graded else [0, 1]
        c = self.confusion if self.graded else self.confusion[:2, :2]
        return {"source": self.name, "gold": self.gold_name, "n_pairs": self.n_pairs,
                "n_queries": self.n_queries, "n_excluded": self.n_excluded,
                "label_values": levels, "confusion": c.tolist(),
                "binary_confusion": self.binary_confusion.tolist(),
                "kappa": self.kappa.value, "kappa_ci": [self.kappa.ci_low, self.kappa.ci_high],
                "kappa_binary": self.kappa_binary.value,
                "kappa_binary_ci": [self.kappa_binary.ci_low, self.kappa_binary.ci_high],
                "weighted_kappa": self.weighted_kappa.value,
                "weighted_kappa_ci": [self.weighted_kappa.ci_low, self.weighted_kappa.ci_high],
                "weights": self.weights,
                "mae": self.mae.value, "mae_ci": [self.mae.ci_low, self.mae.ci_high],
                "mae_scale": self.scale,
                "pairwise_accuracy": self.pairwise_accuracy.value,
                "pairwise_accuracy_ci": [self.pairwise_accuracy.ci_low,
                                         self.pairwise_accuracy.ci_high],
                "n_preference_pairs": self.n_preference_pairs,
                "undefined_resamples": {k: e.undefined for k, e in self._estimates().items()},
                "confidence": self.confidence, "resamples": self.resamples, "seed": self.seed}

    def _estimates(self) -> dict:
        return {"kappa": self.kappa, "kappa_binary": self.kappa_binary,
                "weighted_kappa": self.weighted_kappa, "mae": self.mae,
                "pairwise_accuracy": self.pairwise_accuracy}


def _source_arrays(labels: LabelSet, source: str):
    if source not in labels.sources:
        raise InputError("agreement.err_unknown_source", file=labels.source, name=source,
                         names=", ".join(labels.names))
    s = labels.sources[source]
    ok = (labels.gold != MISSING) & (s != MISSING)
    return ok, labels.gold[ok].astype(np.int64), s[ok].astype(np.int64)


def source_agreement(labels: LabelSet, source: str, *, weights: str = "linear",
                     resamples: int = DEFAULT_RESAMPLES, confidence: float = 0.95,
                     seed: int = 0, batch: int = _BATCH) -> SourceAgreement:
    """Levels 1-2 of ``source`` against gold, each with a query-bootstrap percentile CI.

    Pairs where gold or the source is blank are left out (counted in ``n_excluded``). The
    MAE scale is 2 when any label in the file is 2 (graded), else 1. A resample draws the
    queries with replacement; its confusion matrix is sum_q w_q C_q (w_q = times query q was
    drawn), from which kappa (graded and binary), weighted kappa, MAE and pairwise accuracy
    follow.
    """
    _check_weights(weights)
    resamples = _check_int("resamples", resamples, 1, 1_000_000)
    confidence = check_confidence(confidence)
    seed = _check_int("seed", seed, 0, 2**63 - 1)
    batch = _check_int("batch", batch, 1, 1_000_000)
    ok, g, o = _source_arrays(labels, source)
    if ok.sum() < 2:
        raise InputError("agreement.err_too_few_pairs", file=labels.source, name=source,
                         n=int(ok.sum()))
    qi, qids = pd.factorize(labels.pairs["query_id"].to_numpy()[ok])
    nq = len(qids)
    scale = 2.0 if labels.graded else 1.0
    cq = _per_query_confusion(qi, g, o, nq)                  # (Q, 3, 3)
    credit_q, pairs_q = preference_counts(cq)                # (Q,), (Q,)
    total = cq.sum(0)
    flat = cq.reshape(nq, -1).astype(float)
    dists = {k: [] for k in ("kappa", "kappa_binary", "weighted_kappa", "mae",
                             "pairwise_accuracy")}
    for w in query_weights(nq, resamples, seed, batch=batch):
        wf = w.astype(float)
        c = (wf @ flat).reshape(-1, LEVELS, LEVELS)
        dists["kappa"].append(kappa_from_confusion(c))
        dists["kappa_binary"].append(kappa_from_confusion(binarize(c)))
        dists["weighted_kappa"].append(kappa_from_confusion(c, weights))
        dists["mae"].append(mae_from_confusion(c, scale))
        with np.errstate(invalid="ignore", divide="ignore"):
            dists["pairwise_accuracy"].append((wf @ credit_q) / (wf @ pairs_q))
    dists = {k: np.concatenate(v) for k, v in dists.items()}
    n_pref = int(pairs_q.sum())
    point = {"kappa": kappa_from_confusion(total),
             "kappa_binary": kappa_from_confusion(binarize(total)),
             "weighted_kappa": kappa_from_confusion(total, weights),
             "mae": mae_from_confusion(total, scale),
             "pairwise_accuracy": float(credit_q.sum() / n_pref) if n_pref else float("nan")}
    est = {k: Estimate(float(point[k]), *_percentile(dists[k], confidence)) for k in point}
    return SourceAgreement(source, labels.gold_name, int(ok.sum()), nq, int((~ok).sum()), total,
                           labels.graded, scale, weights, est["kappa_binary"],
                           est["weighted_kappa"], est["mae"], est["pairwise_accuracy"], n_pref,
                           confidence, resamples, seed, dists, est["kappa"])


def rank_sources(labels: LabelSet, **kw) -> list[SourceAgreement]:
    """Every source against gold (same settings), best binary kappa first (NaN last)."""
    res = [source_agreement(labels, s, **kw) for s in labels.names]
    return sorted(res, key=lambda r: (-r.kappa_binary.value
                                      if math.isfinite(r.kappa_binary.value) else math.inf))


def disagreements(labels: LabelSet, source: str) -> pd.DataFrame:
    """Pairs where ``source`` and gold differ, largest gap first (query, doc, both labels)."""
    ok, g, o = _source_arrays(labels, source)
    df = labels.pairs[ok].reset_index(drop=True).assign(**{labels.gold_name: g, source: o})
    df = df[g != o].copy()
    df["gap"] = (df[source] - df[labels.gold_name]).astype(int)
    return df.sort_values("gap", key=np.abs, ascending=False, kind="stable") \
        .reset_index(drop=True)


# ----------------------------------------------------------------------------- split-half
@dataclass(frozen=True)
class SplitHalf:
    """Thomas et al. 2024 §4.4: is the best source on one half still better on the other?"""

    baseline: str
    splits: int
    n_pairs: int
    wins: int                 # splits where best-on-half-A beats the baseline on half B
    baseline_best: int        # splits where the baseline itself was best on half A
    picked: dict              # source -> times it was best on half A
    seed: int

    @property
    def win_rate(self) -> float:
        return self.wins / self.splits

    def to_dict(self) -> dict:
        return {"baseline": self.baseline, "splits": self.splits, "n_pairs": self.n_pairs,
                "wins": self.wins, "win_rate": self.win_rate,
                "baseline_best": self.baseline_best, "picked": self.picked, "seed": self.seed,
                "statistic": "kappa (binary)", "unit": "labelled pair"}


def split_half(labels: LabelSet, baseline: str | None = None, *,
               splits: int = DEFAULT_SPLITS, seed: int = 0, batch: int = 256) -> SplitHalf:
    """Split the labelled pairs into random halves ``splits`` times (Thomas et al. 2024 §4.4).

    On each split, half A picks the source with the highest binary kappa against gold; on
    half B that source wins if its kappa is strictly higher than the ``baseline`` source's
    (default: the first source). Halves are drawn from pairs every source and gold labelled
    (floor(n/2) pairs in A, the rest in B) with ``numpy.random.default_rng(seed)``. A kappa
    undefined on a half counts as losing. Needs at least two sources.
    """
    names = labels.names
    if len(names) < 2:
        raise InputError("agreement.err_split_one_source", file=labels.source)
    baseline = names[0] if baseline is None else baseline
    if baseline not in names:
        raise InputError("agreement.err_unknown_source", file=labels.source, name=baseline,
                         names=", ".join(names))
    splits = _check_int("splits", splits, 1, 100_000)
    seed = _check_int("seed", seed, 0, 2**63 - 1)
    batch = _check_int("batch", batch, 1, 100_000)
    complete = labels.gold != MISSING
    for s in names:
        complete &= labels.sources[s] != MISSING
    n = int(complete.sum())
    if n < 4:
        raise InputError("agreement.err_too_few_pairs", file=labels.source, name="all", n=n)
    g = (labels.gold[complete] > 0).astype(np.int64)
    # one-hot of the 2x2 cell (gold, source) per pair and source: (n, S * 4)
    onehot = np.zeros((n, len(names) * 4), dtype=np.float32)
    for k, s in enumerate(names):
        cell = g * 2 + (labels.sources[s][complete] > 0)
        onehot[np.arange(n), k * 4 + cell] = 1.0
    totals = onehot.sum(0)
    base = np.zeros(n, dtype=np.float32)
    base[: n // 2] = 1.0
    rng = np.random.default_rng(seed)
    b_idx = names.index(baseline)
    wins = base_best = 0
    picked = np.zeros(len(names), dtype=np.int64)
    done = 0
    while done < splits:
        b = min(batch, splits - done)
        mask = rng.permuted(np.tile(base, (b, 1)), axis=1)
        ca = (mask @ onehot).reshape(b, len(names), 2, 2)
        cb = (totals[None, :] - (mask @ onehot)).reshape(b, len(names), 2, 2)
        ka = np.nan_to_num(kappa_from_confusion(ca), nan=-np.inf)
        kb = kappa_from_confusion(cb)
        best = np.argmax(ka, axis=1)
        kb_best = kb[np.arange(b), best]
        kb_base = kb[:, b_idx]
        with np.errstate(invalid="ignore"):
            win = (best != b_idx) & (kb_best > kb_base)
        wins += int(win.sum())
        base_best += int((best == b_idx).sum())
        picked += np.bincount(best, minlength=len(names))
        done += b
    return SplitHalf(baseline, splits, n, wins, base_best,
                     {s: int(c) for s, c in zip(names, picked)}, seed)


# ----------------------------------------------------------------------------- levels 3-4
def qrels_for(labels: LabelSet, column: str, mask: np.ndarray | None = None) -> dict:
    """{query: {doc: label}} for the gold column (``column == labels.gold_name``) or a
    source, over pairs in ``mask`` (default: pairs that column labelled)."""
    vals = labels.gold if column == labels.gold_name else labels.sources[column]
    m = vals != MISSING if mask is None else mask
    out: dict = {}
    for q, d, v in zip(labels.pairs["query_id"].to_numpy()[m],
                       labels.pairs["doc_id"].to_numpy()[m], vals[m]):
        out.setdefault(q, {})[d] = int(v)
    return out


@dataclass(frozen=True)
class RunCoverage:
    """How a run meets the labels: what counts as not relevant, what is ignored."""

    run: str
    retrieved: int            # (query, doc) pairs in the evaluated depth, labelled queries
    unlabelled: int           # of those, without a label: counted as not relevant
    extra_queries: int        # run queries with no labels: ignored
    missing_queries: int      # labelled queries the run did not answer: score 0
    repeated: int = 0         # repeated (query, doc) lines in the run file (last one kept)

    def to_dict(self) -> dict:
        return {"run": self.run, "retrieved": self.retrieved, "unlabelled": self.unlabelled,
                "extra_queries": self.extra_queries, "missing_queries": self.missing_queries,
                "repeated_lines": self.repeated}


def run_coverage(run: Run, qrels: dict, measure: Measure) -> RunCoverage:
    retrieved = unlabelled = 0
    for q, judged in qrels.items():
        docs = list(dict.fromkeys(run.ranking.get(q, ())))
        top = docs if measure.k is None else docs[: measure.k]
        retrieved += len(top)
        unlabelled += sum(1 for d in top if d not in judged)
    extra = sum(1 for q in run.ranking if q not in qrels)
    missing = sum(1 for q in qrels if q not in run.ranking)
    return RunCoverage(run.name, retrieved, unlabelled, extra, missing, run.repeated)


@dataclass(frozen=True)
class QueryOrdering:
    """Level 3: one run's per-query metric under gold vs other labels."""

    run: str
    measure: str
    scores: pd.DataFrame = field(repr=False)  # index query_id; columns gold, other
    rbo: RBOResult
    tau: float
    tau_p: float
    bottom_gold: list
    bottom_other: list

    def to_dict(self) -> dict:
        return {"run": self.run, "measure": self.measure, "n_queries": len(self.scores),
                **self.rbo.to_dict(),
                "tau": self.tau, "tau_p": self.tau_p,
                "bottom_gold": self.bottom_gold, "bottom_other": self.bottom_other}


def query_ordering(run: Run, gold_qrels: dict, other_qrels: dict, measure: Measure, *,
                   p: float = QUERY_P, bottom: int = BOTTOM_N) -> QueryOrdering:
    """Per-query ``measure`` of ``run`` under both label sets (``core.metrics.per_query``);
    queries ordered worst first, equal scores tied; normalised RBO (persistence ``p``) and
    Kendall's tau-b between the two score vectors; the ``bottom`` worst queries of each."""
    g = per_query(run.ranking, gold_qrels, [measure]).iloc[:, 0]
    o = per_query(run.ranking, other_qrels, [measure]).iloc[:, 0].reindex(g.index)
    scores = pd.DataFrame({"gold": g, "other": o})
    r = rbo(tie_groups(g.index, g.to_numpy(), descending=False),
            tie_groups(o.index, o.to_numpy(), descending=False), p)
    tau, tau_p = kendall_tau(g.to_numpy(), o.to_numpy())

    def worst(col):
        srt = scores.sort_values([col], kind="stable")  # index already sorted by query id
        return [{"query_id": q, "score": float(v)} for q, v in srt[col].head(bottom).items()]

    return QueryOrdering(run.name, str(measure), scores, r, tau, tau_p, worst("gold"),
                         worst("other"))


@dataclass(frozen=True)
class SystemOrdering:
    """Level 4: systems ordered by mean metric under gold vs other labels."""

    measure: str
    means: pd.DataFrame = field(repr=False)  # index run; columns gold, other
    rbo: RBOResult
    tau: float
    tau_p: float
    top_gold: list
    top_other: list

    @property
    def top_same_set(self) -> bool:
        return set(self.top_gold) == set(self.top_other)

    @property
    def top_same_order(self) -> bool:
        return self.top_gold == self.top_other

    def to_dict(self) -> dict:
        return {"measure": self.measure, "n_systems": len(self.means),
                "means": {r: {"gold": float(v.gold), "other": float(v.other)}
                          for r, v in self.means.iterrows()},
                **self.rbo.to_dict(),
                "tau": self.tau, "tau_p": self.tau_p, "top_gold": self.top_gold,
                "top_other": self.top_other, "top_same_set": self.top_same_set,
                "top_same_order": self.top_same_order}


def system_ordering(orderings: Sequence[QueryOrdering], *, p: float = SYSTEM_P,
                    top: int = TOP_N) -> SystemOrdering:
    """Mean per-query metric of each run under both label sets, best first (equal means
    tied); normalised RBO with persistence ``p`` (0.7: the top 3-4 systems matter), Kendall's
    tau-b of the means, and whether the ``top`` systems agree. Needs >= 3 runs."""
    if len(orderings) < 3:
        raise ValueError(f"system ordering needs at least 3 runs, got {len(orderings)}")
    means = pd.DataFrame({"gold": [o.scores["gold"].mean() for o in orderings],
                          "other": [o.scores["other"].mean() for o in orderings]},
                         index=pd.Index([o.run for o in orderings], name="run"))
    r = rbo(tie_groups(means.index, means["gold"].to_numpy(), descending=True),
            tie_groups(means.index, means["other"].to_numpy(), descending=True), p)
    tau, tau_p = kendall_tau(means["gold"].to_numpy(), means["other"].to_numpy())

    def best(col):
        return means.sort_values(col, ascending=False, kind="stable").index[:top].tolist()

    return SystemOrdering(orderings[0].measure, means, r, tau, tau_p, best("gold"),
                          best("other"))


# ----------------------------------------------------------------------------- one call
@dataclass(frozen=True)
class AgreementReport:
    """All four levels for one chosen source, every source ranked, and the split-half check."""

    labels: LabelSet = field(repr=False)
    main: SourceAgreement
    ranking: list
    split: SplitHalf | None
    measure: str
    coverage: list
    queries: list             # QueryOrdering per run (the chosen source vs gold)
    query_run: str | None
    systems: SystemOrdering | None

    def query(self) -> QueryOrdering | None:
        return next((q for q in self.queries if q.run == self.query_run), None)

    def to_dict(self) -> dict:
        m = self.main.to_dict()
        out = {"file": self.labels.source, "source": self.main.name,
               "gold": self.labels.gold_name, "n_pairs": m["n_pairs"],
               "n_queries": m["n_queries"], "labels": self.labels.summary()}
        out.update({k: m[k] for k in m if k not in ("source", "gold", "n_pairs", "n_queries")})
        out["sources"] = [{"source": r.name, "n_pairs": r.n_pairs, "kappa": r.kappa.value,
                           "kappa_ci": [r.kappa.ci_low, r.kappa.ci_high],
                           "kappa_binary": r.kappa_binary.value,
                           "kappa_binary_ci": [r.kappa_binary.ci_low, r.kappa_binary.ci_high],
                           "weighted_kappa": r.weighted_kappa.value,
                           "mae": r.mae.value, "pairwise_accuracy": r.pairwise_accuracy.value}
                          for r in self.ranking]
        out["split_half"] = self.split.to_dict() if self.split else None
        out["measure"] = self.measure
        q = self.query()
        out["query_run"] = self.query_run
        out["query_rbo"] = q.rbo.ext if q else None
        out["query_rbo_prefix"] = q.rbo.normalized if q else None
        out["query_tau"] = q.tau if q else None
        out["query_ordering"] = [x.to_dict() for x in self.queries]
        s = self.systems
        out["system_rbo"] = s.rbo.ext if s else None
        out["system_rbo_prefix"] = s.rbo.normalized if s else None
        out["system_tau"] = s.tau if s else None
        out["system_ordering"] = s.to_dict() if s else None
        out["runs"] = [c.to_dict() for c in self.coverage]
        return out


def analyse(labels: LabelSet, *, source: str | None = None, runs: Sequence[Run] = (),
            measure: str = "ndcg@10", weights: str = "linear",
            resamples: int = DEFAULT_RESAMPLES, confidence: float = 0.95, seed: int = 0,
            baseline: str | None = None, splits: int = DEFAULT_SPLITS,
            query_run: str | None = None, query_p: float = QUERY_P,
            system_p: float = SYSTEM_P) -> AgreementReport:
    """The four levels for ``source`` (default: the first), every source ranked by kappa, the
    split-half check (when there are >= 2 sources) and, with runs, levels 3 and 4.

    Levels 3-4 use the pairs gold and ``source`` both labelled, so both label sets judge the
    same documents; a retrieved document without a label counts as not relevant
    (``RunCoverage.unlabelled`` says how many, within the metric's cutoff).
    """
    source = labels.names[0] if source is None else source
    m = parse_measure(measure)
    kw = dict(weights=weights, resamples=resamples, confidence=confidence, seed=seed)
    ranking = rank_sources(labels, **kw)
    main = next((r for r in ranking if r.name == source), None)
    if main is None:
        raise InputError("agreement.err_unknown_source", file=labels.source, name=source,
                         names=", ".join(labels.names))
    split = (split_half(labels, baseline, splits=splits, seed=seed)
             if len(labels.names) >= 2 else None)
    coverage, queries, systems = [], [], None
    runs = list(runs)
    if runs:
        names = [r.name for r in runs]
        if len(set(names)) != len(names):
            raise ValueError(f"runs must have distinct names, got {names}")
        both = (labels.gold != MISSING) & (labels.sources[source] != MISSING)
        gq = qrels_for(labels, labels.gold_name, both)
        oq = qrels_for(labels, source, both)
        for run in runs:
            coverage.append(run_coverage(run, gq, m))
            queries.append(query_ordering(run, gq, oq, m, p=query_p))
        if query_run is None:
            query_run = runs[0].name
        elif query_run not in names:
            raise ValueError(f"query_run must be one of {names}, got {query_run!r}")
        if len(runs) >= 3:
            systems = system_ordering(queries, p=system_p)
    else:
        query_run = None
    return AgreementReport(labels, main, ranking, split, str(m), coverage, queries, query_run,
                           systems)
