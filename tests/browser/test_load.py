"""Load (issue 12): eight browser sessions at once, each uploading its own file in its own
language, must each see their own verdict and no error; thirty different uploads in one
session must not grow the server's memory (resident set size of the ``streamlit run``
process, read from /proc) by 150 MB or more. Timeouts are generous (a busy 2-core machine);
the assertions are not."""
from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlparse

import numpy as np
import pytest

from core.inputs.golden import load_golden
from core.inputs.systems import compare_golden
from core.i18n import t
from core.views.verdicts import comparison_verdict
from tests.browser import helpers
from tests.browser.helpers import _errors, _uploader

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LOAD_TIMEOUT_MS = 240_000
SESSIONS = 8
UPLOADS = 30
MAX_GROWTH_MB = 150
RESAMPLES = 2_000


def _golden_file(tmp_path: Path, i: int, n: int = 60) -> Path:
    """Session i's own file: its own method names, and every other file a clear winner."""
    rng = np.random.default_rng(1000 + i)
    new = (rng.random(n) < (0.9 if i % 2 == 0 else 0.6)).astype(int)
    old = (rng.random(n) < 0.55).astype(int)
    lines = [f"case_id,new{i},old{i}"] + [f"c{i}_{k},{a},{b}" for k, (a, b) in
                                         enumerate(zip(new, old))]
    path = tmp_path / f"session{i}.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _expected(path: Path, lang: str, resamples: int = 20_000) -> str:
    result = compare_golden(load_golden(path.read_bytes(), path.name), resamples=resamples,
                            confidence=0.95, seed=0)
    return comparison_verdict(result, lang)


def _server_pid(base: str) -> int:
    """The ``streamlit run`` process listening on the test server's port."""
    port = str(urlparse(base).port)
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        args = [a.decode(errors="replace") for a in argv]
        if "streamlit" in " ".join(args) and "--server.port" in args and \
                args[args.index("--server.port") + 1] == port:
            return int(entry.name)
    raise AssertionError(f"no streamlit process on port {port}")


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("VmRSS missing")


def _settle(pg, timeout_ms: int = LOAD_TIMEOUT_MS) -> None:
    """``helpers._settle`` with the load tests' longer deadline."""
    helpers._settle(pg, timeout_ms)


def _verdict_text(pg) -> str:
    card = pg.locator('[data-testid="stMain"] .verdict-card .verdict')
    return "\n".join(card.all_inner_texts())


def test_eight_sessions_at_once_each_see_their_own_verdict(server, browser, tmp_path):
    files = [_golden_file(tmp_path, i) for i in range(SESSIONS)]
    langs = ["en" if i % 2 == 0 else "ko" for i in range(SESSIONS)]
    expected = [_expected(f, lang) for f, lang in zip(files, langs)]
    assert len(set(expected)) == SESSIONS  # each verdict names its own methods
    contexts, pages = [], []
    try:
        for lang in langs:
            ctx = browser.new_context(viewport={"width": 1200, "height": 900})
            pg = ctx.new_page()
            pg.set_default_timeout(LOAD_TIMEOUT_MS)
            contexts.append(ctx)
            pages.append(pg)
            pg.goto(f"{server}/?lang={lang}", wait_until="commit")
        for pg in pages:
            _settle(pg)
        # all eight uploads go out before any result is awaited: the server runs them together
        for pg, f in zip(pages, files):
            _uploader(pg).set_input_files(
                str(f))
        for i, pg in enumerate(pages):
            pg.get_by_text(expected[i], exact=True).wait_for(timeout=LOAD_TIMEOUT_MS)
        for i, pg in enumerate(pages):
            _settle(pg)
            shown = _verdict_text(pg)
            assert expected[i] in shown, (i, shown)
            for j in range(SESSIONS):
                if j != i:
                    assert f"new{j}" not in shown, (i, j, shown)
            assert not _errors(pg), (i, _errors(pg))
            assert f"lang={langs[i]}" in pg.url, pg.url
            assert pg.get_by_text(f"session{i}.csv").count() >= 1
        print(f"\n{SESSIONS} concurrent sessions: each saw its own verdict and language")
    finally:
        for ctx in contexts:
            ctx.close()


def test_thirty_uploads_keep_server_memory_flat(server, page, tmp_path):
    pid = _server_pid(server)
    page.set_default_timeout(LOAD_TIMEOUT_MS)
    page.goto(f"{server}/?lang=en")
    _settle(page)
    # fewer resamples keep 30 analyses quick on a busy machine; memory is what is measured
    box = page.get_by_label(t("common.resamples", "en"))
    box.fill(str(RESAMPLES))
    box.press("Enter")
    _settle(page)
    uploader = _uploader(page)
    # warm-up: the first analysis loads libraries and fills caches once
    warm = _golden_file(tmp_path, 100)
    uploader.set_input_files(str(warm))
    page.get_by_text(_expected(warm, "en", RESAMPLES), exact=True).wait_for(
        timeout=LOAD_TIMEOUT_MS)
    _settle(page)
    before = _rss_mb(pid)
    peak = before
    for i in range(UPLOADS):
        f = _golden_file(tmp_path, 200 + i, n=40 + 7 * i)
        uploader.set_input_files(str(f))
        page.get_by_text(_expected(f, "en", RESAMPLES), exact=True).wait_for(
            timeout=LOAD_TIMEOUT_MS)
        _settle(page)
        assert not _errors(page), (i, _errors(page))
        peak = max(peak, _rss_mb(pid))
    after = _rss_mb(pid)
    growth = after - before
    print(f"\nserver RSS (pid {pid}): {before:.0f} MB after warm-up, {after:.0f} MB after "
          f"{UPLOADS} uploads (peak {peak:.0f} MB), growth {growth:+.0f} MB "
          f"(limit {MAX_GROWTH_MB} MB)")
    assert growth < MAX_GROWTH_MB, f"server memory grew {growth:.0f} MB over {UPLOADS} uploads"
    assert os.path.exists(f"/proc/{pid}")  # the same server served all of them
