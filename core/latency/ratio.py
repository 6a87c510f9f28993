"""The B/A latency ratio's result types and its verdict (a leaf of the latency wing: the
comparison, the fairness checks and the planner all read them, so none imports another for
them). Ratios are B/A: below 1 means B is faster."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from core.paired import DEFAULT_INTERVALS, significance_level


@dataclass(frozen=True)
class RatioEstimate:
    """B/A latency ratios with paired bootstrap CIs over queries (below 1: B is faster)."""

    median_ratio: float
    ci_low: float
    ci_high: float
    geo_mean_ratio: float
    geo_ci_low: float
    geo_ci_high: float
    randomization_p: float
    confidence: float
    resamples: int
    seed: int
    n_queries: int
    drop_warmup: int
    geo_distribution: np.ndarray = field(repr=False)
    geo_interval: str = DEFAULT_INTERVALS[False]   # calibrated t on the per-query log ratios
    median_interval: str = "percentile"  # paired bootstrap over queries
    min_p: float = 0.0                   # the smallest p the sign-flip test could give here
    nonzero: int = 0                     # queries whose log ratio is not 0 (the test's m)

    @property
    def verdict(self) -> str:
        return speed_verdict(self.geo_ci_low, self.geo_ci_high, self.randomization_p,
                             self.confidence)

    def to_dict(self) -> dict:
        return {"median_ratio": self.median_ratio, "ci_low": self.ci_low,
                "ci_high": self.ci_high, "geo_mean_ratio": self.geo_mean_ratio,
                "geo_ci_low": self.geo_ci_low, "geo_ci_high": self.geo_ci_high,
                "randomization_p": self.randomization_p, "confidence": self.confidence,
                "resamples": self.resamples, "seed": self.seed, "n_queries": self.n_queries,
                "drop_warmup": self.drop_warmup, "geo_interval": self.geo_interval,
                "median_interval": self.median_interval, "min_p": self.min_p,
                "nonzero": self.nonzero,
                "verdict": self.verdict}


def speed_verdict(ci_low: float, ci_high: float, p_value: float, confidence: float) -> str:
    """``b_faster`` when the CI of the ratio B/A lies below 1 *and* the randomization p is
    below 1 - confidence; ``a_faster`` when it lies above 1 with the same p; else
    ``no_difference``. Requiring both keeps the verdict from overclaiming."""
    if not p_value < significance_level(confidence):   # the one rule: core.paired.stats
        return "no_difference"
    if ci_high < 1:
        return "b_faster"
    if ci_low > 1:
        return "a_faster"
    return "no_difference"


@dataclass(frozen=True)
class PerQuery:
    """Each paired query's median latency (ms) for A and B, its number of runs and its
    B/A ratio (for tables and the per-query ratio chart)."""

    queries: tuple[str, ...]
    median_a: np.ndarray = field(repr=False)
    median_b: np.ndarray = field(repr=False)
    runs_a: np.ndarray = field(repr=False)
    runs_b: np.ndarray = field(repr=False)

    @property
    def ratio(self) -> np.ndarray:
        return self.median_b / self.median_a

    def frame(self) -> pd.DataFrame:
        return pd.DataFrame({"query_id": list(self.queries), "median_a_ms": self.median_a,
                             "median_b_ms": self.median_b, "runs_a": self.runs_a,
                             "runs_b": self.runs_b, "ratio_b_over_a": self.ratio})
