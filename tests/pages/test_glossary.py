"""Issue 13 item 4: every technical term on screen carries its one-sentence glossary entry as
hover help, in English and in Korean (AppTest reads the ``help`` of metrics, subheaders and
widgets)."""
import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]


def _glossary(lang):
    return json.loads((ROOT / "core" / "i18n" / lang / "glossary.json").read_text("utf-8"))


def _helps(at):
    """All hover texts on the page: metrics, headings, markdown, sliders, number inputs,
    selectboxes."""
    out = [m.help for m in at.metric]
    out += [h.proto.help for h in at.subheader]
    out += [md.proto.help for md in at.markdown]
    for kind in (at.slider, at.number_input, at.selectbox):
        out += [w.help for w in kind]
    return "\n".join(h for h in out if h)


def _page(name, lang):
    at = AppTest.from_file(str(ROOT / "pages" / f"{name}.py"), default_timeout=180)
    at.session_state["lang"] = lang
    return at.run()


# page -> the glossary terms its demo must explain on hover
TERMS = {
    "golden": ["wilson", "bootstrap", "pp", "mcnemar", "discordant", "randomization", "ttest",
               "cohens_dz"],
    "systems": ["bootstrap", "mcnemar", "discordant", "randomization", "cohens_dz", "holm"],
    "sample_size": ["wilson", "half_width", "pp", "mcnemar", "discordant", "ttest",
                    "cohens_dz"],
    "agreement": ["kappa", "rbo", "tau"],
}


@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("page", sorted(TERMS))
def test_terms_have_hover_help(page, lang):
    at = _page(page, lang)
    assert not at.exception, at.exception
    helps = _helps(at)
    gloss = _glossary(lang)
    missing = [t for t in TERMS[page] if gloss[t] not in helps]
    assert not missing, f"{page}/{lang}: no hover help for {missing}"
    if lang == "ko":  # the Korean page must not fall back to the English sentences
        english = _glossary("en")
        assert not [t for t in TERMS[page] if english[t] in helps]


def test_wilson_help_on_systems_tiles_when_binary():
    """The systems page explains the Wilson interval on a per-method tile when the measure is
    a 0/1 rate (the demo's success@k)."""
    at = AppTest.from_file(str(ROOT / "pages" / "systems.py"), default_timeout=180).run()
    binary = [m for m in at.metric if m.help and _glossary("en")["wilson"] in m.help]
    scores = [m for m in at.metric if m.help and _glossary("en")["calibrated_t"] in m.help]
    assert binary or len(scores) >= 2  # every per-method tile explains its interval
