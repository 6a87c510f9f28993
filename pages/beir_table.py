"""BEIR Table 2, counted: load -> core.retrieval.beir_table.tally -> draw. Nothing computed here."""
import pandas as pd
import streamlit as st

from core.errors import InputError
from core.retrieval import (ALPHA, DATA, DEFAULT_BASELINE, load_grid, parse_user_column,
                            scifact_ranking, tally, tally_user)
from core.views import heatmap_chart, scifact_chart, story, tally_card, tally_chart
from core.views import present_rows
from core.views import fmt_p
from pages._ui import (PRESENT_CHART_HEIGHT, Section, draw_chart, end_of_presentation, esc,
                       how_to_read, inputs_box, keep_in_url, page_setup, presenting,
                       report_downloads, shipped, show_card, show_error, show_frame, tr, tr_md,
                       url_index, url_value)

lang = page_setup()
YOURS = "yours"


@st.cache_data(show_spinner=False, max_entries=1)
def _grid():
    return load_grid()


@st.cache_data(show_spinner=False, max_entries=16)
def _tally(baseline: str):
    return tally(_grid(), baseline)


@st.cache_data(show_spinner=False, max_entries=16)
def _user(data: bytes, name: str):
    column = parse_user_column(data, _grid(), file=name)
    return column, tally_user(_grid(), column, YOURS)


def _tally_frame(result, wins_label: str, rel_label: str) -> pd.DataFrame:
    """The tally rows with translated headers (numbers untouched, p formatted)."""
    return pd.DataFrame({
        tr("beir_table.col_model"): [r.model for r in result.rows],
        tr("beir_table.col_kind"): [tr(f"beir_table.kind_{r.kind}") for r in result.rows],
        wins_label: [r.baseline_wins for r in result.rows],
        tr("beir_table.col_model_wins"): [r.model_wins for r in result.rows],
        tr("beir_table.col_ties"): [r.ties for r in result.rows],
        rel_label: [None if r.mean_relative_diff_pct is None
                                   else round(r.mean_relative_diff_pct, 1) for r in result.rows],
        tr("beir_table.col_p"): [fmt_p(r.sign_test_p) for r in result.rows],
    })


def _show_tally(frame: pd.DataFrame, rel_label: str) -> None:
    show_frame(frame, hide_index=True, width="stretch", column_config={
        rel_label: st.column_config.NumberColumn(format="%+.1f")})


def _listed(items) -> str:
    return ", ".join(items) if items else tr("beir_table.none")


grid = _grid()
st.title(tr("beir_table.title"))
st.caption(tr("beir_table.question"))
head = st.container()   # the verdict card (and, presenting, its chart): first on the page
guide = st.container()  # "How to read this", collapsed
inputs = inputs_box("beir_table")

with inputs:
    st.caption(tr("beir_table.subtitle"))
    st.caption(tr("beir_table.source", citation=esc(grid.citation), metric=esc(grid.metric),
                  url=shipped(grid.url)))
    baseline = st.selectbox(tr("beir_table.baseline_label"), grid.models,
                            index=url_index("baseline", grid.models,
                                            grid.models.index(DEFAULT_BASELINE)),
                            key="beir_table_baseline", help=tr("beir_table.baseline_help"))
modes = {"value": tr("beir_table.color_value"),
         "diff": tr("beir_table.color_diff", baseline=baseline)}
mode = st.session_state.get("beir_table_color", url_value("colour", "value"))
mode = mode if mode in modes else "value"
keep_in_url(baseline=baseline, colour=mode)
result = _tally(baseline)
n = result.n_datasets
story_text = story(result, lang)
labels = {"baseline_wins": tr("beir_table.part_baseline_wins", baseline=baseline),
          "model_wins": tr("beir_table.part_model_wins"), "ties": tr("beir_table.part_ties")}
bars = tally_chart(result, labels=labels, title=tr("beir_table.chart_tally", baseline=baseline))
card = tally_card(result, metric=grid.metric, lang=lang)
with head:
    if card is not None:
        show_card(card)
    if presenting():
        draw_chart(bars, present_height=present_rows(len(result.rows), PRESENT_CHART_HEIGHT))
end_of_presentation()
with guide:
    how_to_read("beir_table.how_to_read", baseline=baseline, n=n, alpha=f"{ALPHA:g}",
                story=story_text)

# ---------------------------------------------------------------- the tally
st.subheader(tr_md("beir_table.tally_title", baseline=baseline, n=n))
rel_label = tr("beir_table.col_rel")
tally_table = _tally_frame(result, tr("beir_table.col_baseline_wins", baseline=baseline),
                           rel_label)
_show_tally(tally_table, rel_label)
st.caption(tr("beir_table.caution"))
st.caption(tr("beir_table.rule_line"))
draw_chart(bars)

# ---------------------------------------------------------------- who is first
left, right = st.columns(2)
with left:
    st.subheader(tr_md("beir_table.ge_dense_title", baseline=baseline))
    ge_dense_text = tr_md("beir_table.ge_dense_line", baseline=baseline,
                       count=len(result.baseline_ge_all_dense), n=n,
                       dense=", ".join(result.dense_models),
                       datasets=_listed(result.baseline_ge_all_dense))
    st.markdown(ge_dense_text)
with right:
    st.subheader(tr("beir_table.first_title"))
    first_text = tr_md("beir_table.first_line", baseline=baseline,
                    count=len(result.baseline_first), n=n,
                    datasets=_listed(result.baseline_first))
    st.markdown(first_text)
    first_counts = pd.DataFrame({
        tr("beir_table.col_model"): list(result.first_place_counts),
        tr("beir_table.col_first"): list(result.first_place_counts.values())})
    show_frame(first_counts, hide_index=True)
    st.caption(tr("beir_table.first_counts_note"))

# ---------------------------------------------------------------- the grid
st.subheader(tr_md("beir_table.heatmap_title", metric=grid.metric))
mode = st.radio(tr("beir_table.color_label"), list(modes), format_func=modes.get,
                index=list(modes).index(mode), horizontal=True, key="beir_table_color")
heat = heatmap_chart(grid, baseline, mode=mode, value_title=grid.metric,
                     diff_title=tr("beir_table.diff_title", baseline=baseline))
draw_chart(heat)

# ---------------------------------------------------------------- scifact
st.subheader(tr("beir_table.scifact_title"))
measured = st.session_state.get("scifact_measured")
try:
    ranking = scifact_ranking(grid, measured if isinstance(measured, dict) else None)
except ValueError as exc:
    show_error(exc)
    ranking = scifact_ranking(grid, None)
measured_names = list(ranking.loc[ranking["source"] == "measured", "name"])
if measured_names:
    st.caption(tr_md("beir_table.scifact_measured_note", names=", ".join(measured_names)))
else:
    st.info(tr("beir_table.scifact_none"), icon="ℹ️")
sources = {"paper": tr("beir_table.source_paper"), "measured": tr("beir_table.source_measured")}
scifact_table = pd.DataFrame({
    tr("beir_table.col_rank"): ranking["rank"], tr("beir_table.col_name"): ranking["name"],
    tr("beir_table.col_value"): ranking["ndcg@10"],
    tr("beir_table.col_source"): ranking["source"].map(sources)})
sc_left, sc_right = st.columns(2)
show_frame(scifact_table, sc_left, hide_index=True, width="stretch", column_config={
    tr("beir_table.col_value"): st.column_config.NumberColumn(format="%.3f")})
sc_chart = scifact_chart(ranking, source_labels=sources, title=tr("beir_table.scifact_chart"))
draw_chart(sc_chart, sc_right)

# ---------------------------------------------------------------- your column
st.subheader(tr("beir_table.upload_title"))
upload = st.file_uploader(tr("beir_table.upload_label"), type=["csv", "tsv", "txt", "xlsx"],
                          key="beir_table_upload", help=tr("beir_table.upload_help"))
inputs = {DATA.name: DATA.read_bytes()}
user_sections = []
if upload is None:
    st.caption(tr("beir_table.upload_prompt"))
else:
    try:
        column, own = _user(upload.getvalue(), upload.name)
    except InputError as exc:
        show_error(exc)
    else:
        inputs[upload.name] = upload.getvalue()
        covers = tr("beir_table.upload_covers", name=upload.name, n=column.n_datasets,
                    total=len(grid.datasets), datasets=_listed(column.values))
        st.markdown(tr_md("beir_table.upload_covers", name=upload.name, n=column.n_datasets,
                          total=len(grid.datasets), datasets=_listed(column.values)))
        st.markdown("**" + tr_md("beir_table.upload_tally_title", name=upload.name,
                              n=own.n_datasets) + "**")
        own_rel = tr("beir_table.col_rel_vs", name=upload.name)
        own_table = _tally_frame(own, tr("beir_table.col_your_wins", name=upload.name), own_rel)
        _show_tally(own_table, own_rel)
        own_first = tr("beir_table.upload_first_line", name=upload.name,
                       count=len(own.baseline_first), n=own.n_datasets,
                       datasets=_listed(own.baseline_first))
        st.caption(tr_md("beir_table.upload_first_line", name=upload.name,
                         count=len(own.baseline_first), n=own.n_datasets,
                         datasets=_listed(own.baseline_first)))
        user_sections = [Section(tr("beir_table.upload_tally_title", name=upload.name,
                                    n=own.n_datasets), f"{covers}\n\n{own_first}",
                                 table=own_table)]

# ---------------------------------------------------------------- report
sections = [
    Section(tr("beir_table.tally_title", baseline=baseline, n=n),
            f"{tr('beir_table.caution')}\n\n{tr('beir_table.rule_line')}", table=tally_table),
    Section(tr("beir_table.chart_tally", baseline=baseline), chart=bars),
    Section(tr("beir_table.ge_dense_title", baseline=baseline), ge_dense_text),
    Section(tr("beir_table.first_title"), first_text, table=first_counts),
    Section(tr("beir_table.heatmap_title", metric=grid.metric), chart=heat),
    Section(tr("beir_table.scifact_title"), table=scifact_table, chart=sc_chart),
    *user_sections,
    Section(tr("common.how_to_read"), story_text),
]
report_downloads("beir_table", tr("beir_table.title"), sections, inputs=inputs,
                 params={"baseline": baseline, "colour": mode, "citation": grid.citation},
                 per_case=grid.long(baseline), summary=result.to_dict(), card=card)
