"""Translations: one folder per language (``en/``, ``ko/``), one JSON file per namespace.

A key is ``"<namespace>.<name>"``: ``t("golden.title", "ko")`` reads ``ko/golden.json``'s
``"title"``. Templates use ``str.format`` fields (``{n}``). A key missing in a language falls
back to English, then to the key itself; ``tests/core/test_i18n.py`` checks both languages
carry the same keys and the same fields.
"""
from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path

LANGS: tuple[str, ...] = ("en", "ko")
DEFAULT_LANG = "en"
_DIR = Path(__file__).parent


@lru_cache(maxsize=None)
def catalog(lang: str) -> dict[str, str]:
    """All templates of one language, flattened to ``namespace.key``."""
    if lang not in LANGS:
        raise ValueError(f"lang must be one of {LANGS}, got {lang!r}")
    out: dict[str, str] = {}
    for path in sorted((_DIR / lang).glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for key, value in data.items():
            out[f"{path.stem}.{key}"] = value
    return out


def t(key: str, lang: str = DEFAULT_LANG, /, **params: object) -> str:
    """The template for ``key`` in ``lang``, filled with ``params``."""
    if lang not in LANGS:
        lang = DEFAULT_LANG
    template = catalog(lang).get(key) or catalog(DEFAULT_LANG).get(key) or key
    if not params:
        return template
    try:
        text = template.format(**params)
    except (KeyError, IndexError, ValueError):
        return template
    return plurals(text) if lang == "en" else text


# "3 row(s) have", "1 judged quer(ies) that are": a count, up to two words, a noun with its
# plural ending in brackets, optionally the verb that agrees with it.
_PLURAL = re.compile(r"(?<![\w.])(\d[\d,]*)((?:\s+[A-Za-z'-]+){0,2}?\s+)([A-Za-z]+)"
                     r"\((s|es|ies)\)((?:\s+that)?\s+(?:have|are)\b)?")


def plurals(text: str) -> str:
    """English plural forms after a count: '1 row(s) have' -> '1 row has', '2 quer(ies)' ->
    '2 queries'. Templates keep the bracket form; the filled-in count decides."""
    def one(m: re.Match) -> str:
        singular = m.group(1) == "1"
        word, ending, verb = m.group(3), m.group(4), m.group(5) or ""
        if ending == "ies":
            word += "y" if singular else "ies"
        elif not singular:
            word += ending
        if singular and verb:
            verb = verb.replace("have", "has").replace("are", "is")
        return f"{m.group(1)}{m.group(2)}{word}{verb}"
    return _PLURAL.sub(one, text)
