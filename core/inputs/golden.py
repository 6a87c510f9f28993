"""Golden-case results: read wide or long tables, pair methods by case id, compare two methods.

Wide: ``case_id, <method 1>, <method 2>, ...`` (+ any text columns, kept for display).
Long: ``case_id, method, score``. Headers are matched case-insensitively, Korean allowed.
Values: 0/1, true/false, yes/no, O/X (and Korean 예/아니오, 정답/오답), or numbers in [0, 1].
"""
from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from core.errors import InputError
from core.inputs.golden_cases import (CASE_ID_NAMES, CaseScores, CaseText, PandasField,
                                      group_series, stored_form)
from core.inputs.groups import group_labels, is_group_column
from core.inputs.tables import (AmbiguousNumber, CellTable, RawTable, find_column, norm_header,
                                parse_number, read_cells)

METHOD_NAMES = ("method", "system", "model", "retriever", "run", "방법", "방식", "모델", "시스템",
                "메서드", "기법")
SCORE_NAMES = ("score", "value", "correct", "hit", "result", "outcome", "점수", "정답", "결과",
               "값", "정답여부")
TEXT_HINTS = ("query", "question", "text", "note", "notes", "comment", "answer", "title",
              "질문", "질의", "쿼리", "메모", "비고", "설명", "답변", "제목")

TRUE_WORDS = {"1", "1.0", "true", "t", "yes", "y", "o", "○", "◯", "✓", "✔", "☑", "예", "네",
              "정답", "맞음", "참"}
FALSE_WORDS = {"0", "0.0", "false", "f", "no", "n", "x", "×", "✗", "✘", "☒", "아니오", "아니요",
               "오답", "틀림", "거짓"}
# Names NoiseFloor gives its own columns in per-case tables; a method cannot take them.
RESERVED_METHODS = ("case_id", "difference")


def parse_value(cell: str) -> float | None:
    """One outcome cell -> 1.0/0.0/number in [0, 1]; None for blank; ValueError otherwise.

    Read after Unicode NFKC, so fullwidth forms typed with a Korean or Japanese input method
    (``Ｏ``, ``Ｘ``, ``１``, ``８５％``) read as their ASCII look-alikes; ✓ ✔ ○ are 1 and
    ✗ ✘ × are 0."""
    s = unicodedata.normalize("NFKC", cell).strip()
    if s == "":
        return None
    low = s.lower()
    if low in TRUE_WORDS:
        return 1.0
    if low in FALSE_WORDS:
        return 0.0
    scale = 1.0
    if s.endswith("%"):  # "85%" and "85 %" (Excel's percent shown as text) -> 0.85
        s, scale = s[:-1].rstrip(), 100.0
    try:
        x = parse_number(s)
    except ValueError:
        raise ValueError(cell.strip()) from None
    x /= scale
    if not math.isfinite(x) or not 0.0 <= x <= 1.0:
        raise ValueError(cell.strip())
    return x


def _is_number(cell: str) -> bool:
    """A number (``core.inputs.tables.parse_number``, an ambiguous ``1,234`` included), maybe
    with a percent sign; read after NFKC (fullwidth digits and ％)."""
    try:
        parse_number(unicodedata.normalize("NFKC", cell).strip().rstrip("%"))
    except AmbiguousNumber:
        return True
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class Excluded:
    """Cases left out of a paired analysis, by reason (ids as strings)."""

    missing: tuple[str, ...] = ()
    duplicates: tuple[str, ...] = ()
    blank: tuple[str, ...] = ()

    @property
    def total(self) -> int:
        return len(set(self.missing) | set(self.duplicates) | set(self.blank))

    def to_dict(self) -> dict:
        return {"missing": list(self.missing), "duplicates": list(self.duplicates),
                "blank": list(self.blank)}


@dataclass(frozen=True)
class GoldenSet:
    """Per-case outcomes by method: ``scores`` is indexed by case id, one column per method,
    NaN where a method has no (or a blank) value. Duplicate ids are kept out of ``scores``
    and listed in ``duplicates``; ``missing`` maps a method to ids it has no row for.

    ``scores``, ``text`` and ``groups`` may be given as pandas objects or, as the reader
    does, as ``CaseScores`` / ``CaseText`` / a dict of labels: read, they are always pandas
    (built on first access); ``cases`` is the pandas-free ``CaseScores`` the comparison
    uses, so the CLI never imports pandas for a golden file."""

    scores: pd.DataFrame = PandasField(CaseScores, CaseScores.frame)
    text: pd.DataFrame = PandasField(CaseText, CaseText.frame)
    source: str
    layout: str  # "wide", "long", "lists" (retrieval lists) or "trec" (per-query run scores)
    duplicates: tuple[str, ...] = ()
    missing: dict = field(default_factory=dict)
    encoding: str = ""
    sheet: str | None = None            # the worksheet read (xlsx)
    other_sheets: tuple[str, ...] = ()  # the workbook's other worksheets
    # ids that only became equal after Unicode NFC normalisation: {id: (row, row, ...)}
    unicode_merged: dict = field(default_factory=dict)
    # query groups (core.inputs.groups): the label of each case id, and the column they came from
    groups: pd.Series | None = PandasField(dict, group_series, default=None)
    group_column: str | None = None
    group_file: bool = False   # the groups came from a side file (``with_groups``)
    # columns with a header and no value in any row (not a text column by name): not
    # compared, and said so (issue 30: such a method used to vanish without a word)
    empty_columns: tuple[str, ...] = ()

    @property
    def cases(self) -> CaseScores:
        """The scores without pandas (converted once when ``scores`` was given a frame)."""
        given = stored_form(self, "scores")
        if isinstance(given, CaseScores):
            return given
        d = self.__dict__
        if "_cases" not in d:
            d["_cases"] = CaseScores.of(given)
        return d["_cases"]

    @property
    def group_labels(self):
        """The group label of each case id (a dict, or the Series given), or None."""
        return stored_form(self, "groups")

    @property
    def methods(self) -> list[str]:
        return list(self.cases.methods)

    @property
    def unit(self) -> str:
        """What one row is, for the verdict's wording: "queries" for TREC runs, else "cases"."""
        return "queries" if self.layout == "trec" else "cases"

    def is_binary(self, method: str) -> bool:
        cs = self.cases
        col = cs.values[:, cs.methods.index(method)]
        col = col[~np.isnan(col)]
        return bool(len(col)) and bool(np.isin(col, (0.0, 1.0)).all())

    def paired_values(self, a: str, b: str):
        """``paired`` without pandas: (the paired case ids, A's values, B's values, what was
        left out and why)."""
        cs = self.cases
        for name in (a, b):
            if name not in cs.methods:
                raise InputError("unknown_method", method=name, methods=", ".join(self.methods))
        if a == b:
            raise InputError("same_method", method=a)
        missing = sorted(set(self.missing.get(a, ())) | set(self.missing.get(b, ())))
        av = cs.values[:, cs.methods.index(a)]
        bv = cs.values[:, cs.methods.index(b)]
        full = ~(np.isnan(av) | np.isnan(bv))
        gone = set(missing)
        blank = sorted(cid for cid, ok in zip(cs.ids, full.tolist())
                       if not ok and cid not in gone)
        ids = tuple(cid for cid, ok in zip(cs.ids, full.tolist()) if ok)
        return (ids, av[full], bv[full],
                Excluded(tuple(missing), tuple(self.duplicates), tuple(blank)))

    def paired(self, a: str, b: str) -> tuple[pd.DataFrame, Excluded]:
        """Cases with a value for both A and B, and what was left out and why."""
        ids, av, bv, excluded = self.paired_values(a, b)
        kept = self.scores[[a, b]].dropna()
        return kept, excluded

    def with_scores(self, scores: pd.DataFrame, source: str | None = None) -> "GoldenSet":
        """A copy with other per-case scores (same case ids); for derived metrics."""
        return GoldenSet(scores, self.text, source or self.source, self.layout,
                         self.duplicates, dict(self.missing), self.encoding, self.sheet,
                         self.other_sheets, dict(self.unicode_merged), self.groups,
                         self.group_column, self.group_file, self.empty_columns)

    def with_groups(self, groups: pd.Series | None, column: str | None = None) -> "GoldenSet":
        """A copy with query groups (a label by case id, e.g. from a TREC side file read by
        ``core.inputs.groups.read_group_file``); ``column`` names where they came from."""
        return GoldenSet(stored_form(self, "scores"), stored_form(self, "text"), self.source,
                         self.layout, self.duplicates, self.missing, self.encoding,
                         self.sheet, self.other_sheets, self.unicode_merged, groups, column,
                         True, self.empty_columns)


# A plain ASCII decimal (``0.75``, ``1``, ``.5``, ``1e-3``): for such a cell ``parse_value``
# is exactly ``float`` and the [0, 1] check (NFKC, the outcome words and the decimal comma
# change nothing), so ``_parse_cells`` reads it without the general path.
_PLAIN_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def _parse_cells(cells: list[str]) -> tuple[np.ndarray, list[int]]:
    """``parse_value`` of every cell, in one pass: the values (NaN for a blank cell or one it
    refuses) and the positions of the cells it refuses."""
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
    return out, bad


def _raise_bad(table: CellTable, col: str, bad: list[int], code: str = "bad_value"):
    rows = [table.rows[i] for i in bad]
    raise InputError(code, file=table.file, row=rows[0], column=col,
                     value=table.column(col)[bad[0]][:40], count=len(rows),
                     rows=", ".join(str(r) for r in rows[:5]))


def _merged(keys: list[str], rows, changed) -> dict:
    """Ids that several rows share only because NFC normalisation made them equal:
    ``{key: (row, ...)}`` in key order, for the keys of ``rows`` (spreadsheet rows) whose
    rows include one of ``changed`` (the rows NFC changed)."""
    changed = set(changed)
    if not changed:
        return {}
    by_key: dict[str, list[int]] = {}
    for key, row in zip(keys, rows):
        by_key.setdefault(key, []).append(row)
    return {key: tuple(rs) for key, rs in sorted(by_key.items())
            if len(rs) > 1 and changed.intersection(rs)}


def from_cells(table: CellTable) -> GoldenSet:
    """Interpret a parsed table as golden-case results (long if it has method+score columns);
    no pandas (``CellTable`` in, ``CaseScores`` / ``CaseText`` in the set)."""
    names, file = table.names, table.file
    id_col = find_column(names, CASE_ID_NAMES)
    if id_col is None:
        raise InputError("no_case_id", file=file, columns=", ".join(names[:10]))
    blank_ids = [r for r, c in zip(table.rows, table.column(id_col)) if c == ""]
    if blank_ids:
        raise InputError("blank_case_id", file=file, row=blank_ids[0], column=id_col,
                         count=len(blank_ids))
    method_col = find_column(names, METHOD_NAMES)
    score_col = find_column(names, SCORE_NAMES)
    if method_col and score_col:
        return _from_long(table, id_col, method_col, score_col)
    return _from_wide(table, id_col)


def from_table(raw: RawTable) -> GoldenSet:
    """``from_cells`` of a pandas ``RawTable`` (``core.inputs.tables.read_table``'s form)."""
    frame = raw.frame
    table = CellTable(tuple(frame.columns), tuple(frame[c].tolist() for c in frame.columns),
                      tuple(int(r) for r in frame.index), raw.file, raw.encoding,
                      raw.delimiter, raw.sheet, raw.other_sheets, raw.normalized)
    return from_cells(table)


_TEXT_HINTS = frozenset(norm_header(h) for h in TEXT_HINTS)


def _from_wide(table: CellTable, id_col: str) -> GoldenSet:
    file = table.file
    methods, text_cols, parsed, empty = [], [], {}, []
    for col, cells in zip(table.names, table.columns):
        if col == id_col or is_group_column(col):  # the group column is never a method
            continue
        nonblank = [c for c in cells if c != ""]
        if norm_header(col) in _TEXT_HINTS or len(nonblank) == 0:
            text_cols.append(col)
            if not nonblank and norm_header(col) not in _TEXT_HINTS:
                empty.append(col)
            continue
        values, bad = _parse_cells(cells)
        if not bad:
            methods.append(col)
            parsed[col] = values
        elif any(map(_is_number, nonblank)):
            # numbers mixed with unreadable cells: a method with bad cells, never text
            _raise_bad(table, col, bad,
                       "bad_values_column" if len(bad) * 2 > len(nonblank) else "bad_value")
        elif len(bad) * 2 > len(nonblank):  # words, mostly not outcomes: plainly text
            text_cols.append(col)
        else:
            _raise_bad(table, col, bad)
    if not methods:
        raise InputError("no_methods", file=file, columns=", ".join(table.names[:10]))
    ids = table.column(id_col)
    count = Counter(ids)
    duplicates = tuple(sorted(c for c, k in count.items() if k > 1))
    keep = [i for i, c in enumerate(ids) if count[c] == 1]
    kept_ids = tuple(ids[i] for i in keep)
    values = np.column_stack([parsed[m] for m in methods])[keep] if keep else \
        np.empty((0, len(methods)))
    scores = CaseScores(kept_ids, tuple(methods), values)
    text = CaseText(kept_ids, {c: [table.column(c)[i] for i in keep] for c in text_cols})
    _check_size(scores.methods, len(kept_ids), file)
    groups, group_col = _groups(table, id_col, keep)
    merged = _merged(ids, table.rows, table.normalized.get(id_col, ()))
    return GoldenSet(scores, text, file, "wide", duplicates, {}, table.encoding, table.sheet,
                     table.other_sheets, merged, groups, group_col, empty_columns=tuple(empty))


def _groups(table: CellTable, id_col: str, keep: list[int] | None = None):
    """(labels by case id, the group column's name) from the table's group column (rows
    ``keep``, default all), or (None, None) without one (``core.inputs.groups.group_labels``)."""
    col = next((c for c in table.names if is_group_column(c)), None)
    if col is None:
        return None, None
    ids, cells, rows = table.column(id_col), table.column(col), table.rows
    if keep is not None:
        ids, cells, rows = ([x[i] for i in keep] for x in (ids, cells, rows))
    return group_labels(ids, cells, rows, table.file, col), col


def _from_long(table: CellTable, id_col: str, method_col: str, score_col: str) -> GoldenSet:
    file, rows = table.file, table.rows
    ids, mcol = table.column(id_col), table.column(method_col)
    blank_m = [r for r, m in zip(rows, mcol) if m == ""]
    if blank_m:
        raise InputError("blank_method", file=file, row=blank_m[0], column=method_col,
                         count=len(blank_m))
    parsed, bad = _parse_cells(table.column(score_col))
    if bad:
        _raise_bad(table, score_col, bad)
    pair_count = Counter(zip(ids, mcol))
    duplicates = tuple(sorted({cid for cid, m in zip(ids, mcol) if pair_count[cid, m] > 1}))
    dup = set(duplicates)
    ok = [i for i, cid in enumerate(ids) if cid not in dup]
    methods = list(dict.fromkeys(mcol))  # first-seen order
    all_ids = list(dict.fromkeys(ids[i] for i in ok))
    row_of = {cid: k for k, cid in enumerate(all_ids)}
    col_of = {m: j for j, m in enumerate(methods)}
    values = np.full((len(all_ids), len(methods)), np.nan)
    present: dict[str, set] = {}
    for i in ok:
        values[row_of[ids[i]], col_of[mcol[i]]] = parsed[i]
        present.setdefault(mcol[i], set()).add(ids[i])
    missing = {m: tuple(sorted(set(all_ids) - present.get(m, set()))) for m in methods}
    missing = {m: v for m, v in missing.items() if v}
    text_cols = [c for c in table.names if c not in (id_col, method_col, score_col)
                 and not is_group_column(c)]
    first = {}
    for i in ok:
        first.setdefault(ids[i], i)
    text = CaseText(tuple(all_ids), {c: [table.column(c)[first[cid]] for cid in all_ids]
                                     for c in text_cols}, "long")
    scores = CaseScores(tuple(all_ids), tuple(methods), values, "method")
    _check_size(scores.methods, len(all_ids), file)
    changed = set(table.normalized.get(id_col, ())) | set(table.normalized.get(method_col, ()))
    merged = _merged([f"{c}\x00{m}" for c, m in zip(ids, mcol)], rows, changed)
    merged = {k.split("\x00")[0]: r for k, r in merged.items()}
    groups, group_col = _groups(table, id_col)
    return GoldenSet(scores, text, file, "long", duplicates, missing, table.encoding,
                     table.sheet, table.other_sheets, merged, groups, group_col)


def check_method_names(names, file: str) -> None:
    """Refuse a method named like one of NoiseFloor's own per-case columns
    (``RESERVED_METHODS``, compared as headers are): it would overwrite that column."""
    for name in names:
        if norm_header(name) in RESERVED_METHODS:
            raise InputError("reserved_method", file=file, method=name,
                             reserved=", ".join(RESERVED_METHODS))


def _check_size(methods, n_cases: int, file: str) -> None:
    check_method_names(methods, file)
    if n_cases < 2:
        raise InputError("too_few_cases", file=file, count=n_cases)


def load_golden(data: bytes, file: str = "upload") -> GoldenSet:
    """Bytes of a CSV/TSV/XLSX upload -> GoldenSet (raises ``InputError`` with row/column).
    No pandas on the way (``core.inputs.tables.read_cells``, ``from_cells``)."""
    return from_cells(read_cells(data, file, required=(CASE_ID_NAMES,)))
