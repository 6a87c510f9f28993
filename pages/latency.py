"""Latency: load a timing log -> core.latency.compare.compare_latency -> draw. Nothing computed here."""
from pathlib import Path

import pandas as pd
import streamlit as st

from core.errors import InputError
from core.latency import DEFAULT_QUANTILE_RESAMPLES, UNIT_CHOICES, compare_latency, load_timings
from core.paired import MAX_RESAMPLES, MIN_RESAMPLES
from core.views import VerdictCard
from core.views import fmt_p, level as fmt_level, p_text, ratio as fmt_ratio, ratio_digits
from core.views import (alternative_sentence, cannot_tell_reason, caveat_line,
                                distribution_chart, ratios_line,
                                p95_ci_text, p95_withheld_sentence, ratio_chart, runs_chart,
                                speed_headline, units_sentence, verdict_sentence)
from core.views import tone_of
from pages._ui import (PRESENT_CHART_HEIGHT, Section, draw_chart, end_of_presentation, esc,
                       how_to_read, inputs_box, keep_in_url, page_setup, presenting,
                       report_downloads, show_card, show_error, show_frame, show_table,
                       stat_settings, tr, tr_md, upload_or_demo, url_index, url_number)

DEMO = Path(__file__).resolve().parent.parent / "data" / "demo_latency.csv"

page_setup()


@st.cache_data(show_spinner=False, max_entries=16)
def _load(data: bytes, name: str):
    return load_timings(data, file=name)


@st.cache_data(show_spinner=False, max_entries=32)
def _compare(data: bytes, name: str, a: str, b: str, resamples: int, quantile_resamples: int,
             confidence: float, seed: int, drop: int, units: tuple):
    return compare_latency(_load(data, name), a, b, resamples=resamples,
                           quantile_resamples=quantile_resamples, confidence=confidence,
                           seed=seed, drop_warmup=drop, units=dict(units) or None)


def _ms(x: float) -> str:
    return f"{x:.3g}" if x < 100 else f"{x:,.0f}"


def _apply_warmup(k: int) -> None:
    st.session_state["latency_drop_warmup"] = k


st.title(tr("latency.title"))
st.caption(tr("latency.question"))
head = st.container()   # the verdict card (and, presenting, its chart): first on the page
guide = st.container()  # "How to read this", collapsed
inputs = inputs_box("latency")

data, name = upload_or_demo("latency", DEMO, inputs)

try:
    log = _load(data, name)
except InputError as exc:
    show_error(exc)
    st.stop()
if st.session_state.get("latency_upload") is not None:   # for the Switch? page
    st.session_state["latency_file"] = {"name": name, "data": data}
if log.encoding == "cp949":  # say which encoding was read (Korean Excel's CSV)
    inputs.caption(tr("common.read_as_cp949"))
if len(log.methods) < 2:
    show_error(InputError("need_two_methods", file=name, methods=", ".join(log.methods)))
    st.stop()

stats = stat_settings("latency", interval=False)  # confidence, resamples, seed
confidence, resamples, seed = stats.confidence, stats.resamples, stats.seed
with st.sidebar:
    q_resamples = st.number_input(tr("latency.quantile_resamples"), MIN_RESAMPLES,
                                  MAX_RESAMPLES,
                                  url_number("quantile_resamples", MIN_RESAMPLES, MAX_RESAMPLES,
                                             DEFAULT_QUANTILE_RESAMPLES),
                                  step=1_000, key="latency_quantile_resamples")

col_a, col_b, col_k = inputs.columns(3)
a = col_a.selectbox(tr("latency.method_a"), log.methods, index=url_index("a", log.methods, 0),
                    key="latency_a")
b = col_b.selectbox(tr("latency.method_b"), log.methods, index=url_index("b", log.methods, 1),
                    key="latency_b")
max_runs = int(log.frame["run"].max())
max_drop = max(max_runs - 1, 0)
st.session_state.setdefault("latency_drop_warmup", url_number("warmup", 0, max_drop, 0))
if st.session_state["latency_drop_warmup"] > max_drop:
    st.session_state["latency_drop_warmup"] = 0
drop = col_k.number_input(tr("latency.drop_warmup"), 0, max_drop, step=1,
                          key="latency_drop_warmup", help=tr("latency.drop_warmup_help"))
col_ua, col_ub, _ = inputs.columns(3)
unit_options = ("", *UNIT_CHOICES)   # "": not stated (taken as ms, not as confirmed)
unstated = tr("latency.unit_unstated")  # read now: the label must not change after the run
unit_a = col_ua.selectbox(tr_md("latency.unit_label", method=a), unit_options,
                          key="latency_unit_a", format_func=lambda u: u or unstated,
                          help=tr("latency.unit_help"))
unit_b = col_ub.selectbox(tr_md("latency.unit_label", method=b), unit_options,
                          key="latency_unit_b", format_func=lambda u: u or unstated,
                          help=tr("latency.unit_help"))
units = tuple((m, u) for m, u in ((a, unit_a), (b, unit_b)) if u and a != b)
url = {k: v for k, v in stats.url().items() if k != "interval"}
keep_in_url(a=a, b=b, warmup=int(drop), quantile_resamples=int(q_resamples), **url)

try:
    with st.spinner(tr("latency.computing")):
        res = _compare(data, name, a, b, int(resamples), int(q_resamples), float(confidence),
                       int(seed), int(drop), units)
except InputError as exc:
    show_error(exc)
    st.stop()

lang = st.session_state["lang"]
r = res.ratio
level = fmt_level(confidence)
refused = res.verdict == "units_unclear"   # the unit check withholds the verdict
verdict_text = verdict_sentence(res, lang)
gd = ratio_digits(r.geo_mean_ratio, r.geo_ci_low, r.geo_ci_high)  # the CI visibly against 1
geo = fmt_ratio(r.geo_mean_ratio, gd)
geo_lo = fmt_ratio(r.geo_ci_low, gd)
geo_hi = fmt_ratio(r.geo_ci_high, gd)
# the card reads "is B (new) faster than A (baseline)": the geometric mean of the per-query
# ratios B/A with its CI; green when B is faster, red when slower (palette.tone_of); names are
# HTML-escaped by card_html
if refused:
    card = VerdictCard(tone=tone_of(res.verdict), label=tr("latency.card_label", a=a, b=b),
                       value=tr("latency.card_value_units"), interval="",
                       sentence=units_sentence(res, lang), reason=tr("latency.card_reason_units"),
                       caveats=caveat_line(res.warnings, lang))
else:
    card = VerdictCard(tone=tone_of(res.verdict), label=tr("latency.card_label", a=a, b=b),
                       value=f"{geo}×",
                       interval=f"{level} {tr('common.ci_short')} [{geo_lo}, {geo_hi}]",
                       sentence=speed_headline(r, a=a, b=b, lang=lang),
                       reason=cannot_tell_reason(r, lang) or tr(
                           "latency.card_reason", p=p_text(r.randomization_p), n=r.n_queries),
                       caveats=caveat_line(res.warnings, lang))
ratio_fig = ratio_chart(res.per_query.ratio, title=tr("latency.chart_ratio", a=a, b=b),
                        x_title=tr("latency.axis_query_rank"), y_title=tr("latency.axis_ratio"),
                        faster_label=tr("latency.side_faster", b=b),
                        slower_label=tr("latency.side_slower", b=b))
with head:
    show_card(card)
    if not refused:  # the one answer, and what the page's other ratios are
        st.caption(esc(ratios_line(res, lang)))
    if presenting():  # the card's caveat line (two lines in Korean) takes 20 px of the chart
        draw_chart(ratio_fig, present_height=PRESENT_CHART_HEIGHT - (20 if card.caveats else 0))
end_of_presentation()
with guide:
    how_to_read("latency.how_to_read")
if res.alternative is not None and not refused:
    st.info(alternative_sentence(res.alternative, a=esc(a), b=esc(b), lang=lang), icon="🔁")

m1, m2, m3 = st.columns(3)
for col, m in ((m1, res.method_a), (m2, res.method_b)):
    col.metric(tr_md("latency.metric_median", method=m.name), f"{_ms(m.median)} ms",
               help=tr("latency.metric_median_help", level=level,
                       resamples=f"{res.quantile_resamples:,}"))
    if m.p95_ci is None:  # withheld below core.latency.p95's minimums
        col.caption(tr("latency.metric_ci_no_p95_ci", level=level, lo=_ms(m.median_ci[0]),
                       hi=_ms(m.median_ci[1]), p95=_ms(m.p95), n=f"{m.n_queries:,}",
                       runs=f"{m.n_runs:,}"))
    else:
        col.caption(tr("latency.metric_ci", level=level, lo=_ms(m.median_ci[0]),
                       hi=_ms(m.median_ci[1]), p95=_ms(m.p95), p95_lo=_ms(m.p95_ci[0]),
                       p95_hi=_ms(m.p95_ci[1]), n=f"{m.n_queries:,}", runs=f"{m.n_runs:,}"))
md = ratio_digits(r.median_ratio, r.ci_low, r.ci_high)
m3.metric(tr_md("latency.metric_ratio", a=a, b=b), f"{fmt_ratio(r.median_ratio, md)}×")
m3.caption(tr("latency.metric_ratio_ci", level=level, lo=fmt_ratio(r.ci_low, md),
              hi=fmt_ratio(r.ci_high, md), geo=geo, geo_lo=geo_lo, geo_hi=geo_hi))
p95_withheld = p95_withheld_sentence(res, lang)
if p95_withheld is not None:
    st.caption(esc(p95_withheld))

st.subheader(tr("latency.warnings_title"))
warning_texts = [w.message(lang) for w in res.warnings]
for text in warning_texts:  # they quote method names: shown literally
    st.warning(esc(text), icon="⚠️")
order_unknown = res.pair is None or res.pair.n_pairs == 0
no_warnings = tr("latency.no_warnings_order_unknown" if order_unknown else "latency.no_warnings")
if not warning_texts:
    st.info(no_warnings, icon="✅")

st.subheader(tr("latency.warmup_title"))
if res.suggested_warmup > 0:
    wc1, wc2 = st.columns([3, 1])
    wc1.write(tr("latency.warmup_suggest", count=int(res.suggested_warmup)))
    wc2.button(tr("latency.apply_warmup", count=int(res.suggested_warmup)),
               key="latency_apply_warmup",
               on_click=_apply_warmup, args=(res.suggested_warmup,),
               disabled=int(drop) == res.suggested_warmup)
else:
    st.write(tr("latency.warmup_none"))
runs_fig = runs_chart(res.warmup, k=res.suggested_warmup, title=tr("latency.chart_runs"),
                      x_title=tr("latency.axis_run"), y_title=tr("latency.axis_geo"),
                      mark_label=tr("latency.mark_warmup"))
draw_chart(runs_fig)

left, right = st.columns(2)
dist_fig = distribution_chart(res.distributions, title=tr("latency.chart_dist"),
                              x_title=tr("latency.axis_latency"),
                              y_title=tr("latency.axis_share"))
draw_chart(dist_fig, left)
draw_chart(ratio_fig, right)

st.subheader(tr("latency.methods_title"))
method_rows = pd.DataFrame([
    {tr("latency.col_method"): m.name, tr("latency.col_median"): _ms(m.median),
     tr("latency.col_median_ci", level=level): f"[{_ms(m.median_ci[0])}, {_ms(m.median_ci[1])}]",
     tr("latency.col_p95"): _ms(m.p95),
     tr("latency.col_p95_ci", level=level): p95_ci_text(m),
     tr("latency.col_queries"): m.n_queries, tr("latency.col_runs"): m.n_runs}
    for m in (res.method_a, res.method_b)])
show_table(method_rows)

st.subheader(tr("latency.ratio_title"))
md3 = max(3, md)
gd3 = max(3, ratio_digits(r.geo_mean_ratio, r.geo_ci_low, r.geo_ci_high))
ratio_rows = pd.DataFrame(
    [(tr("latency.row_median_ratio", a=a, b=b), fmt_ratio(r.median_ratio, md3)),
     (tr("latency.row_ci", level=level),
      f"[{fmt_ratio(r.ci_low, md3)}, {fmt_ratio(r.ci_high, md3)}]"),
     (tr("latency.row_geo_ratio", a=a, b=b), fmt_ratio(r.geo_mean_ratio, gd3)),
     (tr("latency.row_ci", level=level),
      f"[{fmt_ratio(r.geo_ci_low, gd3)}, {fmt_ratio(r.geo_ci_high, gd3)}]"),
     (tr("latency.row_randomization"), fmt_p(r.randomization_p)),
     (tr("latency.row_resamples"), f"{r.resamples:,} ({r.seed})")],
    columns=[tr("latency.col_measure"), tr("latency.col_value")])
show_table(ratio_rows)

target = f"{100 * (res.plan.target if res.plan else 0.05):g}"
st.subheader(tr("latency.plan_title", target=target))
if res.plan is None:
    plan_text = tr("latency.plan_none")
else:
    p = res.plan
    plan_text = tr("latency.plan_text", now=f"{100 * p.current_half_width:.1f}",
                   sd=f"{p.sd_log_ratio:.3f}", target=target, n=f"{p.n_queries:,}",
                   runs=f"{p.runs:.3g}", n2=f"{p.n_queries_double_runs:,}",
                   floor=f"{p.n_queries_floor:,}")
st.write(plan_text)

per_query = res.per_query.frame()  # the CSV keeps these stable English column names
per_query_shown = per_query.rename(columns={
    "query_id": tr("latency.col_query_id"), "median_a_ms": tr("latency.col_median_a", a=a),
    "median_b_ms": tr("latency.col_median_b", b=b), "runs_a": tr("latency.col_runs_a", a=a),
    "runs_b": tr("latency.col_runs_b", b=b), "ratio_b_over_a": tr("latency.col_ratio")})
with st.expander(tr("latency.per_query_title")):
    show_frame(per_query_shown, hide_index=True, width="stretch")

st.subheader(tr("latency.report_title"))
sections = [
    Section(tr("latency.methods_title"), table=method_rows),
    Section(tr("latency.ratio_title"), table=ratio_rows),
    Section(tr("latency.warnings_title"),
            "\n".join(warning_texts) if warning_texts else no_warnings),
    Section(tr("latency.chart_runs"), chart=runs_fig),
    Section(tr("latency.chart_dist"), chart=dist_fig),
    Section(tr("latency.chart_ratio", a=a, b=b), chart=ratio_fig),
    Section(tr("latency.plan_title", target=target), plan_text),
]
report_downloads("latency", tr("latency.title"), sections, inputs={name: data}, card=card,
                 params={"a": a, "b": b, "resamples": int(resamples),
                         "quantile_resamples": int(q_resamples), "seed": int(seed),
                         "confidence": level, "drop_warmup": int(drop),
                         "units": ", ".join(f"{m}={u}" for m, u in units) or "–"},
                 per_case=per_query, summary=res.to_dict(), verdict=verdict_text)

