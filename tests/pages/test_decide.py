"""The Switch? page under AppTest: the demo pair decides "switch" (EN and KO), the margin and
the largest slowdown change the answer as core.switch says, uploads with different method
names are refused naming both files, and the inconclusive card links the planner."""
import html
import re
from pathlib import Path

from streamlit.testing.v1 import AppTest

from core.switch import decide_files
from tests.core.test_switch import CLOSE, golden_csv, latency_csv
from tests.pages.headline import assert_headline_first

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "decide.py")
DEMO_Q = ROOT / "data" / "demo_switch_golden.csv"
DEMO_L = ROOT / "data" / "demo_switch_latency.csv"


def _page(lang="en"):
    at = AppTest.from_file(PAGE, default_timeout=180)
    at.session_state["lang"] = lang
    at.session_state["decide_resamples"] = 2000
    return at.run()


def _card(at) -> str:
    cards = [e.value for e in at.markdown if 'class="verdict-card' in e.value]
    assert len(cards) == 1
    return html.unescape(re.sub(r"<[^>]+>", " ", cards[0]))


def test_demo_says_switch_in_english_card_first():
    at = _page()
    assert not at.exception and not at.error
    assert_headline_first(at)
    want = decide_files(DEMO_Q.read_bytes(), DEMO_Q.name, DEMO_L.read_bytes(), DEMO_L.name,
                        margin=0.02, resamples=2000)
    assert want.decision == "switch"
    card = _card(at)
    assert "Switch: hybrid loses at most 2 %p" in card
    assert f"[{want.ratio_low:.2f}, {want.ratio_high:.2f}]" in card


def test_korean_and_a_tighter_margin_is_inconclusive_with_a_planner_link():
    at = _page("ko")
    assert not at.exception and "전환하세요" in _card(at)
    at.number_input(key="decide_margin_pp").set_value(1.0).run()
    assert not at.exception
    card = [e.value for e in at.markdown if 'class="verdict-card' in e.value][0]
    assert "아직 판단할 수 없습니다" in card
    assert "sample_size?" in card and "mode=noninferiority" in card and "margin=1.0" in card


def test_a_small_slowdown_limit_says_do_not_switch():
    at = _page()
    at.number_input(key="decide_max_slowdown").set_value(0.5).run()
    assert not at.exception
    assert "Do not switch" in _card(at)


def test_uploads_with_different_names_are_refused_naming_both_files():
    at = _page()
    at.file_uploader(key="decide_quality_upload").set_value(
        ("quality.csv", golden_csv(CLOSE), "text/csv")).run()
    assert not at.exception
    assert any("demo" in w.value or "Upload both" in w.value for w in at.warning)
    at.file_uploader(key="decide_latency_upload").set_value(
        ("timings.csv", latency_csv(0.7, names=("x", "y")), "text/csv")).run()
    assert not at.exception
    errors = [html.unescape(re.sub(r"\\(.)", r"\1", e.value)).replace("\u2060", "")
              for e in at.error]
    assert errors and "quality.csv" in errors[0] and "timings.csv" in errors[0]
    assert "base, cand" in errors[0] and "x, y" in errors[0]


def test_matching_uploads_decide_on_the_uploaded_data():
    at = _page()
    at.file_uploader(key="decide_quality_upload").set_value(
        ("quality.csv", golden_csv(CLOSE), "text/csv"))
    at.file_uploader(key="decide_latency_upload").set_value(
        ("timings.csv", latency_csv(1.5), "text/csv")).run()
    assert not at.exception and not at.error
    card = _card(at)
    assert "Switch from base to cand?" in card and "Do not switch" in card


def test_retrieval_lists_upload_is_scored_per_case():
    at = _page()
    at.radio(key="decide_format").set_value("lists").run()
    assert not at.exception
    at.file_uploader(key="decide_quality_upload").set_value(
        ("lists.csv", (ROOT / "data" / "demo_lists.csv").read_bytes(), "text/csv"))
    at.file_uploader(key="decide_latency_upload").set_value(
        ("timings.csv", latency_csv(0.6, names=("bm25", "dense")), "text/csv")).run()
    assert not at.exception and not at.error
    assert at.selectbox(key="decide_measure").value == "ndcg"
    assert "Switch from bm25 to dense?" in _card(at)
    assert at.query_params["format"] == "lists" and at.query_params["k"] == "10"
