"""app.py under AppTest: the demo verdict, ?lang=ko on first load, the language toggle."""
import html
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from core.inputs.golden import load_golden
from core.inputs.systems import compare_golden
from core.i18n import catalog, t
from core.views.verdicts import comparison_verdict

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
DEMO = ROOT / "data" / "demo_golden.csv"


@pytest.fixture(scope="module")
def demo_verdicts():
    """The verdict the home page must show for the demo with its default settings."""
    gs = load_golden(DEMO.read_bytes(), file=DEMO.name)
    a, b = gs.methods[:2]
    result = compare_golden(gs, a, b, resamples=20_000, confidence=0.95, seed=0)
    return {lang: comparison_verdict(result, lang) for lang in ("en", "ko")}


def _run(query: dict | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    return at.run()


def _alerts(at) -> list[str]:
    return [html.unescape(m) for e in at.markdown  # the verdict card (escaped HTML)
            for m in re.findall(r'<div class="verdict"[^>]*>([^<]*)</div>', e.value)]


def _labels(at) -> list[str]:
    widgets = (*at.selectbox, *at.number_input, *at.file_uploader)
    return [w.label for w in widgets if getattr(w, "label", None)]


def test_demo_verdict_in_english(demo_verdicts):
    at = _run()
    assert not at.exception and not at.error
    assert at.title[0].value == t("golden.title", "en")
    assert demo_verdicts["en"] in _alerts(at)
    assert at.session_state["lang"] == "en"
    assert at.query_params["lang"] == "en"


def test_lang_ko_on_first_load(demo_verdicts):
    at = _run({"lang": "ko"})
    assert not at.exception and not at.error
    assert at.session_state["lang"] == "ko"
    assert at.title[0].value == t("golden.title", "ko")
    assert demo_verdicts["ko"] in _alerts(at)
    ko, en = catalog("ko"), catalog("en")
    labels = _labels(at)
    assert t("common.confidence", "ko") in labels and t("golden.method_a", "ko") in labels
    # no widget label left in English
    english_only = {v for k, v in en.items() if v != ko.get(k)}  # "_one" forms: English only
    assert not [lab for lab in labels if lab in english_only], labels
    assert t("common.how_to_read", "ko") in [e.label for e in at.expander]
    assert t("report.copy_tables", "ko") in [e.label for e in at.expander]


def test_unknown_lang_falls_back_to_english_and_fixes_the_url():
    at = _run({"lang": "fr"})
    assert not at.exception
    assert at.session_state["lang"] == "en"
    assert at.title[0].value == t("golden.title", "en")
    assert at.query_params["lang"] == "en"


def test_toggle_switches_language_and_url(demo_verdicts):
    at = _run()
    at.segmented_control(key="app_lang_choice").set_value("ko").run()
    assert not at.exception
    assert at.session_state["lang"] == "ko"
    assert at.query_params["lang"] == "ko"
    assert at.title[0].value == t("golden.title", "ko")
    assert demo_verdicts["ko"] in _alerts(at)
    assert t("common.seed", "ko") in _labels(at)


def test_deselecting_the_toggle_keeps_the_language():
    at = _run({"lang": "ko"})
    at.segmented_control(key="app_lang_choice").set_value(None).run()
    assert not at.exception
    assert at.session_state["lang"] == "ko"
    assert at.session_state["app_lang_choice"] == "ko"
    assert at.title[0].value == t("golden.title", "ko")


def test_report_downloads_on_the_home_page():
    at = _run({"lang": "ko"})
    labels = [b.proto.label for b in at.get("download_button")]
    assert labels == [t("report.download_html", "ko"), t("report.download_cases", "ko"),
                      t("report.download_summary", "ko")]
    # no hover help on a download (Streamlit draws such a button twice, one copy hidden:
    # issue 30); what the report is, is said under the buttons
    assert all(not b.proto.help for b in at.get("download_button"))
    assert t("report.download_html_help", "ko") in [c.value for c in at.caption]
    codes = [c.value for c in at.code]
    assert any(c.startswith("| ") and "---" in c for c in codes)  # Markdown tables
    assert any(c.startswith("\\begin{tabular}") for c in codes)   # LaTeX tables
