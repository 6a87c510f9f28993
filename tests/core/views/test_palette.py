"""core.views.palette: one colour per meaning; a verdict's tone follows which method won."""
import re

import pytest

from core.views import palette

HEX = re.compile(r"#[0-9a-f]{6}")


def test_every_colour_is_a_hex_code_and_tones_are_pairs():
    for name in ("PRIMARY", "DARK", "HIGHLIGHT", "REFERENCE", "MUTED", "POSITIVE", "TEXT",
                 "TABLE_HEADER"):
        assert HEX.fullmatch(getattr(palette, name)), name
    assert set(palette.TONES) == {"better", "worse", "neutral"}
    for accent, background in palette.TONES.values():
        assert HEX.fullmatch(accent) and HEX.fullmatch(background) and accent != background
    assert len({a for a, _ in palette.TONES.values()}) == 3


@pytest.mark.parametrize("verdict,tone", [("b_better", "better"), ("b_faster", "better"),
                                          ("a_better", "worse"), ("a_faster", "worse"),
                                          ("no_difference", "neutral")])
def test_tone_of_reads_b_as_the_new_method(verdict, tone):
    assert palette.tone_of(verdict) == tone


def test_tone_of_refuses_an_unknown_verdict():
    with pytest.raises(ValueError, match="verdict"):
        palette.tone_of("better")


def test_margin_tone():
    assert palette.margin_tone("non_inferior") == "better"
    assert palette.margin_tone("equivalent") == "better"
    assert palette.margin_tone("inferior") == "worse"
    assert palette.margin_tone("inconclusive") == "neutral"
    with pytest.raises(ValueError, match="verdict"):
        palette.margin_tone("b_better")
