"""What the BEIR Table 2 page and ``python -m core beir-table`` show (``core.retrieval.beir_table``):
the "generations" story, the CLI text and the charts. Every number comes from a tally."""
from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from core import checks
from core.i18n import catalog, t
from core.retrieval import ALPHA, Grid, STANDINGS, TableTally, TallyRow, norm_name, strongest_rival
from core.views.cards import VerdictCard
from core.views.charts import display_width, keep_labels, wrap_title
from core.views.format import fmt_p, p_text
from core.views.palette import MUTED, PRIMARY, REFERENCE

if TYPE_CHECKING:  # altair is imported by the chart builders only: the CLI text needs none
    import altair as alt


def _fmt_rel(x: float | None) -> str:
    return "n/a" if x is None else f"{x:+.1f}%"


def _note(model: str, lang: str) -> str:
    """A one-line description of a paper model ("first-generation dense ..."), or ""."""
    key = f"beir_table.note_{norm_name(model)}"
    return t(key, lang) if key in catalog(lang) or key in catalog("en") else ""


def story(result: TableTally, lang: str = "en", alpha: float = ALPHA) -> str:
    """The "generations" reading of a tally, in ``lang``: the models grouped by their standing
    against the baseline (``TallyRow.standing``), each with its computed wins-losses and mean
    relative difference, then the per-kind totals. Every number comes from ``result``."""
    checks.instance("result", result, TableTally)
    groups: dict[str, list[TallyRow]] = {s: [] for s in STANDINGS}
    for r in result.rows:
        groups[r.standing(alpha)].append(r)
    lines = []
    for s in STANDINGS:
        if not groups[s]:
            continue
        detail = "; ".join(
            t("beir_table.story_model", lang,
              model=r.model + (f" ({_note(r.model, lang)})" if _note(r.model, lang) else ""),
              wins=r.model_wins, losses=r.baseline_wins, ties=r.ties,
              rel=_fmt_rel(r.mean_relative_diff_pct))
            for r in groups[s])
        lines.append("- " + t(f"beir_table.story_{s}", lang, baseline=result.baseline,
                              detail=detail, alpha=f"{alpha:g}"))
    by_kind: dict[str, list[int]] = {}
    for r in result.rows:
        k = by_kind.setdefault(r.kind, [0, 0, 0])
        k[0] += r.model_wins
        k[1] += r.baseline_wins
        k[2] += r.ties
    kinds = "; ".join(t("beir_table.story_kind", lang, kind=t(f"beir_table.kind_{k}", lang),
                        wins=v[0], losses=v[1], ties=v[2])
                      for k, v in by_kind.items())
    lines.append("- " + t("beir_table.story_kinds", lang, baseline=result.baseline,
                          detail=kinds))
    return "\n".join(lines)


def tally_text(result: TableTally, grid: Grid, lang: str = "en") -> str:
    """Readable multi-line summary of a tally (the CLI's default output)."""
    lines = [t("beir_table.cli_header", lang, baseline=result.baseline, n=result.n_datasets,
               metric=grid.metric)]
    # each column as wide as its header or its widest cell (display columns: a Hangul header
    # takes two per syllable); the wins columns name whose wins they count (issue 37: the
    # header read "model kind base model ties")
    header = [t(k, lang, baseline=result.baseline) for k in (
        "beir_table.cli_col_model", "beir_table.cli_col_kind", "beir_table.cli_col_baseline_wins",
        "beir_table.cli_col_model_wins", "beir_table.cli_col_ties", "beir_table.cli_col_rel",
        "beir_table.cli_col_p")]
    rows = [[r.model, r.kind, str(r.baseline_wins), str(r.model_wins), str(r.ties),
             _fmt_rel(r.mean_relative_diff_pct), fmt_p(r.sign_test_p)] for r in result.rows]
    widths = [max(display_width(x) for x in col) for col in zip(header, *rows)]

    def line(cells):  # text columns left-aligned, numbers right-aligned, two spaces apart
        return "  " + "  ".join(c + " " * (w - display_width(c)) if i < 2 else
                                " " * (w - display_width(c)) + c
                                for i, (c, w) in enumerate(zip(cells, widths))).rstrip()
    lines.append(line(header))
    lines.extend(line(r) for r in rows)
    lines.append(t("beir_table.caution", lang))
    lines.append(t("beir_table.ge_dense_line", lang, baseline=result.baseline,
                   count=len(result.baseline_ge_all_dense), n=result.n_datasets,
                   dense=", ".join(result.dense_models),
                   datasets=", ".join(result.baseline_ge_all_dense) or "-"))
    lines.append(t("beir_table.first_line", lang, baseline=result.baseline,
                   count=len(result.baseline_first), n=result.n_datasets,
                   datasets=", ".join(result.baseline_first) or "-"))
    lines.append(t("beir_table.first_counts_line", lang, counts=", ".join(
        f"{m} {c}" for m, c in sorted(result.first_place_counts.items(),
                                      key=lambda kv: -kv[1]))))
    return "\n".join(lines)


# ----------------------------------------------------------------------------- charts
def heatmap_chart(grid: Grid, baseline: str, *, mode: str = "value", title: str = "",
                  value_title: str = "nDCG@10", diff_title: str = "") -> alt.LayerChart:
    """Datasets x models; colour = nDCG@10 (``mode="value"``) or value - baseline
    (``mode="diff"``, diverging around 0). Each cell is labelled with its value."""
    import altair as alt
    if mode not in ("value", "diff"):
        raise ValueError(f"mode must be 'value' or 'diff', got {mode!r}")
    base = grid.model(baseline)
    df = grid.long(base)
    df["label"] = df["value"].map(lambda v: f"{v:.3f}") if mode == "value" else \
        df["diff"].map(lambda v: f"{v:+.3f}")
    field_, title_ = ("value", value_title) if mode == "value" else ("diff", diff_title or
                                                                    f"− {base}")
    if mode == "value":
        scale = alt.Scale(scheme="blues", domain=[0, float(df["value"].max())])
    else:
        lim = float(df["diff"].abs().max()) or 1.0
        scale = alt.Scale(scheme="redblue", domain=[-lim, lim], domainMid=0)
    x = alt.X("model:N", sort=grid.models, title=None, axis=alt.Axis(labelAngle=-30))
    y = alt.Y("dataset:N", sort=grid.datasets, title=None)
    rect = alt.Chart(df).mark_rect().encode(
        x=x, y=y, color=alt.Color(f"{field_}:Q", scale=scale, title=title_),
        tooltip=["dataset:N", "model:N", "kind:N", alt.Tooltip("value:Q", format=".3f"),
                 alt.Tooltip("diff:Q", format="+.3f", title=f"− {base}")])
    if mode == "value":
        dark = alt.datum.value > 0.6 * float(df["value"].max())
    else:
        dark = (alt.datum.diff > 0.6 * lim) | (alt.datum.diff < -0.6 * lim)
    text = alt.Chart(df).mark_text(fontSize=10).encode(
        x=x, y=y, text="label:N",
        color=alt.condition(dark, alt.value("white"), alt.value("black")))
    return alt.layer(rect, text).properties(title=wrap_title(title),
                                            height=24 * len(grid.datasets) + 20)


def tally_chart(result: TableTally, *, labels: dict, title: str = "") -> alt.Chart:
    """Diverging bars per model: baseline wins to the left, model wins to the right, ties in
    the middle. ``labels`` names the three parts: keys baseline_wins, model_wins, ties.
    Every model keeps its name on the axis (``keep_labels``)."""
    import altair as alt
    for k in ("baseline_wins", "model_wins", "ties"):
        if k not in labels:
            raise ValueError(f"labels needs the key {k!r}")
    rows = []
    for r in result.rows:
        half = r.ties / 2
        rows += [{"model": r.model, "part": labels["baseline_wins"], "start": -half - r.baseline_wins,
                  "end": -half, "count": r.baseline_wins},
                 {"model": r.model, "part": labels["ties"], "start": -half, "end": half,
                  "count": r.ties},
                 {"model": r.model, "part": labels["model_wins"], "start": half,
                  "end": half + r.model_wins, "count": r.model_wins}]
    df = pd.DataFrame(rows)
    order = [labels["baseline_wins"], labels["ties"], labels["model_wins"]]
    colour = alt.Color("part:N", scale=alt.Scale(domain=order,
                                                 range=[REFERENCE, MUTED, PRIMARY]),
                       title=None, legend=alt.Legend(orient="bottom"))
    bars = alt.Chart(df[df["count"] > 0]).mark_bar().encode(
        y=alt.Y("model:N", sort=[r.model for r in result.rows], title=None,
                axis=keep_labels()),
        x=alt.X("start:Q", title=None, axis=alt.Axis(tickMinStep=1, labelExpr="abs(datum.value)")),
        x2="end:Q", color=colour, tooltip=["model:N", "part:N", "count:Q"])
    zero = alt.Chart(pd.DataFrame({"x": [0]})).mark_rule(color="black").encode(x="x:Q")
    return alt.layer(bars, zero).properties(title=wrap_title(title), height=alt.Step(30))


def scifact_chart(ranking: pd.DataFrame, *, source_labels: dict, title: str = "") -> alt.Chart:
    """Horizontal bars of the ranked SciFact list, coloured paper vs measured."""
    import altair as alt
    df = ranking.copy()
    df["source_label"] = df["source"].map(source_labels).fillna(df["source"])
    df["label"] = df["name"] + " (" + df["source_label"] + ")"
    return alt.Chart(df).mark_bar().encode(
        y=alt.Y("label:N", sort=list(df["label"]), title=None, axis=keep_labels()),
        x=alt.X("ndcg@10:Q", title="nDCG@10", scale=alt.Scale(zero=True)),
        color=alt.Color("source_label:N", title=None, legend=alt.Legend(orient="bottom")),
        tooltip=["rank:Q", "name:N", "source_label:N",
                 alt.Tooltip("ndcg@10:Q", format=".3f")]).properties(
        title=title, height=alt.Step(26))


# the tone of the headline duel: B (the rival, a newer method) against A (the baseline)
CARD_TONES = {"ahead_clear": "better", "behind_clear": "worse"}


def tally_card(result: TableTally, *, metric: str, lang: str = "en",
               alpha: float = ALPHA) -> VerdictCard | None:
    """The page's verdict card: the baseline against its strongest dense rival
    (``core.retrieval.beir_table.strongest_rival``; any kind when the table has no other dense model),
    "BM25 beats the best dense model, TAS-B, on 10 of 18 datasets", with the sign test on
    that duel (Dixon & Mood 1946; ties dropped). Green when the rival (the newer method) wins
    clearly (p < ``alpha``), red when the baseline does, amber otherwise. None when the
    tally has no other model."""
    checks.instance("result", result, TableTally)
    rival = strongest_rival(result)
    key = "dense"
    if rival is None:
        rival, key = strongest_rival(result, None), "any"
    if rival is None:
        return None
    standing = rival.standing(alpha)
    n, wins, losses = rival.n_datasets, rival.baseline_wins, rival.model_wins
    p = p_text(rival.sign_test_p)
    if standing in ("ahead_clear", "behind_clear"):
        leader = rival.model if standing == "ahead_clear" else result.baseline
        reason = t("beir_table.card_clear", lang, leader=leader, p=p, alpha=f"{alpha:g}")
    else:
        reason = t("beir_table.card_unclear", lang, p=p, alpha=f"{alpha:g}")
    return VerdictCard(
        tone=CARD_TONES.get(standing, "neutral"),
        label=t(f"beir_table.card_label_{key}", lang, baseline=result.baseline,
                model=rival.model, metric=metric),
        value=t("beir_table.card_value", lang, wins=wins, n=n),
        interval=t("beir_table.card_interval", lang, p=p),
        sentence=t(f"beir_table.card_sentence_{key}", lang, baseline=result.baseline,
                   model=rival.model, wins=wins, n=n, losses=losses, count=rival.ties),
        reason=reason)
