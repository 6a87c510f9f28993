"""Issue 13 in a real browser: the verdict card as the headline (colours by tone), the
presentation view at 1280×720, shareable URL state, chart texts that fit their charts, and
every page in Korean without stray English.

The scifact page reads the tiny BEIR fixture here (``SERVER_ENV``) so it answers in seconds;
``tests/pages/test_scifact_shipped.py`` covers the shipped scifact copy.
"""
from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

import pytest

from core.inputs.golden import load_golden
from core.inputs.systems import compare_golden
from core.i18n import t
from core.views.verdicts import comparison_verdict
from core.views.palette import TONES
from tests.browser.helpers import (FIXTURE, ROOT, SHOTS, TIMEOUT_MS, _errors, _page_order,
                                    _page_problems, _settle, _shot, _uploader, _url)
from tests.shared_data import TINY

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SERVER_ENV = {"NOISEFLOOR_BEIR_DIR": str(TINY)}
DEMO = ROOT / "data" / "demo_golden.csv"

# Chart texts (Vega SVG): every title, axis title and legend text must lie inside its SVG
# and must not be cut with an ellipsis.
_CHART_TEXTS = """() => {
    const out = [];
    document.querySelectorAll('[data-testid="stVegaLiteChart"] svg.marks').forEach((svg, i) => {
        const box = svg.getBoundingClientRect();
        const parent = svg.parentElement.getBoundingClientRect();
        out.push({chart: i, kind: 'svg', text: '', left: box.left, right: box.right,
                  min: parent.left, max: parent.right});
        svg.querySelectorAll('.role-title-text text, .role-axis-title text, '
                             + '.role-legend-title text, .role-legend-label text, '
                             + '.role-axis-label text').forEach((el) => {
            const r = el.getBoundingClientRect();
            if (!r.width) return;
            out.push({chart: i, kind: el.closest('g[class*="role-"]').getAttribute('class'),
                      text: el.textContent, left: r.left, right: r.right,
                      top: r.top, bottom: r.bottom, min: box.left, max: box.right,
                      ymin: box.top, ymax: box.bottom,
                      size: parseFloat(getComputedStyle(el).fontSize
                                       || el.getAttribute('font-size'))});
        });
    });
    return out;
}"""

# Visible text nodes of the app (HTML and SVG), for the Korean walk.
_VISIBLE_TEXT = """() => {
    const root = document.querySelector('[data-testid="stApp"]');
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    const out = [];
    while (walker.nextNode()) {
        const node = walker.currentNode;
        const text = node.textContent.trim();
        const el = node.parentElement;
        if (!text || !el || el.closest('style, script, [data-testid="stIconMaterial"]')) continue;
        const r = el.getBoundingClientRect();
        if (!r.width || !r.height) continue;
        const cs = getComputedStyle(el);
        if (cs.visibility === 'hidden' || cs.display === 'none') continue;
        out.push(text);
    }
    return out;
}"""

# Words that may appear in Korean mode: method, metric and file names from the data, the
# names of statistics and products, and units. Anything else in Latin script with two or
# more words in a row is untranslated English.
ALLOWED = {
    # method / retriever / label-source / run names in the demo data and fixtures
    "title-only", "RRF", "baseline", "reranker", "BM25", "bm25", "Dense", "dense", "Hybrid",
    "hybrid", "(RRF)", "llm_basic", "llm_rubric", "crowd", "keyword_heuristic", "gold",
    "all-MiniLM-L6-v2", "MiniLM", "sentence-transformers",
    # metric names
    "nDCG@10", "ndcg@10", "MRR", "mrr@10", "recall@100", "hit@10", "p@10", "ap@100", "nDCG",
    "MAE", "RBO", "AP", "P@10",
    # names of methods, tests, people, products, formats
    "Wilson", "McNemar", "Holm", "Cohen's", "Kendall's", "Landis", "Koch", "Sakai", "Fleiss",
    "BEIR", "SciFact", "scifact", "TREC", "CSV", "TSV", "TXT", "XLSX", "JSON", "HTML", "LaTeX",
    "Markdown", "Excel", "UTF-8", "CP949", "EUC-KR", "BOM", "Python", "NoiseFloor", "CI",
    "English", "Language", "d_z", "t", "p", "n", "k", "b", "k1", "A", "B", "vs", "O", "X",
    "MB", "nan", "n/a", "MS", "MARCO", "DPR", "ANCE", "TAS-B", "GenQ", "ColBERT", "RBO(p", "Thakur", "et", "al.", "Wadden", "BY-NC", "CC",
}
LATIN = r"[A-Za-z][A-Za-z0-9@'’./()_-]*(?![가-힣])"
LATIN_RUN = re.compile(rf"(?<![가-힣\w]){LATIN}(?:[ \t]+{LATIN})+")
# Streamlit's own skip link for screen readers (off-screen) and the demo files' texts: data
SKIP = {"Skip to main content"}
CITATION = ("출처:", "Source:")  # bibliographic references keep their original titles


def _data_texts() -> set[str]:
    import pandas as pd
    out = set()
    for name in ("demo_golden.csv", "demo_lists.csv", "demo_labels.csv"):
        frame = pd.read_csv(ROOT / "data" / name, dtype=str, keep_default_na=False)
        out.update(v.strip() for v in frame.to_numpy().ravel() if v.strip())
    import json
    for name in ("corpus.jsonl", "queries.jsonl"):  # the BEIR fixture the server reads
        for line in (TINY / name).read_text(encoding="utf-8").splitlines():
            if line.strip():
                rec = json.loads(line)
                out.update(str(rec.get(k, "")).strip() for k in ("title", "text"))
    out.discard("")
    return out


def _file_like(word: str) -> bool:
    """File names, ids, paths and metric-like tokens (demo.csv, q01, data/beir, k=10)."""
    return bool(re.search(r"[._/@=]|\d", word))


def _untranslated(texts: list[str]) -> list[str]:
    bad = []
    data = _data_texts()
    for text in texts:
        if text in SKIP or text in data or text.startswith(CITATION):
            continue
        for m in LATIN_RUN.finditer(text):
            words = [w.strip("()[],.:;'\"") for w in m.group(0).split()]
            unknown = [w for w in words if w and w not in ALLOWED and not _file_like(w)]
            if any(m.group(0) in d for d in data):  # a piece of a query or document
                continue
            if len(unknown) >= 2:
                bad.append(f"{m.group(0)!r} in {text[:80]!r}")
    return bad


def _demo_result(resamples=20_000, confidence=0.95, seed=0):
    gs = load_golden(DEMO.read_bytes(), DEMO.name)
    return compare_golden(gs, "title-only", "RRF", resamples=resamples, confidence=confidence,
                          seed=seed)


def _card(pg):
    card = pg.locator(".verdict-card").first
    card.wait_for(timeout=TIMEOUT_MS)
    return card


def _chart_problems(pg, where: str) -> list[str]:
    problems = []
    for item in pg.evaluate(_CHART_TEXTS):
        if item["kind"] == "svg":
            if item["right"] > item["max"] + 2:
                problems.append(f"{where}: chart {item['chart']} is wider than its column")
            continue
        if item["left"] < item["min"] - 1 or item["right"] > item["max"] + 1:
            problems.append(f"{where}: {item['kind']} {item['text']!r} is cut by its chart")
        if item["text"].endswith("…") and "title" in item["kind"]:
            problems.append(f"{where}: {item['kind']} {item['text']!r} is truncated")
    return problems


def test_verdict_card_leads_with_the_tone_of_the_result(server, page):
    """Demo (B = RRF is worse, not significantly): amber. Upload where B = reranker wins:
    green, and the same sentence as core.views.verdicts."""
    page.goto(f"{server}/")
    _settle(page)
    card = _card(page)
    demo = _demo_result()
    assert demo.comparison.verdict == "no_difference"
    assert "verdict-neutral" in card.get_attribute("class")
    assert card.locator(".verdict").inner_text() == comparison_verdict(demo, "en")
    bs = demo.comparison.bootstrap
    # the headline is B − A with its CI, in %p (binary outcomes)
    assert card.locator(".verdict-value").inner_text() == f"{100 * bs.mean:+.1f} %p"
    assert f"[{100 * bs.ci_low:+.1f} %p, {100 * bs.ci_high:+.1f} %p]" in \
        card.locator(".verdict-interval").inner_text()
    accent = TONES["neutral"][0]
    border = card.evaluate("e => getComputedStyle(e).borderLeftColor")
    assert border == "rgb({}, {}, {})".format(*(int(accent[i:i + 2], 16) for i in (1, 3, 5)))
    # the card is the first result: above the metric tiles and the charts
    y_card = card.bounding_box()["y"]
    assert y_card < page.locator('[data-testid="stMetric"]').first.bounding_box()["y"]
    assert y_card < page.locator('[data-testid="stVegaLiteChart"]').first.bounding_box()["y"]

    _uploader(page).set_input_files(
        str(FIXTURE))
    page.locator(".verdict-better").wait_for(timeout=TIMEOUT_MS)
    _settle(page)
    assert not _errors(page)
    accent = TONES["better"][0]
    border = _card(page).evaluate("e => getComputedStyle(e).borderLeftColor")
    assert border == "rgb({}, {}, {})".format(*(int(accent[i:i + 2], 16) for i in (1, 3, 5)))
    # swapping A and B: the new method (B = baseline) is now worse: red
    page.goto(f"{server}/")
    _settle(page)
    _uploader(page).set_input_files(
        str(FIXTURE))
    page.locator(".verdict-better").wait_for(timeout=TIMEOUT_MS)
    _settle(page)
    page.locator(".st-key-golden_a input[role=combobox]").click()
    page.get_by_role("option", name="reranker", exact=True).click()
    _settle(page)  # A = B for a moment
    page.locator(".st-key-golden_b input[role=combobox]").click()
    page.get_by_role("option", name="baseline", exact=True).click()
    page.locator(".verdict-worse").wait_for(timeout=TIMEOUT_MS)
    _settle(page)
    text = _card(page).locator(".verdict").inner_text()
    assert text.startswith("reranker is better than baseline"), text


def test_presentation_view_at_1280x720(server, browser):
    context = browser.new_context(viewport={"width": 1280, "height": 720}, locale="en-US")
    pg = context.new_page()
    pg.set_default_timeout(TIMEOUT_MS)
    try:
        pg.goto(f"{server}/?view=present")
        _settle(pg)
        card = _card(pg)
        box = card.bounding_box()
        assert box["y"] >= 0 and box["y"] + box["height"] <= 720, box  # whole card, no scroll
        assert pg.locator('[data-testid="stFileUploader"]').first.is_hidden()
        sidebar = pg.locator('[data-testid="stSidebar"]')
        assert sidebar.locator(".st-key-golden_resamples").is_hidden()
        assert sidebar.get_by_text(t("common.settings", "en"), exact=True).is_hidden()
        assert sidebar.locator(".st-key-app_present").is_visible()  # the way back
        assert pg.locator('[data-testid="stVegaLiteChart"]').count() == 1  # the one chart
        assert pg.locator('[data-testid="stHeading"]',
                          has_text=t("golden.second_opinions", "en")).count() == 0
        assert pg.locator(".verdict-value").evaluate(
            "e => parseFloat(getComputedStyle(e).fontSize)") >= 40
        sizes = [i["size"] for i in pg.evaluate(_CHART_TEXTS)
                 if "axis-label" in i.get("kind", "") or "axis-title" in i.get("kind", "")]
        assert sizes and min(sizes) >= 20, sizes
        assert not _chart_problems(pg, "present 1280x720")
        _shot(pg, "golden_present.png", readme=True)
        # the toggle leaves the presentation view and the URL forgets it
        sidebar.locator(".st-key-app_present label").click()
        pg.wait_for_function("() => !location.search.includes('view=present')")
        _settle(pg)
        assert pg.locator('[data-testid="stFileUploader"]').first.is_visible()
        # ... and turns it back on, in Korean too
        pg.goto(f"{server}/?lang=ko")
        _settle(pg)
        pg.locator('[data-testid="stSidebar"] .st-key-app_present label').click()
        pg.wait_for_function("() => location.search.includes('view=present')")
        _settle(pg)
        assert pg.locator('[data-testid="stFileUploader"]').first.is_hidden()
        _shot(pg, "golden_present_ko.png")
    finally:
        context.close()


def test_url_reopens_the_same_view(server, page):
    page.goto(f"{server}/?a=RRF&b=title-only&confidence=90&resamples=5000&seed=7")
    _settle(page)
    expected = compare_golden(load_golden(DEMO.read_bytes(), DEMO.name), "RRF", "title-only",
                              resamples=5000, confidence=0.90, seed=7)
    assert _card(page).locator(".verdict").inner_text() == comparison_verdict(expected, "en")
    query = parse_qs(urlparse(page.url).query)
    assert query["a"] == ["RRF"] and query["b"] == ["title-only"] and query["seed"] == ["7"]
    assert query["confidence"] == ["90"] and query["resamples"] == ["5000"]
    # a change is written back, so copying the address bar shares it
    page.locator(".st-key-golden_seed input").fill("11")
    page.locator(".st-key-golden_seed input").press("Enter")
    page.wait_for_function("() => location.search.includes('seed=11')")
    _settle(page)
    # the scifact page keeps retrievers, metric, query count and the selected query
    page.goto(f"{server}/scifact?a=bm25&b=hybrid&metric=mrr%4010&n=10&seed=3")
    _settle(page)
    query = parse_qs(urlparse(page.url).query)
    assert query["b"] == ["hybrid"] and query["metric"] == ["mrr@10"] and query["n"] == ["10"]
    page.goto(f"{server}/scifact?a=bm25&b=dense&seed=3")
    _settle(page)
    query = parse_qs(urlparse(page.url).query)
    assert "query" in query, page.url
    first = query["query"][0]
    # pick another query: the URL follows; reopening that URL shows that query again
    # the page may still rerun once after writing the URL, closing a list opened too early:
    # open it again until its options show
    options = page.get_by_role("option")
    for _attempt in range(5):
        _settle(page)
        page.locator(".st-key-scifact_drill input[role=combobox]").click()
        try:
            options.first.wait_for(timeout=10_000)
            break
        except Exception:  # playwright's TimeoutError: try again
            page.keyboard.press("Escape")
    options.first.wait_for(timeout=TIMEOUT_MS)
    assert options.count() >= 2, "the tiny fixture has several disagreeing queries"
    options.nth(1).click()
    page.wait_for_function(f"() => !location.search.includes('query={first}')")
    _settle(page)
    chosen = parse_qs(urlparse(page.url).query)["query"][0]
    assert chosen != first
    page.goto(f"{server}/scifact?a=bm25&b=dense&seed=3&query={chosen}")
    _settle(page)
    assert parse_qs(urlparse(page.url).query)["query"] == [chosen]
    assert not _errors(page)


@pytest.mark.parametrize("size", [(1400, 1000), (1280, 720)])
def test_chart_texts_fit_their_charts(server, browser, size):
    context = browser.new_context(viewport={"width": size[0], "height": size[1]},
                                  locale="en-US")
    pg = context.new_page()
    pg.set_default_timeout(TIMEOUT_MS)
    problems = []
    try:
        for stem in _page_order():
            pg.goto(_url(server, stem))
            _settle(pg)
            pg.evaluate("window.scrollTo(0, document.body.scrollHeight)")
            pg.wait_for_timeout(300)
            problems += _chart_problems(pg, f"{stem} {size}")
        # the all-pairs table and the demo's query-group table of the systems page fit the
        # page: no hidden columns
        pg.goto(_url(server, "systems"))
        _settle(pg)
        main = pg.locator('[data-testid="stMainBlockContainer"]').bounding_box()
        for what, header in (("all-pairs", "B wins / ties / A wins"),
                             ("query-group", "CI (corrected)")):
            table = pg.locator('[data-testid="stTable"]', has_text=header)
            over = table.evaluate("e => e.scrollWidth - e.clientWidth")
            box = table.bounding_box()
            if over > 2 or box["x"] + box["width"] > main["x"] + main["width"] + 2:
                problems.append(f"systems {size}: the {what} table is wider than the page")
        # ... and so does the means table (the first data grid): no horizontal scrolling
        grid = pg.locator('[data-testid="stDataFrame"]').first
        grid.scroll_into_view_if_needed()
        pg.wait_for_timeout(300)
        over = grid.evaluate("""e => { const s = e.querySelector('.dvn-scroller');
                                        return s ? s.scrollWidth - s.clientWidth : -1; }""")
        box = grid.bounding_box()
        if over < 0:
            problems.append(f"systems {size}: the means table has no grid to measure")
        elif over > 2 or box["x"] + box["width"] > main["x"] + main["width"] + 2:
            problems.append(f"systems {size}: the means table is {over} px wider than the page")
    finally:
        context.close()
    assert not problems, "\n".join(problems)


def test_every_page_in_korean_has_no_stray_english(server, page):
    problems = []
    for stem in _page_order():
        page.goto(_url(server, stem, "?lang=ko"))
        _settle(page)
        problems += _page_problems(page, stem, "ko")
        for exp in page.locator('[data-testid="stExpander"] summary').all():
            exp.click()  # the hidden parts too ("How to read this", tables in expanders)
        page.wait_for_timeout(300)
        problems += [f"{stem}: {p}" for p in _untranslated(page.evaluate(_VISIBLE_TEXT))]
    # the uploader's own button and size limit are in Korean
    page.goto(_url(server, "golden", "?lang=ko"))
    _settle(page)
    zone = page.locator('[data-testid="stFileUploaderDropzone"]').first
    after = zone.locator("button [data-testid='stMarkdownContainer']").evaluate(
        "e => getComputedStyle(e, '::after').content")
    assert t("common.uploader_button", "ko") in after
    assert "Upload" not in zone.inner_text() and "per file" not in zone.inner_text()
    assert not problems, "\n".join(problems)


def test_english_plurals_and_glossary_help(server, page):
    """Systems' TREC demo: '1 query that is not in the qrels' (no 'quer(ies)'); hover help
    on the technical terms."""
    page.goto(f"{server}/systems")
    _settle(page)
    page.locator(".st-key-systems_source button", has_text=t("systems.source_trec", "en")).click()
    page.get_by_text("1 query that is not in the qrels", exact=False).first.wait_for(
        timeout=TIMEOUT_MS)
    _settle(page)
    assert page.get_by_text("(ies)", exact=False).count() == 0
    assert page.get_by_text("(s)", exact=False).count() == 0
    # the Holm heading has a hover help with the glossary sentence
    helps = page.locator('[data-testid="stHeading"] [data-testid="stTooltipIcon"]')
    assert helps.count() >= 1
