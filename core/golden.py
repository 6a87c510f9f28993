"""Golden-case results: read wide or long tables, pair methods by case id, compare two methods.

Wide: ``case_id, <method 1>, <method 2>, ...`` (+ any text columns, kept for display).
Long: ``case_id, method, score``. Headers are matched case-insensitively, Korean allowed.
Values: 0/1, true/false, yes/no, O/X (and Korean 예/아니오, 정답/오답), or numbers in [0, 1].
"""
from __future__ import annotations

import dataclasses
import math
import re
import unicodedata
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from core.errors import InputError
from core.groups import groups_from_table, is_group_column
from core.paired import PairedComparison, compare_paired
from core.stats import resolution
from core.tables import (AmbiguousNumber, RawTable, find_column, norm_header, parse_number,
                         read_table)

CASE_ID_NAMES = ("case_id", "caseid", "case", "id", "qid", "query_id", "queryid", "case id",
                 "케이스", "케이스id", "케이스_id", "사례", "사례id", "번호", "질문id", "질의id")
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
MAX_SHOWN_IDS = 20


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
    """A number (``core.tables.parse_number``, an ambiguous ``1,234`` included), maybe
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
    and listed in ``duplicates``; ``missing`` maps a method to ids it has no row for."""

    scores: pd.DataFrame
    text: pd.DataFrame
    source: str
    layout: str  # "wide", "long", "lists" (retrieval lists) or "trec" (per-query run scores)
    duplicates: tuple[str, ...] = ()
    missing: dict = field(default_factory=dict)
    encoding: str = ""
    sheet: str | None = None            # the worksheet read (xlsx)
    other_sheets: tuple[str, ...] = ()  # the workbook's other worksheets
    # ids that only became equal after Unicode NFC normalisation: {id: (row, row, ...)}
    unicode_merged: dict = field(default_factory=dict)
    # query groups (core.groups): the label of each case id, and the column they came from
    groups: pd.Series | None = field(default=None, repr=False)
    group_column: str | None = None
    group_file: bool = False   # the groups came from a side file (``with_groups``)

    @property
    def methods(self) -> list[str]:
        return list(self.scores.columns)

    @property
    def unit(self) -> str:
        """What one row is, for the verdict's wording: "queries" for TREC runs, else "cases"."""
        return "queries" if self.layout == "trec" else "cases"

    def is_binary(self, method: str) -> bool:
        col = self.scores[method].dropna()
        return bool(len(col)) and bool(col.isin([0.0, 1.0]).all())

    def paired(self, a: str, b: str) -> tuple[pd.DataFrame, Excluded]:
        """Cases with a value for both A and B, and what was left out and why."""
        for name in (a, b):
            if name not in self.scores.columns:
                raise InputError("unknown_method", method=name, methods=", ".join(self.methods))
        if a == b:
            raise InputError("same_method", method=a)
        missing = sorted(set(self.missing.get(a, ())) | set(self.missing.get(b, ())))
        sub = self.scores[[a, b]]
        blank_mask = sub.isna().any(axis=1) & ~sub.index.isin(missing)
        blank = sorted(sub.index[blank_mask])
        kept = sub.dropna()
        return kept, Excluded(tuple(missing), tuple(self.duplicates), tuple(blank))

    def with_scores(self, scores: pd.DataFrame, source: str | None = None) -> "GoldenSet":
        """A copy with other per-case scores (same case ids); for derived metrics."""
        return GoldenSet(scores, self.text, source or self.source, self.layout,
                         self.duplicates, dict(self.missing), self.encoding, self.sheet,
                         self.other_sheets, dict(self.unicode_merged), self.groups,
                         self.group_column, self.group_file)

    def with_groups(self, groups: pd.Series | None, column: str | None = None) -> "GoldenSet":
        """A copy with query groups (a label by case id, e.g. from a TREC side file read by
        ``core.groups.read_group_file``); ``column`` names where they came from."""
        return dataclasses.replace(self, groups=groups, group_column=column, group_file=True)


# A plain ASCII decimal (``0.75``, ``1``, ``.5``, ``1e-3``): for such a cell ``parse_value``
# is exactly ``float`` and the [0, 1] check (NFKC, the outcome words and the decimal comma
# change nothing), so ``_parse_column`` reads it without the general path.
_PLAIN_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def _parse_column(frame: pd.DataFrame, col: str) -> tuple[np.ndarray, list[int]]:
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


def _raise_bad(frame, col, rows, file, code="bad_value"):
    first = rows[0]
    raise InputError(code, file=file, row=int(first), column=col,
                     value=frame.at[first, col][:40], count=len(rows),
                     rows=", ".join(str(r) for r in rows[:5]))


def _merged(raw: RawTable, ids: pd.Series) -> dict:
    """Ids that several rows share only because NFC normalisation made them equal."""
    changed = set(raw.normalized.get(ids.name, ()))
    if not changed:
        return {}
    out = {}
    for cid, rows in ids.groupby(ids).groups.items():
        if len(rows) > 1 and changed & {int(r) for r in rows}:
            out[str(cid)] = tuple(int(r) for r in rows)
    return out


def from_table(raw: RawTable) -> GoldenSet:
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
        return _from_long(raw, id_col, method_col, score_col)
    return _from_wide(raw, id_col)


def _from_wide(raw: RawTable, id_col: str) -> GoldenSet:
    frame, file = raw.frame, raw.file
    methods, text_cols, parsed = [], [], {}
    for col in frame.columns:
        if col == id_col or is_group_column(col):  # the group column is never a method
            continue
        nonblank = frame[col][frame[col] != ""]
        if norm_header(col) in {norm_header(h) for h in TEXT_HINTS} or len(nonblank) == 0:
            text_cols.append(col)
            continue
        values, bad = _parse_column(frame, col)
        if not bad:
            methods.append(col)
            parsed[col] = values
        elif nonblank.map(_is_number).any():
            # numbers mixed with unreadable cells: a method with bad cells, never text
            _raise_bad(frame, col, bad, file,
                       "bad_values_column" if len(bad) * 2 > len(nonblank) else "bad_value")
        elif len(bad) * 2 > len(nonblank):  # words, mostly not outcomes: plainly text
            text_cols.append(col)
        else:
            _raise_bad(frame, col, bad, file)
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
    _check_size(scores, file)
    groups, group_col = groups_from_table(RawTable(keep, file, raw.encoding, raw.delimiter),
                                          id_col)
    return GoldenSet(scores, text, file, "wide", duplicates, {}, raw.encoding, raw.sheet,
                     raw.other_sheets, _merged(raw, ids), groups, group_col)


def _from_long(raw: RawTable, id_col: str, method_col: str, score_col: str) -> GoldenSet:
    frame, file = raw.frame, raw.file
    blank_m = frame.index[frame[method_col] == ""]
    if len(blank_m):
        raise InputError("blank_method", file=file, row=int(blank_m[0]), column=method_col,
                         count=len(blank_m))
    parsed, bad = _parse_column(frame, score_col)
    if bad:
        _raise_bad(frame, score_col, bad, file)
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
    _check_size(scores, file)
    pairs = frame[id_col] + "\x00" + frame[method_col]
    merged = _merged(RawTable(frame, file, raw.encoding, raw.delimiter,
                              normalized={"k": tuple(sorted(
                                  set(raw.normalized.get(id_col, ()))
                                  | set(raw.normalized.get(method_col, ()))))}),
                     pairs.rename("k"))
    merged = {k.split("\x00")[0]: rows for k, rows in merged.items()}
    groups, group_col = groups_from_table(raw, id_col)
    return GoldenSet(scores, text, file, "long", duplicates, missing, raw.encoding, raw.sheet,
                     raw.other_sheets, merged, groups, group_col)


def check_method_names(names, file: str) -> None:
    """Refuse a method named like one of NoiseFloor's own per-case columns
    (``RESERVED_METHODS``, compared as headers are): it would overwrite that column."""
    for name in names:
        if norm_header(name) in RESERVED_METHODS:
            raise InputError("reserved_method", file=file, method=name,
                             reserved=", ".join(RESERVED_METHODS))


def _check_size(scores: pd.DataFrame, file: str) -> None:
    check_method_names(scores.columns, file)
    if len(scores) < 2:
        raise InputError("too_few_cases", file=file, count=len(scores))


def load_golden(data: bytes, file: str = "upload") -> GoldenSet:
    """Bytes of a CSV/TSV/XLSX upload -> GoldenSet (raises ``InputError`` with row/column)."""
    return from_table(read_table(data, file, required=(CASE_ID_NAMES,)))


def default_pair(gs: GoldenSet) -> tuple[str, str]:
    """The first two methods in file order."""
    if len(gs.methods) < 2:
        raise InputError("need_two_methods", file=gs.source, methods=", ".join(gs.methods))
    return gs.methods[0], gs.methods[1]


@dataclass(frozen=True)
class GoldenComparison:
    """A and B compared on their paired cases, with what was excluded and the case lists."""

    golden: GoldenSet
    comparison: PairedComparison
    excluded: Excluded
    case_ids: tuple[str, ...]
    a_values: np.ndarray = field(repr=False)
    b_values: np.ndarray = field(repr=False)

    @property
    def n_cases(self) -> int:
        return len(self.case_ids)

    def discordant(self) -> pd.DataFrame:
        """Cases where A and B differ, with the file's text columns and ``difference`` = B - A
        (new minus baseline): B ahead first (binary: B right / A wrong), then A ahead (A right
        / B wrong), each by the size of the gap."""
        d = self.b_values - self.a_values
        mask = d != 0
        df = pd.DataFrame({"case_id": np.asarray(self.case_ids)[mask],
                           self.comparison.a: self.a_values[mask],
                           self.comparison.b: self.b_values[mask],
                           "difference": d[mask]})
        if not self.golden.text.empty:
            extra = self.golden.text.reindex(df["case_id"]).reset_index(drop=True)
            df = pd.concat([df.reset_index(drop=True), extra], axis=1)
        return df.sort_values("difference", ascending=False, kind="stable")

    def to_dict(self) -> dict:
        c = self.comparison
        return {
            "source": self.golden.source,
            "sheet": self.golden.sheet,         # the worksheet read from a workbook, else None
            "n_cases": self.n_cases,
            "binary": c.binary,
            "methods": {c.a: c.rate_a.to_dict(), c.b: c.rate_b.to_dict()},
            "difference": c.difference_dict(),
            "resolution": resolution(self.n_cases),
            "excluded": self.excluded.to_dict(),
            # ids that only became equal under Unicode NFC (typed as NFD elsewhere): rows
            "unicode_merged": {k: list(v) for k, v in self.golden.unicode_merged.items()},
            "encoding": self.golden.encoding or None,
            "verdict": c.verdict,
        }


def compare_golden(gs: GoldenSet, a: str | None = None, b: str | None = None, *,
                   resamples: int = 20_000, confidence: float = 0.95,
                   seed: int = 0, interval: str = "auto") -> GoldenComparison:
    """Pair A and B by case id, drop (and report) incomplete cases, and compare them."""
    if a is None and b is None:
        a, b = default_pair(gs)
    elif a is None or b is None:
        given = a if a is not None else b
        others = [m for m in gs.methods if m != given]
        if not others:
            raise InputError("need_two_methods", file=gs.source, methods=", ".join(gs.methods))
        a, b = (given, others[0]) if a is not None else (others[0], given)
    kept, excluded = gs.paired(a, b)
    if len(kept) < 2:
        raise InputError("too_few_paired", file=gs.source, count=len(kept), a=a, b=b)
    av, bv = kept[a].to_numpy(float), kept[b].to_numpy(float)
    comp = compare_paired(av, bv, name_a=a, name_b=b, resamples=resamples,
                          confidence=confidence, seed=seed, interval=interval)
    return GoldenComparison(gs, comp, excluded, tuple(kept.index), av, bv)
