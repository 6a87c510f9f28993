"""Ranking similarity: rank-biased overlap (RBO) and Kendall's tau.

- ``rbo_ext``: Webber, Moffat & Zobel (2010), "A similarity measure for indefinite
  rankings", ACM TOIS 28(4):20, extrapolated RBO (eq. 32) -- what "RBO" means in the paper.
- ``rbo_prefix``: the prefix RBO@k over the observed depth k, rescaled to [0, 1] between the
  smallest and largest value any arrangement of the two lists could reach.
- ``rbo``: both in one ``RBOResult`` (plus raw prefix value and its bounds).
- ``kendall_tau``: Kendall's tau-b (``scipy.stats.kendalltau``).

Ties: an element of a ranking that is a list, set or frozenset is a group of tied items.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd

from core import checks


def _check_p(name: str, p) -> float:
    return checks.share(name, p)


def _groups(ranking: Sequence) -> list[list]:
    out = []
    for el in ranking:
        out.append(list(el) if isinstance(el, (list, set, frozenset)) else [el])
    return [g for g in out if g]


def _membership(groups: list[list], depth: int) -> dict:
    """item -> (start rank a, group size m); item's share of the top-d prefix is
    clip((d - a + 1) / m, 0, 1)."""
    pos, start = {}, 1
    for g in groups:
        for item in g:
            if item in pos:
                raise ValueError(f"item {item!r} appears twice in a ranking")
            pos[item] = (start, len(g))
        start += len(g)
    return pos


def _shares(pos: dict, items: list, depth: int) -> np.ndarray:
    """(len(items), depth) array f[i, d-1] = share of item i in the top-d prefix."""
    d = np.arange(1, depth + 1, dtype=float)
    out = np.zeros((len(items), depth))
    for r, item in enumerate(items):
        if item in pos:
            a, m = pos[item]
            out[r] = np.clip((d - a + 1) / m, 0.0, 1.0)
    return out


@dataclass(frozen=True)
class RBOResult:
    """Rank-biased overlap of two finite rankings: Webber et al.'s extrapolated RBO_ext, and
    the prefix RBO@k raw and rescaled to [0, 1]."""

    rbo: float          # prefix RBO at depth k = max(len(S), len(T)) (a lower bound)
    rbo_min: float      # smallest attainable prefix RBO for rankings of these lengths/items
    rbo_max: float      # largest attainable
    normalized: float   # rescaled prefix: (rbo - rbo_min) / (rbo_max - rbo_min); NaN if max = min
    p: float
    depth: int
    ext: float = float("nan")  # RBO_ext (Webber, Moffat & Zobel 2010, eq. 32)

    @property
    def prefix(self) -> float:
        """The rescaled prefix RBO@k (``normalized``)."""
        return self.normalized

    def to_dict(self) -> dict:
        return {"rbo": self.ext, "rbo_prefix": self.normalized, "rbo_raw": self.rbo,
                "rbo_min": self.rbo_min, "rbo_max": self.rbo_max, "rbo_p": self.p,
                "rbo_depth": self.depth}


def rbo(s: Sequence, t: Sequence, p: float = 0.9) -> RBOResult:
    """Rank-biased overlap (Webber, Moffat & Zobel 2010, ACM TOIS 28(4):20): RBO_ext
    (``ext``, eq. 32; see ``_ext``) and the prefix RBO@k, raw and rescaled.

    Prefix RBO at depth k = max(|S|, |T|), with A_d = X_d / d the agreement at depth d and
    X_d the overlap of the top-d prefixes (a list shorter than d contributes all its items)::

        RBO@k = (1 - p) * sum_{d=1..k} p^(d-1) * X_d / d

    The user-facing value is normalised to [0, 1] between the smallest and largest RBO@k any
    rearrangement of the two lists can reach, keeping their lengths |S| = s, |T| = t and the
    c items they share. With d_s = min(d, s), d_t = min(d, t)::

        max X_d = min(d_s, d_t, c)                      (shared items first, same order)
        min X_d = max(0, a + b - c), a = max(0, d_s - (s - c)), b = max(0, d_t - (t - c))
                                                        (shared items last, opposite orders)

    Both bounds are attained by one arrangement at every depth at once (tests check them by
    enumerating all permutations). For two orderings of the same n items, min X_d =
    max(0, 2d - n) (one list reversed) and max X_d = d, so 1 means identical and 0 reversed.

    Ties: an element of ``s`` or ``t`` that is a list, set or frozenset is a group of tied
    items. A group of m items starting at rank a fills the prefix gradually: at depth d each
    member counts as f = clip((d - a + 1) / m, 0, 1) of an item (its chance of being in the
    top d if the tie were broken at random), and the overlap of two such fractional
    prefixes is X_d = sum_i min(f_S(i, d), f_T(i, d)) (the fuzzy-set intersection). Without
    ties this is Webber et al.'s RBO exactly; identical rankings, ties included, reach the
    maximum; and the value stays between the bounds above, so the normalisation still holds.
    A tie is therefore never counted as disagreement. (Corsi & Urbano, SIGIR 2024, survey
    other tie treatments.) ``p`` is the persistence: an observer looks about 1 / (1 - p) items
    deep (p = 0.9: about 10).
    """
    p = _check_p("p", p)
    gs, gt = _groups(s), _groups(t)
    ls, lt = sum(map(len, gs)), sum(map(len, gt))
    depth = max(ls, lt)
    if depth == 0:
        raise ValueError("s and t are both empty; RBO needs at least one ranked item")
    ps, pt = _membership(gs, depth), _membership(gt, depth)
    items = list(dict.fromkeys([*ps, *pt]))
    fs, ft = _shares(ps, items, depth), _shares(pt, items, depth)
    x = np.minimum(fs, ft).sum(0)
    d = np.arange(1, depth + 1, dtype=float)
    wts = (1 - p) * p ** (d - 1) / d
    c = len(set(ps) & set(pt))
    ds, dt = np.minimum(d, ls), np.minimum(d, lt)
    xmax = np.minimum(np.minimum(ds, dt), c)
    a = np.maximum(0, ds - (ls - c))
    b = np.maximum(0, dt - (lt - c))
    xmin = np.maximum(0, a + b - c)
    raw, lo, hi = float(wts @ x), float(wts @ xmin), float(wts @ xmax)
    norm = (raw - lo) / (hi - lo) if hi - lo > 1e-12 else float("nan")
    if math.isfinite(norm):
        norm = min(1.0, max(0.0, norm))
    return RBOResult(raw, lo, hi, norm, p, depth, _ext(x, min(ls, lt), depth, p))


def _ext(x: np.ndarray, s: int, l: int, p: float) -> float:
    """Webber, Moffat & Zobel (2010), eq. 32, from the overlaps X_1..X_l (x[d - 1]) of a
    ranking of length l and one of length s <= l::

        RBO_ext = (1 - p)/p * ( sum_{d=1..l} X_d/d p^d + sum_{d=s+1..l} X_s (d - s)/(s d) p^d )
                  + ( (X_l - X_s)/l + X_s/s ) p^l
    """
    if s == 0:
        return 0.0
    d = np.arange(1, l + 1, dtype=float)
    xs, xl = float(x[s - 1]), float(x[l - 1])
    pd_ = p ** d
    first = float(np.sum(x / d * pd_))
    tail = d > s
    second = float(np.sum(xs * (d[tail] - s) / (s * d[tail]) * pd_[tail]))
    val = (1 - p) / p * (first + second) + ((xl - xs) / l + xs / s) * p ** l
    return min(1.0, max(0.0, val))


def rbo_ext(s: Sequence, t: Sequence, p: float = 0.9) -> float:
    """Webber et al.'s extrapolated rank-biased overlap RBO_ext (Webber, Moffat & Zobel 2010,
    ACM TOIS 28(4):20, eq. 32; eq. 30 for lists of equal length): the prefix agreement
    observed to depth l, plus the assumption that the agreement seen at the end of the
    lists continues below them. 1 for identical rankings, 0 for disjoint ones. Ties as in
    ``rbo`` (fractional prefix shares)."""
    return rbo(s, t, p).ext


def rbo_prefix(s: Sequence, t: Sequence, p: float = 0.9) -> float:
    """The prefix RBO@k, k = max(|S|, |T|), rescaled to [0, 1] between its smallest and
    largest attainable values (``rbo``'s ``normalized``); NaN when that range is empty."""
    return rbo(s, t, p).normalized


def tie_groups(ids: Sequence, values: Sequence[float], *, descending: bool) -> list[list]:
    """Items ordered by value (descending or ascending), equal values grouped as ties;
    within a group, ids in sorted order (for display only: RBO treats the group as a tie)."""
    df = pd.DataFrame({"id": list(ids), "v": np.asarray(values, dtype=float)})
    df = df.sort_values(["v", "id"], ascending=[not descending, True], kind="stable")
    return [g["id"].tolist() for _, g in df.groupby("v", sort=False)]


def kendall_tau(x, y) -> tuple[float, float]:
    """Kendall's tau-b and its two-sided p-value (``scipy.stats.kendalltau``); NaN when one
    side is constant."""
    from scipy.stats import kendalltau

    res = kendalltau(np.asarray(x, float), np.asarray(y, float))
    return float(res.statistic), float(res.pvalue)
