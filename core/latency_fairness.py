"""Is the latency comparison fair? Warm-up, order, cache and coverage checks with evidence.

* warm-up: a two-segment changepoint on the run index with a permutation test
  (``detect_warmup``);
* cache: a ``cache`` column, else two clumps in the log latencies (``bimodality``);
* order: all of A's timings before all of B's (by timestamp, else spreadsheet row);
* unequal runs, unpaired queries, queries emptied by dropping warm-up, blank cells.

Each problem is a ``FairnessWarning``: an i18n code and the numbers behind it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from core import checks
from core.i18n import t
from core.latency_log import TimingLog

if TYPE_CHECKING:
    from core.latency import PerQuery

WARMUP_MIN_SLOWDOWN = 1.10           # warm-up runs must be >= 10 % slower (geometric mean)
WARMUP_ALPHA, WARMUP_PERMUTATIONS = 0.01, 199
CACHE_MIN_SHARE, CACHE_MIN_ASHMAN_D, BIMODALITY_COEFFICIENT = 0.05, 3.5, 5 / 9
MAX_SHOWN = 10


def bimodality(log_values) -> tuple[float, float, float, float, float]:
    """Is a distribution of log latencies two clumps? Returns (bimodality coefficient,
    Ashman's D, share of the fast clump, geometric mean of the fast clump, of the slow one).

    The split is the threshold minimising the within-clump squared error (Otsu's 1979
    two-class criterion, exact over every cut of the sorted values), and Ashman's D = sqrt(2)
    |mu1 - mu2| / sqrt(s1^2 + s2^2) of the two clumps (Ashman, Bird & Zepf 1994). D > 2 means
    separated components for fitted mixtures; the two halves of a split single normal already
    give D = 2.7 and of a uniform 3.5, so the checks here ask for D >= 3.5;
    the sample bimodality coefficient BC = (g^2 + 1) / (k + 3 (n-1)^2 / ((n-2)(n-3))) with g
    the skewness and k the excess kurtosis (bias-corrected) exceeds 5/9 for bimodal shapes
    (SAS; Pfister et al. 2013).
    """
    x = np.sort(np.asarray(log_values, dtype=float))
    n = x.size
    if n < 10:
        return 0.0, 0.0, 0.0, float("nan"), float("nan")
    from scipy import stats as _st
    g = _st.skew(x, bias=False)
    k = _st.kurtosis(x, bias=False)
    bc = float((g * g + 1) / (k + 3 * (n - 1) ** 2 / ((n - 2) * (n - 3))))
    cs, cs2 = np.cumsum(x), np.cumsum(x * x)
    i = np.arange(1, n)  # left clump = first i values
    left_ss = cs2[:-1] - cs[:-1] ** 2 / i
    right_ss = (cs2[-1] - cs2[:-1]) - (cs[-1] - cs[:-1]) ** 2 / (n - i)
    cut = int(np.argmin(left_ss + right_ss)) + 1
    lo, hi = x[:cut], x[cut:]
    var = lo.var() + hi.var()
    d = float(math.sqrt(2) * abs(hi.mean() - lo.mean()) / math.sqrt(var)) if var > 0 \
        else float("inf")
    return bc, d, cut / n, float(np.exp(lo.mean())), float(np.exp(hi.mean()))


def run_matrix(groups) -> np.ndarray:
    """Per-query runs as rows of a (queries x max runs) matrix, NaN-padded on the right."""
    width = max(len(g) for g in groups)
    m = np.full((len(groups), width), np.nan)
    for i, g in enumerate(groups):
        m[i, :len(g)] = g
    return m


def _best_split(profile: np.ndarray, weight: np.ndarray, max_k: int) -> tuple[int, float]:
    """The k in 1..max_k maximising the weighted between-segment sum of squares of
    ``profile[:k]`` vs ``profile[k:]`` (equivalently minimising the within-segment squared
    error) among splits whose first segment is slower; (0, 0.0) if none is."""
    best_k, best = 0, 0.0
    for k in range(1, max_k + 1):
        w1, w2 = weight[:k].sum(), weight[k:].sum()
        m1 = (weight[:k] * profile[:k]).sum() / w1
        m2 = (weight[k:] * profile[k:]).sum() / w2
        stat = w1 * w2 / (w1 + w2) * (m1 - m2) ** 2 if m1 > m2 else 0.0
        if stat > best:
            best_k, best = k, stat
    return best_k, best


@dataclass(frozen=True)
class WarmupCheck:
    """Warm-up of one method: the changepoint ``k`` on the run index (0 = none found), how
    much slower runs 1..k are than the rest (geometric-mean ratio), the permutation p, and
    the geometric mean latency at each run index (``profile``, ms) with its query count."""

    method: str
    k: int
    slowdown: float
    p_value: float | None
    profile: tuple[float, ...]
    counts: tuple[int, ...]

    @property
    def detected(self) -> bool:
        return self.k > 0

    def to_dict(self) -> dict:
        return {"method": self.method, "k": self.k, "slowdown": self.slowdown,
                "p_value": self.p_value, "profile": list(self.profile),
                "counts": list(self.counts)}


def detect_warmup(groups, *, method: str = "", permutations: int = WARMUP_PERMUTATIONS,
                  alpha: float = WARMUP_ALPHA, min_slowdown: float = WARMUP_MIN_SLOWDOWN,
                  seed: int = 0) -> WarmupCheck:
    """Changepoint on the run index: are the first k runs of each query slower than the rest?

    ``groups`` holds each query's latencies in run order. The profile is the mean log latency
    at each run index over the queries that have it (run indexes kept while at least half the
    queries reach them). The split k (1 <= k <= runs/2) minimises the within-segment squared
    error (a two-segment least-squares changepoint; Hinkley 1970) among splits whose first
    segment is slower. It is accepted only when the first k runs are at least
    ``min_slowdown`` times slower (geometric means) and a permutation test that shuffles the
    run order within every query and repeats the whole search gives p < ``alpha``
    (p = (1 + #{stat* >= stat}) / (1 + permutations); Phipson & Smyth 2010).
    """
    permutations, alpha, min_slowdown, seed = checks.warmup_iv(permutations, alpha,
                                                               min_slowdown, seed)
    m = np.log(run_matrix([np.asarray(g, float) for g in groups]))
    counts_all = np.sum(~np.isnan(m), axis=0)
    runs = int(np.sum(counts_all >= max(2, 0.5 * m.shape[0])))
    counts = counts_all[:runs]
    with np.errstate(invalid="ignore"):
        profile = np.nanmean(m[:, :runs], axis=0) if runs else np.array([])
    geo = tuple(float(v) for v in np.exp(profile))
    cnt = tuple(int(c) for c in counts)
    max_k = runs // 2
    if runs < 3 or max_k < 1:
        return WarmupCheck(method, 0, 1.0, None, geo, cnt)
    k, stat = _best_split(profile, counts.astype(float), max_k)
    if k == 0:
        return WarmupCheck(method, 0, 1.0, None, geo, cnt)
    slow = float(np.exp(np.average(profile[:k], weights=counts[:k])
                        - np.average(profile[k:], weights=counts[k:])))
    if slow < min_slowdown:  # could never be accepted: skip the permutations
        return WarmupCheck(method, 0, slow, None, geo, cnt)
    rng = np.random.default_rng(seed)
    valid = ~np.isnan(m)
    full = bool(valid.all())
    exceed = 0
    for _ in range(permutations):
        if full:
            perm = rng.permuted(m, axis=1)
        else:
            keys = rng.random(m.shape)
            keys[~valid] = np.inf  # runs are contiguous from index 0: padding stays right
            perm = np.take_along_axis(m, np.argsort(keys, axis=1), axis=1)
        pprof = np.nanmean(perm[:, :runs], axis=0)
        if _best_split(pprof, counts.astype(float), max_k)[1] >= stat - 1e-12:
            exceed += 1
    p = (1 + exceed) / (1 + permutations)
    accepted = slow >= min_slowdown and p < alpha
    return WarmupCheck(method, k if accepted else 0, slow, p, geo, cnt)


@dataclass(frozen=True)
class FairnessWarning:
    """One fairness problem, as an i18n code (``latency.warn_<code>``) and its evidence."""

    code: str
    params: dict

    def message(self, lang: str = "en") -> str:
        return t(f"latency.warn_{self.code}", lang, **self.params)

    def to_dict(self) -> dict:
        return {"code": self.code, "message": self.message("en"), **self.params}


def _shown(items) -> str:
    items = list(items)
    more = f" (+{len(items) - MAX_SHOWN})" if len(items) > MAX_SHOWN else ""
    return ", ".join(str(i) for i in items[:MAX_SHOWN]) + more


def p_text(p: float) -> str:
    """'p = 0.032' or 'p < 0.001', as ``core.views.format.p_text`` writes it (domain modules
    do not import views; ``tests/core/test_latency.py`` checks the two agree)."""
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def fmt_ms(x: float) -> str:
    """A latency in ms as shown: 3 significant digits below 100 ms, whole ms above."""
    return f"{x:.3g}" if x < 100 else f"{x:,.0f}"


def fairness_warnings(log: TimingLog, frame: pd.DataFrame, a: str, b: str, per: PerQuery,
              warm: tuple[WarmupCheck, WarmupCheck], drop: int, only_a, only_b,
              dropped_queries) -> list[FairnessWarning]:
    out: list[FairnessWarning] = []
    for w in warm:
        if w.detected:
            out.append(FairnessWarning("warmup", {
                "method": w.method, "count": w.k, "slowdown": f"{w.slowdown:.2f}",
                "first": fmt_ms(float(np.mean(w.profile[:w.k]))) if w.profile else "",
                "rest": fmt_ms(float(np.mean(w.profile[w.k:]))) if w.profile else "",
                "p": p_text(w.p_value), "dropped": drop}))
    if log.layout == "long":
        oa = frame.loc[frame["method"] == a, "order"].to_numpy(float)
        ob = frame.loc[frame["method"] == b, "order"].to_numpy(float)
        basis = "timestamp" if log.has_timestamp else "row"
        for first, second, of, os_ in ((a, b, oa, ob), (b, a, ob, oa)):
            if of.size and os_.size and of.max() < os_.min():
                out.append(FairnessWarning("order", {
                    "first": first, "second": second, "n_first": int(of.size),
                    "n_second": int(os_.size), "basis": basis,
                    "first_range": f"{of.min():g}–{of.max():g}",
                    "second_range": f"{os_.min():g}–{os_.max():g}"}))
                break
    sub = frame[frame["method"].isin((a, b))]
    if log.has_cache and sub["cache"].notna().any():
        share = {m: float(sub.loc[sub["method"] == m, "cache"].mean()) for m in (a, b)}
        known = sub[sub["cache"].notna()]
        hits, misses = known[known["cache"] == 1], known[known["cache"] == 0]
        if abs(share[a] - share[b]) >= CACHE_MIN_SHARE or (
                len(hits) and len(misses) and min(share.values()) > 0):
            out.append(FairnessWarning("cache_column", {
                "a": a, "b": b, "share_a": f"{100 * share[a]:.0f}",
                "share_b": f"{100 * share[b]:.0f}",
                "hit_ms": fmt_ms(float(hits["latency_ms"].median())) if len(hits) else "–",
                "miss_ms": fmt_ms(float(misses["latency_ms"].median())) if len(misses) else "–"}))
    else:
        for m in (a, b):
            x = np.log(sub.loc[sub["method"] == m, "latency_ms"].to_numpy(float))
            bc, d, share, fast, slow = bimodality(x)
            if bc > BIMODALITY_COEFFICIENT and d >= CACHE_MIN_ASHMAN_D and \
                    CACHE_MIN_SHARE <= share <= 1 - CACHE_MIN_SHARE:
                out.append(FairnessWarning("bimodal", {
                    "method": m, "share": f"{100 * share:.0f}", "fast": fmt_ms(fast),
                    "slow": fmt_ms(slow), "d": f"{d:.1f}", "bc": f"{bc:.2f}"}))
    diff = per.runs_a != per.runs_b
    lo_runs = int(min(per.runs_a.min(), per.runs_b.min()))
    hi_runs = int(max(per.runs_a.max(), per.runs_b.max()))
    if not diff.any() and hi_runs > lo_runs:
        out.append(FairnessWarning("uneven_runs", {"min_runs": lo_runs, "max_runs": hi_runs}))
    if diff.any():
        idx = np.flatnonzero(diff)
        examples = [f"{per.queries[i]}: {per.runs_a[i]} vs {per.runs_b[i]}" for i in idx[:3]]
        out.append(FairnessWarning("unequal_runs", {
            "a": a, "b": b, "n_diff": int(diff.sum()), "n": len(per.queries),
            "min_runs": int(min(per.runs_a.min(), per.runs_b.min())),
            "max_runs": int(max(per.runs_a.max(), per.runs_b.max())),
            "examples": "; ".join(examples) if examples else "–"}))
    if only_a or only_b:
        out.append(FairnessWarning("unpaired", {
            "a": a, "b": b, "n_only_a": len(only_a), "n_only_b": len(only_b),
            "ids": _shown([*only_a, *only_b])}))
    if dropped_queries:
        out.append(FairnessWarning("warmup_emptied", {
            "k": drop, "count": len(dropped_queries), "ids": _shown(dropped_queries)}))
    if log.blank:
        out.append(FairnessWarning("blank", {"count": len(log.blank), "cells": _shown(log.blank)}))
    return out
