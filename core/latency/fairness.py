"""Is the latency comparison fair? Warm-up, order, cache and coverage checks with evidence.

* warm-up: a two-segment changepoint on the run index with a permutation test
  (``detect_warmup``);
* cache: a ``cache`` column, else two clumps in the log latencies (``bimodality``) beyond
  what the spread between queries gives (``clumps``: within queries against normal runs,
  between queries against query spread up to t with 3 df; rates from
  ``bench/bench_latency_checks.py`` in ``docs/latency_checks.md``);
* order: all of A's timings before all of B's (by timestamp, else spreadsheet row);
* unequal runs, unpaired queries, queries emptied by dropping warm-up, blank cells.

Each problem is a ``FairnessWarning``: an i18n code and the numbers behind it.
"""
from __future__ import annotations

from dataclasses import dataclass
import numpy as np
import pandas as pd

from core import checks
from core.i18n import t
from core.latency.clumps import (BIMODALITY_COEFFICIENT, CACHE_ALPHA,  # noqa: F401 (re-exported)
                                 CACHE_MIN_ASHMAN_D, CACHE_MIN_SHARE, bimodality, clumps)
from core.latency.log import TimingLog
from core.latency.order import PairOrder
from core.latency.ratio import PerQuery


WARMUP_MIN_SLOWDOWN = 1.10           # warm-up runs must be >= 10 % slower (geometric mean)
WARMUP_ALPHA, WARMUP_PERMUTATIONS = 0.01, 199
MAX_SHOWN = 10


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
    the geometric mean latency at each run index (``profile``, ms) with its query count.
    ``capped``: k is the last split the search allows (runs - 1), so the warm-up may be
    longer ("at least k runs")."""

    method: str
    k: int
    slowdown: float
    p_value: float | None
    profile: tuple[float, ...]
    counts: tuple[int, ...]
    capped: bool = False

    @property
    def detected(self) -> bool:
        return self.k > 0

    def to_dict(self) -> dict:
        return {"method": self.method, "k": self.k, "slowdown": self.slowdown,
                "p_value": self.p_value, "profile": list(self.profile),
                "counts": list(self.counts), "capped": self.capped}


def detect_warmup(groups, *, method: str = "", permutations: int = WARMUP_PERMUTATIONS,
                  alpha: float = WARMUP_ALPHA, min_slowdown: float = WARMUP_MIN_SLOWDOWN,
                  seed: int = 0) -> WarmupCheck:
    """Changepoint on the run index: are the first k runs of each query slower than the rest?

    ``groups`` holds each query's latencies in run order. The profile is the mean log latency
    at each run index over the queries that have it (run indexes kept while at least half the
    queries reach them). The split k (1 <= k <= runs - 1) minimises the within-segment squared
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
    max_k = runs - 1
    if runs < 2:
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
    return WarmupCheck(method, k if accepted else 0, slow, p, geo, cnt,
                       accepted and k == max_k)


@dataclass(frozen=True)
class FairnessWarning:
    """One fairness problem, as an i18n code (``latency.warn_<code>``, or
    ``latency.warn_<key>`` when a variant of the message is needed) and its evidence."""

    code: str
    params: dict
    key: str = ""

    def message(self, lang: str = "en") -> str:
        return t(f"latency.warn_{self.key or self.code}", lang, **self.params)

    def short(self, lang: str = "en") -> str:
        """The warning in a few words with its key number (``latency.short_<code>``), for
        the one caveat line under a verdict card."""
        return t(f"latency.short_{self.code}", lang, **self.params)

    def to_dict(self) -> dict:
        return {"code": self.code, "message": self.message("en"), **self.params}


def _shown(items) -> str:
    items = list(items)
    more = f" (+{len(items) - MAX_SHOWN})" if len(items) > MAX_SHOWN else ""
    return ", ".join(str(i) for i in items[:MAX_SHOWN]) + more


def p_text(p: float) -> str:
    """'p = 0.032' or 'p < 0.001', as ``core.views.format.p_text`` writes it (domain modules
    do not import views; ``tests/core/latency/test_compare.py`` checks the two agree)."""
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def fmt_ms(x: float) -> str:
    """A latency in ms as shown: 3 significant digits below 100 ms, whole ms above."""
    return f"{x:.3g}" if x < 100 else f"{x:,.0f}"


def _pair_warnings(pair: PairOrder | None, per: PerQuery, basis: str) -> list[FairnessWarning]:
    """The position-in-pair warning: a fixed order (who may benefit, by up to the whole
    measured difference) or a measured position effect (how much, and the balanced ratio)."""
    if pair is None or pair.n_pairs == 0:
        return []
    ratio = float(np.exp(np.mean(np.log(per.ratio))))
    n_second = pair.b_second if pair.second == pair.b else pair.n_pairs - pair.b_second
    common = {"first": pair.first, "second": pair.second, "count": n_second,
              "n": pair.n_pairs, "basis": basis, "ratio": f"{ratio:.3f}",
              "a": pair.a, "b": pair.b}
    if pair.fixed:
        return [FairnessWarning("order_pair", {**common, "design": pair.design},
                                "order_pair_fixed")]
    if not pair.detected:
        return []
    g = pair.gain
    share = pair.share_b_second
    return [FairnessWarning("order_pair", {
        **common, "design": pair.design, "gain": f"{max(g, 1 / g):.2f}",
        "p": p_text(pair.p_value), "share": f"{100 * share:.0f}",
        "pull": f"{g ** -(2 * share - 1):.3f}",
        "balanced": f"{pair.balanced_ratio(ratio):.3f}", "queries": pair.n_queries},
        "order_pair_faster" if g > 1 else "order_pair_slower")]


def fairness_warnings(log: TimingLog, frame: pd.DataFrame, a: str, b: str, per: PerQuery,
              warm: tuple[WarmupCheck, WarmupCheck], drop: int, only_a, only_b,
              dropped_queries, *, pair: PairOrder | None = None,
              seed: int = 0) -> list[FairnessWarning]:
    """Every fairness problem of the comparison, in the page's order: warm-up, order (blocked,
    then within pairs), cache, runs, coverage. ``pair`` is ``core.latency.order.pair_order``'s
    evidence (None: not checked)."""
    out: list[FairnessWarning] = []
    for w in warm:
        if w.detected:
            out.append(FairnessWarning("warmup", {
                "method": w.method, "count": w.k, "slowdown": f"{w.slowdown:.2f}",
                "first": fmt_ms(float(np.mean(w.profile[:w.k]))) if w.profile else "",
                "rest": fmt_ms(float(np.mean(w.profile[w.k:]))) if w.profile else "",
                "p": p_text(w.p_value), "dropped": drop, "capped": w.capped},
                "warmup_capped" if w.capped else ""))
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
        else:
            out += _pair_warnings(pair, per, basis)
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
        for i, m in enumerate((a, b)):
            rows = sub[sub["method"] == m]
            if warm[i].detected:  # a warm-up is a slow clump of its own, reported above
                rows = rows[rows["run"] > warm[i].k]
            c = clumps(np.log(rows["latency_ms"].to_numpy(float)),
                       pd.factorize(rows["query"])[0], seed=seed + i)
            if c.detected:
                key = "" if c.basis == "within" else \
                    "bimodal_queries" if c.runs > 1 else "bimodal_queries_one_run"
                out.append(FairnessWarning("bimodal", {
                    "method": m, "share": f"{100 * c.share:.0f}", "fast": fmt_ms(c.fast),
                    "slow": fmt_ms(c.slow), "d": f"{c.d:.1f}", "bc": f"{c.bc:.2f}",
                    "p": p_text(c.p), "basis": c.basis, "n_fast": c.fast_queries,
                    "runs": c.runs}, key))
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
