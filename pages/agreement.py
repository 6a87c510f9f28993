"""Label agreement: load labels (+ runs) -> core.agreement.levels.analyse -> draw. Nothing computed here."""
from dataclasses import replace
from pathlib import Path

import pandas as pd
import streamlit as st

from core.agreement import (DEFAULT_RESAMPLES, DEFAULT_SPLITS, METRICS, WEIGHTS, analyse,
                            disagreements, kappa_band, load_label_files, load_labels, load_runs)
from core.errors import InputError
from core.views import query_scatter
from core.views import agreement_card
from core.views import cheap_pair_lines, cheap_pair_rows, conclusion_lines, conclusion_rows
from core.views import interval_chart, present_rows
from core.views import level as fmt_level, pct
from pages._ui import (PRESENT_CHART_HEIGHT, Section, current_lang, draw_chart,
                       end_of_presentation, esc, glossary, how_to_read, inputs_box, keep_in_url, page_setup, presenting,
                       report_downloads, show_card, show_error, show_frame, show_table,
                       stat_settings, tr, tr_md, url_index, url_number)

DATA = Path(__file__).resolve().parent.parent / "data"
DEMO_LABELS = DATA / "demo_labels.csv"
DEMO_RUNS = sorted((DATA / "demo_runs").glob("*.run"))

page_setup()


@st.cache_data(show_spinner=False, max_entries=8)
def _labels(data: bytes, name: str, other: bytes | None, other_name: str | None):
    if other is None:
        return load_labels(data, name)
    return load_label_files(data, name, other, other_name)


@st.cache_data(show_spinner=False, max_entries=8)
def _runs(files: tuple):
    return load_runs(list(files))


@st.cache_data(show_spinner=False, max_entries=16)
def _analyse(data, name, other, other_name, run_files, source, metric, weights, resamples,
             confidence, seed, baseline, splits, conclusions=False):
    return analyse(_labels(data, name, other, other_name), source=source,
                   runs=_runs(run_files), measure=metric, weights=weights,
                   resamples=resamples, confidence=confidence, seed=seed,
                   baseline=baseline, splits=splits, conclusions=conclusions)


def _f(x, digits=3):
    return "n/a" if x is None or x != x else f"{x:.{digits}f}"


st.title(tr("agreement.title"))
st.caption(tr("agreement.subtitle"))
head = st.container()   # the verdict card (and, presenting, its chart): first on the page
guide = st.container()  # "How to read this", collapsed; filled once the numbers are known
inputs = inputs_box("agreement")

c1, c2 = inputs.columns(2)
up_labels = c1.file_uploader(tr("agreement.upload_labels"),
                             type=["csv", "tsv", "txt", "xlsx", "qrels"],
                             key="agreement_labels", help=tr("agreement.upload_labels_help"))
up_other = c2.file_uploader(tr("agreement.upload_other"),
                            type=["csv", "tsv", "txt", "xlsx", "qrels"],
                            key="agreement_other", help=tr("agreement.upload_other_help"))
up_runs = inputs.file_uploader(tr("agreement.upload_runs"), accept_multiple_files=True,
                           key="agreement_runs", help=tr("agreement.upload_runs_help"))

if up_labels is not None:
    data, name = up_labels.getvalue(), up_labels.name
    other, other_name = ((up_other.getvalue(), up_other.name) if up_other is not None
                         else (None, None))
else:
    data, name, other, other_name = DEMO_LABELS.read_bytes(), DEMO_LABELS.name, None, None
    inputs.info(tr("agreement.demo_note"), icon="ℹ️")
if up_runs:
    run_files = tuple((f.getvalue(), f.name) for f in up_runs)
elif up_labels is None:
    run_files = tuple((p.read_bytes(), p.name) for p in DEMO_RUNS)
else:
    run_files = ()

try:
    labels = _labels(data, name, other, other_name)
    runs = _runs(run_files)
except InputError as exc:
    show_error(exc)
    st.stop()
if labels.encoding == "cp949":  # say which encoding was read (Korean Excel's CSV)
    inputs.caption(tr("common.read_as_cp949"))

stats = stat_settings("agreement", resamples=DEFAULT_RESAMPLES, interval=False)
confidence, resamples, seed = stats.confidence, stats.resamples, stats.seed
with st.sidebar:
    source = st.selectbox(tr("agreement.source"), labels.names, key="agreement_source",
                          index=url_index("source", labels.names, 0),
                          help=tr("agreement.source_help"))
    metric = st.selectbox(tr("agreement.metric"), METRICS, key="agreement_metric",
                          index=url_index("metric", METRICS, 0))
    weights = st.selectbox(tr("agreement.weights"), WEIGHTS, key="agreement_weights",
                           index=url_index("weights", WEIGHTS, 0),
                           format_func=lambda w: tr(f"agreement.weights_{w}"),
                           help=tr("agreement.weights_help"))
    baseline = (st.selectbox(tr("agreement.baseline"), labels.names, key="agreement_baseline",
                             index=url_index("baseline", labels.names, 0))
                if len(labels.names) > 1 else None)
    splits = st.number_input(tr("agreement.splits"), 100, 10_000,
                             url_number("splits", 100, 10_000, DEFAULT_SPLITS), step=100,
                             key="agreement_splits")
    conclusions = (st.checkbox(tr("cheap.conclusions_toggle"), key="agreement_conclusions",
                               help=tr("cheap.conclusions_help"))
                   if len(run_files) >= 2 else False)
keep_in_url(source=source, metric=metric, weights=weights, baseline=baseline,
            splits=int(splits), **{k: v for k, v in stats.url().items() if k != "interval"})

try:
    with st.spinner(tr("agreement.computing")):
        rep = _analyse(data, name, other, other_name, run_files, source, metric, weights,
                       int(resamples), float(confidence), int(seed), baseline, int(splits),
                       conclusions)
except (InputError, ValueError) as exc:
    show_error(exc)
    st.stop()

m = rep.main
level = fmt_level(confidence)
band = kappa_band(m.kappa_binary.value)
headline = (tr("agreement.headline", source=m.name, kappa=_f(m.kappa_binary.value), level=level,
               lo=_f(m.kappa_binary.ci_low), hi=_f(m.kappa_binary.ci_high), band=tr(f"agreement.band_{band}"))
            if band else tr("agreement.headline_nan", source=m.name))
card = agreement_card(band, label=tr("agreement.card_label", source=m.name),
                      kappa=m.kappa_binary.value, ci_low=m.kappa_binary.ci_low, ci_high=m.kappa_binary.ci_high,
                      confidence=float(confidence), sentence=headline,
                      ci_label=tr("common.ci_short"))
src_rows = pd.DataFrame([{"name": r.name, "mean": r.kappa_binary.value,
                          "ci_low": r.kappa_binary.ci_low, "ci_high": r.kappa_binary.ci_high}
                         for r in rep.ranking])
src_chart = interval_chart(src_rows, x_title=tr("agreement.axis_kappa"),
                           title=tr("agreement.sources_chart", level=level), scale=1)
with head:
    show_card(card)
    if presenting():
        draw_chart(src_chart, present_height=present_rows(len(src_rows), PRESENT_CHART_HEIGHT))
end_of_presentation()
with guide:
    how_to_read("agreement.how_to_read", source=m.name, level=level)
st.caption(tr("agreement.band_note"))

summ = labels.summary()
st.caption(tr_md("agreement.loaded", n_pairs=summ["n_pairs"], n_queries=summ["n_queries"],
              sources=", ".join(labels.names)))
if sum(summ["blank_labels"].values()):
    st.caption(tr_md("agreement.blank_counts", counts=", ".join(
        f"{k}: {v}" for k, v in summ["blank_labels"].items())))
if m.n_excluded:
    st.warning(tr_md("agreement.excluded", count=m.n_excluded, name=m.name))
if any(summ["unmatched"].values()):
    ex = summ["unmatched_examples"]
    st.warning(tr_md("agreement.unmatched", gold_only=summ["unmatched"]["gold_only"],
                  other_only=summ["unmatched"]["other_only"],
                  examples=", ".join(ex["gold_only"][:5] + ex["other_only"][:5])))
if labels.ignored_columns:
    st.caption(tr_md("agreement.ignored_columns", columns=", ".join(labels.ignored_columns)))

# ----------------------------------------------------------------------------- level 1
st.subheader(tr("agreement.level1_title"))
cols = st.columns(5)
cards = [(tr("agreement.kappa_label"), m.kappa_binary,
          tr("agreement.kappa_help") + "\n\n" + glossary("kappa"), _f),
         (tr("agreement.kappa_graded_label"), m.kappa,
          tr("agreement.kappa_graded_help") + "\n\n" + glossary("kappa"), _f),
         (tr("agreement.wkappa_label", weights=tr(f"agreement.weights_{m.weights}")),
          m.weighted_kappa,
          tr("agreement.wkappa_help") + "\n\n" + glossary("kappa"), _f),
         (tr("agreement.mae_label"), m.mae, tr("agreement.mae_help", scale=f"{m.scale:g}"), _f),
         (tr("agreement.pairwise_label"), m.pairwise_accuracy, tr("agreement.pairwise_help"),
          pct)]
for col, (label, est, helptext, fmt) in zip(cols, cards):
    col.metric(label, fmt(est.value), help=helptext)
    col.caption(tr("agreement.ci_line", level=level, lo=fmt(est.ci_low), hi=fmt(est.ci_high)))
undefined = max(e.undefined for e in (m.kappa_binary, m.kappa, m.weighted_kappa, m.mae,
                                       m.pairwise_accuracy))
if undefined:
    st.caption(tr("agreement.undefined_note", count=undefined))

k = 3 if m.graded else 2
conf = pd.DataFrame(m.confusion[:k, :k],
                    index=[tr("agreement.cell_gold", v=v) for v in range(k)],
                    columns=[tr("agreement.cell_other", name=m.name, v=v) for v in range(k)])
st.markdown(f"**{tr_md('agreement.confusion_title', source=m.name)}**")
show_table(conf)
dis = disagreements(labels, m.name)
with st.expander(tr("agreement.disagreements_title", n=len(dis))):
    # on screen with translated headers; the CSV download keeps the stable English names
    show_frame(dis.rename(columns={"query_id": tr("agreement.col_query"),
                                   "doc_id": tr("agreement.col_doc"),
                                   "gap": tr("agreement.col_gap", source=m.name)}),
               hide_index=True, width="stretch")

# ----------------------------------------------------------------------------- level 2
st.subheader(tr("agreement.level2_title"))
pa = m.pairwise_accuracy
if m.n_preference_pairs:
    st.write(tr_md("agreement.level2_text", n=f"{m.n_preference_pairs:,}", source=m.name,
                acc=pct(pa.value), level=level, lo=pct(pa.ci_low), hi=pct(pa.ci_high)))
else:
    st.info(tr("agreement.level2_none"))

# ----------------------------------------------------------------------------- all sources
st.subheader(tr("agreement.sources_title"))
src_table = pd.DataFrame([{
    tr("agreement.col_source"): r.name, tr("agreement.col_pairs"): r.n_pairs,
    tr("agreement.col_kappa"): round(r.kappa_binary.value, 3),
    tr("agreement.col_ci", level=level):
        f"[{_f(r.kappa_binary.ci_low)}, {_f(r.kappa_binary.ci_high)}]",
    tr("agreement.col_kappa_graded"): round(r.kappa.value, 3),
    tr("agreement.col_wkappa"): round(r.weighted_kappa.value, 3),
    tr("agreement.col_mae"): round(r.mae.value, 3),
    tr("agreement.col_pairwise"): round(r.pairwise_accuracy.value, 3)} for r in rep.ranking])
show_frame(src_table, hide_index=True, width="stretch")
draw_chart(src_chart)

st.markdown(f"**{tr('agreement.split_title')}**")
sh = rep.split
if sh is not None:
    split_text = tr_md("agreement.split_text", splits=f"{sh.splits:,}", n=sh.n_pairs,
                    baseline=sh.baseline, wins=f"{sh.wins:,}", rate=pct(sh.win_rate),
                    base_best=f"{sh.baseline_best:,}")
    st.write(split_text)
    st.caption(tr_md("agreement.split_picked",
                  picked=", ".join(f"{k_}: {v}" for k_, v in sh.picked.items())))
else:
    split_text = tr("agreement.split_need_two")
    st.caption(split_text)

# ----------------------------------------------------------------------------- level 3
st.subheader(tr("agreement.level3_title"))
q = None
bottom = scatter = None
if not rep.queries:
    st.info(tr("agreement.need_runs"))
else:
    if not up_runs and up_labels is None:
        st.caption(tr("agreement.demo_runs_note"))
    st.caption(tr("agreement.coverage_summary",
                  unlabelled=f"{sum(c.unlabelled for c in rep.coverage):,}",
                  retrieved=f"{sum(c.retrieved for c in rep.coverage):,}"))
    with st.expander(tr("agreement.coverage_title")):
        show_frame(pd.DataFrame([{
            tr("agreement.col_run"): c.run, tr("agreement.col_retrieved"): c.retrieved,
            tr("agreement.col_unlabelled"): c.unlabelled,
            tr("agreement.col_extra"): c.extra_queries,
            tr("agreement.col_missing"): c.missing_queries} for c in rep.coverage]),
            hide_index=True, width="stretch")
    run_names = [x.run for x in rep.queries]
    qrun = st.selectbox(tr("agreement.query_run"), run_names, key="agreement_query_run")
    q = next(x for x in rep.queries if x.run == qrun)
    a, b = st.columns(2)
    a.metric(tr("agreement.rbo_label", p=f"{q.rbo.p:g}"), _f(q.rbo.ext),
             help=tr("agreement.rbo_help", p=f"{q.rbo.p:g}", depth=round(1 / (1 - q.rbo.p)))
             + "\n\n" + glossary("rbo"))
    a.caption(tr("agreement.rbo_prefix_line", depth=f"{q.rbo.depth:d}",
                 value=_f(q.rbo.normalized)))
    b.metric(tr("agreement.tau_label"), _f(q.tau),
             help=tr("agreement.tau_help") + "\n\n" + glossary("tau"))
    n_b = max(len(q.bottom_gold), len(q.bottom_other))
    bottom = pd.DataFrame({
        tr("agreement.col_rank"): range(1, n_b + 1),
        tr("agreement.col_query_gold"): [x["query_id"] for x in q.bottom_gold],
        tr("agreement.col_score_gold", measure=q.measure):
            [round(x["score"], 3) for x in q.bottom_gold],
        tr("agreement.col_query_other", source=m.name): [x["query_id"] for x in q.bottom_other],
        tr("agreement.col_score_other", measure=q.measure, source=m.name):
            [round(x["score"], 3) for x in q.bottom_other]})
    st.markdown(f"**{tr('agreement.bottom_title', n=n_b)}**")
    show_frame(bottom, hide_index=True, width="stretch")
    scatter = query_scatter(
        q.scores, x_title=tr("agreement.axis_gold", measure=q.measure),
        y_title=tr("agreement.axis_other", measure=q.measure, source=m.name),
        title=tr("agreement.scatter_title", measure=q.measure, source=m.name))
    draw_chart(scatter)

# ----------------------------------------------------------------------------- level 4
st.subheader(tr("agreement.level4_title"))
s = rep.systems
sys_table = None
top_text = ""
if s is None:
    st.info(tr("agreement.need_three_runs", n=len(rep.queries)))
else:
    a, b = st.columns(2)
    a.metric(tr("agreement.rbo_label", p=f"{s.rbo.p:g}"), _f(s.rbo.ext),
             help=tr("agreement.rbo_help", p=f"{s.rbo.p:g}", depth=round(1 / (1 - s.rbo.p)))
             + "\n\n" + glossary("rbo"))
    a.caption(tr("agreement.rbo_prefix_line", depth=f"{s.rbo.depth:d}",
                 value=_f(s.rbo.normalized)))
    b.metric(tr("agreement.tau_label"), _f(s.tau),
             help=tr("agreement.tau_help") + "\n\n" + glossary("tau"))
    means = s.means
    sys_table = pd.DataFrame({
        tr("agreement.col_run"): means.index,
        tr("agreement.col_mean_gold", measure=s.measure): means["gold"].round(4).to_numpy(),
        tr("agreement.col_rank_gold"):
            means["gold"].rank(ascending=False, method="min").astype(int).to_numpy(),
        tr("agreement.col_mean_other", measure=s.measure, source=m.name):
            means["other"].round(4).to_numpy(),
        tr("agreement.col_rank_other", source=m.name):
            means["other"].rank(ascending=False, method="min").astype(int).to_numpy()})
    sys_table = sys_table.sort_values(tr("agreement.col_rank_gold"), kind="stable")
    show_frame(sys_table, hide_index=True, width="stretch")
    n_top = len(s.top_gold)
    if s.top_same_order:
        top_text = tr("agreement.top_same", n=n_top)
        st.success(top_text)
    elif s.top_same_set:
        top_text = tr("agreement.top_same_set", n=n_top)
        st.warning(top_text)
    else:
        top_text = tr_md("agreement.top_differ", n=n_top, gold=", ".join(s.top_gold),
                      other=", ".join(s.top_other), source=m.name)
        st.error(top_text)

# ----------------------------------------------------------------------------- conclusions
concl_table = None
if rep.conclusions is not None:   # issue 34: would the cheap labels reach the same verdicts?
    st.subheader(tr("cheap.conclusions_page_title"), help=tr("cheap.conclusions_help"))
    concl_lines = conclusion_lines(rep.conclusions, current_lang())
    st.markdown(esc(concl_lines[0]))
    st.caption(esc(concl_lines[1].strip()))
    concl_table = pd.DataFrame(conclusion_rows(rep.conclusions, current_lang()))
    show_frame(concl_table, hide_index=True, width="stretch")
ppi_table = None
if rep.cheap is not None:   # issue 34: gold on some queries, the source's labels on more
    st.subheader(tr("cheap.pairs_page_title"), help=tr("cheap.pairs_help"))
    ppi_lines = cheap_pair_lines(rep.cheap, current_lang())
    st.caption(esc(ppi_lines[0]))
    if rep.cheap.pairs:
        ppi_table = pd.DataFrame(cheap_pair_rows(rep.cheap, current_lang()))
        show_frame(ppi_table, hide_index=True, width="stretch")

# ----------------------------------------------------------------------------- report
level_text = "\n".join(f"{lab}: {fmt(e.value)} ({tr('agreement.ci_line', level=level, lo=fmt(e.ci_low), hi=fmt(e.ci_high))})"  # noqa: E501
                       for lab, e, _, fmt in cards)
sections = [Section(tr("agreement.level1_title"), headline + "\n" + level_text, table=conf),
            Section(tr("agreement.sources_title"), split_text, table=src_table,
                    chart=src_chart)]
if q is not None:
    sections.append(Section(tr("agreement.level3_title"),
                            f"{q.run}: RBO {_f(q.rbo.ext)}, τ {_f(q.tau)}",
                            table=bottom, chart=scatter))
if sys_table is not None:
    sections.append(Section(tr("agreement.level4_title"),
                            f"RBO {_f(s.rbo.ext)}, τ {_f(s.tau)}. {top_text}",
                            table=sys_table))
if concl_table is not None:
    sections.append(Section(tr("cheap.conclusions_page_title"),
                            "\n".join(line.strip() for line in concl_lines[:2]),
                            table=concl_table))
if rep.cheap is not None:
    sections.append(Section(tr("cheap.pairs_page_title"),
                            "\n".join(line.strip() for line in ppi_lines), table=ppi_table))
inputs = {name: data}
if other is not None:
    inputs[other_name] = other
inputs.update({fname: fdata for fdata, fname in run_files})
report_downloads("agreement", tr("agreement.title"), sections, inputs=inputs,
                 params={"source": m.name, "metric": metric, "weights": weights,
                         "baseline": baseline, "confidence": confidence,
                         "resamples": int(resamples), "splits": int(splits), "seed": int(seed)},
                 per_case=dis, summary=rep.to_dict(),
                 card=replace(card, reason=tr("agreement.report_summary", source=m.name,
                                              kappa=_f(m.kappa_binary.value),
                                              wkappa=_f(m.weighted_kappa.value),
                                              mae=_f(m.mae.value), pairwise=pct(pa.value))))
