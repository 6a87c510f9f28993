"""Hostile names in a real browser (issues 12 and 21): a golden-case file whose method names and
case ids hold Markdown images, links, ``:red[...]`` and HTML is shown literally, nothing is
fetched from outside the app's own server (the offline promise), and the per-case CSV download
has no cell that a spreadsheet would run as a formula. Issue 21: markup in every name and id
field of every page that takes uploads (method names with an empty cell, case ids, gold ids,
sheet names, run and file names, label source names, latency method names, BEIR dataset and
file names, corpus titles and doc ids of a BEIR folder) and no request may leave the app's
server. One server for the module: ``SERVER_ENV`` points the scifact page at a hostile copy
of the tiny BEIR fixture, generated here."""
from __future__ import annotations

import atexit
import csv
import io
import json
import re
import shutil
import tempfile
from pathlib import Path
from urllib.parse import urlparse

import pytest

from core.i18n import t
from tests.browser.helpers import ROOT, TIMEOUT_MS, _errors, _settle, _uploader, _url

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# 127.0.0.2 is never the app's server (which listens on 127.0.0.1) and any request to it
# is recorded before it could fail.
IMG = "![pic](http://127.0.0.2:9/tracker.png)"
A = f"**bold** {IMG}"
B = ":red[red] <img src='http://127.0.0.2:9/html.png'> [link](http://127.0.0.2:9/l)"
WJ = "\u2060"  # the invisible word joiner pages._ui.esc puts into bare URLs
IDS = ['=HYPERLINK("http://evil","x")', "+cmd|' /C calc'!A0", "@SUM(A1)", "-2+3"]


def _mark(tag: str) -> str:
    """Markup that would fetch ``http://127.0.0.2:9/<tag>`` three ways if it were rendered
    (Markdown image, HTML image, KaTeX with an image macro), plus bold text."""
    return (f"**zq{tag}** ![{tag}](http://127.0.0.2:9/{tag}.png) "
            f"<img src='http://127.0.0.2:9/{tag}h.png'> $\\href{{http://127.0.0.2:9/{tag}k}}{{k}}$")


def _hostile_beir() -> Path:
    """The tiny BEIR fixture with markup in every document title and doc id."""
    folder = Path(tempfile.mkdtemp(prefix="nf_hostile_beir_")) / "scifact"
    atexit.register(shutil.rmtree, folder.parent, True)
    shutil.copytree(ROOT / "tests" / "fixtures" / "beir_tiny", folder)
    rename = {}
    lines = []
    for line in (folder / "corpus.jsonl").read_text(encoding="utf-8").splitlines():
        doc = json.loads(line)
        rename[doc["_id"]] = f"{doc['_id']} ![i](http://127.0.0.2:9/id{doc['_id']}.png)"
        doc["_id"] = rename[doc["_id"]]
        doc["title"] = f"{doc['title']} " + _mark("title")
        lines.append(json.dumps(doc))
    (folder / "corpus.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    qrels = (folder / "qrels" / "test.tsv").read_text(encoding="utf-8").splitlines()
    out = [qrels[0]]
    for row in qrels[1:]:
        q, d, score = row.split("\t")
        out.append("\t".join([q, rename.get(d, d), score]))
    (folder / "qrels" / "test.tsv").write_text("\n".join(out) + "\n", encoding="utf-8")
    return folder


HOSTILE_BEIR = _hostile_beir()
SERVER_ENV = {"NOISEFLOOR_BEIR_DIR": str(HOSTILE_BEIR),
              "NOISEFLOOR_CACHE_DIR": str(HOSTILE_BEIR.parent / "cache")}


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
    _uploader(page).set_input_files(
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


# ----------------------------------------------------------------------------- issue 21
def _outside_recorder(page, server) -> list[str]:
    own = urlparse(server).netloc
    outside: list[str] = []

    def record(request):
        netloc = urlparse(request.url).netloc
        if netloc and netloc != own:
            outside.append(request.url)

    page.on("request", record)
    return outside


def _upload(page, files, index: int = 0) -> None:
    """Set ``files`` (payload dicts: any file name) on the page's ``index``-th uploader."""
    _uploader(page, index).set_input_files(files)


def _payload(name: str, data: bytes, mime: str = "text/csv") -> dict:
    return {"name": name, "mimeType": mime, "buffer": data}


def _csv(rows) -> bytes:
    buf = io.StringIO()
    csv.writer(buf).writerows(rows)
    return buf.getvalue().encode("utf-8")


def _xlsx(sheets: dict) -> bytes:
    import openpyxl

    wb = openpyxl.Workbook()
    wb.remove(wb.active)
    for title, rows in sheets.items():
        ws = wb.create_sheet(title)
        for row in rows:
            ws.append(row)
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


_CONTEXT = ("e => { let p = e; for (let k = 0; k < 8 && p; k++) { if (p.dataset && "
            "p.dataset.testid) return p.dataset.testid + ': ' + p.outerHTML.slice(0, 300); "
            "p = p.parentElement; } return e.outerHTML.slice(0, 300); }")


def _inert(page, outside: list[str], where: str) -> None:
    """Nothing on the page was made markup, nothing left the server, no error box."""
    _settle(page)
    page.wait_for_timeout(800)
    main = page.locator('[data-testid="stMain"]')
    bad = {"img": main.locator("img[src*='127.0.0.2']").count(),
           "a": main.locator("a[href*='127.0.0.2']").count(),
           "katex": main.locator(".katex").count(),
           # hostile bold/HTML text is a lone "zq..." word: an element holding only that
           # was made by the user's markup (the app's own bold may quote it, escaped)
           "bold": main.locator("strong, b, i, em").filter(
               has_text=re.compile(r"^\s*zq\w*\s*$")).count()}
    if any(bad.values()):
        found = main.locator("strong, b, i, em, .katex, img[src*='127.0.0.2'], "
                             "a[href*='127.0.0.2']")
        context = [found.nth(i).evaluate(_CONTEXT) for i in range(min(found.count(), 30))]
        raise AssertionError((where, bad, [c for c in context if "zq" in c or "127.0.0.2" in c
                                            or "katex" in c]))
    assert outside == [], (where, outside)


# sheet names cannot hold []:*?/\ and have at most 31 characters (Excel's rules): bold by
# underscores, an unclosed HTML tag and TeX only
SHEET = "__zqsheet__ <b>zq $x^2$"


def test_golden_sheet_names_are_inert(server, page):
    outside = _outside_recorder(page, server)
    page.goto(f"{server}/")
    _settle(page)
    rows = [["case_id", "A", "B"]] + [[f"c{i}", i % 2, (i // 2) % 2] for i in range(12)]
    _upload(page, [_payload("golden.xlsx", _xlsx({"<i>zq $y$": [["x"]], SHEET: rows}),
                            "application/vnd.openxmlformats-officedocument."
                            "spreadsheetml.sheet")])
    page.get_by_text("golden.xlsx").first.wait_for(timeout=TIMEOUT_MS)
    _inert(page, outside, "golden sheet")
    assert not _errors(page), _errors(page)
    assert page.get_by_text("<b>zq", exact=False).count() >= 1


def test_systems_lists_names_ids_and_empty_cells_are_inert(server, page):
    outside = _outside_recorder(page, server)
    page.goto(_url(server, "systems"))
    _settle(page)
    m1, m2, m3 = _mark("m1"), _mark("m2"), "plain"
    rows = [["case_id", "query", "gold_ids", m1, m2, m3]]
    for i in range(12):
        gold = f"d{i}"
        rows.append([f"{_mark('case')}{i}", f"q {i}", gold,
                     "" if i == 0 else f"d{i}|x{i}",  # one empty cell: the warning names m1
                     f"x{i}|d{i}", f"d{i}" if i % 3 else f"x{i}"])
    _upload(page, [_payload("lists.csv", _csv(rows))])
    page.get_by_text("lists.csv").first.wait_for(timeout=TIMEOUT_MS)
    _inert(page, outside, "systems lists")
    assert not _errors(page), _errors(page)
    main = page.locator('[data-testid="stMain"]')
    warnings = main.locator('[data-testid="stAlertContentWarning"]').all_inner_texts()
    assert any("![m1](http" in w.replace(WJ, "") for w in warnings), warnings
    # the same file as a workbook with a hostile sheet name
    page.goto(_url(server, "systems"))
    _settle(page)
    _upload(page, [_payload("lists.xlsx", _xlsx({SHEET: rows}), "application/vnd."
                            "openxmlformats-officedocument.spreadsheetml.sheet")])
    page.get_by_text("lists.xlsx").first.wait_for(timeout=TIMEOUT_MS)
    _inert(page, outside, "systems lists xlsx")


def test_systems_trec_run_names_and_query_ids_are_inert(server, page):
    outside = _outside_recorder(page, server)
    page.goto(_url(server, "systems", "?source=trec"))
    _settle(page)
    qids = [f"q{i}{_mark('qid')}".replace(" ", "_") for i in range(8)]
    qrels = "".join(f"{q} 0 d{i} 1\n" for i, q in enumerate(qids)).encode()
    runs = []
    for r, name in enumerate(("**zqrun** one", "<b>zqrun</b> two", "$zqrun$ three")):
        lines = "".join(f"{q} Q0 d{(i + r) % 8} 1 {2.0} x\n{q} Q0 d{i} 2 1.0 x\n"
                        for i, q in enumerate(qids))
        runs.append(_payload(f"{name}.run", lines.encode(), "text/plain"))
    _upload(page, [_payload("qrels.txt", qrels, "text/plain")], 0)
    _upload(page, runs, 1)
    page.get_by_text("qrels.txt").first.wait_for(timeout=TIMEOUT_MS)
    _inert(page, outside, "systems trec")


def test_agreement_source_names_are_inert(server, page):
    outside = _outside_recorder(page, server)
    page.goto(_url(server, "agreement"))
    _settle(page)
    src1, src2 = _mark("src") + " one", _mark("src") + " two"
    rows = [["query_id", "doc_id", "gold", src1, src2]]
    for q in range(6):
        for d in range(5):
            g = (q + d) % 3
            rows.append([f"q{q}", f"q{q}-d{d}", g, g if d else (g + 1) % 3, (g + d) % 3])
    _upload(page, [_payload("labels.csv", _csv(rows))], 0)
    page.get_by_text("labels.csv").first.wait_for(timeout=TIMEOUT_MS)
    _inert(page, outside, "agreement")
    assert not _errors(page), _errors(page)


def test_latency_method_names_are_inert(server, page):
    outside = _outside_recorder(page, server)
    page.goto(_url(server, "latency"))
    _settle(page)
    rows = [["query_id", "method", "run", "latency_ms"]]
    for q in range(30):
        for r in range(3):
            rows.append([f"q{q}", _mark("lat") + " A", r + 1, 80 + q % 7 + r])
            rows.append([f"q{q}", "<b>zqlat</b> B", r + 1, 95 + q % 5 + r])
    _upload(page, [_payload("timings.csv", _csv(rows))])
    page.get_by_text("timings.csv").first.wait_for(timeout=TIMEOUT_MS)
    _inert(page, outside, "latency")


def test_decide_method_names_are_inert(server, page):
    """The Switch? page: the same hostile method names in the quality file and the timing
    log (card, sentences, conditions table, chart titles)."""
    outside = _outside_recorder(page, server)
    page.goto(_url(server, "decide"))
    _settle(page)
    a, b = _mark("swa") + " A", "<b>zqswb</b> B"
    golden = [["case_id", a, b]] + [[f"c{i}", i % 2, (i // 2) % 2] for i in range(60)]
    rows = [["query_id", "method", "run", "latency_ms"]]
    for q in range(30):
        rows.append([f"q{q}", a, 1, 80 + q % 7])
        rows.append([f"q{q}", b, 1, 60 + q % 5])
    _upload(page, [_payload("quality.csv", _csv(golden))], 0)
    _settle(page)
    _upload(page, [_payload("timings.csv", _csv(rows))], 1)
    page.get_by_text("timings.csv").first.wait_for(timeout=TIMEOUT_MS)
    _inert(page, outside, "decide")


def test_beir_table_file_and_dataset_names_are_inert(server, page):
    outside = _outside_recorder(page, server)
    page.goto(_url(server, "beir_table"))
    _settle(page)
    rows = [["dataset", "ndcg@10"], ["scifact", 0.7], ["nfcorpus", 0.33],
            [_mark("ds"), 0.5]]
    _upload(page, [_payload("**zqfile** <b>zqfile</b> $f$.csv", _csv(rows))])
    page.get_by_text("<b>zqfile</b>", exact=False).first.wait_for(timeout=TIMEOUT_MS)
    _inert(page, outside, "beir_table")


def test_scifact_titles_and_doc_ids_are_inert(server, page):
    outside = _outside_recorder(page, server)
    page.goto(_url(server, "scifact"))
    _settle(page, 180_000)
    main = page.locator('[data-testid="stMain"]')
    main.locator('[data-testid="stTable"]').first.wait_for(timeout=180_000)
    assert main.get_by_text("![i](http", exact=False).count() >= 1  # a doc id, literal
    _inert(page, outside, "scifact")


# ----------------------------------------------------------------------------- issue 30
CTRL = "\x1b]0;t\x07\x1b[31m\x0b\x0c"  # ESC, BEL, VT, FF: vl-convert aborted the server on these


def _alive(server) -> None:
    import urllib.request

    with urllib.request.urlopen(f"{server}/_stcore/health", timeout=10) as r:
        assert r.read().strip() == b"ok"


def _card(page, where: str) -> None:
    page.locator('[data-testid="stMain"] .verdict-card').first.wait_for(timeout=TIMEOUT_MS)
    _settle(page)
    assert not _errors(page), (where, _errors(page))
    text = page.locator('[data-testid="stMain"]').inner_text()
    assert "new\\u001b]0;t\\u0007" in text, (where, "the ESC is not shown as its escape")
    assert "\x1b" not in text, where


def _downloads_visible(page, where: str) -> None:
    """Issue 30 item 5: every download button on the page can be seen and clicked, and none
    is present but hidden. The report's HTML download had a hover help (``help=``), which
    Streamlit 1.67 draws as two buttons, the second in a ``display: none`` box: the
    "download button present but hidden" found on the Switch? and systems pages (every
    page with a report had it). Every button inside a download widget is checked, hidden
    ones included, and each label names exactly one button."""
    widgets = page.locator('[data-testid="stDownloadButton"]')
    buttons = page.locator('[data-testid="stDownloadButton"] button')
    assert widgets.count() >= 2, where
    assert buttons.count() == widgets.count(), (where, buttons.count(), widgets.count())
    hidden = [buttons.nth(i).inner_text() for i in range(buttons.count())
              if not buttons.nth(i).is_visible()
              or buttons.nth(i).bounding_box()["width"] < 20]
    assert hidden == [], (where, hidden)
    for key in ("report.download_html", "report.download_summary"):
        named = page.get_by_role("button", name=t(key, "en"), include_hidden=True)
        assert named.count() == 1 and named.is_visible(), (where, key, named.count())


def test_control_characters_in_names_keep_the_server_up(server, browser, page):
    """Issue 30: a method name holding C0 controls on the golden, latency and Switch? pages
    (the report's chart-to-SVG step used to abort the whole server): each page shows its card
    with the controls made visible, the server answers its health check after each, and a
    second session still gets a page."""
    a, b = f"old{CTRL}A", f"new{CTRL}B"
    golden = [["case_id", a, b]] + [[f"c{i}", i % 2, (i // 3) % 2] for i in range(40)]
    timings = [["query_id", "method", "run", "latency_ms"]]
    for q in range(30):
        timings.append([f"q{q}", a, 1, 80 + q % 7])
        timings.append([f"q{q}", b, 1, 60 + q % 5])

    page.goto(f"{server}/")
    _settle(page)
    _upload(page, [_payload("ctrl.csv", _csv(golden))])
    _card(page, "golden")
    _alive(server)

    page.goto(_url(server, "latency"))
    _settle(page)
    _upload(page, [_payload("ctrl_timings.csv", _csv(timings))])
    page.get_by_text("ctrl_timings.csv").first.wait_for(timeout=TIMEOUT_MS)
    _card(page, "latency")
    _alive(server)

    page.goto(_url(server, "decide"))
    _settle(page)
    _upload(page, [_payload("ctrl_quality.csv", _csv(golden))], 0)
    _settle(page)
    _upload(page, [_payload("ctrl_timings.csv", _csv(timings))], 1)
    page.get_by_text("ctrl_timings.csv").first.wait_for(timeout=TIMEOUT_MS)
    _card(page, "decide")
    _alive(server)
    _downloads_visible(page, "decide")

    page.goto(_url(server, "systems"))
    _settle(page)
    _downloads_visible(page, "systems")

    other = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="en-US")
    try:
        second = other.new_page()
        second.set_default_timeout(TIMEOUT_MS)
        second.goto(f"{server}/")
        _settle(second)
        second.locator('[data-testid="stMain"] .verdict-card').first.wait_for(
            timeout=TIMEOUT_MS)
        assert not _errors(second), _errors(second)
    finally:
        other.close()
    _alive(server)
