"""Reading label files and run files for the label-agreement page (issue 6).

Label files
    One table ``query_id, doc_id, gold, <source> ...`` (CSV/TSV/XLSX, UTF-8 or CP949, Korean
    headers allowed), or two tables joined on (query_id, doc_id): a gold file and a file with
    one or more other label columns; pairs found in only one file are reported, never dropped
    silently. A TREC qrels file (``qid iter docid rel``, whitespace separated, no header) is
    accepted for either side. Labels are 0/1 (binary) or 0/1/2 (graded); a blank cell means
    "not labelled by that source" and is counted. Anything else raises ``InputError`` naming
    the file, row and column.

Run files
    A TREC run ``qid Q0 docid rank score tag`` (plain or .gz), read by ``core.inputs.trec.read_run``
    and ordered the way trec_eval orders it: score descending, equal scores by doc id
    descending (the rank column is not used); or a table ``query_id, doc_id, rank`` (CSV, TSV
    or XLSX) ordered by rank ascending, where a repeated (query, doc) or a repeated rank
    within a query is an ``InputError``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import PurePath

import numpy as np
import pandas as pd

from core.errors import InputError
from core.inputs import (Run, decode_text, find_column, gunzip, nfc, norm_header, parse_number,
                         parse_numbers, read_run, read_table, run_name, unique_names,
                         visible_controls)

QUERY_NAMES = ("query_id", "queryid", "qid", "query", "topic", "topic_id", "q_id", "질의id",
               "질의_id", "질의", "쿼리id", "쿼리_id", "쿼리", "질문id", "질문_id", "질문번호",
               "질의번호")
DOC_NAMES = ("doc_id", "docid", "doc", "document", "document_id", "docno", "passage_id",
             "pid", "문서id", "문서_id", "문서", "문서번호")
GOLD_NAMES = ("gold", "golden", "gold_label", "gold_labels", "reference", "ground_truth",
              "qrel", "qrels", "정답", "골드", "정답라벨", "정답_라벨", "기준", "기준라벨")
LABEL_NAMES = ("label", "rel", "relevance", "judgement", "judgment", "grade", "라벨", "레이블",
               "관련도", "판정")
TEXT_HINTS = ("text", "title", "note", "notes", "comment", "query_text", "doc_text", "body",
              "passage", "question", "메모", "비고", "설명", "제목", "본문", "질의문", "내용")
RANK_NAMES = ("rank", "position", "pos", "순위", "등수")
LABEL_VALUES = (0, 1, 2)  # a label cell is a number equal to one of these
MISSING = -1  # "not labelled" in the integer label arrays
MAX_SHOWN = 20


def _no_blank_keys(frame: pd.DataFrame, cols, file: str) -> None:
    """Every row needs its query and document id: name the first blank one."""
    for col in cols:
        blank = frame.index[frame[col] == ""]
        if len(blank):
            raise InputError("agreement.err_blank_key", file=file, row=int(blank[0]),
                             column=col, count=len(blank))


def _stem(file: str) -> str:
    return PurePath(file).stem or file


# ----------------------------------------------------------------------------- labels
@dataclass(frozen=True)
class LabelSet:
    """Labelled (query, doc) pairs: gold labels and one or more other sources.

    ``gold`` and each ``sources[name]`` are int8 arrays aligned with ``pairs``: 0, 1, 2, or
    ``MISSING`` (-1) where that source gave no label. ``unmatched`` lists pairs that only one
    of two joined files had (empty for a single file); ``ignored_columns`` are text columns
    that were recognised by name and not used.
    """

    pairs: pd.DataFrame = field(repr=False)  # columns query_id, doc_id (str)
    gold: np.ndarray = field(repr=False)
    sources: dict = field(repr=False)
    source: str
    gold_name: str = "gold"
    unmatched: dict = field(default_factory=dict)  # {"gold_only": [...], "other_only": [...]}
    ignored_columns: tuple = ()
    rows: np.ndarray | None = field(default=None, repr=False)  # spreadsheet row per pair
    encoding: str | None = None  # the text encoding read (None for a workbook)

    @property
    def names(self) -> list[str]:
        return list(self.sources)

    @property
    def n_pairs(self) -> int:
        return len(self.pairs)

    @property
    def graded(self) -> bool:
        """True when any label (gold or other) is 2."""
        return bool((self.gold == 2).any() or any((s == 2).any() for s in self.sources.values()))

    def missing_counts(self) -> dict:
        """Blank labels per column (gold first)."""
        out = {self.gold_name: int((self.gold == MISSING).sum())}
        out.update({n: int((s == MISSING).sum()) for n, s in self.sources.items()})
        return out

    def summary(self) -> dict:
        return {"source": self.source, "n_pairs": self.n_pairs,
                "n_queries": int(self.pairs["query_id"].nunique()),
                "gold": self.gold_name, "sources": self.names, "graded": self.graded,
                "blank_labels": self.missing_counts(),
                "unmatched": {k: len(v) for k, v in self.unmatched.items()},
                "unmatched_examples": {k: [f"{q}/{d}" for q, d in v[:MAX_SHOWN]]
                                       for k, v in self.unmatched.items()},
                "ignored_columns": list(self.ignored_columns)}


def parse_labels(series: pd.Series, column: str, file: str) -> np.ndarray:
    """String cells -> int8 labels (blank -> MISSING); InputError naming the first bad cell.
    A label is a number (``core.inputs.tables.parse_numbers``: ``1``, ``1.0``, ``1,0``) equal to
    0, 1 or 2."""
    s = series.str.strip()
    nums = pd.Series(parse_numbers(s, file=file, column=column), index=s.index)
    mapped = nums.where(nums.isin(LABEL_VALUES))
    bad = s[(s != "") & mapped.isna()]
    if len(bad):
        row = bad.index[0]
        raise InputError("agreement.err_bad_label", file=file, row=int(row), column=column,
                         value=str(bad.iloc[0])[:40], count=len(bad),
                         rows=", ".join(str(r) for r in bad.index[:5]))
    return mapped.fillna(MISSING).to_numpy(dtype=np.int8)


def _looks_like_qrels(text: str) -> bool:
    lines = [ln.split() for ln in text.splitlines()[:20] if ln.strip()]
    return bool(lines) and all(len(p) == 4 and re.fullmatch(r"-?\d+", p[3]) for p in lines)


def _read_qrels(text: str, file: str) -> pd.DataFrame:
    rows = []
    for i, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) != 4:
            raise InputError("agreement.err_qrels_line", file=file, row=i, fields=len(parts))
        rows.append((i, visible_controls(parts[0]), visible_controls(parts[2]), parts[3]))
    frame = pd.DataFrame([r[1:] for r in rows], columns=["query_id", "doc_id", "label"],
                         index=[r[0] for r in rows], dtype=str)
    return frame


def _table(data: bytes, file: str) -> tuple[pd.DataFrame, bool, str | None]:
    """(string frame indexed by spreadsheet row / line number, is_qrels, text encoding)."""
    if data[:4] != b"PK\x03\x04" and not file.lower().endswith((".xlsx", ".xlsm")) and data:
        text, enc = decode_text(bytes(data), file)
        if _looks_like_qrels(text):
            return _read_qrels(text, file), True, enc
    raw = read_table(data, file)
    return raw.frame, False, raw.encoding or None


def _key_columns(frame: pd.DataFrame, file: str) -> tuple[str, str]:
    q = find_column(frame.columns, QUERY_NAMES)
    d = find_column(frame.columns, DOC_NAMES)
    if q is None or d is None:
        raise InputError("agreement.err_no_keys", file=file,
                         columns=", ".join(map(str, frame.columns[:10])))
    _no_blank_keys(frame, (q, d), file)
    dup = frame.duplicated(subset=[q, d], keep=False)
    if dup.any():
        rows = frame.index[dup]
        raise InputError("agreement.err_duplicate_pair", file=file, row=int(rows[1]),
                         query=frame.at[rows[0], q], doc=frame.at[rows[0], d],
                         rows=", ".join(str(r) for r in rows[:5]), count=int(dup.sum()))
    return q, d


def _label_columns(frame: pd.DataFrame, keys: tuple[str, str]) -> tuple[list, list]:
    text_hints = {norm_header(h) for h in TEXT_HINTS}
    labels, ignored = [], []
    for col in frame.columns:
        if col in keys:
            continue
        (ignored if norm_header(col) in text_hints else labels).append(col)
    return labels, ignored


def _check_any(labels: np.ndarray, file: str, column: str) -> None:
    if (labels == MISSING).all():
        raise InputError("agreement.err_empty_column", file=file, column=column)


def load_labels(data: bytes, file: str = "upload", *, gold: str | None = None) -> LabelSet:
    """One table ``query_id, doc_id, gold, <source> ...`` -> LabelSet.

    The gold column is ``gold`` (or golden, reference, 정답, …; or the name given); every other
    column except recognised text columns (text, title, note, 메모, …) is a label source.
    """
    frame, is_qrels, encoding = _table(data, file)
    if is_qrels:
        raise InputError("agreement.err_qrels_single", file=file)
    q, d = _key_columns(frame, file)
    cols, ignored = _label_columns(frame, (q, d))
    gold_col = gold if gold is not None else find_column(cols, GOLD_NAMES)
    if gold_col is None or gold_col not in cols:
        raise InputError("agreement.err_no_gold", file=file, columns=", ".join(cols[:10]))
    others = [c for c in cols if c != gold_col]
    if not others:
        raise InputError("agreement.err_no_sources", file=file, gold=gold_col)
    g = parse_labels(frame[gold_col], gold_col, file)
    _check_any(g, file, gold_col)
    sources = {}
    for c in others:
        sources[c] = parse_labels(frame[c], c, file)
        _check_any(sources[c], file, c)
    pairs = pd.DataFrame({"query_id": frame[q].to_numpy(), "doc_id": frame[d].to_numpy()})
    return LabelSet(pairs, g, sources, file, gold_col, {}, tuple(ignored),
                    frame.index.to_numpy(), encoding)


def _side(data: bytes, file: str, *,
          want_gold: bool) -> tuple[pd.DataFrame, dict, str | None]:
    frame, is_qrels, encoding = _table(data, file)
    if is_qrels:
        labels = {"gold" if want_gold else _stem(file):
                  parse_labels(frame["label"], "label", file)}
        keys = frame[["query_id", "doc_id"]]
        _dup_check(keys, file)
        return keys.rename_axis("row").reset_index(), labels, encoding
    q, d = _key_columns(frame, file)
    cols, _ = _label_columns(frame, (q, d))
    if not cols:
        raise InputError("agreement.err_no_sources", file=file, gold="")
    if want_gold:
        col = find_column(cols, GOLD_NAMES) or find_column(cols, LABEL_NAMES) or (cols[0] if len(cols) == 1
                                                                     else None)
        if col is None:
            raise InputError("agreement.err_no_gold", file=file, columns=", ".join(cols[:10]))
        labels = {col: parse_labels(frame[col], col, file)}
    else:
        labels = {c: parse_labels(frame[c], c, file) for c in cols}
    keys = pd.DataFrame({"query_id": frame[q], "doc_id": frame[d]})
    return keys.rename_axis("row").reset_index(), labels, encoding


def _dup_check(keys: pd.DataFrame, file: str) -> None:
    dup = keys.duplicated(keep=False)
    if dup.any():
        rows = keys.index[dup]
        raise InputError("agreement.err_duplicate_pair", file=file, row=int(rows[1]),
                         query=keys.loc[rows[0], "query_id"],
                         doc=keys.loc[rows[0], "doc_id"],
                         rows=", ".join(str(r) for r in rows[:5]), count=int(dup.sum()))


def load_label_files(gold_data: bytes, gold_file: str, other_data: bytes,
                     other_file: str) -> LabelSet:
    """A gold file and a file of other labels, joined on (query_id, doc_id).

    Only pairs present in both files are compared; the others are listed in
    ``LabelSet.unmatched`` as ``gold_only`` and ``other_only``.
    """
    gk, glabels, genc = _side(gold_data, gold_file, want_gold=True)
    ok, olabels, oenc = _side(other_data, other_file, want_gold=False)
    (gname, gvals), = glabels.items()
    if gname in olabels:
        olabels = {(f"{k} ({_stem(other_file)})" if k == gname else k): v
                   for k, v in olabels.items()}
    gk["_g"] = np.arange(len(gk))
    ok["_o"] = np.arange(len(ok))
    merged = gk.merge(ok, on=["query_id", "doc_id"], how="outer", indicator=True, sort=False)
    both = merged[merged["_merge"] == "both"]
    gold_only = [tuple(x) for x in merged.loc[merged["_merge"] == "left_only",
                                              ["query_id", "doc_id"]].to_numpy()]
    other_only = [tuple(x) for x in merged.loc[merged["_merge"] == "right_only",
                                               ["query_id", "doc_id"]].to_numpy()]
    if both.empty:
        raise InputError("agreement.err_no_overlap", file=other_file, gold_file=gold_file)
    gi, oi = both["_g"].to_numpy(int), both["_o"].to_numpy(int)
    pairs = both[["query_id", "doc_id"]].reset_index(drop=True).astype(str)
    sources = {k: v[oi] for k, v in olabels.items()}
    return LabelSet(pairs, gvals[gi], sources, f"{gold_file} + {other_file}", gname,
                    {"gold_only": gold_only, "other_only": other_only}, (),
                    both["row_y"].to_numpy() if "row_y" in both else None,
                    "cp949" if "cp949" in (genc, oenc) else (genc or oenc))


# ----------------------------------------------------------------------------- runs
def _looks_like_trec_run(text: str) -> bool:
    lines = [ln.split() for ln in text.splitlines()[:20] if ln.strip()]
    if not lines:
        return False
    for p in lines:
        if len(p) != 6:
            return False
        try:
            int(p[3])
            parse_number(p[4])
        except ValueError:
            return False
    return True


def _run_dups(df: pd.DataFrame, file: str) -> None:
    dup = df.duplicated(subset=["q", "d"], keep=False)
    if dup.any():
        rows = df.index[dup]
        raise InputError("agreement.err_run_duplicate", file=file, row=int(rows[1]),
                         query=df.at[rows[0], "q"], doc=df.at[rows[0], "d"])


def _read_rank_table(data: bytes, file: str) -> tuple[dict, int]:
    frame = read_table(data, file).frame
    q, d = find_column(frame.columns, QUERY_NAMES), find_column(frame.columns, DOC_NAMES)
    r = find_column(frame.columns, RANK_NAMES)
    if q is None or d is None or r is None:
        raise InputError("agreement.err_run_columns", file=file,
                         columns=", ".join(map(str, frame.columns[:10])))
    _no_blank_keys(frame, (q, d), file)
    ranks = pd.Series(parse_numbers(frame[r], file=file, column=r), index=frame.index)
    bad = frame.index[ranks.isna() | (ranks < 1) | (ranks != ranks.round())]
    if len(bad):
        raise InputError("agreement.err_run_rank", file=file, row=int(bad[0]), column=r,
                         value=frame.at[bad[0], r][:40])
    df = pd.DataFrame({"q": frame[q], "d": frame[d], "r": ranks.astype(int)})
    _run_dups(df, file)
    tied = df.duplicated(subset=["q", "r"], keep=False)
    if tied.any():
        rows = df.index[tied]
        raise InputError("agreement.err_run_tied_rank", file=file, row=int(rows[1]), column=r,
                         query=df.at[rows[0], "q"], rank=int(df.at[rows[0], "r"]))
    df = df.sort_values(["q", "r"], kind="stable")
    docs = {qq: dict(zip(g["d"].tolist(), (-g["r"].astype(float)).tolist()))
            for qq, g in df.groupby("q", sort=False)}
    return docs, len(df)


def _run_label(file: str) -> str:
    """``runs/bm25.run.gz`` -> ``bm25`` (``core.inputs.trec.run_name``), ``sys.csv`` -> ``sys``."""
    return re.sub(r"\.(csv|tsv|xlsx|xlsm)$", "", run_name(file), flags=re.I) or file


def load_run(data: bytes, file: str = "run", *, name: str | None = None) -> Run:
    """A TREC run file (plain or .gz; read by ``core.inputs.trec.read_run``) or a
    ``query_id, doc_id, rank`` table -> ``core.inputs.trec.Run`` (name from the file name; a
    table's ranks are kept as scores ``-rank``, so ``Run.ranking`` is rank order)."""
    if not isinstance(data, (bytes, bytearray)) or len(data) == 0:
        raise InputError("empty_file", file=file)
    name = nfc(name) if name else _run_label(file)
    raw = gunzip(bytes(data), file)
    is_xlsx = raw[:4] == b"PK\x03\x04" or file.lower().endswith((".xlsx", ".xlsm"))
    if not is_xlsx:
        text, _ = decode_text(raw, file)
        if _looks_like_trec_run(text):
            return read_run(raw, file, name)
    docs, rows = _read_rank_table(raw, file)
    return Run(name, file, docs, rows, format="table")


def load_runs(files: list[tuple[bytes, str]]) -> list[Run]:
    """Several runs; names are file stems, made unique as ``core.inputs.trec.unique_names`` does
    (``x``, ``x (2)``) when two collide."""
    return unique_names([load_run(data, file) for data, file in files])
