"""Translations: both languages carry the same keys and {fields}, nothing is empty, and every
key the code names literally exists."""
import json
import re
import string
from pathlib import Path

import pytest

from core.i18n import DEFAULT_LANG, LANGS, catalog, t

ROOT = Path(__file__).resolve().parents[2]
I18N = ROOT / "core" / "i18n"
SOURCES = sorted([*ROOT.glob("app.py"), *(ROOT / "pages").rglob("*.py"),
                  *(ROOT / "core").rglob("*.py")])
# tr("ns.key"...), t("ns.key"...): a complete literal (not an f-string or a prefix + variable)
KEY_CALL = re.compile(r"""(?<![\w.])(?:tr|t)\(\s*(["'])([A-Za-z_]\w*\.\w+)\1\s*[,)]""")
ERROR_CODE = re.compile(r"""\bInputError\(\s*(["'])([\w.]+)\1""")


def _fields(template: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(template) if f is not None}


def _namespaces(lang):
    return {p.stem: p for p in (I18N / lang).glob("*.json")}


def test_same_namespace_files():
    assert set(_namespaces("en")) == set(_namespaces("ko"))


@pytest.mark.parametrize("lang", LANGS)
def test_files_are_flat_string_maps(lang):
    for ns, path in _namespaces(lang).items():
        data = json.loads(path.read_text(encoding="utf-8"))
        assert isinstance(data, dict), path
        for key, value in data.items():
            assert isinstance(value, str), f"{lang}/{ns}.json: {key} is not a string"
            assert value.strip(), f"{lang}/{ns}.json: {key} is empty"


def test_same_keys_in_every_language():
    keys = {lang: set(catalog(lang)) for lang in LANGS}
    for lang in LANGS:
        missing = keys[DEFAULT_LANG] - keys[lang]
        extra = keys[lang] - keys[DEFAULT_LANG]
        assert not missing, f"missing in {lang}: {sorted(missing)}"
        assert not extra, f"only in {lang}: {sorted(extra)}"


def test_same_fields_in_every_language():
    en = catalog("en")
    for lang in LANGS:
        other = catalog(lang)
        bad = [k for k in en if k in other and _fields(en[k]) != _fields(other[k])]
        assert not bad, f"{lang}: fields differ for {bad}"


def test_templates_are_valid_format_strings():
    for lang in LANGS:
        for key, template in catalog(lang).items():
            fields = _fields(template)
            assert all(re.fullmatch(r"[A-Za-z_]\w*", f) for f in fields), (lang, key, fields)
            template.format(**{f: "x" for f in fields})  # raises on a stray brace


def test_korean_is_actually_translated():
    """A Korean value may equal the English one only when it holds no lowercase English
    word (names such as 'Markdown', 'LaTeX', 'McNemar', or templates like '{a} − {b}')."""
    en, ko = catalog("en"), catalog("ko")
    untranslated = [k for k in en if ko.get(k) == en[k]
                    and re.search(r"\b[a-z]{4,}\b", re.sub(r"\{\w+\}", "", en[k]))]
    assert not untranslated, untranslated


def _literal_keys():
    found = []
    for path in SOURCES:
        text = path.read_text(encoding="utf-8")
        for m in KEY_CALL.finditer(text):
            found.append((path.relative_to(ROOT).as_posix(), m.group(2)))
        for m in ERROR_CODE.finditer(text):
            code = m.group(2)
            found.append((path.relative_to(ROOT).as_posix(),
                          code if "." in code else f"errors.{code}"))
    return found


def test_scan_finds_the_keys_it_should():
    keys = {k for _, k in _literal_keys()}
    assert {"golden.title", "common.how_to_read", "report.download_html",
            "errors.need_two_methods"} <= keys


def test_every_key_used_in_code_exists():
    en = catalog("en")
    missing = sorted({(f, k) for f, k in _literal_keys() if k not in en})
    assert not missing, f"keys used in code but not in core/i18n/en: {missing}"


def test_fallback_and_fields():
    assert t("golden.title", "ko") == catalog("ko")["golden.title"]
    assert t("no.such_key", "ko") == "no.such_key"
    assert "31" in t("verdicts.no_difference", "ko", level="95%", n=31, a="A", b="B")


def test_english_plurals_follow_the_count():
    from core.i18n import plurals
    assert plurals("1 row(s) have no id") == "1 row has no id"
    assert plurals("2 row(s) have no id") == "2 rows have no id"
    assert plurals("1 judged quer(ies) that are new") == "1 judged query that is new"
    assert plurals("1,200 quer(ies)") == "1,200 queries"
    assert plurals("0 duplicate id(s)") == "0 duplicate ids"
    assert t("systems.without_qrels", "en", run="r", count=1, ids="q") == \
        "'r' has 1 query that is not in the qrels; they are ignored: q"
    assert "(s)" not in t("golden.excluded", "en", total=1, missing=1, duplicates=0, blank=0,
                          ids="q1")
    # Korean has no plural forms to fix: its text is left as it is
    assert t("systems.without_qrels", "ko", run="r", count=1, ids="q") == \
        catalog("ko")["systems.without_qrels"].format(run="r", count=1, ids="q")
