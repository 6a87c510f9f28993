"""Translations: one folder per language (``en/``, ``ko/``), one JSON file per namespace.

A key is ``"<namespace>.<name>"``: ``t("golden.title", "ko")`` reads ``ko/golden.json``'s
``"title"``. Templates use ``str.format`` fields (``{n}``). A key missing in a language falls
back to English, then to the key itself; ``tests/core/test_i18n.py`` checks both languages
carry the same keys and the same fields, and every key the code builds at run time.

Plurals are explicit keys, chosen by the ``count`` parameter (the CLDR categories, as in
i18next): English writes ``"rows_one": "{count} row has"`` and ``"rows_other": "{count} rows
have"``; Korean has one form, ``"rows_other"``. Code asks for the base key with ``count=n`` (``t("errors.blank_method", "en", count=1)``).

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


# CLDR plural categories used here: English "one" (exactly 1) and "other"; Korean only "other".
PLURAL_FORMS = ("one", "other")


def plural_category(lang: str, count: object) -> str:
    """The CLDR plural category of ``count`` in ``lang``: ``"one"`` for exactly 1 in English,
    ``"other"`` otherwise (Korean has no singular form). ``count`` may be an ``int``, a float
    or a formatted number such as ``"1,200"``."""
    if lang == "ko":
        return "other"
    try:
        number = float(str(count).replace(",", "").strip())
    except ValueError:
        return "other"
    return "one" if number == 1 else "other"


@lru_cache(maxsize=None)
def plural_groups() -> frozenset[str]:
    """The base keys of every plural group: English carries ``base_one`` and ``base_other``
    (Korean ``base_other`` only, so English names the groups)."""
    en = catalog(DEFAULT_LANG)
    return frozenset(k[: -len("_one")] for k in en
                     if k.endswith("_one") and f"{k[: -len('_one')]}_other" in en)


def plural_base(key: str) -> str | None:
    """``"ns.rows_one"`` / ``"ns.rows_other"`` -> ``"ns.rows"`` for a plural group; None for
    any other key (``"agreement.upload_other"`` is a plain key)."""
    for form in PLURAL_FORMS:
        if key.endswith(f"_{form}") and key[: -len(form) - 1] in plural_groups():
            return key[: -len(form) - 1]
    return None


def keys(lang: str) -> set[str]:
    """The keys code may ask for in ``lang``: plain keys, and the base of each plural group."""
    return {plural_base(k) or k for k in catalog(lang)}


def _template(key: str, lang: str, params: dict) -> str | None:
    cat = catalog(lang)
    if key in cat:
        return cat[key]
    if f"{key}_other" not in cat:
        return None
    if "count" not in params:
        if strict():
            raise TranslationError(f"{key!r} is a plural key: pass count=")
        return cat[f"{key}_other"]
    form = plural_category(lang, params["count"])
    return cat.get(f"{key}_{form}") or cat[f"{key}_other"]


def t(key: str, lang: str = DEFAULT_LANG, /, **params: object) -> str:
    """The template for ``key`` in ``lang``, filled with ``params``; for a plural key
    (``key_one`` / ``key_other`` in the catalog) the form is chosen by ``params["count"]``."""
    if lang not in LANGS:
        lang = DEFAULT_LANG
    template = _template(key, lang, params) or _template(key, DEFAULT_LANG, params)
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
        return template.format(**params)
    except (KeyError, IndexError, ValueError) as exc:
        if strict():
            raise TranslationError(f"{key!r} in {lang} cannot be filled with "
                                   f"{sorted(params)}: {exc!r}") from None
        return template
