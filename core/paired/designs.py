"""Repeated runs and the design of a golden set (issue 32): K runs of each case split into
between-case and run-to-run variance, the cases whose B − A changes sign across runs, and the
planner of documents x questions per document x runs.

**Repeated runs** (``run_summary``): K runs of each case and method. The case's value is its
mean over its runs, and cases (or clusters) stay the unit, which accounts for both levels
(the variance of a case mean is σ²_between + σ²_within / K; Miller 2024, "Adding error bars
to evals", arXiv:2411.00640, eq. 6). The within-case (run-to-run) variance is the pooled
variance of runs around their case mean (one-way ANOVA), the between-case variance the
variance of case means less σ²_within times the mean of 1/K_i, floored at 0.

**The planner** (``plan_clusters``): an independent single-run plan of n cases needs
n x ((1 − W)(1 + (m − 1) ICC) + W / K) cases in a design of m questions per document and K
runs (W the run-to-run share of one run's variance): Kish's (1965) design effect with a
run level, Miller's (2024) eq. 6 with a cluster level (``design_variance``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from core import checks
from core.paired.intervals import z_two_sided


# ----------------------------------------------------------------------------- runs
@dataclass(frozen=True)
class RunSummary:
    """K repeated runs per case of one quantity (a method's score, or B − A): the case means,
    the runs per case, and the split of the variance of one run's value into between-case and
    run-to-run (within) parts."""

    case_means: np.ndarray
    runs: np.ndarray              # K_i per case
    var_within: float
    var_between: float

    @property
    def k(self) -> float:
        """Runs per case (the mean when unequal)."""
        return float(self.runs.mean())

    @property
    def equal_k(self) -> bool:
        return bool(np.all(self.runs == self.runs[0]))

    @property
    def within_share(self) -> float:
        """Run-to-run share of one run's variance: σ²_within / (σ²_between + σ²_within)."""
        tot = self.var_within + self.var_between
        return 0.0 if tot == 0 else self.var_within / tot

    @property
    def mean_share(self) -> float:
        """Run-to-run share of the variance of a case mean: (σ²_within mean(1/K_i)) /
        (σ²_between + σ²_within mean(1/K_i))."""
        w = self.var_within * float(np.mean(1.0 / self.runs))
        tot = w + self.var_between
        return 0.0 if tot == 0 else w / tot

    def to_dict(self) -> dict:
        return {"k": self.k, "k_min": int(self.runs.min()), "k_max": int(self.runs.max()),
                "equal_k": self.equal_k, "var_between": self.var_between,
                "var_within": self.var_within, "within_share": self.within_share,
                "mean_within_share": self.mean_share}


def run_summary(values) -> RunSummary:
    """``RunSummary`` of a (cases, K) array of run values, NaN where a case has fewer runs.
    σ²_within = sum_i sum_r (x_ir − mean_i)^2 / (sum_i K_i − n) (pooled over cases with 2+
    runs; 0 when no case has 2 runs), σ²_between = max(0, var(case means) − σ²_within
    mean(1/K_i)) (ddof 1). Every case needs at least one run."""
    x = np.asarray(values, dtype=float)
    if x.ndim != 2 or x.shape[0] < 2:
        raise ValueError("values must be a (cases, runs) array with at least 2 cases")
    have = ~np.isnan(x)
    runs = have.sum(axis=1)
    if np.any(runs == 0):
        raise ValueError("every case needs at least one run (a row of values is all NaN)")
    if not np.all(np.isfinite(x[have])):
        raise ValueError("values must be finite numbers or NaN (a missing run)")
    means = np.where(have, x, 0.0).sum(axis=1) / runs
    dof = int(runs.sum() - np.count_nonzero(runs))
    ss = float(np.sum(np.where(have, x - means[:, None], 0.0) ** 2))
    within = ss / dof if dof > 0 else 0.0
    between = max(0.0, float(np.var(means, ddof=1)) - within * float(np.mean(1.0 / runs)))
    return RunSummary(means, runs, within, between)


def sign_flipping_cases(d_runs) -> int:
    """How many cases have B − A above 0 in one run and below 0 in another (a (cases, K)
    array of per-run differences, NaN where a run is missing)."""
    d = np.asarray(d_runs, dtype=float)
    if d.ndim != 2:
        raise ValueError("d_runs must be a (cases, runs) array")
    up = np.any(np.nan_to_num(d, nan=0.0) > 0, axis=1)
    down = np.any(np.nan_to_num(d, nan=0.0) < 0, axis=1)
    return int(np.count_nonzero(up & down))


# ----------------------------------------------------------------------------- planning
@dataclass(frozen=True)
class DesignPlan:
    """Half-width of the interval of a mean for a design of ``clusters`` x ``per_cluster``
    cases x ``runs`` runs, and what doubling each buys (``options``)."""

    clusters: int
    per_cluster: int
    runs: int
    half_width: float
    options: dict           # "clusters" | "per_cluster" | "runs" -> half-width when doubled
    best: str

    def to_dict(self) -> dict:
        return {"clusters": self.clusters, "per_cluster": self.per_cluster, "runs": self.runs,
                "half_width": self.half_width, "options": dict(self.options),
                "best": self.best}


def design_variance(var_cluster: float, var_case: float, var_run: float, clusters: int,
                    per_cluster: int, runs: int) -> float:
    """Variance of the mean of G x m cases with K runs each (nested random effects; Miller
    2024 eq. 6 with a cluster level): σ²_cluster / G + σ²_case / (G m) + σ²_run / (G m K).
    Caller checked."""
    n = clusters * per_cluster
    return var_cluster / clusters + var_case / n + var_run / (n * runs)


def plan_design(var_cluster: float, var_case: float, var_run: float, *, clusters: int,
                per_cluster: int, runs: int = 1, confidence: float = 0.95) -> DesignPlan:
    """The interval's half-width z sqrt(``design_variance``) now, and with the clusters, the
    questions per cluster or the runs doubled; ``best`` is the one that narrows it most (ties:
    clusters first, as more documents also generalise further)."""
    vals = [checks.number(k, v) for k, v in (("var_cluster", var_cluster),
                                             ("var_case", var_case), ("var_run", var_run))]
    if min(vals) < 0:
        raise ValueError("variances must be >= 0")
    clusters = checks.whole("clusters", clusters, lo=1)
    per_cluster = checks.whole("per_cluster", per_cluster, lo=1)
    runs = checks.whole("runs", runs, lo=1)
    z = z_two_sided(checks.confidence(confidence))

    def hw(g, m, k):
        return z * math.sqrt(design_variance(*vals, g, m, k))

    options = {"clusters": hw(2 * clusters, per_cluster, runs),
               "per_cluster": hw(clusters, 2 * per_cluster, runs),
               "runs": hw(clusters, per_cluster, 2 * runs)}
    best = min(options, key=lambda k: (options[k], ("clusters", "per_cluster", "runs").index(k)))
    return DesignPlan(clusters, per_cluster, runs, hw(clusters, per_cluster, runs), options, best)


@dataclass(frozen=True)
class ClusterPlan:
    """An independent-cases plan of ``n`` cases turned into a design of clusters of
    ``cluster_size`` questions and ``runs`` runs: ``factor`` multiplies n (``design_factor``),
    ``n_cases`` and ``n_clusters`` are what it takes, and ``doubling`` gives the interval's
    width, relative to the planned design's, with the clusters, the questions per cluster or
    the runs doubled; ``best`` the one that narrows it most."""

    n: int
    icc: float
    cluster_size: int
    runs: int
    run_share: float
    factor: float
    n_cases: int
    n_clusters: int
    doubling: dict
    best: str

    def to_dict(self) -> dict:
        return {"n_independent": self.n, "icc": self.icc, "cluster_size": self.cluster_size,
                "runs": self.runs, "run_share": self.run_share, "factor": self.factor,
                "n_cases": self.n_cases, "n_clusters": self.n_clusters,
                "doubling": dict(self.doubling), "best": self.best}


def design_factor(icc: float, cluster_size: int, runs: int = 1, run_share: float = 0.0) -> float:
    """How much more variance a case mean carries than one independent single-run case, in a
    design of clusters of m questions and K runs: (1 − W)(1 + (m − 1) ICC) + W / K, with W the
    run-to-run share of one run's variance and ICC that of the cases' true values. With W = 0
    it is Kish's design effect 1 + (m − 1) ICC; with ICC = 0 it is Miller's (2024, eq. 6)
    σ²_between + σ²_within / K over σ². Caller checked."""
    return (1 - run_share) * (1 + (cluster_size - 1) * icc) + run_share / runs


def plan_clusters(n: int, *, icc: float, cluster_size: int, runs: int = 1,
                  run_share: float = 0.0) -> ClusterPlan:
    """``n`` independent single-run cases (any of the planner's n's) as clusters of
    ``cluster_size`` with ``runs`` runs: n x ``design_factor`` cases, rounded up to whole
    clusters, and what doubling each part of the design buys (``plan_design`` on the variance
    components (1 − W) ICC, (1 − W)(1 − ICC), W of a unit variance)."""
    n = checks.whole("n", n, lo=1)
    icc = checks.between("icc", icc, 0.0, 1.0)
    cluster_size = checks.whole("cluster_size", cluster_size, lo=1)
    runs = checks.whole("runs", runs, lo=1)
    run_share = checks.between("run_share", run_share, 0.0, 1.0)
    f = design_factor(icc, cluster_size, runs, run_share)
    n_clusters = max(2, math.ceil(n * f / cluster_size - 1e-9))
    n_cases = n_clusters * cluster_size
    p = plan_design((1 - run_share) * icc, (1 - run_share) * (1 - icc), run_share,
                    clusters=n_clusters, per_cluster=cluster_size, runs=runs)
    doubling = {k: (v / p.half_width if p.half_width > 0 else 1.0) for k, v in p.options.items()}
    return ClusterPlan(n, icc, cluster_size, runs, run_share, f, n_cases, n_clusters, doubling,
                       p.best)
