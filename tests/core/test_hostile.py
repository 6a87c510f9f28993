"""Hostile and careless input (issue 12): formula injection in CSV exports, resource caps,
unreadable method columns, percentages, multi-sheet workbooks, Unicode-equal ids. Every
hostile file is generated here."""
import csv
import io
import time
import unicodedata

import numpy as np
import openpyxl
import pandas as pd
import pytest

from core.errors import InputError
from core.inputs.golden import load_golden, parse_value
from core.inputs.systems import compare_golden
from core.serialize import csv_cell, csv_safe, to_csv_bytes
from core.inputs.tables import read_table

EVIL = ['=HYPERLINK("http://evil","x")', "+cmd|' /C calc'!A0", "@SUM(A1)", "-2+3",
        "\tTAB", "\rCR"]


# ----------------------------------------------------------------------------- 1. CSV injection
def test_csv_cells_starting_with_formula_characters_are_prefixed():
    for cell in EVIL:
        assert csv_cell(cell) == "'" + cell
    assert csv_cell("q1") == "q1"
    assert csv_cell(-2.5) == -2.5 and csv_cell(3) == 3


def test_csv_export_neutralises_ids_headers_and_keeps_numbers():
    df = pd.DataFrame({"case_id": EVIL, "=bad": [1.0, 0.0, 1.0, 0.0, -1.0, 0.5],
                       "difference": [-1.0, 0.0, 1.0, -0.5, 0.25, 0.0]})
    out = to_csv_bytes(df).decode("utf-8-sig")
    rows = list(csv.reader(io.StringIO(out, newline="")))
    assert rows[0] == ["case_id", "'=bad", "difference"]
    for row, evil in zip(rows[1:], EVIL):
        assert row[0] == "'" + evil
    # numbers stay numbers: negative values are not prefixed and read back as floats
    back = pd.read_csv(io.StringIO(out, newline=""))
    np.testing.assert_array_equal(back["difference"].to_numpy(), df["difference"].to_numpy())
    assert back["'=bad"].dtype.kind == "f"
    # the caller's frame is untouched
    assert df["case_id"].tolist() == EVIL and "=bad" in df.columns


def test_csv_safe_rejects_non_frames():
    with pytest.raises(ValueError, match="df"):
        csv_safe([1, 2])


def test_golden_per_case_csv_from_hostile_ids_is_safe():
    body = "case_id,bm25,dense\n" + "".join(
        f'"{e.replace(chr(34), chr(34) * 2)}",{i % 2},{(i + 1) % 2}\n'
        for i, e in enumerate(EVIL[:4] + ["ok1", "ok2"]))
    gs = load_golden(body.encode(), "evil.csv")
    res = compare_golden(gs, resamples=200)
    per_case = pd.DataFrame({"case_id": list(res.case_ids), "bm25": res.a_values,
                             "dense": res.b_values})
    text = to_csv_bytes(per_case).decode("utf-8-sig")
    for e in EVIL[:4]:
        assert "\n" + e not in text and "'" + e.split('"')[0] in text


# ----------------------------------------------------------------------------- 4. caps
def test_a_million_columns_is_refused_quickly_before_parsing():
    data = ("case_id," + ",".join("m" for _ in range(1_000_000)) + "\n").encode()
    assert len(data) < 10 * 2**20
    t0 = time.perf_counter()
    with pytest.raises(InputError) as err:
        read_table(data, "wide.csv")
    assert err.value.code == "too_many_columns"
    assert "1,000" in str(err.value) and "wide.csv" in str(err.value)
    print(f"refused in {time.perf_counter() - t0:.2f} s")


def test_too_many_cells_is_refused_with_the_row():
    rows = "case_id,a,b,c\n" + "x,1,0,1\n" * 600
    with pytest.raises(InputError) as err:
        read_table(rows.encode(), "big.csv", max_cells=2_000)
    # the header names the columns and is not counted (issue 30): rows 2-502 hold 2,004 cells
    assert err.value.code == "too_many_cells" and err.value.row == 502


def test_caps_are_checked_at_the_door():
    with pytest.raises(ValueError, match="max_columns"):
        read_table(b"a,b\n1,2\n", max_columns=0)
    with pytest.raises(ValueError, match="max_cells"):
        read_table(b"a,b\n1,2\n", max_cells=-1)


# ----------------------------------------------------------------------------- 7. no silent loss
def test_numeric_column_with_many_unreadable_cells_is_an_error_not_text():
    rows = ["case_id,bm25,dense,rerank"]
    for i in range(10):
        rerank = "err" if i < 7 else "1"
        rows.append(f"q{i},{i % 2},{(i + 1) % 2},{rerank}")
    with pytest.raises(InputError) as err:
        load_golden("\n".join(rows).encode(), "three.csv")
    e = err.value
    assert e.code == "bad_values_column" and e.column == "rerank" and e.row == 2
    assert "'err'" in str(e) and "2, 3, 4, 5, 6" in str(e)


def test_plain_word_column_stays_text_and_hinted_columns_stay_text():
    rows = ["case_id,bm25,dense,category,notes"]
    for i in range(6):
        rows.append(f"q{i},{i % 2},{(i + 1) % 2},topic{i},see 1")
    gs = load_golden("\n".join(rows).encode(), "ok.csv")
    assert gs.methods == ["bm25", "dense"]
    assert list(gs.text.columns) == ["category", "notes"]


@pytest.mark.parametrize("cell,value", [("85%", 0.85), ("85 %", 0.85), ("0%", 0.0),
                                        ("100%", 1.0), ("12,5%", 0.125)])
def test_percentages_are_read_as_fractions(cell, value):
    assert parse_value(cell) == pytest.approx(value)


@pytest.mark.parametrize("cell", ["150%", "-5%", "%", "abc%"])
def test_bad_percentages_are_refused(cell):
    with pytest.raises(ValueError):
        parse_value(cell)


def test_percent_column_is_a_method():
    body = "case_id,a,b\nq1,85%,40 %\nq2,15%,60%\nq3,50%,50%\n"
    gs = load_golden(body.encode(), "pct.csv")
    np.testing.assert_allclose(gs.scores["a"], [0.85, 0.15, 0.5])
    np.testing.assert_allclose(gs.scores["b"], [0.40, 0.60, 0.5])


# ----------------------------------------------------------------------------- 8. workbooks
def _workbook(sheets: dict, formulas: dict | None = None) -> bytes:
    wb = openpyxl.Workbook()
    wb.remove(wb.active)
    for name, rows in sheets.items():
        ws = wb.create_sheet(name)
        for row in rows:
            ws.append(row)
    for (sheet, cell), formula in (formulas or {}).items():
        wb[sheet][cell] = formula
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def test_first_sheet_with_the_expected_columns_is_read_and_named():
    data = _workbook({"Notes": [["about"], ["written by the team"]],
                      "Results": [["case_id", "bm25", "dense"], ["q1", 1, 0], ["q2", 0, 1],
                                  ["q3", 1, 1]],
                      "Old": [["case_id", "x", "y"], ["q1", 1, 1], ["q2", 1, 1]]})
    gs = load_golden(data, "book.xlsx")
    assert gs.sheet == "Results" and gs.other_sheets == ("Notes", "Old")
    assert gs.methods == ["bm25", "dense"]
    assert gs.scores.loc["q2", "dense"] == 1.0


def test_workbook_without_a_matching_sheet_lists_them():
    data = _workbook({"A": [["x", "y"], [1, 2]], "B": [["z"], [3]]})
    with pytest.raises(InputError) as err:
        load_golden(data, "book.xlsx")
    assert err.value.code == "xlsx_no_sheet" and "A, B" in str(err.value)


def test_formula_without_cached_value_is_named():
    data = _workbook({"S": [["case_id", "a", "b"], ["q1", 1, 0], ["q2", 0, 1], ["q3", 1, 1]]},
                     formulas={("S", "C3"): "=A1+1"})
    with pytest.raises(InputError) as err:
        load_golden(data, "f.xlsx")
    e = err.value
    assert e.code == "xlsx_formula_no_value" and e.row == 3 and e.column == "C"
    assert "=A1+1" in str(e)


# ----------------------------------------------------------------------------- 9. unicode
def test_ids_and_method_names_are_nfc_normalised_and_merges_reported():
    nfd = unicodedata.normalize("NFD", "케이스1")
    nfc = unicodedata.normalize("NFC", "케이스1")
    assert nfd != nfc
    meth_nfd = unicodedata.normalize("NFD", "검색")
    body = (f"case_id, {meth_nfd} ,dense\n{nfd},1,0\n {nfc} ,0,1\nq2,1,1\nq3,0,0\n")
    gs = load_golden(body.encode(), "u.csv")
    assert gs.methods == ["검색", "dense"]
    assert nfc in gs.duplicates
    assert gs.unicode_merged == {nfc: (2, 3)}


def test_long_layout_unicode_merge_reported():
    a = unicodedata.normalize("NFD", "질문")
    b = unicodedata.normalize("NFC", "질문")
    body = (f"case_id,method,score\n{a},x,1\n{b},x,0\nq2,x,1\n{b},y,1\nq2,y,0\n"
            "q3,x,1\nq3,y,1\n")
    gs = load_golden(body.encode(), "l.csv")
    assert gs.unicode_merged == {b: (2, 3)}
    assert b in gs.duplicates


# ----------------------------------------------------------------------------- 3. BEIR folder
import shutil  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402

from core.__main__ import main  # noqa: E402
from core.retrieval.beir import beir_folders, check_dir, excerpt, load_beir  # noqa: E402
from tests.shared_data import ROOT, TINY  # noqa: E402

SECRET = "TOP-SECRET\tpassword\thunter2-do-not-print"


@pytest.fixture
def linked(tmp_path):
    """A BEIR folder whose qrels file is a symlink to a secret file outside it."""
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET + "\n")
    folder = tmp_path / "col"
    shutil.copytree(TINY, folder)
    (folder / "qrels" / "test.tsv").unlink()
    (folder / "qrels" / "test.tsv").symlink_to(secret)
    return folder


def test_file_linked_out_of_the_folder_is_refused_unread(linked):
    with pytest.raises(InputError) as err:
        load_beir(linked)
    e = err.value
    assert e.code == "scifact.err_outside" and "qrels/test.tsv" in str(e)
    assert "SECRET" not in str(e) and "hunter2" not in str(e)


def test_cli_with_linked_file_exits_2_without_the_secret(linked, capsys):
    assert main(["scifact", "--data", str(linked), "--a", "bm25", "--b", "hybrid"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "outside this folder" in err
    assert "SECRET" not in err and "hunter2" not in err


def test_symlinked_folder_itself_and_inner_links_are_fine(tmp_path):
    real = tmp_path / "real"
    shutil.copytree(TINY, real)
    (tmp_path / "alias").symlink_to(real, target_is_directory=True)
    assert check_dir(tmp_path / "alias") == real.resolve()
    (real / "queries.jsonl").rename(real / "q_orig.jsonl")
    (real / "queries.jsonl").symlink_to(real / "q_orig.jsonl")  # stays inside
    assert load_beir(tmp_path / "alias").n_queries == 12


def test_file_content_quoted_in_errors_is_a_short_excerpt(tmp_path):
    folder = tmp_path / "col"
    shutil.copytree(TINY, folder)
    long_id = "x" * 500 + "\x1b[31m"
    (folder / "qrels" / "test.tsv").write_text(f"query-id\tcorpus-id\tscore\nq1\t{long_id}\t1\n")
    with pytest.raises(InputError) as err:
        load_beir(folder)
    msg = str(err.value)
    assert "x" * 39 + "…" in msg and "x" * 41 not in msg and "\x1b" not in msg
    assert excerpt("a\nb\tc") == "a b c"


def test_page_folder_choices(tmp_path, monkeypatch):
    monkeypatch.setenv("NOISEFLOOR_BEIR_DIR", str(tmp_path / "mine"))
    found = beir_folders()
    assert found[0] == tmp_path / "mine"
    assert all(f.parent.name == "beir" for f in found[1:])


# ----------------------------------------------------------------------------- 4. --max-docs
def test_cli_max_docs_refuses_big_collections_before_encoding(capsys, monkeypatch):
    def no_encoding(*a, **kw):
        raise AssertionError("nothing may be encoded above --max-docs")

    monkeypatch.setattr("core.retrieval.scifact.run_retrievers", no_encoding)
    assert main(["scifact", "--data", str(TINY), "--max-docs", "24"]) == 2
    err = capsys.readouterr().err
    assert "25 documents" in err and "limit is 24" in err and "--max-docs" in err


def test_cli_max_docs_default_is_50000():
    p = subprocess.run([sys.executable, "-m", "core", "scifact", "--help"], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert "--max-docs" in p.stdout and "50,000" in p.stdout
    assert main(["scifact", "--data", str(TINY), "--max-docs", "0"]) == 2
