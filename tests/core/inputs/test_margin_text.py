"""core.inputs.margin_text: the margin as people type it (shares, %p suffixes, decimal commas),
and the refusals that name what was typed."""
import pytest

from core.errors import InputError
from core.inputs.margin_text import parse_margin


@pytest.mark.parametrize("text,binary,want", [
    ("0.02", True, 0.02), ("2pp", True, 0.02), ("2 %p", True, 0.02), ("2%", True, 0.02),
    ("0,02", True, 0.02), ("0.5pp", True, 0.005), ("0", True, 0.0), ("2", False, 2.0),
    ("0.03", False, 0.03), ("25PP", True, 0.25)])
def test_parse_margin_reads(text, binary, want):
    assert parse_margin(text, binary=binary) == pytest.approx(want)


@pytest.mark.parametrize("text,binary,code", [
    ("2", True, "margin.err_ambiguous"), ("0.5", True, "margin.err_ambiguous"),
    ("2pp", False, "margin.err_pp_score"), ("abc", True, "margin.err_not_number"),
    ("-0.01", False, "margin.err_not_number"), ("nan", False, "margin.err_not_number"),
    ("100pp", True, "margin.err_too_large")])
def test_parse_margin_refuses(text, binary, code):
    with pytest.raises(InputError) as err:
        parse_margin(text, binary=binary)
    assert err.value.code == code
    assert text.strip() in str(err.value)
