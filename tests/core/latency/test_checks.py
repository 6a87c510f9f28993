"""Issue 25's cases, each a generated log whose truth is known: warm-up longer than half the
runs, 'cannot tell' with its reason, digits that show the interval against 1, a 1e308 cell,
and no raw numpy warning on any of the issue's logs."""
import warnings

import numpy as np
import pytest

from core.latency import compare as L
from core.errors import InputError
from core.latency.log import MAX_LATENCY, load_timings
from core.views.format import ratio_digits
from core.views.latency import (cannot_tell_reason, comparison_text, ratio_strings,
                                speed_sentence)
from tests.latency_logs import cache_log, pair_log, wide_log

FAST = {"resamples": 2000, "quantile_resamples": 200}


def _warm_log(k: int, runs: int = 5, queries: int = 40, seed: int = 0) -> bytes:
    """A long log whose A pays a warm-up of ``k`` runs (2x slower); pair order random."""
    rng = np.random.default_rng(seed)
    base = rng.lognormal(3, 0.3, queries)
    lines = ["query_id,method,run,latency_ms"]
    for q in range(queries):
        for r in range(runs):
            a = base[q] * rng.lognormal(0, 0.05) * (2 if r < k else 1)
            b = base[q] * rng.lognormal(0, 0.05)
            pair = [f"q{q},A,{r + 1},{a:.5f}", f"q{q},B,{r + 1},{b:.5f}"]
            lines += pair if rng.random() < 0.5 else pair[::-1]
    return ("\n".join(lines) + "\n").encode()


def _paired_wide(d: np.ndarray, seed: int = 0) -> bytes:
    """One run per query; B = A x exp(d) exactly (to 12 digits)."""
    rng = np.random.default_rng(seed)
    a = rng.lognormal(np.log(40), 0.5, d.size)
    return ("query_id,A,B\n" + "".join(f"q{i},{x:.12g},{x * np.exp(e):.12g}\n"
                                       for i, (x, e) in enumerate(zip(a, d)))).encode()


def test_warm_up_of_3_in_5_runs_is_found_whole():
    res = L.compare_latency(load_timings(_warm_log(3), "w.csv"), "A", "B", **FAST)
    w = res.warmup[0]
    assert w.k == 3 and not w.capped and res.suggested_warmup == 3
    text = [x for x in res.warnings if x.code == "warmup"][0].message()
    assert "its first 3 runs of each query" in text and "at least" not in text


def test_warm_up_up_to_the_last_split_says_at_least():
    res = L.compare_latency(load_timings(_warm_log(4), "w.csv"), "A", "B", **FAST)
    assert res.warmup[0].k == 4 and res.warmup[0].capped
    w = [x for x in res.warnings if x.code == "warmup"][0]
    assert w.key == "warmup_capped" and w.params["capped"] is True
    assert "at least its first 4 runs" in w.message() and "적어도" in w.message("ko")
    assert res.to_dict()["warmup"]["methods"]["A"]["capped"] is True


def test_three_queries_cannot_tell_and_say_why():
    d = np.log([1.25, 1.32, 1.38])
    res = L.compare_latency(load_timings(_paired_wide(d), "q3.csv"), "A", "B", **FAST)
    r = res.ratio
    # every per-query ratio is above 1 (the t-interval alone would say "slower"), yet no
    # sign-flip p can go below 0.25 with 3 queries; the calibrated interval reaches 0 here
    # (a bootstrap-t over 3 values: 3 of its 27 resamples have no spread)
    assert r.verdict == "no_difference" and r.geo_ci_low < 1.25
    assert r.min_p == pytest.approx(0.25) and r.randomization_p == pytest.approx(0.25)
    reason = cannot_tell_reason(r)
    assert reason.startswith("With 3 queries the smallest possible p of the sign-flip test is "
                             "0.25, not below 0.05")
    assert reason in speed_sentence(r, a="A", b="B") and reason in comparison_text(res)
    assert "0.25" in cannot_tell_reason(r, "ko") and res.to_dict()["ratio"]["min_p"] == 0.25


def test_identical_timings_say_how_many_queries_differ():
    d = np.array([0.0, 0.0, 0.0, 0.0, 0.2, 0.3])
    res = L.compare_latency(load_timings(_paired_wide(d), "t.csv"), "A", "B", **FAST)
    assert res.ratio.nonzero == 2 and res.ratio.min_p == pytest.approx(0.5)
    assert cannot_tell_reason(res.ratio).startswith(
        "Only 2 of the 6 queries took different times for A and B; with 2 the smallest "
        "possible p of the sign-flip test is 0.5")


def test_both_conditions_failing_is_said():
    d = np.tile([.05, -.04, .06, -.03, .01], 3)      # log ratios around 0: no difference
    res = L.compare_latency(load_timings(_paired_wide(d), "b.csv"), "A", "B", **FAST)
    assert res.verdict == "no_difference"
    assert cannot_tell_reason(res.ratio).startswith("The interval [")
    assert "includes 1 and the randomization" in cannot_tell_reason(res.ratio)


def test_a_low_end_of_1002_is_printed_as_such_beside_cannot_tell():
    # ten queries, per-query ratios around 1.06: the t-interval's low end is 1.0015 and the
    # exact sign-flip p is 0.061 (the case: '[1.00, 1.13]' beside 'no difference')
    d = np.random.default_rng(88).normal(np.log(1.06), 0.08, 10)
    res = L.compare_latency(load_timings(_paired_wide(d), "q10.csv"), "A", "B", **FAST)
    r = res.ratio
    assert r.verdict == "no_difference" and 1 < r.geo_ci_low < 1.005
    assert r.randomization_p > 0.05
    geo, lo, hi = ratio_strings(r)
    assert lo != "1.00" and float(lo) > 1 and len(lo.split(".")[1]) == 3
    sentence = speed_sentence(r, a="A", b="B")
    assert f"[{lo}, {hi}]" in sentence and "leaves out 1, but the randomization" in sentence
    assert f"CI [{r.geo_ci_low:.3f}" in comparison_text(res)


def test_ratio_digits():
    assert ratio_digits(0.77, 0.73, 0.80) == 2
    assert ratio_digits(1.06, 1.002, 1.13) == 3
    assert ratio_digits(1.0, 0.9996, 1.0004) == 4
    assert ratio_digits(1.0000001) == 6            # capped
    assert ratio_digits(1.0, 1.0) == 2
    assert ratio_digits(0.0008, 0.00075, 0.00085) == 5 and ratio_digits(0.05) == 3
    assert ratio_digits(1e-9) == 6


def test_1e308_is_a_clear_error_naming_file_row_and_column():
    text = "query_id,method,latency_ms\nq1,A,10\nq1,B,1e308\nq2,A,20\nq2,B,9\n"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(InputError) as e:
            load_timings(text.encode(), "big.csv")
    err = e.value
    assert (err.code, err.file, err.row, err.column) == ("latency.err_too_large", "big.csv", 3,
                                                         "latency_ms")
    assert "'1e308' is too large to be a latency" in str(err)
    assert f"{MAX_LATENCY:.0e}" in str(err)
    load_timings(text.replace("1e308", f"{MAX_LATENCY:g}").encode(), "ok.csv")


@pytest.mark.parametrize("data", [
    pair_log(gain=1.3), pair_log(gain=3.0), pair_log(order="random", gain=1.3),
    wide_log(b_scale=1 / 1000), wide_log(mixed_share=0.3, seed=1), cache_log(queries=10),
    _warm_log(4), _paired_wide(np.log([1.25, 1.32, 1.38])),
    _paired_wide(np.zeros(6)),                                  # identical timings
    b"query_id,A,B\nq1,1e-300,2e-300\nq2,3e-300,1e-300\nq3,1e15,1e15\n",
], ids=["pair1.3", "pair3", "mixed-order", "seconds", "mixed-units", "cache", "warm4", "q3",
        "equal", "extremes"])
def test_no_numpy_warning_reaches_the_user(data):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = L.compare_latency(load_timings(data, "x.csv"), "A", "B", **FAST)
        comparison_text(res)
        comparison_text(res, "ko")
