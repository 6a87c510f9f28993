"""Golden-case comparison: load -> core.golden.compare_golden -> draw. Nothing computed here."""
from pathlib import Path

import pandas as pd
import streamlit as st

from core.views.charts import bootstrap_histogram, interval_chart
from core.errors import InputError
from core.golden import compare_golden, load_golden
from core.stats import CONFIDENCE_LEVELS, MAX_RESAMPLES, MIN_RESAMPLES
from core.verdicts import comparison_verdict, reason_sentence
from core.views import format as fmt
from core.views.cards import paired_card
from core.views.format import level as fmt_level
from pages._ui import (Section, draw_chart, end_of_presentation, esc, esc_frame, glossary,
                       how_to_read, interval_choice, keep_in_url, page_setup,
                       report_downloads, second_opinions, sha256, show_card, show_error,
                       tr, tr_md, url_index, url_number, verdict_notes)

DEMO = Path(__file__).resolve().parent.parent / "data" / "demo_golden.csv"

page_setup()


@st.cache_data(show_spinner=False, max_entries=16)
def _load(data: bytes, name: str):
    return load_golden(data, file=name)


@st.cache_data(show_spinner=False, max_entries=32)
def _compare(data: bytes, name: str, a: str, b: str, resamples: int, confidence: float,
             seed: int, interval: str = "auto"):
    return compare_golden(_load(data, name), a, b, resamples=resamples,
                          confidence=confidence, seed=seed, interval=interval)


st.title(tr("golden.title"))
st.caption(tr("golden.subtitle"))
guide = st.container()  # "How to read this", at the top; filled once the numbers are known

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
    confidence = st.selectbox(tr("common.confidence"), CONFIDENCE_LEVELS,
                              index=url_index("confidence", CONFIDENCE_LEVELS, 1,
                                              lambda c: f"{100 * c:g}"),
                              format_func=fmt_level, key="golden_confidence")
    resamples = st.number_input(tr("common.resamples"), MIN_RESAMPLES, MAX_RESAMPLES,
                                url_number("resamples", MIN_RESAMPLES, MAX_RESAMPLES, 20_000),
                                step=1_000, key="golden_resamples")
    seed = st.number_input(tr("common.seed"), 0, 2**31 - 1,
                           url_number("seed", 0, 2**31 - 1, 0), key="golden_seed")
    interval = interval_choice("golden_interval")

col_a, col_b = st.columns(2)
a = col_a.selectbox(tr("golden.method_a"), methods, index=url_index("a", methods, 0),
                    key="golden_a", help=tr("golden.method_a_help"))
b = col_b.selectbox(tr("golden.method_b"), methods, index=url_index("b", methods, 1),
                    key="golden_b", help=tr("golden.method_b_help"))
keep_in_url(a=a, b=b, confidence=f"{100 * confidence:g}", resamples=int(resamples),
            seed=int(seed))

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
kind = fmt.kind_of(c.binary)
with guide:
    how_to_read("golden.how_to_read", n=result.n_cases, step=f"{100 / result.n_cases:.1f}",
                level=fmt_level(confidence))
card = paired_card(c.verdict, a=c.a, b=c.b, mean=bs.mean, ci_low=bs.ci_low, ci_high=bs.ci_high,
                   confidence=bs.confidence, kind=kind, sentence=lang_verdict,
                   ci_label=tr("common.ci_short"),
                   reason=reason_sentence(c.decision, st.session_state["lang"]) or "")
show_card(card)

ex = result.excluded
if ex.total:
    st.warning(tr_md("golden.excluded", total=ex.total, missing=len(ex.missing),
                  duplicates=len(ex.duplicates), blank=len(ex.blank),
                  ids=", ".join(sorted(set(ex.missing) | set(ex.duplicates)
                                       | set(ex.blank))[:20])))

level = fmt_level(confidence)
m1, m2, m3 = st.columns(3)
for col, (mname, r) in zip((m1, m2), ((c.a, c.rate_a), (c.b, c.rate_b))):
    count = f" ({r.successes}/{r.n})" if r.successes is not None else ""
    col.metric(esc(mname), f"{fmt.value(r.mean, kind)}{count}",
               help=tr("golden.interval_help_" + r.interval, level=level) + "\n\n"
               + glossary("wilson" if r.interval == "wilson" else "bootstrap"))
    col.caption(tr("golden.interval_line", level=level, kind=tr("golden.kind_" + r.interval),
                   lo=fmt.value(r.ci_low, kind), hi=fmt.value(r.ci_high, kind),
                   step=f"{100 / r.n:.1f}"))
# the difference reads "does B (new) beat A (baseline)": B − A, as on the verdict card
m3.metric(tr_md("golden.difference", a=c.a, b=c.b), fmt.diff(bs.mean, kind),
          help=glossary("bootstrap", "pp"))
m3.caption(tr("golden.difference_ci", level=level, lo=fmt.diff(bs.ci_low, kind),
              hi=fmt.diff(bs.ci_high, kind)))
verdict_notes(c.decision, bs, m3, reason=False)

left, right = st.columns(2)
rates = pd.DataFrame([{"name": n_, "mean": r.mean, "ci_low": r.ci_low, "ci_high": r.ci_high}
                      for n_, r in ((c.a, c.rate_a), (c.b, c.rate_b))])
rates_chart = interval_chart(rates, title=tr("golden.chart_rates", level=level),
                             x_title=tr("common.axis_score") + fmt.axis_unit(kind),
                             scale=fmt.scale(kind))
boot_chart = bootstrap_histogram(bs.distribution, bs.ci_low, bs.ci_high,
                                 title=tr("golden.chart_bootstrap", resamples=f"{bs.resamples:,}"),
                                 x_title=tr("common.axis_diff", a=c.a, b=c.b)
                                 + fmt.axis_unit(kind, difference=True),
                                 y_title=tr("common.axis_resamples"), scale=fmt.scale(kind))
draw_chart(rates_chart, left)
draw_chart(boot_chart, right)
end_of_presentation()

st.subheader(tr("golden.second_opinions"),
             help=glossary("mcnemar", "discordant", "randomization", "ttest", "cohens_dz"))
tests_table = second_opinions(c)
st.table(tests_table)

table_2x2 = None
if c.table is not None:
    both, a_only, b_only, neither = c.table
    st.subheader(tr("golden.table_title"), help=glossary("discordant", "mcnemar"))
    table_2x2 = pd.DataFrame(
        [[both, a_only], [b_only, neither]],
        index=[tr("golden.right", m=c.b), tr("golden.wrong", m=c.b)],
        columns=[tr("golden.right", m=c.a), tr("golden.wrong", m=c.a)]).T
    st.table(esc_frame(table_2x2))

disc = result.discordant().reset_index(drop=True).rename(
    columns={"difference": tr("golden.col_difference", a=c.a, b=c.b)})
st.subheader(tr("golden.discordant_title", n=len(disc)), help=glossary("discordant"))
if len(disc):
    st.dataframe(disc, hide_index=True, width="stretch")
else:
    st.caption(tr("golden.no_discordant"))

st.subheader(tr("golden.report_title"))
rate_rows = pd.DataFrame([
    {tr("golden.col_method"): n_, tr("golden.col_score"): fmt.value(r.mean, kind),
     tr("golden.col_count"): "" if r.successes is None else f"{r.successes}/{r.n}",
     tr("golden.col_interval", level=level): fmt.interval(r.ci_low, r.ci_high, kind)}
    for n_, r in ((c.a, c.rate_a), (c.b, c.rate_b))])
diff_rows = pd.DataFrame(
    [(tr("golden.difference", a=c.a, b=c.b), fmt.diff(bs.mean, kind)),
     (tr("golden.ci_label", level=level),
      fmt.interval(bs.ci_low, bs.ci_high, kind, signed=True)),
     *tests_table.itertuples(index=False, name=None)],
    columns=[tr("golden.col_test"), tr("golden.col_value")])
paired_cases = pd.DataFrame({"case_id": list(result.case_ids), c.a: result.a_values,
                             c.b: result.b_values,
                             "b_minus_a": result.b_values - result.a_values})  # a data file
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
                         "confidence": fmt_level(confidence), "interval": bs.interval},
                 per_case=paired_cases, summary=result.to_dict(), verdict=lang_verdict,
                 card=card)
