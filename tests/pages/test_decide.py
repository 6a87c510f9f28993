"""The Switch? page under AppTest: the demo pair decides "switch" (EN and KO), the margin and
the largest slowdown change the answer as core.switch says, uploads with different method
names are refused naming both files, and the inconclusive card links the planner."""
import html
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from core.switch import decide_files
from core.views import format as fmt
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
    est, low = (fmt.diff(x, "rate") for x in (want.quality.mean, want.quality.ci_low))
    assert f"Switch: hybrid scores {est} vs rerank; at worst {low}, within the 2 %p you " \
        "allowed." in card
    # passed conditions read as inside their limits, never as misses (issue 37)
    table = next(t_.value for t_ in at.table if "against the limit" in list(t_.value.columns))
    cells = [re.sub(r"\\(.)", r"\1", c) for c in table["against the limit"]]
    assert cells == [f"inside by {100 * (want.quality.ci_low + 0.02):.1f} %p",
                     f"inside by {1.10 - want.ratio_high:.2f}×"]
    assert f"[{want.ratio_low:.2f}, {want.ratio_high:.2f}]" in card


def test_korean_and_a_tighter_margin_is_inconclusive_with_a_planner_link():
    at = _page("ko")
    assert not at.exception and "전환하세요" in _card(at)
    assert "대비 +" in _card(at) and "최악이라도" in _card(at)
    table = next(t_.value for t_ in at.table if "한계 대비" in list(t_.value.columns))
    assert all(c.endswith("여유") for c in table["한계 대비"])
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


# ----------------------------------------------------------------------------- issue 23 item 2
TREC = ROOT / "data" / "demo_trec"


def _fresh(lang="en", **state):
    at = AppTest.from_file(PAGE, default_timeout=180)
    at.session_state["lang"] = lang
    at.session_state["decide_resamples"] = 2000
    for key, value in state.items():
        at.session_state[key] = value
    return at.run()


def test_the_golden_page_keeps_its_upload_for_the_switch_page():
    at = AppTest.from_file(str(ROOT / "pages" / "golden.py"), default_timeout=180)
    at.session_state["golden_resamples"] = 2000
    at.run()
    assert at.session_state["golden_file"] is None   # the demo is not "loaded"
    at.file_uploader(key="golden_upload").set_value(
        ("quality.csv", golden_csv(CLOSE), "text/csv")).run()
    assert not at.exception
    assert at.session_state["golden_file"] == {"name": "quality.csv",
                                               "data": golden_csv(CLOSE)}


def test_the_latency_page_keeps_its_upload_for_the_switch_page():
    at = AppTest.from_file(str(ROOT / "pages" / "latency.py"), default_timeout=180)
    at.session_state["latency_resamples"] = 1000
    at.session_state["latency_quantile_resamples"] = 1000
    at.run()
    at.file_uploader(key="latency_upload").set_value(
        ("timings.csv", latency_csv(0.7), "text/csv")).run()
    assert not at.exception
    assert at.session_state["latency_file"]["name"] == "timings.csv"


@pytest.mark.parametrize("lang, word", [("en", "Do not switch"), ("ko", "전환하지 마세요")])
def test_files_loaded_on_the_golden_and_latency_pages_are_one_click(lang, word):
    """Both loaded on their pages: the Switch? page picks them by default (no upload) and
    decides on them, as core.switch.decide_files does."""
    at = _fresh(lang, golden_file={"name": "quality.csv", "data": golden_csv(CLOSE)},
                latency_file={"name": "timings.csv", "data": latency_csv(1.5)})
    assert not at.exception and not at.error
    assert at.radio(key="decide_quality_from").value == "golden"
    assert at.radio(key="decide_latency_from").value == "latency"
    assert any("quality.csv" in c.value for c in at.caption)
    card = _card(at)
    want = decide_files(golden_csv(CLOSE), "quality.csv", latency_csv(1.5), "timings.csv",
                        margin=0.02, resamples=2000)
    assert want.decision == "stay" and word in card
    assert f"[{want.ratio_low:.2f}, {want.ratio_high:.2f}]" in card
    at.radio(key="decide_quality_from").set_value("file").run()   # back to uploads: demo
    assert not at.exception and "hybrid" in _card(at)


def test_trec_runs_uploaded_here_and_the_systems_pages_runs():
    runs = [(n, (TREC / n).read_bytes()) for n in ("bm25.run", "dense.run")]
    qrels = (TREC / "qrels.txt").read_bytes()
    at = _page()
    at.radio(key="decide_format").set_value("trec").run()
    assert not at.exception
    at.file_uploader(key="decide_qrels_upload").set_value(("qrels.txt", qrels, "text/plain"))
    at.file_uploader(key="decide_runs_upload").set_value(
        [(n, d, "text/plain") for n, d in runs])
    at.file_uploader(key="decide_latency_upload").set_value(
        ("timings.csv", latency_csv(0.7, names=("bm25", "dense")), "text/csv")).run()
    assert not at.exception and not at.error
    at.number_input(key="decide_margin_score").set_value(0.2).run()
    assert not at.exception and not at.error
    want = decide_files(qrels, "qrels.txt", latency_csv(0.7, names=("bm25", "dense")),
                        "timings.csv", margin=0.2, quality_format="trec", runs=tuple(runs),
                        resamples=2000)
    card = _card(at)
    assert "Switch from bm25 to dense?" in card and want.decision == "switch"
    assert f"{want.quality.ci_low:.3f}" in card.replace("−", "-")
    assert at.query_params["format"] == "trec" and at.query_params["measure"] == "nDCG@10"
    # the same runs, loaded on the systems page
    at2 = _fresh(systems_file={"format": "trec", "name": "qrels.txt", "data": qrels,
                               "runs": tuple(runs), "measure": "nDCG@10", "k": 10},
                 latency_file={"name": "timings.csv",
                               "data": latency_csv(0.7, names=("bm25", "dense"))})
    assert at2.radio(key="decide_quality_from").value == "systems"
    at2.number_input(key="decide_margin_score").set_value(0.2).run()
    assert not at2.exception and _card(at2) == card


def _scifact_state():
    from tests.core.test_switch import _tables
    return {"tables": _tables(), "queries": tuple(f"q{i}" for i in range(60)),
            "metric": "ndcg@10", "collection": "scifact"}


@pytest.mark.parametrize("lang, word", [("en", "Switch from bm25 to dense?"),
                                        ("ko", "bm25에서 dense(으)로")])
def test_quality_from_the_scifact_pages_result(lang, word):
    from core.switch import decide_retrievers
    state = _scifact_state()
    lat = latency_csv(0.8, names=("bm25", "dense"))
    at = _fresh(lang, scifact_tables=state, latency_file={"name": "t.csv", "data": lat})
    at.radio(key="decide_quality_from").set_value("scifact").run()
    assert not at.exception and not at.error
    assert at.number_input(key="decide_margin_score").value == 0.02
    want = decide_retrievers(state["tables"], lat, "t.csv", margin=0.02,
                             queries=state["queries"], resamples=2000)
    card = _card(at)
    assert word in card and f"[{want.ratio_low:.2f}, {want.ratio_high:.2f}]" in card
    assert any("scifact" in c.value and "60" in c.value for c in at.caption)


def test_scifact_not_run_yet_says_so_and_shows_the_demo():
    at = _page()
    at.radio(key="decide_quality_from").set_value("scifact").run()
    assert not at.exception
    assert any("scifact" in i.value for i in at.info)
    assert "rerank" in _card(at) or "hybrid" in _card(at)


@pytest.mark.parametrize("lang, words", [
    ("en", ["queries would show that cand takes at most 1.20×", "you have 12"]),
    ("ko", ["쿼리 약", "현재 12개"])])
def test_an_unsure_speed_shows_the_queries_needed_on_the_card(lang, words):
    at = _fresh(lang, golden_file={"name": "q.csv", "data": golden_csv(CLOSE)},
                latency_file={"name": "l.csv", "data": latency_csv(1.05, n=12, noise=0.15)})
    at.number_input(key="decide_max_slowdown").set_value(1.2).run()
    assert not at.exception
    card = _card(at)
    assert all(w in card for w in words), card


def test_the_systems_page_keeps_its_trec_upload_for_the_switch_page():
    runs = [(n, (TREC / n).read_bytes()) for n in ("bm25.run", "dense.run")]
    at = AppTest.from_file(str(ROOT / "pages" / "systems.py"), default_timeout=180)
    at.session_state["systems_resamples"] = 1000
    at.run()
    assert at.session_state["systems_file"] is None   # the demo is not "loaded"
    at.segmented_control(key="systems_source").set_value("trec").run()
    at.file_uploader(key="systems_qrels_upload").set_value(
        ("qrels.txt", (TREC / "qrels.txt").read_bytes(), "text/plain"))
    at.file_uploader(key="systems_runs_upload").set_value(
        [(n, d, "text/plain") for n, d in runs]).run()
    assert not at.exception
    kept = at.session_state["systems_file"]
    assert (kept["format"], kept["name"], kept["measure"]) == ("trec", "qrels.txt", "nDCG@10")
    assert kept["runs"] == tuple(runs)


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_max_harm_adds_the_third_condition(lang):
    """A max-harm share turns the harm condition on: its row in the conditions table (the hurt
    share's bound and the share allowed, as core.switch computes them), the shares and TRisk
    below, and a limit below the hurt share's lower bound stops the switch, named on the card."""
    from core.paired import no_harm
    at = _page(lang)
    assert not at.exception
    tables = [t_.value for t_ in at.table]
    assert all(len(t_) == 2 for t_ in tables if t_.shape[1] == 5)  # off by default
    want = decide_files(DEMO_Q.read_bytes(), DEMO_Q.name, DEMO_L.read_bytes(), DEMO_L.name,
                        margin=0.02, resamples=2000, max_harm=0.5)
    h = want.harm
    at.number_input(key="decide_max_harm").set_value(50.0).run()
    assert not at.exception and not at.error
    table = next(t_.value for t_ in at.table if t_.value.shape == (3, 5))
    row = [re.sub(r"\\(.)", r"\1", str(c)) for c in table.iloc[2]]
    assert row[2] == fmt.pct(h.hurt_ci[1]) and row[3] == "50.0%"
    text = " ".join(m.value for m in at.markdown)
    assert f"{h.hurt}/{h.n}" in text and f"{h.trisk:.2f}" in text
    low = no_harm(*_demo_pair()).hurt_ci[0]
    assert low > 0.005
    at.number_input(key="decide_max_harm").set_value(round(100 * low / 2, 1) or 0.1).run()
    card = _card(at)
    assert ("Do not switch" in card and "hurts" in card) if lang == "en" else "나쁩니다" in card


def _demo_pair():
    """rerank (A) and hybrid (B) of the demo golden file, as the page's default pair."""
    import csv
    rows = list(csv.DictReader(DEMO_Q.read_text(encoding="utf-8").splitlines()))
    return [float(r["rerank"]) for r in rows], [float(r["hybrid"]) for r in rows]
