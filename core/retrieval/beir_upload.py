"""Your own BEIR column: an uploaded ``dataset, ndcg@10`` table matched to the grid's datasets
(``core.retrieval.beir_grid``) and tallied against every model (``core.retrieval.beir_table.tally``)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from core import checks
from core.errors import InputError
from core.inputs import find_column, read_table
from core.retrieval.beir_grid import Grid, norm_name, parse_score
from core.retrieval.beir_table import TableTally, tally

MAX_LISTED = 10
DATASET_NAMES = ("dataset", "datasets", "data", "name", "corpus", "task", "beir_dataset",
                 "데이터셋", "데이터", "데이터 세트", "데이터세트", "이름")
VALUE_NAMES = ("ndcg@10", "ndcg_cut_10", "ndcg_cut.10", "ndcg10", "ndcg", "ndcg@10_mean",
               "score", "value", "mean", "점수", "값")


@dataclass(frozen=True)
class UserColumn:
    """An uploaded ``dataset, ndcg@10`` column matched to the grid's dataset names."""

    file: str
    values: dict        # canonical dataset -> value
    spelled: dict       # canonical dataset -> the name as written in the file

    @property
    def n_datasets(self) -> int:
        return len(self.values)


def parse_user_column(data: bytes, grid: Grid, file: str = "upload") -> UserColumn:
    """Read an uploaded ``dataset, ndcg@10`` table (CSV/TSV/XLSX via ``core.inputs.tables``) and
    match its dataset names leniently to the grid ("scifact" = "SciFact", BEIR ids such as
    "webis-touche2020" and "dbpedia-entity" too). Unknown names, repeated datasets, blank or
    out-of-range values raise ``InputError`` naming the file, rows and column."""
    table = read_table(data, file)
    frame, cols = table.frame, list(table.frame.columns)
    ds_col = find_column(cols, DATASET_NAMES, key=norm_name)
    val_col = find_column(cols, VALUE_NAMES, key=norm_name)
    if (ds_col is None or val_col is None) and len(cols) == 2:
        ds_col, val_col = ds_col or next(c for c in cols if c != val_col), \
            val_col or next(c for c in cols if c != ds_col)
    if ds_col is None or val_col is None or ds_col == val_col:
        raise InputError("beir_table.err_columns", file=file, columns=", ".join(cols))
    values, spelled, rows_of, unknown = {}, {}, {}, []
    for row, name, cell in zip(frame.index, frame[ds_col], frame[val_col]):
        if name == "":
            raise InputError("beir_table.err_blank_dataset", file=file, row=int(row),
                             column=ds_col)
        canon = grid.dataset(name)
        if canon is None:
            unknown.append((int(row), name))
            continue
        value = parse_score(cell, file=file, row=int(row), column=val_col)
        if value is None:
            raise InputError("beir_table.err_blank_value", file=file, row=int(row),
                             column=val_col, name=name)
        if canon in values:
            raise InputError("beir_table.err_duplicate_dataset", file=file, row=int(row),
                             column=ds_col, name=canon,
                             rows=f"{rows_of[canon]}, {int(row)}")
        values[canon], spelled[canon], rows_of[canon] = value, name, int(row)
    if unknown:
        listed = ", ".join(f"'{n}' (row {r})" for r, n in unknown[:MAX_LISTED])
        raise InputError("beir_table.err_unknown_dataset", file=file, row=unknown[0][0],
                         column=ds_col, count=len(unknown), names=listed,
                         known=", ".join(grid.datasets))
    ordered = [d for d in grid.datasets if d in values]
    return UserColumn(file, {d: values[d] for d in ordered}, {d: spelled[d] for d in ordered})


def tally_user(grid: Grid, column: UserColumn, name: str = "yours") -> TableTally:
    """The uploaded column as the baseline against every grid column, on the datasets it
    covers (``TableTally.datasets``)."""
    checks.instance("column", column, UserColumn)
    checks.nonempty("column.values", column.values, what="dataset")
    sub = grid.subset(column.values).with_column(name, column.values)
    return tally(sub, name)


def user_column_name(file: str, grid: Grid) -> str:
    """A column name for an added file: its stem, or '<stem> (yours)' when that is a model."""
    stem = Path(file).stem.strip() or "yours"
    if any(norm_name(stem) == norm_name(m) for m in grid.models):
        stem = f"{stem} (yours)"
    return stem
