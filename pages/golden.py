"""Golden-case comparison: load -> core.inputs.systems.compare_golden -> draw. Nothing computed here."""
from dataclasses import replace
from pathlib import Path

import streamlit as st

from core.errors import InputError
from core.inputs import compare_systems, golden_systems, load_clustered, sequential_golden
from core.views import format as fmt
from core.views import (cluster_card, cluster_lines, margin_line,
                                 runs_lines)
from core.views import level as fmt_level
from core.views import cheap_card, cheap_lines
from core.views import report_tables
from core.views import paired_view
from core.views import sequential_section
from core.views import outcome_table
from pages._ui import (PRESENT_CHART_HEIGHT, current_lang, draw_chart, end_of_presentation,
                       harm_inputs, harm_section,
                       glossary, how_to_read, inputs_box, keep_in_url, margin_input, page_setup,
                       present_css,
                       presenting, report_downloads, Section, sha256, show_card, show_error,
                       show_frame, show_paired, show_table, stat_settings, TABLE_TYPES, tr, tr_md,
                       esc,
                       url_index,
                       upload_or_demo, verdict_notes)
from pages._sections import show_groups
from pages._sequential import range_warning, sequential_toggle, show_sequential, url_flag

DEMO = Path(__file__).resolve().parent.parent / "data" / "demo_golden.csv"

page_setup()


@st.cache_data(show_spinner=False, max_entries=16)
def _load(data: bytes, name: str, cluster: str = ""):
    # the golden set with its cluster column (issue 32) taken out; the same set without one
    return load_clustered(data, file=name, cluster=cluster or None)


@st.cache_data(show_spinner=False, max_entries=32)
def _compare(data: bytes, name: str, a: str, b: str, resamples: int, confidence: float,
             seed: int, interval: str = "auto", cluster: str = "", margin=None,
             harm: tuple | None = None,
             cheap_data: bytes | None = None, cheap_name: str = ""):
    """Everything the page shows of A vs B in one call (``compare_systems``, as ``python -m
    core compare`` computes it: clusters, the margin and the card's next step, No harm at the
    section's (δ, α), groups, the cheap labels' PPI), kept across reruns: a rerun computes no
    statistics again."""
    loaded = _load(data, name, cluster)
    return compare_systems(golden_systems(loaded.golden), a, b, resamples=resamples,
                           confidence=confidence, seed=seed, interval=interval,
                           clusters=loaded if cluster else replace(loaded, labels=None),
                           margin=margin, harm=harm, next_step=True,
                           cheap=None if cheap_data is None else _load(cheap_data,
                                                                       cheap_name).golden)


@st.cache_data(show_spinner=False, max_entries=16)
def _sequential(data: bytes, name: str, a: str, b: str, confidence: float, seed: int):
    return sequential_golden(data, name, a, b, confidence=confidence, seed=seed)


# title -> the question -> the verdict card -> how to read -> inputs and settings -> details
st.title(tr("golden.title"))
st.caption(tr("golden.subtitle"))
card_slot = st.container()  # filled once the comparison is computed, below
guide = st.container(key="golden_guide")  # "How to read this", collapsed
inputs = inputs_box("golden")
present_css("golden")

with inputs:
    data, name = upload_or_demo("golden", DEMO, inputs)
    try:
        loaded = _load(data, name)
        found = loaded.column or ""
        none = tr("clusters.page_none")
        choices = [none] + ([found] if found else []) + [
            c for c in loaded.golden.text.columns if c != found]
        # one widget per file (its key carries the file's digest): a new file starts from
        # its own cluster column, never from the last file's choice
        picked = st.selectbox(tr("clusters.page_choice"), choices,
                              index=url_index("cluster", choices, 1 if found else 0),
                              key=f"golden_cluster_{sha256(data)[:12]}",
                              help=tr("clusters.page_choice_help"))
        cluster = "" if picked == none else picked
        if cluster != found:
            loaded = _load(data, name, cluster)
        golden = loaded.golden
    except InputError as exc:
        show_error(exc)
        st.stop()

    if golden.sheet is not None:
        st.caption(tr_md("golden.sheet_read", sheet=golden.sheet,
                         others=", ".join(golden.other_sheets) or "—"))
    if golden.encoding == "cp949":  # say which encoding was read (Korean Excel's CSV)
        st.caption(tr("common.read_as_cp949"))
    if golden.empty_columns:
        st.warning(tr_md("golden.empty_columns", count=len(golden.empty_columns),
                         columns=", ".join(golden.empty_columns)), icon="⚠️")
    if golden.unicode_merged:
        st.warning(tr_md("golden.unicode_merged", count=len(golden.unicode_merged),
                         ids=", ".join(f"{cid} ({', '.join(map(str, rows))})" for cid, rows in
                                       list(golden.unicode_merged.items())[:10])), icon="⚠️")
    cheap_upload = inputs.file_uploader(tr("cheap.upload_label"),
                                        type=TABLE_TYPES,
                                        key="golden_cheap_upload", help=tr("cheap.upload_help"))
st.session_state["golden_set"] = golden
if st.session_state.get("golden_upload") is not None:   # for the Switch? page
    st.session_state["golden_file"] = {"name": name, "data": data}
st.session_state["golden_source"] = {"name": name, "sha256": sha256(data)}
methods = golden.methods
if len(methods) < 2:
    with inputs:
        show_error(InputError("need_two_methods", file=name, methods=", ".join(methods)))
    st.stop()

settings = stat_settings("golden")
col_a, col_b = inputs.columns(2)
a = col_a.selectbox(tr("golden.method_a"), methods, index=url_index("a", methods, 0),
                    key="golden_a", help=tr("golden.method_a_help"))
b = col_b.selectbox(tr("golden.method_b"), methods, index=url_index("b", methods, 1),
                    key="golden_b", help=tr("golden.method_b_help"))

pair_kind = fmt.kind_of(golden.is_binary(a) and golden.is_binary(b))
margin_value, margin_text = margin_input("golden", pair_kind, inputs)
harm_asked = harm_inputs("golden", ask_delta=pair_kind != "rate")   # No harm, in the one call
looks_again = sequential_toggle("golden", inputs)
keep_in_url(a=a, b=b, margin=margin_text, **({"cluster": cluster} if cluster else {}),
            seq=url_flag(looks_again), **settings.url())
cheap_file = {}
if cheap_upload is not None:   # cheap labels on more cases: the prediction-powered card first
    if cluster:   # PPI reads cases as independent: never mix
        with inputs:
            st.warning(tr("cheap.clusters_not_yet"), icon="⚠️")
    else:
        cheap_file = dict(cheap_data=cheap_upload.getvalue(), cheap_name=cheap_upload.name)
stat = (settings.resamples, settings.confidence, settings.seed, settings.interval, cluster,
        margin_value, harm_asked)
try:
    with st.spinner(tr("golden.computing")):
        try:
            sc = _compare(data, name, a, b, *stat, **cheap_file)
        except InputError as exc:   # a bad cheap file: one message, the gold card stays
            if not cheap_file:
                raise
            with inputs:
                show_error(exc)
            sc = _compare(data, name, a, b, *stat)
except InputError as exc:
    with inputs:
        show_error(exc)
    st.stop()
result, clustered, cheap, margin, cmargin, runs, groups = (
    sc.result, sc.clustered, sc.cheap, sc.margin, sc.cluster_margin, sc.runs, sc.groups)
seq = arrival = None
if looks_again:   # issue 33: intervals valid at every look
    try:
        with st.spinner(tr("golden.computing")):
            seq, arrival = _sequential(data, name, a, b, settings.confidence, settings.seed)
    except InputError as exc:
        with inputs:
            show_error(exc)
    except ValueError:   # values outside [0, 1]: no confidence sequence of this kind
        range_warning(inputs)
st.session_state["golden_comparison"] = result
st.session_state["golden_clusters"] = None if clustered is None else clustered.summary.to_dict()
lang = current_lang()
view = paired_view(result.comparison, lang=lang, unit=result.golden.unit, margin=margin,
                  plan=sc.plan)
c, bs = result.comparison, result.comparison.bootstrap
kind = view.kind
level = fmt_level(settings.confidence)
rates_chart = view.rates_chart()
boot_chart = view.bootstrap_chart()
card = view.card if clustered is None else cluster_card(clustered, c.a, c.b, cluster,
                                                          c.binary, lang)
with card_slot:
    if cheap is not None:
        show_card(cheap_card(cheap, lang))
    if cheap is None or not presenting():   # presenting: the PPI card and its chart only
        if cheap is not None:
            st.caption(tr("cheap.gold_card_title"))
        if seq is not None:   # the sequential answer first: the one valid after many looks
            show_sequential(seq, c.a, c.b, lang, arrival)
        show_card(card)
        if cmargin is not None:   # method names inside: shown literally
            st.markdown(esc(margin_line(cmargin, c.a, c.b, c.binary, lang)))
    if presenting():  # the presentation view: the card and the one chart that explains it
        draw_chart(view.bootstrap_chart(titled=False), present_height=PRESENT_CHART_HEIGHT)
with guide:
    how_to_read("golden.how_to_read", n=result.n_cases, step=f"{100 / result.n_cases:.1f}",
                level=level)
end_of_presentation()

ex = result.excluded
if ex.total:
    st.warning(tr_md("golden.excluded", count=ex.total, missing=len(ex.missing),
                     duplicates=len(ex.duplicates), blank=len(ex.blank),
                     ids=", ".join(sorted(set(ex.missing) | set(ex.duplicates)
                                          | set(ex.blank))[:20])))

cluster_text = ([] if clustered is None
                else cluster_lines(clustered, c.a, c.b, cluster, c.binary, lang))
if clustered is not None:
    st.info(tr("clusters.page_independent"))
    # each method's and B − A's cluster-robust interval, the cluster tests and the clustered
    # self-check's measured rate, as the CLI prints them (names inside: shown literally)
    with st.expander(tr("clusters.page_title"), expanded=True):
        st.markdown("\n".join(f"- {esc(line)}" for line in cluster_text))
elif sc.hint is not None:
    st.info(tr_md("clusters.hint", sources=sc.hint["sources"], example=sc.hint["example"]))
runs_text = [] if runs is None else runs_lines(runs, lang)
for line in runs_text:   # repeated runs (issue 32): the run column's name inside, literally
    st.caption(esc(line))
cols = show_paired(view)
verdict_notes(c.decision, bs, cols[2], reason=False)
left, right = st.columns(2)
draw_chart(rates_chart, left)
draw_chart(boot_chart, right)

st.subheader(tr("paired.tests_title"),
             help=glossary("mcnemar", "discordant", "randomization", "ttest", "cohens_dz"))
tests_table = view.tests
show_table(tests_table)

# no harm (issue 35): how often B is worse than A, the share helped, TRisk
harm, harm_text = harm_section(
    "golden", result.a_values, result.b_values, c.a, c.b, kind, lang, ask_delta=kind != "rate",
    confidence=settings.confidence, resamples=settings.resamples, seed=settings.seed,
    clusters=None if sc.cluster_labels is None else list(sc.cluster_labels),
    link_key="harm.most_hurt_link", kept=(harm_asked, sc.harm))

table_2x2 = None
if c.table is not None:
    st.subheader(tr("golden.table_title"), help=glossary("discordant", "mcnemar"))
    table_2x2 = outcome_table(c.table, c.a, c.b, lang)
    show_table(table_2x2)

tables = report_tables(result, view, lang)
disc = tables.discordant
st.subheader(tr("golden.discordant_title", n=len(disc)), help=glossary("discordant"),
             anchor="golden-discordant")
if len(disc):
    show_frame(disc, hide_index=True, width="stretch")
else:
    st.caption(tr("golden.no_discordant"))

group_sections = show_groups(groups)

st.subheader(tr("golden.report_title"))
sections = [
    Section(tr("golden.rates_title"),
            tr("golden.resolution_text", n=result.n_cases, step=f"{100 / result.n_cases:.1f}")
            if kind == "rate" else tr("golden.resolution_text_score", n=result.n_cases),
            table=tables.rates),
    Section(tr("golden.difference_title"), table=tables.difference),
    Section(view.rates_title(), chart=rates_chart),
    Section(view.bootstrap_title(), chart=boot_chart),
]
sections.append(Section(tr("harm.title"), " ".join(harm_text)))
if table_2x2 is not None:
    sections.append(Section(tr("golden.table_title"), table=table_2x2))
sections.append(Section(tr("golden.discordant_title", n=len(disc)),
                        "" if len(disc) else tr("golden.no_discordant"),
                        table=disc if len(disc) else None))
sections.extend(group_sections)
if seq is not None:
    sections.insert(0, sequential_section(seq, c.a, c.b, lang, arrival))
if cheap is not None:   # the cheap labels' figures, as the CLI prints them
    sections.insert(0, Section(tr("cheap.upload_label"),
                               "\n".join(line.strip() for line in cheap_lines(cheap, lang))))
    card = cheap_card(cheap, lang)
if runs is not None:
    sections.insert(0, Section(tr("clusters.runs_title"), "\n".join(runs_text)))
if clustered is not None:
    sections.insert(0, Section(tr("clusters.page_title"), "\n".join(
        cluster_text + ([] if cmargin is None
                        else [margin_line(cmargin, c.a, c.b, c.binary, lang)]))))
summary = sc.to_dict(harm=harm, seq=seq, arrival=arrival)   # compare --json's summary
report_downloads("golden", tr("golden.title"), sections, inputs={name: data},
                 params={"a": c.a, "b": c.b, "resamples": settings.resamples,
                         "seed": settings.seed, "confidence": level, "interval": bs.interval},
                 per_case=tables.per_case, summary=summary,
                 verdict=view.sentence if clustered is None and cheap is None else card.sentence,
                 card=card)
