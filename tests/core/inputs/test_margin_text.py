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


def test_margin_answer_is_the_decision_for_text_and_number_alike():
    """One call for the page (a number on the difference's scale) and the CLI (the text
    typed): both give ``margin_decision``'s answer; no margin gives None."""
    import numpy as np

    from core.inputs.margin_text import margin_answer
    from core.paired import compare_paired, margin_decision

    rng = np.random.default_rng(5)
    a = (rng.random(60) < 0.6).astype(float)
    b = np.where(rng.random(60) < 0.85, a, 1 - a)
    rates = compare_paired(a, b, resamples=2000, seed=1)
    scores = compare_paired(rng.random(40), rng.random(40), resamples=2000, seed=1)
    assert margin_answer(rates, None) is None
    want = margin_decision(rates, 0.05)
    assert margin_answer(rates, "5pp") == want == margin_answer(rates, 0.05)
    assert margin_answer(rates, "0.05") == want
    assert margin_answer(scores, "0.1") == margin_decision(scores, 0.1) == margin_answer(scores, 0.1)
    with pytest.raises(InputError):   # read for the data's kind: a plain 2 of a rate is ambiguous
        margin_answer(rates, "2")
