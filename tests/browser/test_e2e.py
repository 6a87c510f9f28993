"""End to end in a real browser (fixtures and helpers in ``tests/browser/conftest.py``).

Visits every page in ``app.py``'s ``PAGE_ORDER``, uploads a CSV on the golden page, checks
the verdict, downloads the HTML report and opens it offline, switches to Korean, and saves
screenshots to ``docs/screenshots/tmp/`` (git-ignored; CI keeps them as artifacts). With
``NOISEFLOOR_SCREENSHOTS=1`` the README's screenshots in ``docs/screenshots/`` are rewritten.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from pathlib import Path

import pytest

from core.inputs.golden import load_golden
from core.inputs.systems import compare_golden
from core.i18n import t
from core.views.verdicts import comparison_verdict
from tests.shared_data import TINY
from tests.browser.helpers import (ARTIFACTS, FIXTURE, SHOTS, TIMEOUT_MS, _errors, _page_order,
                                    _page_problems, _settle, _shot, _through_app_py, _uploader,
                                    _url)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# the scifact page reads the tiny fixture (seconds); the shipped copy (shipped document vectors)
# is covered by tests/pages/test_scifact_shipped.py
SERVER_ENV = {"NOISEFLOOR_BEIR_DIR": str(TINY)}


def _expected_verdicts():
    result = compare_golden(load_golden(FIXTURE.read_bytes(), FIXTURE.name), "baseline",
                            "reranker", resamples=20_000, confidence=0.95, seed=0)
    return {lang: comparison_verdict(result, lang) for lang in ("en", "ko")}


def test_fixture_verdict_is_better():
    en = _expected_verdicts()["en"]
    assert en.startswith("reranker is better than baseline"), en


def test_every_page_renders_without_error(server, page):
    """The first request after the server starts is a deep link (``/<stem>``): the page
    must still run through app.py (see ``pages._ui._leave_legacy_pages_mode``)."""
    stems = _page_order()
    assert "golden" in stems
    problems = []
    failed: list[str] = []   # every 4xx/5xx response and console error (issue 37)
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400
            else None)
    page.on("console", lambda m: failed.append(f"console: {m.text}") if m.type == "error"
            else None)
    for stem in sorted(stems, key=lambda s: s == "golden"):  # a deep link first, "/" last
        page.goto(_url(server, stem))
        _settle(page)
        _shot(page, f"{stem}_en.png")
        _through_app_py(page)
        problems += _page_problems(page, stem, "en")
    assert not problems, "\n".join(problems)
    # Opened at /<stem>, Streamlit's own frontend first probes /<stem>/_stcore/health and
    # /<stem>/_stcore/host-config (it tries the page's path as the server's base path, then
    # the root; streamlit/streamlit#7074, open upstream): two 404s per sub-path page, each
    # with its "Failed to load resource" line. Nothing else may fail.
    probes = {f"404 {server}/{stem}/_stcore/{what}" for stem in stems
              for what in ("health", "host-config")}
    known = "Failed to load resource: the server responded with a status of 404 (Not Found)"
    others = [f for f in failed if f not in probes and f != f"console: {known}"]
    assert not others, "\n".join(others)
    assert len([f for f in failed if f.startswith("console: ")]) == \
        len([f for f in failed if f in probes])


def test_golden_upload_report_and_korean(server, page, tmp_path):
    expected = _expected_verdicts()
    page.goto(f"{server}/")
    _settle(page)
    assert page.locator('[data-testid="stMain"] h1').first.inner_text() == \
        t("golden.title", "en")

    _uploader(page).set_input_files(
        str(FIXTURE))
    page.get_by_text(expected["en"], exact=True).wait_for(timeout=TIMEOUT_MS)
    _settle(page)
    assert not _errors(page), _errors(page)
    assert page.get_by_text(t("golden.demo_note", "en")).count() == 0
    _shot(page, "golden_en.png", readme=True)

    # The report: one HTML file with the verdict and the input's SHA-256, readable offline.
    with page.expect_download(timeout=TIMEOUT_MS) as dl:
        page.get_by_role("button", name=t("report.download_html", "en")).click()
    report_path = ARTIFACTS / "golden_report.html"
    dl.value.save_as(str(report_path))
    report = report_path.read_text(encoding="utf-8")
    assert expected["en"] in report
    assert hashlib.sha256(FIXTURE.read_bytes()).hexdigest() in report
    assert "golden_upload.csv" in report and report.count("<svg") == 2
    with page.expect_download(timeout=TIMEOUT_MS) as dl:
        page.get_by_role("button", name=t("report.download_cases", "en")).click()
    raw = Path(dl.value.path()).read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf"), "CSV without a BOM: Korean Excel garbles it"
    lines = raw.decode("utf-8-sig").splitlines()
    assert lines[0] == "case_id,baseline,reranker,b_minus_a" and len(lines) == 41
    rows = [ln.split(",") for ln in lines[1:]]
    assert all(float(r[3]) == float(r[2]) - float(r[1]) for r in rows)  # B − A per case
    with page.expect_download(timeout=TIMEOUT_MS) as dl:
        page.get_by_role("button", name=t("report.download_summary", "en")).click()
    summary = json.loads(Path(dl.value.path()).read_text(encoding="utf-8"))
    assert summary["n_cases"] == 40 and summary["verdict"] == "b_better"
    offline = page.context.browser.new_context(offline=True, java_script_enabled=False,
                                               viewport={"width": 1100, "height": 1400})
    try:
        rp = offline.new_page()
        rp.goto(report_path.as_uri())
        assert rp.locator(".verdict").inner_text() == expected["en"]
        assert rp.locator("svg").count() == 2
        rp.screenshot(path=str(ARTIFACTS / "golden_report.png"))
        if os.environ.get("NOISEFLOOR_SCREENSHOTS") == "1":
            shutil.copyfile(ARTIFACTS / "golden_report.png", SHOTS / "golden_report.png")
    finally:
        offline.close()

    # Korean: the sidebar toggle re-renders every label, keeps the upload, updates the URL.
    page.locator('[data-testid="stSidebar"] button', has_text="한국어").click()
    page.wait_for_url(re.compile(r"[?&]lang=ko\b"), timeout=TIMEOUT_MS)
    page.get_by_text(expected["ko"], exact=True).wait_for(timeout=TIMEOUT_MS)
    _settle(page)
    assert page.locator('[data-testid="stMain"] h1').first.inner_text() == \
        t("golden.title", "ko")
    sidebar = page.locator('[data-testid="stSidebar"]').inner_text()
    assert t("common.confidence", "ko") in sidebar and t("common.confidence", "en") not in sidebar
    assert page.get_by_role("button", name=t("report.download_html", "ko")).count() == 1
    assert not _errors(page), _errors(page)
    _shot(page, "golden_ko.png", readme=True)

    # The sidebar's page links keep ?lang=ko; every other page renders in Korean.
    others = [s for s in _page_order() if s != "golden"]
    problems = []
    if others:
        page.locator('[data-testid="stSidebarNav"] a',
                     has_text=t(f"nav.{others[0]}", "ko")).click()
        page.wait_for_url(re.compile(rf"/{others[0]}\b"), timeout=TIMEOUT_MS)
        _settle(page)
        problems += _page_problems(page, others[0], "ko")
    for stem in others:
        page.goto(_url(server, stem, "?lang=ko"))
        _settle(page)
        _shot(page, f"{stem}_ko.png")
        problems += _page_problems(page, stem, "ko")
    assert not problems, "\n".join(problems)


def test_bad_upload_shows_a_clear_error_and_app_keeps_running(server, page, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("case_id,A,B\nq1,1,0\nq2,maybe,1\nq3,0,1\n", encoding="utf-8")
    page.goto(f"{server}/")
    _settle(page)
    _uploader(page).set_input_files(str(bad))
    box = page.locator('[data-testid="stAlertContentError"]')
    box.first.wait_for(timeout=TIMEOUT_MS)
    text = box.first.inner_text()
    assert "bad.csv" in text and "row 3" in text and "'maybe'" in text, text
    assert page.locator('[data-testid="stException"]').count() == 0
    # still alive: the language toggle still works after the error
    page.locator('[data-testid="stSidebar"] button', has_text="한국어").click()
    page.wait_for_url(re.compile(r"[?&]lang=ko\b"), timeout=TIMEOUT_MS)
    page.get_by_text("3행").first.wait_for(timeout=TIMEOUT_MS)
    _shot(page, "golden_error_ko.png")
