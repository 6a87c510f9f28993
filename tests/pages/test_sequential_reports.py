"""Issue 33: with 'I look at this set more than once' on, the reports of the systems, Switch?
and scifact pages (and the golden page's) carry the confidence sequence: the report's first
section is the sequence's lines and chart, the summary JSON's ``sequential`` block is the
sequence, both computed again here from the per-case values the page hands to the report (the
data, not the page's objects), EN and KO. Off, neither is there."""
import shutil
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from core.i18n import t
from core.paired import sequential_block, sequential_compare
from core.views.sequential import quality_line, sequential_lines

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def reports(monkeypatch):
    """Every report_downloads call of the run: its sections, params, per-case frame, summary."""
    import pages._ui as ui
    calls = []
    real = ui.report_downloads

    def record(page, title, sections, **kw):
        calls.append({"page": page, "sections": sections, **kw})
        return real(page, title, sections, **kw)

    monkeypatch.setattr(ui, "report_downloads", record)
    return calls


def _open(page, lang, **query):
    at = AppTest.from_file(str(ROOT / "pages" / page), default_timeout=240)
    at.session_state["lang"] = lang
    at.query_params.update(query)
    return at


def _expected(call, a, b):
    """The sequence from the per-case values the page put in its report, at its level/seed."""
    cases = call["per_case"]
    level = float(str(call["params"]["confidence"]).rstrip("%")) / 100
    return sequential_compare(np.asarray(cases[a], float), np.asarray(cases[b], float), level,
                              seed=int(call["params"]["seed"]))


def _check_section(call, seq, a, b, lang, arrival=None, *, queries=False, extra=None):
    first = call["sections"][0]
    assert first.title == t("sequential.toggle", lang)
    lines = [x.strip() for x in sequential_lines(seq, a, b, arrival, lang, queries=queries)]
    assert first.text.split("\n")[:len(lines)] == lines
    if extra is not None:
        assert first.text.split("\n")[len(lines)] == extra.strip()
    assert first.chart is not None


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_systems_report_carries_the_sequence(lang, reports):
    at = _open("systems.py", lang, seq="1").run()
    assert not at.exception, at.exception
    call = reports[-1]
    a, b = call["params"]["a"], call["params"]["b"]
    seq = _expected(call, a, b)
    assert call["summary"]["sequential"] == sequential_block(seq)
    assert call["summary"]["sequential"]["order"]["by"] == "file_order"
    assert call["summary"]["verdict"] == seq.last.verdict   # as compare --sequential --json
    assert call["summary"]["verdict_fixed_n"] in ("b_better", "a_better", "no_difference")
    _check_section(call, seq, a, b, lang)


def test_systems_report_without_the_toggle_has_no_sequence(reports):
    at = _open("systems.py", "en").run()
    assert not at.exception, at.exception
    call = reports[-1]
    assert "sequential" not in call["summary"] and "verdict_fixed_n" not in call["summary"]
    assert all(s.title != t("sequential.toggle", "en") for s in call["sections"])


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_switch_report_carries_the_sequence_and_the_quality_line(lang, reports):
    from core.switch import DEFAULT_MAX_SLOWDOWN, decide_files
    at = _open("decide.py", lang, seq="1").run()
    assert not at.exception, at.exception
    call = reports[-1]
    a, b, p = call["params"]["a"], call["params"]["b"], call["params"]
    data = ROOT / "data"
    q, lat = data / "demo_switch_golden.csv", data / "demo_switch_latency.csv"
    margin = 0.02   # the page's default: 2 %p on 0/1 outcomes
    dec = decide_files(q.read_bytes(), q.name, lat.read_bytes(), lat.name, margin=margin,
                       max_slowdown=DEFAULT_MAX_SLOWDOWN, a=a, b=b,
                       confidence=float(p["confidence"].rstrip("%")) / 100,
                       resamples=p["resamples"], seed=p["seed"], interval=p["interval"],
                       sequential=True)
    assert call["summary"]["sequential"] == dec.to_dict()["sequential"]
    _check_section(call, dec.sequential, a, b, lang, dec.arrival,
                   extra=quality_line(dec.quality_condition, dec.kind, dec.margin, lang))
    _open("decide.py", lang).run()
    assert "sequential" not in reports[-1]["summary"]
    assert all(s.title != t("sequential.toggle", lang) for s in reports[-1]["sections"])


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_scifact_report_carries_the_sequence(lang, reports, tmp_path, monkeypatch):
    from tests.pages.test_scifact import TINY, settle
    dest = tmp_path / "scifact"
    shutil.copytree(TINY, dest)
    monkeypatch.setenv("NOISEFLOOR_BEIR_DIR", str(dest))
    at = settle(_open("scifact.py", lang, seq="1"))
    assert not at.exception, at.exception
    call = reports[-1]
    from core.views.scifact import NAMES
    a, b = call["params"]["a"], call["params"]["b"]
    seq = _expected(call, a, b)
    assert call["summary"]["sequential"] == sequential_block(seq, queries=True)
    assert call["summary"]["sequential"]["order"]["by"] == "query_order"
    _check_section(call, seq, NAMES[a], NAMES[b], lang, queries=True)
