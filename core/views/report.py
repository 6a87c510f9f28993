"""Self-contained reports: one offline HTML file, plus Markdown and LaTeX tables.

``build_report`` turns a page's sections (text, tables, altair charts) into a single HTML
string: charts become inline SVG through ``vl_convert`` (no scripts, no network), tables are
HTML, and a footer records what is needed to reproduce the numbers (input names and SHA-256,
parameters, NoiseFloor and package versions). Every user string is escaped.
"""
from __future__ import annotations

import hashlib
import html
import math
import platform
import threading
from dataclasses import dataclass
from datetime import datetime, timezone
from importlib import metadata
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

import core
from core import checks
from core.i18n import LANGS, catalog, t
from core.views.cards import VerdictCard, card_html
from core.views.palette import TABLE_HEADER, TEXT, TONES
from core.views.svg_worker import ChartCrash, render_svg

if TYPE_CHECKING:  # altair is imported where charts are drawn, never by the CLI's JSON path
    import altair as alt

CHART_WIDTH = 640
PACKAGES = ("numpy", "scipy", "pandas", "altair", "vl-convert-python", "streamlit", "openpyxl")

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI","Noto Sans KR","Malgun Gothic",
"Apple SD Gothic Neo",sans-serif;max-width:1000px;margin:2rem auto;padding:0 1rem;
color:@TEXT@;line-height:1.5}
h1{font-size:1.6rem;margin-bottom:.2rem}h2{font-size:1.2rem;margin-top:2rem;
border-bottom:1px solid #ddd;padding-bottom:.2rem}
table{border-collapse:collapse;margin:.5rem 0;font-size:.9rem}
th,td{border:1px solid #ccc;padding:.25rem .6rem;text-align:left;vertical-align:top}
th{background:@HEADER@}td.num{text-align:right;font-variant-numeric:tabular-nums}
figure{margin:.8rem 0}figure svg{max-width:100%;height:auto}
footer{margin-top:2.5rem;border-top:1px solid #ccc;font-size:.85rem;color:#444}
footer code{word-break:break-all}
""".replace("@TEXT@", TEXT).replace("@HEADER@", TABLE_HEADER)


@dataclass(frozen=True)
class Section:
    """One part of a report: a heading, optional plain text, table and chart."""

    title: str
    text: str = ""
    table: pd.DataFrame | None = None
    chart: alt.TopLevelMixin | None = None


def _check_lang(lang: str) -> str:
    if lang not in LANGS:
        raise ValueError(f"lang must be one of {LANGS}, got {lang!r}")
    return lang


def _cell(value) -> str:
    """One table value as text: integers plain, floats to 4 significant digits, NaN blank."""
    if value is None:
        return ""
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        x = float(value)
        if math.isnan(x):
            return ""
        return str(int(x)) if x.is_integer() and abs(x) < 1e15 else f"{x:.4g}"
    return str(value)


def _is_number(value) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(
        value, (bool, np.bool_))


def _show_index(df: pd.DataFrame, index: bool | None) -> bool:
    checks.instance("df", df, pd.DataFrame, "a pandas DataFrame")
    if index is not None:
        return index
    # an unnamed integer index is row numbering (often shuffled by a sort): not data
    return df.index.name is not None or not pd.api.types.is_integer_dtype(df.index.dtype)


def _rows(df: pd.DataFrame, index: bool) -> tuple[list[str], list[list], list[bool]]:
    """Header texts, raw rows, and which columns are numeric (for right alignment)."""
    checks.instance("df", df, pd.DataFrame, "a pandas DataFrame")
    header = [_cell(c) for c in df.columns]
    rows = [list(r) for r in df.itertuples(index=False, name=None)]
    numeric = [bool(len(df)) and all(_is_number(r[j]) for r in rows)
               for j in range(len(df.columns))]
    if index:
        header = [_cell(df.index.name) if df.index.name is not None else ""] + header
        rows = [[i] + r for i, r in zip(df.index, rows)]
        numeric = [False] + numeric
    return header, rows, numeric


def to_markdown(df: pd.DataFrame, *, index: bool | None = None) -> str:
    """A GitHub-flavoured Markdown table. The index is shown when it carries labels
    (``index=None``: anything but an unnamed integer index). ``|`` is escaped, newlines
    become spaces, numeric columns are right-aligned."""
    header, rows, numeric = _rows(df, _show_index(df, index))

    def md(value) -> str:
        s = _cell(value) if not isinstance(value, str) else value
        return " ".join(s.split("\n")).replace("\\", "\\\\").replace("|", "\\|")

    lines = ["| " + " | ".join(md(h) for h in header) + " |",
             "| " + " | ".join("---:" if n else "---" for n in numeric) + " |"]
    lines += ["| " + " | ".join(md(v) for v in r) + " |" for r in rows]
    return "\n".join(lines)


_LATEX_ESCAPES = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                  "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                  "^": r"\textasciicircum{}"}


def latex_escape(text: str) -> str:
    """Escape LaTeX's special characters ``\\ & % $ # _ { } ~ ^``."""
    return "".join(_LATEX_ESCAPES.get(ch, ch) for ch in " ".join(str(text).split("\n")))


def to_latex(df: pd.DataFrame, *, index: bool | None = None) -> str:
    """A plain ``tabular`` (no extra packages needed), every cell escaped."""
    header, rows, numeric = _rows(df, _show_index(df, index))
    spec = "".join("r" if n else "l" for n in numeric)
    lines = [f"\\begin{{tabular}}{{{spec}}}", "\\hline",
             " & ".join(latex_escape(h) for h in header) + r" \\", "\\hline"]
    lines += [" & ".join(latex_escape(_cell(v)) for v in r) + r" \\" for r in rows]
    lines += ["\\hline", "\\end{tabular}"]
    return "\n".join(lines)


def _html_table(df: pd.DataFrame) -> str:
    header, rows, numeric = _rows(df, _show_index(df, None))
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f'<td class="num">{html.escape(_cell(v))}</td>' if n
                         else f"<td>{html.escape(_cell(v))}</td>"
                         for v, n in zip(r, numeric)) + "</tr>"
        for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


# Held while a chart becomes a spec. altair's data transformer and theme are process-global;
# Streamlit switches them for each chart it draws under its own lock, so a server's pages set
# this to that lock (``pages._ui``): a report built in one session while another session draws
# a chart otherwise reads the other's half-switched transformer (a TypeError seen with 8
# sessions at once, tests/browser/test_load.py).
SPEC_LOCK = threading.Lock()


def chart_svg(chart: alt.TopLevelMixin) -> str:
    """An altair chart as a standalone SVG string, rendered offline by vl-convert in its own
    process (``core.views.svg_worker``): a native crash raises ``ChartCrash`` here instead of
    aborting the caller."""
    import altair as alt  # lazy: the CLI's to_json path never needs altair

    checks.instance("chart", chart, alt.TopLevelMixin, "an altair chart")
    with SPEC_LOCK:  # altair's data transformer is global: not beside another thread's switch
        spec = chart.to_dict()
    if isinstance(chart, (alt.Chart, alt.LayerChart)) and "width" not in spec:
        spec["width"] = CHART_WIDTH  # pages stretch charts to the column; a file needs a size
    svg = render_svg(spec)
    return svg[svg.index("<svg"):] if "<svg" in svg else svg


def _figure(section: Section, lang: str) -> str:
    """The section's chart as an inline SVG figure; when the renderer crashed or refused it,
    one line saying so instead (the rest of the report is unaffected)."""
    try:
        svg = chart_svg(_without_title(section.chart, section.title))
    except ChartCrash as exc:
        return f'<p class="note">{html.escape(t("report.chart_failed", lang, detail=str(exc)))}</p>'
    return f'<figure role="img" aria-label="{html.escape(section.title)}">{svg}</figure>'


def _title_text(title) -> str:
    """The text of an altair title (a string, a list of lines, or TitleParams)."""
    if isinstance(title, dict):
        title = title.get("text", "")
    elif hasattr(title, "to_dict"):
        title = title.to_dict().get("text", "")
    if isinstance(title, (list, tuple)):
        title = " ".join(str(x) for x in title)
    return " ".join(str(title or "").split())


def _without_title(chart: alt.TopLevelMixin, heading: str) -> alt.TopLevelMixin:
    """``chart`` without its title when the title repeats ``heading`` (shown once)."""
    import altair as alt  # lazy, as in chart_svg

    title = getattr(chart, "title", alt.Undefined)
    if title is alt.Undefined or _title_text(title) != " ".join(heading.split()):
        return chart
    out = chart.copy(deep=True)
    out.title = alt.Undefined
    return out


def _text_html(text: str) -> str:
    paras = [p.strip() for p in text.split("\n\n") if p.strip()]
    return "".join("<p>" + html.escape(p).replace("\n", "<br>") + "</p>" for p in paras)


def package_versions(names=PACKAGES) -> dict[str, str]:
    """Installed versions of ``names`` (``"not installed"`` when missing), plus Python's."""
    out = {"python": platform.python_version()}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def _param_label(key: str, lang: str) -> str:
    """The footer's label for setting ``key`` (``report.param_<key>``), else the key itself
    (every setting the pages pass has a label: ``tests/core/views/test_report.py``)."""
    full = f"report.param_{key}"
    return t(full, lang) if full in catalog("en") else key


def _footer(inputs: dict[str, bytes], params: dict, lang: str, generated: str) -> str:
    rows = []
    for name, data in inputs.items():
        digest = hashlib.sha256(data).hexdigest()
        rows.append(f"<tr><th>{html.escape(t('report.input', lang))}</th>"
                    f"<td>{html.escape(str(name))} ({len(data):,} {html.escape(t('report.bytes', lang))})"
                    f"<br>SHA-256 <code>{digest}</code></td></tr>")
    for key, value in params.items():
        rows.append(f"<tr><th>{html.escape(_param_label(str(key), lang))}</th>"
                    f"<td>{html.escape(_cell(value))}</td></tr>")
    rows.append(f"<tr><th>NoiseFloor</th><td>{html.escape(core.__version__)}</td></tr>")
    pkgs = ", ".join(f"{k} {v}" for k, v in package_versions().items())
    rows.append(f"<tr><th>{html.escape(t('report.packages', lang))}</th>"
                f"<td>{html.escape(pkgs)}</td></tr>")
    rows.append(f"<tr><th>{html.escape(t('report.generated', lang))}</th>"
                f"<td>{html.escape(generated)}</td></tr>")
    return (f"<footer><h2>{html.escape(t('report.reproduce', lang))}</h2>"
            f"<p>{html.escape(t('report.reproduce_note', lang))}</p>"
            f"<table>{''.join(rows)}</table></footer>")


def build_report(title: str, sections: list[Section], *, inputs: dict[str, bytes],
                 params: dict, lang: str = "en", verdict: str | None = None,
                 card=None) -> str:
    """One self-contained HTML document (no scripts, no external files): title, the verdict
    card (``card``, a ``core.views.cards.VerdictCard``, coloured by its tone as in the app;
    or the plain ``verdict`` sentence on the neutral tone), each section's text, table and
    chart (inline SVG; a chart's own title is left out when it repeats the section's
    heading), and a reproducibility footer."""
    _check_lang(lang)
    checks.text("title", title)
    checks.each("sections", sections, Section, "a list of core.views.report.Section")
    checks.mapping("inputs", inputs, (bytes, bytearray), "a dict mapping a file name to its bytes")
    checks.mapping("params", params)
    parts = [f"<h1>{html.escape(title)}</h1>",
             f"<p>{html.escape(t('report.subtitle', lang))}</p>"]
    if card is not None:
        checks.instance("card", card, VerdictCard, "a core.views.cards.VerdictCard")
        parts.append(card_html(card, links=False))  # no app pages offline
    elif verdict:
        accent, background = TONES["neutral"]
        parts.append(f'<div class="verdict" style="padding:.8rem 1rem;border-left:5px solid '
                     f'{accent};background:{background};font-weight:600;margin:1rem 0">'
                     f"{html.escape(verdict)}</div>")
    for s in sections:
        parts.append(f"<section><h2>{html.escape(s.title)}</h2>")
        if s.text:
            parts.append(_text_html(s.text))
        if s.table is not None:
            parts.append(_html_table(s.table))
        if s.chart is not None:
            parts.append(_figure(s, lang))
        parts.append("</section>")
    generated = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    parts.append(_footer(inputs, params, lang, generated))
    return ("<!DOCTYPE html>\n"
            f'<html lang="{lang}"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{html.escape(title)}</title><style>{_CSS}</style></head>"
            f"<body>{''.join(parts)}</body></html>\n")
