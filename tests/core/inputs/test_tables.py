"""core.inputs.tables: the one number parser (``parse_number`` / ``parse_numbers``), header matching,
decoding, delimiter sniffing and ``read_table``'s string cells with spreadsheet row numbers."""
import io
import itertools
import math

import numpy as np
import openpyxl
import pandas as pd
import pytest

from core.errors import InputError
from core.inputs.tables import (AmbiguousNumber, check_shape, decode_text, find_column,
                         norm_header, openpyxl_column, parse_number, parse_numbers, read_table,
                         sniff_delimiter)


# ----------------------------------------------------------------------------- numbers
@pytest.mark.parametrize("text,value", [
    ("0.75", 0.75), ("0,75", 0.75), ("12,5", 12.5), ("-0,5", -0.5), (",5", 0.5),
    (" 3 ", 3.0), ("1e-3", 1e-3), ("1,5e2", 150.0), ("0,750", 0.75), ("1234", 1234.0),
    ("12,50", 12.5), ("1,2345", 1.2345), ("+2", 2.0)])
def test_parse_number_reads_points_and_one_decimal_comma(text, value):
    assert parse_number(text) == pytest.approx(value, abs=0, rel=1e-15)


@pytest.mark.parametrize("text", ["1,234", "12,500", "999,000", "-1,000", "+5,250"])
def test_a_comma_before_three_digits_is_ambiguous(text):
    with pytest.raises(AmbiguousNumber) as e:
        parse_number(text)
    assert isinstance(e.value, ValueError)
    assert e.value.decimal == text.replace(",", ".")
    assert e.value.thousands == text.replace(",", "")


@pytest.mark.parametrize("text", ["", "abc", "1.234,5", "1,2,3", "0x10", "1 2", "%"])
def test_parse_number_refuses_what_is_not_a_number(text):
    with pytest.raises(ValueError):
        parse_number(text)


def test_parse_number_leaves_range_checks_to_the_caller():
    assert math.isnan(parse_number("nan")) and parse_number("-inf") == -math.inf


CELLS = ["1", "12,5", "0,5", "nan", "inf", "-inf", "1_000", "True", "NA", "", "  3 ", "1e3",
         "1,5e2", "1.234,5", "1,2,3", "0,750", "-0,5", "+2", ".5", ",5", "1e400", "0x10",
         "null", "1.5 ", "٣"]


def _one_by_one(cells):
    out = []
    for c in cells:
        try:
            out.append(parse_number(c))
        except ValueError:
            out.append(np.nan)
    return np.array(out)


def test_parse_numbers_is_parse_number_for_a_column():
    col = pd.Series(CELLS, index=range(2, 2 + len(CELLS)))
    got = parse_numbers(col, file="f.csv", column="x")
    np.testing.assert_array_equal(got, _one_by_one(CELLS))  # NaN where NaN, same floats
    assert got.dtype == np.float64 and len(got) == len(CELLS)
    assert col.tolist() == CELLS  # the input is not changed


def test_parse_numbers_names_the_first_ambiguous_cell():
    col = pd.Series(["12,5", "3", "1,500", "2,250"], index=[2, 3, 4, 5])
    with pytest.raises(InputError) as e:
        parse_numbers(col, file="t.csv", column="ms")
    err = e.value
    assert (err.code, err.file, err.row, err.column) == ("ambiguous_number", "t.csv", 4, "ms")
    assert err.params["count"] == 2 and "1500" in str(err) and "1.500" in str(err)
    assert "1500" in err.message("ko")


def test_parse_numbers_fast_path_keeps_plain_numbers_exact():
    x = np.random.default_rng(0).random(1000)
    col = pd.Series([repr(float(v)) for v in x])
    np.testing.assert_array_equal(parse_numbers(col, file="f", column="c"), x)


# ----------------------------------------------------------------------------- headers
def test_norm_header_and_find_column():
    assert norm_header("  Case - ID ") == "case_id"
    assert norm_header("질의 id") == "질의_id"
    cols = ["Query", "Case ID", "case_id"]
    assert find_column(cols, ("case_id", "id")) == "Case ID"  # the first that matches
    assert find_column(cols, ("nothing",)) is None
    assert find_column(["DENSE"], ("dense",), key=str.lower) == "DENSE"


def test_control_characters_in_ascii_columns_are_made_visible_and_reported():
    """The all-ASCII fast path of the cell reader still catches controls (they are ASCII),
    in headers and cells, and says which cells it changed."""
    from core.inputs.tables import read_cells, read_table

    data = "case_id,new\x1b[31mB,A\nq\x071,1,0\nq2,0,1\n".encode()
    t = read_table(data, "c.csv")
    assert list(t.frame.columns) == ["case_id", "new\\u001b[31mB", "A"]
    assert t.frame["case_id"].tolist() == ["q\\u00071", "q2"]
    assert t.normalized == {"case_id": (2,)}
    cells = read_cells(data, "c.csv")
    assert cells.names[1] == "new\\u001b[31mB" and cells.columns[0][0] == "q\\u00071"


# ----------------------------------------------------------------------------- decoding
def test_decode_text_utf8_bom_and_cp949():
    assert decode_text("a,b\n".encode("utf-8-sig"), "f") == ("a,b\n", "utf-8-sig")
    text, enc = decode_text("질의,점수\n".encode("cp949"), "f")
    assert (text, enc) == ("질의,점수\n", "cp949")
    with pytest.raises(InputError) as e:
        decode_text(b"a\x00b", "bin.csv")
    assert e.value.code == "binary_file" and e.value.file == "bin.csv"


@pytest.mark.parametrize("text,delim", [("a,b,c\n1,2,3\n", ","), ("a\tb\n1\t2\n", "\t"),
                                        ("a;b\n1,5;2\n", ";")])
def test_sniff_delimiter(text, delim):
    assert sniff_delimiter(text) == delim


def test_check_shape_stops_at_the_first_row_too_wide_or_too_many_cells():
    check_shape([["a", "b"], ["1", "2"]], "f", max_columns=2, max_cells=4)
    with pytest.raises(InputError) as e:
        check_shape([["a"], ["1", "2", "3"]], "f", max_columns=2)
    assert (e.value.code, e.value.row) == ("too_many_columns", 2)
    with pytest.raises(InputError) as e:
        check_shape([["a", "b"]] * 4, "f", max_cells=5)
    assert (e.value.code, e.value.row) == ("too_many_cells", 4)


def test_the_cell_cap_counts_data_cells_not_the_header():
    """Issue 30: a 500,000 x 4 log with exactly 2,000,000 data cells was refused because the
    header row counted; here a cap of 8 with a 4-column header and 2 data rows (8 cells)."""
    from core.inputs.tables import read_cells

    rows = [[], ["h1", "h2", "h3", "h4"], ["1", "2", "3", "4"], ["5", "6", "7", "8"]]
    check_shape(rows, "f", max_cells=8)  # a blank line before the header changes nothing
    data = b"h1,h2,h3,h4\n1,2,3,4\n5,6,7,8\n"
    assert read_cells(data, "f.csv", max_cells=8).columns[3] == ["4", "8"]
    with pytest.raises(InputError) as e:
        read_cells(data + b"9,9,9,9\n", "f.csv", max_cells=8)
    assert (e.value.code, e.value.row) == ("too_many_cells", 4)


def _xlsx_of(rows) -> bytes:
    import openpyxl

    wb = openpyxl.Workbook()
    for row in rows:
        wb.active.append(row)
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


@pytest.mark.parametrize("kind", ["csv", "xlsx"])
def test_csv_and_xlsx_cap_the_same_cells_at_the_boundary(kind):
    """Issue 30: the cap counts data cells, never the header, in a CSV file and a workbook
    alike (the xlsx path counted its header row twice over: in the zip pre-count and while
    streaming). Header of 4 + 3 rows of 4 = 12 data cells: read at a cap of 12, refused at
    11 naming the last row."""
    from core.inputs.tables import read_cells

    rows = [["case_id", "a", "b", "c"]] + [[f"q{i}", "1", "0", "1"] for i in range(3)]
    data = _xlsx_of(rows) if kind == "xlsx" else \
        "".join(",".join(r) + "\n" for r in rows).encode()
    name = f"f.{kind}"
    table = read_cells(data, name, max_cells=12)
    assert table.rows == (2, 3, 4) and table.column("c") == ["1", "1", "1"]
    with pytest.raises(InputError) as e:
        read_cells(data, name, max_cells=11)
    assert e.value.code == "too_many_cells" and "11" in str(e.value)
    if kind == "csv":
        assert e.value.row == 4


def test_the_xlsx_streaming_count_and_its_zip_pre_count_agree_with_csv():
    """Each of the two xlsx counts on its own, at the boundary: the pre-count over the zip's
    XML (``_count_xlsx_cells``) and the count while openpyxl streams (``_xlsx_rows``)."""
    import core.inputs.tables as tables

    rows = [["case_id", "a", "b", "c"]] + [[f"q{i}", "1", "0", "1"] for i in range(3)]
    data = _xlsx_of(rows)
    tables._count_xlsx_cells(data, "f.xlsx", 12)
    with pytest.raises(InputError):
        tables._count_xlsx_cells(data, "f.xlsx", 11)

    class Sheet:  # openpyxl's read-only rows, as tuples
        def iter_rows(self, values_only=True):
            return iter([tuple(r) for r in rows])

    assert len(tables._xlsx_rows(Sheet(), "f.xlsx", 10, 12)) == 4
    with pytest.raises(InputError) as e:
        tables._xlsx_rows(Sheet(), "f.xlsx", 10, 11)
    assert (e.value.code, e.value.row) == ("too_many_cells", 4)


def test_the_real_caps_hold_exactly_their_data_cells():
    """At the real limits: a CSV of 500,000 x 4 data cells (2,000,000) under a 4-cell header
    passes the cap and one more cell does not; a workbook's 125,000 x 4 (= MAX_XLSX_CELLS)
    the same, streamed."""
    import core.inputs.tables as tables

    header, row = ["q", "a", "b", "c"], ["x", "1", "0", "1"]
    assert tables.MAX_CELLS == 2_000_000 and tables.MAX_XLSX_CELLS == 500_000
    check_shape(itertools.chain([header], itertools.repeat(row, 500_000)), "f.csv")
    with pytest.raises(InputError) as e:
        check_shape(itertools.chain([header], itertools.repeat(row, 500_000), [["x"]]),
                    "f.csv")
    assert (e.value.code, e.value.row) == ("too_many_cells", 500_002)

    class Sheet:
        def __init__(self, extra):
            self.extra = extra

        def iter_rows(self, values_only=True):
            return itertools.chain([tuple(header)], itertools.repeat(tuple(row), 125_000),
                                   [("x",)] * self.extra)

    cap = tables.MAX_XLSX_CELLS
    assert len(tables._xlsx_rows(Sheet(0), "f.xlsx", 1_000, cap)) == 125_001
    with pytest.raises(InputError) as e:
        tables._xlsx_rows(Sheet(1), "f.xlsx", 1_000, cap)
    assert (e.value.code, e.value.row) == ("too_many_cells", 125_002)


def test_an_xlsx_declaring_the_whole_sheet_is_read_by_its_real_cells():
    """Issue 30: ``<dimension ref="A1:XFD1048576"/>`` over 3 real columns used to be refused
    as 16,384 columns; the declaration is not trusted, the cells are read."""
    import re
    import zipfile

    from core.inputs.tables import read_table

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["case_id", "A", "B"])
    for i in range(6):
        ws.append([f"c{i}", i % 2, None if i == 3 else 1])
    buf = io.BytesIO()
    wb.save(buf)
    src = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            body = src.read(info)
            if info.filename == "xl/worksheets/sheet1.xml":
                body, n = re.subn(rb'<dimension ref="[^"]*"', b'<dimension ref="A1:XFD1048576"',
                                  body)
                assert n == 1
            dst.writestr(info, body)
    t = read_table(out.getvalue(), "whole.xlsx")
    assert list(t.frame.columns) == ["case_id", "A", "B"] and len(t.frame) == 6
    assert t.frame["B"].tolist() == ["1", "1", "1", "", "1", "1"]


def test_openpyxl_column_letters():
    assert [openpyxl_column(i) for i in (1, 26, 27, 703)] == ["A", "Z", "AA", "AAA"]


# ----------------------------------------------------------------------------- read_table
def test_read_table_gives_string_cells_numbered_as_a_spreadsheet():
    raw = read_table(b"case_id;A;B\nq1;0,5;1\n;;\nq2;;0\n", "eu.csv")
    assert (raw.delimiter, raw.encoding, raw.sheet) == (";", "utf-8-sig", None)
    assert list(raw.frame.columns) == ["case_id", "A", "B"]
    assert raw.frame.loc[2].tolist() == ["q1", "0,5", "1"]
    assert raw.frame.loc[4].tolist() == ["q2", "", "0"]  # row 3 is blank in every cell: left out, numbering kept
    assert parse_numbers(raw.frame["A"], file=raw.file, column="A")[0] == 0.5


def test_read_table_xlsx_reads_the_sheet_with_the_required_columns():
    wb = openpyxl.Workbook()
    wb.active.title = "Notes"
    wb.active.append(["nothing here"])
    ws = wb.create_sheet("Data")
    for row in (["case_id", "A"], ["q1", 1.0], ["q2", 0.25]):
        ws.append(row)
    buf = io.BytesIO()
    wb.save(buf)
    raw = read_table(buf.getvalue(), "book.xlsx", required=(("case_id",),))
    assert (raw.sheet, raw.other_sheets, raw.delimiter) == ("Data", ("Notes",), None)
    assert raw.frame["A"].tolist() == ["1", "0.25"]  # Excel's 1.0 reads as "1"


@pytest.mark.parametrize("data,code", [(b"", "empty_file"), (b"a,b\n", "header_only"),
                                       (b"a,,b\n1,2,3\n", "blank_header"),
                                       (b"a,a\n1,2\n", "duplicate_column")])
def test_read_table_refuses_with_a_code(data, code):
    with pytest.raises(InputError) as e:
        read_table(data, "x.csv")
    assert e.value.code == code and e.value.file == "x.csv"


def test_read_table_checks_its_arguments():
    with pytest.raises(InputError):
        read_table("text, not bytes", "x.csv")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_columns"):
        read_table(b"a\n1\n", "x.csv", max_columns=0)


# ----------------------------------------------------------------------------- every reader
def _readers():
    """(reader name, function of one cell's text -> the number that reader keeps)."""
    from core.agreement.files import load_labels, load_run
    from core.retrieval.beir_grid import load_grid
    from core.retrieval.beir_upload import parse_user_column
    from core.inputs.golden import load_golden
    from core.latency.log import load_timings
    from core.inputs.trec import read_run

    def golden(cell):
        return load_golden(f"case_id;A;B\nq1;{cell};1\nq2;1;0\n".encode(), "g.csv") \
            .scores["A"].iloc[0]

    def latency(cell):
        return load_timings(f"query_id;A;B\nq1;{cell};3\n".encode(), "l.csv") \
            .frame["latency_ms"].iloc[0]

    def labels(cell):
        return float(load_labels(f"query_id;doc_id;gold;crowd\nq1;d1;{cell};1\n".encode(),
                                 "lab.csv").gold[0])

    def rank_table(cell):
        run = load_run(f"query_id;doc_id;rank\nq1;d1;{cell}\n".encode(), "r.csv")
        return -run.docs["q1"]["d1"]

    def beir(cell):
        col = parse_user_column(f"dataset;ndcg@10\nscifact;{cell}\n".encode(), load_grid(),
                                "mine.csv")
        return next(iter(col.values.values()))

    def trec(cell):
        return read_run(f"q1 Q0 d1 1 {cell} t\n".encode(), "x.run").docs["q1"]["d1"]

    return {"golden": golden, "latency": latency, "labels": labels, "rank_table": rank_table,
            "beir": beir, "trec": trec}


@pytest.mark.parametrize("cell", ["0,5", "1,0", "0,25"])
def test_every_reader_reads_a_decimal_comma_as_parse_number_does(cell):
    want = parse_number(cell)
    for name, read in _readers().items():
        if name in ("labels", "rank_table") and not want.is_integer():
            continue  # labels are 0/1/2 and ranks whole: only "1,0" is one of those
        assert read(cell) == want, name
    assert _readers()["latency"]("12,5") == 12.5  # the latency log refused this before


def test_every_reader_refuses_an_ambiguous_comma_naming_the_cell():
    for name, read in _readers().items():
        with pytest.raises(InputError) as e:
            read("1,000")
        if name == "golden":  # golden outcomes are 0-1: an unreadable outcome, with its row
            assert e.value.code in ("bad_value", "bad_values_column") and e.value.row == 2
        else:
            assert e.value.code == "ambiguous_number", name
            assert e.value.row in (1, 2) and "1.000" in str(e.value), name


def test_newlines_and_read_csv_rows():
    from core.inputs.tables import newlines, read_csv_rows

    assert newlines("a\r\nb\rc\n") == "a\nb\nc\n"
    rows = read_csv_rows('id,"x, y"\n\nq1,"two\nlines"\n', ",", "f.csv")
    assert rows == [["id", "x, y"], ["q1", "two\nlines"]]  # blank line skipped, quotes kept
    with pytest.raises(InputError) as e:
        read_csv_rows("a,b\n1,2,3,4\n", ",", "wide.csv", max_columns=3)
    assert (e.value.code, e.value.row) == ("too_many_columns", 2)


def test_ascii_and_ragged_tables_read_like_the_general_path():
    """The column-wise reader's shortcuts (issue 25: ASCII bytes skip the CP949 comparison,
    ASCII columns skip NFC, rectangular CSVs are transposed in one step) give the frame the
    general path gives: ragged rows pad with "", cells are stripped, NFC still applies to the
    non-ASCII columns and is reported."""
    from core.inputs.tables import decode_text, read_table

    assert decode_text(b"a,b\n1,2\n", "x.csv") == ("a,b\n1,2\n", "utf-8-sig")
    ragged = read_table(b"case_id,A,B\nq1, 1 \nq2,0,1,\n", "r.csv")
    assert ragged.frame.to_dict("list") == {"case_id": ["q1", "q2"], "A": ["1", "0"],
                                            "B": ["", "1"]}
    nfd = "case_id,A\n" + "\u1112\u1161\u11ab" + ",1\nq2,0\n"
    t = read_table(nfd.encode(), "n.csv")
    assert t.frame["case_id"].tolist() == ["\ud55c", "q2"]
    assert t.normalized == {"case_id": (2,)}
    square = read_table(b"case_id,A\n q1 ,1\nq2,0\n", "s.csv")
    assert square.frame["case_id"].tolist() == ["q1", "q2"] and square.normalized == {}
