"""The latency page under AppTest: demo, uploads (wide CP949, Korean UI), bad uploads, the
warm-up button and settings."""
import html
import re
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "latency.py")


def _page():
    at = AppTest.from_file(PAGE, default_timeout=180)
    at.session_state["latency_quantile_resamples"] = 1000
    return at.run()


def _unescape(text: str) -> str:
    """Undo ``pages._ui.esc`` (backslash before punctuation, word joiners) and the card's HTML."""
    text = re.sub(r"\\(.)", r"\1", text).replace("\u2060", "")
    return html.unescape(re.sub(r"<[^>]+>", " ", text))


def _texts(at):
    """Alert texts and the verdict card, as the reader sees them."""
    out = [_unescape(e.value) for kind in (at.warning, at.success, at.info) for e in kind]
    cards = [e.value for e in at.markdown if 'class="verdict-card' in e.value]
    out += [_unescape(m.group(1)) for c in cards
            for m in [re.search(r'class="verdict"[^>]*>(.*?)</div>', c)] if m]
    return out


def test_demo_shows_verdict_warnings_and_warmup_button():
    at = _page()
    assert not at.exception and not at.error
    assert any("faster than" in t for t in _texts(at))
    assert any(t.startswith("Warm-up in bm25") for t in _texts(at))
    assert any(t.startswith("Cache:") for t in _texts(at))
    assert any(t.startswith("If the first 2 runs") for t in _texts(at))
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["bm25: median"].endswith(" ms") and "Ratio of medians hybrid/bm25" in metrics
    at.button(key="latency_apply_warmup").click().run()
    assert not at.exception
    assert at.number_input(key="latency_drop_warmup").value == 2
    assert any(t.startswith("Keeping every run instead") for t in _texts(at))


def test_wide_upload_with_a_clear_winner_and_korean():
    rng = np.random.default_rng(0)
    base = rng.lognormal(3, 0.4, 30)
    rows = "".join(f"질의{i},{b * rng.lognormal(0, .05):.2f},{0.5 * b * rng.lognormal(0, .05):.2f}\n"
                   for _ in range(3) for i, b in enumerate(base))
    at = _page()
    at.file_uploader(key="latency_upload").set_value(
        ("mine.csv", ("query_id,old,new\n" + rows).encode("cp949"), "text/csv")).run()
    assert not at.exception and not at.error
    assert any(t.startswith("new is 1.9") and "faster than old" in t for t in _texts(at))
    at.session_state["lang"] = "ko"
    at.run()
    assert not at.exception
    assert any("배 빠릅니다" in t for t in _texts(at))


@pytest.mark.parametrize("payload", [b"", b"query_id,method,latency_ms\n",
                                     b"\x00\x01binary" * 10,
                                     b"query_id,method,latency_ms\nq1,A,3\nq2,B,slow\n",
                                     b"query_id,method,latency_ms\nq1,A,3\nq1,B,-2\n",
                                     b"query_id,A,B\nq1,3,4\n"])
def test_bad_upload_shows_an_error_and_keeps_running(payload):
    at = _page()
    at.file_uploader(key="latency_upload").set_value(("bad.csv", payload, "text/csv")).run()
    assert not at.exception
    assert len(at.error) == 1 and "bad.csv" in at.error[0].value


def test_one_method_only_and_settings():
    at = _page()
    at.file_uploader(key="latency_upload").set_value(
        ("one.csv", b"query_id,method,latency_ms\nq1,A,3\nq2,A,4\n", "text/csv")).run()
    assert not at.exception and len(at.error) == 1
    at = _page()
    at.selectbox(key="latency_a").set_value("hybrid")
    at.selectbox(key="latency_b").set_value("bm25")
    at.selectbox(key="latency_confidence").set_value(0.99)
    at.number_input(key="latency_resamples").set_value(5000)
    at.run()
    assert not at.exception and not at.error
    assert any("99%" in t for t in _texts(at))
