"""core.views.latency: shared log bins, thinned quantile plots, the run profile and the CLI
text carry the comparison's own numbers."""
import numpy as np
import pytest

from core.latency.compare import compare_latency
from core.latency.fairness import WarmupCheck, fmt_ms
from core.latency.log import load_timings
from core.views.latency import (MAX_POINTS, comparison_text, distribution_chart, latency_bins,
                                ratio_chart, runs_chart, speed_sentence, thin_sorted)


def _data(chart):
    return list(chart.to_dict()["datasets"].values())


def test_latency_bins_share_edges_and_keep_every_timing():
    rng = np.random.default_rng(0)
    d = {"A": rng.lognormal(3, 0.5, 500), "B": rng.lognormal(2.5, 0.5, 300)}
    bins = latency_bins(d, bins=20)
    assert len(bins) == 40 and set(bins["method"]) == {"A", "B"}
    a, b = bins[bins["method"] == "A"], bins[bins["method"] == "B"]
    assert np.array_equal(a["start"].to_numpy(), b["start"].to_numpy())
    assert a["count"].sum() == 500 and b["count"].sum() == 300
    assert a["share"].sum() == pytest.approx(1.0)
    assert np.allclose(a["mid"], np.sqrt(a["start"] * a["end"]))
    for bad in ({}, {"A": [0.0, 1.0]}):
        with pytest.raises(ValueError):
            latency_bins(bad)
    rows = _data(distribution_chart(d, bins=20))[0]
    assert len(rows) == 40


def test_thin_sorted_keeps_the_shape_with_few_points():
    x = np.random.default_rng(1).random(10_000)
    t = thin_sorted(x)
    assert len(t) <= MAX_POINTS and t["value"].is_monotonic_increasing
    assert t["value"].iloc[0] == x.min() and t["value"].iloc[-1] == x.max()
    small = thin_sorted([3.0, 1.0, 2.0])
    assert small["value"].tolist() == [1, 2, 3] and small["rank"].tolist() == [0.5 / 3, 1.5 / 3,
                                                                              2.5 / 3]
    with pytest.raises(ValueError):
        thin_sorted([])


def test_ratio_chart_marks_which_side_of_one_each_query_is():
    rows = _data(ratio_chart([0.5, 2.0, 0.9], faster_label="fast", slower_label="slow"))
    dots = next(d for d in rows if d and "side" in d[0])
    assert [(r["value"], r["side"]) for r in dots] == [(0.5, "fast"), (0.9, "fast"),
                                                      (2.0, "slow")]
    assert any(d == [{"y": 1.0}] for d in rows)


def test_runs_chart_profile_and_warm_up_mark():
    w = [WarmupCheck("A", 2, 2.0, 0.01, (20.0, 18.0, 10.0, 10.0), (5, 5, 5, 5)),
         WarmupCheck("B", 0, 1.0, None, (8.0, 8.0, 8.0, 8.0), (5, 5, 5, 5))]
    rows = _data(runs_chart(w, k=2, mark_label="end"))
    profile = next(d for d in rows if d and "ms" in d[0])
    assert len(profile) == 8 and profile[0] == {"method": "A", "run": 1, "ms": 20.0,
                                                "queries": 5}
    assert any(d == [{"run": 2, "label": "end"}] for d in rows)
    assert not any(d and "label" in d[0] for d in _data(runs_chart(w, k=0)))


def _comparison():
    rng = np.random.default_rng(2)
    lines = ["query_id,method,latency_ms"]
    for q in range(30):
        base = rng.lognormal(3, 0.3)
        for _ in range(3):
            lines.append(f"q{q},old,{base * rng.lognormal(0, 0.05):.3f}")
            lines.append(f"q{q},new,{0.6 * base * rng.lognormal(0, 0.05):.3f}")
    log = load_timings("\n".join(lines).encode(), "t.csv")
    return compare_latency(log, "old", "new", resamples=2000, quantile_resamples=500)


def test_comparison_text_carries_the_comparisons_numbers():
    res = _comparison()
    out = comparison_text(res)
    lines = out.splitlines()
    assert lines[0].startswith(f"t.csv: {res.ratio.n_queries} paired queries")
    for m in (res.method_a, res.method_b):
        assert f"{m.name}: median {fmt_ms(m.median)} ms" in out
    assert f"{res.ratio.median_ratio:.3f}" in out and f"{res.ratio.geo_mean_ratio:.3f}" in out
    assert res.ratio.verdict == "b_faster"
    sentence = speed_sentence(res.ratio, a="old", b="new")
    assert sentence in out and "new" in sentence and "old" in sentence
    assert speed_sentence(res.ratio, a="old", b="new", lang="ko") != sentence


def test_speed_headline_reads_b_against_a_and_alternative_sentence_wraps_it():
    from core.views.latency import alternative_sentence, speed_headline

    res = _comparison()
    head = speed_headline(res.ratio, a="old", b="new")
    assert head.startswith("new") and f"{res.ratio.geo_mean_ratio:.2f}" in head
    assert head in speed_sentence(res.ratio, a="old", b="new")
    alt = alternative_sentence(res.ratio, a="old", b="new")
    assert speed_sentence(res.ratio, a="old", b="new") in alt


@pytest.fixture(scope="module")
def demo():
    from pathlib import Path
    path = Path(__file__).resolve().parents[3] / "data" / "demo_latency.csv"
    log = load_timings(path.read_bytes(), path.name)
    return {k: compare_latency(log, "bm25", "hybrid", resamples=2000, quantile_resamples=500,
                               drop_warmup=k) for k in (0, 2)}


def _num(text: str, after: str) -> float:
    import re
    return float(re.search(re.escape(after) + r"\s*([0-9.]+)×", text).group(1))


@pytest.mark.parametrize("drop", [0, 2])
def test_ratios_line_names_the_answer_and_the_other_ratios_issue_37(demo, drop):
    """Issue 37: three ratios on the first screen with nothing saying which is the answer. The
    line names the card's number (the geometric mean of per-query ratios) as the answer and
    labels the ratio of medians and the warm-up reading, each equal to core's number."""
    from core.views.latency import ratios_line
    res = demo[drop]
    r, alt = res.ratio, res.alternative
    assert alt is not None and alt.drop_warmup == (2 if drop == 0 else 0)
    line = ratios_line(res, "en")
    assert line.startswith("The answer: a typical query takes ")
    assert _num(line, "typical query takes") == pytest.approx(r.geo_mean_ratio, abs=0.006)
    assert _num(line, "medians of all timings:") == pytest.approx(r.median_ratio, abs=0.006)
    if drop == 0:
        assert _num(line, "left out (warm-up):") == pytest.approx(alt.geo_mean_ratio, abs=0.006)
        assert "first 2 runs" in line
    else:
        assert _num(line, "(warm-up included):") == pytest.approx(alt.geo_mean_ratio, abs=0.006)
    ko = ratios_line(res, "ko")
    assert ko.startswith("답: 보통의 질의는 ")
    assert _num(ko, "보통의 질의는") == _num(line, "typical query takes")
    assert _num(ko, "중앙값의 비율:") == _num(line, "medians of all timings:")
    # the same strings the card and the tile print
    from core.views.latency import median_ratio_string, ratio_strings
    assert f"takes {ratio_strings(r)[0]}×" in line
    assert f"timings: {median_ratio_string(r)}×" in line
    assert f"{ratio_strings(alt)[0]}×" in line.split("; ")[2]


def test_ratios_line_without_warm_up_has_two_readings():
    from core.views.latency import ratios_line
    res = _comparison()
    assert res.alternative is None
    assert len(ratios_line(res).split("; ")) == 2
# ----------------------------------------------------------------------------- issue 37
def test_ratio_chart_axis_fits_the_ratios_with_a_tick_at_one():
    """The log axis spans the ratios and 1 (not 0.1 to 30 for ratios of 1.1 to 11), with a
    tick labelled 1×."""
    ratios = [1.05, 1.2, 1.3, 1.4, 1.6, 2.4, 11.0]
    y = ratio_chart(ratios).to_dict()["layer"][0]["encoding"]["y"]
    lo, hi = y["scale"]["domain"]
    assert y["scale"]["type"] == "log" and y["scale"]["nice"] is False
    assert lo <= 1.0 and lo > 0.8 and hi >= 11.0 and hi < 13.0
    assert 1.0 in y["axis"]["values"] and all(lo <= v <= hi for v in y["axis"]["values"])
    assert "×" in y["axis"]["labelExpr"]
    # all faster: the axis still shows 1
    y = ratio_chart([0.3, 0.5, 0.6]).to_dict()["layer"][0]["encoding"]["y"]
    assert y["scale"]["domain"][1] >= 1.0 and 1.0 in y["axis"]["values"]


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_caveat_line_names_every_fairness_warning_with_its_numbers(lang):
    """The demo's warm-up in both methods and the cache hits, on the card's one line, with
    the numbers of the warnings themselves."""
    from pathlib import Path
    from core.i18n import t
    from core.views.latency import caveat_line
    demo = Path(__file__).resolve().parents[3] / "data" / "demo_latency.csv"
    res = compare_latency(load_timings(demo.read_bytes(), "demo.csv"), "bm25", "hybrid",
                          resamples=2_000, quantile_resamples=200, seed=0)
    codes = [w.code for w in res.warnings]
    assert codes.count("warmup") == 2 and "cache_column" in codes
    line = caveat_line(res.warnings, lang)
    assert line.startswith(t("latency.caveats", lang, items="").split("{")[0].rstrip(".").rstrip())
    for w in res.warnings:
        assert w.short(lang) in line
    warm = [w for w in res.warnings if w.code == "warmup"]
    for w in warm:
        assert w.params["method"] in line and f"{w.params['slowdown']}" in line
    cache = next(w for w in res.warnings if w.code == "cache_column")
    assert f"{cache.params['share_a']}%" in line and f"{cache.params['share_b']}%" in line
    assert caveat_line([], lang) == ""
