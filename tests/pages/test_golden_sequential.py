"""The golden page's 'I look at this set more than once' toggle (issue 33) under AppTest: the
sequence's lines and chart beside the fixed-n card, kept in the URL, EN and KO, the numbers
equal to ``core.paired.sequential`` on the demo file, and a date column read as the order."""
from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

from core.inputs.arrival import sequential_golden
from core.views import format as fmt

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "golden.py")
DEMO = ROOT / "data" / "demo_golden.csv"


def _page(**query):
    at = AppTest.from_file(PAGE, default_timeout=180)
    at.query_params.update(query)
    return at.run()


def _text(at):
    return "\n".join(m.value for m in at.markdown) + "\n".join(c.value for c in at.caption)


def test_the_toggle_from_the_url_shows_the_sequence_in_english_and_korean():
    seq, _ = sequential_golden(DEMO.read_bytes(), "demo_golden.csv", "title-only", "RRF")
    for lang, words in (("en", "Sequential verdict"), ("ko", "순차 판정")):
        at = _page(seq="1", lang=lang)
        assert not at.exception
        text = _text(at)
        assert words in text
        assert fmt.diff(seq.last.ci_low, "rate").replace("-", "") in text.replace("\\-", "")
        assert f"{100 * seq.peeking.rate:.1f}%" in text
        assert at.checkbox(key="golden_sequential").value is True
        assert at.query_params["seq"] in ("1", ["1"])


def test_off_by_default_and_switched_on_it_is_kept_in_the_url():
    at = _page()
    assert not at.exception and "Sequential verdict" not in _text(at)
    assert "seq" not in at.query_params
    at.checkbox(key="golden_sequential").check().run()
    assert "Sequential verdict" in _text(at)
    assert at.query_params["seq"] in ("1", ["1"])


# ----------------------------------------------------------------------------- the other pages
def _open(page, lang="en", **query):
    at = AppTest.from_file(str(ROOT / "pages" / page), default_timeout=240)
    at.session_state["lang"] = lang
    at.query_params.update(query)
    return at.run()


def test_systems_page_toggle_in_the_url():
    at = _open("systems.py", seq="1")
    assert not at.exception, at.exception
    assert "Sequential verdict" in _text(at)
    assert at.checkbox(key="systems_sequential").value is True


def test_switch_page_reads_the_quality_condition_off_the_sequence_in_korean():
    at = _open("decide.py", "ko", seq="1")
    assert not at.exception, at.exception
    text = _text(at)
    assert "순차 판정" in text and "결정은 신뢰 수열을 따릅니다" in text
    assert at.checkbox(key="decide_sequential").value is True


def test_scifact_page_toggle(tmp_path, monkeypatch):
    import shutil
    from tests.pages.test_scifact import TINY, settle
    dest = tmp_path / "scifact"
    shutil.copytree(TINY, dest)
    monkeypatch.setenv("NOISEFLOOR_BEIR_DIR", str(dest))
    at = AppTest.from_file(str(ROOT / "pages" / "scifact.py"), default_timeout=240)
    at.query_params["seq"] = "1"
    at = settle(at)
    assert not at.exception, at.exception
    assert "in the order the queries were compared" in _text(at)


def test_the_presentation_view_keeps_the_sequence_in_english_and_korean():
    """What a demo shows (`?view=present`): the sequence's bound, its verdict and the peeking
    cost stay on screen with the settings hidden, and equal core's figures on the demo file."""
    seq, _ = sequential_golden(DEMO.read_bytes(), "demo_golden.csv", "title-only", "RRF")
    for lang, words in (("en", "Sequential verdict"), ("ko", "순차 판정")):
        at = _page(seq="1", lang=lang, view="present")
        assert not at.exception
        text = _text(at)
        assert words in text
        assert fmt.diff(seq.last.ci_low, "rate").replace("-", "") in text.replace("\\-", "")
        assert fmt.diff(seq.last.ci_high, "rate") in text.replace("\\-", "-")
        assert f"{100 * seq.peeking.rate:.1f}%" in text
        assert any("verdict-card" in m.value for m in at.markdown)
        assert len(at.metric) == 0 and len(at.table) == 0   # the presentation view: card, no tables
