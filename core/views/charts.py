"""Chart builders and helpers shared by the pages and the HTML report (no streamlit here):
the bootstrap histogram and interval chart, wrapped titles that are never cut, and the
presentation view's larger type.

Large distributions are binned first (``bin_distribution``): a chart never carries more than
a few hundred rows, so altair's max-rows limit never triggers.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import unicodedata

import numpy as np
import pandas as pd

from core import checks
from core.views.palette import DARK, HIGHLIGHT, POSITIVE, PRIMARY, REFERENCE

if TYPE_CHECKING:  # altair is imported by the chart builders only: the CLI text needs none
    import altair as alt

TITLE_CHARS = 46     # display columns: a longer chart title line wraps onto the next line
PRESENT_LABEL = 20   # px: axis labels and legend labels in the presentation view
PRESENT_TITLE = 22   # px: axis and legend titles
PRESENT_HEADING = 24  # px: chart titles
PRESENT_PADDING = {"left": 8, "top": 8, "right": 8, "bottom": 8}  # px: large glyphs never clipped
PRESENT_ROW = 30     # px: one row of a category axis in the presentation view (a 20 px label)


def display_width(text: str) -> int:
    """Columns ``text`` takes on screen: East Asian wide and full-width characters (Hangul,
    CJK; Unicode East_Asian_Width W or F, UAX #11) count 2, the rest 1."""
    return sum(2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1 for ch in text)


def wrap_lines(text: str, width: int = TITLE_CHARS) -> list[str]:
    """``text`` split at spaces into lines of at most ``width`` display columns
    (``display_width``: a Korean syllable is two), so a Korean title wraps as early as its
    glyphs are wide; a single longer word stays whole on its own line."""
    checks.whole("width", width, lo=10)
    lines: list[str] = []
    for part in text.split("\n"):
        line = ""
        for word in part.split():
            cand = f"{line} {word}" if line else word
            if line and display_width(cand) > width:
                lines.append(line)
                line = word
            else:
                line = cand
        lines.append(line)
    return [ln for ln in lines if ln] or [""]


def wrap_title(text: str, width: int = TITLE_CHARS) -> alt.TitleParams | str:
    """``text`` as a chart title wrapped onto lines of at most ``width`` display columns
    (``wrap_lines``; Vega never wraps a title, a long one is cut with '…' when it is wider
    than the chart). A line break in ``text`` starts a new line."""
    import altair as alt
    checks.whole("width", width, lo=10)
    if not text:
        return ""
    lines = wrap_lines(text, width)
    return alt.TitleParams(text=lines if len(lines) > 1 else lines[0], anchor="start",
                           limit=0)


def pad(chart: alt.TopLevelMixin, padding: dict | None = None) -> alt.TopLevelMixin:
    """A copy of ``chart`` with room around it (``PRESENT_PADDING`` px): Vega places a rotated
    axis title by an estimate of its glyphs, and at the chart's edge a few pixels were cut.
    Sized ``fit-x``: the chart fills its column's width, and its height is the plot's height
    plus its title, axes and legend. (Streamlit's default, ``fit``, squeezes all of them into
    the plot's height: a two-line or enlarged title was cut at the top and the plot shrank.)"""
    import altair as alt
    checks.instance("chart", chart, alt.TopLevelMixin, "an altair chart")
    return chart.copy(deep=True).properties(
        padding=padding or PRESENT_PADDING,
        autosize=alt.AutoSizeParams(type="fit-x", contains="padding"))


def enlarge(chart: alt.TopLevelMixin, *, height: int | None = None) -> alt.TopLevelMixin:
    """A copy of ``chart`` with presentation-size type: axis and legend labels
    ``PRESENT_LABEL`` px, their titles ``PRESENT_TITLE`` px, the title ``PRESENT_HEADING``;
    ``height`` (px) sets the plot's height, so card and chart share one screen. A category
    axis keeps every label (Streamlit's theme sets ``labelOverlap``, which dropped every
    other model name once the labels grew to 20 px): give such a chart ``PRESENT_ROW`` px
    per category (``present_rows``)."""
    import altair as alt
    checks.instance("chart", chart, alt.TopLevelMixin, "an altair chart")
    if height is not None:
        chart = chart.properties(height=checks.whole("height", height, lo=50))
    return (pad(chart)
            .configure_axis(labelFontSize=PRESENT_LABEL, titleFontSize=PRESENT_TITLE,
                            labelLimit=0, titleLimit=0)
            .configure_axisDiscrete(labelOverlap=False, labelLimit=0, labelFlush=False)
            .configure_legend(labelFontSize=PRESENT_LABEL, titleFontSize=PRESENT_TITLE,
                              labelLimit=0, titleLimit=0)
            .configure_title(fontSize=PRESENT_HEADING, limit=0))


def present_rows(n: int, height: int) -> int:
    """The plot height (px) for ``n`` categories in the presentation view: at least
    ``height``, and ``PRESENT_ROW`` px per category so no two 20 px labels overlap."""
    checks.whole("n", n, lo=0)
    return max(checks.whole("height", height, lo=50), PRESENT_ROW * n)


def keep_labels(**kwargs) -> alt.Axis:
    """An axis for categories that shows every category's label, whole: no overlap removal
    (Streamlit's theme turns it on: half the names vanished), no ellipsis, and no flush
    alignment (the theme's ``labelFlush`` pushed the first and last names off their rows)."""
    import altair as alt
    return alt.Axis(labelOverlap=False, labelLimit=0, labelFlush=False, **kwargs)


TIMES_LABEL = "format(datum.value, '~g') + '×'"   # a ratio's tick label: 0.5×, 1×, 2×
_MANTISSAS = ((1.0,), (1.0, 3.0), (1.0, 2.0, 5.0), (1.0, 1.5, 2.0, 3.0, 5.0, 7.0),
              (1.0, 1.2, 1.4, 1.6, 1.8, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0))


def log_domain(values, *, anchor: float = 1.0, room: float = 1.12) -> tuple[float, float]:
    """A log axis's domain for ``values`` (all > 0): from the smallest to the largest of the
    values and ``anchor`` (the ratio 1: no difference), widened by the factor ``room`` on
    each side. Vega's "nice" domain rounds to whole decades: ratios between 1.1 and 2 sat on
    one line of an axis from 0.1 to 30."""
    x = checks.values("values", values)
    checks.positive("the smallest value", float(x.min()))
    anchor = checks.positive("anchor", anchor)
    room = float(checks.at_least("room", room, 1.0))
    return float(min(x.min(), anchor)) / room, float(max(x.max(), anchor)) * room


def log_ticks(lo: float, hi: float, *, anchor: float = 1.0, most: int = 6) -> list[float]:
    """Tick values for a log axis over [lo, hi]: ``anchor`` (the ratio 1) always, and the
    finest of the steps 1-10-100, 1-3-10, 1-2-5, ... that puts no more than ``most`` ticks
    on the axis (every k-th power of ten over many decades). Below a factor of 3 from end to
    end, evenly spaced ticks through the anchor (``linear_ticks``): a log axis that short
    looks linear."""
    lo, hi = checks.axis_span(lo, hi, log=True)
    anchor = checks.positive("anchor", anchor)
    checks.whole("most", most, lo=3)
    if hi / lo < 3:
        return [x for x in linear_ticks(lo, hi, anchor=anchor, count=most - 1) if x > 0]
    span = range(int(np.floor(np.log10(lo))) - 1, int(np.ceil(np.log10(hi))) + 1)
    best: list[float] = []
    for mantissas in _MANTISSAS:
        ticks = sorted({round(m * 10.0 ** e, 12) for e in span for m in mantissas
                        if lo <= m * 10.0 ** e <= hi})
        if len(ticks) > most:
            break
        best = ticks
    if not best:   # many decades: every k-th power of ten
        powers = [10.0 ** e for e in span if lo <= 10.0 ** e <= hi]
        best = powers[::int(np.ceil(len(powers) / most))]
    if lo <= anchor <= hi and anchor not in best:
        best = sorted([*best, anchor])
    return best


def linear_ticks(lo: float, hi: float, *, anchor: float = 0.0, count: int = 6) -> list[float]:
    """About ``count`` evenly spaced tick values over [lo, hi] that include ``anchor`` (0 for
    a difference, 1 for a ratio) when it lies inside: a step of 1, 2 or 5 times a power of
    ten, counted from the anchor. The axis then always shows where "no difference" is."""
    lo, hi = checks.axis_span(lo, hi)
    anchor = checks.number("anchor", anchor)
    checks.whole("count", count, lo=2)
    raw = (hi - lo) / count
    power = 10.0 ** np.floor(np.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = anchor + np.ceil((lo - anchor) / step) * step
    ticks = [round(float(first + i * step), 10) for i in range(int((hi - first) // step) + 1)]
    return [0.0 if abs(x) < step * 1e-9 else x for x in ticks]


MAX_BINS = 200


def bin_distribution(values, bins: int = 60) -> pd.DataFrame:
    """Histogram of ``values`` as a small frame: ``start``, ``end``, ``count``, ``share``.

    Binary-data bootstrap distributions live on a lattice of k/n; when there are at most
    ``bins`` distinct values, each value gets its own bar centred on it.
    """
    x = np.asarray(values, dtype=float)
    if x.ndim != 1 or x.size == 0:
        raise ValueError("values must be a non-empty one-dimensional array")
    if not 1 <= bins <= MAX_BINS:
        raise ValueError(f"bins must be between 1 and {MAX_BINS}, got {bins}")
    uniq = np.unique(x)
    if uniq.size <= bins:
        step = np.min(np.diff(uniq)) if uniq.size > 1 else 1.0
        counts = np.array([np.count_nonzero(x == u) for u in uniq]) if uniq.size < 50 else \
            np.unique(x, return_counts=True)[1]
        start, end = uniq - step * 0.45, uniq + step * 0.45
    else:
        counts, edges = np.histogram(x, bins=bins)
        start, end = edges[:-1], edges[1:]
    return pd.DataFrame({"start": start, "end": end, "count": counts,
                         "share": counts / x.size})


def _check_scale(scale: float) -> float:
    if scale not in (1, 100):
        raise ValueError(f"scale must be 1 (a score on its own scale) or 100 (a rate in %), "
                         f"got {scale!r}")
    return float(scale)


def bootstrap_histogram(dist, ci_low: float, ci_high: float, *, title: str = "",
                        x_title: str = "B − A (%p)", y_title: str = "resamples",
                        bins: int = 60, scale: float = 100,
                        margin: float | None = None) -> alt.LayerChart:
    """Histogram of a bootstrap distribution with the CI band and 0 marked; values are
    multiplied by ``scale`` (100: rates in %p; 1: scores on their own scale, see
    ``core.views.format``). With a ``margin`` delta (``core.paired.margin``, on the difference's
    scale) the band [-delta, +delta] is shaded and -delta drawn as a solid line."""
    import altair as alt
    scale = _check_scale(scale)
    fmt = ".1f" if scale == 100 else ".3f"
    h = bin_distribution(dist, bins)
    h[["start", "end"]] *= scale
    band = pd.DataFrame({"lo": [scale * ci_low], "hi": [scale * ci_high]})
    zero = pd.DataFrame({"x": [0.0]})
    base_x = alt.X("start:Q", title=x_title)
    bars = alt.Chart(h).mark_rect(color=PRIMARY).encode(
        x=base_x, x2="end:Q", y=alt.Y("count:Q", title=y_title),
        tooltip=[alt.Tooltip("start:Q", format=fmt), alt.Tooltip("end:Q", format=fmt),
                 "count:Q"])
    ci = alt.Chart(band).mark_rect(opacity=0.15, color=HIGHLIGHT).encode(x="lo:Q", x2="hi:Q")
    rule = alt.Chart(zero).mark_rule(color=REFERENCE, strokeWidth=2, strokeDash=[4, 3]) \
        .encode(x="x:Q")
    layers = [ci, bars, rule]
    if margin is not None:
        margin = scale * checks.number("margin", margin)
        zone = pd.DataFrame({"lo": [-margin], "hi": [margin]})
        layers.insert(0, alt.Chart(zone).mark_rect(opacity=0.18, color=POSITIVE)
                      .encode(x="lo:Q", x2="hi:Q"))
        layers.append(alt.Chart(pd.DataFrame({"x": [-margin]}))
                      .mark_rule(color=POSITIVE, strokeWidth=3).encode(x="x:Q"))
    return alt.layer(*layers).properties(title=wrap_title(title), height=260)


def interval_chart(rows: pd.DataFrame, *, x_title: str = "rate (%)",
                   title: str = "", scale: float = 100) -> alt.LayerChart:
    """Point + interval per row; ``rows`` has ``name``, ``mean``, ``ci_low``, ``ci_high``
    (shares in [0, 1] with ``scale=100``, shown in %; scores with ``scale=1``)."""
    import altair as alt
    scale = _check_scale(scale)
    fmt = ".1f" if scale == 100 else ".3f"
    df = rows.copy()
    for col in ("mean", "ci_low", "ci_high"):
        df[col] = scale * df[col]
    y = alt.Y("name:N", title=None, sort=None, axis=keep_labels())
    bars = alt.Chart(df).mark_rule(strokeWidth=3, color=PRIMARY).encode(
        x=alt.X("ci_low:Q", title=x_title, scale=alt.Scale(zero=False)), x2="ci_high:Q", y=y)
    dots = alt.Chart(df).mark_point(filled=True, size=120, color=DARK).encode(
        x="mean:Q", y=y, tooltip=["name:N", alt.Tooltip("mean:Q", format=fmt),
                                  alt.Tooltip("ci_low:Q", format=fmt),
                                  alt.Tooltip("ci_high:Q", format=fmt)])
    return alt.layer(bars, dots).properties(title=wrap_title(title), height=alt.Step(44))
