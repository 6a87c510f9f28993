"""Shared pieces of the real-browser tests: a ``streamlit run app.py`` server on a free port,
headless Chromium (Debian's ``/usr/bin/chromium`` through Playwright; Playwright's own browser
download is never used), and helpers to wait for a page, read its errors and take screenshots.

Test modules import the helpers from here; ``conftest.py`` re-exports the fixtures so pytest
supplies them (``server``, ``browser``, ``page``) by name.
"""
from __future__ import annotations

import ast
import contextlib
import os
import shutil
import time
from pathlib import Path

import pytest

from bench.streamlit_server import CHROMIUM, CHROMIUM_ARGS, ServerFailed, streamlit_server
from core.i18n import catalog, t

ROOT = Path(__file__).resolve().parents[2]
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


@pytest.fixture(scope="session")
def app_servers(tmp_path_factory):
    """The session's ``streamlit run app.py`` servers (``bench.streamlit_server``, the one way
    the app is started for a browser, shared with ``bench/bench_first_verdict.py``): one per
    environment, started when a module first asks for it and stopped at the end, so modules
    with the same ``SERVER_ENV`` share one server (three for the six modules, not six)."""
    running: dict = {}
    with contextlib.ExitStack() as stack:
        def get(extra: dict) -> str:
            key = tuple(sorted(extra.items()))
            if key not in running:
                env = {k: v for k, v in os.environ.items() if k != "NOISEFLOOR_BEIR_DIR"}
                env.update(extra)
                log = tmp_path_factory.mktemp("streamlit") / "server.log"
                running[key] = stack.enter_context(streamlit_server(ROOT, log, env=env))[0]
            return running[key]
        yield get


@pytest.fixture(scope="module")
def server(app_servers, request):
    """The server for this module: a test module may set ``SERVER_ENV`` (a dict) to add
    environment variables, e.g. ``NOISEFLOOR_BEIR_DIR``; modules that set the same share it."""
    _need_browser()
    try:
        return app_servers(getattr(request.module, "SERVER_ENV", {}))
    except ServerFailed as exc:
        pytest.fail(str(exc))


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
                                    + ' [data-testid="stSpinner"], [data-testid="stProgress"]');
}"""


def _settle(pg, timeout_ms: int = TIMEOUT_MS) -> None:
    """Wait until a page has rendered and the script has stayed finished for a moment
    (a page may rerun right after its first run, e.g. when ``?lang=`` is written), with no
    progress bar left (the scifact page's steps and server encode: the page reruns when
    they end, and BM25's waiting card gives way to the verdict)."""
    pg.wait_for_selector('[data-testid="stMain"] h1', timeout=timeout_ms)
    deadline = time.monotonic() + timeout_ms / 1000
    quiet = 0
    while quiet < 4:
        if time.monotonic() > deadline:
            raise AssertionError(f"{pg.url} did not finish running within {timeout_ms} ms")
        quiet = 0 if pg.evaluate(_BUSY) else quiet + 1
        pg.wait_for_timeout(250)


def _uploader(pg, index: int = 0):
    """The page's ``index``-th file input (0: the page's main upload; the golden page's second
    one is "Cheap labels (optional)", issue 34), for ``set_input_files``."""
    return pg.locator('[data-testid="stFileUploader"] input[type="file"]').nth(index)


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
