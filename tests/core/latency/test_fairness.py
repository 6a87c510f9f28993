"""core.latency.fairness: bimodality (vs scipy and a brute-force split), the warm-up
changepoint, and each fairness warning raised by the data that should raise it."""
import math

import numpy as np
import pytest
from scipy import stats

from core.latency.compare import PerQuery
from core.latency.fairness import (FairnessWarning, WarmupCheck, bimodality, detect_warmup,
                                   fairness_warnings, fmt_ms, run_matrix)
from core.latency.log import load_timings
from core.i18n import t


def test_bimodality_coefficient_and_split_match_their_definitions():
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.normal(0, 0.1, 60), rng.normal(2, 0.1, 40)])
    bc, d, share, fast, slow = bimodality(x)
    g, k, n = stats.skew(x, bias=False), stats.kurtosis(x, bias=False), x.size
    assert bc == pytest.approx((g * g + 1) / (k + 3 * (n - 1) ** 2 / ((n - 2) * (n - 3))))
    xs = np.sort(x)
    sse = [xs[:i].var() * i + xs[i:].var() * (n - i) for i in range(1, n)]
    cut = int(np.argmin(sse)) + 1
    assert share == cut / n == 0.6
    lo, hi = xs[:cut], xs[cut:]
    assert d == pytest.approx(math.sqrt(2) * (hi.mean() - lo.mean()) / math.sqrt(lo.var() + hi.var()))
    assert (fast, slow) == pytest.approx((np.exp(lo.mean()), np.exp(hi.mean())))
    assert bc > 5 / 9 and d > 3.5
    assert bimodality(x[:9])[:3] == (0.0, 0.0, 0.0)  # too few values to say


def test_run_matrix_pads_with_nan():
    m = run_matrix([[1.0, 2.0, 3.0], [4.0]])
    assert m.shape == (2, 3) and m[0].tolist() == [1, 2, 3]
    assert m[1, 0] == 4 and np.isnan(m[1, 1:]).all()


def _warm_groups(k, queries=40, runs=8, seed=0):
    rng = np.random.default_rng(seed)
    base = rng.lognormal(3, 0.3, size=(queries, 1)) * rng.lognormal(0, 0.05, size=(queries, runs))
    base[:, :k] *= 2.0
    return list(base)


@pytest.mark.parametrize("k", [1, 3])
def test_detect_warmup_finds_a_known_warm_up(k):
    w = detect_warmup(_warm_groups(k), method="A", permutations=199, seed=1)
    assert isinstance(w, WarmupCheck) and w.detected and w.k == k
    assert w.slowdown == pytest.approx(2.0, rel=0.1) and w.p_value == pytest.approx(1 / 200)
    assert len(w.profile) == 8 and w.counts == (40,) * 8
    assert w.to_dict()["method"] == "A"


def test_detect_warmup_invents_none_and_checks_its_arguments():
    w = detect_warmup(_warm_groups(0, seed=5), permutations=99)
    assert not w.detected and w.k == 0
    assert not detect_warmup([[1.0, 2.0], [1.0, 2.0]]).detected  # two runs: nothing to split
    with pytest.raises(ValueError):
        detect_warmup(_warm_groups(1), permutations=0)


def test_fmt_ms():
    assert (fmt_ms(12.345), fmt_ms(0.5), fmt_ms(1234.5)) == ("12.3", "0.5", "1,234")


def test_a_fairness_warning_is_an_i18n_message_with_its_evidence():
    w = FairnessWarning("uneven_runs", {"min_runs": 1, "max_runs": 3})
    assert w.message("en") == t("latency.warn_uneven_runs", "en", min_runs=1, max_runs=3)
    assert w.message("ko") != w.message("en")
    assert w.to_dict() == {"code": "uneven_runs", "message": w.message("en"), "min_runs": 1,
                           "max_runs": 3}


def test_fairness_warnings_order_unequal_runs_unpaired_and_blank():
    text = ("query_id,method,latency_ms\n" + "".join(f"q{i},A,{10 + i}\n" for i in range(4))
            + "".join(f"q{i},B,{5 + i}\n" for i in range(4)) + "q0,B,6\nq9,B,\n")
    log = load_timings(text.encode(), "order.csv")
    frame = log.frame
    per = PerQuery(("q0", "q1", "q2", "q3"), np.array([10., 11, 12, 13]),
                   np.array([5.5, 6, 7, 8]), np.array([1, 1, 1, 1]), np.array([2, 1, 1, 1]))
    none = WarmupCheck("A", 0, 1.0, None, (), ())
    out = fairness_warnings(log, frame, "A", "B", per, (none, none), 0, ["q7"], [], [])
    codes = [w.code for w in out]
    assert codes == ["order", "unequal_runs", "unpaired", "blank"]
    order = out[0].params
    assert (order["first"], order["second"], order["basis"]) == ("A", "B", "row")
    assert out[1].params["n_diff"] == 1 and out[2].params["n_only_a"] == 1
    assert out[3].params["count"] == 1  # the plural key counts blank cells
