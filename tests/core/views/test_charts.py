"""core.views.charts: binned distributions (never raw points), wrapped titles, the
presentation view's type sizes and the two shared chart builders."""
import altair as alt
import numpy as np
import pandas as pd
import pytest

from core.views.charts import (MAX_BINS, PRESENT_HEADING, PRESENT_LABEL, PRESENT_PADDING,
                               PRESENT_TITLE, TITLE_CHARS, bin_distribution,
                               bootstrap_histogram, display_width, enlarge, interval_chart, pad,
                               wrap_lines, wrap_title)
from core.i18n import LANGS, catalog


def _data(chart) -> list[list[dict]]:
    return list(chart.to_dict()["datasets"].values())


def test_bin_distribution_histogram_sums_to_the_values():
    x = np.random.default_rng(0).normal(size=20_000)
    h = bin_distribution(x, bins=60)
    assert list(h.columns) == ["start", "end", "count", "share"] and len(h) == 60
    assert h["count"].sum() == 20_000 and h["share"].sum() == pytest.approx(1.0)
    assert (h["end"] > h["start"]).all()


def test_bin_distribution_one_bar_per_lattice_value():
    x = np.repeat([-0.1, 0.0, 0.05, 0.1], [1, 5, 3, 2])
    h = bin_distribution(x, bins=60)
    assert len(h) == 4 and h["count"].tolist() == [1, 5, 3, 2]
    centres = (h["start"] + h["end"]) / 2
    assert np.allclose(centres, [-0.1, 0.0, 0.05, 0.1])


@pytest.mark.parametrize("values,bins", [([], 10), ([[1.0]], 10), ([1.0], 0),
                                         ([1.0], MAX_BINS + 1)])
def test_bin_distribution_checks_its_arguments(values, bins):
    with pytest.raises(ValueError):
        bin_distribution(values, bins)


def test_wrap_title_wraps_long_titles_and_never_cuts():
    short = wrap_title("short")
    assert short.text == "short" and short.limit == 0
    long = wrap_title("word " * 30)
    assert isinstance(long.text, list) and all(len(t) <= TITLE_CHARS for t in long.text)
    assert " ".join(long.text) == ("word " * 30).strip()
    assert wrap_title("") == ""
    with pytest.raises(ValueError, match="width"):
        wrap_title("x", width=3)


def test_pad_and_enlarge_copy_the_chart_with_presentation_sizes():
    base = alt.Chart(pd.DataFrame({"x": [1]})).mark_point().encode(x="x:Q")
    padded = pad(base)
    assert padded.to_dict()["padding"] == PRESENT_PADDING and "padding" not in base.to_dict()
    big = enlarge(base).to_dict()["config"]
    assert big["axis"]["labelFontSize"] == PRESENT_LABEL
    assert big["axis"]["titleFontSize"] == PRESENT_TITLE
    assert big["legend"]["labelFontSize"] == PRESENT_LABEL
    assert big["title"]["fontSize"] == PRESENT_HEADING
    with pytest.raises(ValueError, match="chart"):
        enlarge("not a chart")
    # sized fit-x: the height holds title and axes on top of the plot (Streamlit's "fit"
    # squeezed them into the plot's height and cut a two-line title at the top)
    assert padded.to_dict()["autosize"] == {"type": "fit-x", "contains": "padding"}
    assert enlarge(base, height=160).to_dict()["height"] == 160
    with pytest.raises(ValueError, match="height"):
        enlarge(base, height=10)


def test_bootstrap_histogram_is_binned_scaled_and_marks_ci_and_zero():
    dist = np.random.default_rng(1).normal(0.05, 0.02, 5000)
    chart = bootstrap_histogram(dist, 0.01, 0.09, title="t", scale=100)
    data = _data(chart)
    assert max(len(d) for d in data) <= 60  # never 5,000 raw points
    band = next(d for d in data if d and "lo" in d[0])
    assert band == [{"lo": pytest.approx(1.0), "hi": pytest.approx(9.0)}]
    assert any(d == [{"x": 0.0}] for d in data)
    with pytest.raises(ValueError, match="scale"):
        bootstrap_histogram(dist, 0, 1, scale=10)


def test_interval_chart_scales_every_column():
    rows = pd.DataFrame({"name": ["A", "B"], "mean": [0.5, 0.7], "ci_low": [0.4, 0.6],
                         "ci_high": [0.6, 0.8]})
    data = _data(interval_chart(rows, scale=100))[0]
    assert [(r["name"], r["mean"], r["ci_low"]) for r in data] == \
        [("A", 50.0, 40.0), ("B", 70.0, 60.0)]
    assert rows["mean"].tolist() == [0.5, 0.7]  # input untouched
    scores = _data(interval_chart(rows, scale=1))[0]
    assert scores[1]["ci_high"] == 0.8


def test_display_width_counts_wide_characters_twice():
    assert display_width("abc") == 3
    assert display_width("지연 시간") == 9  # 4 syllables × 2 + a space
    assert display_width("ＡＢ") == 4      # full-width Latin


def test_lines_stay_within_the_width_and_keep_every_word():
    text = "질의별 비율 hybrid/bm25 (정렬됨, 로그 축): 1 아래면 hybrid가 더 빠릅니다"
    lines = wrap_lines(text, 30)
    assert all(display_width(x) <= 30 for x in lines) and len(lines) > 1
    assert " ".join(lines) == text
    assert wrap_lines("a" * 60, 20) == ["a" * 60]  # one long word keeps its own line


def test_every_chart_title_template_fits_when_wrapped():
    """Every chart title in both languages, wrapped, has no line wider than TITLE_CHARS
    columns unless a single word is (so no title runs past a half-width chart)."""
    for lang in LANGS:
        for key, text in catalog(lang).items():
            if not (key.split(".")[1].startswith("chart") or "chart_title" in key
                    or key.endswith("_chart")):
                continue
            title = wrap_title(text)
            lines = title.text if isinstance(title.text, list) else [title.text]
            for line in lines:
                assert display_width(line) <= TITLE_CHARS or " " not in line, (lang, key, line)


def test_korean_titles_wrap_sooner_than_english():
    ko = "케이스가 늘면 차이를 찾아낼 확률 (A vs B, 맞음/틀림)"
    assert len(wrap_lines(ko)) == 2 and len(wrap_lines("x" * 40 + " y")) == 1


def test_bootstrap_histogram_shades_the_margin():
    dist = np.random.default_rng(0).normal(0.01, 0.02, 500)
    plain = bootstrap_histogram(dist, -0.02, 0.04, scale=100).to_dict()
    with_margin = bootstrap_histogram(dist, -0.02, 0.04, scale=100, margin=0.03).to_dict()
    assert len(with_margin["layer"]) == len(plain["layer"]) + 2
    datasets = with_margin["datasets"].values()
    assert any(rows == [{"lo": -3.0, "hi": 3.0}] for rows in datasets)
    assert any(rows == [{"x": -3.0}] for rows in datasets)
    with pytest.raises(ValueError, match="margin"):
        bootstrap_histogram(dist, -0.02, 0.04, margin="0.03")


# ----------------------------------------------------------------------------- issue 37: labels and axes
def _axis_of(spec: dict, channel: str) -> dict:
    """The axis properties of ``channel`` in a (layered) chart spec, from the first layer
    that sets any."""
    for layer in [spec, *spec.get("layer", [])]:
        axis = layer.get("encoding", {}).get(channel, {}).get("axis")
        if axis:
            return axis
    raise AssertionError(f"no axis for {channel}")


def test_category_axes_keep_every_label_in_the_presentation_view():
    from core.views.charts import PRESENT_ROW, enlarge, interval_chart, present_rows
    names = ["llm_narrative", "llm_basic", "crowd", "keyword_heuristic"]
    rows = pd.DataFrame({"name": names, "mean": [0.65, 0.64, 0.62, 0.49],
                         "ci_low": [0.58, 0.57, 0.54, 0.41], "ci_high": [0.72, 0.70, 0.69, 0.57]})
    chart = interval_chart(rows, scale=1)
    spec = chart.to_dict()
    axis = _axis_of(spec, "y")
    # Streamlit's theme turns labelOverlap on for every axis: set off here, per axis
    assert axis["labelOverlap"] is False and axis["labelLimit"] == 0
    assert axis["labelFlush"] is False
    shown = {r["name"] for d in spec["datasets"].values() for r in d}
    assert shown == set(names)   # every category is in the data the chart draws
    big = enlarge(chart, height=present_rows(len(names), 130)).to_dict()
    assert big["config"]["axisDiscrete"]["labelOverlap"] is False
    # each category gets PRESENT_ROW px, more than the 20 px of its label
    assert present_rows(6, 130) == 6 * PRESENT_ROW > 130 and present_rows(2, 130) == 130
    assert PRESENT_ROW > 20
    with pytest.raises(ValueError):
        present_rows(-1, 130)


def test_log_domain_spans_the_data_and_one_not_whole_decades():
    from core.views.charts import log_domain
    lo, hi = log_domain([1.1, 1.3, 1.8, 11.0])
    assert lo == pytest.approx(1 / 1.12) and hi == pytest.approx(11 * 1.12)
    lo, hi = log_domain([0.5, 0.7])    # all faster: the axis still reaches 1
    assert lo == pytest.approx(0.5 / 1.12) and hi == pytest.approx(1.12)
    for bad in ([], [0.0, 1.0], [-1.0], [np.nan]):
        with pytest.raises(ValueError):
            log_domain(bad)


@pytest.mark.parametrize("lo, hi", [(0.8, 1.2), (0.9, 13.0), (0.45, 1.7), (0.01, 100.0),
                                    (1e-6, 1e6), (0.2, 0.35), (1.5, 40.0)])
def test_log_ticks_hold_one_and_stay_inside_the_axis(lo, hi):
    from core.views.charts import log_ticks
    ticks = log_ticks(lo, hi)
    assert all(lo <= x <= hi for x in ticks) and ticks == sorted(set(ticks))
    assert 2 <= len(ticks) <= 7, ticks
    if lo <= 1 <= hi:
        assert 1.0 in ticks


@pytest.mark.parametrize("lo, hi, anchor", [(-3.2, 3.5, 0.0), (-2.9, -0.4, 0.0),
                                            (0.62, 1.2, 1.0), (-0.05, 0.05, 0.0),
                                            (-270.0, 40.0, 0.0)])
def test_linear_ticks_go_through_the_anchor(lo, hi, anchor):
    from core.views.charts import linear_ticks
    ticks = linear_ticks(lo, hi, anchor=anchor)
    assert all(lo <= x <= hi for x in ticks) and len(ticks) >= 2
    steps = np.diff(ticks)
    assert np.allclose(steps, steps[0])   # evenly spaced
    if lo <= anchor <= hi:
        assert anchor in ticks
    else:   # the anchor lies on the same grid, outside the axis
        assert (ticks[0] - anchor) / steps[0] == pytest.approx(round((ticks[0] - anchor) / steps[0]))
    with pytest.raises(ValueError):
        linear_ticks(1.0, 1.0)
