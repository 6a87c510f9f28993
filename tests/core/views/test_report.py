"""core.views.report: offline HTML report, Markdown and LaTeX tables."""
import hashlib
import json
import re
from html.parser import HTMLParser
from importlib import metadata

import altair as alt
import numpy as np
import pandas as pd
import pytest

import core
from core.views.charts import bootstrap_histogram, interval_chart
from core.inputs.golden import load_golden
from core.inputs.systems import compare_golden
from core.views.report import CHART_WIDTH, Section, build_report, chart_svg, latex_escape, package_versions, to_latex, \
    to_markdown
from core.i18n import t
from core.views.verdicts import comparison_verdict


class _Cells(HTMLParser):
    """Collects the text of every table cell (th/td), per table."""

    def __init__(self):
        super().__init__()
        self.tables, self._cell, self._text = [], None, []
        self.tags = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell, self._text = tag, []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell:
            self.tables[-1][-1].append("".join(self._text))
            self._cell = None

    def handle_data(self, data):
        if self._cell:
            self._text.append(data)


def _parse(html_text):
    p = _Cells()
    p.feed(html_text)
    return p


def _md_cells(line):
    """Split a Markdown table row on unescaped pipes and unescape the cells."""
    inner = line.strip()[1:-1]
    parts = re.split(r"(?<!\\)\|", inner)
    return [p.strip().replace("\\|", "|").replace("\\\\", "\\") for p in parts]


# ---------------------------------------------------------------- Markdown
def test_markdown_exact_and_alignment():
    df = pd.DataFrame({"method": ["BM25", "dense"], "score": [0.5, 0.25], "n": [10, 12]})
    assert to_markdown(df) == (
        "| method | score | n |\n"
        "| --- | ---: | ---: |\n"
        "| BM25 | 0.5 | 10 |\n"
        "| dense | 0.25 | 12 |")


def test_markdown_escapes_pipes_and_newlines_and_round_trips():
    df = pd.DataFrame({"q": ["a|b", "line1\nline2", "back\\slash"], "v": [1, 2, 3]})
    lines = to_markdown(df).split("\n")
    assert len(lines) == 2 + len(df)
    cells = [_md_cells(line) for line in lines[2:]]
    assert [c[0] for c in cells] == ["a|b", "line1 line2", "back\\slash"]
    assert [c[1] for c in cells] == ["1", "2", "3"]
    assert all(len(_md_cells(line)) == 2 for line in lines)


def test_markdown_shows_labelled_index_only():
    df = pd.DataFrame([[3, 1], [2, 4]], index=["A right", "A wrong"],
                      columns=["B right", "B wrong"])
    lines = to_markdown(df).split("\n")
    assert _md_cells(lines[0]) == ["", "B right", "B wrong"]
    assert _md_cells(lines[2]) == ["A right", "3", "1"]
    plain = to_markdown(df.reset_index(drop=True)).split("\n")
    assert _md_cells(plain[0]) == ["B right", "B wrong"]
    shuffled = df.reset_index(drop=True).sort_values("B right")  # index 1, 0: row numbers
    assert _md_cells(to_markdown(shuffled).split("\n")[0]) == ["B right", "B wrong"]
    named = df.rename_axis("A")
    assert _md_cells(to_markdown(named).split("\n")[0]) == ["A", "B right", "B wrong"]
    assert to_markdown(df, index=False).split("\n")[0] == plain[0]


def test_markdown_blank_for_nan_and_korean_kept():
    df = pd.DataFrame({"방법": ["검색", "재순위"], "점수": [np.nan, 0.123456]})
    lines = to_markdown(df).split("\n")
    assert _md_cells(lines[2]) == ["검색", ""]
    assert _md_cells(lines[3]) == ["재순위", "0.1235"]


def test_markdown_rejects_non_frame():
    with pytest.raises(ValueError, match="df"):
        to_markdown([[1, 2]])


# ---------------------------------------------------------------- LaTeX
@pytest.mark.parametrize("raw, escaped", [
    ("&", r"\&"), ("%", r"\%"), ("$", r"\$"), ("#", r"\#"), ("_", r"\_"), ("{", r"\{"),
    ("}", r"\}"), ("~", r"\textasciitilde{}"), ("^", r"\textasciicircum{}"),
    ("\\", r"\textbackslash{}"), ("R&D 50% _x_", r"R\&D 50\% \_x\_"), ("한글", "한글"),
])
def test_latex_escape(raw, escaped):
    assert latex_escape(raw) == escaped


def test_latex_exact():
    df = pd.DataFrame({"test": ["McNemar p", "d_z"], "value": [0.0312, 1.5]})
    assert to_latex(df) == (
        "\\begin{tabular}{lr}\n\\hline\n"
        "test & value \\\\\n\\hline\n"
        "McNemar p & 0.0312 \\\\\n"
        "d\\_z & 1.5 \\\\\n"
        "\\hline\n\\end{tabular}")


def test_latex_every_row_has_the_column_count():
    df = pd.DataFrame({"a&b": ["x & y", "100%"], "c": ["{z}", "#1"], "d": [1, 2]})
    for line in to_latex(df).split("\n"):
        if line.endswith(r"\\"):
            assert len(re.findall(r"(?<!\\)&", line)) == df.shape[1] - 1, line


# ---------------------------------------------------------------- HTML report
@pytest.fixture(scope="module")
def golden_result():
    data = ("case_id,query,base,new\n"
            + "\n".join(f"q{i:02d},question {i},{int(i % 3 == 0)},{int(i % 5 != 0)}"
                        for i in range(1, 41)) + "\n").encode()
    gs = load_golden(data, file="cases.csv")
    return data, compare_golden(gs, "base", "new", resamples=2_000, seed=3)


def _demo_report(golden_result, lang="en", name="cases.csv"):
    data, result = golden_result
    c, bs = result.comparison, result.comparison.bootstrap
    rates = pd.DataFrame([{"name": n, "mean": r.mean, "ci_low": r.ci_low, "ci_high": r.ci_high}
                          for n, r in ((c.a, c.rate_a), (c.b, c.rate_b))])
    table = pd.DataFrame({"method": [c.a, c.b], "mean": [c.rate_a.mean, c.rate_b.mean]})
    sections = [Section("Rates", "Two methods.\n\nSecond paragraph.", table=table),
                Section("Intervals", chart=interval_chart(rates)),
                Section("Bootstrap", chart=bootstrap_histogram(bs.distribution, bs.ci_low,
                                                                bs.ci_high)),
                Section("Cases", table=result.discordant())]
    params = {"resamples": 2_000, "seed": 3, "confidence": "95%", "a": c.a, "b": c.b}
    return build_report("Golden", sections, inputs={name: data}, params=params, lang=lang,
                        verdict=comparison_verdict(result, lang))


def test_report_is_self_contained(golden_result):
    out = _demo_report(golden_result)
    assert out.startswith("<!DOCTYPE html>")
    assert "<script" not in out.lower()
    # nothing loaded from elsewhere: no src/href attributes pointing outside the file
    assert not re.search(r"""(src|href)\s*=\s*["'](?!#)""", out, re.I)
    assert "@import" not in out and "url(" not in out
    assert out.count("<svg") == 2  # both charts inline
    widths = [int(w) for w in re.findall(r'<svg[^>]*?\bwidth="(\d+)"', out)]
    assert len(widths) == 2 and all(w >= CHART_WIDTH for w in widths), widths


def test_report_tables_hold_the_data(golden_result):
    data, result = golden_result
    out = _demo_report(golden_result)
    tables = _parse(out).tables
    rates = tables[0]
    assert rates[0] == ["method", "mean"]
    c = result.comparison
    assert rates[1] == [c.a, f"{c.rate_a.mean:.4g}"]
    assert rates[2] == [c.b, f"{c.rate_b.mean:.4g}"]
    disc = result.discordant()
    cases = tables[1]
    assert len(cases) == 1 + len(disc)
    assert [row[0] for row in cases[1:]] == list(disc["case_id"])
    assert cases[1][-1] == disc.iloc[0]["query"]


def test_report_footer_reproducibility(golden_result):
    data, result = golden_result
    out = _demo_report(golden_result)
    assert hashlib.sha256(data).hexdigest() in out
    assert "cases.csv" in out and f"{len(data):,}" in out
    footer = _parse(out[out.index("<footer"):]).tables[0]
    rows = {r[0]: r[1] for r in footer}
    assert rows["Random seed"] == "3"
    assert rows["Bootstrap resamples"] == "2000"
    assert rows["Confidence level"] == "95%"
    assert rows["Method A"] == "base" and rows["Method B"] == "new"
    assert rows["NoiseFloor"] == core.__version__
    for pkg in ("numpy", "scipy", "pandas", "altair", "streamlit"):
        assert f"{pkg} {metadata.version(pkg)}" in rows["Package versions"]


def test_report_verdict_and_text(golden_result):
    _, result = golden_result
    out = _demo_report(golden_result)
    verdict = comparison_verdict(result, "en")
    assert re.search(rf'<div class="verdict"[^>]*>{re.escape(verdict)}</div>', out)
    assert "<p>Two methods.</p><p>Second paragraph.</p>" in out
    # a bare sentence is shown on the neutral tone, never green
    from core.views.palette import TONES
    assert TONES["neutral"][0] in out and TONES["better"][0] not in out


def test_report_card_takes_the_colour_of_its_tone(golden_result):
    from core.views.cards import paired_card
    from core.views.palette import TONES
    _, result = golden_result
    c, bs = result.comparison, result.comparison.bootstrap
    sentence = comparison_verdict(result, "en")
    for verdict, tone in (("b_better", "better"), ("a_better", "worse"),
                          ("no_difference", "neutral")):
        card = paired_card(verdict, a=c.a, b=c.b, mean=bs.mean, ci_low=bs.ci_low,
                           ci_high=bs.ci_high, confidence=bs.confidence, kind="rate",
                           sentence=sentence)
        out = build_report("T", [], inputs={}, params={}, card=card)
        assert f"verdict-{tone}" in out and TONES[tone][0] in out
        others = [TONES[t_][0] for t_ in TONES if t_ != tone]
        assert not any(o in out for o in others)
        assert f"{100 * bs.mean:+.1f} %p" in out  # B − A, the headline


def test_report_korean(golden_result):
    _, result = golden_result
    out = _demo_report(golden_result, lang="ko")
    assert '<html lang="ko">' in out
    assert comparison_verdict(result, "ko") in out
    assert "결과 재현 정보" in out and "난수 시드" in out


def test_report_escapes_user_strings(golden_result):
    evil = '<img src=x onerror="alert(1)">.csv'
    out = _demo_report(golden_result, name=evil)
    assert evil not in out
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;.csv" in out
    df = pd.DataFrame({"<b>col</b>": ["<script>alert(1)</script>"]})
    out = build_report("<i>t</i>", [Section("<s>", "a < b & c", table=df)], inputs={},
                       params={"<p>": "<q>"})
    assert "<script" not in out and "<b>col" not in out and "<i>t" not in out
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in out and "a &lt; b &amp; c" in out


def test_report_rejects_bad_arguments():
    with pytest.raises(ValueError, match="lang"):
        build_report("t", [], inputs={}, params={}, lang="fr")
    with pytest.raises(ValueError, match="inputs"):
        build_report("t", [], inputs={"a.csv": "text, not bytes"}, params={})
    with pytest.raises(ValueError, match="sections"):
        build_report("t", ["not a section"], inputs={}, params={})
    with pytest.raises(ValueError, match="title"):
        build_report(" ", [], inputs={}, params={})


def test_chart_svg_keeps_korean_titles():
    chart = alt.Chart(pd.DataFrame({"x": [1, 2]})).mark_point().encode(x="x:Q") \
        .properties(title="방법별 점수")
    out = build_report("t", [Section("s", chart=chart)], inputs={}, params={}, lang="ko")
    svg = out[out.index("<svg"):out.index("</svg>")]
    assert "방법별 점수" in svg


def test_package_versions_marks_missing():
    v = package_versions(("numpy", "surely-not-a-package-xyz"))
    assert v["numpy"] == np.__version__
    assert v["surely-not-a-package-xyz"] == "not installed"
    assert re.fullmatch(r"\d+\.\d+\.\d+.*", v["python"])


def test_summary_json_is_strict_json(golden_result):
    from pages._ui import summary_json
    _, result = golden_result
    summary = result.to_dict() | {"nan": float("nan"), "np": np.float64(0.5),
                                  "이름": "한글"}
    text = summary_json(summary)
    back = json.loads(text)
    assert back["nan"] is None and back["np"] == 0.5 and "한글" in text
    assert back["n_cases"] == result.n_cases


def _page_param_keys() -> dict[str, set[str]]:
    """Every setting a page writes into its report footer: keys of ``params={...}`` and of
    ``params = {...}`` dicts and ``params["key"] = ...`` in ``pages/*.py``."""
    import ast
    from pathlib import Path
    out: dict[str, set[str]] = {}
    for path in sorted((Path(__file__).resolve().parents[3] / "pages").glob("*.py")):
        keys: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            dicts = []
            if isinstance(node, ast.keyword) and node.arg == "params":
                dicts.append(node.value)
            elif isinstance(node, ast.Assign) and any(
                    getattr(tg, "id", None) == "params" for tg in node.targets):
                dicts.append(node.value)
            elif isinstance(node, ast.Assign) and any(
                    isinstance(tg, ast.Subscript) and getattr(tg.value, "id", None) == "params"
                    for tg in node.targets):
                keys |= {tg.slice.value for tg in node.targets
                         if isinstance(tg, ast.Subscript) and isinstance(tg.slice, ast.Constant)}
            for d in dicts:
                if isinstance(d, ast.Dict):
                    keys |= {k.value for k in d.keys if isinstance(k, ast.Constant)}
        if keys:
            out[path.name] = keys
    return out


def test_every_report_setting_has_a_label_in_both_languages():
    from core.i18n import catalog
    found = _page_param_keys()
    assert {"golden.py", "systems.py", "scifact.py", "latency.py", "agreement.py"} <= set(found)
    for lang in ("en", "ko"):
        missing = {page: sorted(k for k in keys if f"report.param_{k}" not in catalog(lang))
                   for page, keys in found.items()}
        assert {p: m for p, m in missing.items() if m} == {}, lang


def test_reports_name_the_interval_they_used():
    found = _page_param_keys()
    for page in ("golden.py", "systems.py", "scifact.py"):
        assert {"interval", "resamples", "seed", "confidence"} <= found[page], page


# ----------------------------------------------------------------------------- issue 30
def test_a_crashing_chart_costs_that_chart_only():
    """vl-convert aborts its process on a raw ESC in a label (issue 30): the chart is drawn in
    the contained worker (``core.views.svg_worker``), so the report comes back with a line
    for that chart, the next chart is drawn, and this process is still here."""
    from core.views import svg_worker

    frame = pd.DataFrame({"m": ["a\x1bb", "c"], "v": [1, 2]})
    bad = alt.Chart(frame).mark_bar().encode(x="m:N", y="v:Q")  # bypasses core.inputs.text.nfc
    good = alt.Chart(frame.assign(m=["a", "c"])).mark_bar().encode(x="m:N", y="v:Q")
    chart_svg(good)  # a worker is running
    before = svg_worker.workers_started()
    out = build_report("t", [Section("bad", chart=bad), Section("good", chart=good)],
                       inputs={}, params={}, lang="ko")
    assert out.count("<svg") == 1
    note = t("report.chart_failed", "ko", detail="X").split("X")[0]
    assert note in out and "exit status -6" in out  # SIGABRT, said in the report
    assert svg_worker.workers_started() == before + 1  # a fresh worker for the good chart
