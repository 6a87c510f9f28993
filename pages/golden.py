"""Golden-case comparison: load -> core.golden.compare_golden -> draw. Nothing computed here."""
from pathlib import Path

import pandas as pd
import streamlit as st

from core.charts import bootstrap_histogram, interval_chart
from core.errors import InputError
from core.golden import compare_golden, load_golden
from core.stats import CONFIDENCE_LEVELS, MAX_RESAMPLES, MIN_RESAMPLES
from core.verdicts import comparison_verdict, pct, pp
from pages._ui import (Section, esc, esc_frame, how_to_read, interval_choice, page_setup,
                       report_downloads, second_opinions, sha256, show_error, tr, tr_md,
                       verdict_md, verdict_notes)

DEMO = Path(__file__).resolve().parent.parent / "data" / "demo_golden.csv"

page_setup()


@st.cache_data(show_spinner=False, max_entries=16)
def _load(data: bytes, name: str):
    return load_golden(data, file=name)


@st.cache_data(show_spinner=False, max_entries=32)
def _compare(data: bytes, name: str, a: str, b: str, resamples: int, confidence: float,
             seed: int, interval: str = "percentile"):
    return compare_golden(_load(data, name), a, b, resamples=resamples,
                          confidence=confidence, seed=seed, interval=interval)


st.title(tr("golden.title"))
st.caption(tr("golden.subtitle"))

upload = st.file_uploader(tr("golden.upload_label"), type=["csv", "tsv", "txt", "xlsx"],
                          key="golden_upload", help=tr("golden.upload_help"))
if upload is not None:
    data, name = upload.getvalue(), upload.name
else:
    data, name = DEMO.read_bytes(), "demo_golden.csv"
    st.info(tr("golden.demo_note"), icon="ℹ️")

try:
    golden = _load(data, name)
except InputError as exc:
    show_error(exc)
    st.stop()

if golden.sheet is not None:
    st.caption(tr_md("golden.sheet_read", sheet=golden.sheet,
                     others=", ".join(golden.other_sheets) or "—"))
if golden.unicode_merged:
    st.warning(tr_md("golden.unicode_merged", n=len(golden.unicode_merged),
                     ids=", ".join(f"{cid} ({', '.join(map(str, rows))})" for cid, rows in
                                   list(golden.unicode_merged.items())[:10])), icon="⚠️")
st.session_state["golden_set"] = golden
st.session_state["golden_source"] = {"name": name, "sha256": sha256(data)}
methods = golden.methods
if len(methods) < 2:
    show_error(InputError("need_two_methods", file=name, methods=", ".join(methods)))
    st.stop()

with st.sidebar:
    st.subheader(tr("common.settings"))
    confidence = st.selectbox(tr("common.confidence"), CONFIDENCE_LEVELS, index=1,
                              format_func=lambda c: f"{100 * c:g}%", key="golden_confidence")
    resamples = st.number_input(tr("common.resamples"), MIN_RESAMPLES, MAX_RESAMPLES, 20_000,
                                step=1_000, key="golden_resamples")
    seed = st.number_input(tr("common.seed"), 0, 2**31 - 1, 0, key="golden_seed")
    interval = interval_choice("golden_interval")

col_a, col_b = st.columns(2)
a = col_a.selectbox(tr("golden.method_a"), methods, index=0, key="golden_a")
b = col_b.selectbox(tr("golden.method_b"), methods, index=1, key="golden_b")

try:
    with st.spinner(tr("golden.computing")):
        result = _compare(data, name, a, b, int(resamples), float(confidence), int(seed),
                          interval)
except InputError as exc:
    show_error(exc)
    st.stop()
st.session_state["golden_comparison"] = result
c, bs = result.comparison, result.comparison.bootstrap
lang_verdict = comparison_verdict(result, st.session_state["lang"])
(st.warning if c.verdict == "no_difference" else st.success)(
    verdict_md(result, st.session_state["lang"]))
reason_slot = st.container()

ex = result.excluded
if ex.total:
    st.warning(tr_md("golden.excluded", total=ex.total, missing=len(ex.missing),
                  duplicates=len(ex.duplicates), blank=len(ex.blank),
                  ids=", ".join(sorted(set(ex.missing) | set(ex.duplicates)
                                       | set(ex.blank))[:20])))

level = f"{100 * confidence:g}%"
m1, m2, m3 = st.columns(3)
for col, (mname, r) in zip((m1, m2), ((c.a, c.rate_a), (c.b, c.rate_b))):
    count = f" ({r.successes}/{r.n})" if r.successes is not None else ""
    col.metric(esc(mname), f"{pct(r.mean)}{count}",
               help=tr("golden.interval_help_" + r.interval, level=level))
    col.caption(tr("golden.interval_line", level=level, kind=tr("golden.kind_" + r.interval),
                   lo=pct(r.ci_low), hi=pct(r.ci_high), step=f"{100 / r.n:.1f}"))
m3.metric(tr_md("golden.difference", a=c.a, b=c.b), pp(bs.mean))
m3.caption(tr("golden.difference_ci", level=level, lo=pp(bs.ci_low), hi=pp(bs.ci_high)))
with reason_slot:
    verdict_notes(c.decision, bs, m3)

left, right = st.columns(2)
rates = pd.DataFrame([{"name": n_, "mean": r.mean, "ci_low": r.ci_low, "ci_high": r.ci_high}
                      for n_, r in ((c.a, c.rate_a), (c.b, c.rate_b))])
rates_chart = interval_chart(rates, title=tr("golden.chart_rates", level=level),
                             x_title=tr("golden.axis_rate"))
boot_chart = bootstrap_histogram(bs.distribution, bs.ci_low, bs.ci_high,
                                 title=tr("golden.chart_bootstrap", resamples=f"{bs.resamples:,}"),
                                 x_title=tr("golden.axis_diff", a=c.a, b=c.b),
                                 y_title=tr("common.axis_resamples"))
left.altair_chart(rates_chart, width="stretch")
right.altair_chart(boot_chart, width="stretch")

st.subheader(tr("golden.second_opinions"))
tests_table = second_opinions(c)
st.table(tests_table)

table_2x2 = None
if c.table is not None:
    both, a_only, b_only, neither = c.table
    st.subheader(tr("golden.table_title"))
    table_2x2 = pd.DataFrame(
        [[both, a_only], [b_only, neither]],
        index=[tr("golden.right", m=c.b), tr("golden.wrong", m=c.b)],
        columns=[tr("golden.right", m=c.a), tr("golden.wrong", m=c.a)]).T
    st.table(esc_frame(table_2x2))

disc = result.discordant().reset_index(drop=True).rename(
    columns={"difference": tr("golden.col_difference", a=c.a, b=c.b)})
st.subheader(tr("golden.discordant_title", n=len(disc)))
if len(disc):
    st.dataframe(disc, hide_index=True, width="stretch")
else:
    st.caption(tr("golden.no_discordant"))

st.subheader(tr("golden.report_title"))
rate_rows = pd.DataFrame([
    {tr("golden.col_method"): n_, tr("golden.col_score"): pct(r.mean),
     tr("golden.col_count"): "" if r.successes is None else f"{r.successes}/{r.n}",
     tr("golden.col_interval", level=level): f"[{pct(r.ci_low)}, {pct(r.ci_high)}]"}
    for n_, r in ((c.a, c.rate_a), (c.b, c.rate_b))])
diff_rows = pd.DataFrame(
    [(tr("golden.difference", a=c.a, b=c.b), pp(bs.mean)),
     (tr("golden.ci_label", level=level), f"[{pp(bs.ci_low)}, {pp(bs.ci_high)}]"),
     *tests_table.itertuples(index=False, name=None)],
    columns=[tr("golden.col_test"), tr("golden.col_value")])
paired_cases = pd.DataFrame({"case_id": list(result.case_ids), c.a: result.a_values,
                             c.b: result.b_values,
                             "difference": result.a_values - result.b_values})  # a data file
sections = [
    Section(tr("golden.rates_title"), tr("golden.resolution_text", n=result.n_cases,
                                         step=f"{100 / result.n_cases:.1f}"), table=rate_rows),
    Section(tr("golden.difference_title"), table=diff_rows),
    Section(tr("golden.chart_rates", level=level), chart=rates_chart),
    Section(tr("golden.chart_bootstrap", resamples=f"{bs.resamples:,}"), chart=boot_chart),
]
if table_2x2 is not None:
    sections.append(Section(tr("golden.table_title"), table=table_2x2))
sections.append(Section(tr("golden.discordant_title", n=len(disc)),
                        "" if len(disc) else tr("golden.no_discordant"),
                        table=disc if len(disc) else None))
report_downloads("golden", tr("golden.title"), sections, inputs={name: data},
                 params={"a": c.a, "b": c.b, "resamples": int(resamples), "seed": int(seed),
                         "confidence": f"{100 * confidence:g}%"},
                 per_case=paired_cases, summary=result.to_dict(), verdict=lang_verdict)

how_to_read("golden.how_to_read", n=result.n_cases, step=f"{100 / result.n_cases:.1f}",
            level=level)
