"""Switch? One decision from quality and speed: two files -> core.switch.decide_files -> draw.
Nothing computed here.

The quality file is a golden-case table (the golden page's format) or a retrieval-list CSV
scored per case (the systems page's), the speed file a timing log (the latency page's format); both must name A and B the same way. Without both uploads
the built-in demo pair (``data/demo_switch_*.csv``) is used.
"""
from pathlib import Path

import pandas as pd
import streamlit as st

from core.errors import InputError
from core.latency_log import load_timings
from core.lists import LIST_METRICS
from core.switch import DEFAULT_MAX_SLOWDOWN, QUALITY_FORMATS, decide_files, load_quality
from core.views import format as fmt
from core.views.format import level as fmt_level
from core.views.switch import (decision_card, decision_sentence, loss_text, margin_text,
                               quality_chart, ratio_text, speed_chart)
from pages._ui import (PRESENT_CHART_HEIGHT, Section, current_lang, draw_chart,
                       end_of_presentation, esc, how_to_read, inputs_box, keep_in_url, page_setup,
                       present_css, presenting, report_downloads, show_card, show_error,
                       show_table, stat_settings, TABLE_TYPES, tr, url_index, url_number)

DATA = Path(__file__).resolve().parent.parent / "data"
DEMO_QUALITY, DEMO_LATENCY = DATA / "demo_switch_golden.csv", DATA / "demo_switch_latency.csv"

page_setup()


@st.cache_data(show_spinner=False, max_entries=16)
def _methods(qdata: bytes, qname: str, ldata: bytes, lname: str, qformat: str, measure: str,
             k: int):
    """(quality methods, latency methods, {method: 0/1 outcomes?}) of the two files."""
    gs = load_quality(qdata, qname, quality_format=qformat, measure=measure, k=k)
    log = load_timings(ldata, file=lname)
    return list(gs.methods), list(log.methods), {m: gs.is_binary(m) for m in gs.methods}


@st.cache_data(show_spinner=False, max_entries=32)
def _decide(qdata, qname, ldata, lname, margin, max_slowdown, a, b, confidence, resamples,
            seed, interval, qformat, measure, k):
    return decide_files(qdata, qname, ldata, lname, margin=margin, max_slowdown=max_slowdown,
                        a=a, b=b, confidence=confidence, resamples=resamples, seed=seed,
                        interval=interval, quality_format=qformat, measure=measure, k=k)


st.title(tr("switch.title"))
st.caption(tr("switch.question"))
head = st.container()                    # the decision card (and, presenting, its chart)
guide = st.container(key="decide_guide")  # "How to read this", collapsed
inputs = inputs_box("decide")
present_css("decide")

format_names = {f: tr(f"switch.format_{f}") for f in QUALITY_FORMATS}
qformat = inputs.radio(tr("switch.format"), QUALITY_FORMATS, horizontal=True,
                       index=url_index("format", QUALITY_FORMATS, 0), key="decide_format",
                       format_func=format_names.get)
measure, k = "ndcg", 10
if qformat == "lists":
    f1, f2 = inputs.columns(2)
    metric_names = {m: tr(f"systems.metric_{m}") for m in LIST_METRICS}
    measure = f1.selectbox(tr("switch.measure"), LIST_METRICS,
                           index=url_index("measure", LIST_METRICS, LIST_METRICS.index("ndcg")),
                           format_func=metric_names.get, key="decide_measure")
    k = int(f2.number_input(tr("switch.k"), 1, 1000, url_number("k", 1, 1000, 10), step=1,
                            key="decide_k"))
up_q, up_l = inputs.columns(2)
q_upload = up_q.file_uploader(tr("switch.upload_quality_label"), type=TABLE_TYPES,
                              key="decide_quality_upload", help=tr("switch.upload_quality_help"))
l_upload = up_l.file_uploader(tr("switch.upload_latency_label"), type=TABLE_TYPES,
                              key="decide_latency_upload", help=tr("switch.upload_latency_help"))
if qformat == "lists" and q_upload is None:   # the demo pair is a golden-case table
    qformat = "golden"
if q_upload is not None and l_upload is not None:
    qdata, qname = q_upload.getvalue(), q_upload.name
    ldata, lname = l_upload.getvalue(), l_upload.name
else:
    if q_upload is not None or l_upload is not None:
        inputs.warning(tr("switch.demo_partial"), icon="ℹ️")
    else:
        inputs.info(tr("switch.demo_note"), icon="ℹ️")
    qdata, qname = DEMO_QUALITY.read_bytes(), DEMO_QUALITY.name
    ldata, lname = DEMO_LATENCY.read_bytes(), DEMO_LATENCY.name

try:
    q_methods, l_methods, binary = _methods(qdata, qname, ldata, lname, qformat, measure, k)
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
max_slowdown = c_s.number_input(tr("switch.max_slowdown"), 0.1, 10.0,
                                url_number("max_slowdown", 0.1, 10.0, DEFAULT_MAX_SLOWDOWN,
                                           float),
                                step=0.05, format="%.2f", key="decide_max_slowdown",
                                help=tr("switch.max_slowdown_help"))
keep_in_url(a=a, b=b, margin=f"{margin_in:g}", max_slowdown=f"{max_slowdown:g}",
            format=st.session_state["decide_format"],
            measure=measure if qformat == "lists" else None,
            k=k if qformat == "lists" else None, **settings.url())

try:
    with st.spinner(tr("latency.computing")):
        dec = _decide(qdata, qname, ldata, lname, float(margin), float(max_slowdown), a, b,
                      settings.confidence, settings.resamples, settings.seed, settings.interval,
                      qformat, measure, k)
except InputError as exc:
    with inputs:
        show_error(exc)
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
states = {c.name: tr(f"switch.state_{c.state}") for c in (dec.quality_condition,
                                                         dec.speed_condition)}
q, s = dec.quality_condition, dec.speed_condition
conditions = pd.DataFrame(
    [(tr("switch.row_quality"), states["quality"], fmt.diff(q.bound, dec.kind),
      fmt.diff(q.limit, dec.kind), loss_text(q.gap, dec.kind)),
     (tr("switch.row_speed"), states["speed"], ratio_text(s.bound), ratio_text(s.limit),
      f"{s.gap:.2f}×")],
    columns=[tr("switch.col_condition"), tr("switch.col_state"), tr("switch.col_bound"),
             tr("switch.col_limit"), tr("switch.col_gap")])
show_table(conditions)
left, right = st.columns(2)
draw_chart(q_chart, left)
draw_chart(s_chart, right)

st.subheader(tr("switch.report_title"))
sections = [Section(tr("switch.details"), decision_sentence(dec, lang), table=conditions),
            Section(tr("switch.chart_quality", a=a, b=b, level=level), chart=q_chart),
            Section(tr("switch.chart_speed", a=a, b=b, level=level), chart=s_chart)]
report_downloads("decide", tr("switch.title"), sections, inputs={qname: qdata, lname: ldata},
                 params={"a": a, "b": b, "margin": margin_text(dec.margin, dec.kind),
                         "max_slowdown": ratio_text(dec.max_slowdown),
                         "resamples": settings.resamples, "seed": settings.seed,
                         "confidence": level, "interval": settings.interval},
                 summary=dec.to_dict(), verdict=card.sentence, card=card)
