"""Hostile input on the pages (issue 12), under AppTest: Markdown in user names shown
literally, the workbook sheet and NFC merges reported, caps, the per-case CSV neutralised, and
the scifact folder choices (symlinks out of the folder refused, no free path by default)."""
import csv
import html
import io
import re
import shutil
import unicodedata
from pathlib import Path

import openpyxl
import pytest
from streamlit.testing.v1 import AppTest

from pages._ui import esc
from tests.pages.test_scifact import settle
from tests.shared_data import TINY

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = str(ROOT / "pages" / "golden.py")
SYSTEMS = str(ROOT / "pages" / "systems.py")
SCIFACT = str(ROOT / "pages" / "scifact.py")

A = "**bold** ![x](http://127.0.0.2:9/a.png)"
B = ":red[red] <img src='http://127.0.0.2:9/b.png'> [link](http://127.0.0.2:9/)"
CASE = "=HYPERLINK(\"http://evil\",\"x\")"


def hostile_golden() -> bytes:
    rows = [["case_id", A, B]]
    for i in range(40):
        cid = CASE if i == 0 else ("@SUM(A1)" if i == 1 else f"![i](http://127.0.0.2:9/{i}.png)")
        rows.append([cid, str(int(i % 4 != 0)), str(int(i % 2 == 0))])
    buf = io.StringIO()
    csv.writer(buf).writerows(rows)
    return buf.getvalue().encode()


def _cards(at) -> list[str]:
    """The verdict cards: one HTML block each (``core.views.cards.card_html``), where user
    text is HTML-escaped and, inside a raw HTML block, never read as Markdown."""
    return [e.value for e in at.markdown if 'class="verdict-card' in e.value]


def _markdown_texts(at) -> list[str]:
    """Everything else AppTest sees that Streamlit renders as Markdown."""
    out = [e.value for kind in (at.markdown, at.caption, at.warning, at.success, at.info,
                                at.error, at.subheader) for e in kind
           if 'class="verdict-card' not in e.value]
    out += [m.label for m in at.metric]
    return out


def _card_is_escaped(card: str, *names: str) -> None:
    assert card.lstrip().startswith("<div") and "\n\n" not in card  # one HTML block
    for name in names:
        assert html.escape(name) in card, name
    # the one anchor a card may carry is its own link to the planner (core.views.paired),
    # built from numbers only; anything else would be user text rendered as HTML
    import re
    card = re.sub(r'<a href="sample_size\?[-\w.=&;%]*" target="_self" style="[^"<>]*">'
                  r'[^<>]*</a>', "", card)
    assert "<img" not in card and "<a " not in card


def _upload(page: str, key: str, name: str, data: bytes, mime="text/csv"):
    at = AppTest.from_file(page, default_timeout=180).run()
    at.file_uploader(key=key).set_value((name, data, mime)).run()
    return at


def test_markdown_in_method_names_is_escaped_on_the_golden_page():
    at = _upload(GOLDEN, "golden_upload", "evil.csv", hostile_golden())
    assert not at.exception and not at.error, [e.value for e in at.error]
    texts = _markdown_texts(at)
    assert esc(A) in {m.label for m in at.metric} and esc(B) in {m.label for m in at.metric}
    joined = "\n".join(texts)
    for raw in ("**bold**", "![x](", ":red[", "[link]("):
        assert raw not in joined, raw  # never reaches Markdown unescaped
    assert not re.search(r"(?<!\\)<img", joined)
    cards = _cards(at)
    assert len(cards) == 1
    _card_is_escaped(cards[0], A, B)
    # the per-case CSV download neutralises the formula-like ids
    from core.inputs.golden import load_golden
    from core.inputs.systems import compare_golden
    from core.serialize import to_csv_bytes
    import pandas as pd

    res = compare_golden(load_golden(hostile_golden(), "evil.csv"), resamples=500)
    out = to_csv_bytes(pd.DataFrame({"case_id": list(res.case_ids)})).decode("utf-8-sig")
    assert "'=HYPERLINK" in out and "'@SUM(A1)" in out
    assert not any(line.startswith(("=", "@", "+", "-")) for line in out.splitlines())


def test_control_characters_in_names_are_shown_as_escapes_on_the_golden_page():
    """Issue 30: a method name with ESC/BEL (vl-convert aborted the server on it while the
    page built its report): the page runs to the end, names show the escape as text, and no
    control character reaches anything Streamlit renders."""
    from core.inputs.text import CONTROLS, nfc

    a, b = "old\x1b]0;t\x07A", "new\x1b[31m\x0bB"
    rows = [["case_id", a, b]] + [[f"c{i}", i % 2, (i // 3) % 2] for i in range(30)]
    buf = io.StringIO()
    csv.writer(buf).writerows(rows)
    at = _upload(GOLDEN, "golden_upload", "ctrl.csv", buf.getvalue().encode())
    assert not at.exception and not at.error, [e.value for e in at.error]
    labels = {m.label for m in at.metric}
    assert esc(nfc(a)) in labels and esc(nfc(b)) in labels, labels
    assert r"\u001b" in nfc(a)
    assert not any(CONTROLS.search(x) for x in _markdown_texts(at) + _cards(at))
    assert len(_cards(at)) == 1


def test_an_all_blank_method_column_is_named_on_the_golden_page():
    """Issue 30: a method blank in every row used to vanish without a word."""
    rows = "case_id,A,B,C\n" + "".join(f"c{i},{i % 2},{(i // 2) % 2},\n" for i in range(12))
    at = _upload(GOLDEN, "golden_upload", "blank.csv", rows.encode())
    assert not at.exception and not at.error
    warnings = [w.value for w in at.warning]
    assert any("not compared: C" in w for w in warnings), warnings


def test_a_run_listing_a_document_twice_is_refused_on_the_systems_page():
    """Issue 30: the last copy used to win silently; the page names run, query and doc."""
    qrels = b"".join(f"q{i} 0 d{i} 1\n".encode() for i in range(4))
    good = b"".join(f"q{i} Q0 d{i} 1 2.0 x\n".encode() for i in range(4))
    dup = good + b"q2 Q0 d2 2 1.0 x\n"
    at = AppTest.from_file(SYSTEMS, default_timeout=180).run()
    at.segmented_control(key="systems_source").set_value("trec").run()
    at.file_uploader(key="systems_qrels_upload").set_value(("q.txt", qrels, "text/plain"))
    at.file_uploader(key="systems_runs_upload").set_value(
        [("good.run", good, "text/plain"), ("dup.run", dup, "text/plain")])
    at.run()
    assert not at.exception
    errors = [e.value for e in at.error]
    assert any("'dup'" in e and "'d2'" in e and "'q2'" in e for e in errors), errors


def test_markdown_in_names_is_escaped_on_the_systems_page():
    name = "![s](http://127.0.0.2:9/s.png)"
    rows = "case_id,query,gold_ids," + f'"{name}",plain\n' + "".join(
        f"q{i},question {i},d{i},d{i}|x,{'d' + str(i) if i % 3 else 'y'}|z\n" for i in range(12))
    at = AppTest.from_file(SYSTEMS, default_timeout=180).run()
    uploaders = [u for u in at.get("file_uploader")]
    if not uploaders:
        pytest.skip("systems page has no uploader in this layout")
    uploaders[0].set_value(("lists.csv", rows.encode(), "text/csv")).run()
    assert not at.exception
    joined = "\n".join(_markdown_texts(at))
    assert "![s](" not in joined
    for card in _cards(at):
        _card_is_escaped(card, name)


def test_systems_empty_cell_warning_escapes_the_method_name():
    """Issue 21: the 'empty cells' warning named the method unescaped (tr, not tr_md)."""
    name = "![m1](http://127.0.0.2:9/m1.png) $x$"
    rows = "case_id,query,gold_ids," + f'"{name}",plain,third\n' + "".join(
        f"q{i},question {i},d{i},{'' if i == 0 else f'd{i}|x'},x|d{i},d{i}\n"
        for i in range(12))
    at = _upload(SYSTEMS, "systems_lists_upload", "lists.csv", rows.encode())
    assert not at.exception
    warnings = [w.value for w in at.warning]
    assert any(esc(name) in w for w in warnings), warnings
    assert not any("![m1](" in w for w in warnings)


@pytest.mark.parametrize("page,key,text", [
    (GOLDEN, "golden_upload", "case_id,청크,청킹\n" + "".join(
        f"q{i},{i % 2},{(i // 3) % 2}\n" for i in range(8))),
    (SYSTEMS, "systems_lists_upload", "case_id,query,gold_ids,청크,청킹\n" + "".join(
        f"q{i},question {i},d{i},d{i}|x,x|d{i}\n" for i in range(8))),
    (str(ROOT / "pages" / "latency.py"), "latency_upload", "query_id,method,latency_ms\n" +
     "".join(f"q{i},{m},{10 + i + k}\n" for i in range(8) for k, m in enumerate(("청크", "청킹")))),
    (str(ROOT / "pages" / "agreement.py"), "agreement_labels", "query_id,doc_id,gold,청크\n" +
     "".join(f"q{i // 3},d{i},{i % 3},{(i + 1) % 3}\n" for i in range(12)))])
def test_cp949_that_is_valid_utf8_is_read_as_hangul_and_named(page, key, text):
    """Issue 21: these CP949 bytes are also valid UTF-8 ('ûũ'); the page reads Hangul and
    says the file was read as CP949."""
    data = text.encode("cp949")
    data.decode("utf-8")  # the hostile case: both decodings succeed
    at = _upload(page, key, "korean.csv", data)
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("CP949" in c.value for c in at.caption)
    shown = " ".join(m.label for m in at.metric) + " ".join(_markdown_texts(at))
    assert "청크" in shown and "û" not in shown


def test_systems_page_at_the_column_cap_compares_each_with_the_baseline():
    """Issue 21: 997 method columns x 40 cases (1,000 columns with id, query and gold ids:
    the column cap). All 496,506 pairs would not fit the limits: the page says so and
    compares each with the baseline (996 pairs) instead of running for minutes."""
    k, n = 997, 40
    header = "case_id,query,gold_ids," + ",".join(f"m{j}" for j in range(k)) + "\n"
    body = "".join(f"q{i},question {i},d{i}," +
                   ",".join(f"d{i}|x" if (i * 7 + j) % 3 else f"x|y" for j in range(k)) + "\n"
                   for i in range(n))
    at = AppTest.from_file(SYSTEMS, default_timeout=300).run()
    at.number_input(key="systems_resamples").set_value(1_000)
    at.file_uploader(key="systems_lists_upload").set_value(
        ("wide.csv", (header + body).encode(), "text/csv")).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    infos = [i.value for i in at.info]
    assert any("496,506" in i and "baseline" in i for i in infos), infos
    assert any(c.value.startswith("996 comparisons") for c in at.caption)  # the Holm note


def test_workbook_sheet_and_unicode_merge_are_reported():
    wb = openpyxl.Workbook()
    wb.active.title = "readme"
    wb.active.append(["notes only"])
    ws = wb.create_sheet("results")
    ws.append(["case_id", "a", "b"])
    ws.append([unicodedata.normalize("NFD", "한글"), 1, 0])
    ws.append([unicodedata.normalize("NFC", "한글"), 0, 1])
    for i in range(10):
        ws.append([f"q{i}", i % 2, 1])
    buf = io.BytesIO()
    wb.save(buf)
    at = _upload(GOLDEN, "golden_upload", "book.xlsx", buf.getvalue(),
                 "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")
    assert not at.exception and not at.error
    captions = [c.value for c in at.caption]
    assert any("results" in c and "readme" in c for c in captions), captions
    assert any("NFC" in w.value and "2, 3" in w.value for w in at.warning)


def test_a_million_columns_is_a_clear_error_on_the_page():
    data = ("case_id," + ",".join("m" for _ in range(1_000_000)) + "\n").encode()
    at = _upload(GOLDEN, "golden_upload", "wide.csv", data)
    assert not at.exception
    assert any("1,000" in e.value for e in at.error)


# ----------------------------------------------------------------------------- scifact folder
@pytest.fixture
def linked(tmp_path, monkeypatch):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET\thunter2\t1\n")
    folder = tmp_path / "scifact"
    shutil.copytree(TINY, folder)
    (folder / "qrels" / "test.tsv").unlink()
    (folder / "qrels" / "test.tsv").symlink_to(secret)
    monkeypatch.setenv("NOISEFLOOR_BEIR_DIR", str(folder))
    monkeypatch.delenv("NOISEFLOOR_ALLOW_ANY_PATH", raising=False)
    return folder


def test_scifact_page_offers_folders_not_a_free_path_and_refuses_links(linked):
    at = AppTest.from_file(SCIFACT, default_timeout=180).run()
    assert not at.exception
    assert len(at.text_input) == 0 or all(t.key != "scifact_path" for t in at.text_input)
    box = at.selectbox(key="scifact_folder")
    # the NOISEFLOOR_BEIR_DIR folder first, by its name, not the machine's path (issue 37)
    assert box.options[0] == "scifact (the folder in NOISEFLOOR_BEIR_DIR)"
    assert not any(str(linked) in o for o in box.options), box.options
    errors = [e.value for e in at.error]
    assert any("outside this folder" in e for e in errors), errors
    everything = "\n".join(_markdown_texts(at))
    assert "hunter2" not in everything and "TOP-SECRET" not in everything


def test_free_path_needs_the_operator_switch(linked, monkeypatch):
    monkeypatch.setenv("NOISEFLOOR_ALLOW_ANY_PATH", "1")
    at = AppTest.from_file(SCIFACT, default_timeout=180).run()
    assert at.text_input(key="scifact_path") is not None


def test_scifact_asks_before_a_long_encode(tmp_path, monkeypatch):
    folder = tmp_path / "scifact"
    shutil.copytree(TINY, folder)
    monkeypatch.setenv("NOISEFLOOR_BEIR_DIR", str(folder))
    monkeypatch.setenv("NOISEFLOOR_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("NOISEFLOOR_CONFIRM_SECONDS", "0")  # every encode counts as long
    import core.retrieval.search

    monkeypatch.setattr(core.retrieval.search, "CACHE_DIR", tmp_path / "cache")
    at = AppTest.from_file(SCIFACT, default_timeout=240).run()
    assert not at.exception
    assert any("should take about" in w.value for w in at.warning)
    assert not at.metric  # nothing encoded, nothing compared yet
    # nothing encoded: the cache holds at most the steps' measured times (step_times.json,
    # the model's load timed while BM25 ran), no vectors
    cache = tmp_path / "cache"
    kept = sorted(p.name for p in cache.rglob("*")) if cache.exists() else []
    assert kept in ([], ["step_times.json"]), kept
    at.button(key="scifact_confirm").click()
    settle(at)  # the encode runs as a server job; the page shows results when it ends
    assert not at.exception, at.exception
    assert at.metric and list((tmp_path / "cache").glob("emb-corpus-*.npy"))
    assert not at.warning and all(b.key != "scifact_confirm" for b in at.button)  # none stale
