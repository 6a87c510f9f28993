"""Hostile names in a real browser (issue 12): a golden-case file whose method names and case
ids hold Markdown images, links, ``:red[...]`` and HTML is shown literally, nothing is fetched
from outside the app's own server (the offline promise), and the per-case CSV download has
no cell that a spreadsheet would run as a formula."""
from __future__ import annotations

import csv
import io
from pathlib import Path
from urllib.parse import urlparse

import pytest

from core.i18n import t
from tests.browser.helpers import TIMEOUT_MS, _errors, _settle

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# 127.0.0.2 is never the app's server (which listens on 127.0.0.1) and any request to it
# is recorded before it could fail.
IMG = "![pic](http://127.0.0.2:9/tracker.png)"
A = f"**bold** {IMG}"
B = ":red[red] <img src='http://127.0.0.2:9/html.png'> [link](http://127.0.0.2:9/l)"
WJ = "\u2060"  # the invisible word joiner pages._ui.esc puts into bare URLs
IDS = ['=HYPERLINK("http://evil","x")', "+cmd|' /C calc'!A0", "@SUM(A1)", "-2+3"]


def _hostile_file(tmp_path: Path) -> Path:
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["case_id", A, B])
    for i in range(40):
        cid = IDS[i] if i < len(IDS) else f"![c{i}](http://127.0.0.2:9/c{i}.png)"
        w.writerow([cid, int(i % 5 != 0), int(i % 2 == 0)])
    path = tmp_path / "hostile.csv"
    path.write_text(buf.getvalue(), encoding="utf-8")
    return path


def test_hostile_names_are_literal_and_nothing_is_fetched_outside(server, page, tmp_path):
    own = urlparse(server).netloc
    outside: list[str] = []

    def record(request):
        netloc = urlparse(request.url).netloc
        if netloc and netloc != own:
            outside.append(request.url)

    page.on("request", record)
    page.goto(f"{server}/")
    _settle(page)
    page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(
        str(_hostile_file(tmp_path)))
    main = page.locator('[data-testid="stMain"]')
    page.get_by_text("hostile.csv").first.wait_for(timeout=TIMEOUT_MS)
    main.locator('[data-testid="stMetric"]').first.wait_for(timeout=TIMEOUT_MS)
    _settle(page)
    assert not _errors(page), _errors(page)

    # The method names are shown as typed: the literal text is on the page ...
    metric_labels = [x.replace(WJ, "") for x in
                     main.locator('[data-testid="stMetricLabel"]').all_inner_texts()]
    assert any(A in label for label in metric_labels), metric_labels
    assert any(B in label for label in metric_labels), metric_labels
    verdict = main.locator(".verdict-card .verdict").first.inner_text().replace(WJ, "")
    assert A in verdict and B in verdict, verdict
    # ... and nothing of it was turned into markup.
    imgs = main.locator("img[src*='127.0.0.2']")
    assert imgs.count() == 0, [imgs.nth(i).evaluate(
        "e => { let p = e; for (let k = 0; k < 8 && p; k++) { if (p.dataset && p.dataset.testid)"
        " return p.dataset.testid + ': ' + p.outerHTML.slice(0, 300); p = p.parentElement; }"
        " return e.outerHTML; }") for i in range(imgs.count())]
    links = main.locator("a[href*='127.0.0.2']")
    assert links.count() == 0, [links.nth(i).evaluate(
        "e => { let p = e; for (let k = 0; k < 8 && p; k++) { if (p.dataset && p.dataset.testid)"
        " return p.dataset.testid + ': ' + p.outerHTML.slice(0, 300); p = p.parentElement; }"
        " return e.outerHTML; }") for i in range(min(links.count(), 3))]
    assert main.locator("strong", has_text="bold").count() == 0
    page.wait_for_timeout(1000)
    assert outside == [], outside

    # The per-case CSV: formula-like ids prefixed with ', numbers unchanged.
    with page.expect_download(timeout=TIMEOUT_MS) as dl:
        page.get_by_role("button", name=t("report.download_cases", "en")).click()
    text = Path(dl.value.path()).read_bytes().decode("utf-8-sig")
    rows = list(csv.reader(io.StringIO(text, newline="")))
    ids = [r[0] for r in rows[1:]]
    for evil in IDS:
        assert "'" + evil in ids, (evil, ids[:6])
    assert not any(cell.startswith(("=", "+", "-", "@")) for r in rows for cell in r
                   if not _is_number(cell))
    assert outside == [], outside


def _is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True
