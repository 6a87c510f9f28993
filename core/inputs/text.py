"""The one normaliser every name, id, label and group value read from a file passes through
(``nfc``; ``core.tables`` applies it to every header and cell, ``core.trec`` to run names
and, when the bytes hold a control character, to ids).

Two names that look the same are the same name ('한' typed as two jamo or as one syllable;
'A' and 'A' with a zero-width space), and no user string handed to a renderer holds a
character the renderer acts on instead of showing: vl-convert aborted the whole Streamlit
server on one ESC in a method name (issue 30), a terminal obeys ESC sequences. Each such
control character is replaced by its escape as text (``\\u001b``), never dropped, so the
name still shows that something was there.
"""
from __future__ import annotations

import re
import unicodedata

# Invisible characters that make two names look the same but differ: zero-width space,
# joiners, word joiner, BOM, soft hyphen, and the bidirectional controls (LRM/RLM, embeddings,
# overrides, isolates) that can also reorder what a name shows.
INVISIBLE = re.compile("[\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")


# Control characters a renderer or terminal acts on instead of showing: C0 but tab, newline
# and carriage return (whitespace, kept), DEL and C1. vl-convert aborted the whole server on
# one ESC in a method name (issue 30), so every cell and header is made safe here, once.
CONTROLS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def _visible(match: re.Match) -> str:
    return f"\\u{ord(match.group()):04x}"


def visible_controls(text: str) -> str:
    """``text`` with each control character in ``CONTROLS`` written as the six characters
    of its escape, ``\\u001b`` for ESC: the form the CLI prints them in
    (``core.__main__.terminal_safe``), so a name reads the same in the app, the report, the
    JSON and the terminal. Tab, newline and carriage return are kept."""
    return CONTROLS.sub(_visible, text)


def nfc(text: str) -> str:
    """Unicode NFC, zero-width and bidi-control characters removed, other control characters
    made visible (``visible_controls``), then stripped: '한' typed as two jamo and as one
    syllable become equal, 'A' and 'A\u200b' are one name, and 'A' + ESC + '[31m'
    reads 'A\\u001b[31m' everywhere (charts, the report, the JSON, the terminal)."""
    return visible_controls(INVISIBLE.sub("", unicodedata.normalize("NFC", str(text)))).strip()
