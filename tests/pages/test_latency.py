"""The latency page under AppTest: demo, uploads (wide CP949, Korean UI), bad uploads, the
warm-up button and settings."""
import html
import re
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from tests.pages.headline import assert_headline_first, flat

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


def _card(at) -> str:
    cards = [e.value for e in at.markdown if 'class="verdict-card' in e.value]
    assert len(cards) == 1
    return cards[0]


def test_demo_shows_verdict_warnings_and_warmup_button():
    at = _page()
    assert not at.exception and not at.error
    # issue 37: each warning box has its short form on the card's caveat line
    line = html.unescape(re.search(r'class="verdict-caveats"[^>]*>(.*?)</div>',
                                   _card(at)).group(1))
    assert line.count(";") == len(at.warning) - 1 == 2
    # B (hybrid) is the slower one in the demo: the card says so, in red
    assert any(t.startswith("hybrid takes 1.") and t.endswith("the time of bm25: hybrid is slower.")
               for t in _texts(at))
    assert "verdict-worse" in _card(at)
    assert any(t.startswith("Warm-up in bm25") for t in _texts(at))
    assert any(t.startswith("Cache:") for t in _texts(at))
    assert any(t.startswith("If the first 2 runs") for t in _texts(at))
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["bm25: median"].endswith(" ms") and "Ratio of the medians of all timings hybrid/bm25" in metrics
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
    assert any(t.startswith("new takes 0.5") and t.endswith("the time of old: new is faster.")
               for t in _texts(at))
    assert "verdict-better" in _card(at)
    at.session_state["lang"] = "ko"
    at.run()
    assert not at.exception
    assert any("new이(가) 더 빠릅니다" in t for t in _texts(at))
    assert "verdict-better" in _card(at)


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


def test_card_comes_first_and_p_values_read_as_sentences():
    """Title, question, then the card, before any input; no 'p = <0.001' anywhere."""
    at = _page()
    assert_headline_first(at)
    everything = " ".join(str(getattr(e, "value", "")) for e in flat(at))
    assert "p = <" not in everything and "p < 0.001" in _unescape(_card(at))


def test_link_keeps_every_setting():
    at = AppTest.from_file(PAGE, default_timeout=180)
    at.query_params.update({"a": "hybrid", "b": "bm25", "warmup": "2", "confidence": "90",
                            "seed": "3", "quantile_resamples": "1000"})
    at.run()
    assert not at.exception
    assert at.selectbox(key="latency_a").value == "hybrid"
    assert at.selectbox(key="latency_b").value == "bm25"
    assert at.number_input(key="latency_drop_warmup").value == 2
    assert at.selectbox(key="latency_confidence").value == 0.9
    assert at.number_input(key="latency_seed").value == 3
    assert {k: at.query_params[k] for k in ("a", "b", "warmup", "confidence", "seed")} == \
        {"a": "hybrid", "b": "bm25", "warmup": "2", "confidence": "90", "seed": "3"}
    # the card reads the other way round now: bm25 (B) is the faster one, in green
    assert "verdict-better" in _card(at)
    assert any(t.startswith("bm25 takes 0.") and t.endswith("bm25 is faster.")
               for t in _texts(at))


def test_presentation_shows_the_card_and_the_ratio_chart_only():
    at = AppTest.from_file(PAGE, default_timeout=180)
    at.query_params["view"] = "present"
    at.session_state["latency_quantile_resamples"] = 1000
    at.run()
    assert not at.exception
    assert len(at.get("vega_lite_chart")) == 1 and not at.expander and not at.table
    assert "verdict-card" in _card(at) and not at.metric
    # issue 37: the fairness warnings stay, as one line in the card (the boxes are hidden)
    caveats = re.search(r'class="verdict-caveats"[^>]*>(.*?)</div>', _card(at))
    assert caveats, "no caveat line on the card"
    line = html.unescape(caveats.group(1))
    assert "warm-up in bm25" in line and "warm-up in hybrid" in line and "cache hits" in line
    assert not at.warning   # ... and their boxes are not drawn


# ----------------------------------------------------------------------------- issue 25
def _upload(at, name: str, data: bytes):
    at.file_uploader(key="latency_upload").set_value((name, data, "text/csv")).run()
    assert not at.exception and not at.error
    return at


@pytest.mark.parametrize("lang, needle", [("en", "Order within each query: B ran after A"),
                                          ("ko", "질의 안의 실행 순서")])
def test_b_always_second_is_warned_and_no_order_effect_is_not_claimed(lang, needle):
    from tests.latency_logs import pair_log
    at = _page()
    at.session_state["lang"] = lang
    _upload(at, "pair.csv", pair_log(gain=1.3))
    texts = _texts(at)
    assert any(t.startswith(needle) for t in texts)
    assert not any("no order effect" in t or "No fairness problem" in t for t in texts)


@pytest.mark.parametrize("lang, refusal, faster", [
    ("en", "No verdict on speed", "B is faster."), ("ko", "속도 판정 없음", "B이(가) 더 빠릅니다")])
def test_seconds_against_milliseconds_refuse_until_the_unit_is_set(lang, refusal, faster):
    from tests.latency_logs import wide_log
    at = _page()
    at.session_state["lang"] = lang
    _upload(at, "sec.csv", wide_log(b_scale=1 / 1000, ratio=0.8))
    card = _unescape(_card(at))
    assert refusal in card and "verdict-neutral" in _card(at) and "×" not in card.split("?")[0]
    assert any(t.startswith("Units?") or t.startswith("단위 확인") for t in _texts(at))
    assert not any(t.startswith("If the first") for t in _texts(at))
    at.selectbox(key="latency_unit_b").set_value("s").run()
    assert not at.exception and not at.error
    assert any(faster in t for t in _texts(at)) and "verdict-better" in _card(at)
    assert not any(t.startswith("Units?") or t.startswith("단위 확인") for t in _texts(at))


@pytest.mark.parametrize("lang, needle", [
    ("en", "With 3 queries the smallest possible p of the sign-flip test is 0.25"),
    ("ko", "질의 3개로는 부호 뒤집기 검정이 낼 수 있는 가장 작은 p값이 0.25")])
def test_cannot_tell_gives_its_reason_on_the_card(lang, needle):
    at = _page()
    at.session_state["lang"] = lang
    _upload(at, "q3.csv", b"query_id,A,B\nq1,40,50\nq2,30,39.6\nq3,20,27.6\n")
    assert needle in _unescape(_card(at))


def test_a_wide_log_does_not_claim_there_is_no_order_effect():
    rng = np.random.default_rng(5)
    base = rng.lognormal(3, 0.4, 30)
    rows = "".join(f"q{i},{b * rng.lognormal(0, .05):.3f},{b * rng.lognormal(0, .05):.3f}\n"
                   for i, b in enumerate(base))
    at = _upload(_page(), "wide.csv", ("query_id,A,B\n" + rows).encode())
    infos = [_unescape(e.value) for e in at.info]
    assert any("could not be checked" in t for t in infos)


# ----------------------------------------------------------------------------- issue 25h
@pytest.mark.parametrize("lang, needle", [
    ("en", "p95 intervals need at least 100 queries (here 60)"),
    ("ko", "p95 신뢰구간은 질의가 100개 이상이어야 보여 줍니다 (지금 60개)"),
])
def test_demo_withholds_the_p95_interval_and_says_why_once(lang, needle):
    at = AppTest.from_file(PAGE, default_timeout=180)
    at.session_state["latency_quantile_resamples"] = 1000
    at.session_state["lang"] = lang
    at.run()
    assert not at.exception and not at.error
    captions = [_unescape(c.value) for c in at.caption]
    assert sum(needle in c for c in captions) == 1
    assert sum("[" in c and "p95" in c and "] ·" in c.split("p95", 1)[1] for c in captions) == 0
    table = at.table[0].value
    cols = [_unescape(c) for c in table.columns]
    p95_ci = [_unescape(str(v)) for v in table.iloc[:, 4]]
    assert cols[3] == "p95 (ms)" and cols[4].startswith("p95 95%") and p95_ci == ["—", "—"]
    assert all(_unescape(str(v)).startswith("[") for v in table.iloc[:, 2])  # median CI stays


def test_a_log_of_100_queries_x_5_runs_shows_the_p95_interval():
    rng = np.random.default_rng(3)
    base = rng.normal(np.log(30), 0.5, 100)
    rows = "".join(f"q{i},{m},{np.exp(b + rng.normal(0, 0.3)):.3f}\n"
                   for i, b in enumerate(base) for m in ("A", "B") for _ in range(5))
    at = _page()
    at.file_uploader(key="latency_upload").set_value(
        ("big.csv", ("query_id,method,latency_ms\n" + rows).encode(), "text/csv")).run()
    assert not at.exception and not at.error
    captions = [_unescape(c.value) for c in at.caption]
    assert not any("p95 intervals need" in c for c in captions)
    table = at.table[0].value
    assert _unescape(table.columns[4]).startswith("p95 95% CI")
    assert all(_unescape(str(v)).startswith("[") for v in table.iloc[:, 4])


@pytest.mark.parametrize("lang, answer, median, dropped, kept", [
    ("en", "typical query takes", "medians of all timings:", "left out (warm-up):",
     "(warm-up included):"),
    ("ko", "보통의 질의는", "중앙값의 비율:", "빼면 (워밍업):", "(워밍업 포함):")])
def test_one_answer_and_the_other_ratios_named_under_the_card(lang, answer, median, dropped,
                                                              kept):
    """Issue 37: card 1.46×, a tile 1.36 and an info box 2.01× with nothing saying which is the
    answer. The card's number is named as the answer under the card, the tile and the info box
    are labelled as what they are, and the line's numbers are the card's, the tile's and the
    info box's, which are core's (geometric mean of per-query ratios, ratio of medians, the
    warm-up reading); the same after the warm-up button, where the roles swap."""
    from core.latency import compare_latency
    from core.latency import load_timings

    log = load_timings((ROOT / "data" / "demo_latency.csv").read_bytes(), "demo_latency.csv")
    at = AppTest.from_file(PAGE, default_timeout=180)
    at.session_state["latency_quantile_resamples"] = 1000
    at.session_state["lang"] = lang
    at.run()
    for drop, other in ((0, dropped), (2, kept)):
        assert not at.exception and not at.error
        ref = compare_latency(log, "bm25", "hybrid", resamples=200, quantile_resamples=200,
                              drop_warmup=drop)
        card_value = float(re.search(r'class="verdict-value"[^>]*>([0-9.]+)×', _card(at))[1])
        lines = [_unescape(c.value) for c in at.caption if answer in _unescape(c.value)]
        assert len(lines) == 1
        line = lines[0]
        num = lambda after: float(re.search(re.escape(after) + r"\s*([0-9.]+)×", line)[1])  # noqa
        assert num(answer) == card_value
        assert card_value == pytest.approx(ref.ratio.geo_mean_ratio, abs=0.006)
        tile = next(m for m in at.metric if m.label.endswith("hybrid/bm25"))
        assert num(median) == float(tile.value.rstrip("×"))
        assert num(median) == pytest.approx(ref.ratio.median_ratio, abs=0.006)
        info = [_unescape(e.value) for e in at.info if "🔁" == e.proto.icon]
        assert len(info) == 1
        assert re.search(rf"\b{re.escape(f'{num(other):.2f}')}(×|배)", info[0])  # ko: 2.01배
        assert num(other) == pytest.approx(ref.alternative.geo_mean_ratio, abs=0.006)
        if drop == 0:
            at.button(key="latency_apply_warmup").click().run()
