"""core.views.format: one unit per measure kind (rates in %, differences in %p, scores with
three decimals) and the shared p-value and confidence-level formats."""
import math

import pytest

from core.views import format as fmt


def test_kind_of():
    assert fmt.kind_of(True) == "rate" and fmt.kind_of(False) == "score"


@pytest.mark.parametrize("x,kind,text", [(0.8387, "rate", "83.9%"), (0.8387, "score", "0.839"),
                                         (None, "rate", "n/a"), (math.nan, "score", "n/a")])
def test_value(x, kind, text):
    assert fmt.value(x, kind) == text


@pytest.mark.parametrize("x,kind,text", [(0.0645, "rate", "+6.5 %p"), (-0.0645, "rate", "-6.5 %p"),
                                         (0.0312, "score", "+0.031"), (None, "score", "n/a")])
def test_diff_is_signed(x, kind, text):
    assert fmt.diff(x, kind) == text


def test_interval_plain_and_signed():
    assert fmt.interval(0.05, 0.25, "rate") == "[5.0%, 25.0%]"
    assert fmt.interval(0.05, 0.25, "rate", signed=True) == "[+5.0 %p, +25.0 %p]"
    assert fmt.interval(0.512, 0.64, "score") == "[0.512, 0.640]"


def test_chart_scale_units_and_tooltips():
    assert (fmt.scale("rate"), fmt.scale("score")) == (100.0, 1.0)
    assert fmt.axis_unit("rate") == " (%)" and fmt.axis_unit("rate", difference=True) == " (%p)"
    assert fmt.axis_unit("score") == "" and fmt.axis_unit("score", difference=True) == ""
    assert fmt.tooltip_format("rate") == ".1f" and fmt.tooltip_format("score") == ".3f"


def test_unknown_kind_is_refused_everywhere():
    for f in (lambda: fmt.value(0.5, "percent"), lambda: fmt.diff(0.5, "x"),
              lambda: fmt.scale("x"), lambda: fmt.axis_unit("x"), lambda: fmt.tooltip_format("x")):
        with pytest.raises(ValueError, match="kind"):
            f()


def test_pct_pp_level():
    assert fmt.pct(0.8387) == "83.9%" and fmt.pct(0.5, 0) == "50%" and fmt.pct(None) == "n/a"
    assert fmt.pp(0.0645) == "+6.5 %p" and fmt.pp(-0.01, 2) == "-1.00 %p"
    assert [fmt.level(c) for c in (0.95, 0.9, 0.995)] == ["95%", "90%", "99.5%"]


def test_fmt_p_three_decimals_a_floor_and_not_applicable():
    assert fmt.fmt_p(0.04321) == "0.043" and fmt.fmt_p(1.0) == "1.000"
    assert "0.001" in fmt.fmt_p(0.0004) and fmt.fmt_p(0.0004).lstrip().startswith("<")
    assert fmt.fmt_p(None) == "n/a"


def test_p_text_reads_in_a_sentence():
    assert fmt.p_text(0.0321) == "p = 0.032" and fmt.p_text(0.0002) == "p < 0.001"
    assert fmt.p_text(None) == "p: n/a" and fmt.p_text(0.5, "p_Holm") == "p_Holm = 0.500"


def test_margin_is_unsigned_and_keeps_the_digits_a_person_set():
    assert fmt.margin(0.02, "rate") == "2.0 %p"
    assert fmt.margin(0.0025, "rate") == "0.25 %p"
    assert fmt.margin(0.05, "score") == "0.050"
    assert fmt.margin(0.0125, "score") == "0.0125"
    assert fmt.margin(0.0, "rate") == "0.0 %p"
