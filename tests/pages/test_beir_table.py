"""The BEIR Table 2 page under AppTest: default tally, baseline switch, heatmap colour, SciFact
measured values from the session, uploads good and bad, Korean."""
from pathlib import Path

from streamlit.testing.v1 import AppTest

from core.retrieval.beir_grid import load_grid
from core.retrieval.beir_table import tally

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "beir_table.py")


def _page(**state):
    at = AppTest.from_file(PAGE, default_timeout=120)
    for key, value in state.items():
        at.session_state[key] = value
    return at.run()


def _all_text(at):
    parts = [e.value for kind in (at.markdown, at.caption, at.info, at.error, at.subheader)
             for e in kind]
    return "\n".join(str(p) for p in parts)


def test_default_tally_matches_core():
    at = _page()
    assert not at.exception and not at.error
    table = at.dataframe[0].value
    expected = tally(load_grid(), "BM25")
    assert list(table["Model"]) == [r.model for r in expected.rows]
    assert list(table["BM25 wins"]) == [r.baseline_wins for r in expected.rows]
    assert list(table["Model wins"]) == [r.model_wins for r in expected.rows]
    assert list(table["Sign test p"])[0] == "<0.001"
    text = _all_text(at)
    assert "10 of 18 datasets" in text and "HotpotQA, Signal-1M, Touche-2020" in text
    assert "per-query noise" in text            # the caution line
    assert "Thakur" in text and "2104.08663v4" in text   # citation from the data file
    assert "run the scifact live page to add measured values" in text
    # the generations story, computed: DPR and ANCE lose broadly, with their counts
    md = "\n".join(m.value for m in at.markdown)
    assert "Lose broadly to BM25" in md and "won 1, lost 17" in md
    assert at.get("download_button")  # the report downloads are there


def test_baseline_and_colour_switch():
    at = _page()
    at.selectbox(key="beir_table_baseline").set_value("docT5query").run()
    assert not at.exception
    table = at.dataframe[0].value
    assert "docT5query" not in list(table["Model"]) and "BM25" in list(table["Model"])
    bm25 = table[table["Model"] == "BM25"].iloc[0]
    assert (bm25["docT5query wins"], bm25["Model wins"]) == (12, 6)
    at.radio(key="beir_table_color").set_value("diff").run()
    assert not at.exception


def test_scifact_measured_values_are_inserted():
    at = _page(scifact_measured={"bm25": {"ndcg@10": 0.6717, "recall@100": 0.9},
                                 "dense": {"recall@100": 0.8},
                                 "hybrid": {"ndcg@10": 0.70}})
    assert not at.exception
    ranked = next(df.value for df in at.dataframe if "Rank" in df.value.columns)
    assert list(ranked["Retriever"][:3]) == ["hybrid", "docT5query", "bm25"]
    assert list(ranked["Source"][:3]) == ["measured", "paper", "measured"]
    assert "Measured in this session" in _all_text(at)
    assert "run the scifact live page" not in _all_text(at)


def test_upload_is_tallied_and_bad_names_are_reported():
    at = _page()
    at.file_uploader(key="beir_table_upload").set_value(
        ("mine.csv", b"dataset,ndcg@10\nscifact,0.672\nfiqa,0.25\nwebis-touche2020,0.30\n",
         "text/csv")).run()
    assert not at.exception and not at.error
    assert "mine.csv covers 3 of 18 datasets" in _all_text(at)
    own = next(df.value for df in at.dataframe if "mine.csv wins" in df.value.columns)
    bm25 = own[own["Model"] == "BM25"].iloc[0]
    assert (bm25["mine.csv wins"], bm25["Model wins"], bm25["Ties"]) == (2, 1, 0)
    at.file_uploader(key="beir_table_upload").set_value(
        ("bad.csv", b"dataset,ndcg@10\nscifact,0.6\nmsmarco,0.4\n", "text/csv")).run()
    assert not at.exception
    assert any("msmarco" in e.value and "row 3" in e.value for e in at.error)


def test_korean():
    at = _page(lang="ko")
    assert not at.exception
    assert "BM25 승" in at.dataframe[0].value.columns
    assert "1승 17패" in "\n".join(m.value for m in at.markdown)


def _card(at) -> str:
    cards = [m.value for m in at.markdown if "verdict-card" in m.value]
    assert len(cards) == 1
    return cards[0]


def test_card_states_the_tally_first():
    """Title, question, the card ('BM25 beats the best dense model (TAS-B) on 10 of 18'), then
    'How to read this', then the baseline choice; the numbers are the tally's."""
    import html
    from core.retrieval.beir_table import strongest_rival
    from tests.pages.headline import assert_headline_first
    at = _page()
    assert not at.exception
    assert_headline_first(at, first_input="selectbox")
    rival = strongest_rival(tally(load_grid(), "BM25"))
    card = html.unescape(_card(at))
    assert rival.model == "TAS-B" and (rival.baseline_wins, rival.model_wins) == (10, 8)
    assert (f"BM25 beats the best dense model (TAS-B) on {rival.baseline_wins} of 18 datasets "
            f"and loses on {rival.model_wins} (0 ties).") in card
    assert f"sign test p = {rival.sign_test_p:.3f}" in card and "no clear winner" in card
    assert "verdict-neutral" in card


def test_card_follows_the_baseline_and_the_link_keeps_it():
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.query_params["baseline"] = "DPR"
    at.query_params["colour"] = "diff"
    at.run()
    assert not at.exception
    assert at.selectbox(key="beir_table_baseline").value == "DPR"
    assert at.radio(key="beir_table_color").value == "diff"
    assert at.query_params["baseline"] == "DPR" and at.query_params["colour"] == "diff"
    # DPR is dense itself: its strongest dense rival beats it clearly -> green (B wins)
    card = _card(at)
    assert "verdict-better" in card and "clear lead for" in card


def test_korean_card():
    at = _page(lang="ko")
    assert not at.exception
    card = _card(at)
    assert "데이터셋 18개 중 10개에서 이기고" in card and "부호 검정" in card


def test_presentation_shows_the_card_and_the_tally_chart_only():
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.query_params["view"] = "present"
    at.run()
    assert not at.exception
    assert len(at.get("vega_lite_chart")) == 1 and not at.dataframe
    assert not at.expander and "verdict-card" in _card(at)
