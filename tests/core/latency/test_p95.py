"""The rule that withholds a method's p95 interval (core.latency.p95); compare_latency, the
JSON and the CLI text at the threshold are in tests/core/latency/test_compare.py."""
from core.latency import p95 as P


def test_p95_withheld_rule_at_its_edges():
    q, n = P.P95_CI_MIN_QUERIES, P.P95_CI_MIN_TIMINGS
    assert P.p95_ci_withheld(q - 1, 10 * n) == "few_queries"
    assert P.p95_ci_withheld(q, n - 1) == "few_timings"
    assert P.p95_ci_withheld(q, n) is None and P.p95_ci_withheld(10 * q, 10 * n) is None
    assert P.p95_ci_withheld(1, 1) == "few_queries"   # queries are checked first


def test_every_reason_is_listed_and_the_minimums_agree_with_the_bench_rows():
    reasons = {P.p95_ci_withheld(q, n) for q in (1, 99, 100, 1000) for n in (1, 499, 500, 10**4)}
    assert reasons - {None} == set(P.P95_CI_WITHHELD_REASONS)
    # 100 queries x 5 runs is the smallest benched size shown (94.0% covered)
    assert P.P95_CI_MIN_TIMINGS == 5 * P.P95_CI_MIN_QUERIES
    assert 0 < P.P95_CI_WORST_COVER < 0.93
