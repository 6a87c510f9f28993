"""core.latency.units: timings in different units are not a speed difference. B logged in
seconds (the issue: 'B is 800x faster') and seconds pasted into a millisecond column (the
issue: a 'bimodal' note, a warm-up warning and '1.81x faster') withhold the verdict until the
units are stated; stating them converts to ms."""
import numpy as np
import pytest

from core.latency import compare as L
from core.errors import InputError
from core.latency.log import load_timings
from core.latency.units import (MEDIAN_RATIO_LIMIT, UNIT_TO_MS, blocking, parse_units,
                                scale_problems, two_scales, unit_factor)
from tests.latency_logs import wide_log

FAST = {"resamples": 2000, "quantile_resamples": 200}


def _compare(data, **kw):
    return L.compare_latency(load_timings(data, "u.csv"), "A", "B", **FAST, **kw)


def test_parse_units_by_role_by_name_and_for_all():
    methods = ("bm25", "dense")
    assert parse_units("a=ms,b=s", methods, a="bm25", b="dense") == {"bm25": "ms", "dense": "s"}
    assert parse_units("dense = us", methods, a="bm25", b="dense") == {"dense": "us"}
    assert parse_units("s", methods, a="bm25", b="dense") == {"bm25": "s", "dense": "s"}
    # a method named "a" is the method, not the role
    assert parse_units("a=s", ("a", "x"), a="x", b="a") == {"a": "s"}
    assert unit_factor("µs") == unit_factor("us") == 1e-3 and unit_factor("S") == 1000
    assert UNIT_TO_MS["ns"] == 1e-6


@pytest.mark.parametrize("text, code", [
    ("a=minutes", "latency.err_bad_unit"), ("=ms", "latency.err_bad_units"),
    ("", "latency.err_bad_units"), ("c=ms", "unknown_method"), ("hours", "latency.err_bad_unit"),
])
def test_parse_units_refuses_what_it_cannot_read(text, code):
    with pytest.raises(InputError) as e:
        parse_units(text, ("bm25", "dense"), a="bm25", b="dense")
    assert e.value.code == code


def test_two_scales_finds_clumps_about_1000x_apart_only():
    rng = np.random.default_rng(0)
    ms = rng.lognormal(np.log(40), 0.5, 80)
    mixed = np.concatenate([ms[:60], ms[60:] / 1000])
    ratio, lo, hi, n_lo, n_hi = two_scales(mixed)
    assert (n_lo, n_hi) == (20, 60) and 200 < ratio < 5000 and lo < 1 < 10 < hi
    assert two_scales(ms) is None                                   # one scale
    assert two_scales(np.concatenate([ms[:60], ms[60:] / 20])) is None   # a 20x cache hit
    assert two_scales([5.0]) is None
    assert two_scales(np.append(ms, 30_000.0)) is None      # one timeout: an outlier
    assert two_scales(np.append(ms, [0.03, 0.04]))[3:] == (2, 80)


def test_b_in_seconds_withholds_the_verdict_until_units_are_stated():
    data = wide_log(b_scale=1 / 1000, ratio=0.8)
    res = _compare(data)
    assert res.verdict == "units_unclear" and res.ratio.verdict == "b_faster"
    w = res.warnings[0]
    assert w.code == "units_medians" and w.params["column"] == "A, B"
    assert float(w.params["ratio"].replace(",", "")) > MEDIAN_RATIO_LIMIT
    assert "No verdict until the units are stated" in w.message()
    assert res.to_dict()["verdict"] == "units_unclear" and res.to_dict()["scale"]
    stated = _compare(data, units={"A": "ms", "B": "s"})
    assert stated.verdict == "b_faster" and not stated.scale
    assert stated.ratio.geo_mean_ratio == pytest.approx(0.8, rel=0.05)
    assert stated.method_b.median == pytest.approx(1000 * res.method_b.median)
    # saying both are ms accepts the gap as real: a verdict, no unit warning
    confirmed = _compare(data, units={"A": "ms", "B": "ms"})
    assert confirmed.verdict == "b_faster" and not confirmed.scale
    # stating A only does not settle a problem that involves B
    assert _compare(data, units={"A": "ms"}).verdict == "units_unclear"


def test_seconds_mixed_into_one_column_name_the_column():
    data = wide_log(mixed_share=0.3, ratio=1.0, seed=1)
    res = _compare(data)
    assert res.verdict == "units_unclear"
    codes = [w.code for w in res.warnings]
    assert codes[0] == "units_two_scales" and res.warnings[0].params["column"] == "B"
    assert "bimodal" not in codes                 # two scales are not a cache
    assert "Column B holds two scales" in res.warnings[0].message()
    assert _compare(data, units={"B": "ms"}).verdict != "units_unclear"


def test_a_long_log_names_its_latency_column():
    rows = "".join(f"q{i},A,{10 + i}\nq{i},B,{(10 + i) / 1000}\n" for i in range(8))
    log = load_timings(("query_id,method,elapsed_ms\n" + rows).encode(), "l.csv")
    res = L.compare_latency(log, "A", "B", **FAST)
    assert res.warnings[0].params["column"] == "elapsed_ms (A), elapsed_ms (B)"


def test_scale_problems_and_blocking():
    rng = np.random.default_rng(3)
    a, b = rng.lognormal(3, 0.3, 50), rng.lognormal(3, 0.3, 50)
    assert scale_problems({"A": a, "B": b}, {"A": "A", "B": "B"}, "A", "B") == ()
    probs = scale_problems({"A": a, "B": b * 100}, {"A": "A", "B": "B"}, "A", "B")
    assert [p.kind for p in probs] == ["medians"] and probs[0].methods == ("A", "B")
    assert blocking(probs, {"A"}) == probs and blocking(probs, {"A", "B"}) == ()
    assert probs[0].to_dict()["kind"] == "medians"


def test_units_argument_is_checked():
    log = load_timings(wide_log(), "u.csv")
    with pytest.raises(InputError):
        L.compare_latency(log, "A", "B", units={"C": "ms"}, **FAST)
    with pytest.raises(InputError):
        L.compare_latency(log, "A", "B", units={"A": "hours"}, **FAST)
    with pytest.raises(ValueError, match="units"):
        L.compare_latency(log, "A", "B", units="a=ms", **FAST)
