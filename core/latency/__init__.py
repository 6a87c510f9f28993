"""Is B really faster? Timing logs (``log``, ``units``), the B/A ratio and its verdict
(``ratio``, ``compare``), the resampling (``resample``), fairness checks (``fairness``,
``clumps``, ``order``), the p95 rule (``p95``) and the query planner (``plan``).

The front door: other wings, pages and the CLI import the names below from ``core.latency``
(``core._front``); the modules are the wing's rooms."""
from core._front import front_door

PUBLIC = {
    "compare": ("LatencyComparison", "MethodLatency", "RatioEstimate", "compare_latency"),
    "fairness": ("fmt_ms",),
    "log": ("load_timings",),
    "p95": ("P95_CI_MIN_QUERIES", "P95_CI_MIN_TIMINGS", "P95_CI_WORST_COVER"),
    "plan": ("LatencyPlan",),
    "resample": ("DEFAULT_QUANTILE_RESAMPLES", "nested_bootstrap_quantiles",
                 "paired_median_ratio_bootstrap"),
    "units": ("UNIT_CHOICES", "parse_units"),
}
__getattr__, __dir__, __all__ = front_door(__name__, PUBLIC)
