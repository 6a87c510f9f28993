"""Switch? One decision from quality and speed: inputs -> core.switch -> draw. Nothing
computed here.

Quality comes from a file (a golden-case table, the golden page's format; retrieval lists or
TREC runs with qrels, the systems page's), from a file already loaded on the golden or
systems page in this session, or from the scifact page's result (its per-query tables,
``core.switch.decide_retrievers``); speed from a timing log (the latency page's format),
uploaded here or already loaded on the latency page. Both must name A and B the same way.
Without both, the built-in demo pair (``data/demo_switch_*.csv``) is used.
"""
from pathlib import Path

import pandas as pd
import streamlit as st

from core.checks import MAX_SLOWDOWN, MIN_SLOWDOWN
from core.errors import InputError
from core.inputs import COMMON_MEASURES, LIST_METRICS, has_cluster_column
from core.latency import load_timings
from core.switch import (DEFAULT_MAX_SLOWDOWN, QUALITY_FORMATS, decide_files, decide_retrievers,
                         load_quality, retriever_methods)
from core.views import format as fmt
from core.views import level as fmt_level
from core.views import gap_cell as harm_gap_cell, harm_lines
from core.views import (decision_card, decision_sentence, limit_cell, margin_text,
                               quality_chart, ratio_text, speed_chart)
from core.views import quality_line, sequential_section
from pages._ui import (PRESENT_CHART_HEIGHT, Section, current_lang, draw_chart,
                       end_of_presentation, esc, how_to_read, inputs_box, keep_in_url, page_setup,
                       present_css, presenting, report_downloads, show_card, show_error,
                       show_table, stat_settings, TABLE_TYPES, tr, tr_md, url_index, url_number)
from pages._sequential import range_warning, sequential_toggle, show_sequential, url_flag

DATA = Path(__file__).resolve().parent.parent / "data"
DEMO_QUALITY, DEMO_LATENCY = DATA / "demo_switch_golden.csv", DATA / "demo_switch_latency.csv"

page_setup()


@st.cache_data(show_spinner=False, max_entries=16)
def _methods(qdata: bytes, qname: str, ldata: bytes, lname: str, qformat: str, measure: str,
             k: int, runs: tuple = ()):
    """(quality methods, latency methods, {method: 0/1 outcomes?}) of the two files."""
    gs = load_quality(qdata, qname, quality_format=qformat, measure=measure, k=k, runs=runs)
    log = load_timings(ldata, file=lname)
    return list(gs.methods), list(log.methods), {m: gs.is_binary(m) for m in gs.methods}


@st.cache_data(show_spinner=False, max_entries=32)
def _decide(qdata, qname, ldata, lname, margin, max_slowdown, a, b, confidence, resamples,
            seed, interval, qformat, measure, k, runs=(), max_harm=None, sequential=False):
    return decide_files(qdata, qname, ldata, lname, margin=margin, max_slowdown=max_slowdown,
                        a=a, b=b, confidence=confidence, resamples=resamples, seed=seed,
                        interval=interval, quality_format=qformat, measure=measure, k=k,
                        runs=runs, max_harm=max_harm, sequential=sequential)


@st.cache_data(show_spinner=False, max_entries=16)
def _decide_retrievers(tables, queries, metric, collection, ldata, lname, margin, max_slowdown,
                       a, b, confidence, resamples, seed, interval, max_harm=None,
                       sequential=False):
    return decide_retrievers(tables, ldata, lname, margin=margin, metric=metric,
                             queries=queries, collection=collection, max_slowdown=max_slowdown,
                             a=a, b=b, confidence=confidence, resamples=resamples, seed=seed,
                             interval=interval, max_harm=max_harm, sequential=sequential)


st.title(tr("switch.title"))
st.caption(tr("switch.question"))
head = st.container()                    # the decision card (and, presenting, its chart)
guide = st.container(key="decide_guide")  # "How to read this", collapsed
inputs = inputs_box("decide")


def _table_upload(label: str, help_text: str, key: str) -> tuple[bytes, str] | None:
    """The bytes and name of the table uploaded in the box ``key`` (quality or latency)."""
    upload = inputs.file_uploader(label, type=TABLE_TYPES, key=key, help=help_text)
    return None if upload is None else (upload.getvalue(), upload.name)


present_css("decide")

# where quality and speed come from: a file, or one already loaded on another page
session = {src: st.session_state.get(key) for src, key in
           (("golden", "golden_file"), ("systems", "systems_file"),
            ("latency", "latency_file"), ("scifact", "scifact_tables"))}
q_sources = ["file", *(s_ for s_ in ("golden", "systems") if session[s_]), "scifact"]
q_names = {"file": tr("switch.from_file"), "golden": tr("switch.from_golden"),
           "systems": tr("switch.from_systems"), "scifact": tr("switch.from_scifact")}
loaded = [s_ for s_ in ("golden", "systems") if session[s_]]
q_from = inputs.radio(tr("switch.quality_from"), q_sources, horizontal=True,
                      index=q_sources.index(loaded[0]) if loaded else 0,
                      key="decide_quality_from", format_func=q_names.get)
l_sources = ["file", "latency"] if session["latency"] else ["file"]
l_names = {"file": tr("switch.from_upload"), "latency": tr("switch.from_latency")}
l_from = inputs.radio(tr("switch.latency_from"), l_sources, horizontal=True,
                      index=len(l_sources) - 1, key="decide_latency_from",
                      format_func=l_names.get) if len(l_sources) > 1 else "file"

measure, k, runs, qformat, quality = "ndcg", 10, (), "golden", None   # quality: (bytes, name)
tables = None    # the scifact page's per-query tables, when quality comes from there
if q_from == "file":
    format_names = {f: tr(f"switch.format_{f}") for f in QUALITY_FORMATS}
    qformat = inputs.radio(tr("switch.format"), QUALITY_FORMATS, horizontal=True,
                           index=url_index("format", QUALITY_FORMATS, 0), key="decide_format",
                           format_func=format_names.get)
    if qformat == "lists":
        f1, f2 = inputs.columns(2)
        metric_names = {m: tr(f"systems.metric_{m}") for m in LIST_METRICS}
        measure = f1.selectbox(tr("switch.measure"), LIST_METRICS,
                               index=url_index("measure", LIST_METRICS,
                                               LIST_METRICS.index("ndcg")),
                               format_func=metric_names.get, key="decide_measure")
        k = int(f2.number_input(tr("switch.k"), 1, 1000, url_number("k", 1, 1000, 10), step=1,
                                key="decide_k"))
    if qformat == "trec":
        measure = str(inputs.selectbox(tr("switch.trec_measure"), COMMON_MEASURES,
                                       index=url_index("measure", COMMON_MEASURES, 0),
                                       accept_new_options=True, key="decide_trec_measure",
                                       help=tr("systems.measure_help")))
        t1, t2 = inputs.columns(2)
        qrels_up = t1.file_uploader(tr("switch.upload_qrels_label"), key="decide_qrels_upload",
                                    help=tr("systems.qrels_help"))
        runs_up = t2.file_uploader(tr("switch.upload_runs_label"), accept_multiple_files=True,
                                   key="decide_runs_upload", help=tr("switch.upload_runs_help"))
        if qrels_up is not None and runs_up:
            quality = (qrels_up.getvalue(), qrels_up.name)
            runs = tuple((f.name, f.getvalue()) for f in runs_up)
    else:
        quality = _table_upload(tr("switch.upload_quality_label"),
                                tr("switch.upload_quality_help"), "decide_quality_upload")
elif q_from in ("golden", "systems"):
    f = session[q_from]
    quality, qformat = (f["data"], f["name"]), f.get("format", "golden")
    runs, measure, k = tuple(f.get("runs", ())), f.get("measure", measure), f.get("k", k)
    shown = ", ".join([f["name"], *(n for n, _ in runs)])
    inputs.caption(esc(tr("switch.reused", files=shown)))
elif session["scifact"]:
    tables = session["scifact"]
    inputs.caption(esc(tr("switch.scifact_used", collection=tables["collection"],
                          metric=tables["metric"], n=len(tables["queries"]))))
else:
    inputs.info(tr("switch.scifact_missing"), icon="ℹ️")

latency = None
if l_from == "latency":
    latency = (session["latency"]["data"], session["latency"]["name"])
    inputs.caption(esc(tr("switch.reused", files=latency[1])))
else:
    latency = _table_upload(tr("switch.upload_latency_label"),
                            tr("switch.upload_latency_help"), "decide_latency_upload")

have_quality = quality is not None or tables is not None
if not (have_quality and latency is not None):   # the demo pair, for both
    if have_quality or latency is not None:
        inputs.warning(tr("switch.demo_partial"), icon="ℹ️")
    elif q_from == "file":
        inputs.info(tr("switch.demo_note"), icon="ℹ️")
    quality, latency, tables = (DEMO_QUALITY.read_bytes(), DEMO_QUALITY.name), \
        (DEMO_LATENCY.read_bytes(), DEMO_LATENCY.name), None
    qformat, runs = "golden", ()
(ldata, lname) = latency

try:
    if tables is not None:
        q_methods, binary = retriever_methods(tables["tables"], tables["metric"])
        l_methods = list(load_timings(ldata, file=lname).methods)
    else:
        (qdata, qname) = quality
        q_methods, l_methods, binary = _methods(qdata, qname, ldata, lname, qformat, measure,
                                                k, runs)
        if qformat == "golden" and has_cluster_column(qdata, qname):   # issue 32: say so
            inputs.warning(tr_md("clusters.decide_page_independent", file=qname), icon="⚠️")
except InputError as exc:
    with inputs:
        show_error(exc)
    st.stop()
shared = [m for m in q_methods if m in l_methods] or q_methods

settings = stat_settings("decide")
c_a, c_b = inputs.columns(2)
a = c_a.selectbox(tr("switch.method_a"), shared, index=url_index("a", shared, 0),
                  key="decide_a")
b = c_b.selectbox(tr("switch.method_b"), shared,
                  index=url_index("b", shared, 1 if len(shared) > 1 else 0), key="decide_b")
c_m, c_s = inputs.columns(2)
if binary[a] and binary[b]:
    margin_in = c_m.number_input(tr("switch.margin_rate"), 0.0, 50.0,
                                 url_number("margin", 0.0, 50.0, 2.0, float), step=0.5,
                                 format="%.1f", key="decide_margin_pp",
                                 help=tr("switch.margin_help"))
    margin = margin_in / 100
else:
    margin_in = c_m.number_input(tr("switch.margin_score"), 0.0, 0.99,
                                 url_number("margin", 0.0, 0.99, 0.02, float), step=0.005,
                                 format="%.3f", key="decide_margin_score",
                                 help=tr("switch.margin_help"))
    margin = margin_in
max_slowdown = c_s.number_input(tr("switch.max_slowdown"), MIN_SLOWDOWN, MAX_SLOWDOWN,
                                url_number("max_slowdown", MIN_SLOWDOWN, MAX_SLOWDOWN,
                                           DEFAULT_MAX_SLOWDOWN, float),
                                step=0.05, format="%.2f", key="decide_max_slowdown",
                                help=tr("switch.max_slowdown_help"))
harm_in = inputs.number_input(tr("harm.max_input"), 0.0, 50.0,
                              url_number("max_harm", 0.0, 50.0, 0.0, float), step=1.0,
                              format="%.1f", key="decide_max_harm", help=tr("harm.max_help"))
max_harm = harm_in / 100 if harm_in > 0 else None   # 0: off, two conditions as before
looks_again = sequential_toggle("decide", inputs)
from_file = q_from == "file"
keep_in_url(a=a, b=b, margin=f"{margin_in:g}", max_slowdown=f"{max_slowdown:g}",
            seq=url_flag(looks_again),
            max_harm=f"{harm_in:g}" if max_harm is not None else None,
            format=st.session_state.get("decide_format") if from_file else None,
            measure=measure if from_file and qformat in ("lists", "trec") else None,
            k=k if from_file and qformat == "lists" else None, **settings.url())

try:
    with st.spinner(tr("latency.computing")):
        if tables is not None:
            dec = _decide_retrievers(tables["tables"], tables["queries"], tables["metric"],
                                     tables["collection"], ldata, lname, float(margin),
                                     float(max_slowdown), a, b, settings.confidence,
                                     settings.resamples, settings.seed, settings.interval,
                                     max_harm, looks_again)
        else:
            dec = _decide(qdata, qname, ldata, lname, float(margin), float(max_slowdown), a, b,
                          settings.confidence, settings.resamples, settings.seed,
                          settings.interval, qformat, measure, k, runs, max_harm, looks_again)
except InputError as exc:
    with inputs:
        show_error(exc)
    st.stop()
except ValueError:   # the sequential mode with values outside [0, 1]
    if not looks_again:
        raise
    range_warning(inputs)
    st.stop()

lang = current_lang()
level = fmt_level(dec.confidence)
card = decision_card(dec, lang)
q_chart = quality_chart(dec, title=tr("switch.chart_quality", a=a, b=b, level=level),
                        x_title=tr("switch.axis_quality", a=a, b=b)
                        + (" (%p)" if dec.kind == "rate" else ""),
                        limit_label=tr("switch.mark_margin"))
s_chart = speed_chart(dec, title=tr("switch.chart_speed", a=a, b=b, level=level),
                      x_title=tr("switch.axis_speed", a=a, b=b),
                      limit_label=tr("switch.mark_max"))
with head:
    if dec.sequential is not None:   # the quality condition read off the sequence
        show_sequential(dec.sequential, a, b, lang, dec.arrival)
        st.caption(esc(quality_line(dec.quality_condition, dec.kind, dec.margin, lang).strip()))
    show_card(card)
    if presenting():   # the one chart: the condition that decides (quality when both hold)
        first = dec.failing[0].name if dec.failing else "quality"
        draw_chart((q_chart if first == "quality" else s_chart).properties(title=""),
                   present_height=PRESENT_CHART_HEIGHT)
with guide:
    how_to_read("switch.how_to_read")
end_of_presentation()

for w in dec.latency_warnings:  # they quote method names: shown literally
    st.warning(esc(tr("switch.latency_warning", text=w.message(lang))), icon="⚠️")

st.subheader(tr("switch.details"))
states = {c.name: tr(f"switch.state_{c.state}") for c in dec.conditions}
q, s = dec.quality_condition, dec.speed_condition
rows = [(tr("switch.row_quality"), states["quality"], fmt.diff(q.bound, dec.kind),
         fmt.diff(q.limit, dec.kind), limit_cell(q, dec.kind, lang)),
        (tr("switch.row_speed"), states["speed"], ratio_text(s.bound), ratio_text(s.limit),
         limit_cell(s, dec.kind, lang))]
h = dec.harm_condition
if h is not None:   # --max-harm: the hurt share's bound against the share allowed
    rows.append((tr("harm.row"), states["harm"], fmt.pct(h.bound), fmt.pct(h.limit),
                 harm_gap_cell(h, lang)))
conditions = pd.DataFrame(rows, columns=[tr("switch.col_condition"), tr("switch.col_state"),
                                         tr("switch.col_bound"), tr("switch.col_limit"),
                                         tr("switch.col_gap")])
show_table(conditions)
harm_text = [] if dec.harm is None else harm_lines(dec.harm, a, b, dec.kind, lang)
for line in harm_text:   # method names inside: shown literally
    st.markdown(esc(line))
left, right = st.columns(2)
draw_chart(q_chart, left)
draw_chart(s_chart, right)

st.subheader(tr("switch.report_title"))
sections = [Section(tr("switch.details"), " ".join([decision_sentence(dec, lang), *harm_text]),
                   table=conditions),
            Section(tr("switch.chart_quality", a=a, b=b, level=level), chart=q_chart),
            Section(tr("switch.chart_speed", a=a, b=b, level=level), chart=s_chart)]
if dec.sequential is not None:   # issue 33: the sequence and the quality line read off it
    sections.insert(0, sequential_section(
        dec.sequential, a, b, lang, dec.arrival,
        extra=quality_line(dec.quality_condition, dec.kind, dec.margin, lang)))
report_inputs = {lname: ldata} if tables is not None else \
    {qname: qdata, **dict(runs), lname: ldata}
report_downloads("decide", tr("switch.title"), sections, inputs=report_inputs,
                 params={"a": a, "b": b, "margin": margin_text(dec.margin, dec.kind),
                         "max_slowdown": ratio_text(dec.max_slowdown),
                         **({} if max_harm is None else {"max_harm": fmt.pct(max_harm)}),
                         "resamples": settings.resamples, "seed": settings.seed,
                         "confidence": level, "interval": settings.interval},
                 summary=dec.to_dict(), verdict=card.sentence, card=card)
