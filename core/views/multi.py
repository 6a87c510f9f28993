"""Charts of several systems compared pairwise (``core.paired.multi``)."""
from __future__ import annotations

import altair as alt
import numpy as np

from core.paired import ManyComparison
from core.views.charts import wrap_title
from core.views.format import signed


def matrix_chart(mc: ManyComparison, *, title: str = "", legend: str = "row − column",
                 digits: int = 3) -> alt.LayerChart:
    """Heatmap: colour = mean(row - column) on a diverging scale centred at 0; text = the
    difference, with ``*`` where significant after the chosen adjustment (Holm or BH)."""
    df = mc.matrix()
    df["label"] = [f"{signed(d, digits)}{' *' if s else ''}" for d, s in
                   zip(df["diff"], df["significant"])]
    lim = float(np.max(np.abs(df["diff"]))) if len(df) else 1.0
    lim = lim or 1.0
    df["dark"] = np.abs(df["diff"]) > 0.55 * lim  # white text on the deepest colours
    order = list(mc.systems)
    x = alt.X("col:N", sort=order, title=None, axis=alt.Axis(labelAngle=0, orient="top"))
    y = alt.Y("row:N", sort=order, title=None)
    rect = alt.Chart(df).mark_rect().encode(
        x=x, y=y,
        color=alt.Color("diff:Q", title=legend,
                        scale=alt.Scale(scheme="redblue", domain=[-lim, lim], domainMid=0),
                        # below the grid: a side legend's lowest label was clipped
                        legend=alt.Legend(orient="bottom", direction="horizontal",
                                          gradientLength=220, titleLimit=0)),
        tooltip=["row:N", "col:N", alt.Tooltip("diff:Q", format=f"+.{digits}f"),
                 alt.Tooltip("p_adjusted:Q", format=".4f"), "significant:N"])
    text = alt.Chart(df).mark_text(fontSize=12).encode(
        x=x, y=y, text="label:N",
        color=alt.condition(alt.datum.dark, alt.value("white"), alt.value("black")))
    # a band per row (alt.Step): a fixed total height was shared with the title, the top axis
    # and the legend, and at 3 systems every row came out 0 px high with the labels stacked
    return alt.layer(rect, text).properties(title=wrap_title(title), height=alt.Step(56))
