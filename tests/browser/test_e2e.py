"""End to end in a real browser: ``streamlit run app.py`` on a free port, driven by headless
Chromium (Debian's ``/usr/bin/chromium`` through Playwright; Playwright's own browser download
is never used).

Visits every page in ``app.py``'s ``PAGE_ORDER``, uploads a CSV on the golden page, checks
the verdict, downloads the HTML report and opens it offline, switches to Korean, and saves
screenshots to ``docs/screenshots/tmp/`` (git-ignored; CI keeps them as artifacts). With
``NOISEFLOOR_SCREENSHOTS=1`` the README's screenshots in ``docs/screenshots/`` are rewritten.
"""
from __future__ import annotations

import ast
import hashlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from core.golden import compare_golden, load_golden
from core.i18n import catalog, t
from core.verdicts import comparison_verdict

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
FIXTURE = ROOT / "tests" / "fixtures" / "golden_upload.csv"
SHOTS = ROOT / "docs" / "screenshots"
ARTIFACTS = SHOTS / "tmp"
TIMEOUT_MS = 60_000


def _page_order() -> list[str]:
    """Stems in app.py's PAGE_ORDER whose page file exists (read without running app.py)."""
    tree = ast.parse((ROOT / "app.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(tg, "id", None) == "PAGE_ORDER"
                                                for tg in node.targets):
            stems = [stem for stem, _icon in ast.literal_eval(node.value)]
            return [s for s in stems if (ROOT / "pages" / f"{s}.py").exists()]
    raise AssertionError("app.py has no PAGE_ORDER")


def _url(base: str, stem: str, query: str = "") -> str:
    """The default page (golden) lives at ``/``; the others at ``/<stem>``."""
    return f"{base}/{'' if stem == 'golden' else stem}{query}"


def _need_browser() -> None:
    """Missing Chromium or Playwright: a failure on CI (which installs them), else a skip."""
    problem = None
    if not CHROMIUM.exists():
        problem = f"{CHROMIUM} is missing (apt-get install -y chromium)"
    else:
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError:
            problem = "the Python package playwright is not installed"
    if problem:
        if os.environ.get("CI"):
            pytest.fail(f"browser test cannot run on CI: {problem}")
        pytest.skip(f"browser test skipped: {problem}")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    _need_browser()
    port = _free_port()
    log_path = tmp_path_factory.mktemp("streamlit") / "server.log"
    log = open(log_path, "wb")
    env = {k: v for k, v in os.environ.items() if k != "NOISEFLOOR_BEIR_DIR"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
         "--server.headless", "true", "--server.address", "127.0.0.1",
         "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                pytest.fail(f"streamlit exited with {proc.returncode}:\n"
                            + log_path.read_text(errors="replace")[-3000:])
            try:
                with urllib.request.urlopen(f"{base}/_stcore/health", timeout=2) as r:
                    if r.read().strip() == b"ok":
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("streamlit did not answer /_stcore/health within 60 s")
            time.sleep(0.3)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        log.close()


@pytest.fixture(scope="module")
def browser(server):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture()
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True,
                                  locale="en-US")
    pg = context.new_page()
    pg.set_default_timeout(TIMEOUT_MS)
    yield pg
    context.close()


_BUSY = """() => {
    const app = document.querySelector('[data-testid="stApp"]');
    return !app || app.getAttribute('data-test-script-state') !== 'notRunning'
        || !!document.querySelector('[data-stale="true"], [data-testid="stSkeleton"],'
                                    + ' [data-testid="stSpinner"]');
}"""


def _settle(pg) -> None:
    """Wait until a page has rendered and the script has stayed finished for a moment
    (a page may rerun right after its first run, e.g. when ``?lang=`` is written)."""
    pg.wait_for_selector('[data-testid="stMain"] h1', timeout=TIMEOUT_MS)
    deadline = time.monotonic() + TIMEOUT_MS / 1000
    quiet = 0
    while quiet < 4:
        if time.monotonic() > deadline:
            raise AssertionError(f"{pg.url} did not finish running within {TIMEOUT_MS} ms")
        quiet = 0 if pg.evaluate(_BUSY) else quiet + 1
        pg.wait_for_timeout(250)


def _errors(pg) -> list[str]:
    """Texts of exception boxes and st.error boxes on the page."""
    boxes = pg.locator('[data-testid="stException"], '
                       '[data-testid="stAlertContentError"]')
    return [boxes.nth(i).inner_text() for i in range(boxes.count())]


def _shot(pg, name: str, readme: bool = False) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / name
    pg.locator('[data-testid="stMain"] h1').first.scroll_into_view_if_needed()
    pg.wait_for_timeout(200)
    pg.screenshot(path=str(path), full_page=False)
    assert path.stat().st_size > 10_000, f"{name} looks blank"
    if readme and os.environ.get("NOISEFLOOR_SCREENSHOTS") == "1":
        shutil.copyfile(path, SHOTS / name)


def _expected_verdicts():
    result = compare_golden(load_golden(FIXTURE.read_bytes(), FIXTURE.name), "baseline",
                            "reranker", resamples=20_000, confidence=0.95, seed=0)
    return {lang: comparison_verdict(result, lang) for lang in ("en", "ko")}


def test_fixture_verdict_is_better():
    en = _expected_verdicts()["en"]
    assert en.startswith("reranker is better than baseline"), en


def _through_app_py(pg) -> None:
    """app.py ran (not the page file alone): the language toggle and PAGE_ORDER's nav."""
    sidebar = pg.locator('[data-testid="stSidebar"]')
    assert sidebar.locator("button", has_text="한국어").count() == 1, "no language toggle"
    nav = pg.locator('[data-testid="stSidebarNav"]').inner_text()
    assert "ui" not in nav.split(), nav


def _page_problems(pg, stem: str, lang: str) -> list[str]:
    """What is wrong with the rendered page (empty list: nothing)."""
    problems = []
    if pg.get_by_text("Page not found").count():
        problems.append(f"{stem}: 'Page not found'")
    if _errors(pg):
        problems.append(f"{stem} ({lang}): error box {_errors(pg)}")
    title = pg.locator('[data-testid="stMain"] h1').first.inner_text().strip()
    key = f"{stem}.title"
    if key in catalog(lang) and title != t(key, lang):
        problems.append(f"{stem} ({lang}): title {title!r} is not {t(key, lang)!r}")
    if f"lang={lang}" not in pg.url:
        problems.append(f"{stem}: URL {pg.url} lost lang={lang}")
    if pg.get_by_text(t("common.how_to_read", lang), exact=True).count() == 0:
        problems.append(f"{stem} ({lang}): no '{t('common.how_to_read', lang)}' box")
    return problems


def test_every_page_renders_without_error(server, page):
    """The first request after the server starts is a deep link (``/<stem>``): the page
    must still run through app.py (see ``pages._ui._leave_legacy_pages_mode``)."""
    stems = _page_order()
    assert "golden" in stems
    problems = []
    for stem in sorted(stems, key=lambda s: s == "golden"):  # a deep link first, "/" last
        page.goto(_url(server, stem))
        _settle(page)
        _shot(page, f"{stem}_en.png")
        _through_app_py(page)
        problems += _page_problems(page, stem, "en")
    assert not problems, "\n".join(problems)


def test_golden_upload_report_and_korean(server, page, tmp_path):
    expected = _expected_verdicts()
    page.goto(f"{server}/")
    _settle(page)
    assert page.locator('[data-testid="stMain"] h1').first.inner_text() == \
        t("golden.title", "en")

    page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(
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
    assert lines[0] == "case_id,baseline,reranker,difference" and len(lines) == 41
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
    page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(str(bad))
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
