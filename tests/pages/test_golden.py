"""The golden-case page under AppTest: demo, uploads, bad uploads, settings."""
import html
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "golden.py")


def _page():
    return AppTest.from_file(PAGE, default_timeout=120).run()


def _texts(at):
    return [html.unescape(e.value) for kind in (at.warning, at.success, at.info, at.markdown)
            for e in kind]  # the verdict card is markdown (escaped HTML)


def test_demo_shows_the_story():
    at = _page()
    assert not at.exception
    assert any("No significant difference at 95%" in t for t in _texts(at))
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["title-only"] == "83.9% (26/31)" and metrics["RRF"] == "77.4% (24/31)"
    assert at.session_state["golden_set"] is not None
    assert at.session_state["golden_comparison"].n_cases == 31


def test_upload_with_a_clear_winner_and_korean():
    rows = "".join(f"c{i},{1 if i % 10 else 0},{1 if i % 3 == 0 else 0}\n" for i in range(60))
    at = _page()
    at.file_uploader(key="golden_upload").set_value(
        ("mine.csv", ("case_id,new,old\n" + rows).encode("cp949"), "text/csv")).run()
    assert not at.exception and not at.error
    assert any("new is better than old" in t for t in _texts(at))
    at.session_state["lang"] = "ko"
    at.run()
    assert any("더 좋습니다" in t for t in _texts(at))


@pytest.mark.parametrize("payload", [b"", b"case_id,A,B\n", b"\x00\x01binary" * 10,
                                     b"case_id,A,B\nq1,1,0\nq2,maybe,1\n",
                                     b"case_id,A,B\n" + b"q,1,0\n" * (3 * 2**20 + 1)])
def test_bad_upload_shows_an_error_and_keeps_running(payload):
    at = _page()
    at.file_uploader(key="golden_upload").set_value(("bad.csv", payload, "text/csv")).run()
    assert not at.exception
    assert len(at.error) == 1 and "bad.csv" in at.error[0].value


def test_three_methods_and_settings():
    text = "case_id,A,B,C\n" + "".join(f"q{i},{i % 2},{(i // 2) % 2},{1 if i % 5 else 0}\n"
                                       for i in range(30))
    at = _page()
    at.file_uploader(key="golden_upload").set_value(("three.csv", text.encode(), "text/csv"))
    at.run()
    at.selectbox(key="golden_a").set_value("C")
    at.selectbox(key="golden_b").set_value("A")
    at.selectbox(key="golden_confidence").set_value(0.99)
    at.number_input(key="golden_resamples").set_value(5000)
    at.run()
    assert not at.exception
    c = at.session_state["golden_comparison"].comparison
    assert (c.a, c.b) == ("C", "A")
    assert c.bootstrap.confidence == 0.99 and c.bootstrap.resamples == 5000


def test_small_set_says_why_there_is_no_winner_and_notes_a_degenerate_bootstrap():
    """Issue #11: 2 cases, A right on both, B wrong on both. The bootstrap gives one value, but
    the mid-p McNemar p can be no lower than 0.25: no winner, the reason under the verdict, the degenerate note
    beside the CI; in Korean too."""
    at = _page()
    at.file_uploader(key="golden_upload").set_value(
        ("two.csv", b"case_id,A,B\nc1,1,0\nc2,1,0\n", "text/csv")).run()
    assert not at.exception and not at.error
    texts = _texts(at)
    assert any("No significant difference at 95%" in t for t in texts)
    assert not any("A is better" in t for t in texts)
    assert any("with 2 discordant pairs the smallest possible p" in t and "0.25" in t
               for t in texts)
    captions = [c.value for c in at.caption]
    assert any("Degenerate bootstrap" in c for c in captions)
    at.session_state["lang"] = "ko"
    at.run()
    assert any("엇갈린 쌍이 2개뿐이면" in t for t in _texts(at))
    assert any("부트스트랩이 퇴화" in c.value for c in at.caption)


def test_bca_interval_option():
    rows = "".join(f"c{i},{min(1, 0.3 + (i % 7) ** 2 / 40):.3f},{0.2 + (i % 5) / 10:.3f}\n"
                   for i in range(60))
    at = _page()
    at.file_uploader(key="golden_upload").set_value(
        ("mine.csv", ("case_id,new,old\n" + rows).encode(), "text/csv")).run()
    before = at.session_state["golden_comparison"].comparison.bootstrap
    at.radio(key="golden_interval").set_value("bca").run()
    assert not at.exception and not at.error
    after = at.session_state["golden_comparison"].comparison.bootstrap
    assert before.interval == "calibrated_t" and after.interval == "bca"   # default for scores
    assert (after.ci_low, after.ci_high) != (before.ci_low, before.ci_high)
    assert any("new is better than old" in t for t in _texts(at))


def test_card_metric_and_report_show_the_cli_number():
    """The page's card, its difference metric and its report carry the same signed B − A as
    ``python -m core compare data/demo_golden.csv --json`` (difference.b_minus_a)."""
    import json
    import subprocess
    import sys
    from core.views.format import diff, interval
    out = subprocess.run([sys.executable, "-m", "core", "compare",
                          str(ROOT / "data" / "demo_golden.csv"), "--json"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120, check=True).stdout
    d = json.loads(out)["difference"]
    headline = diff(d["b_minus_a"], "rate")
    ci = interval(d["ci_low"], d["ci_high"], "rate", signed=True)
    at = _page()
    assert not at.exception
    card = next(m.value for m in at.markdown if "verdict-card" in m.value)
    assert f">{html.escape(headline)}<" in card and html.escape(ci) in card
    assert "RRF − title-only" in html.unescape(card)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["RRF − title-only"] == headline


def _walk(node):
    """Elements of the page in the order they are drawn."""
    children = getattr(node, "children", None)
    if children is None:
        yield node
        return
    for key in sorted(children):
        yield from _walk(children[key])


def test_the_verdict_comes_first_then_the_guide_then_the_inputs():
    """title -> question -> verdict card -> "How to read this" -> inputs -> details."""
    at = _page()
    assert not at.exception
    order = list(_walk(at.main))
    kinds = [type(e).__name__ for e in order]
    card = next(i for i, e in enumerate(order) if "verdict-card" in str(getattr(e, "value", "")))
    guide = next(i for i, e in enumerate(order)
                 if str(getattr(e, "value", "")).startswith("- **The percentages**"))
    assert kinds[:2] == ["Title", "Caption"] and card == 2 and guide == 3
    assert kinds.index("FileUploader") > guide and kinds.index("Selectbox") > guide
    assert kinds.index("Metric") > kinds.index("Selectbox")   # details after the inputs


def test_the_card_names_the_cases_it_would_take_and_links_the_planner():
    from urllib.parse import parse_qs, urlsplit
    at = _page()
    card = html.unescape(next(m.value for m in at.markdown if "verdict-card" in m.value))
    assert "To tell apart a difference this size you would need about" in card
    assert "(you have 31)" in card
    href = card.split('href="', 1)[1].split('"', 1)[0]
    q = {k: v[0] for k, v in parse_qs(urlsplit(href).query).items()}
    assert urlsplit(href).path == "sample_size"
    assert q["design"] == "paired" and q["n"] == "31" and q["disc"] == "25.8"
    assert q["diff"] == "-6.5" and q["lang"] == "en"


def test_the_link_keeps_the_interval_and_every_setting():
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.query_params.update({"interval": "bca", "seed": "7", "resamples": "3000",
                            "confidence": "90", "a": "RRF", "b": "title-only"})
    at.run()
    assert not at.exception
    assert at.radio(key="golden_interval").value == "bca"
    assert at.number_input(key="golden_seed").value == 7
    c = at.session_state["golden_comparison"].comparison
    assert c.bootstrap.interval == "bca" and c.bootstrap.confidence == 0.9
    assert (c.a, c.b, c.bootstrap.seed, c.bootstrap.resamples) == ("RRF", "title-only", 7, 3000)
    at.radio(key="golden_interval").set_value("percentile").run()
    assert at.query_params["interval"] == ["percentile"] or \
        at.query_params["interval"] == "percentile"


def test_presentation_view_shows_the_card_and_one_chart():
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.query_params["view"] = "present"
    at.run()
    assert not at.exception
    assert sum("verdict-card" in m.value for m in at.markdown) == 1
    assert len(at.get("arrow_vega_lite_chart")) + len(at.get("vega_lite_chart")) == 1
    assert len(at.metric) == 0 and len(at.table) == 0


def test_korean_copies_carry_no_raw_keys():
    import re
    raw_keys = re.compile(r"\b(case_id|difference|b_minus_a|ci_low|ci_high|b_better|a_better|"
                          r"no_difference|True|False)\b")
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.session_state["lang"] = "ko"
    at.run()
    assert not at.exception
    copies = [c.value for c in at.code]
    assert copies
    raw = sorted({m.group(0) for c in copies for m in raw_keys.finditer(c)})
    assert raw == [], raw


def test_the_planner_the_card_links_to_says_the_same_number():
    """The "cannot tell" card's N and the sample-size page opened by its link agree."""
    import re
    from urllib.parse import parse_qs, urlsplit
    at = _page()
    card = html.unescape(next(m.value for m in at.markdown if "verdict-card" in m.value))
    needed = re.search(r"you would need about ([\d,]+) cases", card).group(1)
    href = card.split('href="', 1)[1].split('"', 1)[0]
    planner = AppTest.from_file(str(ROOT / "pages" / "sample_size.py"), default_timeout=120)
    planner.query_params.update({k: v[0] for k, v in parse_qs(urlsplit(href).query).items()})
    planner.run()
    assert not planner.exception
    shown = {m.label: m.value for m in planner.metric}
    power = next(v for k, v in shown.items() if k.startswith("Cases to detect")
                 and "%p" in k)
    assert power.replace(",", "") == needed.replace(",", "")


def test_the_card_warns_when_the_resample_self_check_sees_skew_en_and_ko():
    """Right-skewed score differences on 12 cases with the plain t-interval chosen by name:
    the centred-resample self-check finds it leaving out 0 clearly more often than at 12
    cases where an interval holds (above 6% + 0.6 / 12, beyond Monte-Carlo error), and the
    card says so in plain words, in English and Korean; the detail line names both checks."""
    import numpy as np
    rng = np.random.default_rng(0)
    old = rng.uniform(0.3, 0.5, 12).round(3)
    new = (old + (rng.lognormal(0, 1.3, 12) - 1.0) * 0.05).round(3)
    rows = "".join(f"c{i},{x},{y}\n" for i, (x, y) in enumerate(zip(new, old)))
    at = _page()
    at.file_uploader(key="golden_upload").set_value(
        ("skewed.csv", ("case_id,new,old\n" + rows).encode(), "text/csv")).run()
    at.radio(key="golden_interval").set_value("t").run()
    assert not at.exception and not at.error
    cal = at.session_state["golden_comparison"].comparison.calibration
    assert cal.interval == "t" and cal.warns and cal.resample_null_rejection > cal.warn_above
    rate = f"{100 * cal.shown:.1f}%"
    texts = _texts(at)
    assert any(f"On data like yours this interval would wrongly leave out 0 in {rate} of cases"
               " — more than the 5% promised; treat the verdict with care." in t for t in texts)
    # how the check was measured: in the details under the rates row, not on the card
    assert any("Centred resamples, which keep your differences' skew" in html.unescape(c.value)
               for c in at.caption)
    at.session_state["lang"] = "ko"
    at.run()
    assert not at.exception
    assert any(f"{rate}의 경우에 0을 잘못 배제합니다. 약속한 5%보다 많으니 판정을 조심해서 읽으세요"
               in t for t in _texts(at))


def test_the_shipped_demo_shows_no_self_check_warning_en_and_ko():
    """The demo's 8 discordant pairs of 31: the sign-flip check, conditional on them, is
    7.0% (a discreteness artefact: 0-8, 1-7, 7-1, 8-0 of 9 splits); the unconditional
    resample check is the figure shown, and nothing warns."""
    at = _page()
    cal = at.session_state["golden_comparison"].comparison.calibration
    assert cal.null_rejection == pytest.approx(2 * 9 / 256) and not cal.warns
    shown = f"{100 * cal.resample_null_rejection:.1f}%"
    assert any(f"On data like yours, this interval would wrongly leave out 0 in {shown} of "
               "cases; 5% is the promise." in t for t in _texts(at))
    assert not any("treat the verdict with care" in t for t in _texts(at))
    at.session_state["lang"] = "ko"
    at.run()
    assert not at.exception
    assert any(f"{shown}의 경우에 0을 잘못 배제합니다. 약속한 값은 5%입니다" in t for t in _texts(at))
    assert not any("판정을 조심해서 읽으세요" in t for t in _texts(at))


def test_no_warning_when_both_self_checks_hold():
    rows = "".join(f"c{i},{min(1, 0.3 + (i % 7) ** 2 / 40):.3f},{0.2 + (i % 5) / 10:.3f}\n"
                   for i in range(60))
    at = _page()
    at.file_uploader(key="golden_upload").set_value(
        ("mine.csv", ("case_id,new,old\n" + rows).encode(), "text/csv")).run()
    cal = at.session_state["golden_comparison"].comparison.calibration
    assert not cal.warns
    assert not any("treat the verdict with care" in t for t in _texts(at))


def _card(at):
    return html.unescape(next(m.value for m in at.markdown if "verdict-card" in m.value))


def test_margin_is_off_by_default_and_answers_in_both_languages():
    at = _page()
    assert at.number_input(key="golden_margin_rate").value == 0.0
    assert "verdict-band" not in _card(at) and "margin" not in at.query_params
    # title-only − RRF = +6.5 %p [-12.8 %p, +25.7 %p]: above -15 %p -> non-inferior
    at.selectbox(key="golden_a").set_value("RRF")
    at.selectbox(key="golden_b").set_value("title-only")
    at.number_input(key="golden_margin_rate").set_value(15.0).run()
    assert not at.exception
    card = _card(at)
    # estimate then bound, in one sentence (issue 37): the card's own B − A and CI's low end
    assert ("title-only scores +6.5 %p vs RRF; at worst -12.8 %p, within the 15.0 %p you "
            "allowed." in card)
    diff = at.metric[2].value
    assert diff == "+6.5 %p" and f'class="verdict-value"' in card and f">{diff}</span>" in card
    assert "CI [-12.8 %p, +25.7 %p]" in card
    assert 'class="verdict-band"' in card and "verdict-better" in card
    q = at.query_params["margin"]
    assert (q[0] if isinstance(q, list) else q) == "15"
    at.session_state["lang"] = "ko"
    at.run()
    card = _card(at)
    assert ("title-only은(는) RRF 대비 +6.5 %p이고, 최악이라도 -12.8 %p로 허용한 15.0 %p "
            "안입니다." in card)
    assert at.metric[2].value == "+6.5 %p" and "하한" not in card


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_margin_from_the_url_that_leaves_it_open_gives_the_plan(lang):
    from urllib.parse import parse_qs, urlsplit
    from core.i18n import t
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.query_params.update({"margin": "5", "lang": lang})
    at.run()
    assert not at.exception
    assert at.number_input(key="golden_margin_rate").value == 5.0
    card = _card(at)
    assert t("margin.verdict_inconclusive", lang, a="title-only", b="RRF", margin="5.0 %p",
             est="-6.5 %p", lo="-25.7 %p", hi="+12.8 %p") in card
    assert at.metric[2].value == "-6.5 %p"  # the estimate quoted is the card's B − A
    href = card.split('href="', 1)[1].split('"', 1)[0]
    q = {k: v[0] for k, v in parse_qs(urlsplit(href).query).items()}
    assert q["mode"] == "noninferiority" and q["margin"] == "5.0" and q["lang"] == lang


def _grouped_upload():
    rows = ["case_id,group,new,old"]
    for i in range(60):
        g = "ko" if i < 30 else "en"
        new = 1 if (i < 30 and i % 10) or (i >= 30 and i % 2) else 0
        rows.append(f"c{i},{g},{new},{1 if i % 3 == 0 else 0}")
    return ("\n".join(rows) + "\n").encode()


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_group_column_gives_b_minus_a_per_group(lang):
    from core.inputs.golden import load_golden
    from core.inputs.systems import compare_golden
    from core.inputs.groups import by_group

    at = AppTest.from_file(PAGE, default_timeout=120)
    at.session_state["lang"] = lang
    at.run()
    assert any(("그룹" if lang == "ko" else "group") in c.value for c in at.caption)  # the hint
    at.file_uploader(key="golden_upload").set_value(("grouped.csv", _grouped_upload(),
                                                     "text/csv")).run()
    assert not at.exception and not at.error
    ref = by_group(compare_golden(load_golden(_grouped_upload(), "grouped.csv"), "new", "old",
                                  resamples=20_000), resamples=20_000)
    title = "질의 그룹별" if lang == "ko" else "By query group"
    assert any(title in s.value for s in at.subheader)
    table = next(t.value for t in at.table if ("그룹" if lang == "ko" else "group")
                 in t.value.columns)
    col = "그룹" if lang == "ko" else "group"
    assert list(table[col]) == ["ko", "en"]
    diff_col = next(c for c in table.columns if "−" in c and "CI" not in c and "신뢰" not in c)
    assert list(table[diff_col]) == [f"{100 * g.diff:+.1f} %p" for g in ref.groups]
    word = "순열" if lang == "ko" else "Permutation"
    assert any(word in m.value for m in at.markdown)


def test_a_blank_group_names_row_and_column():
    at = _page()
    at.file_uploader(key="golden_upload").set_value(
        ("g.csv", b"case_id,group,A,B\n1,ko,1,0\n2,,0,1\n3,en,1,1\n", "text/csv")).run()
    assert not at.exception
    assert len(at.error) == 1 and "row 3" in at.error[0].value and "group" in at.error[0].value


def test_group_labels_are_shown_as_typed_never_as_markdown_or_html():
    rows = ["case_id,group,new,old"] + [
        f"c{i},{'**bold**' if i < 20 else '<img src=x>'},{int(i % 4 != 0)},{int(i % 3 == 0)}"
        for i in range(40)]
    at = _page()
    at.file_uploader(key="golden_upload").set_value(
        ("hostile.csv", ("\n".join(rows) + "\n").encode(), "text/csv")).run()
    assert not at.exception and not at.error
    table = next(t.value for t in at.table if "group" in t.value.columns)
    assert list(table["group"]) == [r"\*\*bold\*\*", r"\<img src=x\>"]  # escaped cells
    assert not any("<img" in m.value for m in at.markdown if "verdict-card" not in m.value)


@pytest.mark.parametrize("lang,kind", [("en", "calibrated t"), ("ko", "보정 t")])
def test_scores_show_each_methods_calibrated_t_interval(lang, kind):
    """Issue 25: with continuous scores each method's tile gives the calibrated t-interval of
    its mean (named under the score, explained on hover), the numbers of
    ``core.paired.method_intervals.mean_intervals``, in English and Korean."""
    import json

    import numpy as np
    from core.paired.method_intervals import mean_intervals
    rng = np.random.default_rng(3)
    new, old = rng.beta(2, 5, 15).round(3), rng.beta(2, 6, 15).round(3)
    rows = "".join(f"c{i},{x},{y}\n" for i, (x, y) in enumerate(zip(new, old)))
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.session_state["lang"] = lang
    at.run()
    at.file_uploader(key="golden_upload").set_value(
        ("scores.csv", ("case_id,new,old\n" + rows).encode(), "text/csv")).run()
    assert not at.exception and not at.error
    c = at.session_state["golden_comparison"].comparison
    cols, bs = {"new": new, "old": old}, c.bootstrap
    lo, hi, _ = mean_intervals(np.vstack((cols[c.a], cols[c.b])), confidence=bs.confidence,
                               resamples=bs.resamples, seed=bs.seed)
    assert (c.rate_a.interval, c.rate_a.ci_low, c.rate_b.ci_high) == ("calibrated_t", lo[0], hi[1])
    assert sum(f"{kind} " in cap.value for cap in at.caption) >= 2
    gloss = json.loads((ROOT / "core" / "i18n" / lang / "glossary.json").read_text("utf-8"))
    helps = [m.help for m in at.metric if m.help and gloss["calibrated_t"] in m.help]
    assert len(helps) == 2 and "ercentile" not in "".join(helps) and "백분위" not in "".join(helps)


# ----------------------------------------------------------------------------- the 2x2 (issue 37)
def _html_tables(doc):
    """Every <table> of an HTML document as a list of rows of cell texts (stdlib parser)."""
    from html.parser import HTMLParser

    class Tables(HTMLParser):
        def __init__(self):
            super().__init__()
            self.tables, self.cell = [], None

        def handle_starttag(self, tag, attrs):
            if tag == "table":
                self.tables.append([])
            elif tag == "tr":
                self.tables[-1].append([])
            elif tag in ("td", "th"):
                self.cell = ""

        def handle_endtag(self, tag):
            if tag in ("td", "th"):
                self.tables[-1][-1].append(self.cell)
                self.cell = None

        def handle_data(self, data):
            if self.cell is not None:
                self.cell += data

    p = Tables()
    p.feed(doc)
    return p.tables


_BASE_NEW = ("case_id,base,new\n" + "".join(
    f"c{i},{x},{y}\n" for i, (x, y) in enumerate([(1, 1)] * 10 + [(1, 0)] * 7 + [(0, 1)] * 2
                                                 + [(0, 0)] * 5))).encode()


@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("upload, a, b, want", [
    (None, "title-only", "RRF", {"a": (21, 5, 26), "not_a": (3, 2, 5), "b": (21, 3, 24)}),
    (_BASE_NEW, "base", "new", {"a": (10, 7, 17), "not_a": (2, 5, 7), "b": (10, 2, 12)})])
def test_the_2x2_lines_add_up_to_the_rates_table_on_page_and_report(lang, upload, a, b, want,
                                                                  monkeypatch):
    """Issue 37: the 2x2 swapped its disagreement cells (the A-right line summed to B's count).
    Rows are A right / wrong, columns B right / wrong, with totals; each line's total is the
    count the rates row shows (26/31, 24/31 on the demo; 17/24 and 12/24 on base/new), on the
    page, in the Markdown copy and in the HTML report, EN and KO."""
    import re
    import pages._ui as ui
    from core.i18n import t

    reports = []
    real = ui.build_report
    monkeypatch.setattr(ui, "build_report", lambda *a_, **k: reports.append(real(*a_, **k))
                        or reports[-1])
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.session_state["lang"] = lang
    at.run()
    if upload is not None:
        at.file_uploader(key="golden_upload").set_value(("bn.csv", upload, "text/csv")).run()
    assert not at.exception and not at.error
    a_right, a_wrong, b_right, b_wrong = (t(f"paired.outcome_{k}", lang, m=m) for m, k in
                                          ((a, "right"), (a, "wrong"), (b, "right"), (b, "wrong")))
    total = t("paired.outcome_total", lang)
    tables = [x.value for x in at.table if total in list(x.value.columns)]
    assert len(tables) == 1
    df = tables[0].map(int) if hasattr(tables[0], "map") else tables[0].applymap(int)
    assert list(df.index) == [a_right, a_wrong, total]
    assert list(df.columns) == [b_right, b_wrong, total]
    assert tuple(df.loc[a_right]) == want["a"] and tuple(df.loc[a_wrong]) == want["not_a"]
    assert tuple(df[b_right]) == want["b"]
    # each line adds up, and its total is the count in the rates row
    assert (df.iloc[:2, :2].sum(axis=1) == df.iloc[:2, 2]).all()
    assert (df.iloc[:2, :2].sum(axis=0) == df.iloc[2, :2]).all()
    metrics = {m.label: m.value for m in at.metric}
    counts = {m: tuple(map(int, re.search(r"\((\d+)/(\d+)\)", metrics[m]).groups()))
              for m in (a, b)}
    n = counts[a][1]
    assert counts[a] == (df.loc[a_right, total], n) and counts[b] == (df.loc[total, b_right], n)
    assert df.loc[total, total] == n
    # the HTML report's table is the same, line by line
    assert reports
    html_rows = next(tb for tb in _html_tables(reports[-1])
                     if tb and tb[0][1:] == [b_right, b_wrong, total])
    assert [r[0] for r in html_rows[1:]] == [a_right, a_wrong, total]
    assert [tuple(map(int, r[1:])) for r in html_rows[1:]] == [tuple(x) for x in df.to_numpy()]
    # and so is the Markdown copy
    copy = "\n".join(c.value for c in at.code)
    assert f"| {a_right} | {want['a'][0]} | {want['a'][1]} | {want['a'][2]} |" in copy


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_no_harm_section_is_the_data_and_links_the_most_hurt_cases(lang):
    """The hurt/helped shares and TRisk under the tests are core.paired.harm.no_harm of the
    page's pair (0/1 demo: any loss), alpha is selectable, the most-hurt cases are linked to the
    drill-down's anchor; scores take a delta."""
    import numpy as np
    from core.paired.harm import no_harm
    from core.views.harm import harm_lines
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.session_state["lang"] = lang
    at.run()
    assert not at.exception
    res = at.session_state["golden_comparison"]
    c = res.comparison
    h = no_harm(res.a_values, res.b_values)
    texts = _texts(at)
    for line in harm_lines(h, c.a, c.b, "rate", lang):
        assert any(line.replace("−", "") in t.replace("\\", "").replace("−", "")
                   for t in texts), line
    assert any("(#golden-discordant)" in t for t in texts) == (h.hurt > 0)
    at.selectbox(key="golden_alpha").set_value(5).run()
    h5 = no_harm(res.a_values, res.b_values, alpha=5)
    assert any(f"{h5.trisk:.2f}" in t and "α = 5" in t for t in _texts(at))
    rng = np.random.default_rng(1)
    a = rng.random(40)
    b = np.clip(a + rng.normal(0.0, 0.1, 40), 0, 1)
    rows = "".join(f"c{i},{x:.3f},{y:.3f}\n" for i, (x, y) in enumerate(zip(a, b)))
    at.file_uploader(key="golden_upload").set_value(
        ("s.csv", ("case_id,old,new\n" + rows).encode(), "text/csv")).run()
    at.number_input(key="golden_harm_delta").set_value(0.1).run()
    assert not at.exception
    h = no_harm(np.round(a, 3), np.round(b, 3), delta=0.1)
    assert any(f"{h.hurt}/40" in t and "0.100" in t for t in _texts(at))


CLUSTERED = (Path(__file__).resolve().parents[1] / "fixtures" / "clusters"
             / "golden_clustered.csv").read_bytes()


def _cluster_box(at):
    """The cluster-column choice (its key carries the file's digest)."""
    return next(s for s in at.selectbox if str(s.key).startswith("golden_cluster_"))


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_cluster_column_gives_the_cluster_card(lang):
    """Issue 32: a file with a document column: the card treats the document as the unit
    (its interval is the CR2 one of core.paired.clusters, its numbers in the card)."""
    from core.inputs import compare_golden, load_clustered
    from core.inputs.clusters import compare_in_clusters
    from core.views import format as fmt
    cl = load_clustered(CLUSTERED, "c.csv")
    cc = compare_in_clusters(compare_golden(cl.golden, resamples=20_000), cl.labels, "c.csv")
    at = _page()
    at.session_state["lang"] = lang
    at.file_uploader(key="golden_upload").set_value(("c.csv", CLUSTERED, "text/csv")).run()
    assert not at.exception and not at.error
    choice = _cluster_box(at)
    assert choice.value == "document"
    texts = "\n".join(_texts(at))
    lo, hi = fmt.diff(cc.difference.ci_low, "rate"), fmt.diff(cc.difference.ci_high, "rate")
    assert f"[{lo}, {hi}]" in texts
    assert ("clusters as the unit" in texts) if lang == "en" else ("클러스터 단위" in texts)
    # choosing none gives the independent-cases card back
    choice.set_value(choice.options[0])
    at.run()
    assert f"[{lo}, {hi}]" not in "\n".join(_texts(at))


def test_ids_that_look_clustered_get_the_hint():
    text = "case_id,A,B\n" + "".join(f"doc{d}_q{q},{(d + q) % 2},{d % 2}\n"
                                     for d in range(6) for q in range(3))
    at = _page()
    at.file_uploader(key="golden_upload").set_value(("h.csv", text.encode(), "text/csv")).run()
    assert not at.exception
    assert any("cluster column" in t for t in _texts(at))


def test_a_rerun_does_not_compute_the_no_harm_figures_again(monkeypatch):
    """The No harm figures (TRisk's bootstrap-t) come from the page's one cached call
    (``compare_systems`` with the section's δ and α, issue 31): a rerun computes neither the
    comparison nor No harm again; a new α runs the one call again, No harm once, and the
    section shows the call's figures (no second computation on the page)."""
    import core.inputs.systems as systems_room
    import core.paired.harm as harm_room
    import pages._ui as ui
    calls, pairs = [], []
    real_harm, real_compare = harm_room.no_harm, systems_room.compare_paired

    def counted(*args, **kw):
        calls.append(kw.get("alpha"))
        return real_harm(*args, **kw)

    def compare(*args, **kw):
        pairs.append(1)
        return real_compare(*args, **kw)

    st.cache_data.clear()
    monkeypatch.setattr(harm_room, "no_harm", counted)   # the one call's (core.paired door)
    monkeypatch.setattr(ui, "no_harm", counted)          # the section's own, if it ran
    monkeypatch.setattr(systems_room, "compare_paired", compare)
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.run()
    assert not at.exception and calls == [2] and len(pairs) == 1
    at.run()
    assert not at.exception and calls == [2] and len(pairs) == 1   # the rerun reads the kept call
    at.selectbox(key="golden_alpha").set_value(5).run()
    assert not at.exception and calls == [2, 5] and len(pairs) == 2
    at.run()
    assert not at.exception and calls == [2, 5] and len(pairs) == 2
    assert any("TRisk" in t or "α" in t for t in _texts(at))


def test_a_rerun_with_a_margin_computes_no_statistics_again(monkeypatch):
    """With a margin set, a rerun reads the one kept call (issue 31): neither the comparison
    nor the margin's answer (for scores with δ > 0 a tie-kept bootstrap) nor the card's next
    step runs again; a new margin computes them anew, once."""
    import core.inputs.systems as systems_room
    import core.inputs.margin_text as margin_room
    calls = {"compare": 0, "margin": 0}
    real_compare, real_margin = systems_room.compare_paired, margin_room.margin_answer

    def compare(*args, **kw):
        calls["compare"] += 1
        return real_compare(*args, **kw)

    def margin(*args, **kw):
        calls["margin"] += 1
        return real_margin(*args, **kw)

    st.cache_data.clear()
    monkeypatch.setattr(systems_room, "compare_paired", compare)
    monkeypatch.setattr(margin_room, "margin_answer", margin)
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.run()
    at.number_input(key="golden_margin_rate").set_value(5.0).run()
    assert not at.exception and calls["margin"] == 1
    first = dict(calls)
    at.run()
    assert not at.exception and calls == first   # the rerun reads the kept result
    at.number_input(key="golden_margin_rate").set_value(10.0).run()
    assert not at.exception and calls["margin"] == 2


def test_too_few_differing_cases_the_card_reaches_zero_en_and_ko():
    """Issue 36: 4 equal gains and 26 ties (recall@100-like). The card's interval of B − A
    reaches 0 (the t-type interval alone left it out while no test can tell with 4 differing
    cases), its name says why, and the reason names the smallest possible p, in EN and KO;
    the interval's ends on the page are the comparison's."""
    from core.views import format as fmt
    rows = "".join(f"c{i},0.5,{0.595 if i < 4 else 0.5}\n" for i in range(30))
    at = _page()
    at.file_uploader(key="golden_upload").set_value(
        ("few.csv", ("case_id,old,new\n" + rows).encode(), "text/csv")).run()
    assert not at.exception and not at.error
    bs = at.session_state["golden_comparison"].comparison.bootstrap
    assert bs.reaches_zero and bs.ci_low == 0.0 and bs.ci_high > 0
    for lang, name, why in (("en", "widened to reach 0", "Too few cases that differ to tell"),
                            ("ko", "0까지 넓힘", "점수가 다른 케이스가 너무 적어")):
        at.session_state["lang"] = lang
        at.run()
        assert not at.exception
        every = _texts(at) + [html.unescape(c.value) for c in at.caption]
        assert any(name in t for t in every), lang
        assert any(why in t and "0.125" in t for t in every), lang
        ends = (fmt.signed(bs.ci_low, 3), fmt.signed(bs.ci_high, 3))
        assert any(ends[0] in t and ends[1] in t for t in every), (lang, ends)
