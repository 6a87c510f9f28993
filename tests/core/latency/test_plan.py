"""core.latency.plan: the latency page's queries-needed plan and its retarget (the one
latency planner): the +/-5 % plan is the retarget at 5 %, each n is the smallest whose
t-interval half-width on the log ratios reaches log(1 + target), and a wider target never
asks for more queries."""
import math

import pytest
from scipy import stats

from core.latency.compare import compare_latency
from core.latency.log import load_timings
from core.latency.plan import TARGET_RATIO_HALF_WIDTH, LatencyPlan
from tests.latency_logs import pair_log

FAST = dict(resamples=500, quantile_resamples=50, seed=1)


def _plan(**kw) -> LatencyPlan:
    log = load_timings(pair_log(order="random", **kw), file="log.csv")
    return compare_latency(log, "A", "B", **FAST).plan


def _half(sd: float, n: int, confidence: float = 0.95) -> float:
    return stats.t.ppf(1 - (1 - confidence) / 2, n - 1) * sd / math.sqrt(n)


def test_the_pages_plan_is_its_retarget_at_five_percent():
    plan = _plan(queries=30, runs=3, ratio=0.9)
    assert plan.target == TARGET_RATIO_HALF_WIDTH
    assert plan.retarget(TARGET_RATIO_HALF_WIDTH, 0.95) == plan


@pytest.mark.parametrize("target", [0.02, 0.05, 0.2])
@pytest.mark.parametrize("confidence", [0.9, 0.95])
def test_each_n_is_the_smallest_whose_interval_is_narrow_enough(target, confidence):
    plan = _plan(queries=25, runs=4, ratio=1.1, seed=4).retarget(target, confidence)
    assert plan.target == target
    goal = math.log(1 + target)
    n = plan.n_queries
    assert _half(plan.sd_log_ratio, n, confidence) <= goal
    assert n == 2 or _half(plan.sd_log_ratio, n - 1, confidence) > goal
    floor = plan.n_queries_floor
    assert floor == 2 or _half(plan.sd_between, floor - 1, confidence) > goal
    assert plan.n_queries_floor <= plan.n_queries


def test_a_wider_target_never_needs_more_queries():
    plan = _plan(queries=20, runs=2, ratio=0.8, seed=2)
    ns = [plan.retarget(t, 0.95).n_queries for t in (0.01, 0.03, 0.1, 0.3, 1.0)]
    assert ns == sorted(ns, reverse=True) and ns[0] > ns[-1]


def test_a_target_must_be_above_zero():
    plan = _plan(queries=10, runs=2)
    with pytest.raises(ValueError, match="target"):
        plan.retarget(0.0, 0.95)
