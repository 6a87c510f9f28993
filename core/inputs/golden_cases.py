"""The pandas-free form of a golden set (``core.inputs.golden.GoldenSet``): per-case scores and text
columns as numpy arrays and lists, and the field type that turns them into the pandas frames
pages read, built on first access. ``python -m core compare`` on a golden file reads, pairs
and compares through these without importing pandas (issue 25: ``import pandas`` was two
thirds of the command's start-up)."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from core.errors import InputError

# The one list of case-id headers (every reader: golden, lists, group side files).
CASE_ID_NAMES = ("case_id", "caseid", "case", "id", "qid", "query_id", "queryid", "case id",
                 "케이스", "케이스id", "케이스_id", "사례", "사례id", "번호", "질문id", "질의id")


@dataclass(frozen=True)
class CaseScores:
    """Per-case values by method without pandas: ``values[i, j]`` is case ``ids[i]``'s value
    for ``methods[j]``, NaN where the method has no (or a blank) value. ``frame()`` is the
    same table as ``GoldenSet.scores`` shows it (index ``case_id``; ``columns_name`` the
    columns' name: "method" for a long file, as its pivot names them)."""

    ids: tuple[str, ...]
    methods: tuple[str, ...]
    values: np.ndarray = field(repr=False)
    columns_name: str | None = None
    index_name: str = "case_id"   # the frame's index name ("query_id" for per-query tables)
    from_frame: bool = False      # ``of``: the values are a frame's ``to_numpy()``, laid out so

    @classmethod
    def of(cls, frame) -> "CaseScores":
        """The values of a scores frame (index: case ids, one column per method)."""
        return cls(tuple(frame.index), tuple(frame.columns), frame.to_numpy(float),
                   frame.columns.name, from_frame=True)

    def matrix(self) -> np.ndarray:
        """The values laid out in memory as the frame they stand for lays them out (``of``: as
        given; else as ``frame().to_numpy()``: column by column for a wide file, one column
        per method, row by row for a long file's pivot). A sum over the cases adds in memory
        order, so the means of ``core.paired.best`` come out to the bit as from the frame."""
        if self.from_frame:
            return self.values
        if self.columns_name is None:
            return np.asfortranarray(self.values)
        return np.ascontiguousarray(self.values)

    def frame(self):
        """The pandas frame (pandas imported here only)."""
        import pandas as pd

        if self.columns_name is None:   # a wide file: one column per method, in file order
            columns = {m: self.values[:, j] for j, m in enumerate(self.methods)}
            return pd.DataFrame(columns, index=pd.Index(np.array(self.ids, dtype=object),
                                                        name=self.index_name))
        # a long file's pivot: one block whose rows are cases (as ``DataFrame.pivot`` lays
        # it out, so column sums add in the same order)
        return pd.DataFrame(self.values.copy(), index=pd.Index(list(self.ids),
                                                               name=self.index_name),
                            columns=pd.Index(list(self.methods), name=self.columns_name),
                            copy=False)


def mean_of_defined(x) -> np.float64:
    """The mean of the values of ``x`` that are not NaN (NaN when none), summed as pandas'
    ``mean`` sums them (NaN set to 0, numpy's pairwise sum of the column, divided by the
    count): the same bits as ``Series.mean`` / ``DataFrame.mean`` without pandas."""
    x = np.array(x, dtype=float)
    gaps = np.isnan(x)
    count = x.size - int(gaps.sum())
    if count == 0:
        return np.float64("nan")
    x[gaps] = 0.0
    return x.sum() / count


@dataclass(frozen=True)
class CaseText:
    """The text columns of a golden file by case id, without pandas (``cells[c][i]`` is case
    ``ids[i]``'s cell in column ``c``); ``frame()`` is ``GoldenSet.text``."""

    ids: tuple[str, ...]
    cells: dict = field(repr=False)
    layout: str = "wide"

    def frame(self):
        import pandas as pd

        if self.layout == "wide":
            return pd.DataFrame({c: np.array(v, dtype=object) for c, v in self.cells.items()},
                                index=pd.Index(np.array(self.ids, dtype=object),
                                               name="case_id"))
        return pd.DataFrame({c: pd.array(v, dtype="str") for c, v in self.cells.items()},
                            index=pd.Index(list(self.ids), name="case_id"),
                            columns=pd.Index(list(self.cells), dtype="str"))


def group_series(labels: dict):
    """Group labels by case id as the pandas Series ``GoldenSet.groups`` shows."""
    import pandas as pd

    return pd.Series(labels, name="group", dtype=object)


_REQUIRED = object()


class PandasField:
    """A ``GoldenSet`` field given either a pandas object or its light form (``CaseScores``,
    ``CaseText``, a dict of group labels): reading the field gives the pandas object, built
    once on first access (so pandas is imported only by code that reads it, never by the
    CLI's compare path); ``stored_form(obj, name)`` gives what was stored. Python's
    dataclasses call a descriptor field's ``__set__`` from ``__init__`` and read its default
    from ``__get__(None, cls)`` (AttributeError: no default)."""

    def __init__(self, light: type, build, default=_REQUIRED) -> None:
        self.light, self.build, self.default = light, build, default

    def __set_name__(self, owner, name) -> None:
        self.name, self.stored = name, "_given_" + name

    def __get__(self, obj, owner=None):
        if obj is None:
            if self.default is _REQUIRED:
                raise AttributeError(self.name)
            return self.default
        d = obj.__dict__
        if self.name not in d:
            given = d[self.stored]
            d[self.name] = self.build(given) if isinstance(given, self.light) else given
        return d[self.name]

    def __set__(self, obj, value) -> None:
        obj.__dict__[self.stored] = value
        obj.__dict__.pop(self.name, None)


@dataclass(frozen=True)
class RunTable:
    """The runs of a long file: ``values[method][case_id]`` = {run label: value}."""

    column: str
    values: dict = field(repr=False)

    def matrix(self, method: str, ids) -> tuple[np.ndarray, list[str]]:
        """(cases x runs) values of ``method`` for ``ids`` (NaN where a run is missing), and
        the run labels (columns, first-seen order)."""
        by_case = self.values[method]
        labels = list(dict.fromkeys(r for cid in ids for r in by_case.get(cid, {})))
        out = np.full((len(ids), max(1, len(labels))), np.nan)
        col = {r: j for j, r in enumerate(labels)}
        for i, cid in enumerate(ids):
            for r, v in by_case.get(cid, {}).items():
                out[i, col[r]] = v
        return out, labels


def stored_form(obj, name: str):
    """What a ``PandasField`` was given (light or pandas)."""
    return obj.__dict__["_given_" + name]


def side_file_ids(table, id_col: str, file: str) -> list[str]:
    """The case ids of a side file's ``id_col`` (a ``core.inputs.tables.CellTable``: query
    groups, clusters); a blank id is refused naming its first row and how many are blank."""
    ids = table.column(id_col)
    blank = [r for r, c in zip(table.rows, ids) if c == ""]
    if blank:
        raise InputError("blank_case_id", file=file, row=blank[0], column=id_col,
                         count=len(blank))
    return ids
