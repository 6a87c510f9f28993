"""core.views.best_set: the sentence, the card, the table, the chart and the CLI lines of a
tied-for-best set, in English and Korean."""
import numpy as np
import pandas as pd
import pytest

from core.paired.best import best_set
from core.views.best_set import (best_card, best_lines, best_sentence, join_names, rank_chart,
                                 rank_text, ranks_display)
from core.views.cards import card_html


def _set(shifts, names=None, n=40, seed=0):
    rng = np.random.default_rng(seed)
    base = rng.random(n)
    names = names or [f"m{i}" for i in range(len(shifts))]
    df = pd.DataFrame({nm: base + s + rng.normal(0, 0.02, n) for nm, s in zip(names, shifts)})
    return best_set(df, resamples=500, seed=seed)


def test_the_issue_sentence():
    bs = _set([0.0, 0.3, 0.3], names=["BM25", "dense", "hybrid"])
    assert set(bs.best) == {"dense", "hybrid"}
    first, second = bs.best
    assert best_sentence(bs, "en") == \
        f"Best: {first} or {second} — cannot tell which; BM25 is behind both."
    ko = best_sentence(bs, "ko")
    assert "BM25" in ko and first in ko and "알 수 없습니다" in ko


@pytest.mark.parametrize("shifts,expected", [
    ([0.0, 0.0, 0.5], "Best: m2; m0 and m1 are behind it."),
    ([0.0, 0.5, 0.5, 0.5], None),  # three tied: "behind all of them"
    ([0.0, 0.0, 0.0], None),       # none behind
])
def test_sentences_by_shape(shifts, expected):
    bs = _set(shifts)
    text = best_sentence(bs, "en")
    if expected:
        assert text == expected
    elif bs.behind:
        assert text.endswith("m0 is behind all of them.") and len(bs.best) == 3
    else:
        assert text.startswith("Cannot tell which is best:") and len(bs.best) == 3


def test_card_and_html_escape_names():
    bs = _set([0.0, 0.5, 0.0], names=["<b>x</b>", "good & new", "old"])
    card = best_card(bs, "en")
    assert card.tone == "better" and card.value == "good & new"
    assert card.interval.startswith("Rank intervals: good & new 1")
    out = card_html(card)
    assert "<b>x</b>" not in out and "&lt;b&gt;x&lt;/b&gt;" in out
    tied = best_card(_set([0.0, 0.0, 0.0]), "ko")
    assert tied.tone == "neutral" and "순위 구간" in tied.interval


def test_table_chart_lines():
    bs = _set([0.0, 0.3, 0.3])
    table = ranks_display(bs, "en")
    assert list(table.columns) == ["system", "mean", "rank", "95% rank interval",
                                   "tied for best"]
    assert list(table["tied for best"]) == ["yes", "yes", "no"]
    assert list(table["95% rank interval"]) == ["1–2", "1–2", "3"]
    chart = rank_chart(bs, title="ranks").to_dict()
    assert chart["layer"][0]["mark"]["type"] == "bar"
    lines = best_lines(bs)
    assert any(line.startswith(" * ") for line in lines) and "m0" in lines[-1]
    assert join_names(["a", "b", "c"], "en", "or") == "a, b or c"
    assert join_names(["a", "b"], "ko", "or") == "a 또는 b"
    assert rank_text(2, 2) == "2" and rank_text(1, 3) == "1–3"


def test_whom_each_trails_when_not_behind_all():
    # C is 0.5 above A on every case; B sits halfway, +/-1 around it (se = 1/sqrt(40)): {C, B}
    # are tied for best, and A is behind C only (not shown behind B): not "behind both"
    x = np.random.default_rng(4).random(40)
    df = pd.DataFrame({"A": x, "B": x + 0.25 + np.tile([1.0, -1.0], 20), "C": x + 0.5})
    bs = best_set(df, resamples=1000, seed=0)
    assert set(bs.best) == {"B", "C"} and bs.behind == ("A",)
    a = next(r for r in bs.ranks if r.name == "A")
    assert a.behind_of == ("C",)
    first, second = bs.best
    assert best_sentence(bs, "en") == \
        f"Best: {first} or {second} — cannot tell which; A is behind C."
    assert best_sentence(bs, "ko").endswith("A: C보다 뒤처짐.")


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_card_and_the_cli_name_how_the_set_was_read(lang):
    """MCB (the default) and all-pairs (by name) say which they are, on the card and in the
    CLI lines; the numbers in the reason are the set's own."""
    rng = np.random.default_rng(4)
    base = rng.random(30)
    df = pd.DataFrame({f"m{i}": base + s + rng.normal(0, 0.05, 30)
                       for i, s in enumerate((0.0, 0.02, 0.04))})
    mcb, every = (best_set(df, resamples=400, seed=1, method=m) for m in ("mcb", "all-pairs"))
    card_m, card_a = best_card(mcb, lang), best_card(every, lang)
    assert card_m.reason != card_a.reason
    assert "Hsu" in card_m.reason and "30" in card_m.reason and "400" in card_m.reason
    assert "Hsu" not in card_a.reason
    assert "multiple comparisons with the best (Hsu)" in best_lines(mcb)[0]
    assert "all pairs" in best_lines(every)[0]
