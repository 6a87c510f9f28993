"""How many queries a timing log needs: the latency page's sample-size plan
(``core.latency.compare.compare_latency`` fills ``LatencyComparison.plan``).

Sakai's CI-based design ("Topic set size design", Information Retrieval Journal 19:256-283,
2016; ``core.planning.sample_size.n_continuous_ci``) on the per-query log ratios log(B/A): the
smallest n whose t-interval has half-width at most log(1 + target), the page's +/-5 % by
default. ``LatencyPlan.retarget`` gives the same plan for another target (the decide
command's next step for speed). The displayed interval is the calibrated t-interval
(``docs/calibration.md``), at most a little wider than the plain t on skewed logs, so the
plan is read as "about".
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from core import checks
from core.latency.ratio import PerQuery, RatioEstimate
from core.planning import n_continuous_ci


TARGET_RATIO_HALF_WIDTH = 0.05       # sample-size plan: a CI of the ratio within +/-5 %


@dataclass(frozen=True)
class LatencyPlan:
    """Queries needed for a CI of the geometric-mean ratio within +/-``target`` (5 %)."""

    target: float
    sd_log_ratio: float
    sd_between: float
    sd_within: float
    runs: float
    n_queries: int
    n_queries_double_runs: int
    n_queries_floor: int
    current_half_width: float

    def to_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}

    def retarget(self, target: float, confidence: float) -> "LatencyPlan":
        """This plan (same spreads, runs per query) for a CI within +/-``target`` instead
        (decide's speed step: target = max_slowdown / ratio - 1, where the upper end at the
        observed ratio reaches the limit)."""
        n = _queries_needed(self.sd_log_ratio, self.sd_between, self.sd_within, self.runs,
                            checks.positive("target", target), confidence)
        return replace(self, target=target, n_queries=n[0], n_queries_double_runs=n[1],
                       n_queries_floor=n[2])


def _queries_needed(sd, sd_between, sd_within, runs, target, confidence) -> tuple[int, ...]:
    """Queries for a t-interval of half-width log(1 + target) on the log ratios (Sakai's
    CI-based design, ``n_continuous_ci``): with SD ``sd``; with twice the runs,
    sqrt(s_b^2 + (pi/2) s_w^2 / (2k)); with the runs' noise gone, s_b."""
    def need(var: float) -> int:
        return 2 if var <= 0 else n_continuous_ci(math.sqrt(var), math.log(1 + target),
                                                  confidence)
    b2 = sd_between ** 2
    return need(sd ** 2), need(b2 + math.pi / 2 * sd_within ** 2 / (2 * runs)), need(b2)


def plan_queries(per: PerQuery, frame: pd.DataFrame, a: str, b: str, confidence: float,
                 ratio: RatioEstimate) -> LatencyPlan | None:
    """Sakai's CI-based design on the per-query log ratios. The spread is split into a part
    between queries and a part from the runs: var(log ratio) ~ s_b^2 + (pi/2) s_w^2 / k with
    s_w^2 the pooled within-query variance of log latency of A plus B's and k the runs per
    query (the variance of a median of k near-normal values is about pi/2 sigma^2/k)."""
    d = np.log(per.ratio)
    if d.size < 3:
        return None
    sd = float(np.std(d, ddof=1))
    within = 0.0
    for m in (a, b):
        sub = frame[frame["method"] == m]
        logs = np.log(sub["latency_ms"].to_numpy(float))
        g = pd.Series(logs, index=sub.index).groupby(sub["query"].to_numpy())
        var = g.var(ddof=1).dropna()
        within += float(var.mean()) if len(var) else 0.0
    k = float(np.mean(np.concatenate([per.runs_a, per.runs_b])))
    between = max(0.0, sd ** 2 - math.pi / 2 * within / k)
    lo, hi = ratio.geo_ci_low, ratio.geo_ci_high
    if not (lo > 0 and math.isfinite(hi)):   # an interval reaching 0 or infinity (3 queries)
        return None
    half = max(hi / ratio.geo_mean_ratio, ratio.geo_mean_ratio / lo)
    return LatencyPlan(TARGET_RATIO_HALF_WIDTH, sd, math.sqrt(between), math.sqrt(within), k,
                       0, 0, 0, half - 1).retarget(TARGET_RATIO_HALF_WIDTH, confidence)
