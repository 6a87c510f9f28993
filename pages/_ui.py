"""Shared page helpers: session defaults, language, translated text, error display.

Pages import from here; every page calls ``page_setup()`` first so it also runs on its own
(for example under ``AppTest.from_file("pages/golden.py")``).
"""
from __future__ import annotations

import hashlib

import streamlit as st

from core.errors import InputError
from core.i18n import DEFAULT_LANG, LANGS, t

# Shared state, set up once: pages read these keys; the page that owns one writes it.
SESSION_DEFAULTS = {
    "lang": None,                # "en" | "ko"; from ?lang= on first load
    "golden_set": None,          # core.golden.GoldenSet loaded on the golden page
    "golden_comparison": None,   # core.golden.GoldenComparison last shown there
    "scifact_measured": None,    # {"retriever": {"ndcg@10": ...}} from the scifact page
}


def current_lang() -> str:
    lang = st.session_state.get("lang")
    if lang in LANGS:
        return lang
    q = st.query_params.get("lang", DEFAULT_LANG)
    return q if q in LANGS else DEFAULT_LANG


def page_setup() -> str:
    """Set session defaults (idempotent) and return the current language."""
    for key, value in SESSION_DEFAULTS.items():
        st.session_state.setdefault(key, value)
    if st.session_state["lang"] not in LANGS:
        st.session_state["lang"] = current_lang()
    return st.session_state["lang"]


def tr(key: str, **params) -> str:
    """``core.i18n.t`` in the session's language."""
    return t(key, current_lang(), **params)


def show_error(exc: Exception) -> None:
    """A clear error box; the page keeps running."""
    if isinstance(exc, InputError):
        st.error(exc.message(current_lang()), icon="⚠️")
    else:
        st.error(f"{type(exc).__name__}: {exc}", icon="⚠️")


def how_to_read(key: str, **params) -> None:
    """The page's 'How to read this' box for non-engineers (markdown from i18n)."""
    with st.expander(tr("common.how_to_read"), expanded=False):
        st.markdown(tr(key, **params))


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
