"""When a method's p95 latency gets an interval (issue 25h).

The nested bootstrap (``core.latency.resample.nested_bootstrap_quantiles``) gives each method's
pooled p95 a 95% percentile interval; on simulated logs (``bench/bench_latency_nested.py
--sizes``; docs/speed.md, "p95 intervals: where they hold") it covers the true p95 far less
than 95% below ``P95_CI_MIN_QUERIES`` queries and ``P95_CI_MIN_TIMINGS`` timings, so there
``core.latency.compare.compare_latency`` shows the p95 without an interval and says why.
"""
from __future__ import annotations

P95_CI_MIN_QUERIES = 100
"""Fewest queries for which a method's p95 gets an interval. The nested bootstrap's 95%
percentile interval of the pooled p95 covers the true p95 of simulated lognormal logs (query
level and run noise, ``bench/bench_latency_nested.py --sizes``; docs/speed.md, "p95 intervals:
where they hold") in 40-89% of logs at 10-50 queries (at 1, 5 or 25 runs) and at 100 queries
x 1 run, and in 93-95% from 100 queries x 5 runs and 200 queries on. The interval sits below
the truth when it misses (the sample p95 of few queries is biased low); the basic interval
does worse."""

P95_CI_MIN_TIMINGS = 500
"""Fewest timings (with at least ``P95_CI_MIN_QUERIES`` queries) for which a method's p95 gets
an interval: 100 queries x 1 run covered 89.3%, 100 x 5 (500 timings) 94.0% (docs/speed.md,
"p95 intervals: where they hold"). 200 x 1 covered 94.1% but is withheld too: one rule, on
the safe side."""

P95_CI_WORST_COVER = 0.40
"""The lowest coverage of the p95's 95% interval in that bench (10 queries x 1 run: 40.3%),
quoted where the interval is withheld."""


P95_CI_WITHHELD_REASONS = ("few_queries", "few_timings")
"""Every value ``p95_ci_withheld`` can name (JSON ``p95_ci_withheld``)."""


def p95_ci_withheld(n_queries: int, n_timings: int) -> str | None:
    """Why a method's p95 interval is withheld: ``"few_queries"`` below
    ``P95_CI_MIN_QUERIES`` queries, ``"few_timings"`` below ``P95_CI_MIN_TIMINGS`` timings,
    else None (the interval is shown)."""
    if n_queries < P95_CI_MIN_QUERIES:
        return "few_queries"
    if n_timings < P95_CI_MIN_TIMINGS:
        return "few_timings"
    return None
