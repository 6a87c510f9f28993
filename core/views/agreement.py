"""What the agreement page and ``python -m core agreement`` show (``core.agreement.levels``): the
query-ordering scatter and the CLI text."""
from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from core.views.cheap import cheap_pair_lines, conclusion_lines
from core.views.format import level as fmt_level, pct
from core.views.palette import PRIMARY, REFERENCE

if TYPE_CHECKING:  # altair is imported by the chart builders only: the CLI text needs none
    import altair as alt


def query_scatter(scores: pd.DataFrame, *, x_title: str, y_title: str,
                  title: str = "") -> alt.LayerChart:
    """One point per query: its metric under gold labels (x) and under the other source's
    labels (y), with the diagonal y = x (points on it: both label sets agree on that query).
    ``scores`` is a ``QueryOrdering.scores`` frame (index query_id; columns gold, other)."""
    import altair as alt
    pts = scores.reset_index()
    dots = alt.Chart(pts).mark_circle(size=70, opacity=0.7, color=PRIMARY).encode(
        x=alt.X("gold:Q", title=x_title, scale=alt.Scale(domain=[0, 1])),
        y=alt.Y("other:Q", title=y_title, scale=alt.Scale(domain=[0, 1])),
        tooltip=["query_id:N", alt.Tooltip("gold:Q", format=".3f"),
                 alt.Tooltip("other:Q", format=".3f")])
    diag = alt.Chart(pd.DataFrame({"x": [0, 1], "y": [0, 1]})).mark_line(
        color=REFERENCE, strokeDash=[4, 3]).encode(x="x:Q", y="y:Q")
    return alt.layer(diag, dots).properties(title=title, height=320)


def _ci(lo, hi) -> str:
    return f"[{lo:.3f}, {hi:.3f}]"


def text(report) -> str:
    """Readable summary (the default output)."""
    d = report.to_dict()
    level = fmt_level(d["confidence"])
    enc = " (read as CP949/EUC-KR)" if d.get("encoding") == "cp949" else ""
    lines = [f"{d['file']}{enc}: '{d['source']}' vs '{d['gold']}' on {d['n_pairs']} pairs, "
             f"{d['n_queries']} queries ({d['n_excluded']} pairs left out: a blank label)",
             f"  1. kappa (binary) {d['kappa_binary']:.3f} {level} CI "
             f"{_ci(*d['kappa_binary_ci'])}; kappa (0/1/2) {d['kappa']:.3f} "
             f"{_ci(*d['kappa_ci'])}; weighted kappa ({d['weights']}) {d['weighted_kappa']:.3f} "
             f"{_ci(*d['weighted_kappa_ci'])}; MAE {d['mae']:.3f} {_ci(*d['mae_ci'])}",
             f"  2. pairwise accuracy {pct(d['pairwise_accuracy'])} over "
             f"{d['n_preference_pairs']:,} pairs {_ci(*d['pairwise_accuracy_ci'])}"]
    if d["query_run"]:
        q = report.query()
        lines.append(f"  3. query ordering ({d['measure']}, run {q.run}): RBO "
                     f"{q.rbo.ext:.3f} (RBO_ext, p={q.rbo.p}; rescaled prefix "
                     f"{q.rbo.normalized:.3f}), Kendall tau {q.tau:.3f}")
    if d["system_ordering"]:
        s = d["system_ordering"]
        lines.append(f"  4. system ordering: RBO {s['rbo']:.3f} (RBO_ext, p={s['rbo_p']}; "
                     f"rescaled prefix {s['rbo_prefix']:.3f}), Kendall tau "
                     f"{s['tau']:.3f}; top {len(s['top_gold'])} gold {s['top_gold']} vs "
                     f"{s['top_other']} ({'same' if s['top_same_order'] else 'different'})")
    if report.conclusions is not None:
        lines.extend("  " + line for line in conclusion_lines(report.conclusions))
    if report.cheap is not None:
        lines.extend("  " + line for line in cheap_pair_lines(report.cheap))
    for c in d["runs"]:
        lines.append(f"  run {c['run']}: {c['unlabelled']} of {c['retrieved']} retrieved "
                     "documents have no label (counted as not relevant)")
    lines.append("  sources by binary kappa: " + "; ".join(
        f"{r['source']} {r['kappa_binary']:.3f} {_ci(*r['kappa_binary_ci'])}"
        for r in d["sources"]))
    if d["split_half"]:
        h = d["split_half"]
        lines.append(f"  split-half: the best source on one half beat '{h['baseline']}' on the "
                     f"other half in {h['wins']} of {h['splits']} splits "
                     f"({pct(h['win_rate'])}); '{h['baseline']}' itself was best "
                     f"{h['baseline_best']} times")
    return "\n".join(lines)
