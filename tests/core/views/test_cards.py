"""core.views.cards: the card shows B − A as core computed it, coloured by who won, and is
rendered as escaped HTML (user text never becomes markup)."""
import html

import numpy as np
import pytest

from core.paired.compare import compare_paired
from core.views import format as fmt
from core.views.cards import (AGREEMENT_TONES, VerdictCard, agreement_card, card_html,
                              paired_card)
from core.views.palette import TONES


def _comparison(pb=0.75):
    u = np.random.default_rng(0).random(200)
    return compare_paired((u < 0.55).astype(float), (u < pb).astype(float), name_a="old",
                          name_b="new", resamples=2000)


def test_paired_card_headline_is_b_minus_a_with_its_ci():
    c = _comparison()
    bs = c.bootstrap
    card = paired_card(c.verdict, a=c.a, b=c.b, mean=bs.mean, ci_low=bs.ci_low,
                       ci_high=bs.ci_high, confidence=0.95, kind="rate", sentence="s.")
    assert card.label == "new − old" and card.tone == "better"
    assert card.value == fmt.diff(bs.mean, "rate") and card.value.startswith("+")
    assert card.interval == f"95% CI {fmt.interval(bs.ci_low, bs.ci_high, 'rate', signed=True)}"
    assert card.to_dict()["sentence"] == "s."
    with pytest.raises(ValueError):
        paired_card("b_better", a="a", b="b", mean=0, ci_low=0, ci_high=0, confidence=0.95,
                    kind="rate", sentence="")


def test_tones_follow_the_verdict():
    for verdict, tone in (("a_better", "worse"), ("no_difference", "neutral")):
        card = paired_card(verdict, a="A", b="B", mean=0.1, ci_low=0.0, ci_high=0.2,
                           confidence=0.9, kind="score", sentence="x")
        assert card.tone == tone and card.interval.startswith("90% CI")
    with pytest.raises(ValueError, match="tone"):
        VerdictCard("great", "l", "v", "i", "s")


@pytest.mark.parametrize("band,tone", [("almost_perfect", "better"), ("moderate", "neutral"),
                                       ("slight", "worse"), (None, "neutral")])
def test_agreement_card_tone_from_the_kappa_band(band, tone):
    card = agreement_card(band, label="kappa", kappa=0.55, ci_low=0.4, ci_high=0.7,
                          confidence=0.95, sentence="s")
    assert card.tone == tone and card.value == "0.550"
    assert card.interval == "95% CI [0.400, 0.700]"
    assert set(AGREEMENT_TONES.values()) <= set(TONES)


def test_card_html_escapes_user_text_and_uses_the_tone_colour():
    card = VerdictCard("better", "<b>new</b> − old", "+5.0 %p", "95% CI [+1.0 %p, +9.0 %p]",
                       "<script>alert(1)</script>", reason="a & b")
    html = card_html(card)
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "&lt;b&gt;new&lt;/b&gt;" in html and "a &amp; b" in html
    assert TONES["better"][0] in html and 'class="verdict"' in html
    assert "3.4rem" in card_html(card, large=True) and "3.4rem" not in html
    assert "verdict-reason" not in card_html(VerdictCard("neutral", "l", "v", "i", "s"))


def test_card_with_a_margin_takes_its_tone_and_draws_the_band():
    from core.paired.margin import margin_decision
    from core.planning.noninferiority import card_next_step
    from core.views.paired import paired_view
    a = np.array([1] * 20 + [1] * 2 + [0] * 6 + [0] * 8)
    b = np.array([1] * 20 + [0] * 2 + [1] * 6 + [0] * 8)
    c = compare_paired(a, b, resamples=1_000)
    plain = paired_view(c, plan=card_next_step(c))
    assert plain.card.margin == "" and plain.card.band is None
    assert "verdict-band" not in card_html(plain.card)
    for m, tone in ((0.15, "better"), (0.05, "neutral")):
        r = margin_decision(c, m)
        card = paired_view(c, plan=card_next_step(c, r), margin=r).card
        assert card.tone == tone and card.margin
        html_ = card_html(card)
        assert 'class="verdict-band"' in html_ and 'class="verdict verdict-margin"' in html_
        assert f"−{fmt.margin(m, 'rate')}" in html_
        # the card answers the margin's question: its sentence replaces the superiority one
        assert html.escape(card.margin) in html_ and html.escape(card.sentence) not in html_
        # the strip places -margin left of 0 and the CI inside it
        band = card.band
        assert band.position(-band.margin) < band.position(0.0) < band.position(band.margin)
        assert 0 <= band.position(band.ci_low) and band.position(band.ci_high) <= 100
    # a hostile method name stays text
    r = margin_decision(c, 0.15)
    card = paired_view(c, plan=card_next_step(c, r), names={"B": "<b>x</b>"}, margin=r).card
    assert "<b>x</b>" not in card_html(card) and "&lt;b&gt;x&lt;/b&gt;" in card_html(card)


def test_card_best_line_is_escaped_and_only_drawn_when_given():
    plain = VerdictCard("neutral", "l", "v", "i", "s")
    assert "verdict-best" not in card_html(plain) and plain.to_dict()["best"] == ""
    card = VerdictCard("neutral", "l", "v", "i", "s", best="Best: <i>x</i> or y")
    out = card_html(card)
    assert 'class="verdict-best"' in out and "Best: &lt;i&gt;x&lt;/i&gt; or y" in out
    assert out.index('class="verdict"') < out.index("verdict-best")  # under the sentence
    assert card.to_dict()["best"] == "Best: <i>x</i> or y"


def test_caveats_line_is_escaped_and_last_in_the_card():
    card = VerdictCard(tone="worse", label="B / A", value="1.46×", interval="95% CI [1.3, 1.8]",
                       sentence="B is slower.", reason="p < 0.001",
                       caveats="warm-up in <b>bm25</b>; cache hits: 22% of bm25")
    out = card_html(card)
    assert 'class="verdict-caveats"' in out
    assert "warm-up in &lt;b&gt;bm25&lt;/b&gt;; cache hits: 22% of bm25" in out
    assert out.index("verdict-reason") < out.index("verdict-caveats")
    assert card.to_dict()["caveats"] == card.caveats
    assert "verdict-caveats" not in card_html(VerdictCard(tone="better", label="l", value="v",
                                                          interval="", sentence="s"))
