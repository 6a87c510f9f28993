"""Translations: one folder per language (``en/``, ``ko/``), one JSON file per namespace.

A key is ``"<namespace>.<name>"``: ``t("golden.title", "ko")`` reads ``ko/golden.json``'s
``"title"``. Templates use ``str.format`` fields (``{n}``). A key missing in a language falls
back to English, then to the key itself; ``tests/core/test_i18n.py`` checks both languages
carry the same keys and the same fields.
"""
from __future__ import annotations

import json
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
        return template.format(**params)
    except (KeyError, IndexError, ValueError):
        return template
