"""core.inputs.golden_cases and the pandas-free compare path (issue 25): ``python -m core compare`` on
a golden file imports no pandas (nor numba for 0/1 outcomes, nor scipy.stats), and the
pandas-free reader (``core.inputs.tables.read_cells``, ``core.inputs.golden.from_cells``) gives exactly what
the pandas reader it replaced gave: the same frames (built lazily from numpy arrays), the
same exclusions, the same errors, the same comparison. The reference below is that pandas
reader as it was (commit 7e20cae), kept here as the oracle."""
from __future__ import annotations

import csv
import io
import math
import subprocess
import sys
import unicodedata
from pathlib import Path

import numpy as np
import openpyxl
import pandas as pd
import pytest

from core.errors import InputError
from core.inputs.golden import (_PLAIN_NUMBER, CASE_ID_NAMES, METHOD_NAMES, SCORE_NAMES, TEXT_HINTS,
                         CaseScores,
                         GoldenSet, _is_number, check_method_names, load_golden, parse_value)
from core.inputs.systems import compare_golden
from core.inputs.golden_cases import CaseText, stored_form
from core.inputs.groups import MAX_GROUP_CHARS, MAX_GROUPS, group_column, is_group_column
from core.paired.compare import compare_paired
from core.inputs.tables import (RawTable, _columns, _nfc_column, decode_text, find_column, newlines,
                         nfc, norm_header, read_cells, read_csv_rows, read_table,
                         sniff_delimiter)

ROOT = Path(__file__).resolve().parents[3]


# ------------------------------------------------------------------ the oracle (pandas)
def _old_frame_from_rows(rows: list[list], file: str, *,
                     strings: bool = False) -> tuple:
    """First row -> header (read ourselves, so repeated names are seen, not renamed).
    Headers and cells are NFC-normalised and stripped; returns the frame of the remaining
    rows (index: spreadsheet row numbers, rows blank in every cell dropped) and the
    ``{column: (row, ...)}`` of cells whose text NFC changed (so callers can say so).
    Works column by column on the parsed rows; a pandas frame is built once, at the end."""
    if not rows:
        raise InputError("empty_file", file=file)
    width = max(len(r) for r in rows)
    if width == 0:
        raise InputError("empty_file", file=file)
    first = rows[0]
    header = [nfc("" if j >= len(first) or first[j] is None else str(first[j]))
              for j in range(width)]
    raw = _columns(rows, width, strings)
    body = [_nfc_column(col) for col in raw]
    keep = []
    for pos, name in enumerate(header):
        if name == "":
            if any(c != "" for c in body[pos]):
                raise InputError("blank_header", file=file, column=str(pos + 1))
            continue  # an empty column with no header (trailing delimiter): nothing to lose
        keep.append(pos)
    names = [header[p] for p in keep]
    seen = set()
    for name in names:
        if name in seen:
            raise InputError("duplicate_column", file=file, column=name)
        seen.add(name)
    n = len(rows) - 1
    frame = pd.DataFrame({j: body[p] for j, p in enumerate(keep)}, index=pd.RangeIndex(2, 2 + n),
                         columns=range(len(keep)), dtype=str)
    frame.columns = names
    normalized = {}
    for j, p in enumerate(keep):
        if body[p] is not raw[p]:
            changed = tuple(i + 2 for i, (a, b) in enumerate(zip(raw[p], body[p])) if a != b)
            if changed:
                normalized[names[j]] = changed
    # Drop rows that are blank in every cell (trailing Excel rows); keep numbering stable.
    return frame[(frame != "").any(axis=1)], normalized



def _old_read_group_cells(frame: pd.DataFrame, id_col: str, col: str, file: str) -> pd.Series:
    """The group of each case id from ``frame[col]`` (a ``core.inputs.tables.RawTable`` frame: index =
    spreadsheet row, string cells): a Series indexed by case id (first-seen order).

    ``InputError`` naming file, row and column for a blank label (``groups.err_blank``), a
    label longer than ``MAX_GROUP_CHARS`` (``groups.err_too_long``), one case id given two
    labels on different rows (``groups.err_conflict``) and more than ``MAX_GROUPS`` labels
    (``groups.err_too_many``)."""
    cells = frame[col]
    blank = [int(r) for r in cells.index[cells == ""]]
    if blank:
        raise InputError("groups.err_blank", file=file, row=blank[0], column=col,
                         count=len(blank))
    long = [int(r) for r in cells.index[cells.str.len() > MAX_GROUP_CHARS]]
    if long:
        raise InputError("groups.err_too_long", file=file, row=long[0], column=col,
                         value=cells[long[0]][:MAX_GROUP_CHARS] + "…",
                         limit=MAX_GROUP_CHARS)
    seen: dict[str, tuple[str, int]] = {}
    for row, cid, g in zip(frame.index, frame[id_col], cells):
        if cid in seen and seen[cid][0] != g:
            raise InputError("groups.err_conflict", file=file, row=int(row), column=col,
                             case=cid, first=seen[cid][0], second=g, first_row=seen[cid][1])
        seen.setdefault(cid, (g, int(row)))
    labels = list(dict.fromkeys(g for g, _ in seen.values()))
    if len(labels) > MAX_GROUPS:
        raise InputError("groups.err_too_many", file=file, column=col, count=len(labels),
                         limit=MAX_GROUPS, examples=", ".join(labels[:5]))
    return pd.Series({cid: g for cid, (g, _) in seen.items()}, name="group", dtype=object)


def _old_groups_from_table(raw, id_col):
    col = group_column(raw.frame.columns)
    if col is None:
        return None, None
    return _old_read_group_cells(raw.frame, id_col, col, raw.file), col


def _old_parse_column(frame: pd.DataFrame, col: str) -> tuple[np.ndarray, list[int]]:
    """``parse_value`` of every cell of ``frame[col]``, in one pass: the values (NaN for a
    blank cell or one it refuses) and the rows (frame labels) of the cells it refuses."""
    cells = frame[col].tolist()
    out = np.empty(len(cells))
    bad = []
    plain = _PLAIN_NUMBER.fullmatch
    for i, cell in enumerate(cells):
        if plain(cell):
            x = float(cell)
            if 0.0 <= x <= 1.0:
                out[i] = x
                continue
        try:
            v = parse_value(cell)
        except ValueError:
            bad.append(i)
            v = None
        out[i] = math.nan if v is None else v
    return out, [frame.index[i] for i in bad]


def _old_raise_bad(frame, col, rows, file, code="bad_value"):
    first = rows[0]
    raise InputError(code, file=file, row=int(first), column=col,
                     value=frame.at[first, col][:40], count=len(rows),
                     rows=", ".join(str(r) for r in rows[:5]))


def _old_merged(raw: RawTable, ids: pd.Series) -> dict:
    """Ids that several rows share only because NFC normalisation made them equal."""
    changed = set(raw.normalized.get(ids.name, ()))
    if not changed:
        return {}
    out = {}
    for cid, rows in ids.groupby(ids).groups.items():
        if len(rows) > 1 and changed & {int(r) for r in rows}:
            out[str(cid)] = tuple(int(r) for r in rows)
    return out


def _old_from_table(raw: RawTable) -> GoldenSet:
    """Interpret a parsed table as golden-case results (long if it has method+score columns)."""
    frame, file = raw.frame, raw.file
    id_col = find_column(frame.columns, CASE_ID_NAMES)
    if id_col is None:
        raise InputError("no_case_id", file=file, columns=", ".join(frame.columns[:10]))
    blank_ids = [int(r) for r in frame.index[frame[id_col] == ""]]
    if blank_ids:
        raise InputError("blank_case_id", file=file, row=blank_ids[0], column=id_col,
                         count=len(blank_ids))
    method_col = find_column(frame.columns, METHOD_NAMES)
    score_col = find_column(frame.columns, SCORE_NAMES)
    if method_col and score_col:
        return _old_from_long(raw, id_col, method_col, score_col)
    return _old_from_wide(raw, id_col)


def _old_from_wide(raw: RawTable, id_col: str) -> GoldenSet:
    frame, file = raw.frame, raw.file
    methods, text_cols, parsed = [], [], {}
    for col in frame.columns:
        if col == id_col or is_group_column(col):  # the group column is never a method
            continue
        nonblank = frame[col][frame[col] != ""]
        if norm_header(col) in {norm_header(h) for h in TEXT_HINTS} or len(nonblank) == 0:
            text_cols.append(col)
            continue
        values, bad = _old_parse_column(frame, col)
        if not bad:
            methods.append(col)
            parsed[col] = values
        elif nonblank.map(_is_number).any():
            # numbers mixed with unreadable cells: a method with bad cells, never text
            _old_raise_bad(frame, col, bad, file,
                       "bad_values_column" if len(bad) * 2 > len(nonblank) else "bad_value")
        elif len(bad) * 2 > len(nonblank):  # words, mostly not outcomes: plainly text
            text_cols.append(col)
        else:
            _old_raise_bad(frame, col, bad, file)
    if not methods:
        raise InputError("no_methods", file=file, columns=", ".join(frame.columns[:10]))
    ids = frame[id_col]
    dup_mask = ids.duplicated(keep=False)
    duplicates = tuple(sorted(set(ids[dup_mask])))
    keep = frame[~dup_mask]
    rows = ~dup_mask.to_numpy()
    scores = pd.DataFrame({m: parsed[m][rows] for m in methods},
                          index=pd.Index(keep[id_col].to_numpy(), name="case_id"))
    text = pd.DataFrame({c: keep[c].to_numpy() for c in text_cols},
                        index=scores.index)
    _old_check_size(scores, file)
    groups, group_col = _old_groups_from_table(RawTable(keep, file, raw.encoding, raw.delimiter),
                                          id_col)
    return GoldenSet(scores, text, file, "wide", duplicates, {}, raw.encoding, raw.sheet,
                     raw.other_sheets, _old_merged(raw, ids), groups, group_col)


def _old_from_long(raw: RawTable, id_col: str, method_col: str, score_col: str) -> GoldenSet:
    frame, file = raw.frame, raw.file
    blank_m = frame.index[frame[method_col] == ""]
    if len(blank_m):
        raise InputError("blank_method", file=file, row=int(blank_m[0]), column=method_col,
                         count=len(blank_m))
    parsed, bad = _old_parse_column(frame, score_col)
    if bad:
        _old_raise_bad(frame, score_col, bad, file)
    values = pd.Series(parsed, index=frame.index)
    key = frame[[id_col, method_col]]
    dup_mask = key.duplicated(keep=False)
    duplicates = tuple(sorted(set(frame.loc[dup_mask, id_col])))
    ok = ~frame[id_col].isin(duplicates)
    long = pd.DataFrame({"case_id": frame.loc[ok, id_col], "method": frame.loc[ok, method_col],
                         "score": values[ok]})
    scores = long.pivot(index="case_id", columns="method", values="score")
    methods = list(dict.fromkeys(frame[method_col]))  # first-seen order
    scores = scores.reindex(columns=methods)
    present = long.groupby("method")["case_id"].apply(set)
    all_ids = list(dict.fromkeys(long["case_id"]))
    scores = scores.reindex(all_ids)
    scores.index.name = "case_id"
    missing = {m: tuple(sorted(set(all_ids) - present.get(m, set()))) for m in methods}
    missing = {m: ids for m, ids in missing.items() if ids}
    text_cols = [c for c in frame.columns if c not in (id_col, method_col, score_col)
                 and not is_group_column(c)]
    text = (frame.loc[ok, [id_col, *text_cols]].drop_duplicates(subset=[id_col])
            .set_index(id_col).reindex(all_ids))
    text.index.name = "case_id"
    _old_check_size(scores, file)
    pairs = frame[id_col] + "\x00" + frame[method_col]
    merged = _old_merged(RawTable(frame, file, raw.encoding, raw.delimiter,
                              normalized={"k": tuple(sorted(
                                  set(raw.normalized.get(id_col, ()))
                                  | set(raw.normalized.get(method_col, ()))))}),
                     pairs.rename("k"))
    merged = {k.split("\x00")[0]: rows for k, rows in merged.items()}
    groups, group_col = _old_groups_from_table(raw, id_col)
    return GoldenSet(scores, text, file, "long", duplicates, missing, raw.encoding, raw.sheet,
                     raw.other_sheets, merged, groups, group_col)


def _old_check_size(scores: pd.DataFrame, file: str) -> None:
    check_method_names(scores.columns, file)
    if len(scores) < 2:
        raise InputError("too_few_cases", file=file, count=len(scores))


# ------------------------------------------------------------------ inputs
def _csv(rows, delim=","):
    s = io.StringIO()
    csv.writer(s, delimiter=delim, lineterminator="\n").writerows(rows)
    return s.getvalue().encode()


def _xlsx(sheets) -> bytes:
    wb = openpyxl.Workbook()
    wb.remove(wb.active)
    for title, rows in sheets:
        ws = wb.create_sheet(title)
        for r in rows:
            ws.append(r)
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def _inputs() -> dict[str, bytes]:
    """Golden files of every layout and spelling, and broken ones (name -> bytes)."""
    rng = np.random.default_rng(7)
    demo = list(csv.reader(io.StringIO((ROOT / "data" / "demo_golden.csv").read_text())))
    out = {"demo.csv": _csv(demo), "demo.tsv": _csv(demo, "\t"),
           "bom_crlf.csv": b"\xef\xbb\xbf" + _csv(demo).replace(b"\n", b"\r\n"),
           "switch.csv": (ROOT / "data" / "demo_switch_golden.csv").read_bytes(),
           "upload.csv": (ROOT / "tests" / "fixtures" / "golden_upload.csv").read_bytes()}
    num = [[int(c) if c in ("0", "1") else c for c in r] for r in demo]
    out["demo.xlsx"] = _xlsx([("notes", [["hello"], ["x"]]), ("results", num)])
    scores = [["case_id", "question", "bm25", "dense"]]
    for i in range(30):
        a = float(rng.random())
        scores.append([f"q{i}", f"text {i}", f"{a:.4f}",
                       "" if i == 4 else f"{min(1, max(0, a + rng.normal(0.05, 0.2))):.4f}"])
    scores += [["", "", "", ""], ["q3", "dup", "0.5", "0.5"]]      # a blank row, a duplicate
    out["scores.csv"] = _csv(scores)
    out["scores_comma.csv"] = _csv([[c.replace(".", ",") for c in r] for r in scores], ";")
    out["scores_pct.csv"] = _csv([r[:2] + [f"{float(r[2]) * 100:.1f}%" if r[2] else ""] + r[3:]
                                  if k else r for k, r in enumerate(scores)])
    three = [["case_id", "group", "A", "B", "C", "notes"]]
    for i in range(30):
        three.append([f"q{i}", ("account", "billing", "product")[i % 3],
                      *(str(int(rng.random() < p)) for p in (0.6, 0.75, 0.5)), f"n{i}"])
    out["three_groups.csv"] = _csv(three + [["q3", "product", "1", "1", "0", "dup"]])
    long = [["case_id", "method", "score", "query", "그룹"]]
    for i in range(24):
        for m in ("old", "new"):
            if (i, m) != (4, "new"):
                long.append([f"k{i}", m, "" if (i, m) == (6, "old") else
                             str(int(rng.random() < 0.6)), f"q {i}", "ab"[i % 2]])
    out["long.csv"] = _csv(long + [["k9", "old", "1", "again", "b"], ["k10", "third", "1",
                                                                       "x", "a"]])
    kr = [["케이스", "질문", "기존", "새방법"]]
    words = ["예", "정답", "O", "○", "Ｏ", "1", "true", "✓", "아니오", "오답", "X", "×", "0"]
    for i in range(20):
        kr.append([f"질문{i}", f"환불 {i}", words[i % 13], words[(i * 5) % 13]])
    kr += [[unicodedata.normalize("NFD", "질문3"), "nfd", "1", "1"], ["질문\u200b5", "zw", "0", "1"]]
    out["korean.csv"] = _csv(kr)
    out["cp949.csv"] = "\n".join(",".join(r) for r in [["case_id", "질문", "a", "b"]] + [
        [f"c{i}", f"환불 정책 {i}", "예" if i % 2 else "아니오", "정답" if i % 3 else "오답"]
        for i in range(12)]).encode("cp949")

    def broken(name, row, col, value):
        rows = [r[:] for r in demo]
        rows[row][col] = value
        out[name] = _csv(rows)
    broken("bad_value.csv", 6, 2, "maybe")
    broken("bad_number.csv", 6, 2, "1.5")
    broken("ambiguous.csv", 6, 3, "1,234")
    broken("no_id.csv", 0, 0, "name")
    broken("blank_id.csv", 5, 0, "")
    broken("reserved.csv", 0, 3, "Difference")
    many = [r[:] for r in demo]
    for r in many[1:25]:
        r[3] = "3"
    out["bad_column.csv"] = _csv(many)
    words_col = [r[:] for r in demo]
    for r in words_col[1:20]:
        r[3] = "hello"
    out["words.csv"] = _csv(words_col)
    out["too_few.csv"] = _csv(demo[:2])
    out["no_methods.csv"] = b"case_id,query\na,x\nb,y\n"
    out["all_dups.csv"] = _csv([demo[0]] + [["same"] + r[1:] for r in demo[1:]])
    out["blank_method.csv"] = _csv(long[:6] + [["k9", "", "1", "x", "a"]])
    out["long_bad.csv"] = _csv(long[:6] + [["k9", "old", "maybe", "x", "a"]])
    grp = [r[:] for r in three[:12]]
    grp[4][1] = ""
    out["group_blank.csv"] = _csv(grp)
    grp = [r[:] for r in three[:12]]
    grp[4][1] = "L" * (MAX_GROUP_CHARS + 5)
    out["group_long.csv"] = _csv(grp)
    out["group_many.csv"] = _csv([three[0]] + [[r[0], f"g{k}", *r[2:]]
                                               for k, r in enumerate(three[1:])])
    out["group_conflict.csv"] = _csv(long[:6] + [["k1", "old", "1", "x", "zz"]])
    return out


INPUTS = _inputs()


def _old(data: bytes, file: str) -> GoldenSet:
    return _old_from_table(read_table(data, file, required=(CASE_ID_NAMES,)))


def _outcome(fn, *args):
    try:
        return fn(*args), None
    except InputError as exc:
        return None, (exc.code, str(exc))


@pytest.mark.parametrize("name", sorted(INPUTS))
def test_the_pandas_free_reader_gives_what_the_pandas_reader_gave(name):
    data = INPUTS[name]
    new, new_err = _outcome(load_golden, data, name)
    old, old_err = _outcome(_old, data, name)
    assert new_err == old_err
    if old is None:
        return
    assert isinstance(stored_form(new, "scores"), CaseScores)   # nothing built yet
    assert isinstance(stored_form(new, "text"), CaseText)
    pd.testing.assert_frame_equal(new.scores, old.scores, check_exact=True)
    assert new.scores.columns.name == old.scores.columns.name
    # the same memory layout: column means add in the same order
    assert (new.scores.to_numpy().flags["C_CONTIGUOUS"]
            == old.scores.to_numpy().flags["C_CONTIGUOUS"])
    pd.testing.assert_frame_equal(new.text, old.text, check_exact=True)
    if old.groups is None:
        assert new.groups is None
    else:
        pd.testing.assert_series_equal(new.groups, old.groups)
    for attr in ("source", "layout", "duplicates", "missing", "encoding", "sheet",
                 "other_sheets", "unicode_merged", "group_column", "methods"):
        assert getattr(new, attr) == getattr(old, attr), attr
    for m in new.methods:
        assert new.is_binary(m) == old.is_binary(m)


@pytest.mark.parametrize("name", [n for n in sorted(INPUTS) if n.endswith((".csv", ".tsv"))])
def test_read_cells_and_its_frame_equal_the_frame_read_before(name):
    """``read_table`` (``CellTable.raw``) is the frame the reader built before, and
    ``read_cells`` holds the same cells, row numbers and NFC notes without pandas."""
    try:
        table = read_cells(INPUTS[name], name)
    except InputError:
        return
    text = newlines(decode_text(INPUTS[name], name)[0])
    rows = read_csv_rows(text, sniff_delimiter(text), name)
    frame, normalized = _old_frame_from_rows(rows, name, strings=True)
    raw = read_table(INPUTS[name], name)
    pd.testing.assert_frame_equal(raw.frame, frame, check_exact=True)
    assert raw.normalized == table.normalized == normalized
    assert list(table.names) == list(frame.columns)
    assert list(table.rows) == frame.index.tolist()
    assert [list(c) for c in table.columns] == [frame[c].tolist() for c in frame.columns]


@pytest.mark.parametrize("name", ["demo.csv", "scores.csv", "long.csv", "three_groups.csv",
                                  "korean.csv", "demo.xlsx"])
def test_the_array_path_compares_what_the_frame_path_compares(name):
    """``compare_golden`` pairs the cases on numpy arrays (``GoldenSet.paired_values``); the
    pages' frame (``GoldenSet.paired``) gives the same cases, values and comparison."""
    gs = load_golden(INPUTS[name], name)
    a, b = gs.methods[:2]
    result = compare_golden(gs, a, b, resamples=500, seed=3)
    kept, excluded = gs.paired(a, b)
    assert excluded == result.excluded and tuple(kept.index) == result.case_ids
    frame = compare_paired(kept[a].to_numpy(float), kept[b].to_numpy(float), name_a=a,
                           name_b=b, resamples=500, seed=3)
    assert frame.to_dict() == result.comparison.to_dict()
    assert frame.verdict == result.comparison.verdict


def test_a_set_built_from_frames_reads_as_before():
    """Callers that build a GoldenSet from pandas frames (lists, TREC) get their frames back
    unchanged, and the arrays the comparison reads come from them."""
    scores = pd.DataFrame({"x": [0.1, 0.5, np.nan], "y": [0.2, 0.4, 0.9]},
                          index=pd.Index(["a", "b", "c"], name="case_id"))
    text = pd.DataFrame(index=scores.index)
    gs = GoldenSet(scores, text, "f", "lists", groups=pd.Series({"a": "g"}))
    assert gs.scores is scores and gs.text is text and gs.group_labels is gs.groups
    assert gs.cases.ids == ("a", "b", "c") and gs.cases.methods == ("x", "y")
    ids, av, bv, ex = gs.paired_values("x", "y")
    assert ids == ("a", "b") and av.tolist() == [0.1, 0.5] and ex.blank == ("c",)
    copy = gs.with_groups({"a": "h"}, "side.csv")
    assert copy.scores is scores and copy.group_file and copy.groups.to_dict() == {"a": "h"}


def _modules_after(args: list[str], watch=("pandas", "numba", "scipy.stats", "pyarrow")
                   ) -> tuple[int, list[str]]:
    code = ("import sys\nfrom core.__main__ import main\nrc = main(sys.argv[1:])\n"
            "sys.stdout.flush()\nprint('\\nLOADED', sorted(m for m in "
            f"{tuple(watch)!r} if m in sys.modules), rc)")
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                         cwd=ROOT)
    last = out.stdout.strip().splitlines()[-1]
    loaded, rc = last.removeprefix("LOADED ").rsplit(" ", 1)
    return int(rc), eval(loaded)  # a list of names printed by the line above  # noqa: S307


@pytest.mark.parametrize("args", [
    ["data/demo_golden.csv", "--json"],
    ["data/demo_golden.csv"],
    ["data/demo_switch_golden.csv", "--margin", "2pp", "--interval", "newcombe", "--json"],
    ["tests/fixtures/golden_upload.csv", "--confidence", "0.9"],
])
def test_the_compare_cli_on_a_golden_file_imports_no_pandas_numba_or_scipy_stats(args):
    rc, loaded = _modules_after(["compare", *args])
    assert rc == 0 and loaded == []


HEAVY = ("pandas", "pyarrow", "scipy.stats", "altair", "torch", "sentence_transformers",
         "rapidfuzz", "statsmodels", "numba")


@pytest.mark.parametrize("args,allowed", [
    # retrieval lists (ids, three methods: the tied-for-best set, all pairs, per-group
    # B - A, Judged@10): the kernels only (issue 38)
    (["compare", "data/demo_lists.csv", "--format", "lists"], ["numba"]),
    # TREC runs (three runs + qrels, Judged@10): the plain-Python reader of a small clean file
    # (core.inputs.trec.PLAIN_MAX_BYTES), ir_measures and the kernels, no pandas
    (["compare", "--format", "trec", "--qrels", "data/demo_trec/qrels.txt",
      "data/demo_trec/bm25.run", "data/demo_trec/dense.run", "data/demo_trec/hybrid.run"],
     ["numba"]),
    # decide: the timing log is read into a frame (core.latency.log)
    (["decide", "--quality", "data/demo_switch_golden.csv", "--latency",
      "data/demo_switch_latency.csv", "--margin", "0.02", "--max-slowdown", "1.10"],
     ["numba", "pandas", "pyarrow"]),
])
def test_the_demo_commands_import_only_what_they_use(args, allowed):
    """The README's lists, TREC and decide demos in a fresh interpreter load none of the
    heavy libraries they do not use (scipy.stats, altair, torch, the passage matcher; pandas
    only where a table is read into a frame): import time is most of a warm command's CPU
    (``bench/bench_demo.py``, ``docs/speed.md``)."""
    rc, loaded = _modules_after([*args, "--resamples", "500"], HEAVY)
    assert rc in (0, 1, 3) and loaded == allowed, (args, loaded)


def test_xlsx_long_and_score_files_import_no_pandas(tmp_path):
    """Every golden layout of two methods stays off pandas: a workbook, a long file; scores
    (not 0/1) load numba's kernels but neither pandas nor scipy.stats. (Three or more methods,
    ranked by ``core.paired.best`` / ``core.paired.multi`` from ``GoldenSet.cases``, and B − A
    per group stay off pandas too: ``test_the_demo_commands_import_only_what_they_use``.)"""
    for name in ("demo.xlsx", "scores.csv"):
        (tmp_path / name).write_bytes(INPUTS[name])
    long = [line.rsplit(b",", 1)[0] for line in INPUTS["long.csv"].splitlines()
            if b",third," not in line]           # two methods, no group column
    (tmp_path / "long.csv").write_bytes(b"\n".join(long) + b"\n")
    for args, allowed in ((["demo.xlsx", "--json"], []), (["long.csv"], []),
                          (["scores.csv", "--json", "--resamples", "500"], ["numba"])):
        rc, loaded = _modules_after(["compare", str(tmp_path / args[0]), *args[1:]])
        assert rc == 0 and loaded == allowed, (args, loaded)


def test_group_labels_are_read_without_pandas(tmp_path):
    (tmp_path / "long.csv").write_bytes(INPUTS["long.csv"])
    (tmp_path / "side.csv").write_bytes(b"qid,group\nk1,x\nk2,y\n")
    code = ("import sys\nfrom core.inputs.golden import load_golden\n"
            "from core.inputs.groups import read_group_labels\n"
            "gs = load_golden(open('long.csv', 'rb').read(), 'long.csv')\n"
            "side = read_group_labels(open('side.csv', 'rb').read(), 'side.csv')\n"
            "print(gs.group_column, len(gs.group_labels), side, 'pandas' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=tmp_path, env={"PYTHONPATH": str(ROOT)}, check=True)
    assert out.stdout.split() == ["그룹", "24", "{'k1':", "'x',", "'k2':", "'y'}", "False"]


@pytest.mark.parametrize("reader, head", [("groups", "qid,group"), ("clusters", "qid,cluster")])
def test_side_files_refuse_a_blank_case_id_naming_its_row(reader, head):
    from core.errors import InputError
    from core.inputs.clusters import read_cluster_labels
    from core.inputs.groups import read_group_labels
    read = read_group_labels if reader == "groups" else read_cluster_labels
    data = f"{head}\nq1,x\n,y\nq3,x\n,y\n".encode()
    assert read(f"{head}\nq1,x\nq2,y\n".encode(), "side.csv") == {"q1": "x", "q2": "y"}
    with pytest.raises(InputError) as e:
        read(data, "side.csv")
    msg = str(e.value)
    assert "side.csv" in msg and "3" in msg and "qid" in msg, msg
