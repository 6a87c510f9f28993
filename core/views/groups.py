"""How per-group results (``core.inputs.groups``) and missing labels (``core.inputs.judged``) read: the
translated tables, the sentences' parameters, a forest chart of B − A per group, and the
CLI's lines. Nothing is computed here; user names stay plain text (pages escape them)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from core.i18n import t
from core.inputs import GroupComparison, JudgedBounds
from core.views import format as fmt
from core.views.palette import DARK, PRIMARY, REFERENCE

if TYPE_CHECKING:  # pandas and altair are imported by the tables and the chart: the CLI's
    import altair as alt   # lines need neither (issue 38)
    import pandas as pd


# ----------------------------------------------------------------------------- groups
def group_table(gc: GroupComparison, lang: str = "en") -> pd.DataFrame:
    """One row per group: n, both means, B − A with its corrected CI, Holm p, the status
    (a verdict with the method names, "cannot tell" or too few) and the cases needed."""
    import pandas as pd

    kind = fmt.kind_of(gc.binary)
    level = fmt.level(gc.confidence)
    rows = []
    for g in gc.groups:
        rows.append({
            t("groups.col_group", lang): g.group,
            t("groups.col_n", lang): g.n,
            t("groups.col_mean", lang, m=gc.a): fmt.value(g.mean_a, kind),
            t("groups.col_mean", lang, m=gc.b): fmt.value(g.mean_b, kind),
            t("groups.col_diff", lang, a=gc.a, b=gc.b): fmt.diff(g.diff, kind),
            t("groups.col_ci", lang, level=level): (
                "" if g.ci_low is None else fmt.interval(g.ci_low, g.ci_high, kind,
                                                         signed=True)),
            t("groups.col_p_holm", lang): "" if g.p_holm is None else fmt.fmt_p(g.p_holm),
            t("groups.col_status", lang): status_text(g, gc, lang),
            t("groups.col_needed", lang): _needed(g)})
    return pd.DataFrame(rows)


def status_text(g, gc: GroupComparison, lang: str = "en") -> str:
    """A group's status in words; with clusters "too few" means fewer than 2 clusters."""
    if g.status == "too_few" and g.n_clusters is not None:
        return t("clusters.groups_too_few", lang, clusters=g.n_clusters)
    return t(f"groups.status_{g.status}", lang, a=gc.a, b=gc.b)


def cluster_note(gc: GroupComparison, lang: str = "en") -> str | None:
    """With clusters as the unit (issue 32): the line saying so, and why the interaction
    test is missing when a cluster spans groups; None without clusters."""
    if gc.clusters is None:
        return None
    note = t("clusters.groups_unit", lang)
    if gc.clusters == "crossed":
        note += " " + t("clusters.groups_crossed", lang)
    return note


def _needed(g) -> str:
    """The planner's cases needed, shown where no difference was shown (else blank)."""
    if g.n_needed is None or g.status not in ("cannot_tell", "no_difference"):
        return ""
    return f"{g.n_needed:,}"


def intro_params(gc: GroupComparison) -> dict:
    """The fields of ``groups.intro``: names, the levels, m and alpha."""
    return {"a": gc.a, "b": gc.b, "m": gc.compared, "level": fmt.level(gc.confidence),
            "corrected": fmt.level(round(gc.corrected_confidence, 3)),
            "alpha": f"{1 - gc.confidence:.2f}"}


def interaction_parts(gc: GroupComparison, lang: str = "en") -> tuple[str, dict]:
    """(i18n key, its fields) of the sentence saying whether the effect differs between
    groups; a page fills it with ``tr_md`` (the method names escaped)."""
    it = gc.interaction
    if it is None:
        return "groups.interaction_none", {}
    alpha = round(1 - gc.confidence, 12)
    answer = t("groups.interaction_yes" if it.p < alpha else "groups.interaction_no", lang)
    return "groups.interaction", {"a": gc.a, "b": gc.b,
                                  "f": "n/a" if it.f is None else f"{it.f:.2f}",
                                  "p": fmt.p_text(it.p), "permutations": f"{it.permutations:,}",
                                  "answer": answer}


def interaction_sentence(gc: GroupComparison, lang: str = "en") -> str:
    """``interaction_parts`` as plain text (the CLI, the report)."""
    key, params = interaction_parts(gc, lang)
    return t(key, lang, **params)


def forest_chart(gc: GroupComparison, *, title: str = "", x_title: str = "") -> alt.LayerChart:
    """B − A per group with its corrected interval (a forest plot), a red rule at 0."""
    import altair as alt
    import pandas as pd

    from core.views.charts import wrap_title  # lazy: charts load pandas (the CLI needs none)

    kind = fmt.kind_of(gc.binary)
    scale = fmt.scale(kind)
    rows = [{"group": f"{g.group} (n={g.n})", "diff": scale * g.diff,
             "lo": scale * g.ci_low, "hi": scale * g.ci_high}
            for g in gc.groups if g.ci_low is not None]
    df = pd.DataFrame(rows, columns=["group", "diff", "lo", "hi"])
    num = ".1f" if kind == "rate" else ".3f"
    y = alt.Y("group:N", title=None, sort=None)
    zero = alt.Chart(pd.DataFrame({"x": [0.0]})).mark_rule(color=REFERENCE,
                                                           strokeDash=[4, 3]).encode(x="x:Q")
    bars = alt.Chart(df).mark_rule(strokeWidth=3, color=PRIMARY).encode(
        x=alt.X("lo:Q", title=x_title + fmt.axis_unit(kind, difference=True)), x2="hi:Q", y=y)
    dots = alt.Chart(df).mark_point(filled=True, size=110, color=DARK).encode(
        x="diff:Q", y=y, tooltip=["group:N", alt.Tooltip("diff:Q", format=num),
                                  alt.Tooltip("lo:Q", format=num),
                                  alt.Tooltip("hi:Q", format=num)])
    return alt.layer(zero, bars, dots).properties(title=wrap_title(title), height=alt.Step(40))


def group_cli_lines(gc: GroupComparison) -> list[str]:
    """The CLI's text: one line per group and the interaction test."""
    kind = fmt.kind_of(gc.binary)
    p = intro_params(gc)
    lines = [f"\nBy query group ({gc.column or 'group'}): {gc.b} − {gc.a} per group; "
             f"{p['corrected']} intervals (Bonferroni over {p['m']} groups), Holm-adjusted p:"]
    for g in gc.groups:
        ci = "" if g.ci_low is None else \
            f" {fmt.interval(g.ci_low, g.ci_high, kind, signed=True)}"
        ph = "" if g.p_holm is None else f"  {fmt.p_text(g.p_holm, 'p_holm')}"
        need = f"  (needs about {_needed(g)})" if _needed(g) else ""
        status = status_text(g, gc, "en")
        lines.append(f"  {g.group} (n={g.n}): {fmt.diff(g.diff, kind)}{ci}{ph}  "
                     f"{status}{need}")
    note = cluster_note(gc, "en")
    if note is not None:
        lines.append("  " + note)
    if gc.clusters != "crossed":
        lines.append("  " + interaction_sentence(gc))
    if gc.ungrouped:
        lines.append("  " + t("groups.ungrouped", "en", count=len(gc.ungrouped),
                              ids=", ".join(gc.ungrouped[:10])))
    if gc.unmatched:
        lines.append("  " + t("groups.unmatched", "en", count=len(gc.unmatched),
                              ids=", ".join(gc.unmatched[:10])))
    return lines


# ----------------------------------------------------------------------------- Judged@k
def judged_table(jb: JudgedBounds, lang: str = "en", kind: str = "score",
                 names: dict | None = None) -> pd.DataFrame:
    """One row per method: Judged@k (in %), the metric with the unjudged documents
    non-relevant and relevant (its own unit)."""
    import pandas as pd

    names = names or {}
    s = jb.summary_rows()
    return pd.DataFrame({
        t("judged.col_method", lang): [names.get(r.method, r.method) for r in s],
        t("judged.col_judged", lang, k=jb.k): [fmt.pct(r.judged) for r in s],
        t("judged.col_low", lang, metric=jb.metric): [fmt.value(r.low, kind) for r in s],
        t("judged.col_high", lang, metric=jb.metric): [fmt.value(r.high, kind) for r in s]})


def verdict_params(jb: JudgedBounds, lang: str = "en", kind: str = "score",
                   names: dict | None = None) -> dict:
    """The fields of ``judged.verdicts``: each reading's verdict and its CI of B − A."""
    names = names or {}
    out = {"a": names.get(jb.a, jb.a), "b": names.get(jb.b, jb.b)}
    for key, v, (_, lo, hi) in (("low", jb.verdict_low, jb.diff_low),
                                ("high", jb.verdict_high, jb.diff_high)):
        out[key] = t(f"systems.verdict_{v}", lang)
        out[f"{key}_ci"] = fmt.interval(lo, hi, kind, signed=True)
    return out


def judged_cli_lines(jb: JudgedBounds, kind: str = "score") -> list[str]:
    """The CLI's text: Judged@k and both readings per method, both verdicts, the warning."""
    lines = [f"\nMissing labels (Judged@{jb.k}; {jb.metric} with unjudged documents "
             "non-relevant / relevant):"]
    for r in jb.summary_rows():
        lines.append(f"  {r.method}: Judged@{jb.k} {fmt.pct(r.judged)}  "
                     f"{fmt.value(r.low, kind)} / {fmt.value(r.high, kind)}")
    lines.append("  " + t("judged.verdicts", "en", **verdict_params(jb, "en", kind)))
    lines.append("  " + t("judged.differ" if jb.differ else "judged.same", "en"))
    return lines
