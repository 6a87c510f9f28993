"""Label agreement by source (``core.agreement.levels`` puts the levels together): levels 1-2 of one
source against gold with percentile bootstrap CIs over resampled *queries* (Efron &
Tibshirani 1993, ch. 13: the pairs of one query are not independent), every source ranked,
and the split-half check of Thomas et al. (SIGIR 2024, §4.4). Seeded (keyword ``seed``)."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from core import checks
from core.agreement.files import LabelSet, MISSING
from core.agreement.labels import (LEVELS, WEIGHTS, binarize, kappa_from_confusion,
                                   mae_from_confusion, per_query_confusion, preference_counts)
from core.errors import InputError
from core.paired import percentile_ci

DEFAULT_RESAMPLES = 10_000
DEFAULT_SPLITS = 1_000
_BATCH = 2_048  # bootstrap resamples per batch: memory O(batch * queries)


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
    weights, resamples, confidence, seed, batch = checks.agreement_iv(
        weights, resamples, confidence, seed, batch, weight_options=WEIGHTS)
    ok, g, o = _source_arrays(labels, source)
    if ok.sum() < 2:
        raise InputError("agreement.err_too_few_pairs", file=labels.source, name=source,
                         count=int(ok.sum()))
    qi, qids = pd.factorize(labels.pairs["query_id"].to_numpy()[ok])
    nq = len(qids)
    scale = 2.0 if labels.graded else 1.0
    cq = per_query_confusion(qi, g, o, nq)                  # (Q, 3, 3)
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
    splits, seed, batch = checks.split_half_iv(splits, seed, batch)
    names = labels.names
    if len(names) < 2:
        raise InputError("agreement.err_split_one_source", file=labels.source)
    baseline = names[0] if baseline is None else baseline
    if baseline not in names:
        raise InputError("agreement.err_unknown_source", file=labels.source, name=baseline,
                         names=", ".join(names))
    complete = labels.gold != MISSING
    for s in names:
        complete &= labels.sources[s] != MISSING
    n = int(complete.sum())
    if n < 4:
        raise InputError("agreement.err_too_few_pairs", file=labels.source, name="all", count=n)
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
