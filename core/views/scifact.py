"""What the scifact page and ``python -m core scifact`` show (``core.retrieval.scifact``): display names,
the verdict sentence, the tied-for-best line of all three retrievers, the CLI text and the
charts."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from core.i18n import t
from core.paired import BestSet, PairedComparison, RateEstimate
from core import retrieval
from core.retrieval import SPLITS, ScifactResult, encode_job
from core.views import format as fmt
from core.views.cards import VerdictCard
from core.views.best_set import best_lines, best_sentence, renamed
from core.views.charts import wrap_title
from core.views.groups import judged_cli_lines
from core.views.paired import paired_view
from core.views.palette import DARK, HIGHLIGHT, PRIMARY, REFERENCE
from core.views.verdicts import paired_sentence

if TYPE_CHECKING:  # altair is imported by the chart builders only: the CLI text needs none
    import altair as alt

NAMES = {"bm25": "BM25", "dense": "Dense", "hybrid": "Hybrid (RRF)"}


def folder_label(folder, lang: str = "en") -> str:
    """A BEIR folder as the page names it, never the machine's absolute path (issue 37): the
    default folder is "data/beir/scifact (the copy shipped with NoiseFloor)", a folder under
    data/beir/ (``core.retrieval.BEIR_ROOT``) "data/beir/<name>", a folder inside the app's
    checkout its path from there, any other (``$NOISEFLOOR_BEIR_DIR`` set by whoever started
    the app) its own name and where it came from."""
    path = Path(folder).expanduser()
    where = path.resolve()
    if where == retrieval.DEFAULT_DIR.resolve():  # read at each call: tests move the folders
        return t("scifact.folder_shipped", lang)
    for root, prefix in ((retrieval.BEIR_ROOT.resolve(), "data/beir/"),
                         (retrieval.REPO_ROOT.resolve(), "")):
        if where.is_relative_to(root) and where != root:
            return prefix + where.relative_to(root).as_posix()  # a path: no translation
    return t("scifact.folder_env", lang, name=path.name or str(path), env=retrieval.ENV_VAR)
def split_name(split: str, lang: str = "en") -> str:
    """A BEIR qrels split as people read it: 'test' -> 'test' (en) / '테스트' (ko) for the
    splits of ``core.retrieval.beir.SPLITS``; any other name (a folder's own) as it is."""
    return t(f"scifact.split_{split}", lang) if split in SPLITS else split


def comparison_sentence(comp: PairedComparison, lang: str = "en",
                        names: dict | None = None) -> str:
    """The verdict wording of ``core.views.paired`` (``paired_sentence``) for a retriever
    comparison, with display ``names`` for the retrievers; the difference is on the measure's
    own scale."""
    names = names or {}
    return paired_sentence(comp, a=names.get(comp.a, comp.a), b=names.get(comp.b, comp.b),
                           unit="queries", lang=lang)


def best_line(bs: BestSet, metric: str, lang: str = "en", names: dict | None = None) -> str:
    """The card's line on all three retrievers: "All three on nDCG@10: Best: Hybrid (RRF) or
    Dense — cannot tell which; BM25 is behind both." (``core.views.best_set.best_sentence``
    under display ``names``)."""
    return t("scifact.best_line", lang, k=len(bs.systems), metric=metric,
             sentence=best_sentence(renamed(bs, names), lang))


def duration(seconds: float | None) -> str:
    """Seconds as people read them: '…' (unknown), '8 s', '2 min 05 s'."""
    if seconds is None:
        return "…"
    seconds = int(round(seconds))
    return f"{seconds // 60} min {seconds % 60:02d} s" if seconds >= 60 else f"{seconds} s"


def step_text(status: encode_job.StepStatus, lang: str = "en") -> str:
    """One line for a step the dense side waits for (``core.retrieval.encode_job.STEPS``): what it
    does, with its counts, then the time so far and the ETA of ``StepStatus.eta`` ("about
    8 s left"), or that it takes longer than last time, or that there is no estimate yet."""
    step = t(f"scifact.step_{status.step}", lang, done=f"{status.done or 0:,}",
             total=f"{status.total or 0:,}")
    params = {"elapsed": duration(status.elapsed), "last": duration(status.last)}
    if status.eta is not None:
        eta = t("scifact.step_eta", lang, eta=duration(status.eta), **params)
    elif status.over:
        eta = t("scifact.step_eta_over", lang, **params)
    else:
        eta = t("scifact.step_eta_unknown", lang, **params)
    return t("scifact.step_line", lang, step=step, eta=eta)


def waiting_card(est: RateEstimate, *, metric: str, confidence: float,
                 lang: str = "en") -> VerdictCard:
    """The card while the dense side is not ready: BM25's own score on the queries with its
    interval (``core.paired.rate_estimate``: Wilson for Hit@10, the calibrated t-interval
    for scores), neutral, saying that dense, hybrid and the paired verdict follow."""
    kind = "rate" if est.interval == "wilson" else "score"
    value = fmt.value(est.mean, kind)
    return VerdictCard(
        tone="neutral", label=t("scifact.waiting_card_label", lang, metric=metric),
        value=value,
        interval=f"{fmt.level(confidence)} {t('common.ci_short', lang)} "
                 f"{fmt.interval(est.ci_low, est.ci_high, kind)}",
        sentence=t("scifact.waiting_card_sentence", lang, value=value, n=est.n))


def result_text(res: ScifactResult, lang: str = "en", margin=None) -> str:
    """Readable summary (the CLI's default output); ``margin`` a ``core.paired.margin.MarginResult``
    or None."""
    c = res.comparison
    col = res.collection
    lines = [f"{col['name']}: {col['n_docs']:,} documents, {c.n} of {col['n_queries']} judged "
             f"queries"]
    for name, sc in res.scores.items():
        lines.append(f"  {name:7s} " + "  ".join(f"{m} {v:.4f}" for m, v in sc.items()))
    h = c.hits
    lines.append(f"  {c.metric}: {c.a} wins {c.a_wins}, {c.b} wins {c.b_wins}, ties {c.ties}")
    lines.append(f"  hit@10: {c.a} only {h['a_only']}, {c.b} only {h['b_only']}, both "
                 f"{h['both']}, neither {h['neither']}")
    lines.extend(paired_view(c, lang=lang, unit="queries", margin=margin).cli_lines())
    if res.best is not None:
        lines.extend(best_lines(res.best))
    if res.judged is not None:
        lines.extend(judged_cli_lines(res.judged, "rate" if c.data.binary else "score"))
    return "\n".join(lines)


def scatter_chart(comp: PairedComparison, *, title: str = "", a_title: str | None = None,
                  b_title: str | None = None, size_title: str = "queries") -> alt.LayerChart:
    """Per-query A vs B (one point per distinct pair, sized by how many queries share it),
    with the diagonal y = x: points above it are queries B wins."""
    import altair as alt
    f = pd.DataFrame({"a": comp.a_values.round(6), "b": comp.b_values.round(6)})
    pts = f.groupby(["a", "b"]).size().reset_index(name="queries")
    a_title = a_title or f"{comp.a} {comp.metric}"
    b_title = b_title or f"{comp.b} {comp.metric}"
    dots = alt.Chart(pts).mark_circle(opacity=0.6, color=PRIMARY).encode(
        x=alt.X("a:Q", title=a_title, scale=alt.Scale(domain=[0, 1])),
        y=alt.Y("b:Q", title=b_title, scale=alt.Scale(domain=[0, 1])),
        size=alt.Size("queries:Q", title=size_title, scale=alt.Scale(range=[30, 600])),
        tooltip=[alt.Tooltip("a:Q", format=".3f"), alt.Tooltip("b:Q", format=".3f"),
                 "queries:Q"])
    diag = alt.Chart(pd.DataFrame({"x": [0.0, 1.0], "y": [0.0, 1.0]})).mark_line(
        color=REFERENCE, strokeDash=[4, 3]).encode(x="x:Q", y="y:Q")
    return alt.layer(diag, dots).properties(title=_title(title), height=340)


def ci_by_n_chart(rows: pd.DataFrame, current: int, *, title: str = "",
                  x_title: str = "queries (n)", y_title: str = "B − A") -> alt.LayerChart:
    """The CI of B − A (``core.retrieval.scifact.ci_by_n``) at each subset size; the chosen size
    highlighted, 0 marked."""
    import altair as alt
    df = rows.copy()
    df["chosen"] = df["n"] == current
    x = alt.X("n:Q", title=x_title, scale=alt.Scale(type="log", nice=False,
                                                     domain=[float(df["n"].min()) * 0.9,
                                                             float(df["n"].max()) * 1.1]))
    band = alt.Chart(df).mark_rule(strokeWidth=3).encode(
        x=x, y=alt.Y("ci_low:Q", title=y_title), y2="ci_high:Q",
        color=alt.condition("datum.chosen", alt.value(HIGHLIGHT), alt.value(PRIMARY)))
    dots = alt.Chart(df).mark_point(filled=True, size=70, color=DARK).encode(
        x=x, y="mean:Q", tooltip=["n:Q", alt.Tooltip("mean:Q", format="+.3f"),
                                  alt.Tooltip("ci_low:Q", format="+.3f"),
                                  alt.Tooltip("ci_high:Q", format="+.3f"), "verdict:N"])
    zero = alt.Chart(pd.DataFrame({"y": [0.0]})).mark_rule(color=REFERENCE,
                                                           strokeDash=[4, 3]).encode(y="y:Q")
    return alt.layer(band, dots, zero).properties(title=_title(title), height=340)


def _title(title: str):
    """Each given line wrapped so no line is wider than the chart (``wrap_title``)."""
    return wrap_title(title)
