"""Chart presentation helpers: wrapped titles that are never cut, and the presentation
view's larger type. The builders themselves live in ``core.charts`` (and move here later)."""
from __future__ import annotations

import textwrap

import altair as alt

TITLE_CHARS = 46     # a chart title line longer than this is wrapped onto the next line
PRESENT_LABEL = 20   # px: axis labels and legend labels in the presentation view
PRESENT_TITLE = 22   # px: axis and legend titles
PRESENT_HEADING = 24  # px: chart titles
PRESENT_PADDING = {"left": 8, "top": 8, "right": 8, "bottom": 8}  # px: large glyphs never clipped


def wrap_title(text: str, width: int = TITLE_CHARS) -> alt.TitleParams | str:
    """``text`` as a chart title wrapped onto lines of at most ``width`` characters (Vega
    never wraps a title; a long one is cut with '…' when it is wider than the chart)."""
    if not isinstance(width, int) or width < 10:
        raise ValueError(f"width must be an int ≥ 10, got {width!r}")
    if not text:
        return ""
    lines = textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False)
    return alt.TitleParams(text=lines if len(lines) > 1 else text, anchor="start",
                           limit=0)


def pad(chart: alt.TopLevelMixin, padding: dict | None = None) -> alt.TopLevelMixin:
    """A copy of ``chart`` with room around it (``PRESENT_PADDING`` px): Vega places a rotated
    axis title by an estimate of its glyphs, and at the chart's edge a few pixels were cut."""
    if not isinstance(chart, alt.TopLevelMixin):
        raise ValueError(f"chart must be an altair chart, got {type(chart).__name__}")
    return chart.copy(deep=True).properties(padding=padding or PRESENT_PADDING)


def enlarge(chart: alt.TopLevelMixin) -> alt.TopLevelMixin:
    """A copy of ``chart`` with presentation-size type: axis and legend labels
    ``PRESENT_LABEL`` px, their titles ``PRESENT_TITLE`` px, the title ``PRESENT_HEADING``."""
    if not isinstance(chart, alt.TopLevelMixin):
        raise ValueError(f"chart must be an altair chart, got {type(chart).__name__}")
    return (pad(chart)
            .configure_axis(labelFontSize=PRESENT_LABEL, titleFontSize=PRESENT_TITLE,
                            labelLimit=0, titleLimit=0)
            .configure_legend(labelFontSize=PRESENT_LABEL, titleFontSize=PRESENT_TITLE,
                              labelLimit=0, titleLimit=0)
            .configure_title(fontSize=PRESENT_HEADING, limit=0))
