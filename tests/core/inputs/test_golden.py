"""Reading golden-case files in every accepted form, and refusing bad ones clearly."""
import io
from pathlib import Path

import numpy as np
import openpyxl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.errors import InputError
from core.inputs.golden import load_golden, parse_value
from core.inputs.systems import compare_golden
from core.inputs.tables import MAX_BYTES

ROOT = Path(__file__).resolve().parents[3]
DEMO = ROOT / "data" / "demo_golden.csv"

WIDE = "case_id,query,A,B\nq1,first,1,0\nq2,second,1,1\nq3,third,0,1\nq4,fourth,1,1\n"


def _load(text: str, name="t.csv", enc="utf-8"):
    return load_golden(text.encode(enc), name)


def test_demo_tells_the_story():
    r = compare_golden(load_golden(DEMO.read_bytes(), "demo_golden.csv"))
    d = r.to_dict()
    assert d["n_cases"] == 31
    m = d["methods"]
    assert m["title-only"]["successes"] == 26 and m["RRF"]["successes"] == 24
    assert round(m["title-only"]["rate"], 3) == 0.839 and round(m["RRF"]["rate"], 3) == 0.774
    # overlapping Wilson intervals, difference CI contains 0, verdict no difference
    assert m["RRF"]["ci_high"] > m["title-only"]["ci_low"]
    assert d["difference"]["ci_low"] < 0 < d["difference"]["ci_high"]
    assert d["verdict"] == "no_difference"
    assert d["resolution"] == pytest.approx(1 / 31)
    assert d["difference"]["ttest_p"] is None and d["difference"]["mcnemar_p"] is not None


@pytest.mark.parametrize("sep", [",", "\t", ";"])
def test_wide_with_each_delimiter(sep):
    gs = _load(WIDE.replace(",", sep))
    assert gs.methods == ["A", "B"] and gs.layout == "wide"
    assert list(gs.text.columns) == ["query"]
    assert gs.scores.loc["q3"].tolist() == [0.0, 1.0]


def test_utf8_bom_and_cp949_with_korean_headers_and_methods():
    text = "케이스,질문,제목검색,하이브리드\n1,비밀번호 재설정,O,X\n2,환불 규정,O,O\n3,청구서,X,O\n"
    for enc in ("utf-8-sig", "cp949", "euc-kr"):
        gs = _load(text, enc=enc)
        assert gs.methods == ["제목검색", "하이브리드"], enc
        assert gs.scores["제목검색"].tolist() == [1.0, 1.0, 0.0]
        assert gs.text.loc["1", "질문"] == "비밀번호 재설정"
    assert _load(text, enc="cp949").encoding == "cp949"


def test_xlsx():
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["case_id", "A", "B"])
    for i, (a, b) in enumerate([(1, 0), (True, False), ("yes", "no"), (0.5, 0.25)]):
        ws.append([f"c{i}", a, b])
    buf = io.BytesIO()
    wb.save(buf)
    gs = load_golden(buf.getvalue(), "golden.xlsx")
    assert gs.scores["A"].tolist() == [1.0, 1.0, 1.0, 0.5]
    assert gs.scores["B"].tolist() == [0.0, 0.0, 0.0, 0.25]


def test_long_format_pairs_by_case_id_not_row_order():
    text = ("Case_ID,Method,Score\n"
            "q1,A,1\nq2,A,0\nq3,A,1\n"
            "q3,B,0\nq1,B,1\nq2,B,1\n")
    gs = _load(text)
    assert gs.layout == "long" and gs.methods == ["A", "B"]
    assert gs.scores.loc["q3"].tolist() == [1.0, 0.0]
    assert gs.scores.loc["q2"].tolist() == [0.0, 1.0]


def test_value_words():
    for cell, v in [("1", 1), ("true", 1), ("Yes", 1), ("O", 1), ("o", 1), ("예", 1),
                    ("0", 0), ("FALSE", 0), ("no", 0), ("X", 0), ("0.75", .75), ("0,5", .5)]:
        assert parse_value(cell) == v, cell
    assert parse_value("  ") is None
    for bad in ("maybe", "1.5", "-0.1", "nan", "inf", "2"):
        with pytest.raises(ValueError):
            parse_value(bad)


def test_missing_duplicate_and_blank_are_reported_not_dropped_silently():
    text = ("case_id,method,score\n"
            "q1,A,1\nq1,B,0\n"
            "q2,A,1\n"                      # q2 missing for B
            "q3,A,1\nq3,B,\n"               # q3 blank for B
            "q4,A,1\nq4,A,0\nq4,B,1\n"      # q4 duplicated for A
            "q5,A,0\nq5,B,1\nq6,A,1\nq6,B,1\n")
    r = compare_golden(_load(text), "A", "B")
    assert r.excluded.missing == ("q2",)
    assert r.excluded.blank == ("q3",)
    assert r.excluded.duplicates == ("q4",)
    assert r.n_cases == 3 and set(r.case_ids) == {"q1", "q5", "q6"}
    d = r.to_dict()["excluded"]
    assert d == {"missing": ["q2"], "duplicates": ["q4"], "blank": ["q3"]}


def test_wide_duplicates_and_blanks():
    text = "case_id,A,B\nq1,1,0\nq1,0,0\nq2,1,\nq3,1,1\nq4,0,1\n"
    r = compare_golden(_load(text))
    assert r.excluded.duplicates == ("q1",) and r.excluded.blank == ("q2",)
    assert r.n_cases == 2


def test_bad_value_names_row_and_column():
    text = "case_id,A,B\nq1,1,0\nq2,1,1\nq3,maybe,1\nq4,1,1\n"
    with pytest.raises(InputError) as e:
        _load(text, "g.csv")
    assert e.value.row == 4 and e.value.column == "A" and e.value.file == "g.csv"
    msg = str(e.value)
    assert "row 4" in msg and "'A'" in msg and "maybe" in msg
    assert "4행" in e.value.message("ko")


def test_more_than_two_methods_pick_any_pair():
    text = "case_id,A,B,C\nq1,1,0,1\nq2,1,1,0\nq3,0,1,1\nq4,1,1,1\n"
    gs = _load(text)
    assert gs.methods == ["A", "B", "C"]
    r = compare_golden(gs, "C", "A")
    assert (r.comparison.a, r.comparison.b) == ("C", "A")
    with pytest.raises(InputError, match="no method 'Z'"):
        compare_golden(gs, "A", "Z")
    with pytest.raises(InputError):
        compare_golden(gs, "A", "A")


def test_continuous_scores_use_calibrated_t_intervals():
    """Issue 25: a method's interval of scores is the calibrated t (JSON names it and the
    studentized resamples it drew), the interval of the mean score ``mean_intervals`` gives."""
    from core.paired.method_intervals import mean_intervals

    text = "case_id,A,B\n" + "".join(f"q{i},{(i % 7) / 7:.3f},{(i % 5) / 5:.3f}\n"
                                     for i in range(40))
    r = compare_golden(_load(text), resamples=2_000)
    d = r.to_dict()
    assert d["binary"] is False
    m = d["methods"]["A"]
    assert m["interval"] == "calibrated_t" and "successes" not in m and m["resamples"] == 2_000
    a = np.array([(i % 7) / 7 for i in range(40)]).round(3)
    lo, hi, _ = mean_intervals(a, resamples=2_000, seed=0)
    assert (m["ci_low"], m["ci_high"]) == pytest.approx((lo[0], hi[0]), abs=1e-12)
    assert d["difference"]["mcnemar_p"] is None and d["difference"]["ttest_p"] is not None


@pytest.mark.parametrize("data,code", [
    (b"", "empty_file"),
    (b"case_id,A,B\n", "header_only"),
    (b"case_id,A,B\nq1,1,0\n", "too_few_cases"),
    (b"\x00\x01\x02garbage\xff\xfe" * 50, "binary_file"),
    (b"\xff\xfe\xfd\xfc" * 20, "bad_encoding"),
    (b"query,A,B\nhello,1,0\nbye,0,1\n", "no_case_id"),
    (b"case_id,query\nq1,hello\nq2,bye\n", "no_methods"),
    (b"PK\x03\x04not really a workbook", "bad_xlsx"),
    (b"case_id,A,A\nq1,1,0\nq2,0,1\n", "duplicate_column"),
    (b"case_id,A,B\n,1,0\nq2,0,1\n", "blank_case_id"),
])
def test_bad_files_raise_clear_input_errors(data, code):
    with pytest.raises(InputError) as e:
        load_golden(data, "bad.csv")
    assert e.value.code == code
    assert str(e.value) and "errors." not in str(e.value)  # a real message, not a key
    assert e.value.message("ko") != e.value.message("en")


def test_xlsx_that_would_inflate_too_far_is_refused():
    import zipfile
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("xl/worksheets/sheet1.xml", b"\0" * (201 * 2**20))  # compresses to ~200 KB
    with pytest.raises(InputError) as e:
        load_golden(buf.getvalue(), "bomb.xlsx")
    assert e.value.code == "xlsx_too_large" and "201 MB" in str(e.value)


def test_too_large_file_is_refused_before_parsing():
    with pytest.raises(InputError) as e:
        load_golden(b"a" * (MAX_BYTES + 1), "big.csv")
    assert e.value.code == "too_large" and "MB" in str(e.value)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=2000))
def test_hostile_bytes_raise_only_input_error(data):
    try:
        gs = load_golden(data, "fuzz.csv")
    except InputError:
        return
    assert len(gs.scores) >= 2


_cell = st.one_of(st.sampled_from(["", "1", "0", "O", "x", "yes", "0.5", "2", "-1", "nan",
                                   "q1", '"', "'", ",", ";", "\t", "\n", "케이스", "case_id"]),
                  st.text(max_size=8))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(_cell, min_size=1, max_size=5), min_size=1, max_size=8),
       st.sampled_from([",", "\t", ";"]), st.sampled_from(["utf-8", "utf-8-sig", "cp949"]))
def test_hostile_tables_raise_only_input_error(rows, sep, enc):
    text = "\n".join(sep.join(r) for r in rows)
    try:
        data = text.encode(enc)
    except UnicodeEncodeError:
        return
    try:
        gs = load_golden(data, "fuzz.csv")
        r = compare_golden(gs, resamples=1_000) if len(gs.methods) >= 2 else None
    except InputError:
        return
    assert len(gs.scores) >= 2
    if r is not None:
        assert np.isfinite(r.comparison.bootstrap.mean)


def test_column_parser_equals_parse_value_cell_by_cell():
    """``_parse_cells`` reads plain ASCII decimals with ``float`` (issue 25: one pass, no
    per-cell normalisation); every spelling gives what ``parse_value`` gives, and the cells
    it refuses are the ones ``parse_value`` refuses."""
    import math

    from core.inputs.golden import _parse_cells

    cells = ["1", "0", "1.0", "0.0", "-0", "+.5", ".25", "1.", "00.5", "1e-3", "1E-1", "5e-1",
             "2", "-0.1", "1e999", "nan", "inf", "0,5", "1,234", "85%", "８５％", "Ｏ", "x", "yes",
             "✓", "", " 0.5 ", "0.5.1", "1_0", "١", "e1", "."]
    values, bad = _parse_cells(cells)
    expected_bad = []
    for i, cell in enumerate(cells):
        try:
            v = parse_value(cell)
        except ValueError:
            expected_bad.append(i)
            assert math.isnan(values[i]), cell
            continue
        if v is None:
            assert math.isnan(values[i]), cell
        else:
            assert values[i] == v and math.copysign(1, values[i]) == math.copysign(1, v), cell
    assert bad == expected_bad


def test_a_group_column_is_read_as_groups_never_as_a_method():
    # numbers in the group column (length buckets 1/2) would otherwise read as a method
    gs = load_golden(b"case_id,group,A,B\nc1,1,1,0\nc2,2,0,1\nc3,1,1,1\n", "g.csv")
    assert gs.methods == ["A", "B"] and gs.group_column == "group"
    assert gs.groups.to_dict() == {"c1": "1", "c2": "2", "c3": "1"}
    long = load_golden("case_id,method,score,그룹\n1,A,1,ko\n1,B,0,ko\n2,A,1,en\n2,B,1,en\n"
                       .encode(), "l.csv")
    assert long.methods == ["A", "B"] and long.groups.to_dict() == {"1": "ko", "2": "en"}
    assert "그룹" not in long.text.columns
    assert gs.with_scores(gs.scores).groups is gs.groups
    assert load_golden(b"case_id,A,B\n1,1,0\n2,0,1\n", "n.csv").groups is None


def test_bad_group_values_name_file_row_and_column():
    with pytest.raises(InputError) as e:
        load_golden(b"case_id,group,A,B\n1,ko,1,0\n2,,0,1\n", "g.csv")
    assert (e.value.code, e.value.row, e.value.column, e.value.file) == \
        ("groups.err_blank", 3, "group", "g.csv")
    with pytest.raises(InputError) as e:
        load_golden(b"case_id,method,score,group\n1,A,1,ko\n1,B,0,en\n2,A,1,en\n2,B,1,en\n",
                    "l.csv")
    assert e.value.code == "groups.err_conflict" and e.value.row == 3
