"""NoiseFloor: is the difference real, or the noise of n cases?  Run: ``make run``.

Page config, shared session state, the language switch and navigation. The home page is the
golden-case comparison (``pages/golden.py``). Pages are listed in ``PAGE_ORDER``; a page
file that does not exist yet is simply not shown.
"""
from pathlib import Path

import streamlit as st

from core.i18n import LANGS
from pages._ui import PRESENT_CSS, page_setup, presenting, tr, uploader_css

ROOT = Path(__file__).parent
PAGE_ORDER = [  # (file stem, icon)
    ("golden", "⚖️"),
    ("systems", "🧮"),
    ("scifact", "🔬"),
    ("beir_table", "📊"),
    ("sample_size", "📐"),
    ("agreement", "🤝"),
    ("latency", "⏱️"),
    ("decide", "🔀"),
]
LANG_NAMES = {"en": "English", "ko": "한국어"}

st.set_page_config(page_title="NoiseFloor", page_icon="📏", layout="wide")
page_setup()


def _set_lang() -> None:
    """The toggle changed: switch the whole app's language and keep ``?lang=`` in sync.
    Clicking the selected option again deselects it; keep the current language then."""
    choice = st.session_state.get("app_lang_choice")
    if choice in LANGS:
        st.session_state["lang"] = choice
        st.query_params["lang"] = choice
    else:
        st.session_state["app_lang_choice"] = st.session_state["lang"]


def _set_view() -> None:
    """The presentation toggle changed: keep ``?view=present`` in sync."""
    if st.session_state.get("app_present"):
        st.query_params["view"] = "present"
    else:
        st.query_params.pop("view", None)


with st.sidebar:
    st.session_state.setdefault("app_lang_choice", st.session_state["lang"])
    st.segmented_control("Language / 언어", options=list(LANGS), key="app_lang_choice",
                         format_func=LANG_NAMES.get, on_change=_set_lang)
    if st.query_params.get("lang") != st.session_state["lang"]:
        st.query_params["lang"] = st.session_state["lang"]
    st.session_state.setdefault("app_present", st.query_params.get("view") == "present")
    st.toggle(tr("common.present_view"), key="app_present", on_change=_set_view,
              help=tr("common.present_help"))
if uploader_css(st.session_state["lang"]):
    st.markdown(uploader_css(st.session_state["lang"]), unsafe_allow_html=True)
if presenting():
    st.query_params["view"] = "present"
    st.markdown(PRESENT_CSS, unsafe_allow_html=True)

pages = [
    st.Page(str(ROOT / "pages" / f"{stem}.py"), title=tr(f"nav.{stem}"), icon=icon,
            url_path=stem, default=(stem == "golden"))
    for stem, icon in PAGE_ORDER
    if (ROOT / "pages" / f"{stem}.py").exists()
]
st.navigation(pages).run()
