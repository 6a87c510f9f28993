"""How the sequential mode reads (issue 33): the CLI's lines for a confidence sequence
(``core.paired.sequential.SequentialComparison``), the order the cases were read in
(``core.inputs.arrival.Arrival``) and the one line on what peeking would have cost a fixed-n
verdict. Nothing is computed here; user names stay plain text (pages escape them)."""
from __future__ import annotations

from core.i18n import t
from core.views import format as fmt
from core.views.charts import wrap_title
from core.views.palette import DARK, MUTED, REFERENCE

VERDICT_KEYS = {"b_better": "sequential.cli_verdict_b_better",
                "a_better": "sequential.cli_verdict_a_better",
                "no_difference": "sequential.cli_verdict_no_difference"}
FIXED_KEYS = {"tango": "sequential.fixed_tango", "t": "sequential.fixed_t"}
QUALITY_KEYS = {"holds": "sequential.cli_quality_holds",
                "unsure": "sequential.cli_quality_unsure",
                "fails": "sequential.cli_quality_fails"}


def order_text(arrival, lang: str = "en", *, queries: bool = False) -> str:
    """'in file order', "in the order of column 'date'" or (``queries``: a BEIR collection)
    'in the order the queries were compared'."""
    if queries:
        return t("sequential.order_queries", lang)
    if arrival is None or arrival.column is None:
        return t("sequential.order_file", lang)
    return t("sequential.order_column", lang, column=arrival.column)


def unsorted_note(arrival, lang: str = "en") -> str | None:
    """The note naming the rows above an earlier date, or None."""
    if arrival is None or not arrival.unsorted_rows:
        return None
    rows = list(arrival.unsorted_rows)
    shown = ", ".join(str(r) for r in rows[:10]) + (f" (+{len(rows) - 10})" if len(rows) > 10
                                                      else "")
    return t("sequential.note_unsorted", lang, count=len(rows), column=arrival.column,
             rows=shown)


def peeking_line(seq, lang: str = "en") -> str | None:
    """What peeking would have cost a fixed-n verdict at the history's looks, or None."""
    cost = seq.peeking
    if cost is None:
        return None
    key = "sequential.cli_peeking" if seq.step == 1 else "sequential.cli_peeking_step"
    return t(key, lang, looks=cost.looks, first=seq.history[0].n, n=seq.n, step=seq.step,
             rate=fmt.pct(cost.rate), sets=f"{cost.sets:,}", se=fmt.pct(cost.mc_se))


def quality_line(cond, kind: str, margin: float, lang: str = "en") -> str:
    """``decide --sequential``: the quality condition read off the sequence (``cond``, a
    ``core.switch.Condition``), in one line."""
    return t(QUALITY_KEYS[cond.state], lang, bound=fmt.diff(cond.bound, kind),
             margin=fmt.margin(margin, kind))


def sequential_lines(seq, a: str, b: str, arrival=None, lang: str = "en", *,
                     queries: bool = False) -> list[str]:
    """The sequential block of the CLI text: the order (``order_text``), each method's
    sequence, B − A's with the e-process's anytime p, the verdict and the peeking line."""
    kind = fmt.kind_of(seq.binary)
    level = fmt.level(seq.confidence)
    last = seq.last
    lines = [t("sequential.cli_head", lang, n=seq.n, order=order_text(arrival, lang, queries=queries))]
    note = unsorted_note(arrival, lang)
    if note:
        lines.append("  " + note)
    if seq.looks_sorted:
        lines.append(t("sequential.cli_sorted", lang, p=fmt.fmt_p(seq.order_p)))
    for name, est in ((a, seq.a), (b, seq.b)):
        lines.append(t("sequential.cli_method", lang, name=name, value=fmt.value(est.mean, kind),
                       level=level, lo=fmt.value(est.ci_low, kind),
                       hi=fmt.value(est.ci_high, kind)))
    lines.append(t("sequential.cli_diff", lang, a=a, b=b, diff=fmt.diff(last.b_minus_a, kind),
                   level=level, lo=fmt.diff(last.ci_low, kind), hi=fmt.diff(last.ci_high, kind),
                   p=fmt.p_text(last.p)))
    lines.append(t(VERDICT_KEYS[last.verdict], lang, a=a, b=b))
    peek = peeking_line(seq, lang)
    if peek:
        lines.append(peek)
    return lines


def plan_line(plan: dict, lang: str = "en") -> str:
    """The planner's sequential answer (``SequentialPlan.to_dict``) in one line."""
    n_power = (f"{plan['n_power']:,}" if plan["n_power"] is not None
               else t("sequential.plan_beyond", lang, max_n=f"{plan['max_n']:,}"))
    return t("sequential.plan_line", lang, expected=f"{plan['expected_n']:,.0f}",
             median="n/a" if plan["median_n"] is None else f"{plan['median_n']:,}",
             power=fmt.pct(plan["power"], 0), n_power=n_power, sets=f"{plan['sets']:,}")


def sequence_frame(seq):
    """The chart's data: one row per look with the sequence's and the fixed-n interval's ends,
    on the display scale (%p for rates)."""
    import pandas as pd   # lazy: only the page and the report draw the chart
    k = fmt.scale(fmt.kind_of(seq.binary))
    rows = [{"n": look.n, "seq_low": k * look.ci_low, "seq_high": k * look.ci_high,
             "fixed_low": k * lo, "fixed_high": k * hi, "b_minus_a": k * look.b_minus_a}
            for look, (lo, hi) in zip(seq.history, seq.fixed)]
    return pd.DataFrame(rows)


def sequence_chart(seq, lang: str = "en"):
    """The sequence narrowing as cases arrive (a band), the fixed-n interval at each look
    beside it (two thin lines), B − A (a line) and 0 (a rule)."""
    import altair as alt   # lazy: only the page and the report draw the chart
    kind = fmt.kind_of(seq.binary)
    df = sequence_frame(seq)
    unit = fmt.axis_unit(kind, difference=True)
    x = alt.X("n:Q", title=t("sequential.chart_x", lang))
    y_title = t("sequential.chart_y", lang) + unit
    band = alt.Chart(df).mark_area(opacity=0.25, color=DARK).encode(
        x=x, y=alt.Y("seq_low:Q", title=y_title), y2="seq_high:Q",
        tooltip=[alt.Tooltip("n:Q"), alt.Tooltip("seq_low:Q", format=fmt.tooltip_format(kind)),
                 alt.Tooltip("seq_high:Q", format=fmt.tooltip_format(kind))])
    fixed = [alt.Chart(df).mark_line(color=MUTED, strokeDash=[4, 3]).encode(
        x=x, y=alt.Y(f"{col}:Q", title=y_title)) for col in ("fixed_low", "fixed_high")]
    mean = alt.Chart(df).mark_line(color=DARK).encode(x=x, y=alt.Y("b_minus_a:Q", title=y_title))
    zero = alt.Chart(_pd_zero()).mark_rule(color=REFERENCE).encode(y="y:Q")
    title = t("sequential.chart_title", lang, fixed=t(FIXED_KEYS[seq.fixed_name], lang))
    return alt.layer(band, *fixed, mean, zero).properties(title=wrap_title(title), height=260)


def _pd_zero():
    """A one-row frame at y = 0 (the no-difference rule)."""
    import pandas as pd   # lazy: only the page and the report draw the chart
    return pd.DataFrame({"y": [0.0]})


def sequential_section(seq, a: str, b: str, lang: str = "en", arrival=None, *,
                       queries: bool = False, extra: str | None = None):
    """The report's section for the sequential mode: the same lines as the page and the CLI
    (``sequential_lines``, plus ``extra``, e.g. the Switch? quality line) and the chart."""
    from core.views.report import Section   # lazy: only reports need it
    lines = [line.strip() for line in sequential_lines(seq, a, b, arrival, lang,
                                                       queries=queries)]
    if extra:
        lines.append(extra.strip())
    return Section(t("sequential.toggle", lang), "\n".join(lines),
                   chart=sequence_chart(seq, lang))
