"""The systems page's tied-for-best headline (issue 24): with three or more systems the first
card is the set with each system's rank interval (core.paired.best), in English and Korean; the
pairs can be adjusted by Holm or Benjamini–Hochberg and the page says which error each
controls."""
import html
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from core.paired.best import best_set
from core.inputs.lists import load_lists, score_lists
from core.paired.multi import compare_many
from core.views.best_set import best_sentence, rank_text
from core.views.format import fmt_p
from tests.pages.headline import assert_headline_first

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "systems.py")
RESAMPLES = 1000


def _scores():
    return score_lists(load_lists((ROOT / "data" / "demo_lists.csv").read_bytes(),
                                  "demo_lists.csv"), 10).golden("ndcg@10").scores


def _page(lang="en"):
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.session_state["systems_resamples"] = RESAMPLES
    at.session_state["lang"] = lang
    return at.run()


def _cards(at):
    return [html.unescape(m.value) for m in at.markdown if "verdict-card" in m.value]


def _unescape(text):
    return re.sub(r"\\(.)", r"\1", text) if isinstance(text, str) else text


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_headline_is_the_tied_for_best_set(lang):
    at = _page(lang)
    assert not at.exception and not at.error
    assert_headline_first(at)
    ref = best_set(_scores(), resamples=RESAMPLES, seed=0)
    cards = _cards(at)
    assert len(cards) == 2  # the set first, then A vs B under its heading
    head = cards[0]
    assert best_sentence(ref, lang) in head
    assert ("Tied for best" if lang == "en" else "공동 1위 후보") in head
    for r in ref.ranks:  # every system's rank interval on the card
        assert f"{r.name} {rank_text(r.rank_low, r.rank_high)}" in head
    assert "−" in cards[1]  # the A vs B card: B − A
    # the rank table in the details: core's numbers, translated headers
    table = next(t.value.reset_index() for t in at.table
                 if any(("rank interval" in str(c)) or ("순위 구간" in str(c))
                        for c in t.value.columns))
    table = table.map(_unescape)
    assert list(table.iloc[:, 0]) == [r.name for r in ref.ranks]
    assert list(table.iloc[:, 3]) == [rank_text(r.rank_low, r.rank_high) for r in ref.ranks]


def test_two_systems_keep_the_paired_card(tmp_path):
    data = (b"case_id,query,gold_ids,A,B\n"
            + b"".join(f"q{i},x,d{i},d{i}|z,z|d{i}\n".encode() for i in range(12)))
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.session_state["systems_resamples"] = RESAMPLES
    at.run()
    at.file_uploader(key="systems_lists_upload").set_value(("two.csv", data, "text/csv"))
    at.run()
    assert not at.exception and not at.error
    cards = _cards(at)
    assert len(cards) == 1 and "B − A" in cards[0] and "Tied for best" not in cards[0]


@pytest.mark.parametrize("lang,needle", [("en", "false discovery rate"),
                                         ("ko", "거짓 발견율")])
def test_benjamini_hochberg_beside_holm(lang, needle):
    at = _page("en")
    assert any("family-wise error" in c.value for c in at.caption)
    if lang == "en":
        at.radio(key="systems_correction").set_value("bh").run()
    else:  # AppTest re-runs a Korean page only from state (its widgets' labels change)
        at.session_state["lang"] = "ko"
        at.session_state["systems_correction"] = "bh"
        at.run()
    assert not at.exception and not at.error
    assert any(needle in c.value for c in at.caption)
    assert any("Otero, Parapar & Barreiro" in c.value for c in at.caption)
    ref = compare_many(_scores(), resamples=RESAMPLES, seed=0, correction="bh")
    col = "p (BH)" if lang == "en" else "p (BH 보정)"
    frame = next(t.value.reset_index() for t in at.table
                 if any(col == _unescape(str(c)) for c in t.value.columns))
    frame.columns = [_unescape(c) for c in frame.columns]
    assert list(frame[col].map(_unescape)) == [fmt_p(p.p_adjusted) for p in ref.pairs]
    assert at.query_params.get("correction") in ("bh", ["bh"])


def test_presenting_shows_the_set_and_its_rank_chart():
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.session_state["systems_resamples"] = RESAMPLES
    at.query_params["view"] = "present"
    at.run()
    assert not at.exception
    cards = _cards(at)
    assert len(cards) == 1 and "Tied for best" in cards[0]
    charts = at.get("vega_lite_chart")
    assert len(charts) == 1
    assert "rank (1 = best)" in str(charts[0].proto.spec)


def test_the_report_carries_the_set():
    """The copies of the report's tables include the rank table; the report's card and summary
    are the set's (built by the same helpers as the page)."""
    at = _page()
    copies = "\n".join(c.value for c in at.code)
    ref = best_set(_scores(), resamples=RESAMPLES, seed=0)
    assert "rank interval" in copies
    for r in ref.ranks:
        assert r.name in copies
