"""The planner page's two added answers, under AppTest, EN and KO: 'I look at this set more
than once' (issue 33: the sequential verdict's simulated cases beside the fixed-n answer,
``core.paired.sequential_plan``, kept in the URL as ?seq=1) and cheap labels (issue 34: with N
cheap-labelled cases at correlation rho, the gold cases each answer needs,
``core.paired.gold_cases_needed``). Every number checked against core on the page's inputs,
and in the report's summary."""
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from core.i18n import t
from core.paired import gold_cases_needed, sequential_plan
from core.planning.sample_size import n_continuous_power, n_mcnemar
from core.views.format import pct
from core.views.sequential import plan_line

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "sample_size.py")


@pytest.fixture
def reports(monkeypatch):
    import pages._ui as ui
    calls = []
    real = ui.report_downloads

    def record(page, title, sections, **kw):
        calls.append({"sections": sections, **kw})
        return real(page, title, sections, **kw)

    monkeypatch.setattr(ui, "report_downloads", record)
    return calls


def _run(lang, **query):
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.session_state["lang"] = lang
    at.query_params.update(query)
    return at.run()


def _captions(at):
    return [c.value for c in at.caption]


def _plain(text):
    return text.replace("\\", "")


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_sequential_plan_beside_the_fixed_n_answer_paired(lang, reports):
    at = _run(lang, design="paired", disc="20", diff="5", seq="1")
    assert not at.exception and not at.error
    assert at.checkbox(key="sample_size_sequential").value is True
    assert at.query_params["seq"] in ("1", ["1"])
    plan = sequential_plan(0.05, discordance=0.2, confidence=0.95, power=0.8).to_dict()
    fixed = n_mcnemar(0.2, 0.05)
    caps = [_plain(c) for c in _captions(at)]
    want_seq = plan_line(plan, lang).strip()
    want_fixed = t("sample_size.seq_fixed", lang, n=f"{fixed:,}", power=pct(0.8, 0),
                   diff="5.0 %p")
    assert want_seq in caps and want_fixed in caps
    summary = reports[-1]["summary"]
    assert summary["sequential"] == {**plan, "fixed_n": fixed}
    assert plan["expected_n"] > 0 and plan["n_power"] > fixed   # the price of looking often
    section = [s for s in reports[-1]["sections"] if s.title == t("sample_size.seq_title", lang)]
    assert section and section[0].text == want_fixed + "\n" + want_seq


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_sequential_plan_for_scores(lang, reports):
    at = _run(lang, design="continuous", sigma="0.2", cdiff="5", seq="1")
    assert not at.exception and not at.error
    plan = sequential_plan(0.05, sigma=0.2, confidence=0.95, power=0.8).to_dict()
    caps = [_plain(c) for c in _captions(at)]
    assert plan_line(plan, lang).strip() in caps
    fixed = reports[-1]["summary"]["continuous"]["n_power"]
    assert fixed == n_continuous_power(0.05, 0.2, alpha=0.05, power=0.8)
    assert reports[-1]["summary"]["sequential"]["fixed_n"] == fixed


def test_sequential_off_by_default_and_needs_a_difference(reports):
    at = _run("en", design="paired", disc="20", diff="5")
    assert not at.exception and "sequential" not in reports[-1]["summary"]
    assert t("sample_size.seq_title", "en") not in [h.value for h in at.subheader]
    at = _run("en", design="paired", disc="20", diff="0", seq="1")
    assert not at.exception
    assert t("sample_size.seq_needs_diff", "en",
             design=t("sample_size.tab_paired", "en")) in _captions(at)
    assert "sequential" not in reports[-1]["summary"]


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_cheap_labels_line_for_every_answer(lang, reports):
    at = _run(lang, design="paired", disc="20", diff="5")
    assert t("sample_size.cheap_off", lang) in _captions(at)
    assert "cheap" not in reports[-1]["summary"]
    at.number_input(key="sample_size_cheap").set_value(500)
    at.number_input(key="sample_size_rho").set_value(0.8)
    at.run()
    assert not at.exception and not at.error
    summary = reports[-1]["summary"]
    block = summary["cheap"]
    # the gold-only answers are the plan's own numbers ...
    assert block["gold_only"][t("sample_size.n_wilson", lang)] == summary["rate"]["n_wilson"]
    paired_ci = [q for q in block["gold_only"] if q.startswith(
        t("sample_size.n_paired_ci", lang, target="5").split("5")[0])]
    assert paired_ci and block["gold_only"][paired_ci[0]] == summary["paired"]["n_ci"]
    caps = [_plain(c) for c in _captions(at)]
    for q, n0 in block["gold_only"].items():
        n = gold_cases_needed(n0, 500, 0.8)
        assert block["gold_needed"][q] == n and n < n0
        line = t("cheap.plan_line", lang, key=q, n_cheap="500", rho="0.8", n=f"{n:,}",
                 n0=f"{n0:,}")
        assert _plain(line) in caps
    section = [s for s in reports[-1]["sections"] if s.title == t("sample_size.cheap_title", lang)]
    assert section and len(section[0].text.split("\n")) == len(block["gold_only"])
