"""Ranked lists & many systems: retrieval-list CSV or TREC runs + qrels -> per-case metric
(core.lists / core.trec) -> A vs B (core.golden.compare_golden) and all pairs with Holm
(core.multi.compare_many) -> draw. Nothing computed here."""
from pathlib import Path

import pandas as pd
import streamlit as st

from core.views.charts import bootstrap_histogram, interval_chart
from core.errors import InputError
from core.golden import GoldenSet, compare_golden
from core.lists import LIST_METRICS, load_lists, metric_key, score_lists
from core.lists import side_by_side as list_side_by_side
from core.multi import compare_many, disagreements, estimate_cost, plan_mode
from core.stats import CONFIDENCE_LEVELS, MAX_RESAMPLES, MIN_RESAMPLES
from core.trec import COMMON_MEASURES, read_qrels, read_run, score_runs
from core.trec import side_by_side as trec_side_by_side
from core.views.verdicts import comparison_verdict, reason_sentence
from core.views import format as fmt
from core.views.cards import paired_card
from core.views.format import fmt_p, level as fmt_level
from core.views.multi import matrix_chart
from pages._ui import (Section, draw_chart, end_of_presentation, esc, glossary, how_to_read,
                       interval_choice, keep_in_url, page_setup, report_downloads,
                       second_opinions, sha256, show_card, show_error, show_frame, show_table,
                       tr, tr_md, url_index, url_number, verdict_notes)

DATA = Path(__file__).resolve().parent.parent / "data"
DEMO_LISTS = DATA / "demo_lists.csv"
DEMO_TREC = DATA / "demo_trec"
DEMO_RUNS = ("bm25.run", "dense.run", "hybrid.run")
MAX_DRILL = 50

page_setup()


@st.cache_data(show_spinner=False, max_entries=16)
def _lists(data: bytes, name: str, kind: str, k: int):
    return score_lists(load_lists(data, name, kind=kind), k)


# cache_resource: a scored run set can hold millions of (doc, score) pairs; it is only read,
# so it is shared instead of copied (cache_data would pickle it on every rerun).
@st.cache_resource(show_spinner=False, max_entries=4)
def _trec(qrels: bytes, qrels_name: str, runs: tuple, measure: str):
    return score_runs([read_run(b, n) for n, b in runs], read_qrels(qrels, qrels_name),
                      [measure], qrels_file=qrels_name)


@st.cache_data(show_spinner=False, max_entries=32)
def _pair(_gs: GoldenSet, data_key: tuple, a: str, b: str, resamples: int, confidence: float,
          seed: int, interval: str = "auto"):
    """``compare_golden`` on the GoldenSet core built (``ListScores.golden`` /
    ``TrecScores.golden``); ``data_key`` (inputs' digests and the settings that shaped the
    scores) stands in for the unhashed GoldenSet in the cache key."""
    return compare_golden(_gs, a, b, resamples=resamples, confidence=confidence, seed=seed,
                          interval=interval)


@st.cache_data(show_spinner=False, max_entries=32)
def _many(scores: pd.DataFrame, mode: str, baseline, resamples: int, confidence: float,
          seed: int, interval: str = "auto"):
    return compare_many(scores, mode=mode, baseline=baseline, resamples=resamples,
                        confidence=confidence, seed=seed, interval=interval)


def _fmt(x) -> str:
    return "" if pd.isna(x) else f"{x:.3f}"


def pairs_display(table: pd.DataFrame, kind: str, level: str) -> pd.DataFrame:
    """The all-pairs table as shown: translated headers, one unit (``kind``), the CI and the
    win/tie/loss counts in one column each so it fits the page."""
    return pd.DataFrame({
        "A": table["a"], "B": table["b"], tr("systems.col_n"): table["n"],
        tr("systems.col_mean_a"): [fmt.value(x, kind) for x in table["mean_a"]],
        tr("systems.col_mean_b"): [fmt.value(x, kind) for x in table["mean_b"]],
        tr("systems.col_diff"): [fmt.diff(x, kind) for x in table["b_minus_a"]],
        tr("systems.col_ci", level=level): [fmt.interval(lo, hi, kind, signed=True)
                                            for lo, hi in zip(table["ci_low"], table["ci_high"])],
        tr("systems.col_p_holm"): [fmt_p(x) for x in table["p_holm"]],
        tr("systems.col_verdict"): [tr(f"systems.verdict_{v}") for v in table["verdict"]],
        tr("systems.col_dz"): ["n/a" if pd.isna(x) else f"{x:.2f}" for x in table["cohens_dz"]],
        tr("systems.col_wtl"): [f"{w}/{t_}/{l_}" for w, t_, l_ in
                                zip(table["wins"], table["ties"], table["losses"])]})


st.title(tr("systems.title"))
st.caption(tr("systems.subtitle"))
guide = st.container()  # "How to read this", at the top; filled once the level is known

source = st.segmented_control(tr("systems.source_label"), ["lists", "trec"],
                              default="trec" if st.query_params.get("source") == "trec"
                              else "lists",
                              format_func=lambda s: tr(f"systems.source_{s}"),
                              key="systems_source") or "lists"

with st.sidebar:
    st.subheader(tr("common.settings"))
    confidence = st.selectbox(tr("common.confidence"), CONFIDENCE_LEVELS,
                              index=url_index("confidence", CONFIDENCE_LEVELS, 1,
                                              lambda c: f"{100 * c:g}"),
                              format_func=fmt_level, key="systems_confidence")
    resamples = int(st.number_input(tr("common.resamples"), MIN_RESAMPLES, MAX_RESAMPLES,
                                    url_number("resamples", MIN_RESAMPLES, MAX_RESAMPLES,
                                               20_000),
                                    step=1_000, key="systems_resamples"))
    seed = int(st.number_input(tr("common.seed"), 0, 2**31 - 1,
                               url_number("seed", 0, 2**31 - 1, 0), key="systems_seed"))
    interval = interval_choice("systems_interval")
level = fmt_level(confidence)
with guide:
    how_to_read("systems.how_to_read", level=level)

inputs: dict[str, bytes] = {}
notes: list[str] = []
try:
    if source == "lists":
        up = st.file_uploader(tr("systems.lists_upload"), type=["csv", "tsv", "txt", "xlsx"],
                              key="systems_lists_upload", help=tr("systems.lists_help"))
        if up is not None:
            data, name = up.getvalue(), up.name
        else:
            data, name = DEMO_LISTS.read_bytes(), DEMO_LISTS.name
            st.info(tr("systems.demo_lists_note"), icon="ℹ️")
        inputs[name] = data
        c1, c2, c3 = st.columns(3)
        metric = c1.selectbox(tr("systems.metric"), LIST_METRICS,
                              index=url_index("metric", LIST_METRICS, LIST_METRICS.index("ndcg")),
                              format_func=lambda m: tr(f"systems.metric_{m}"),
                              key="systems_metric")
        k = int(c2.number_input(tr("systems.k"), 1, 1000, url_number("k", 1, 1000, 10),
                                key="systems_k",
                                help=tr("systems.k_help")))
        kind = c3.selectbox(tr("systems.match"), ["auto", "ids", "text"],
                            format_func=lambda m: tr(f"systems.match_{m}"), key="systems_match")
        with st.spinner(tr("systems.computing")):
            ls_scores = _lists(data, name, kind, k)
        ls = ls_scores.lists
        key = metric_key(metric, k)
        gs = ls_scores.golden(key)
        scores, text = gs.scores, gs.text
        st.caption(tr("systems.lists_loaded", n=len(ls.cases), methods=len(ls.methods),
                      kind=tr(f"systems.match_{ls.kind}")))
        means = ls_scores.means()
        if ls.no_reference:
            notes.append(tr_md("systems.no_reference", count=len(ls.no_reference),
                            ids=", ".join(ls.no_reference[:20])))
        if ls.duplicates:
            notes.append(tr_md("systems.duplicates", count=len(ls.duplicates),
                            ids=", ".join(ls.duplicates[:20])))
        for meth, ids in ls.empty_cells.items():
            notes.append(tr_md("systems.empty_cells", method=meth, count=len(ids),
                            ids=", ".join(ids[:20])))
        undefined = ls_scores.undefined().get(key, {})
        extra_nan = {m_: n_ - len(ls.no_reference) for m_, n_ in undefined.items()
                     if n_ > len(ls.no_reference)}
        for meth, n_ in extra_nan.items():
            notes.append(tr_md("systems.undefined", method=meth, count=n_, metric=key))
        params = {"format": "lists", "metric": key, "k": k, "match": ls.kind}
    else:
        c1, c2 = st.columns(2)
        q_up = c1.file_uploader(tr("systems.qrels_upload"), key="systems_qrels_upload",
                                help=tr("systems.qrels_help"))
        r_up = c2.file_uploader(tr("systems.runs_upload"), accept_multiple_files=True,
                                key="systems_runs_upload", help=tr("systems.runs_help"))
        if q_up is not None and r_up:
            qrels_data, qrels_name = q_up.getvalue(), q_up.name
            runs = tuple((f.name, f.getvalue()) for f in r_up)
        else:
            if q_up is not None or r_up:
                st.warning(tr("systems.need_both"), icon="⚠️")
            qrels_data, qrels_name = (DEMO_TREC / "qrels.txt").read_bytes(), "qrels.txt"
            runs = tuple((n, (DEMO_TREC / n).read_bytes()) for n in DEMO_RUNS)
            st.info(tr("systems.demo_trec_note"), icon="ℹ️")
        inputs[qrels_name] = qrels_data
        inputs.update(dict(runs))
        measure = st.selectbox(tr("systems.measure"), COMMON_MEASURES,
                               index=url_index("metric", COMMON_MEASURES, 0),
                               accept_new_options=True, key="systems_measure",
                               help=tr("systems.measure_help"))
        with st.spinner(tr("systems.computing")):
            ts = _trec(qrels_data, qrels_name, runs, str(measure))
        key = ts.measures[0]
        gs = ts.golden(key)
        scores, text = gs.scores, gs.text
        means = ts.means()
        k = 10
        st.caption(tr("systems.trec_loaded", n=len(scores), runs=len(ts.runs),
                      lines=f"{sum(r.lines for r in ts.runs):,}"))
        for run, ids in ts.missing.items():
            notes.append(tr_md("systems.missing_from_run", run=run, count=len(ids),
                            ids=", ".join(ids[:20])))
        for run, ids in ts.unjudged.items():
            notes.append(tr_md("systems.without_qrels", run=run, count=len(ids),
                            ids=", ".join(ids[:20])))
        if ts.no_relevant:
            notes.append(tr_md("systems.no_relevant", count=len(ts.no_relevant),
                            ids=", ".join(ts.no_relevant[:20])))
        for r in ts.runs:
            if r.repeated:
                notes.append(tr_md("systems.repeated", run=r.name, count=r.repeated))
        params = {"format": "trec", "measure": key, "qrels": qrels_name,
                  "runs": ", ".join(r.name for r in ts.runs)}
except InputError as exc:
    show_error(exc)
    st.stop()

for note in notes:
    st.warning(note, icon="⚠️")

methods = list(scores.columns)
st.subheader(tr("systems.means_title"))
# one row per measure, one column per method: measure names are long and many, methods few,
# so this way round the table fits a 1280-px screen (issue 13: nothing cut off)
means_table = means.map(_fmt).T
means_table.index.name = tr("systems.col_measure")
show_frame(means_table, width="stretch")
if len(methods) < 2:
    show_error(InputError("need_two_methods", methods=", ".join(methods)))
    st.stop()

# ----------------------------------------------------------------------------- A vs B
st.subheader(tr_md("systems.pair_title", metric=key))
col_a, col_b = st.columns(2)
a = col_a.selectbox(tr("systems.method_a"), methods, index=url_index("a", methods, 0),
                    key="systems_a", help=tr("golden.method_a_help"))
b = col_b.selectbox(tr("systems.method_b"), methods, index=url_index("b", methods, 1),
                    key="systems_b", help=tr("golden.method_b_help"))
keep_in_url(source=source, metric=metric if source == "lists" else key,
            k=k if source == "lists" else None, a=a, b=b,
            confidence=f"{100 * confidence:g}", resamples=resamples, seed=seed)
try:
    with st.spinner(tr("systems.computing")):
        data_key = (source, key, tuple(sorted(params.items(), key=str)),
                    tuple((n, sha256(v)) for n, v in inputs.items()))
        result = _pair(gs, data_key, a, b, resamples, float(confidence), seed, interval)
except InputError as exc:
    show_error(exc)
    st.stop()
c, bs = result.comparison, result.comparison.bootstrap
verdict_text = comparison_verdict(result, st.session_state["lang"])
kind = fmt.kind_of(c.binary)
card = paired_card(c.verdict, a=c.a, b=c.b, mean=bs.mean, ci_low=bs.ci_low, ci_high=bs.ci_high,
                   confidence=bs.confidence, kind=kind, sentence=verdict_text,
                   ci_label=tr("common.ci_short"),
                   reason=reason_sentence(c.decision, st.session_state["lang"]) or "")
show_card(card)
ex = result.excluded
if ex.total:
    st.warning(tr_md("systems.excluded", total=ex.total,
                  ids=", ".join(sorted(set(ex.missing) | set(ex.duplicates)
                                       | set(ex.blank))[:20])), icon="⚠️")

m1, m2, m3 = st.columns(3)
for col, (mname, r) in zip((m1, m2), ((c.a, c.rate_a), (c.b, c.rate_b))):
    count = f" ({r.successes:d}/{r.n:d})" if r.successes is not None else ""
    col.metric(esc(mname), fmt.value(r.mean, kind) + count,
               help=glossary("wilson" if r.interval == "wilson" else "bootstrap"))
    kind_text = tr(f"systems.interval_{r.interval}")
    col.caption(tr("systems.interval_line", level=level, kind=kind_text,
                   lo=fmt.value(r.ci_low, kind), hi=fmt.value(r.ci_high, kind)))
# B − A ("does B beat A"), as on the verdict card
m3.metric(tr_md("systems.difference", a=c.a, b=c.b), fmt.diff(bs.mean, kind),
          help=glossary("bootstrap", "pp") if c.binary else glossary("bootstrap"))
m3.caption(tr("systems.difference_ci", level=level, lo=fmt.diff(bs.ci_low, kind),
              hi=fmt.diff(bs.ci_high, kind)))
verdict_notes(c.decision, bs, m3, reason=False)

left, right = st.columns(2)
rates = pd.DataFrame([{"name": n_, "mean": r.mean, "ci_low": r.ci_low, "ci_high": r.ci_high}
                      for n_, r in ((c.a, c.rate_a), (c.b, c.rate_b))])
rates_chart = interval_chart(rates, title=tr("systems.chart_means", level=level),
                             x_title=tr("systems.axis_metric", metric=key) + fmt.axis_unit(kind),
                             scale=fmt.scale(kind))
boot_chart = bootstrap_histogram(bs.distribution, bs.ci_low, bs.ci_high,
                                 title=tr("systems.chart_bootstrap",
                                          resamples=f"{bs.resamples:,}"),
                                 x_title=tr("common.axis_diff", a=c.a, b=c.b)
                                 + fmt.axis_unit(kind, difference=True),
                                 y_title=tr("common.axis_resamples"), scale=fmt.scale(kind))
draw_chart(rates_chart, left)
draw_chart(boot_chart, right)
end_of_presentation()
tests_table = second_opinions(c)
st.markdown(f"**{tr('golden.second_opinions')}**",
            help=glossary("mcnemar", "discordant", "randomization", "ttest", "cohens_dz"))
show_table(tests_table)

# ----------------------------------------------------------------------------- many systems
many = None
sections_many = []
if len(methods) >= 3:
    st.subheader(tr("systems.many_title", n=len(methods)), help=tr("glossary.holm"))
    mc1, mc2 = st.columns(2)
    mode = mc1.radio(tr("systems.mode"), ["all", "baseline"], horizontal=True,
                     format_func=lambda m: tr(f"systems.mode_{m}"), key="systems_mode")
    baseline = None
    planned, cost = plan_mode(len(methods), len(scores), resamples, mode)
    if planned != mode:  # cost before work: all pairs would not fit the limits
        st.info(tr_md("systems.many_fallback", **estimate_cost(len(methods), len(scores),
                                                          resamples, mode).params()))
        mode = planned
    if not cost.fits:
        st.warning(tr_md("systems.many_too_much", **cost.params()))
    elif mode == "baseline":
        baseline = mc2.selectbox(tr("systems.baseline"), methods, key="systems_baseline")
    try:
        if cost.fits:
            with st.spinner(tr("systems.computing")):
                many = _many(scores, mode, baseline, resamples, float(confidence), seed,
                             interval)
    except InputError as exc:
        show_error(exc)
        st.stop()
if many is not None:
    st.caption(tr("systems.holm_note", m=len(many.pairs), alpha=f"{many.alpha:.2f}",
                  level=level))
    chart = matrix_chart(many, title=tr("systems.matrix_title", metric=key),
                         legend=tr("systems.matrix_legend"))
    draw_chart(chart)
    show_table(pairs_display(many.table(), kind, level).set_index("A"))  # wraps: fits the page
    sections_many = [Section(tr("systems.many_title", n=len(methods)),
                             tr("systems.holm_note", m=len(many.pairs),
                                alpha=f"{many.alpha:.2f}", level=level),
                             table=many.table(), chart=chart)]

# ----------------------------------------------------------------------------- drill-down
st.subheader(tr_md("systems.drill_title", a=a, b=b))
dis = disagreements(scores, a, b, text=text)
if len(dis):
    show_frame(dis.head(MAX_DRILL).rename(columns={"difference": tr("common.axis_diff",
                                                                   a=a, b=b)}),
               hide_index=True, width="stretch")
    case = st.selectbox(tr("systems.case"), dis["case_id"].head(MAX_DRILL).tolist(),
                        key="systems_case")
    if source == "lists":
        side = list_side_by_side(ls, case, a, b, k)
    else:
        side = trec_side_by_side(ts, case, a, b, 10)
    st.caption(tr_md("systems.side_caption", case=case, k=len(side)))
    show_frame(side.rename(columns={"rank": tr("systems.col_rank"),
                                    f"{a} rel": tr("systems.col_rel", m=a),
                                    f"{b} rel": tr("systems.col_rel", m=b)}),
               hide_index=True, width="stretch")
else:
    st.caption(tr("systems.no_disagreement"))

# ----------------------------------------------------------------------------- report
st.subheader(tr("systems.report_title"))
summary = result.to_dict()
summary.update(params)
summary["metrics"] = {m_: means[m_].to_dict() for m_ in means.columns}
if many is not None:
    summary["pairs"] = [p.to_dict() for p in many.pairs]
    summary["multiple"] = {k_: v for k_, v in many.to_dict().items() if k_ != "pairs"}
sections = [
    Section(tr("systems.means_title"), "\n".join(notes), table=means.reset_index(names="method")),
    Section(tr("systems.pair_title", metric=key), verdict_text, table=tests_table),
    Section(tr("systems.chart_means", level=level), chart=rates_chart),
    Section(tr("systems.chart_bootstrap", resamples=f"{bs.resamples:,}"), chart=boot_chart),
    *sections_many,
    Section(tr("systems.drill_title", a=a, b=b), table=dis.head(MAX_DRILL) if len(dis) else None),
]
report_downloads("systems", tr("systems.title"), sections, inputs=inputs,
                 params={**params, "a": a, "b": b, "resamples": resamples, "seed": seed,
                         "confidence": level, "interval": bs.interval},
                 per_case=scores.reset_index(), summary=summary, verdict=verdict_text,
                 card=card)
