"""Speed claims, honestly: the latency of two methods compared query by query.

Input is a timing log, long ``query_id, method, latency_ms[, run, cache, timestamp]`` or wide
``query_id, <method>, <method>, ...[, run, cache]``; several repetitions per query are allowed
(a ``run`` column or repeated rows). ``load_timings`` parses it (through
``core.inputs.tables.read_cells``), ``compare_latency`` gives:

* per method, the median and p95 of all its timings with nested bootstrap CIs (queries
  resampled with replacement, then each chosen query's repetitions resampled within it); the
  p95's CI only from ``P95_CI_MIN_QUERIES`` queries and ``P95_CI_MIN_TIMINGS`` timings on
  (``core.latency.p95``), below which it covers far less than its level;
* paired by query, the ratio of medians B/A with a paired bootstrap CI over queries
  (percentile), and the geometric mean of the per-query ratios (each query's median of B over
  its median of A) with the calibrated t-interval on the log ratios (the t-interval widened
  to the bootstrap-t's ends where those lie further out, ``core.paired.intervals.log_ratio_interval``;
  chosen by ``bench/calibration.py``, ``docs/calibration.md``; its bootstrap distribution is
  kept for the chart), and a
  sign-flip randomization p on the per-query log ratios;
* a verdict that never overclaims: "faster" only if the CI of the geometric-mean ratio
  excludes 1 *and* the randomization p is below 1 - confidence;
* fairness checks with their evidence: warm-up (a changepoint on the run index), order
  effects (all A timings before all B timings; who ran first within each query,
  ``core.latency.order``), cache (a ``cache`` column or a bimodal distribution), unequal
  numbers of runs, queries or cells left out;
* a unit check (``core.latency.units``): medians more than 50x apart, or one column in two
  clumps about 1,000x apart, withhold the verdict (``units_unclear``) until the units are
  stated (``units``), which also converts them to ms;
* how many queries a +/-5 % CI of the ratio would need (``core.latency.plan``).

Ratios are B/A: below 1 means B is faster. Everything is computed here; pages and the CLI
only draw and print.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from core import checks
from core.errors import InputError
from core.latency.fairness import (FairnessWarning, WarmupCheck, detect_warmup,
                                   fairness_warnings, fmt_ms)
from core.latency.log import TimingLog
from core.latency.order import PairOrder, pair_order
from core.latency.ratio import PerQuery, RatioEstimate, speed_verdict  # noqa: F401 (re-exported)
from core.latency.p95 import P95_CI_MIN_QUERIES, P95_CI_MIN_TIMINGS, p95_ci_withheld
from core.latency.units import ScaleProblem, blocking, scale_problems, unit_factor
from core.latency.resample import (DEFAULT_QUANTILE_RESAMPLES, DEFAULT_RESAMPLES,
                                   nested_bootstrap_quantiles, paired_median_ratio_bootstrap)
from core.paired import paired_test
from core.latency.plan import TARGET_RATIO_HALF_WIDTH, LatencyPlan, plan_queries
from core.paired import DEFAULT_INTERVALS, log_ratio_interval
from core.paired import kernels, percentile_ci, significance_level, stream_key



@dataclass(frozen=True)
class MethodLatency:
    """One method's timings on the paired queries: pooled median and p95 (ms) with nested
    bootstrap CIs; ``p95_ci`` is None where ``p95_ci_withheld`` names a reason."""

    name: str
    median: float
    median_ci: tuple[float, float]
    p95: float
    p95_ci: tuple[float, float] | None
    n_queries: int
    n_runs: int

    @property
    def p95_ci_withheld(self) -> str | None:
        """Why ``p95_ci`` is None (``p95_ci_withheld``), else None."""
        return p95_ci_withheld(self.n_queries, self.n_runs)

    def to_dict(self) -> dict:
        return {"median": self.median, "median_ci": list(self.median_ci), "p95": self.p95,
                "p95_ci": None if self.p95_ci is None else list(self.p95_ci),
                "p95_ci_withheld": self.p95_ci_withheld,
                "p95_ci_min_queries": P95_CI_MIN_QUERIES,
                "p95_ci_min_timings": P95_CI_MIN_TIMINGS,
                "n_queries": self.n_queries, "n_runs": self.n_runs}


@dataclass(frozen=True)
class LatencyComparison:
    """Everything the latency page shows for methods A and B."""

    source: str
    a: str
    b: str
    method_a: MethodLatency
    method_b: MethodLatency
    ratio: RatioEstimate
    per_query: PerQuery
    warmup: tuple[WarmupCheck, WarmupCheck]
    suggested_warmup: int
    alternative: RatioEstimate | None   # the verdict with the other warm-up choice
    warnings: tuple[FairnessWarning, ...]
    plan: LatencyPlan | None
    quantile_resamples: int
    distributions: dict = field(repr=False, default_factory=dict)  # method -> latencies (ms)
    encoding: str | None = None   # the log's text encoding (None for a workbook)
    units: dict = field(default_factory=dict)      # method -> unit the user stated
    scale: tuple[ScaleProblem, ...] = ()           # unit suspicions the stated units leave
    pair: PairOrder | None = None                  # who ran first within each query
    not_compared: tuple[str, ...] = ()             # the log's other methods (issue 30)

    @property
    def verdict(self) -> str:
        """``ratio.verdict``, or ``units_unclear`` while a unit suspicion (``scale``) stands:
        no speed verdict until the user states the units."""
        return "units_unclear" if self.scale else self.ratio.verdict

    def to_dict(self) -> dict:
        return {"source": self.source, "a": self.a, "b": self.b,
                "methods": {self.a: self.method_a.to_dict(), self.b: self.method_b.to_dict()},
                "ratio": self.ratio.to_dict(),
                "warnings": [w.to_dict() for w in self.warnings],
                "verdict": self.verdict,
                "warmup": {"suggested_k": self.suggested_warmup,
                           "dropped": self.ratio.drop_warmup,
                           "methods": {w.method: w.to_dict() for w in self.warmup}},
                "alternative": None if self.alternative is None else self.alternative.to_dict(),
                "sample_size": None if self.plan is None else self.plan.to_dict(),
                "quantile_resamples": self.quantile_resamples, "encoding": self.encoding,
                "units": dict(self.units), "scale": [p.to_dict() for p in self.scale],
                "pair_order": None if self.pair is None else self.pair.to_dict(),
                "not_compared": list(self.not_compared)}


class _Runs:
    """Each method's timings of ``full`` sorted once by (query, run): every later step's
    per-query groups (all runs, or without runs 1..k) are slices of them. Within a query and
    method the runs are distinct, so the slices are those of sorting each subset anew."""

    def __init__(self, full: pd.DataFrame, a: str, b: str):
        method = full["method"].to_numpy(dtype=object)
        query = full["query"].to_numpy(dtype=object)
        codes, uniques = pd.factorize(query)
        self.code = {q: i for i, q in enumerate(uniques)}
        run = full["run"].to_numpy()
        vals = full["latency_ms"].to_numpy(float)
        self.sorted = {}
        for m in (a, b):
            idx = np.flatnonzero(method == m)
            idx = idx[np.lexsort((run[idx], codes[idx]))]
            self.sorted[m] = (codes[idx], run[idx], vals[idx])

    def queries_after(self, m: str, k: int) -> set:
        """Codes of the queries with a run of ``m`` above ``k``."""
        c, r, _ = self.sorted[m]
        return set(np.unique(c[r > k]).tolist())

    def groups(self, m: str, queries, k: int = 0) -> list[np.ndarray]:
        """``queries``' timings of ``m`` in run order, runs 1..k left out."""
        c, r, v = self.sorted[m]
        if k > 0:
            keep = r > k
            c, v = c[keep], v[keep]
        if c.size == 0:
            raise KeyError("no timings")
        starts = np.concatenate([[0], np.flatnonzero(c[1:] != c[:-1]) + 1])
        ends = np.concatenate([starts[1:], [c.size]])
        where = dict(zip(c[starts].tolist(), zip(starts.tolist(), ends.tolist())))
        return [v[slice(*where[self.code[q]])] for q in queries]


def _ratio(runs: _Runs, a: str, b: str, queries: list[str], *, resamples: int,
           confidence: float, seed: int, drop: int) -> tuple[RatioEstimate, PerQuery]:
    ga, gb = runs.groups(a, queries, drop), runs.groups(b, queries, drop)
    med_a, med_b = _group_medians(ga), _group_medians(gb)
    log_a, log_b = np.log(med_a), np.log(med_b)
    # the geometric-mean ratio's CI: the calibrated t-interval on the log ratios
    # (docs/calibration.md: the percentile bootstrap covered 88.7% at 10 queries; the t-interval
    # kept coverage but its verdict's false alarms reached 6.8% on skewed log ratios); the
    # bootstrap distribution (means and SDs of the same resamples) stays for the chart
    logr = np.ascontiguousarray(log_b - log_a, dtype=float)
    boot = kernels().bootstrap_sets(logr[None, :], stream_key(seed), resamples)
    geo_ratio, geo_lo, geo_hi = log_ratio_interval(logr, boot[0], boot[1], confidence,
                                                   method=DEFAULT_INTERVALS[False])
    test = paired_test(log_b, log_a, resamples=resamples, seed=seed, binary=False)
    p = test.p
    nq = len(queries)
    qa = np.repeat(np.arange(nq), [g.size for g in ga])
    qb = np.repeat(np.arange(nq), [g.size for g in gb])
    obs, dist = paired_median_ratio_bootstrap(np.concatenate(ga), qa, np.concatenate(gb), qb,
                                              nq, resamples=resamples, seed=seed)
    lo, hi = percentile_ci(dist, confidence)
    est = RatioEstimate(float(np.exp(obs)), float(np.exp(lo)), float(np.exp(hi)),
                        geo_ratio, geo_lo, geo_hi, float(p), confidence, resamples, int(seed),
                        nq, drop, np.exp(boot[0, 0]), min_p=float(test.min_p),
                        nonzero=int(test.nonzero))
    per = PerQuery(tuple(queries), med_a, med_b, np.array([g.size for g in ga]),
                   np.array([g.size for g in gb]))
    return est, per


def _group_medians(groups) -> np.ndarray:
    """numpy's median of every group, vectorised: sort within groups, average the middles."""
    k = np.array([g.size for g in groups])
    values = np.concatenate(groups)
    gid = np.repeat(np.arange(k.size), k)
    v = values[np.lexsort((values, gid))]
    start = np.concatenate([[0], np.cumsum(k)[:-1]])
    return 0.5 * (v[start + (k - 1) // 2] + v[start + k // 2])


def _paired_queries(frame: pd.DataFrame, a: str, b: str):
    method = frame["method"].to_numpy(dtype=object)
    query = frame["query"].to_numpy(dtype=object)
    qa = list(pd.unique(query[method == a]))
    qb = set(pd.unique(query[method == b]))
    sa = set(qa)
    paired = [q for q in qa if q in qb]
    only_a = [q for q in qa if q not in qb]
    only_b = sorted(q for q in qb if q not in sa)
    return paired, only_a, only_b


def _check_method(log: TimingLog, name, role: str) -> str:
    if name not in log.methods:
        raise InputError("unknown_method", file=log.source, method=str(name),
                         methods=", ".join(log.methods))
    return name


def compare_latency(log: TimingLog, a: str, b: str, *, resamples: int = DEFAULT_RESAMPLES,
                    quantile_resamples: int = DEFAULT_QUANTILE_RESAMPLES,
                    confidence: float = 0.95, seed: int = 0,
                    drop_warmup: int = 0, units: dict | None = None) -> LatencyComparison:
    """Compare the latency of ``a`` and ``b`` (see the module docstring).

    ``units`` maps a method to the unit its timings are in (``ns``, ``us``/``µs``, ``ms``,
    ``s``; ``core.latency.units.parse_units`` reads ``a=ms,b=s``): they are converted to ms,
    and stating them settles that method's unit suspicions. Methods left out are taken as ms
    but not as confirmed.

    ``drop_warmup`` leaves out runs 1..k of every query and method. When warm-up is detected
    and none is dropped (or some is dropped), ``alternative`` holds the ratio and verdict with
    the other choice, so the page can show how the verdict changes.
    """
    checks.instance("log", log, TimingLog, "a TimingLog from load_timings")
    a, b = _check_method(log, a, "a"), _check_method(log, b, "b")
    if a == b:
        raise InputError("same_method", file=log.source, method=a)
    confidence, resamples, quantile_resamples, seed, drop = checks.latency_iv(
        confidence, resamples, quantile_resamples, seed, drop_warmup)
    units = _units_iv(log, units)
    full = log.frame[log.frame["method"].isin((a, b))]
    if any(m in units for m in (a, b)):
        factor = full["method"].map({m: unit_factor(units.get(m, "ms")) for m in (a, b)})
        full = full.assign(latency_ms=full["latency_ms"].to_numpy(float) * factor.to_numpy(float))
    scale = blocking(scale_problems(
        {m: full.loc[full["method"] == m, "latency_ms"].to_numpy(float) for m in (a, b)},
        {m: log.column_of(m) for m in (a, b)}, a, b), units)
    paired_all, only_a, only_b = _paired_queries(full, a, b)
    if len(paired_all) < 2:
        raise InputError("too_few_paired", file=log.source, count=len(paired_all), a=a, b=b)
    runs = _Runs(full, a, b)
    warm = tuple(detect_warmup(runs.groups(m, paired_all), method=m, seed=seed)
                 for m in (a, b))
    suggested = max(w.k for w in warm)

    def analyse(k: int):
        keep = runs.queries_after(a, k) & runs.queries_after(b, k)
        queries = [q for q in paired_all if runs.code[q] in keep]
        if len(queries) < 2:
            raise InputError("latency.err_drop_too_many", file=log.source, count=k,
                             n=len(queries))
        ratio, per = _ratio(runs, a, b, queries, resamples=resamples, confidence=confidence,
                            seed=seed, drop=k)
        return queries, ratio, per

    queries, ratio, per = analyse(drop)
    alternative = None
    if drop > 0:
        alternative = analyse(0)[1]
    elif suggested > 0:
        try:
            alternative = analyse(suggested)[1]
        except InputError:
            alternative = None
    qset = set(queries)
    kept = full[(full["run"] > drop).to_numpy() & full["query"].isin(qset).to_numpy()]
    methods, dists = [], {}
    for i, m in enumerate((a, b)):
        groups = runs.groups(m, queries, drop)
        allv = np.concatenate(groups)
        dist = nested_bootstrap_quantiles(groups, [0.5, 0.95], resamples=quantile_resamples,
                                          seed=seed + i)
        mlo, mhi = percentile_ci(dist[:, 0], confidence)
        p95_ci = None
        if p95_ci_withheld(len(queries), int(allv.size)) is None:
            p95_ci = percentile_ci(dist[:, 1], confidence)
        methods.append(MethodLatency(m, float(np.median(allv)), (mlo, mhi),
                                     float(np.quantile(allv, 0.95)), p95_ci, len(queries),
                                     int(allv.size)))
        dists[m] = allv
    dropped_queries = [q for q in paired_all if q not in qset]
    pair = pair_order(full, a, b, seed=seed, resamples=resamples)
    mixed = {m for p in scale if p.kind == "two_scales" for m in p.methods}
    warnings = [_scale_warning(p) for p in scale] + [  # two scales are not a cache's clumps
        w for w in fairness_warnings(log, kept, a, b, per, warm, drop, only_a, only_b,
                                     dropped_queries, pair=pair, seed=seed)
        if not (w.code == "bimodal" and w.params["method"] in mixed)]
    return LatencyComparison(log.source, a, b, methods[0], methods[1], ratio, per, warm,
                             suggested, alternative, tuple(warnings),
                             plan_queries(per, kept, a, b, confidence, ratio), quantile_resamples,
                             dists, log.encoding, dict(units), scale, pair,
                             tuple(m for m in log.methods if m not in (a, b)))


def _units_iv(log: TimingLog, units) -> dict:
    """``units``: None or {method of the log: a unit ``unit_factor`` knows}."""
    if units is None:
        return {}
    units = checks.instance("units", units, dict, "a dict {method: unit}")
    for m, u in units.items():
        _check_method(log, m, "units")
        unit_factor(u)
    return dict(units)


def _scale_warning(p: ScaleProblem) -> FairnessWarning:
    return FairnessWarning("units_medians" if p.kind == "medians" else "units_two_scales", {
        "column": p.column, "ratio": f"{p.ratio:,.0f}", "low": fmt_ms(p.low),
        "high": fmt_ms(p.high), "n_low": p.n_low, "n_high": p.n_high,
        "methods": ", ".join(p.methods)})
