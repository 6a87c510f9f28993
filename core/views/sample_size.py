"""What the sample-size page and ``python -m core sample-size`` show (``core.planning.sample_size``):
the half-width chart and the CLI text."""
from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from core.views.charts import wrap_title
from core.views.palette import HIGHLIGHT, POSITIVE, PRIMARY, REFERENCE

if TYPE_CHECKING:  # altair is imported by the chart builders only: the CLI text needs none
    import altair as alt


def _against_n(df: pd.DataFrame, y: str, y_axis: alt.Y, y_format: str, *, target_y: float,
               current_n: int | None, planned_n: int, title: str, x_title: str,
               target_label: str, current_label: str, planned_label: str) -> alt.LayerChart:
    """One planner chart: column ``y`` of ``df`` against n on a log axis, the target
    (horizontal rule at ``target_y``), the planned n and the current golden-set size
    (vertical rules, labelled)."""
    import altair as alt
    x = alt.X("n:Q", title=x_title, scale=alt.Scale(type="log"))
    line = alt.Chart(df).mark_line(color=PRIMARY, strokeWidth=2).encode(
        x=x, y=y_axis,
        tooltip=[alt.Tooltip("n:Q", format=","), alt.Tooltip(f"{y}:Q", format=y_format)])
    target_df = pd.DataFrame({"y": [target_y], "label": [target_label]})
    rule_t = alt.Chart(target_df).mark_rule(color=REFERENCE, strokeDash=[4, 3]).encode(
        y="y:Q", tooltip=["label:N", alt.Tooltip("y:Q", format=y_format)])
    marks = [(planned_n, planned_label, POSITIVE)]
    if current_n is not None:
        marks.append((current_n, current_label, HIGHLIGHT))
    vdf = pd.DataFrame({"n": [m[0] for m in marks], "label": [m[1] for m in marks],
                        "color": [m[2] for m in marks]})
    rules = alt.Chart(vdf).mark_rule(strokeWidth=2).encode(
        x="n:Q", color=alt.Color("color:N", scale=None), tooltip=["label:N", "n:Q"])
    text = alt.Chart(vdf).mark_text(align="left", dx=4, dy=-6, baseline="bottom").encode(
        x="n:Q", y=alt.value(12), text="label:N", color=alt.Color("color:N", scale=None))
    return alt.layer(line, rule_t, rules, text).properties(title=wrap_title(title), height=300)


def half_width_chart(curve: pd.DataFrame, *, target: float, current_n: int | None,
                     planned_n: int, title: str = "", x_title: str = "cases (n, log scale)",
                     y_title: str = "half-width (%p)", target_label: str = "target",
                     current_label: str = "current", planned_label: str = "planned"
                     ) -> alt.LayerChart:
    """Half-width (in %p) against n on a log axis, with the target (horizontal), the planned n
    and the current golden-set size (vertical) marked."""
    import altair as alt
    return _against_n(curve.assign(hw=100 * curve["half_width"]), "hw",
                      alt.Y("hw:Q", title=y_title), ".2f", target_y=100 * target,
                      current_n=current_n, planned_n=planned_n, title=title, x_title=x_title,
                      target_label=target_label, current_label=current_label,
                      planned_label=planned_label)


def power_chart(curve: pd.DataFrame, *, target: float, current_n: int | None,
                planned_n: int, title: str = "", x_title: str = "cases (n, log scale)",
                y_title: str = "power (%)", target_label: str = "target power",
                current_label: str = "current", planned_label: str = "planned"
                ) -> alt.LayerChart:
    """Power (in %) against n on a log axis (``core.planning.sample_size.power_curve``), with the
    target power (horizontal), the planned n and the current golden-set size (vertical)."""
    import altair as alt
    return _against_n(curve.assign(pct=100 * curve["power"]), "pct",
                      alt.Y("pct:Q", title=y_title, scale=alt.Scale(domain=[0, 100])), ".0f",
                      target_y=100 * target, current_n=current_n, planned_n=planned_n,
                      title=title, x_title=x_title, target_label=target_label,
                      current_label=current_label, planned_label=planned_label)


LABELS = {"n_wilson": "one rate, Wilson interval (search over n)",
          "n_normal": "one rate, normal approximation z^2 p(1-p)/E^2",
          "n_paired_ci": "paired binary, CI of B - A",
          "n_paired_power": "paired binary, McNemar test power (Connor 1987)",
          "n_continuous_ci": "continuous, t interval (Sakai 2016)",
          "n_continuous_calibrated_ci": "continuous, calibrated t interval (the verdict's; "
                                        "normal-shaped differences assumed)",
          "n_continuous_power": "continuous, paired t-test power",
          "n_paired_noninferiority": "paired binary, non-inferiority at the margin "
                                     "(Tango score test, Nam 1997; up to 200 cases "
                                     "the exact test's exact power)",
          "n_continuous_noninferiority": "continuous, non-inferiority at the margin "
                                         "(one-sided paired t)"}


def plan_text(result: dict) -> str:
    """The ``sample-size`` command's readable output: the inputs, then one line per n."""
    shown = {k: v for k, v in result["inputs"].items() if v is not None}
    lines = ["inputs: " + ", ".join(f"{k}={v:g}" for k, v in shown.items())]
    for key, label in LABELS.items():
        if key in result:
            lines.append(f"  {key:<27} {result[key]:>12,}  {label}")
    return "\n".join(lines)
