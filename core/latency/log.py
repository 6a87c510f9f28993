"""Reading a timing log: ``load_timings`` turns CSV/TSV/XLSX bytes into a ``TimingLog``.

Long logs (``query_id, method, latency_ms[, run, cache, timestamp]``) and wide logs
(``query_id, <method>, <method>, ...[, run, cache]``) are both read; several repetitions per
query are allowed. Every bad cell is an ``InputError`` naming its row and column; blank
latency cells are left out and listed, never dropped silently.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from core.errors import InputError
from core.i18n import t
from core.inputs import find_column, parse_numbers, read_cells

QUERY_NAMES = ("query_id", "queryid", "qid", "query", "case_id", "id", "질의id", "쿼리id",
               "쿼리", "질의", "케이스")
METHOD_NAMES = ("method", "system", "variant", "pipeline", "retriever", "방법", "방식", "시스템")
LATENCY_NAMES = ("latency_ms", "latency", "ms", "time_ms", "duration_ms", "elapsed_ms",
                 "지연시간", "지연시간_ms", "응답시간", "응답시간_ms")
RUN_NAMES = ("run", "rep", "repetition", "iteration", "trial", "회차", "반복")
CACHE_NAMES = ("cache", "cache_hit", "cached", "캐시")
TIME_NAMES = ("timestamp", "time", "ts", "started_at", "start_time", "시각", "시간")
HIT_WORDS = {"hit", "true", "t", "1", "yes", "y", "warm", "cached", "적중", "예"}
TEXT_NAMES = ("query", "query_text", "question", "text", "note", "notes", "comment", "질문",
              "질의", "쿼리", "메모", "비고")  # wide logs: text beside the timings, not a method
MISS_WORDS = {"miss", "false", "f", "0", "no", "n", "cold", "미스", "아니오"}


@dataclass(frozen=True)
class TimingLog:
    """A parsed timing log: one row per timing in ``frame`` with columns ``query`` (str),
    ``method`` (str), ``latency_ms`` (float > 0), ``run`` (1-based rank of the repetition
    within its query and method), ``order`` (timestamp, else spreadsheet row: when it ran),
    ``row`` (spreadsheet row), ``cache`` (1 hit, 0 miss, NaN unknown)."""

    frame: pd.DataFrame
    source: str
    layout: str                      # "long" | "wide"
    methods: tuple[str, ...]
    has_run: bool
    has_cache: bool
    has_timestamp: bool
    blank: tuple[str, ...] = ()      # cells left blank, as "row 7 (dense)"
    encoding: str | None = None      # the text encoding read (None for a workbook)
    latency_column: str = ""         # long logs: the latency column's header ("" when wide)

    def column_of(self, method: str) -> str:
        """The column holding ``method``'s timings: its own column in a wide log, the latency
        column (with the method named) in a long one."""
        return method if self.layout == "wide" else f"{self.latency_column} ({method})"

    @property
    def n_rows(self) -> int:
        return len(self.frame)


MAX_LATENCY = 1e15   # above this no unit makes a value a latency (1e15 ns is 11.6 days)


def _number_cells(col: pd.Series, *, file: str, column: str) -> np.ndarray:
    """Latencies: floats in (0, ``MAX_LATENCY``]; anything else raises ``InputError`` naming
    the row (a value like 1e308 would overflow the sums and medians downstream)."""
    vals = parse_numbers(col, file=file, column=column)
    bad = ~np.isfinite(vals)
    if bad.any():
        row = int(col.index[np.argmax(bad)])
        raise InputError("latency.err_bad_latency", file=file, row=row, column=column,
                         value=str(col.iloc[np.argmax(bad)])[:40], count=int(bad.sum()))
    low = vals <= 0
    if low.any():
        row = int(col.index[np.argmax(low)])
        raise InputError("latency.err_not_positive", file=file, row=row, column=column,
                         value=str(col.iloc[np.argmax(low)])[:40], count=int(low.sum()))
    high = vals > MAX_LATENCY
    if high.any():
        row = int(col.index[np.argmax(high)])
        raise InputError("latency.err_too_large", file=file, row=row, column=column,
                         value=str(col.iloc[np.argmax(high)])[:40], limit=f"{MAX_LATENCY:.0e}",
                         count=int(high.sum()))
    return vals


def _cache_cells(col: pd.Series, *, file: str, column: str) -> np.ndarray:
    out = np.full(len(col), np.nan)
    for i, (row, cell) in enumerate(col.items()):
        low = cell.strip().lower()
        if low in HIT_WORDS:
            out[i] = 1.0
        elif low in MISS_WORDS:
            out[i] = 0.0
        elif low != "":
            raise InputError("latency.err_bad_cache", file=file, row=int(row), column=column,
                             value=cell[:40])
    return out


def _run_cells(col: pd.Series, *, file: str, column: str) -> np.ndarray:
    vals = parse_numbers(col, file=file, column=column)
    bad = ~np.isfinite(vals) | (vals != np.round(vals))
    if bad.any():
        i = int(np.argmax(bad))
        raise InputError("latency.err_bad_run", file=file, row=int(col.index[i]), column=column,
                         value=str(col.iloc[i])[:40])
    return vals


def _time_cells(col: pd.Series, *, file: str, column: str) -> np.ndarray:
    nums = parse_numbers(col, file=file, column=column)
    if not np.isnan(nums).any():
        return nums
    stamps = pd.to_datetime(col, errors="coerce", format="mixed")
    bad = stamps.isna().to_numpy()
    if bad.any():
        i = int(np.argmax(bad))
        raise InputError("latency.err_bad_time", file=file, row=int(col.index[i]), column=column,
                         value=str(col.iloc[i])[:40])
    return (stamps - stamps.min()).dt.total_seconds().to_numpy(float)


def _blank_check(frame: pd.DataFrame, column: str, code: str, file: str) -> None:
    blank = frame[column] == ""
    if blank.any():
        raise InputError(code, file=file, row=int(frame.index[np.argmax(blank.to_numpy())]),
                         column=column, count=int(blank.sum()))


def load_timings(data: bytes, file: str = "upload") -> TimingLog:
    """Parse a timing log (CSV/TSV/XLSX bytes, as ``core.inputs.tables.read_cells``).

    Long when a method column and a latency column are found, else wide (every column other
    than the query id, run, cache, timestamp and query-text columns is a method). The query id
    column is the first of ``QUERY_NAMES`` present (``query_id`` before ``query``). Latencies must be
    numbers above 0 (ms); a blank latency cell is left out and listed in ``blank``.
    Repetitions are ranked 1, 2, ... within each query and method by the ``run`` column,
    else by timestamp, else by row order.
    """
    table = read_cells(data, file)   # no pandas frame of the whole file's cells
    f = pd.DataFrame(dict(zip(table.names, table.columns)), index=pd.Index(table.rows),
                     dtype=object)
    cols = list(f.columns)
    qcol = next((c for n in QUERY_NAMES if (c := find_column(cols, [n])) is not None), None)
    if qcol is None:
        raise InputError("latency.err_no_query", file=file, columns=", ".join(cols)[:300])
    mcol, lcol = find_column(cols, METHOD_NAMES), find_column(cols, LATENCY_NAMES)
    rcol, ccol = find_column(cols, RUN_NAMES), find_column(cols, CACHE_NAMES)
    tcol = find_column(cols, TIME_NAMES)
    _blank_check(f, qcol, "latency.err_blank_query", file)
    if mcol is not None and lcol is not None:
        layout = "long"
        _blank_check(f, mcol, "latency.err_blank_method", file)
        blank_mask = (f[lcol] == "").to_numpy()
        blank = tuple(f"{t('latency.row', 'en', row=int(r))} ({m})"
                      for r, m in zip(f.index[blank_mask], f[mcol][blank_mask]))
        body = f[~blank_mask] if blank_mask.any() else f   # no copy when nothing is blank
        if body.empty:
            raise InputError("header_only", file=file)
        long = pd.DataFrame({"query": body[qcol].to_numpy(), "method": body[mcol].to_numpy(),
                             "latency_ms": _number_cells(body[lcol], file=file, column=lcol),
                             "row": body.index.to_numpy(int)})
        extra = body
    else:
        layout = "wide"
        skip = {qcol, rcol, ccol, tcol, *(c for c in cols if find_column([c], TEXT_NAMES))}
        methods = [c for c in cols if c not in skip]
        if len(methods) < 1:
            raise InputError("latency.err_no_methods", file=file, columns=", ".join(cols)[:300])
        parts, blank = [], []
        for m in methods:
            cells = f[m]
            empty = (cells == "").to_numpy()
            blank += [f"{t('latency.row', 'en', row=int(r))} ({m})" for r in f.index[empty]]
            keep = cells[~empty]
            parts.append(pd.DataFrame({
                "query": f[qcol][~empty].to_numpy(), "method": m,
                "latency_ms": _number_cells(keep, file=file, column=m),
                "row": keep.index.to_numpy(int)}))
        long = pd.concat(parts, ignore_index=True)
        if long.empty:
            raise InputError("header_only", file=file)
        extra = f.loc[long["row"].to_numpy()]
        blank = tuple(blank)
    long = long.astype({"query": object, "method": object})
    long["cache"] = (_cache_cells(extra[ccol], file=file, column=ccol) if ccol
                     else np.full(len(long), np.nan))
    stamps = _time_cells(extra[tcol], file=file, column=tcol) if tcol else None
    long["order"] = stamps if stamps is not None else long["row"].to_numpy(float)
    # methods in file order (columns, or first rows); codes instead of strings for the sorts
    mcode, muniq = pd.factorize(long["method"].to_numpy(dtype=object))
    methods = tuple(muniq.tolist())
    qcode = pd.factorize(long["query"].to_numpy(dtype=object))[0]
    pos = np.arange(len(long))
    if rcol:
        key = _run_cells(extra[rcol], file=file, column=rcol)
        long["run_label"] = key
    else:
        key = long["order"].to_numpy(float)
    # within each (method, query): by run label (else time), then spreadsheet row / position
    o = np.lexsort((pos, long["row"].to_numpy(), key, qcode, mcode))
    same = (mcode[o][1:] == mcode[o][:-1]) & (qcode[o][1:] == qcode[o][:-1])
    if rcol:
        dup = same & (key[o][1:] == key[o][:-1])
        if dup.any():   # the first repeated (query, method, run) in file order
            r = long.iloc[int(o[1:][dup].min())]
            raise InputError("latency.err_duplicate_run", file=file, row=int(r["row"]),
                             column=rcol, query=r["query"], method=r["method"],
                             run=f"{r['run_label']:g}")
    start = np.concatenate([[0], np.flatnonzero(~same) + 1])
    rank = np.arange(len(long)) - np.repeat(start, np.diff(np.append(start, len(long))))
    run = np.empty(len(long), np.int64)
    run[o] = rank + 1
    long["run"] = run
    long = long.drop(columns=["run_label"], errors="ignore") \
        .iloc[np.lexsort((mcode, long["row"].to_numpy()))]
    return TimingLog(long.reset_index(drop=True), file, layout, methods, rcol is not None,
                     ccol is not None and bool(long["cache"].notna().any()), tcol is not None,
                     tuple(blank), table.encoding or None, lcol if layout == "long" else "")
