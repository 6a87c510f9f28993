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


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_set_is_read_by_the_method_chosen(lang):
    """Issue 35: the set is Hsu's one-sided MCB by default; 'all pairs' gives the all-pairs
    set (every system whose rank interval starts at 1), core's answer for the same data, kept
    in the URL; the rank intervals are the same under both."""
    at = _page(lang)
    assert not at.exception and not at.error
    mcb = best_set(_scores(), resamples=RESAMPLES, seed=0)
    every = best_set(_scores(), resamples=RESAMPLES, seed=0, method="all-pairs")
    assert at.radio(key="systems_best_method").value == "mcb"
    assert best_sentence(mcb, lang) in _cards(at)[0]
    assert at.query_params.get("best") in (None, [])
    if lang == "ko":   # AppTest re-runs a Korean page only from state (as the BH test)
        at = _page("en")
        at.session_state["lang"] = "ko"
    at.session_state["systems_best_method"] = "all-pairs"
    at.run()
    assert not at.exception and not at.error
    head = _cards(at)[0]
    assert best_sentence(every, lang) in head
    assert list(every.best) == [r.name for r in every.ranks if r.rank_low == 1]
    for r in every.ranks:
        assert f"{r.name} {rank_text(r.rank_low, r.rank_high)}" in head
    assert at.query_params.get("best") in ("all-pairs", ["all-pairs"])


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_no_harm_of_the_chosen_pair(lang):
    """Issue 35: the hurt/helped shares and TRisk of the chosen A vs B are
    core.paired.harm.no_harm of that pair (scores: delta 0.05, settable; alpha selectable),
    the drill-down is linked, and the report's summary carries them."""
    from core.paired.harm import no_harm
    from core.views.harm import harm_lines
    at = _page(lang)
    assert not at.exception and not at.error
    scores = _scores()
    a, b = scores.columns[:2]
    both = scores[[a, b]].dropna()
    h = no_harm(both[a].to_numpy(), both[b].to_numpy(), resamples=RESAMPLES, seed=0)
    texts = [html.unescape(m.value) for m in at.markdown]
    for line in harm_lines(h, a, b, "score", lang):
        assert any(line.replace("−", "") in t.replace("\\", "").replace("−", "")
                   for t in texts), line
    assert any("(#systems-drill)" in t for t in texts) == (h.hurt > 0)
    if lang == "ko":   # AppTest re-runs a Korean page only from state (as the BH test)
        at = _page("en")
        at.session_state["lang"] = "ko"
    at.session_state["systems_alpha"] = 5
    at.session_state["systems_harm_delta"] = 0.1
    at.run()
    assert not at.exception
    h5 = no_harm(both[a].to_numpy(), both[b].to_numpy(), delta=0.1, alpha=5,
                 resamples=RESAMPLES, seed=0)
    texts = [html.unescape(m.value).replace("\\", "") for m in at.markdown]
    assert any(f"{h5.trisk:.2f}" in t and "α = 5" in t for t in texts)
    assert any(f"{h5.hurt}/{h5.n}" in t and "0.100" in t for t in texts)
