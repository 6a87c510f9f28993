"""Translations: one folder per language (``en/``, ``ko/``), one JSON file per namespace.

A key is ``"<namespace>.<name>"``: ``t("golden.title", "ko")`` reads ``ko/golden.json``'s
``"title"``. Templates use ``str.format`` fields (``{n}``). A key missing in a language falls
back to English, then to the key itself; ``tests/core/test_i18n.py`` checks both languages
carry the same keys and the same fields, and every key the code builds at run time.

Strict mode (``NOISEFLOOR_STRICT_I18N=1``, set for the whole test suite by
``tests/conftest.py``): an unknown key, a missing ``{field}`` or a template with fields
called without any raises ``TranslationError`` instead of showing the raw template, so a
user can never see "{n}" without a test failing first.
"""
from __future__ import annotations

import json
import os
import re
import string
from functools import lru_cache
from pathlib import Path

LANGS: tuple[str, ...] = ("en", "ko")
DEFAULT_LANG = "en"
STRICT_ENV = "NOISEFLOOR_STRICT_I18N"
_DIR = Path(__file__).parent


class TranslationError(KeyError):
    """An unknown key or a template that cannot be filled (strict mode only)."""


def strict() -> bool:
    """True when ``NOISEFLOOR_STRICT_I18N`` is ``1`` (the test suite sets it)."""
    return os.environ.get(STRICT_ENV, "") == "1"


@lru_cache(maxsize=4096)
def fields(template: str) -> frozenset[str]:
    """The ``{field}`` names of a template (``{{`` escapes excluded)."""
    return frozenset(f for _, f, _, _ in string.Formatter().parse(template) if f is not None)


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
    template = catalog(lang).get(key) or catalog(DEFAULT_LANG).get(key)
    if template is None:
        if strict():
            raise TranslationError(f"no translation for {key!r} (core/i18n/{lang}/)")
        return key
    if not params:
        if fields(template):
            if strict():
                raise TranslationError(f"{key!r} needs {sorted(fields(template))}, got none")
            return template
        return template.format() if "{" in template or "}" in template else template  # {{ -> {
    try:
        text = template.format(**params)
    except (KeyError, IndexError, ValueError) as exc:
        if strict():
            raise TranslationError(f"{key!r} in {lang} cannot be filled with "
                                   f"{sorted(params)}: {exc!r}") from None
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
