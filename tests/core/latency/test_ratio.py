"""core.latency.ratio: the speed verdict needs both the interval of B/A and the test, and the
per-query ratio is each query's median of B over its median of A."""
import numpy as np
import pytest

from core.latency.ratio import PerQuery, speed_verdict


@pytest.mark.parametrize("low,high,p,want", [
    (0.7, 0.9, 0.001, "b_faster"), (1.1, 1.3, 0.001, "a_faster"),
    (0.7, 0.9, 0.2, "no_difference"),      # the interval says faster, the test does not
    (0.9, 1.1, 0.001, "no_difference"),    # the test says so, the interval holds 1
    (0.7, 0.9, 0.05, "no_difference")])    # p must be below 1 - confidence, not equal
def test_speed_verdict_needs_interval_and_test(low, high, p, want):
    assert speed_verdict(low, high, p, 0.95) == want


def test_per_query_ratio_and_frame():
    per = PerQuery(("q1", "q2"), np.array([10.0, 20.0]), np.array([5.0, 30.0]),
                   np.array([3, 3]), np.array([2, 3]))
    assert per.ratio.tolist() == [0.5, 1.5]
    frame = per.frame()
    assert frame["ratio_b_over_a"].tolist() == [0.5, 1.5]
    assert frame["query_id"].tolist() == ["q1", "q2"]
    assert (frame["median_b_ms"] / frame["median_a_ms"]).tolist() == per.ratio.tolist()
