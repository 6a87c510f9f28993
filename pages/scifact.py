"""scifact live: BM25 vs dense vs hybrid on a BEIR folder -> core.retrieval.scifact -> draw.

Nothing is computed here: retrieval is core.retrieval.search, metrics core.inputs.metrics, the paired
bootstrap and verdict core.paired.stats, the tied-for-best set of all three core.paired.best, through
core.retrieval.scifact.
"""
import dataclasses
import os
from pathlib import Path

import pandas as pd
import streamlit as st

from core.errors import InputError
from core.inputs import beir_bounds, margin_answer
from core.paired import sequential_block, sequential_compare
from core.planning import card_next_step
from core.retrieval import (ANY_PATH_ENV, BM25Params, CACHE_DIR, CORPUS, DEFAULT_RESAMPLES,
                            ENV_VAR, MEASURES, PAPER_BM25_NDCG10, QRELS_DIR, QUERIES, RETRIEVERS,
                            TOKENIZERS, beir_folders, ci_by_n, compare_retrievers,
                            disagreements, download_beir, evaluate, is_beir_dir, live,
                            load_beir, means, query_frame, rank_retrievers, resolve_dir,
                            resolve_model, retriever_estimate, run_retrievers, run_settings,
                            side_by_side, subsample, unpack_bundle, with_hybrid)
from core.views import format as fmt
from core.views import best_sentence, rank_chart, ranks_display, renamed
from core.views import level as fmt_level
from core.views import paired_view
from core.views import outcome_table
from core.views import sequential_section
from core.views import (NAMES, best_line, ci_by_n_chart, duration, folder_label,
                                scatter_chart, split_name, step_text, waiting_card)
from pages._ui import (PRESENT_CHART_HEIGHT, current_lang, draw_chart, end_of_presentation,
                       harm_section,
                       how_to_read, inputs_box, keep_in_url, margin_input, page_setup,
                       present_css, presenting,
                       report_downloads, Section, shipped, show_card, show_error, show_frame,
                       show_paired, show_table, stat_settings, tr, tr_md, url_index, url_number,
                       url_value, verdict_notes)
from pages._sections import show_judged
from pages._sequential import sequential_toggle, show_sequential, url_flag

BY_N = (10, 20, 30, 50, 75, 100, 150, 200, 300)
SMALL_N = 30
# an encode expected to take longer than this waits for a click (operators may change it)
CONFIRM_SECONDS = float(os.environ.get("NOISEFLOOR_CONFIRM_SECONDS") or 60)
QUICK_SECONDS = 2.0  # an encode done within this time shows no progress bar

page_setup()


def _stamp(path: str) -> tuple:
    """Size and modification time of the three files: edits invalidate the caches."""
    p = Path(path)
    out = []
    for rel in (CORPUS, QUERIES, f"{QRELS_DIR}/test.tsv"):
        try:
            s = (p / rel).stat()
            out.append((rel, s.st_size, s.st_mtime_ns))
        except OSError:
            out.append((rel, None, None))
    return tuple(out)


@st.cache_data(show_spinner=False, max_entries=4)
def _load(path: str, stamp: tuple):
    return load_beir(path)


@st.cache_data(show_spinner=False, max_entries=8)
def _bm25(path: str, stamp: tuple, k1: float, b: float, tokenizer: str):
    data = _load(path, stamp)
    return run_retrievers(data, ["bm25"], bm25=BM25Params(k1, b, tokenizer))["bm25"]


@st.cache_data(show_spinner=False, max_entries=8)
def _judged(_data, _rankings, run_key: tuple, metric: str, a: str, b: str, queries: tuple,
            resamples: int, confidence: float, seed: int, interval: str):
    """Judged@10 and both readings (``core.inputs.judged.beir_bounds``); ``run_key`` (folder,
    file stamps, BM25 settings, model) stands in for the unhashed data and rankings."""
    return beir_bounds(_data, _rankings, metric, a, b, queries=list(queries),
                       resamples=resamples, confidence=confidence, seed=seed,
                       interval=interval)


@st.cache_data(show_spinner=False, max_entries=8)
def _best(_tables, run_key: tuple, metric: str, queries: tuple, resamples: int,
          confidence: float, seed: int):
    """The tied-for-best set of the three retrievers (``core.retrieval.scifact.rank_retrievers``);
    ``run_key`` stands in for the unhashed per-query tables, as in ``_judged``."""
    return rank_retrievers(_tables, metric, queries=list(queries), resamples=resamples,
                           confidence=confidence, seed=seed)


@st.fragment(run_every=1.0)
def _job_progress(data, model: str) -> None:
    """The server's encode job, redrawn every second (one bar, one ETA); the whole page runs
    again when it ends."""
    job = live.encode_state(data, model, CACHE_DIR)
    if job is None or not job.running:
        st.rerun()
    eta = tr("scifact.job_eta", eta=duration(job.eta)) if job.eta is not None else \
        tr("scifact.job_eta_unknown")
    st.progress(job.fraction, text=tr("scifact.job_running", total=f"{job.total:,}",
                                      model=model or "all-MiniLM-L6-v2", done=f"{job.done:,}",
                                      eta=eta))
    st.caption(tr("scifact.job_note"))


def _show_step(slot, status) -> None:
    """One step the dense side waits for: a bar (items done, else the time against last
    time's) and its line with the ETA (``core.views.scifact.step_text``)."""
    if status.done is not None and status.total:
        frac = status.done / status.total
    elif status.last:
        frac = min(status.elapsed / status.last, 0.99)
    else:
        frac = 0.0
    slot.progress(frac, text=step_text(status, current_lang()))


def _dense_or_progress(data, model: str, dense_key, steps):
    """The dense result (``core.retrieval.live.DenseResult``) when the server's dense job
    (started before BM25) ends, each step it waits for shown in ``steps`` with its ETA.
    When the documents have no vectors yet, their encode runs as a server job (started
    here, after a confirmation when it is long) and its progress is drawn; returns None. A
    re-encode of every document (``refresh``) does not take the verdict away: the vectors
    in use before it serve every visitor until it ends."""
    job = live.encode_state(data, model, CACHE_DIR)
    if job is not None and job.running and not job.refresh:
        _job_progress(data, model)
        return None
    if job is not None and job.state == "failed":
        st.error(tr_md("scifact.job_failed", detail=job.error))
    status = live.wait_dense(dense_key, lambda s: _show_step(steps, s.step))
    steps.empty()
    if status.state == "failed":
        raise status.error
    if status.state == "done":
        return status.result
    _notes(status.notes)   # "encode": the documents need their vectors first
    est = live.estimate(data, model)
    if est.seconds > CONFIRM_SECONDS and \
            st.session_state.get("scifact_confirmed") != (data.content_hash, model):
        st.warning(tr_md("scifact.confirm_text", total=f"{data.n_docs:,}",
                         eta=duration(est.seconds), rate=f"{est.per_second:.0f}",
                         sample=est.sample), icon="⏱️")
        if st.button(tr("scifact.confirm_button", eta=duration(est.seconds)),
                     key="scifact_confirm", type="primary"):
            st.session_state["scifact_confirmed"] = (data.content_hash, model)
            live.start_encode(data, model, cache_dir=CACHE_DIR)
            st.rerun()
        return None
    live.start_encode(data, model, cache_dir=CACHE_DIR)
    if live.wait_encode(data, model, QUICK_SECONDS, CACHE_DIR).state == "done":
        st.rerun()  # a short encode: no progress bar to flash
    _job_progress(data, model)
    return None


def _notes(notes) -> None:
    """Cache notes from core.retrieval.search (rejected entries, unwritable folder): one line each."""
    for code, params in notes:
        st.caption(tr_md(f"scifact.note_{code}", **params))


# title -> the question -> the verdict card -> how to read -> inputs and settings -> details
st.title(tr("scifact.title"))
st.caption(tr("scifact.subtitle"))
card_slot = st.container()  # the verdict card (or the encode's progress), filled below
with st.container(key="scifact_guide"):
    how_to_read("scifact.how_to_read", n_small=SMALL_N)
inputs_box = inputs_box("scifact")
present_css("scifact")

with inputs_box:
    # ------------------------------------------------------------------------- the folder
    default_path, _ = resolve_dir(None)
    if os.environ.get(ANY_PATH_ENV) == "1":  # free path field only when the operator allows it
        typed = st.text_input(tr("scifact.path_label"), value=str(default_path),
                              key="scifact_path", help=tr("scifact.path_help", env=ENV_VAR)).strip()
        folder, source = resolve_dir(typed if typed and typed != str(default_path) else None)
    else:
        choices = [str(f) for f in beir_folders()] or [str(default_path)]
        picked = st.selectbox(tr("scifact.folder_label"), choices, key="scifact_folder",
                              format_func=lambda f: folder_label(f, current_lang()),
                              help=tr("scifact.folder_help", env=ENV_VAR))
        folder, source = resolve_dir(picked if picked != str(default_path) else None)
        if source == "explicit":
            env_dir = os.environ.get(ENV_VAR, "").strip()
            source = "env" if env_dir and Path(picked) == Path(env_dir).expanduser() else "listed"
    st.caption(tr_md(f"scifact.source_{source}", env=ENV_VAR))

    if source == "default" and not is_beir_dir(folder):
        try:  # the scifact copy shipped in data/beir/scifact.tar.gz, unpacked on first use
            with st.spinner(tr("scifact.unpacking")):
                unpack_bundle(folder)
        except InputError as exc:
            show_error(exc)

    if source == "default" and not folder.exists():
        st.info(tr_md("scifact.missing_help", env=ENV_VAR), icon="ℹ️")
        if st.button(tr("scifact.download_button"), key="scifact_download"):
            try:
                with st.spinner(tr("scifact.downloading")):
                    download_beir(folder)
                st.success(tr_md("scifact.downloaded", path=folder_label(folder, current_lang())))
            except InputError as exc:
                show_error(exc)
                st.stop()
        else:
            st.stop()

    path = str(folder)
    stamp = _stamp(path)
    try:
        with st.spinner(tr("scifact.loading")):
            data = _load(path, stamp)
    except InputError as exc:
        show_error(exc)
        if exc.code in ("scifact.err_no_folder", "scifact.err_missing_file"):
            st.info(tr_md("scifact.missing_help", env=ENV_VAR), icon="ℹ️")
        st.stop()

    st.markdown(tr_md("scifact.collection", name=data.name, docs=f"{data.n_docs:,}",
                   queries=f"{data.n_queries:,}", judgements=f"{data.n_judgements:,}",
                   split=split_name(data.split, current_lang())))
    vectors_box = st.container()  # where the document vectors came from (filled when ready)

settings = stat_settings("scifact", resamples=DEFAULT_RESAMPLES)
confidence, resamples, seed, interval = (settings.confidence, settings.resamples, settings.seed,
                                         settings.interval)
with st.sidebar:
    k1 = st.number_input(tr("scifact.k1"), 0.0, 10.0, 1.5, step=0.1, key="scifact_k1",
                         help=tr("scifact.k1_help"))
    b = st.number_input(tr("scifact.b"), 0.0, 1.0, 0.75, step=0.05, key="scifact_b",
                        help=tr("scifact.b_help"))
    tokenizer = st.selectbox(tr("scifact.tokenizer"), TOKENIZERS, key="scifact_tokenizer",
                             format_func=lambda tk: tr(f"scifact.tok_{tk}"),
                             help=tr("scifact.tokenizer_help"))
    model = st.text_input(tr("scifact.model"), "", key="scifact_model",
                          help=tr("scifact.model_help")).strip()

with inputs_box:
    col_a, col_b, col_m = st.columns(3)
    a = col_a.selectbox(tr("scifact.retriever_a"), RETRIEVERS, index=url_index("a", RETRIEVERS, 0),
                        key="scifact_a", format_func=NAMES.get, help=tr("golden.method_a_help"))
    b_name = col_b.selectbox(tr("scifact.retriever_b"), RETRIEVERS,
                             index=url_index("b", RETRIEVERS, 1), key="scifact_b_name",
                             format_func=NAMES.get, help=tr("golden.method_b_help"))
    metric = col_m.selectbox(tr("scifact.metric"), MEASURES, index=url_index("metric", MEASURES, 0),
                             key="scifact_metric")

    n_all = data.n_queries
    low = min(10, n_all)
    if n_all > low:
        n_used = st.slider(tr("scifact.subsample"), low, n_all, url_number("n", low, n_all, n_all),
                           key="scifact_queries",
                           help=tr("scifact.subsample_help"))
    else:
        n_used = n_all

# ----------------------------------------------------------------------------- running
# BM25 first: its numbers show while the dense side gets ready
try:
    BM25Params(float(k1), float(b), tokenizer)
    with st.spinner(tr("scifact.running_bm25")):
        bm25_ranking = _bm25(path, stamp, float(k1), float(b), tokenizer)
    qids = subsample(data.query_ids, int(n_used), seed=int(seed))
except (InputError, ValueError, OSError) as exc:
    show_error(exc)
    st.stop()
headline = card_slot  # the verdict card, or BM25's card and the steps while dense waits
bm25_slot = st.empty()
bm25_tables = evaluate(data, {"bm25": bm25_ranking})
with bm25_slot.container():
    st.subheader(tr("scifact.bm25_title", n=len(qids)))
    show_frame(pd.DataFrame(means(bm25_tables, qids)).T
               .rename(index=NAMES).map(lambda x: fmt.value(x, "score")), width="stretch")
waiting = headline.empty()   # BM25 alone, drawn at once; replaced by the verdict
with waiting.container():
    show_card(waiting_card(retriever_estimate(bm25_tables, "bm25", metric, queries=qids,
                                              confidence=float(confidence),
                                              resamples=int(resamples), seed=int(seed)),
                           metric=metric, confidence=float(confidence), lang=current_lang()))
    steps = st.empty()
# the dense side (model, shipped vectors' check, queries) as a server job, started once
# BM25's card is drawn: side by side, their many small numpy calls and BM25's Python wait
# for each other's GIL, and both came later (docs/speed.md)
_reencode = live.encode_state(data, model, CACHE_DIR)
_reencode = _reencode is not None and _reencode.running and _reencode.refresh
dense_key = live.start_dense(data, model, cache_dir=CACHE_DIR, live=not _reencode and (
    st.session_state.get("scifact_live") == (data.content_hash, model)))
try:
    with headline:
        dense = _dense_or_progress(data, model, dense_key, steps)
    if dense is None:
        headline.info(tr("scifact.dense_waiting"), icon="⏳")
        st.stop()
    vec_source, vec_params = dense.source, dense.params
    rankings = with_hybrid({"bm25": bm25_ranking, "dense": dense.ranking})
    tables = evaluate(data, rankings)
    comp = compare_retrievers(tables, a, b_name, metric, queries=qids, resamples=int(resamples),
                              confidence=float(confidence), seed=int(seed), interval=interval)
    run_key = (path, stamp, float(k1), float(b), tokenizer, model, vec_source, str(vec_params))
    with st.spinner(tr("scifact.computing_best")):
        best = renamed(_best(tables, run_key, metric, qids, int(resamples), float(confidence),
                             int(seed)), NAMES)
except (InputError, ValueError, OSError) as exc:
    show_error(exc)
    st.stop()
waiting.empty()
st.session_state["scifact_tables"] = {"tables": tables, "queries": tuple(qids),  # Switch?
                                     "metric": metric, "collection": data.name}
bm25_slot.empty()
reencode = live.encode_state(data, model, CACHE_DIR)
reencode = reencode is not None and reencode.running and reencode.refresh
with vectors_box:
    st.caption(tr_md(f"scifact.vectors_{vec_source}", **vec_params))
    _notes(dense.notes)
    if reencode:   # every visitor keeps the verdict above; the bar says what runs
        st.caption(tr("scifact.reencode_running"))
        _job_progress(data, model)
    if st.button(tr("scifact.encode_all_button"), key="scifact_encode_all", disabled=reencode,
                 help=tr("scifact.encode_all_help", total=f"{data.n_docs:,}")):
        st.session_state["scifact_live"] = (data.content_hash, model)
        live.start_encode(data, model, refresh=True, cache_dir=CACHE_DIR)
        st.rerun()

with inputs_box:
    margin_value, margin_text = margin_input("scifact", fmt.kind_of(comp.data.binary))
    looks_again = sequential_toggle("scifact")
seq = None
if looks_again:   # issue 33: B − A per query as a confidence sequence, queries as compared
    seq = sequential_compare(comp.a_values, comp.b_values, float(confidence), seed=int(seed))
margin = margin_answer(comp, margin_value)
lang = current_lang()
view = paired_view(comp, lang=lang, names=NAMES, unit="queries", metric=metric, margin=margin,
                  plan=card_next_step(comp, margin))
verdict_text = view.sentence
bs = comp.bootstrap
card = dataclasses.replace(view.card, best=best_line(best, metric, lang))  # all three, one line
level = fmt_level(confidence)
boot_chart = view.bootstrap_chart(metric=metric)
url_state = dict(a=a, b=b_name, metric=metric, n=int(n_used), margin=margin_text,
                 seq=url_flag(looks_again), **settings.url())
keep_in_url(**url_state, query=url_value("query"))  # the drill-down's, below
with card_slot:
    if seq is not None:
        show_sequential(seq, NAMES[a], NAMES[b_name], lang, queries=True)
    show_card(card)
    if presenting():  # the presentation view: the card and the one chart that explains it
        draw_chart(view.bootstrap_chart(metric=metric, titled=False), present_height=PRESENT_CHART_HEIGHT)
end_of_presentation()
st.caption(tr("clusters.scifact_independent"))   # issue 32: no clusters here, said plainly

# the interval by number of queries and the bootstrap histogram of B − A
by_n = ci_by_n(tables, a, b_name, metric, [n for n in BY_N if n <= n_all] + [int(n_used)],
               resamples=int(resamples), confidence=float(confidence), seed=int(seed),
               interval=interval)
by_n_chart = ci_by_n_chart(by_n, int(n_used), title=tr("scifact.chart_by_n", a=NAMES[a],
                                                        b=NAMES[b_name]),
                           x_title=tr("scifact.axis_n"),
                           y_title=tr("scifact.axis_diff", a=NAMES[a], b=NAMES[b_name],
                                      metric=metric))
left, right = st.columns(2)
draw_chart(by_n_chart, left)
draw_chart(boot_chart, right)


# ----------------------------------------------------------------------------- means
sub_means = means(tables, qids)
means_df = pd.DataFrame(sub_means).T.rename(index=NAMES)
means_df.index.name = tr("scifact.col_retriever")
st.subheader(tr("scifact.means_title", n=int(comp.n)))
show_frame(means_df.map(lambda x: fmt.value(x, "score")), width="stretch")
if data.name.lower() == "scifact":
    st.caption(tr("scifact.paper_note", paper=f"{PAPER_BM25_NDCG10:.3f}"))
    if st.button(tr("scifact.send_button"), key="scifact_send"):
        st.session_state["scifact_measured"] = means(tables)
        st.success(tr("scifact.sent"))

# ----------------------------------------------------------------------------- all three
best_title = tr("scifact.best_title", k=len(best.systems), metric=metric)
best_text = tr("scifact.best_caption", sentence=best_sentence(best, lang), a=NAMES[a],
               b=NAMES[b_name], k=len(best.systems), n=f"{best.n:,}", level=level,
               resamples=f"{best.resamples:,}")
best_chart = rank_chart(best, title=best_title, axis=tr("systems.best_axis"),
                        best=tr("systems.best_in"), behind=tr("systems.best_out"))
st.subheader(shipped(best_title), help=tr("systems.best_note"))  # the metric is the app's
st.caption(shipped(best_text))  # retriever and metric names come with the app
draw_chart(best_chart)
show_table(ranks_display(best, lang).set_index(tr("systems.best_col_system")))

# ----------------------------------------------------------------------------- the difference
cols = show_paired(view, label=shipped)  # retriever and metric names come with the app
verdict_notes(comp.decision, bs, cols[2], reason=False)
show_table(view.tests)

w1, w2, w3 = st.columns(3)
w1.metric(tr("scifact.wins_a", name=shipped(NAMES[a])), int(comp.a_wins))
w2.metric(tr("scifact.wins_b", name=shipped(NAMES[b_name])), int(comp.b_wins))
w3.metric(tr("scifact.ties"), int(comp.ties))

h = comp.hits
hits_df = outcome_table((h["both"], h["a_only"], h["b_only"], h["neither"]), NAMES[a],
                        NAMES[b_name], lang, outcome="hit")
st.subheader(tr("scifact.hits_title"))
show_table(hits_df)

# no harm (issue 35): how often B is worse than A per query, the share helped, TRisk
harm, harm_text = harm_section(
    "scifact", comp.data.a, comp.data.b, NAMES[a], NAMES[b_name], view.kind, lang,
    ask_delta=True, confidence=confidence, resamples=resamples, seed=seed,
    link_key="harm.most_hurt_link_scifact")

scatter = scatter_chart(comp, title=tr("scifact.chart_scatter", a=NAMES[a], b=NAMES[b_name],
                                       metric=metric),
                        a_title=f"{NAMES[a]} {metric}", b_title=f"{NAMES[b_name]} {metric}",
                        size_title=tr("scifact.legend_queries"))
draw_chart(scatter)

# ----------------------------------------------------------------------------- missing labels
with st.spinner(tr("scifact.computing_judged")):
    judged = _judged(data, rankings, run_key, metric, a, b_name, qids, int(resamples),
                     float(confidence), int(seed), interval)
judged_sections = show_judged(judged, "scifact", view.kind, names=NAMES,
                              title_key="judged.scifact_title")

# ----------------------------------------------------------------------------- drill-down
disc = disagreements(comp)
st.subheader(tr("scifact.drill_title", n=len(disc)), anchor="scifact-drill")
if len(disc):
    options = list(disc["query_id"])
    diffs = dict(zip(disc["query_id"], disc["diff"]))
    qid = st.selectbox(tr("scifact.drill_pick"), options, key="scifact_drill",
                       index=url_index("query", options, 0),
                       format_func=lambda q: f"{q} ({fmt.diff(diffs[q], 'score')}): "
                                             f"{data.queries[q][:90]}")
    st.markdown(tr_md("scifact.drill_query", qid=qid, text=data.queries[qid]))
    relevant = [d for d, s in data.qrels[qid].items() if s > 0]
    st.caption(tr_md("scifact.drill_relevant", ids=", ".join(relevant)))
    sbs = side_by_side(data, rankings, qid, a, b_name)
    for col, side, name in zip(st.columns(2), ("a", "b"), (a, b_name)):
        col.markdown(f"**{shipped(NAMES[name])}**")
        show_table(pd.DataFrame({
            tr("scifact.col_rank"): sbs["rank"],
            tr("scifact.col_rel"): sbs[f"{side}_relevant"].map({True: "✅",
                                                                          False: ""}),
            tr("scifact.col_doc"): sbs[f"{side}_doc"],
            tr("scifact.col_title"): sbs[f"{side}_title"],
        }).set_index(tr("scifact.col_rank")), col)
else:
    qid = None
    st.caption(tr("scifact.drill_none"))
keep_in_url(**url_state, query=qid)

# ----------------------------------------------------------------------------- report
per_case = query_frame(comp)
per_case.insert(1, "query", [data.queries[q] for q in per_case["query_id"]])
counts_df = pd.DataFrame([{tr("scifact.wins_a", name=NAMES[a]): comp.a_wins,
                           tr("scifact.wins_b", name=NAMES[b_name]): comp.b_wins,
                           tr("scifact.ties"): comp.ties}])
report_disc = disc.copy()
report_disc.insert(1, "query", [data.queries[q] for q in report_disc["query_id"]])
report_disc = report_disc.round(3).rename(columns={
    "query_id": tr("scifact.col_query_id"), "query": tr("scifact.col_query"),
    a: NAMES[a], b_name: NAMES[b_name],
    "diff": tr("paired.axis_diff", a=NAMES[a], b=NAMES[b_name])})
by_n_table = pd.DataFrame({
    tr("scifact.col_n"): by_n["n"],
    tr("paired.axis_diff", a=NAMES[a], b=NAMES[b_name]): by_n["mean"].map(
        lambda x: fmt.diff(x, "score")),
    tr("scifact.col_lo", level=level): by_n["ci_low"].map(lambda x: fmt.diff(x, "score")),
    tr("scifact.col_hi", level=level): by_n["ci_high"].map(lambda x: fmt.diff(x, "score")),
    tr("scifact.col_verdict"): [tr(f"systems.verdict_{v}") for v in by_n["verdict"]]})
sections = [Section(tr("scifact.report_means"),
                    table=means_df.map(lambda x: fmt.value(x, "score")).reset_index()),
            Section(tr("scifact.report_best", k=len(best.systems)), best_text,
                    table=ranks_display(best, lang), chart=best_chart),
            Section(tr("scifact.report_counts"), table=counts_df),
            Section(tr("scifact.hits_title"), table=hits_df.reset_index(names="")),
            Section(tr("harm.title"), " ".join(harm_text)),
            Section(tr("scifact.report_scatter"), chart=scatter),
            Section(tr("scifact.report_by_n"), table=by_n_table, chart=by_n_chart),
            Section(view.bootstrap_title(), chart=boot_chart),
            *judged_sections,
            Section(tr("scifact.drill_title", n=len(disc)),
                    table=report_disc if len(disc) else None)]
if seq is not None:   # issue 33: the sequence, queries in the order compared
    sections.insert(0, sequential_section(seq, NAMES[a], NAMES[b_name], lang, queries=True))
root = Path(path)
inputs = {rel: (root / rel).read_bytes() for rel in (QUERIES, f"{QRELS_DIR}/test.tsv")}
summary = {"collection": data.to_dict(), "scores": sub_means, "comparison": comp.to_dict(),
           **({"margin": margin.to_dict()} if margin is not None else {}),
           **({"sequential": sequential_block(seq, queries=True)} if seq is not None else {}),
           "judged": judged.to_dict(), "best_set": best.to_dict(), "harm": harm.to_dict(),
           "settings": run_settings(BM25Params(float(k1), float(b), tokenizer),
                                    resolve_model(model or None)[1], seed=int(seed),
                                    queries=int(n_used))}
report_downloads("scifact", tr("scifact.title"), sections, inputs=inputs,
                 params={"a": a, "b": b_name, "metric": metric, "queries": int(n_used),
                         "k1": float(k1), "bm25_b": float(b), "tokenizer": tokenizer,
                         "model": resolve_model(model or None)[1],
                         "corpus_sha256": data.content_hash, "resamples": int(resamples),
                         "seed": int(seed), "confidence": level, "interval": interval},
                 per_case=per_case, summary=summary, verdict=verdict_text, card=card)

