"""core.inputs.text: the one normaliser of names, ids, labels and group values."""
import pytest

from core.inputs.text import CONTROLS, nfc, visible_controls


def test_nfc_joins_jamo_and_strips():
    assert nfc(" \u1112\u1161\u11ab ") == "한"


@pytest.mark.parametrize("raw, shown", [
    ("new\x1b]0;t\x07\x1b[31mB", r"new\u001b]0;t\u0007\u001b[31mB"),  # issue 30's name
    ("a\x00b\x0bc\x0cd", r"a\u0000b\u000bc\u000cd"),
    ("\x1fX", r"\u001fX"),  # \x1f is whitespace to str.strip: made visible before stripping
    ("a\x7fb", r"a\u007fb"),
    ("a\x85b\x9bc", r"a\u0085b\u009bc"),
    ("a\tb\nc", "a\tb\nc"),  # tab and newline are whitespace, kept inside
])
def test_nfc_makes_control_characters_visible(raw, shown):
    """Issue 30: no C0/C1 control character survives the door (vl-convert aborted the
    server on one ESC); each is written as its escape, as the CLI prints it, never dropped."""
    from core.__main__ import terminal_safe

    assert nfc(raw) == terminal_safe(raw.strip("\t\n\r "))
    assert nfc(raw) == shown
    assert not CONTROLS.search(nfc(raw))


def test_visible_controls_keeps_everything_else():
    text = "한 A\u200bB \t\n\r é ␛ \\"
    assert visible_controls(text) == text
    assert visible_controls("\x1b\x9f") == r"\u001b\u009f"
