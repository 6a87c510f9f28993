"""The order in which a golden set's cases arrived (issue 33, the sequential mode): the file's
row order, or a ``date`` / ``added`` column when the file has one.

The column (``ARRIVAL_NAMES``, matched as headers are) holds either dates (``2026-03-01``,
``2026-03-01 14:05``, ``2026/03/01``, ``2026.03.01``; what a spreadsheet's date cells read as)
or plain numbers (a sprint or batch number); it is taken out of the table before the methods
are read, and is only read in the sequential mode (without it the file is read as before).
A cell that is neither, a column mixing the two, or a case given two different dates is an
``InputError`` naming the file, the column and the rows. Rows whose dates are earlier than a
row above them are not refused: the cases are put in date order (ties keep file order) and
``Arrival.unsorted_rows`` names those rows, so the page and the CLI can say the file was not
in date order.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from core.errors import InputError
from core.inputs.clusters import Clustered, split_table
from core.inputs.golden import from_cells
from core.inputs.golden_cases import CASE_ID_NAMES
from core.inputs.tables import CellTable, find_column, parse_number, read_cells
from core.paired import sequential_compare

ARRIVAL_NAMES = ("date", "added", "date_added", "added_on", "arrived", "날짜", "추가일", "추가")
MAX_SHOWN = 10
_DATE = re.compile(r"^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2}))?"
                   r"(?:\.\d+)?)?$")


def _shown(items) -> str:
    items = list(items)
    more = f" (+{len(items) - MAX_SHOWN})" if len(items) > MAX_SHOWN else ""
    return ", ".join(str(x) for x in items[:MAX_SHOWN]) + more


@dataclass(frozen=True)
class Arrival:
    """Where the order of the cases comes from: ``column`` (None: file order), the sort key of
    each case id (``keys``, first-seen rows), and the rows found above an earlier date
    (``unsorted_rows``, spreadsheet rows)."""

    column: str | None = None
    keys: dict | None = None
    unsorted_rows: tuple[int, ...] = ()

    def order(self, case_ids) -> list[int]:
        """Positions of ``case_ids`` (in file order) sorted by arrival: by the column's key
        when there is one (ties keep file order), else as given."""
        ids = list(case_ids)
        if self.keys is None:
            return list(range(len(ids)))
        return sorted(range(len(ids)), key=lambda i: self.keys[ids[i]])

    def to_dict(self) -> dict:
        return {"by": "file_order" if self.column is None else "column",
                "column": self.column, "unsorted_rows": list(self.unsorted_rows)}


def parse_arrival(cell: str):
    """A cell of the arrival column as a sortable key: ``(0, datetime)`` for a date,
    ``(1, number)`` for a number (``core.inputs.tables.parse_number``), else None."""
    text = cell.strip()
    m = _DATE.match(text)
    if m:
        y, mo, d, h, mi, s = (int(g) if g else 0 for g in m.groups())
        try:
            return (0, datetime(y, mo, d, h, mi, s))
        except ValueError:
            return None
    try:
        v = parse_number(text)
    except ValueError:
        return None
    return (1, v) if math.isfinite(v) else None


def arrival_keys(ids, cells, rows, file: str, col: str) -> Arrival:
    """The ``Arrival`` of a column: each case's key (its first row's), refusing unreadable
    cells, a mix of dates and numbers, and a case given two dates (``InputError``)."""
    parsed = [parse_arrival(c) for c in cells]
    bad = [int(r) for r, p in zip(rows, parsed) if p is None]
    if bad:
        first = next(c for c, p in zip(cells, parsed) if p is None)
        raise InputError("sequential.err_bad_date", file=file, row=bad[0], column=col,
                         count=len(bad), rows=_shown(bad), value=first[:40])
    kinds = {p[0] for p in parsed}
    if len(kinds) > 1:
        numbers = [int(r) for r, p in zip(rows, parsed) if p[0] == 1]
        raise InputError("sequential.err_mixed_dates", file=file, row=numbers[0], column=col,
                         count=len(numbers), rows=_shown(numbers))
    keys: dict = {}
    first_row: dict = {}
    for row, cid, p in zip(rows, ids, parsed):
        if cid in keys and keys[cid] != p:
            raise InputError("sequential.err_two_dates", file=file, row=int(row), column=col,
                             case=cid, first_row=first_row[cid])
        keys.setdefault(cid, p)
        first_row.setdefault(cid, int(row))
    unsorted, top = [], None
    for row, p in zip(rows, parsed):
        if top is not None and p < top:
            unsorted.append(int(row))
        top = p if top is None or p > top else top
    return Arrival(col, {cid: (p, i) for i, (cid, p) in enumerate(keys.items())},
                   tuple(unsorted))


def split_arrival(table: CellTable) -> tuple[CellTable, Arrival]:
    """(the table without its arrival column, its ``Arrival``); a table without one is
    returned as it is, with file order."""
    id_col = find_column(table.names, CASE_ID_NAMES)
    if id_col is None:
        raise InputError("no_case_id", file=table.file, columns=_shown(table.names))
    col = find_column([c for c in table.names if c != id_col], ARRIVAL_NAMES)
    if col is None:
        return table, Arrival()
    arrival = arrival_keys(table.column(id_col), table.column(col), table.rows, table.file,
                           col)
    keep = [i for i, n in enumerate(table.names) if n != col]
    rest = CellTable(tuple(table.names[i] for i in keep), tuple(table.columns[i] for i in keep),
                     table.rows, table.file, table.encoding, table.delimiter, table.sheet,
                     table.other_sheets, table.normalized)
    return rest, arrival


def load_arriving(data: bytes, file: str = "upload", *,
                  cluster: str | None = None) -> tuple[Clustered, Arrival]:
    """A golden-case file read for the sequential mode: its arrival column taken out
    (``split_arrival``), then read as ``core.inputs.systems.load_clustered`` reads it."""
    table = read_cells(data, file, required=(CASE_ID_NAMES,))
    table, arrival = split_arrival(table)
    rest, labels, col, runs = split_table(table, cluster)
    return Clustered(from_cells(rest), labels, col, None, runs), arrival


def sequential_golden(data: bytes, file: str, a: str, b: str, *, confidence: float = 0.95,
                      seed: int = 0):
    """The golden page's sequential mode in one call: the file read with its arrival order
    (``load_arriving``), A and B paired by case id (incomplete cases left out, as
    ``core.inputs.systems.compare_golden`` leaves them out), the cases put in arrival order and
    compared by ``core.paired.sequential_compare``. Returns (the ``SequentialComparison``, the
    ``Arrival``)."""
    clustered, arrival = load_arriving(data, file)
    ids, av, bv, _ = clustered.golden.paired_values(a, b)
    order = arrival.order(ids)
    seq = sequential_compare(np.asarray(av, float)[order], np.asarray(bv, float)[order],
                             confidence, seed=seed)
    return seq, arrival
