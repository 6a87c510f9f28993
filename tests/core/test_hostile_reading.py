"""Hostile input, round 2 (issue 21): reading without silent loss, mojibake or terminal
injection; every file within the caps bounded in work (xlsx without <dimension>, 1,000 method
columns). Every hostile file is generated here."""
import io
import json
import zipfile

import numpy as np
import pytest

from core.__main__ import main, terminal_safe
from core.errors import InputError
from core.inputs.golden import load_golden, parse_value
from core.inputs.systems import compare_golden
from core.paired.multi import MAX_PAIRS, MAX_WORK, compare_many, estimate_cost, plan_mode
from core.inputs.tables import MAX_CELLS, decode_text, read_table
from core.inputs.text import CONTROLS, nfc


def _wide(header, rows, sep=",", end="\n"):
    return (end.join([sep.join(header)] + [sep.join(map(str, r)) for r in rows]) + end)


# ----------------------------------------------------------------------------- marks and widths
@pytest.mark.parametrize("cell,value", [
    ("✓", 1.0), ("✔", 1.0), ("○", 1.0), ("O", 1.0), ("Ｏ", 1.0), ("ｏ", 1.0),
    ("✗", 0.0), ("✘", 0.0), ("×", 0.0), ("X", 0.0), ("Ｘ", 0.0),
    ("１", 1.0), ("０", 0.0), ("０．７５", 0.75), ("８５％", 0.85), ("10％", 0.10)])
def test_marks_fullwidth_digits_and_percent_are_read(cell, value):
    assert parse_value(cell) == pytest.approx(value)


def test_mark_columns_with_three_methods_are_methods_not_text():
    """With three or more methods these columns used to be dropped as text."""
    rows = [(f"q{i}", "✓✗"[i % 2], "ＯＸ"[(i // 2) % 2], f"{10 * (i % 9)}％", i % 2)
            for i in range(12)]
    data = _wide(["case_id", "checks", "fullwidth", "percent", "plain"], rows).encode()
    gs = load_golden(data, "marks.csv")
    assert gs.methods == ["checks", "fullwidth", "percent", "plain"]
    assert gs.scores["checks"].tolist() == [1.0, 0.0] * 6
    assert gs.scores["fullwidth"].tolist() == [1.0, 1.0, 0.0, 0.0] * 3
    assert gs.scores["percent"].iloc[3] == pytest.approx(0.30)


# ----------------------------------------------------------------------------- reserved names
@pytest.mark.parametrize("layout", ["wide", "long"])
@pytest.mark.parametrize("name", ["difference", "case_id", "Difference", "case id"])
def test_reserved_method_names_are_refused_with_a_message(layout, name):
    if layout == "wide":
        data = _wide(["id", "A", name], [(f"c{i}", i % 2, (i // 2) % 2) for i in range(6)])
    else:
        data = _wide(["case_id", "method", "score"],
                     [(f"c{i}", m, i % 2) for i in range(6) for m in ("A", name)])
    with pytest.raises(InputError) as err:
        load_golden(data.encode(), "reserved.csv")
    assert err.value.code == "reserved_method" and err.value.params["method"] == name
    assert "difference" in str(err.value) and "rename" in str(err.value).lower()


def test_reserved_names_are_refused_in_retrieval_lists_too():
    from core.inputs.lists import load_lists

    data = _wide(["case_id", "gold_ids", "A", "difference"],
                 [(f"c{i}", "d1", "d1|d2", "d2|d1") for i in range(4)])
    with pytest.raises(InputError) as err:
        load_lists(data.encode(), "lists.csv")
    assert err.value.code == "reserved_method"


def test_a_trec_run_named_like_a_reserved_column_is_refused():
    from core.inputs.trec import read_qrels, read_run, score_runs

    qrels = read_qrels(b"q1 0 d1 1\nq2 0 d2 1\n", "qrels.txt")
    runs = [read_run(b"q1 Q0 d1 1 2.0 x\nq2 Q0 d2 1 2.0 x\n", name)
            for name in ("difference.run", "bm25.run")]
    with pytest.raises(InputError) as err:
        score_runs(runs, qrels, ["nDCG@10"]).golden()
    assert err.value.code == "reserved_method" and err.value.params["method"] == "difference"


# ----------------------------------------------------------------------------- encodings
@pytest.mark.parametrize("words", [("청크", "청킹"), ("검색", "재순위")])
def test_cp949_bytes_that_are_valid_utf8_are_read_as_hangul_and_named(words):
    text = _wide(["case_id", *words], [(f"q{i}", i % 2, (i // 3) % 2) for i in range(8)])
    data = text.encode("cp949")
    try:
        data.decode("utf-8")
        both = True
    except UnicodeDecodeError:
        both = False
    gs = load_golden(data, "korean.csv")
    assert gs.methods == list(words) and gs.encoding == "cp949"
    if words == ("청크", "청킹"):
        assert both  # the hostile case: these CP949 bytes are valid UTF-8 ('ûũ', 'ûŷ')
    out = compare_golden(gs, resamples=200).to_dict()
    assert out["encoding"] == "cp949"


@pytest.mark.parametrize("text", ["id,café,naïve\n1,1,0\n", "id,청크\n1,1\n", "id,Ａ\n1,1\n"])
def test_utf8_stays_utf8(text):
    assert decode_text(text.encode("utf-8"), "f") == (text, "utf-8-sig")


def test_cli_says_which_encoding_was_read(tmp_path, capsys):
    f = tmp_path / "k.csv"
    f.write_bytes(_wide(["case_id", "청크", "청킹"],
                        [(f"q{i}", i % 2, (i // 3) % 2) for i in range(8)]).encode("cp949"))
    assert main(["compare", str(f), "--resamples", "200"]) == 0
    out = capsys.readouterr().out
    assert "CP949" in out and "청크" in out and "û" not in out


def _korean_latency_log() -> bytes:
    """A long timing log whose method names, saved by Korean Excel (CP949), are valid UTF-8."""
    rows = ["query_id,method,latency_ms"] + [f"q{i},{m},{10 + i + k}"
                                             for i in range(6) for k, m in enumerate(("청크", "청킹"))]
    return "\n".join(rows).encode("cp949")


def _korean_labels() -> bytes:
    rows = ["query_id,doc_id,gold,청크"] + [f"q{i // 3},d{i},{i % 3},{(i + 1) % 3}" for i in range(12)]
    return "\n".join(rows).encode("cp949")


def test_latency_and_agreement_say_which_encoding_was_read(tmp_path, capsys):
    from core.agreement.files import load_labels
    from core.latency.log import load_timings
    log = load_timings(_korean_latency_log(), "t.csv")
    assert log.encoding == "cp949" and log.methods == ("청크", "청킹")
    labels = load_labels(_korean_labels(), "l.csv")
    assert labels.encoding == "cp949" and labels.names == ["청크"]
    assert load_timings(b"query_id,a,b\nq1,1,2\nq2,2,3\n", "u.csv").encoding == "utf-8-sig"
    (tmp_path / "t.csv").write_bytes(_korean_latency_log())
    (tmp_path / "l.csv").write_bytes(_korean_labels())
    for cmd, f in (("latency", "t.csv"), ("agreement", "l.csv")):
        assert main([cmd, str(tmp_path / f), "--resamples", "200"]) == 0
        out = capsys.readouterr().out
        assert "CP949" in out and "청크" in out and "û" not in out, cmd
        assert main([cmd, str(tmp_path / f), "--resamples", "200", "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["encoding"] == "cp949", cmd


# ----------------------------------------------------------------------------- line ends, csv words
def test_cr_only_line_ends_are_read():
    data = _wide(["case_id", "A", "B"], [(f"c{i}", i % 2, (i // 2) % 2) for i in range(6)],
                 end="\r").encode()
    gs = load_golden(data, "mac.csv")
    assert len(gs.scores) == 6 and gs.methods == ["A", "B"]


def test_an_unclosed_quote_is_said_in_the_users_terms():
    data = ('case_id,A,B\nc1,1,0\nc2,"1,0\n' + "c3,1,0\n" * 20 + "x" * 140_000).encode()
    with pytest.raises(InputError) as err:
        read_table(data, "quote.csv")
    msg = str(err.value)
    assert err.value.code == "csv_cell_too_long" and "quote" in msg
    assert "field limit" not in msg and "131072" not in msg


def test_ragged_rows_are_said_in_the_users_terms():
    data = b"case_id,A,B\nc1,1,0\nc2,1,0,9,9\nc3,0,1\n"
    with pytest.raises(InputError) as err:
        read_table(data, "ragged.csv")
    assert err.value.code == "blank_header"  # 'a column has no header name', not pandas'
    assert "Expected" not in str(err.value) and "fields" not in str(err.value)


# ----------------------------------------------------------------------------- invisible characters
def test_zero_width_and_bidi_characters_are_stripped_from_names_and_ids():
    data = _wide(["case_id", "A", "A\u200b"], [(f"c{i}", 1, 0) for i in range(3)]).encode()
    with pytest.raises(InputError) as err:  # 'A' and 'A<ZWSP>' are one name: said, not two
        read_table(data, "zw.csv")
    assert err.value.code == "duplicate_column"
    data = _wide(["case_id", "\u202eA", "B\u2066"],
                 [("c\u200d1", 1, 0), ("c2", 0, 1), ("c3", 1, 1)]).encode()
    raw = read_table(data, "bidi.csv")
    assert list(raw.frame.columns) == ["case_id", "A", "B"]
    assert raw.frame["case_id"].tolist() == ["c1", "c2", "c3"]
    assert raw.normalized["case_id"] == (2,)  # reported as changed, like NFC


def test_nfc_merges_are_listed_in_cli_text_and_json(tmp_path, capsys):
    nfd = "\u1112\u1161\u11ab"  # '한' as three jamo
    rows = [("한", 1, 0), (nfd, 0, 1)] + [(f"c{i}", i % 2, (i // 2) % 2) for i in range(6)]
    f = tmp_path / "nfd.csv"
    f.write_text(_wide(["case_id", "A", "B"], rows), encoding="utf-8")
    assert main(["compare", str(f), "--resamples", "200"]) == 0
    text = capsys.readouterr().out
    assert "'한'" in text and "rows 2, 3" in text and "NFC" in text
    assert main(["compare", str(f), "--resamples", "200", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["unicode_merged"] == {"한": [2, 3]}
    assert out["excluded"]["duplicates"] == ["한"]


# ----------------------------------------------------------------------------- terminal injection
ESCAPES = ["\x1b]0;owned\x07", "\x1b]52;c;ZXZpbA==\x07", "\x1b[2J", "\x9b31m", "\x07"]


def test_terminal_safe_leaves_no_control_character():
    for esc in ESCAPES:
        out = terminal_safe(f"A{esc}B\n")
        assert out.endswith("\n") and not any(ord(c) < 32 and c not in "\n" for c in out)
        assert not any(0x7f <= ord(c) <= 0x9f for c in out)


def test_cli_prints_no_escape_sequence_from_names(tmp_path, capsys):
    names = [f"m{i}{esc}" for i, esc in enumerate(ESCAPES[:3])]
    rows = [(f"c{i}{ESCAPES[3]}", i % 2, (i // 2) % 2, (i // 3) % 2) for i in range(8)]
    f = tmp_path / "esc.csv"
    f.write_text(_wide(["case_id", *names], rows), encoding="utf-8")
    assert main(["compare", str(f), "--resamples", "200"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "\x9b" not in out
    assert "\\u001b]0;owned" in out  # shown, escaped, not acted on
    assert main(["compare", str(f), "--resamples", "200", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)  # JSON stays valid; names as read (issue 30:
    assert set(data["methods"]) <= {nfc(n) for n in names}  # controls written as escapes)
    assert len(data["methods"]) == 2 and not any(CONTROLS.search(m) for m in data["methods"])


def test_cli_errors_print_no_escape_sequence(tmp_path, capsys):
    f = tmp_path / "bad.csv"
    f.write_text("case_id,A,B\nc1,1,0\nc2,\x1b]0;x\x07maybe,1\nc3,0,1\n", encoding="utf-8")
    assert main(["compare", str(f)]) == 2
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\x07" not in err and "maybe" in err


# ----------------------------------------------------------------------------- bounded work
def _xlsx_without_dimension(rows: int) -> bytes:
    """A sheet with ``rows`` one-cell rows and no <dimension> element: openpyxl cannot know
    its size before reading it (the issue's 0.6 MB, 2.3 M-row file, generated)."""
    head = ('<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.'
            'openxmlformats.org/spreadsheetml/2006/main"><sheetData>')
    body = "".join(f'<row r="{r}"><c r="A{r}"><v>1</v></c></row>' for r in range(1, rows + 1))
    files = {
        "[Content_Types].xml": '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats'
        '.org/package/2006/content-types"><Default Extension="rels" ContentType="application/'
        'vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType='
        '"application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/'
        'vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName='
        '"/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-'
        'officedocument.spreadsheetml.worksheet+xml"/></Types>',
        "_rels/.rels": '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats'
        '.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.'
        'openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target='
        '"xl/workbook.xml"/></Relationships>',
        "xl/workbook.xml": '<?xml version="1.0"?><workbook xmlns="http://schemas.openxmlformats'
        '.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/'
        'officeDocument/2006/relationships"><sheets><sheet name="S" sheetId="1" r:id="rId1"/>'
        '</sheets></workbook>',
        "xl/_rels/workbook.xml.rels": '<?xml version="1.0"?><Relationships xmlns="http://'
        'schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type='
        '"http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" '
        'Target="worksheets/sheet1.xml"/></Relationships>',
        "xl/worksheets/sheet1.xml": head + body + "</sheetData></worksheet>",
    }
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, text in files.items():
            zf.writestr(name, text)
    return buf.getvalue()


def test_xlsx_without_dimension_stops_at_the_cell_cap_while_streaming(monkeypatch):
    import core.inputs.tables as tables

    data = _xlsx_without_dimension(2_000)
    with pytest.raises(InputError) as err:  # a small cap stands in for the real one
        read_table(data, "nodim.xlsx", max_cells=500)
    assert err.value.code == "too_many_cells" and "500" in str(err.value)
    assert read_table(data, "nodim.xlsx").frame.shape == (1_999, 1)  # under the cap: read
    # the count made while openpyxl streams the rows stops at the cap as well (the header,
    # row 1, is not counted: row 502 holds the 501st data cell)
    monkeypatch.setattr(tables, "_count_xlsx_cells", lambda *a: None)
    with pytest.raises(InputError) as err:
        read_table(data, "nodim.xlsx", max_cells=500)
    assert err.value.code == "too_many_cells" and err.value.row == 502


def test_xlsx_count_sees_tags_split_across_chunks_and_namespaced_tags():
    import core.inputs.tables as tables

    data = _xlsx_without_dimension(60_000)  # ~3 MB of XML: several 1 MB chunks
    tables._count_xlsx_cells(data, "f.xlsx", 59_999)  # 60,000 cells, one the header's
    with pytest.raises(InputError):
        tables._count_xlsx_cells(data, "f.xlsx", 59_998)
    assert tables.MAX_XLSX_CELLS <= tables.MAX_CELLS


def test_xlsx_cap_counts_empty_rows_too(monkeypatch):
    """Millions of empty rows cost reading time too: each counts as at least one cell."""
    import core.inputs.tables as tables

    class Sheet:
        max_row = max_column = None  # no <dimension>

        def iter_rows(self, values_only=True):
            for _ in range(10 ** 9):
                yield ()

    with pytest.raises(InputError) as err:
        tables._xlsx_rows(Sheet(), "empty.xlsx", 10, 1_000)
    # the first (empty) row is the header, not counted: row 1,002 is the 1,001st
    assert err.value.code == "too_many_cells" and err.value.row == 1_002
    assert MAX_CELLS == 2_000_000


def test_cost_is_estimated_before_work_and_many_methods_fall_back_to_a_baseline():
    full = estimate_cost(999, 40, 20_000, "all")
    assert full.pairs == 999 * 998 // 2 and full.work == full.pairs * 40 * 20_000
    assert not full.fits
    mode, cost = plan_mode(999, 40, 20_000, "all")
    assert mode == "baseline" and cost.pairs == 998 and cost.fits
    assert plan_mode(10, 40, 20_000, "all") == ("all", estimate_cost(10, 40, 20_000))
    huge = estimate_cost(999, 1_000_000, 20_000, "baseline")
    assert huge.work > MAX_WORK
    mode, cost = plan_mode(999, 1_000_000, 20_000)  # neither fits: the caller refuses
    assert mode == "all" and not cost.fits
    assert MAX_PAIRS >= 45 * 44 // 2  # 45 methods, all pairs, still compared


def test_compare_many_refuses_too_much_work_before_running():
    import pandas as pd

    rng = np.random.default_rng(0)
    scores = pd.DataFrame(rng.integers(0, 2, size=(40, 60)).astype(float),
                          columns=[f"m{i}" for i in range(60)])
    with pytest.raises(InputError) as err:  # 1,770 pairs: more than MAX_PAIRS
        compare_many(scores, mode="all", resamples=20_000)
    assert err.value.code == "too_much_work" and "baseline" in str(err.value)
    many = compare_many(scores, mode="baseline", resamples=200)
    assert len(many.pairs) == 59


def test_cli_with_a_thousand_methods_compares_each_with_the_baseline(tmp_path, capsys):
    rng = np.random.default_rng(1)
    k, n = 999, 40
    header = ["case_id"] + [f"m{i}" for i in range(k)]
    rows = [[f"c{r}"] + [str(int(x)) for x in rng.random(k) < 0.5] for r in range(n)]
    f = tmp_path / "wide.csv"
    f.write_text(_wide(header, rows), encoding="utf-8")
    assert main(["compare", str(f), "--json", "--resamples", "200"]) == 0
    cap = capsys.readouterr()
    out = json.loads(cap.out)
    assert out["multiple"]["mode"] == "baseline" and len(out["pairs"]) == k - 1
    assert "baseline 'm0'" in cap.err and "498,501 pairs" in cap.err
