"""The self-check of the clustered interval of B − A (issue 32, Required 2): the card's
centred-resample check (``core.paired.calibration``) one level up, the cluster as the unit.

Construction (the unclustered check's, case replaced by cluster): the differences are moved
to a true mean of 0 exactly as there (``core.paired.calibration.null_centred``: the non-zero
differences shifted by mean(d) N / (number of non-zero ones), ties kept at 0; Efron &
Tibshirani 1993, section 16.4, translate the data to the null), then ``sets`` null sets are
drawn by resampling **whole clusters** with replacement (G clusters a set, each keeping its
cases' centred values; the cluster bootstrap of Field & Welsh 2007, *JRSS B* 69:369). On each
null set the card's interval of B − A (``core.paired.clusters.calibrated_cr2``: CR2 t at
``informative_df``'s df widened to the cluster bootstrap-t) is computed again with the drawn
clusters as the layout; the share of sets where it leaves out 0 (``core.paired.intervals.side``)
estimates its false-exclusion rate on data shaped like the user's, with the Monte-Carlo SE
sqrt(r (1 − r) / sets).

Bounded in time: each null set's bootstrap-t takes R = clamp(WORK / (sets G), 100,
``CLUSTER_RESAMPLES``) cluster resamples (the card's 4,000 up to G = 25 at 1,000 sets), so
one check draws at most about WORK cluster totals.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from core.paired.calibration import (STREAM_RESAMPLE_NULL, WITHHOLD_FACTOR, null_centred,
                                     warn_limit, WARN_Z)
from core.paired.clusters import (CLUSTER_RESAMPLES, ClusterLayout, bell_mccaffrey_df,
                                  calibrated_cr2, cluster_layout, cluster_sums,
                                  cr2_rows)
from core.paired.intervals import side, wilson_bounds

CHECK_SETS = 1_000
WORK = 2e7   # cluster totals drawn by one check's bootstrap-t resamples, at most about this


def check_resamples(sets: int, n_clusters: int) -> int:
    """Bootstrap-t resamples per null set: clamp(WORK / (sets G), 100, CLUSTER_RESAMPLES)."""
    return int(min(CLUSTER_RESAMPLES, max(100, WORK // (sets * n_clusters))))


def resampled_layout(sizes: np.ndarray) -> ClusterLayout:
    """The layout of one null set whose drawn clusters have ``sizes`` (each draw its own
    cluster, cases numbered cluster after cluster)."""
    codes = np.repeat(np.arange(sizes.size), sizes.astype(np.int64))
    return ClusterLayout(codes, sizes.astype(float), tuple(range(sizes.size)),
                         bell_mccaffrey_df(sizes))


@dataclass(frozen=True)
class ClusterSelfCheck:
    """The clustered self-check (module docstring): ``null_rejection`` over ``sets`` null sets
    (Monte-Carlo SE ``mc_se``), the bootstrap-t resamples per set, the clusters, those holding
    a non-zero difference (``nonzero``) and the cluster bootstrap-t test's ``survival_p``.
    The card's rules are the unclustered check's (``core.paired.calibration.Calibration``)
    with m the clusters holding a non-zero difference: it warns when the rate's one-sided 95%
    Wilson lower bound is above ``warn_limit(m)``; a "better" then needs survival_p below
    1 − confidence; a rate at or above twice 1 − confidence withholds it."""

    null_rejection: float
    sets: int
    resamples: int
    mc_se: float
    n_clusters: int
    nonzero: int
    confidence: float
    survival_p: float
    reason: str = ""   # "withheld_self_check" | "fails_self_check" when it turned a "better"

    @property
    def promise(self) -> float:
        return round(1 - self.confidence, 12)

    @property
    def warn_above(self) -> float:
        return warn_limit(self.nonzero or self.n_clusters)

    @property
    def warns(self) -> bool:
        low = float(wilson_bounds(self.null_rejection * self.sets, self.sets, WARN_Z)[0])
        return low > self.warn_above

    @property
    def withholds(self) -> bool:
        return self.null_rejection >= round(WITHHOLD_FACTOR * self.promise, 12) - 1e-12

    @property
    def survives(self) -> bool:
        return not self.warns or self.survival_p < self.promise

    def keeps(self, verdict: str) -> str:
        """The verdict after the check: a "better" becomes "no_difference" when the check
        withholds it or it does not survive (``core.paired.compare.decide``'s rule)."""
        if verdict == "no_difference" or (not self.withholds and self.survives):
            return verdict
        return "no_difference"

    def to_dict(self) -> dict:
        return {"construction": "whole-cluster centred resample", "unit": "cluster",
                "null_rejection": self.null_rejection, "sets": self.sets,
                "resamples": self.resamples, "mc_se": self.mc_se,
                "n_clusters": self.n_clusters, "nonzero_clusters": self.nonzero,
                "promise": self.promise, "warn_above": self.warn_above, "warning": self.warns,
                "withhold_above": round(WITHHOLD_FACTOR * self.promise, 12),
                "withholds": self.withholds, "survival_test": "cluster_bootstrap_t",
                "survival_p": self.survival_p, "survives": self.survives,
                "reason": self.reason or None}


def cluster_self_check(d, layout: ClusterLayout, confidence: float, *,
                       sets: int = CHECK_SETS, seed: int = 0) -> ClusterSelfCheck:
    """Share of ``sets`` whole-cluster centred-resample null sets (module docstring) on which
    the card's clustered interval of B − A leaves out 0, and the cluster bootstrap-t test's p
    from the same sets (Efron & Tibshirani 1993, Algorithm 16.2, one level up: t = mean / se
    with the CR2 se, t* of each null set with its own CR2 se; p = min(1, 2 (1 + #far) /
    (1 + S)), Phipson & Smyth 2010). Seeded: null sets from numpy's PCG64 on
    [seed, STREAM_RESAMPLE_NULL] (the unclustered check's stream), each set's bootstrap-t on
    the card's own stream (``calibrated_cr2(seed=seed)``). Caller checked ``d``."""
    d = np.asarray(d, dtype=float)
    z = null_centred(d)
    g = layout.n_clusters
    order = np.argsort(layout.codes, kind="stable")
    starts = np.concatenate(([0], np.cumsum(layout.sizes.astype(np.int64))))
    members = [order[starts[k]:starts[k + 1]] for k in range(g)]
    resamples = check_resamples(sets, g)
    scale = float(np.max(np.abs(d)))
    rng = np.random.default_rng([seed, STREAM_RESAMPLE_NULL])
    rejected, t_null = 0, np.empty(sets)
    for s in range(sets):
        pick = rng.integers(0, g, size=g)
        x = np.concatenate([z[members[k]] for k in pick])
        lay = resampled_layout(layout.sizes[pick])
        mean, lo, hi, se = calibrated_cr2(x, lay, confidence, resamples=resamples, seed=seed)
        rejected += int(side(lo, hi, scale) != 0)
        t_null[s] = _t(mean, se)
    mean, var = cr2_rows(d, layout)
    t_obs = _t(float(mean[0]), float(np.sqrt(var[0])))
    far = np.sum(t_null >= t_obs) if t_obs >= 0 else np.sum(t_null <= t_obs)
    rate = rejected / sets
    nonzero = int(np.count_nonzero(cluster_sums(np.abs(d), layout)))
    return ClusterSelfCheck(rate, sets, resamples, math.sqrt(rate * (1 - rate) / sets), g,
                            nonzero, confidence, float(min(1.0, 2 * (1 + far) / (1 + sets))))


def _t(mean: float, se: float) -> float:
    """mean / se; +/-inf (0) for se 0 and a non-zero (zero) mean (``calibration._studentized``)."""
    if se > 0:
        return mean / se
    return math.inf if mean > 0 else (-math.inf if mean < 0 else 0.0)


def with_self_check(cc, d, clusters, *, sets: int = CHECK_SETS, seed: int = 0):
    """``cc`` (a ``core.paired.clusters.ClusterComparison`` of the differences ``d`` with one
    cluster label per case in ``clusters``) with its ``self_check`` filled in and its verdict
    kept or turned to "no_difference" by the check (``ClusterSelfCheck.keeps``). Caller
    checked: ``cc`` was computed from these ``d`` and ``clusters``."""
    check = cluster_self_check(d, cluster_layout(clusters), cc.confidence, sets=sets,
                               seed=seed)
    verdict = check.keeps(cc.verdict)
    if verdict != cc.verdict:
        check = replace(check, reason="withheld_self_check" if check.withholds
                        else "fails_self_check")
    return replace(cc, self_check=check, verdict=verdict)
