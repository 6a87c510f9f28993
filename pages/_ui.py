"""Shared page helpers: session defaults, language, translated text, error display, and the
report downloads every analysis page ends with (``report_downloads``).

Pages import from here; every page calls ``page_setup()`` first so it also runs on its own
(for example under ``AppTest.from_file("pages/golden.py")``).
"""
from __future__ import annotations

import dataclasses
import hashlib
import re
from dataclasses import dataclass

import pandas as pd
import streamlit as st

from core.errors import InputError
from core.i18n import DEFAULT_LANG, LANGS, t
from core.serialize import to_csv_bytes, to_json
from core.paired import ALPHAS, no_harm
from core.views import card_html, harm_lines, harm_unit_line
from core.views import enlarge, pad

from core.views import Section, build_report, to_latex, to_markdown

try:  # one lock for altair's global transformer: Streamlit's charts and our reports' specs
    from streamlit.elements.vega_charts import _altair_globals_lock as _ALTAIR_LOCK
    from core.views import report as _report

    _report.SPEC_LOCK = _ALTAIR_LOCK
except ImportError:  # a Streamlit without that lock: the report keeps its own
    pass

# Shared state, set up once: pages read these keys; the page that owns one writes it.
SESSION_DEFAULTS = {
    "lang": None,                # "en" | "ko"; from ?lang= on first load
    "golden_set": None,          # core.inputs.golden.GoldenSet loaded on the golden page
    "golden_comparison": None,   # core.inputs.systems.GoldenComparison last shown there
    "golden_source": None,       # {"name", "sha256"} of the file behind golden_set (reports)
    "golden_clusters": None,     # ClusterSummary.to_dict() of the golden page's clusters (planner)
    "scifact_measured": None,    # {"retriever": {"ndcg@10": ...}} from the scifact page
    # the last files uploaded on a page, for the Switch? page to reuse in this session:
    "golden_file": None,         # {"name", "data"} uploaded on the golden page
    "systems_file": None,        # {"format": lists|trec, "name", "data", "runs", "measure", "k"}
    "latency_file": None,        # {"name", "data"} uploaded on the latency page
    "scifact_tables": None,      # {"tables", "queries", "metric", "collection"}: the scifact
}                                # page's per-query tables (core.retrieval.scifact.evaluate) and subset


def current_lang() -> str:
    lang = st.session_state.get("lang")
    if lang in LANGS:
        return lang
    q = st.query_params.get("lang", DEFAULT_LANG)
    return q if q in LANGS else DEFAULT_LANG


def _leave_legacy_pages_mode() -> None:
    """A deep link (``/golden``) as the very first request after the server starts makes
    Streamlit run the page file on its own in its legacy ``pages/`` mode, skipping app.py
    (no language toggle, every file in pages/ listed) until someone opens ``/``. Switch the
    server to ``st.navigation`` mode and rerun, so app.py runs and shows the same page."""
    try:  # a Streamlit internal (pinned 1.67); without it, keep the legacy behaviour
        from streamlit.runtime.pages_manager import PagesManager
    except ImportError:
        return
    if getattr(PagesManager, "uses_pages_directory", False) and st.runtime.exists():
        PagesManager.uses_pages_directory = False
        st.rerun()


def page_setup() -> str:
    """Set session defaults (idempotent) and return the current language."""
    _leave_legacy_pages_mode()
    for key, value in SESSION_DEFAULTS.items():
        st.session_state.setdefault(key, value)
    if st.session_state["lang"] not in LANGS:
        st.session_state["lang"] = current_lang()
    return st.session_state["lang"]


def tr(key: str, **params) -> str:
    """``core.i18n.t`` in the session's language."""
    return t(key, current_lang(), **params)


# Characters that start Markdown inline syntax (emphasis, code, links, images, HTML,
# tables, strikethrough), Streamlit's directives (:red[...], :material/x:, :emoji:) and
# LaTeX ($). An underscore inside a word (llm_basic) never starts emphasis (CommonMark), so
# it is left alone and names read as typed in AppTest and screen readers.
_MD_SPECIAL = re.compile(r"([\\`*{}\[\]()<>#!|~:$&]|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z]))")


# GFM turns bare URLs and e-mail addresses into links after parsing, whatever the escapes;
# an invisible word joiner (U+2060) after the scheme, "www" or "@" keeps them plain text.
_AUTOLINK = re.compile(r"(?i)(\b(?:https?|ftp|mailto|file)(?=:)|\bwww(?=\.)|@)")
WORD_JOINER = "\u2060"


def esc(text) -> str:
    """User text (a method or case id, a file or column name) made literal for anything that
    renders Markdown: ``st.markdown``, ``st.caption``, alert boxes, widget and metric labels,
    ``st.table`` cells, tabs and expanders. Markdown-special characters are
    backslash-escaped (CommonMark: any ASCII punctuation may be) and line breaks become
    spaces, so ``**x**``, ``![](http://host/x.png)``, ``:red[x]`` and ``<img>`` show as
    typed and no image or link is ever fetched. Bare URLs get an invisible word joiner so
    they are not turned into links."""
    text = _AUTOLINK.sub(lambda m: m.group(1) + WORD_JOINER, " ".join(str(text).splitlines()))
    return _MD_SPECIAL.sub(r"\\\1", text)


def tr_md(key: str, **params) -> str:
    """``tr`` for text shown as Markdown: every parameter goes through ``esc``."""
    return tr(key, **{k: esc(v) for k, v in params.items()})


def esc_frame(df: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``df`` for ``st.table`` (which renders Markdown): string cells, column
    names and index labels escaped with ``esc``; numbers untouched."""
    out = df.copy()
    for col in out.columns:
        if not pd.api.types.is_numeric_dtype(out[col]):
            out[col] = out[col].map(lambda v: esc(v) if isinstance(v, str) else v)
    out.columns = [esc(c) if isinstance(c, str) else c for c in out.columns]
    if not pd.api.types.is_numeric_dtype(out.index):
        out.index = [esc(i) if isinstance(i, str) else i for i in out.index]
    return out


def show_table(df: pd.DataFrame, where=None) -> None:
    """``st.table`` (which renders Markdown in every cell) of ``esc_frame(df)``: the only way
    a page shows a static table, so no cell, header or index label is ever live Markdown."""
    (where or st).table(esc_frame(df))


def show_frame(df: pd.DataFrame, where=None, **kw) -> None:
    """``st.dataframe``: the interactive grid shows every cell and header as plain text, so
    nothing is escaped (escaping would show backslashes). The only way a page shows a grid;
    ``kw`` are ``st.dataframe``'s own (``hide_index``, ``width``, ``height``), never link or
    image columns, which would fetch what a cell names (refused)."""
    for name, cfg in (kw.get("column_config") or {}).items():
        kind = (cfg or {}).get("type_config", {}).get("type") if isinstance(cfg, dict) else None
        if kind in ("link", "image"):
            raise ValueError(f"column {name!r}: a {kind} column would fetch what a cell names")
    (where or st).dataframe(df, **kw)


def shipped(text: str) -> str:
    """Text that comes with the app, never from an upload (the BEIR paper's grid and its
    citation URL, retriever and metric names of a fixed list): shown as written (a link
    stays a link). The one marked exception to
    escaping, so ``tests/pages/test_escaping.py`` can tell it from user text."""
    return str(text)


def show_error(exc: Exception) -> None:
    """A clear error box; the page keeps running."""
    if isinstance(exc, InputError):
        st.error(esc(exc.message(current_lang())), icon="⚠️")
    else:
        st.error(esc(f"{type(exc).__name__}: {exc}"), icon="⚠️")


def how_to_read(key: str, **params) -> None:
    """The page's 'How to read this' box for non-engineers (markdown from i18n; the
    parameters, such as a source or method name, escaped with ``esc``), collapsed; not shown
    in the presentation view (card and chart only)."""
    if presenting():
        return
    with st.expander(tr("common.how_to_read"), expanded=False):
        st.markdown(tr_md(key, **params))


def glossary(*terms: str) -> str:
    """Hover help: one plain sentence per technical term (``core/i18n/*/glossary.json``)."""
    return "\n\n".join(tr(f"glossary.{term}") for term in terms)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def summary_json(summary: dict) -> str:
    """The page's summary dict as pretty UTF-8 JSON (Korean kept readable)."""
    return to_json(summary)


def report_downloads(page: str, title: str, sections: list[Section], *,
                     inputs: dict[str, bytes], params: dict,
                     per_case: pd.DataFrame | None = None, summary: dict | None = None,
                     verdict: str | None = None, card=None) -> None:
    """'Download report' (one offline HTML file), per-case CSV, summary JSON, and the
    sections' tables as copyable Markdown and LaTeX. Keys are prefixed with ``page``."""
    lang = current_lang()
    try:
        with st.spinner(tr("report.building")):
            report = build_report(title, sections, inputs=inputs, params=params, lang=lang,
                                  verdict=verdict, card=card)
    except (ValueError, RuntimeError) as exc:
        st.error(tr_md("report.error", detail=f"{type(exc).__name__}: {exc}"), icon="⚠️")
        report = None
    cols = st.columns(3)
    if report is not None:
        # no help= tooltip: Streamlit 1.67 then draws the button twice, one copy hidden
        # (display: none), which a reader or a test finds as a hidden download (issue 30)
        cols[0].download_button(tr("report.download_html"), report.encode("utf-8"),
                                file_name=f"noisefloor_{page}_report.html", mime="text/html",
                                key=f"{page}_report_html", on_click="ignore", icon="📄",
                                type="primary")
    if per_case is not None:
        cols[1].download_button(tr("report.download_cases"),
                                to_csv_bytes(per_case),
                                file_name=f"noisefloor_{page}_cases.csv", mime="text/csv",
                                key=f"{page}_report_csv", on_click="ignore")
    if summary is not None:
        cols[2].download_button(tr("report.download_summary"),
                                summary_json(summary).encode("utf-8"),
                                file_name=f"noisefloor_{page}_summary.json",
                                mime="application/json", key=f"{page}_report_json",
                                on_click="ignore")
    if report is not None:   # what the report is, said in the open (no hover needed)
        st.caption(tr("report.download_html_help"))
    tables = [s for s in sections if s.table is not None]
    if tables:
        with st.expander(tr("report.copy_tables")):
            for s in tables:
                st.markdown(f"**{esc(s.title)}**")
                md_tab, tex_tab = st.tabs([tr("report.markdown"), tr("report.latex")])
                md_tab.code(to_markdown(s.table), language="markdown")
                tex_tab.code(to_latex(s.table), language="latex")


def interval_choice(key: str) -> str:
    """Sidebar choice of the interval of B - A (``core.paired.intervals.INTERVALS``; ``auto``, the
    calibrated default, first), first from ``?interval=`` (a shared link keeps it)."""
    from core.paired import INTERVALS

    labels = {k: tr(f"verdicts.interval_{k}") for k in INTERVALS}  # bound in this run's language
    return st.radio(tr("verdicts.interval_label"), INTERVALS,
                    index=url_index("interval", INTERVALS, 0), key=key,
                    format_func=labels.get, help=tr("verdicts.interval_help"))


@dataclass(frozen=True)
class StatSettings:
    """The statistics settings of a page's sidebar."""

    confidence: float
    resamples: int
    seed: int
    interval: str

    def url(self) -> dict:
        """The values ``keep_in_url`` writes, read back by ``stat_settings``."""
        return {"confidence": f"{100 * self.confidence:g}", "resamples": self.resamples,
                "seed": self.seed, "interval": self.interval}


def stat_settings(page: str, *, resamples: int = 20_000, interval: bool = True) -> StatSettings:
    """The sidebar's statistics settings, the same on every page: confidence level,
    resamples, seed and (``interval``) the bootstrap interval; keys ``<page>_confidence``
    etc.; first values from the URL (``?confidence=95&resamples=&seed=&interval=``)."""
    from core.paired import CONFIDENCE_LEVELS, MAX_RESAMPLES, MIN_RESAMPLES
    from core.views import level as fmt_level

    with st.sidebar:
        st.subheader(tr("common.settings"))
        confidence = st.selectbox(tr("common.confidence"), CONFIDENCE_LEVELS,
                                  index=url_index("confidence", CONFIDENCE_LEVELS, 1,
                                                  lambda c: f"{100 * c:g}"),
                                  format_func=fmt_level, key=f"{page}_confidence")
        n = int(st.number_input(tr("common.resamples"), MIN_RESAMPLES, MAX_RESAMPLES,
                                url_number("resamples", MIN_RESAMPLES, MAX_RESAMPLES,
                                           resamples),
                                step=1_000, key=f"{page}_resamples"))
        seed = int(st.number_input(tr("common.seed"), 0, 2**31 - 1,
                                   url_number("seed", 0, 2**31 - 1, 0), key=f"{page}_seed"))
        chosen = interval_choice(f"{page}_interval") if interval else "percentile"
    return StatSettings(float(confidence), n, seed, chosen)


def verdict_notes(decision, bootstrap, ci_column=None, *, reason: bool = True) -> None:
    """Under the verdict line: why it is ``no_difference`` when the CI alone might suggest
    otherwise (``core.views.verdicts.reason_sentence``); beside the CI (``ci_column``): the
    degenerate-bootstrap note (``core.views.verdicts.degenerate_note``). ``reason=False`` when the
    verdict card already carries the reason."""
    from core.views import degenerate_note, reason_sentence

    lang = st.session_state.get("lang", DEFAULT_LANG)
    why = reason_sentence(decision, lang) if reason else None
    if why:
        st.info(why, icon="🔎")
    note = degenerate_note(bootstrap, lang)
    if note:
        (ci_column or st).caption(f"⚠️ {note}")


# ----------------------------------------------------------------------------- presenting
PRESENT_CSS = """<style>
/* presentation view (?view=present): settings and uploads hidden, larger type */
[data-testid="stFileUploader"], [data-testid="stSidebarUserContent"] [data-testid="stHeading"],
[data-testid="stSidebarUserContent"] [class*="st-key-"]:not([class*="st-key-app_"]),
[data-testid="stMain"] [data-testid="stAlert"]:has([data-testid="stAlertContentInfo"]),
[data-testid="stMain"] [data-testid="stMetric"],
[data-testid="stMain"] [data-testid="stCaptionContainer"],
[data-testid="stMain"] [class*="st-key-"][class*="_inputs"] {display: none !important;}
[data-testid="stMain"] p, [data-testid="stMain"] li, [data-testid="stMain"] label,
[data-testid="stMain"] [data-baseweb="select"] {font-size: 1.25rem !important;}
[data-testid="stMain"] h1 {font-size: 2rem !important; padding-top: 0 !important;}
[data-testid="stMainBlockContainer"] {padding-top: 0.8rem !important;
                                       padding-bottom: 0 !important;}
</style>"""


def uploader_css(lang: str) -> str:
    """Streamlit's file uploader writes 'Upload' and 'NN MB per file' in English whatever the
    app's language, and has no argument to change them: in Korean, hide those two texts and
    show translated ones in their place (CSS only; the label and help are the page's)."""
    if lang == "en":
        return ""
    mb = int(st.get_option("server.maxUploadSize"))
    button = t("common.uploader_button", lang).replace('"', "")
    limit = t("common.uploader_limit", lang, mb=mb).replace('"', "")
    return ("<style>"
            '[data-testid="stFileUploaderDropzone"] button [data-testid="stMarkdownContainer"] p'
            "{display:none}"
            '[data-testid="stFileUploaderDropzone"] button [data-testid="stMarkdownContainer"]'
            f'::after{{content:"{button}"}}'
            '[data-testid="stFileUploaderDropzoneInstructions"] span{display:none}'
            '[data-testid="stFileUploaderDropzoneInstructions"] > div'
            f'::after{{content:"{limit}"}}'
            "</style>")


def presenting() -> bool:
    """True in the presentation view (the sidebar toggle, remembered as ``?view=present``)."""
    if "app_present" in st.session_state:
        return bool(st.session_state["app_present"])
    return st.query_params.get("view") == "present"


def show_card(card) -> None:
    """The verdict card (``core.views.cards``), larger in the presentation view, where the
    interval's self-check line (a footnote for the reader, kept on the page and in the
    report) is left out so the card and its chart fit one 1280x720 screen."""
    if presenting() and getattr(card, "calibration", ""):
        card = dataclasses.replace(card, calibration="")
    st.markdown(card_html(card, large=presenting()), unsafe_allow_html=True)


def inputs_box(page: str):
    """The container for a page's inputs and settings (uploads, choices of A and B, ...), placed
    under the verdict card. In the presentation view it still runs (the widgets keep their
    values) but is hidden, so the screen holds the card and its chart only."""
    return st.container(key=f"{page}_inputs")


TABLE_TYPES = ["csv", "tsv", "txt", "xlsx"]


def upload_or_demo(page: str, demo, where) -> tuple[bytes, str]:
    """(bytes, file name) of the table uploaded on ``page`` (uploader key ``<page>_upload``,
    labels ``<page>.upload_label`` / ``upload_help``), else of the built-in ``demo`` file
    (a ``Path``), said in ``<page>.demo_note``; widgets go into the container ``where``."""
    upload = where.file_uploader(tr(f"{page}.upload_label"), type=TABLE_TYPES,
                                 key=f"{page}_upload", help=tr(f"{page}.upload_help"))
    if upload is not None:
        return upload.getvalue(), upload.name
    where.info(tr(f"{page}.demo_note"), icon="ℹ️")
    return demo.read_bytes(), demo.name


PRESENT_CHART_HEIGHT = 130  # px of plot under the verdict card in the presentation view


def draw_chart(chart, where=None, *, present_height: int = PRESENT_CHART_HEIGHT) -> None:
    """An altair chart stretched to its column; axis labels ≥ 20 px when presenting, and
    the plot ``present_height`` px high then (the one chart under the card must fit the
    1280×720 screen with it, ``tests/browser/test_headline.py``)."""
    shown = enlarge(chart, height=present_height) if presenting() else pad(chart)
    (where or st).altair_chart(shown, width="stretch")


def present_css(page: str) -> None:
    """In the presentation view, hide the page's guide (``<page>_guide``) beside its
    ``inputs_box``: only the title, the card and its one chart remain."""
    if presenting():
        st.markdown(f"<style>.st-key-{page}_inputs, .st-key-{page}_guide "
                    "{display: none !important;}</style>", unsafe_allow_html=True)


def show_paired(view, where=None, *, label=esc) -> list:
    """The rates row of a ``core.views.paired.PairedView``: A's and B's score with their
    intervals and the difference B − A with its CI; returns the three columns. Labels go
    through ``label``: ``esc`` for names from an upload, ``shipped`` for names that come with
    the app (the scifact retrievers). Below it, how the card's self-check was measured."""
    cols = (where or st).columns(3)
    for col, tile in zip(cols, (*view.rates, view.difference)):
        col.metric(label(tile.label), tile.value, help=tile.help or None)
        if tile.caption:
            col.caption(esc(tile.caption))
    if view.calibration_detail:   # how the card's self-check line was measured
        (where or st).caption(esc(view.calibration_detail))
    return cols


def end_of_presentation() -> None:
    """The presentation view shows one screen per result: stop after the headline charts."""
    if presenting():
        st.stop()


# ----------------------------------------------------------------------------- URL state
def url_index(param: str, options, default: int = 0, to_str=str) -> int:
    """The index of ``?param=`` among ``options`` (compared as ``to_str(option)``), else
    ``default``: a shared link reopens the same choice. Keyed widgets keep their own state
    after the first run, so this only matters when the page opens."""
    wanted = st.query_params.get(param)
    if wanted is not None:
        for i, opt in enumerate(options):
            if to_str(opt) == wanted:
                return i
    return default


def url_value(param: str, default: str | None = None) -> str | None:
    """``?param=`` as the text it is, else ``default``: the one way a page reads a URL value
    that is not a widget's (a widget uses ``url_index`` / ``url_number``)."""
    return st.query_params.get(param, default)


def url_number(param: str, lo, hi, default, cast=int):
    """``?param=`` as a number within [lo, hi], else ``default``."""
    raw = st.query_params.get(param)
    try:
        x = cast(raw)
    except (TypeError, ValueError):
        return default
    return x if lo <= x <= hi else default


def margin_input(page: str, kind: str, box=None) -> tuple[float | None, str | None]:
    """The margin δ input (issue 23) in the inputs ``box``: for rates in %p (0-50, step 0.5),
    for scores on their own scale (0-1, step 0.005); 0 is off (the default). First value from
    ``?margin=`` in the same unit as the input. Returns (δ on the difference's scale for
    ``core.paired.margin.margin_decision``, or None when off; the text ``keep_in_url`` writes)."""
    rate = kind == "rate"
    hi, step, shown = (50.0, 0.5, "%.1f") if rate else (1.0, 0.005, "%.3f")
    where = box if box is not None else st
    value = float(where.number_input(
        tr("margin.label_rate" if rate else "margin.label_score"), 0.0, hi,
        url_number("margin", 0.0, hi, 0.0, float), step=step, format=shown,
        key=f"{page}_margin_{kind}", help=tr("margin.help")))
    if value <= 0:
        return None, None
    return (value / 100 if rate else value), f"{value:g}"


def keep_in_url(**params) -> None:
    """Write the page's current choices into the URL (keeping ``lang`` and ``view``), so the
    address bar is a link to this exact view. Other pages' choices are dropped."""
    want = {k: st.query_params[k] for k in ("lang", "view") if k in st.query_params}
    want.update({k: str(v) for k, v in params.items() if v is not None})
    if dict(st.query_params) != want:
        st.query_params.from_dict(want)


@st.cache_data(show_spinner=False, max_entries=32)
def _harm_of(a_values, b_values, delta, alpha, confidence, resamples, seed, clusters):
    """``core.paired.no_harm`` kept across reruns (its TRisk bootstrap-t is about 0.8 s of CPU
    at 300 score cases): a rerun with the same values and settings computes nothing again."""
    return no_harm(a_values, b_values, delta=delta, alpha=alpha, confidence=confidence,
                   resamples=resamples, seed=seed, clusters=clusters)


HARM_DELTA, HARM_ALPHA = 0.05, 2   # the No harm inputs' first values


def harm_inputs(page: str, ask_delta: bool) -> tuple:
    """(δ or None, α) the No harm section's inputs hold on this run (keys ``{page}_harm_delta``,
    ``{page}_alpha``; their first values before the section is drawn): read before the
    page's one cached call, so its No harm figures come from that call (issue 31)."""
    delta = st.session_state.get(f"{page}_harm_delta", HARM_DELTA) if ask_delta else None
    return delta, st.session_state.get(f"{page}_alpha", HARM_ALPHA)


def harm_section(page: str, a_values, b_values, a: str, b: str, kind: str, lang: str, *,
                 ask_delta: bool, confidence: float, resamples: int, seed: int,
                 clusters=None, link_key: str, kept=None):
    """The No harm section (issue 35) of the golden, systems and scifact pages: the δ and
    TRisk α inputs (keys ``{page}_harm_delta``, ``{page}_alpha``), ``core.paired.no_harm`` of
    the per-case values (``clusters`` as the unit when given, issue 32) and its lines, with
    the link to the most-hurt cases (``link_key``). ``kept``: ((δ, α), harm) the page's one
    cached call computed for ``harm_inputs``; used when the inputs still hold those values
    (else ``no_harm`` is computed here, kept across reruns). (harm, its lines) for the
    report."""
    st.subheader(tr("harm.title"))
    h_left, h_right = st.columns(2)
    delta = None   # 0/1 outcomes: any loss
    if ask_delta:
        delta = h_left.number_input(tr("harm.delta_input"), 0.0, 1.0, HARM_DELTA, step=0.01,
                                    format="%.3f", key=f"{page}_harm_delta")
    alpha = h_right.selectbox(tr("harm.alpha_input"), ALPHAS, index=ALPHAS.index(HARM_ALPHA),
                              key=f"{page}_alpha")
    if kept is not None and kept[1] is not None and kept[0] == (delta, alpha):
        harm = kept[1]
    else:
        harm = _harm_of(a_values, b_values, delta, alpha, float(confidence), int(resamples),
                        int(seed), clusters)
    lines = harm_lines(harm, a, b, kind, lang)
    if harm.n_clusters is not None:   # clusters as the unit (issue 32)
        lines = [harm_unit_line(harm, lang)] + lines
    for line in lines:   # method names inside: shown literally
        st.markdown(esc(line))
    if harm.hurt:
        st.markdown(tr(link_key))
    return harm, lines
