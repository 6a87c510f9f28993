"""core.latency.order: who ran first within a query. The issue's logs (B always right after A,
gaining 1.3x or 3x from A's warm cache) raise a warning naming B; mixed orders measure the
position effect and the balanced ratio; fair logs raise nothing."""
import math

import numpy as np
import pytest

from core.latency import compare as L
from core.latency.log import load_timings
from core.latency.order import ORDER_ALPHA, PairOrder, pair_order
from tests.latency_logs import pair_log

FAST = {"resamples": 2000, "quantile_resamples": 200}


def _order(data: bytes, **kw) -> PairOrder:
    return pair_order(load_timings(data, "p.csv").frame, "A", "B", resamples=2000, **kw)


@pytest.mark.parametrize("gain", [1.3, 3.0])
def test_b_always_second_is_a_fixed_order_naming_b(gain):
    data = pair_log(gain=gain)
    po = _order(data)
    assert po.fixed and po.n_pairs == 200 and po.b_second == 200
    assert (po.first, po.second) == ("A", "B") and po.gain is None and not po.detected
    res = L.compare_latency(load_timings(data, "p.csv"), "A", "B", **FAST)
    assert res.verdict == "b_faster"   # the ratio alone cannot see it: the warning must
    w = [w for w in res.warnings if w.code == "order_pair"]
    assert len(w) == 1 and w[0].key == "order_pair_fixed"
    text = w[0].message()
    assert "B ran after A on the same query in 200 of 200 pairs (by timestamp)" in text
    assert "Randomise which method runs first" in text
    assert f"{res.ratio.geo_mean_ratio:.3f}" in text
    assert "ran after" in w[0].message("ko") or "뒤에 실행" in w[0].message("ko")


def test_a_second_names_a_and_row_order_is_used_without_timestamps():
    data = pair_log(gain=1.3, timestamps=False).decode().splitlines()
    head, body = data[0], data[1:]
    swapped = [x for i in range(0, len(body), 2) for x in (body[i + 1], body[i])]
    po = _order(("\n".join([head, *swapped]) + "\n").encode())
    assert po.fixed and po.b_second == 0 and (po.first, po.second) == ("B", "A")


@pytest.mark.parametrize("order, design", [("random", "within"), ("per_query", "between")])
def test_a_position_effect_is_measured_when_the_order_varies(order, design):
    data = pair_log(gain=1.3, ratio=1.0, order=order, seed=3)
    po = _order(data)
    assert po.design == design and po.detected and po.p_value < ORDER_ALPHA
    assert po.gain == pytest.approx(1.3, rel=0.05)
    res = L.compare_latency(load_timings(data, "p.csv"), "A", "B", **FAST)
    w = [w for w in res.warnings if w.code == "order_pair"]
    assert len(w) == 1 and w[0].key == "order_pair_faster"
    assert w[0].params["gain"] == f"{po.gain:.2f}"
    # the balanced ratio removes the pull g^-(2p - 1) of the share p with B second
    geo = res.ratio.geo_mean_ratio
    p = po.share_b_second
    assert po.balanced_ratio(geo) == pytest.approx(geo * po.gain ** (2 * p - 1))
    assert float(w[0].params["balanced"]) == pytest.approx(1.0, abs=0.04)


def test_second_slower_is_said_too():
    po = _order(pair_log(gain=1 / 1.3, order="random", seed=2))
    assert po.detected and po.gain < 1
    res = L.compare_latency(load_timings(pair_log(gain=1 / 1.3, order="random", seed=2),
                                         "p.csv"), "A", "B", **FAST)
    assert [w.key for w in res.warnings if w.code == "order_pair"] == ["order_pair_slower"]


@pytest.mark.parametrize("seed", range(4))
def test_a_fair_random_order_raises_nothing(seed):
    data = pair_log(gain=1.0, ratio=0.9, order="random", seed=seed)
    assert not _order(data).detected
    res = L.compare_latency(load_timings(data, "p.csv"), "A", "B", **FAST)
    assert not [w for w in res.warnings if w.code.startswith("order")]


def test_wide_rows_hold_both_timings_so_the_order_is_unknown():
    text = "query_id,A,B\n" + "".join(f"q{i},{10 + i},{5 + i}\n" for i in range(6))
    po = _order(text.encode())
    assert po.n_pairs == 0 and po.design == "none" and not po.detected
    assert math.isnan(po.share_b_second)


def test_blocked_order_is_reported_once_as_blocked():
    data = pair_log(gain=1.3, timestamps=False).decode().splitlines()
    head, body = data[0], data[1:]
    blocked = [x for x in body if ",A," in x] + [x for x in body if ",B," in x]
    res = L.compare_latency(load_timings(("\n".join([head, *blocked]) + "\n").encode(), "b.csv"),
                            "A", "B", **FAST)
    codes = [w.code for w in res.warnings]
    assert "order" in codes and "order_pair" not in codes


def test_to_dict_and_json():
    po = _order(pair_log(order="random", seed=1))
    d = po.to_dict()
    assert d["n_pairs"] == 200 and d["design"] == "within" and set(d) >= {"gain", "p_value"}
    res = L.compare_latency(load_timings(pair_log(seed=1), "p.csv"), "A", "B", **FAST)
    assert res.to_dict()["pair_order"]["design"] == "fixed"
    assert np.isfinite(res.to_dict()["pair_order"]["gap"])
