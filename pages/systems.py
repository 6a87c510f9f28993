"""Ranked lists & many systems: retrieval-list CSV or TREC runs + qrels -> per-case metric
(core.inputs.lists / core.inputs.trec) -> A vs B (core.inputs.systems.compare_golden), the tied-for-best set with
rank intervals (core.paired.best.best_set; the headline with three or more systems) and all pairs
with Holm or Benjamini–Hochberg (core.paired.multi.compare_many) -> draw. Nothing computed here."""
from dataclasses import replace
from pathlib import Path

import pandas as pd
import streamlit as st

from core.errors import InputError
from core.inputs import (COMMON_MEASURES, Clustered, LIST_METRICS, compare_systems,
                         lists_side_by_side as list_side_by_side, read_cluster_labels,
                         read_group_labels, read_lists_systems, read_trec_systems,
                         trec_side_by_side)
from core.paired import BEST_METHODS, CORRECTIONS, disagreements
from core.views import format as fmt
from core.views import cluster_card, cluster_lines, margin_line, runs_lines
from core.views import (BEST_METHOD_LABELS, BEST_NOTE_KEYS, best_card, best_sentence,
                        rank_chart, ranks_display)
from core.views import fmt_p, level as fmt_level
from core.views import matrix_chart
from core.views import paired_view
from pages._ui import (PRESENT_CHART_HEIGHT, current_lang, draw_chart, end_of_presentation,
                       harm_section, esc,
                       glossary, how_to_read, inputs_box, keep_in_url, margin_input, page_setup,
                       present_css, presenting, report_downloads, Section, sha256, show_card,
                       show_error, show_frame, show_paired, show_table, stat_settings, tr, tr_md,
                       url_index, url_number, url_value, verdict_notes)
from pages._sections import show_groups, show_judged
from core.views import cheap_card, cheap_lines, sequential_section
from pages._sequential import range_warning, sequential_toggle, show_sequential, url_flag

DATA = Path(__file__).resolve().parent.parent / "data"
DEMO_LISTS = DATA / "demo_lists.csv"
DEMO_TREC = DATA / "demo_trec"
DEMO_RUNS = ("bm25.run", "dense.run", "hybrid.run")
MAX_DRILL = 50

page_setup()


@st.cache_data(show_spinner=False, max_entries=16)
def _lists(data: bytes, name: str, kind: str, metric: str, k: int):
    # the systems of the lists and their cluster column (issue 32), taken out of the lists
    return read_lists_systems(data, name, metric=metric, k=k, kind=kind)


@st.cache_data(show_spinner=False, max_entries=8)
def _cluster_file(data: bytes, name: str):
    return read_cluster_labels(data, name)


# cache_resource: a scored run set can hold millions of (doc, score) pairs; it is only read,
# so it is shared instead of copied (cache_data would pickle it on every rerun).
@st.cache_resource(show_spinner=False, max_entries=4)
def _trec(qrels: bytes, qrels_name: str, runs: tuple, measure: str):
    return read_trec_systems(qrels, qrels_name, runs, measure)


def _cheap_set(load):
    """The cheap labels' scores (issue 34) from ``load``, or None with the error shown: a bad
    cheap file is one message, and the gold comparison stays."""
    try:
        with st.spinner(tr("systems.computing")):
            return load()
    except InputError as exc:
        show_error(exc)
        return None


@st.cache_data(show_spinner=False, max_entries=8)
def _group_file(data: bytes, name: str):
    return read_group_labels(data, name)


@st.cache_data(show_spinner=False, max_entries=32)
def _compare(_systems, data_key: tuple, a: str, b: str, resamples: int, confidence: float,
             seed: int, interval: str, margin, sequential: bool, best_method: str,
             baseline, correction: str, _clusters, _cheap, groups, group_file):
    """Everything the page shows of these systems, in one call (``compare_systems``, as
    ``python -m core compare`` computes it): kept across reruns, so a rerun computes no
    statistics. ``data_key`` (the inputs' digests, the settings that shaped the scores, the
    clusters' and the cheap file's) stands in for the unhashed ``_systems``, ``_clusters``
    and ``_cheap`` in the cache key."""
    return compare_systems(_systems, a, b, resamples=resamples, confidence=confidence,
                           seed=seed, interval=interval, margin=margin, sequential=sequential,
                           best_method=best_method, baseline=baseline, correction=correction,
                           clusters=_clusters, cheap=_cheap, groups=groups,
                           group_file=group_file, next_step=True)


# what a bad optional input takes out: a cheap file's or a group file's error is one message,
# and the comparison runs again without it; values outside [0, 1] take out the sequence
OPTIONAL = {"cheap": ("_cheap", None), "groups": ("groups", None)}


def _compare_what_works(systems, data_key: tuple, a: str, b: str, stat: tuple, ask: dict):
    """``_compare``, and when an optional input fails (``OPTIONAL``, or the sequence on
    values outside [0, 1]) its error shown and the same call without it."""
    try:
        return _compare(systems, data_key, a, b, *stat, **ask)
    except InputError as exc:
        part = OPTIONAL.get(exc.code.split(".")[0].split("_")[0])
        if part is None or ask[part[0]] is None:
            raise
        show_error(exc)
        return _compare_what_works(systems, data_key, a, b, stat, {**ask, part[0]: part[1]})
    except ValueError:
        if not ask["sequential"]:
            raise
        range_warning()
        return _compare_what_works(systems, data_key, a, b, stat,
                                   {**ask, "sequential": False})


def _fmt(x) -> str:
    return "" if pd.isna(x) else f"{x:.3f}"


P_COLUMN = {"holm": "systems.col_p_holm", "bh": "systems.col_p_bh"}
CORRECTION_NOTE = {"holm": "systems.holm_note", "bh": "systems.bh_note"}
CORRECTION_SENTENCE = {"holm": "systems.correction_sentence_holm",
                       "bh": "systems.correction_sentence_bh"}


def pairs_display(table: pd.DataFrame, kind: str, level: str,
                  correction: str = "holm") -> pd.DataFrame:
    """The all-pairs table as shown: translated headers, one unit (``kind``), the CI and the
    win/tie/loss counts in one column each so it fits the page; the p column is the chosen
    correction's (``p_adjusted``) and the CI is at the verdicts' level (``level``: the
    comparison's ``adjusted_confidence``), as the verdict reads them."""
    return pd.DataFrame({
        "A": table["a"], "B": table["b"], tr("systems.col_n"): table["n"],
        tr("systems.col_mean_a"): [fmt.value(x, kind) for x in table["mean_a"]],
        tr("systems.col_mean_b"): [fmt.value(x, kind) for x in table["mean_b"]],
        tr("systems.col_diff"): [fmt.diff(x, kind) for x in table["b_minus_a"]],
        tr("systems.col_ci_adjusted", level=level): [
            fmt.interval(lo, hi, kind, signed=True)
            for lo, hi in zip(table["ci_low_adjusted"], table["ci_high_adjusted"])],
        tr(P_COLUMN[correction]): [fmt_p(x) for x in table["p_adjusted"]],
        tr("systems.col_verdict"): [tr(f"systems.verdict_{v}") for v in table["verdict"]],
        tr("systems.col_dz"): ["n/a" if pd.isna(x) else f"{x:.2f}" for x in table["cohens_dz"]],
        tr("systems.col_wtl"): [f"{w}/{t_}/{l_}" for w, t_, l_ in
                                zip(table["wins"], table["ties"], table["losses"])]})


# title -> the question -> the verdict card -> how to read -> inputs and settings -> details
st.title(tr("systems.title"))
st.caption(tr("systems.subtitle"))
card_slot = st.container()  # filled once the best set (3+ systems) or A vs B is computed
guide = st.container(key="systems_guide")  # "How to read this", collapsed
inputs_box = inputs_box("systems")
present_css("systems")

with inputs_box:
    source = st.segmented_control(tr("systems.source_label"), ["lists", "trec"],
                                  default="trec" if url_value("source") == "trec"
                                  else "lists",
                                  format_func=lambda s: tr(f"systems.source_{s}"),
                                  key="systems_source") or "lists"

settings = stat_settings("systems")
confidence, resamples, seed, interval = (settings.confidence, settings.resamples, settings.seed,
                                         settings.interval)
level = fmt_level(confidence)
with guide:
    how_to_read("systems.how_to_read", level=level)

with inputs_box:
    inputs: dict[str, bytes] = {}
    notes: list[str] = []
    cheap_gs = None   # cheap labels' scores (issue 34), when a second file is given
    cheap_qrels = None   # the cheap qrels' file name (TREC)
    group_labels = group_name = None   # a TREC qid,group side file
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
            cheap_up = st.file_uploader(tr("cheap.upload_label"),
                                        type=["csv", "tsv", "txt", "xlsx"],
                                        key="systems_cheap_upload",
                                        help=tr("cheap.systems_lists_help"))
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
                systems, listed = _lists(data, name, kind, metric, k)
            ls_scores, cl_labels, cl_source = systems.scored, listed.labels, listed.column
            ls, key, gs = ls_scores.lists, systems.key, systems.golden
            if cheap_up is not None:   # issue 34: the same lists judged with cheap labels
                cheap_gs = _cheap_set(lambda: _lists(cheap_up.getvalue(), cheap_up.name, kind,
                                                     metric, k)[0].golden)
                inputs[cheap_up.name] = cheap_up.getvalue()
            scores, text = gs.scores, gs.text
            st.caption(tr("systems.lists_loaded", n=len(ls.cases), methods=len(ls.methods),
                          kind=tr(f"systems.match_{ls.kind}")))
            means = ls_scores.means()
            if ls.encoding == "cp949":  # say which encoding was read (Korean Excel's CSV)
                st.caption(tr("common.read_as_cp949"))
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
            if up is not None:   # for the Switch? page
                st.session_state["systems_file"] = {"format": "lists", "name": name,
                                                    "data": data, "runs": (),
                                                    "measure": metric, "k": k}
        else:
            c1, c2 = st.columns(2)
            q_up = c1.file_uploader(tr("systems.qrels_upload"), key="systems_qrels_upload",
                                    help=tr("systems.qrels_help"))
            r_up = c2.file_uploader(tr("systems.runs_upload"), accept_multiple_files=True,
                                    key="systems_runs_upload", help=tr("systems.runs_help"))
            g_up = st.file_uploader(tr("groups.upload"), type=["csv", "tsv", "txt", "xlsx"],
                                    key="systems_groups_upload", help=tr("groups.upload_help"))
            cheap_up = st.file_uploader(tr("cheap.upload_label"), key="systems_cheap_upload",
                                        help=tr("cheap.systems_trec_help"))
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
                systems = _trec(qrels_data, qrels_name, runs, str(measure))
            ts, key, gs = systems.scored, systems.key, systems.golden
            if cheap_up is not None:   # issue 34: the runs scored under the cheap qrels
                cheap_gs = _cheap_set(lambda: _trec(cheap_up.getvalue(), cheap_up.name, runs,
                                                    str(measure)).golden)
                inputs[cheap_up.name] = cheap_up.getvalue()
                cheap_qrels = cheap_up.name
            if g_up is not None:  # query groups from the qid,group side file
                group_labels = _group_file(g_up.getvalue(), g_up.name)
                group_name = g_up.name
                inputs[g_up.name] = g_up.getvalue()
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
            params = {"format": "trec", "measure": key, "qrels": qrels_name,
                      "runs": ", ".join(r.name for r in ts.runs)}
            if q_up is not None and r_up:   # for the Switch? page
                st.session_state["systems_file"] = {"format": "trec", "name": qrels_name,
                                                    "data": qrels_data, "runs": runs,
                                                    "measure": key, "k": 10}
        if source != "lists":
            cl_labels, cl_source = None, None
        c_up = st.file_uploader(tr("clusters.upload"), type=["csv", "tsv", "txt", "xlsx"],
                                key="systems_clusters_upload", help=tr("clusters.upload_help"))
        if c_up is not None:   # a qid,cluster side file (replaces a lists file's column)
            cl_labels, cl_source = _cluster_file(c_up.getvalue(), c_up.name), c_up.name
            inputs[c_up.name] = c_up.getvalue()
    except InputError as exc:
        show_error(exc)
        st.stop()

    for note in notes:
        st.warning(note, icon="⚠️")

methods = list(scores.columns)
if len(methods) < 2:
    with inputs_box:
        show_error(InputError("need_two_methods", methods=", ".join(methods)))
        st.stop()

with inputs_box:
    # ----------------------------------------------------------------------------- A vs B
    st.subheader(tr_md("systems.pair_title", metric=key))
    col_a, col_b = st.columns(2)
    a = col_a.selectbox(tr("systems.method_a"), methods, index=url_index("a", methods, 0),
                        key="systems_a", help=tr("golden.method_a_help"))
    b = col_b.selectbox(tr("systems.method_b"), methods, index=url_index("b", methods, 1),
                        key="systems_b", help=tr("golden.method_b_help"))
    margin_value, margin_text = margin_input("systems", fmt.kind_of(gs.is_binary(a)
                                                                    and gs.is_binary(b)))
    looks_again = sequential_toggle("systems")
    best_method, correction, baseline = BEST_METHODS[0], CORRECTIONS[0], None
    if len(methods) >= 3:   # how the tied-for-best set and all pairs are read (issue 35)
        best_method = st.radio(tr("systems.best_method"), BEST_METHODS, horizontal=True,
                               index=url_index("best", BEST_METHODS, 0),
                               format_func=lambda m: tr(BEST_METHOD_LABELS[m]),
                               key="systems_best_method", help=tr("systems.best_method_help"))
        mc1, mc2, mc3 = st.columns(3)
        mode = mc1.radio(tr("systems.mode"), ["all", "baseline"], horizontal=True,
                         format_func=lambda m: tr(f"systems.mode_{m}"), key="systems_mode")
        correction = mc3.radio(tr("systems.correction"), CORRECTIONS, horizontal=True,
                               index=url_index("correction", CORRECTIONS, 0),
                               format_func=lambda c: tr(f"systems.correction_{c}"),
                               key="systems_correction", help=tr("systems.correction_help"))
        if mode == "baseline":
            baseline = mc2.selectbox(tr("systems.baseline"), methods, key="systems_baseline")
    url = dict(source=source, metric=metric if source == "lists" else key,
               k=k if source == "lists" else None, a=a, b=b,
               correction=None if correction == CORRECTIONS[0] else correction,
               **settings.url())
    keep_in_url(**url, margin=margin_text, seq=url_flag(looks_again),
                best=None if best_method == BEST_METHODS[0] else best_method)
    clusters = None if cl_labels is None else Clustered(
        gs, cl_labels, cl_source if c_up is None else None, None if c_up is None else cl_source)
    if cheap_gs is not None and clusters is not None:   # PPI reads cases as independent
        st.warning(tr("cheap.clusters_not_yet"), icon="⚠️")
        cheap_gs = None
    if cheap_gs is not None and cheap_qrels is not None:   # named in the TREC block, as the CLI
        systems = replace(systems, extra={**systems.extra, "cheap_qrels": cheap_qrels})
    data_key = (source, key, tuple(sorted(params.items(), key=str)),
                tuple((n, sha256(v)) for n, v in inputs.items()), cl_source)
    ask = dict(margin=margin_value, sequential=looks_again, best_method=best_method,
               baseline=baseline, correction=correction, _clusters=clusters, _cheap=cheap_gs,
               groups=group_labels, group_file=group_name)
    try:
        with st.spinner(tr("systems.computing")):
            sc = _compare_what_works(systems, data_key, a, b, (resamples, float(confidence),
                                                               seed, interval), ask)
    except InputError as exc:
        show_error(exc)
        st.stop()
    if sc.many_fallback is not None:  # cost before work: all pairs would not fit the limits
        st.info(tr_md("systems.many_fallback", **sc.many_fallback.params()))
result, clustered, cheap, margin, cmargin = sc.result, sc.clustered, sc.cheap, sc.margin, \
    sc.cluster_margin
best, many, seq, groups, judged = sc.best, sc.many, sc.seq, sc.groups, sc.judged
lang = current_lang()
view = paired_view(result.comparison, lang=lang, unit=result.golden.unit, margin=margin,
                   plan=sc.plan)
c, bs = result.comparison, result.comparison.bootstrap
verdict_text = view.sentence
card = view.card
if clustered is not None:   # the document as the unit (issue 32)
    card = cluster_card(clustered, c.a, c.b, cl_source, c.binary, lang)
    verdict_text = card.sentence
kind = view.kind
rates_chart = view.rates_chart(axis=tr("systems.axis_metric", metric=key))
boot_chart = view.bootstrap_chart()
best_chart = (rank_chart(best, title=tr("systems.best_title"), axis=tr("systems.best_axis"),
                         best=tr("systems.best_in"), behind=tr("systems.best_out"))
              if best is not None else None)
headline_best = best is not None and margin is None   # a margin asks about A vs B first
with card_slot:
    if headline_best:
        show_card(best_card(best, lang))
        if presenting():  # the card and the chart of the rank intervals
            draw_chart(rank_chart(best, axis=tr("systems.best_axis"), best=tr("systems.best_in"),
                                  behind=tr("systems.best_out")),
                       present_height=PRESENT_CHART_HEIGHT)
    else:
        if seq is not None:
            show_sequential(seq, c.a, c.b, lang)
        if cheap is not None:   # the prediction-powered card first, the gold-only one below
            show_card(cheap_card(cheap, lang))
            st.caption(tr("cheap.gold_card_title"))
        show_card(card)
        if cmargin is not None:   # method names inside: shown literally
            st.markdown(esc(margin_line(cmargin, c.a, c.b, c.binary, lang)))
        if presenting():  # the presentation view: the card and the one chart that explains it
            draw_chart(view.bootstrap_chart(titled=False), present_height=PRESENT_CHART_HEIGHT)
end_of_presentation()
if headline_best and seq is not None:
    show_sequential(seq, c.a, c.b, lang)
if headline_best:  # A vs B keeps its own card, under its heading
    if cheap is not None:
        show_card(cheap_card(cheap, lang))
        st.caption(tr("cheap.gold_card_title"))
    show_card(card)
elif best is not None:  # with a margin the best set's card moves down here
    show_card(best_card(best, lang))
ex = result.excluded
if ex.total:
    st.warning(tr_md("systems.excluded", count=ex.total,
                     ids=", ".join(sorted(set(ex.missing) | set(ex.duplicates)
                                          | set(ex.blank))[:20])), icon="⚠️")

cluster_text = ([] if clustered is None
                else cluster_lines(clustered, c.a, c.b, cl_source, c.binary, lang))
if clustered is not None:
    st.info(tr("clusters.page_independent"))
    # each method's and B − A's cluster-robust interval, the cluster tests and the clustered
    # self-check's measured rate, as the CLI prints them (names inside: shown literally)
    with st.expander(tr("clusters.page_title"), expanded=True):
        st.markdown("\n".join(f"- {esc(line)}" for line in cluster_text))
elif sc.hint is not None:   # ids like doc12_q1, doc12_q2: suggest the cluster option, never guess
    st.info(tr_md("clusters.hint", sources=sc.hint["sources"], example=sc.hint["example"]))
# repeated runs of the lists (issue 32): each case's value is its mean over its runs
runs_text = [] if sc.runs is None else runs_lines(sc.runs, lang)
for line in runs_text:   # the run column's name inside, literally
    st.caption(esc(line))
cols = show_paired(view)
verdict_notes(c.decision, bs, cols[2], reason=False)
left, right = st.columns(2)
draw_chart(rates_chart, left)
draw_chart(boot_chart, right)
tests_table = view.tests
st.markdown(f"**{tr('paired.tests_title')}**",
            help=glossary("mcnemar", "discordant", "randomization", "ttest", "cohens_dz"))
show_table(tests_table)

# no harm (issue 35): how often B is worse than A on a case, the share helped, TRisk
harm, harm_text = harm_section(
    "systems", result.a_values, result.b_values, c.a, c.b, kind, lang,
    ask_delta=kind != "rate", confidence=confidence, resamples=resamples, seed=seed,
    clusters=None if sc.cluster_labels is None else list(sc.cluster_labels),
    link_key="harm.most_hurt_link_systems")

st.subheader(tr("systems.means_title"))
# one row per measure, one column per method: measure names are long and many, methods few,
# so this way round the table fits a 1280-px screen (issue 13: nothing cut off)
means_table = means.map(_fmt).T
means_table.index.name = tr("systems.col_measure")
show_frame(means_table, width="stretch")

# ----------------------------------------------------------------------------- many systems
sections_many = []
if len(methods) >= 3:
    st.subheader(tr("systems.many_title", n=len(methods)), help=glossary("holm", "bh"))
    if best is not None:
        st.markdown(f"**{tr('systems.best_title')}**", help=tr(BEST_NOTE_KEYS[best.method]))
        st.caption(esc(best_sentence(best, lang)))
        if best.excluded:
            st.warning(tr("systems.best_excluded", count=len(best.excluded)), icon="⚠️")
        draw_chart(best_chart)
        show_table(ranks_display(best, lang).set_index(tr("systems.best_col_system")))
    elif not sc.best_cost.fits:
        st.info(tr_md("systems.best_too_much", **sc.best_cost.params()))
    if not sc.many_cost.fits:
        st.warning(tr_md("systems.many_too_much", **sc.many_cost.params()))
if best is not None:
    sections_many.append(Section(tr("systems.best_title"),
                                 best_sentence(best, lang) + "\n"
                                 + tr(BEST_NOTE_KEYS[best.method]),
                                 table=ranks_display(best, lang), chart=best_chart))
if many is not None:
    adj_level = fmt_level(round(many.adjusted_confidence, 4))  # 1 - 0.05/3: 98.33%
    note = tr(CORRECTION_NOTE[many.correction], m=len(many.pairs), alpha=f"{many.alpha:.2f}",
              level=level, adj_level=adj_level)
    which = tr(CORRECTION_SENTENCE[many.correction], alpha=f"{many.alpha:.2f}")
    st.caption(note)
    st.caption(which)
    chart = matrix_chart(many, title=tr("systems.matrix_title", metric=key),
                         legend=tr("systems.matrix_legend"))
    draw_chart(chart)
    table_shown = pairs_display(many.table(), kind, adj_level, many.correction)
    show_table(table_shown.set_index("A"))  # wraps: fits the page
    sections_many.append(Section(tr("systems.many_title", n=len(methods)), note + "\n" + which,
                                 table=table_shown, chart=chart))

# ----------------------------------------------------------------------------- drill-down
st.subheader(tr_md("systems.drill_title", a=a, b=b), anchor="systems-drill")
dis = disagreements(scores, a, b, text=text)
dis_shown = dis.head(MAX_DRILL).rename(columns={"case_id": tr("systems.col_case"),
                                                "difference": tr("paired.axis_diff", a=a, b=b)})
if len(dis):
    show_frame(dis_shown, hide_index=True, width="stretch")
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

# ----------------------------------------------------------------------------- groups, labels
group_sections = show_groups(groups, "groups.hint" if source == "lists" else "groups.hint_trec")
if source == "lists" and ls.kind != "ids":
    st.caption(tr("judged.text_kind"))
elif source == "lists" and sc.runs is not None:   # the bounds would read first runs only
    st.caption(tr("clusters.runs_no_judged"))
judged_sections = [] if judged is None else show_judged(judged, "systems", kind)

# ----------------------------------------------------------------------------- report
st.subheader(tr("systems.report_title"))
summary = sc.to_dict(harm=harm)   # the JSON python -m core compare --json writes
sections = [
    *([] if cheap is None else [Section(tr("cheap.upload_label"), "\n".join(
        line.strip() for line in cheap_lines(cheap, lang)))]),
    *([] if seq is None else [sequential_section(seq, c.a, c.b, lang)]),
    *([] if not runs_text else [Section(tr("clusters.runs_title"), "\n".join(runs_text))]),
    *([] if clustered is None else [Section(tr("clusters.page_title"), "\n".join(
        cluster_text + ([] if cmargin is None
                        else [margin_line(cmargin, c.a, c.b, c.binary, lang)])))]),
    Section(tr("systems.means_title"), "\n".join(notes), table=means_table.reset_index()),
    Section(tr("systems.pair_title", metric=key), verdict_text, table=tests_table),
    Section(tr("harm.title"), " ".join(harm_text)),
    Section(view.rates_title(), chart=rates_chart),
    Section(view.bootstrap_title(), chart=boot_chart),
    *sections_many,
    Section(tr("systems.drill_title", a=a, b=b), table=dis_shown if len(dis) else None),
    *group_sections,
    *judged_sections,
]
report_downloads("systems", tr("systems.title"), sections, inputs=inputs,
                 params={**params, "a": a, "b": b, "resamples": resamples, "seed": seed,
                         "confidence": level, "interval": bs.interval},
                 per_case=scores.reset_index(), summary=summary,
                 verdict=best_sentence(best, lang) if best is not None else verdict_text,
                 card=best_card(best, lang) if headline_best else card)
