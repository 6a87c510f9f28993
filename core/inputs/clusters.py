"""Clusters and repeated runs in uploads (issue 32): which cases share a document, and files
with K runs of each case.

Where the cluster labels come from (one name rule, ``CLUSTER_NAMES``):

- golden-case files and retrieval-list files: a column named ``cluster`` (also ``document``,
  ``doc_id``, ``source``, ``문서``, ``클러스터``; matched as headers are,
  ``core.inputs.tables.find_column``), or the column the user names (``--cluster NAME``, a page
  choice). That column is never read as a method or a text column.
- TREC runs (or any file): a side file ``qid,cluster`` (CSV/TSV/XLSX; ``read_cluster_labels``),
  as query groups have (``core.inputs.groups.read_group_labels``).

Clusters are the unit of independence; a ``group`` column (strata for per-group verdicts) is
read beside them as before. A blank cluster cell, or one case given two clusters, is an
``InputError`` naming the file, the rows and the column; so is a paired case the side file
does not name.

Repeated runs: a long golden file ``case_id, method, run, score`` (the run column also
``trial``, ``repeat``, ``반복``) with K runs per case and method, and retrieval-list files
with a run column (K rows per case, one ranked list per system and run; each run scored on
its own). The case's value is its mean over its runs (``core.paired.clusters``: cases stay
the unit); the runs themselves are kept (``RunTable``) for the variance split and the count
of cases whose B − A changes sign across runs. Unequal K is allowed and named. A (case, method, run) given twice is refused.

Without a cluster column, ``cluster_hint`` says when case ids look like they share a source
(``doc12_q1``, ``doc12_q2``): the page and the CLI suggest the option in one line and never
guess silently.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

import numpy as np

from core.errors import InputError
from core.inputs.golden import GoldenSet, parse_value
from core.inputs.golden_cases import CASE_ID_NAMES, RunTable, side_file_ids, stored_form
from core.inputs.tables import CellTable, find_column, read_cells
from core.paired import (ClusterComparison, compare_clustered, run_summary, sign_flipping_cases,
                         with_self_check)

CLUSTER_NAMES = ("cluster", "document", "doc_id", "docid", "source", "문서", "클러스터")
RUN_NAMES = ("run", "trial", "repeat", "반복")
# in a retrieval-list file a column named "run" may be a system's lists: it is the run column
# only when case ids repeat (``load_lists_clustered``); the other run names always are
LIST_RUN_NAMES = ("trial", "repeat", "반복")
METHOD_HEADERS = ("method", "system", "model", "retriever", "방법", "방식", "모델", "시스템",
                  "메서드", "기법")   # core.inputs.golden.METHOD_NAMES less "run"
MAX_SHOWN = 10


def _shown(items) -> str:
    items = list(items)
    more = f" (+{len(items) - MAX_SHOWN})" if len(items) > MAX_SHOWN else ""
    return ", ".join(str(x) for x in items[:MAX_SHOWN]) + more


# ----------------------------------------------------------------------------- labels
def cluster_column(names, given: str | None = None, file: str = "upload") -> str | None:
    """The cluster column: ``given`` (must be one of ``names``, matched as headers are), else
    the first header named in ``CLUSTER_NAMES``, else None."""
    if given:
        col = find_column(names, (given,))
        if col is None:
            raise InputError("clusters.err_no_such_column", file=file, column=given,
                             columns=_shown(names))
        return col
    return find_column(names, CLUSTER_NAMES)


def cluster_labels(ids, cells, rows, file: str, col: str) -> dict[str, str]:
    """The cluster of each case id (first-seen order) from a column's ``cells``, with the case
    ``ids`` and spreadsheet ``rows`` of the same rows. ``InputError`` for blank cells (naming
    every row, up to ten) and for a case given two clusters."""
    blank = [int(r) for r, c in zip(rows, cells) if c.strip() == ""]
    if blank:
        raise InputError("clusters.err_blank", file=file, row=blank[0], column=col,
                         count=len(blank), rows=_shown(blank))
    seen: dict[str, tuple[str, int]] = {}
    for row, cid, g in zip(rows, ids, cells):
        if cid in seen and seen[cid][0] != g:
            raise InputError("clusters.err_conflict", file=file, row=int(row), column=col,
                             case=cid, first=seen[cid][0], second=g, first_row=seen[cid][1])
        seen.setdefault(cid, (g, int(row)))
    return {cid: g for cid, (g, _) in seen.items()}


def read_cluster_labels(data: bytes, file: str = "clusters.csv") -> dict[str, str]:
    """A side file ``qid,cluster`` (any case-id header of ``CASE_ID_NAMES``, any cluster
    header of ``CLUSTER_NAMES``), CSV/TSV/XLSX: the cluster of each query id."""
    table = read_cells(data, file, required=(CASE_ID_NAMES,))
    id_col = find_column(table.names, CASE_ID_NAMES)
    col = cluster_column([c for c in table.names if c != id_col], None, file)
    if col is None:
        raise InputError("clusters.err_no_column", file=file, columns=_shown(table.names),
                         names=", ".join(CLUSTER_NAMES))
    ids = side_file_ids(table, id_col, file)
    return cluster_labels(ids, table.column(col), table.rows, file, col)


# ----------------------------------------------------------------------------- runs
def _run_column(names) -> tuple[str | None, str | None]:
    """(method column, run column) when a long file has both, else (None, None)."""
    run = find_column(names, RUN_NAMES)
    method = find_column([c for c in names if c != run], METHOD_HEADERS)
    if run is None or method is None:
        return None, None
    return method, run


def _fold_runs(table: CellTable, id_col: str, method_col: str, run_col: str,
               score_col: str) -> tuple[CellTable, RunTable]:
    """One row per (case, method) with the mean over its runs as the score (``repr`` of the
    float: read back exactly), and the runs."""
    file = table.file
    ids, ms, rs, sc = (table.column(c) for c in (id_col, method_col, run_col, score_col))
    blank = [r for r, x in zip(table.rows, rs) if x.strip() == ""]
    if blank:
        raise InputError("clusters.err_blank_run", file=file, row=blank[0], column=run_col,
                         count=len(blank), rows=_shown(blank))
    key_count = Counter(zip(ids, ms, rs))
    dup = [r for r, k in zip(table.rows, zip(ids, ms, rs)) if key_count[k] > 1]
    if dup:
        raise InputError("clusters.err_duplicate_run", file=file, row=dup[0], column=run_col,
                         count=len(dup), rows=_shown(dup))
    values: dict = {}
    first: dict = {}
    for i, (cid, m, r, cell) in enumerate(zip(ids, ms, rs, sc)):
        try:
            v = parse_value(cell)
        except ValueError:
            raise InputError("bad_value", file=file, row=table.rows[i], column=score_col,
                             value=cell[:40], count=1, rows=str(table.rows[i])) from None
        first.setdefault((cid, m), i)
        if v is not None:
            values.setdefault(m, {}).setdefault(cid, {})[r] = v
    keep = sorted(first.values())
    cols = []
    for name, cells in zip(table.names, table.columns):
        if name == run_col:
            continue
        if name == score_col:
            cells = [repr(float(np.mean(list(values.get(ms[i], {}).get(ids[i], {}).values()))))
                     if values.get(ms[i], {}).get(ids[i]) else "" for i in range(len(ids))]
        cols.append((name, [cells[i] for i in keep]))
    folded = CellTable(tuple(n for n, _ in cols), tuple(c for _, c in cols),
                       tuple(table.rows[i] for i in keep), file, table.encoding,
                       table.delimiter, table.sheet, table.other_sheets, table.normalized)
    return folded, RunTable(run_col, values)


# ----------------------------------------------------------------------------- loading
@dataclass(frozen=True)
class Clustered:
    """A golden set read with its clusters and runs (either may be None), and where they came
    from (``column`` or ``file``)."""

    golden: GoldenSet
    labels: dict | None = None
    column: str | None = None
    file: str | None = None
    runs: RunTable | None = None

    def with_file(self, labels: dict, file: str) -> "Clustered":
        """The same set with clusters from a side file (replacing a column's)."""
        return Clustered(self.golden, labels, None, file, self.runs)


def _without(table: CellTable, col: str) -> CellTable:
    keep = [i for i, n in enumerate(table.names) if n != col]
    return CellTable(tuple(table.names[i] for i in keep),
                     tuple(table.columns[i] for i in keep), table.rows, table.file,
                     table.encoding, table.delimiter, table.sheet, table.other_sheets,
                     table.normalized)


def split_table(table: CellTable, cluster: str | None = None) -> tuple:
    """(the table without its cluster and run columns, cluster labels or None, the cluster
    column or None, ``RunTable`` or None)."""
    file = table.file
    id_col = find_column(table.names, CASE_ID_NAMES)
    if id_col is None:
        raise InputError("no_case_id", file=file, columns=_shown(table.names))
    col = cluster_column([c for c in table.names if c != id_col], cluster, file)
    labels = None
    if col is not None:
        labels = cluster_labels(table.column(id_col), table.column(col), table.rows, file, col)
        table = _without(table, col)
    runs = None
    method_col, run_col = _run_column(table.names)
    score_col = find_column(table.names, ("score", "value", "correct", "hit", "result",
                                          "outcome", "점수", "정답", "결과", "값", "정답여부"))
    if run_col is not None and score_col is not None:
        table, runs = _fold_runs(table, id_col, method_col, run_col, score_col)
    return table, labels, col, runs


def has_cluster_column(data: bytes, file: str = "upload") -> bool:
    """Whether a file's header names a cluster or a run column (the Switch? page's one-line
    note: it reads such a file's cases as independent)."""
    return names_clusters(read_cells(data, file, required=(CASE_ID_NAMES,)))


def names_clusters(table: CellTable, cluster: str | None = None) -> bool:
    """Whether ``split_table`` has anything to take out of ``table``: a cluster column asked
    for (``cluster``) or one its header names (``CLUSTER_NAMES``), or a run column
    (``_run_column``). Reads the header only; ``core.inputs.systems.load_clustered`` splits
    only when this is True, so a file without either never enters this room."""
    if cluster:
        return True
    id_col = find_column(table.names, CASE_ID_NAMES)
    names = [c for c in table.names if c != id_col]
    return find_column(names, CLUSTER_NAMES) is not None or _run_column(names)[1] is not None


def load_lists_clustered(data: bytes, file: str = "upload", *, kind: str = "auto",
                         cluster: str | None = None):
    """A retrieval-list file (``core.inputs.lists``) with its cluster column taken out:
    (``ListSet``, labels or None, column or None). A run column (``trial``, ``repeat``,
    ``반복``; ``run`` when case ids repeat, as a method column named ``run`` stays a method)
    gives K rows per case, one per run: the ``ListSet`` holds each case's first row and its
    ``runs`` (``_list_runs``), which ``core.inputs.lists.score_lists`` averages."""
    # lazy: the list metrics' rooms, only for a lists file
    from core.inputs.lists import from_cells

    table = read_cells(data, file)
    id_col = find_column(table.names, CASE_ID_NAMES)
    if id_col is None:
        raise InputError("no_case_id", file=file, columns=_shown(table.names))
    others = [c for c in table.names if c != id_col]
    repeat = find_column(others, LIST_RUN_NAMES)
    ids = table.column(id_col)
    if repeat is None and len(set(ids)) < len(ids):
        repeat = find_column(others, ("run",))
    col = cluster_column([c for c in others if c != repeat], cluster, file)
    labels = None
    if col is not None:
        labels = cluster_labels(ids, table.column(col), list(table.rows), file, col)
    skip = tuple(c for c in (col, repeat) if c is not None)
    if repeat is None:
        return from_cells(table, kind=kind, skip=skip), labels, col
    return _list_runs(table, id_col, repeat, skip, kind), labels, col


def _rows_of(table: CellTable, keep: list[int]) -> CellTable:
    """The table's rows at positions ``keep`` (in that order)."""
    return CellTable(table.names, tuple([c[i] for i in keep] for c in table.columns),
                     tuple(table.rows[i] for i in keep), table.file, table.encoding,
                     table.delimiter, table.sheet, table.other_sheets, table.normalized)


def _list_runs(table: CellTable, id_col: str, run_col: str, skip: tuple, kind: str):
    """A lists file with a run column: the ``ListSet`` of each case's first row, with
    ``runs`` = (run label, ``ListSet`` of that run's rows) for every label in first-seen order.
    A blank run cell and a (case, run) given twice are refused naming the rows; a case missing
    from some runs is kept (unequal K, named by ``runs_block``). The reference lists, cases
    without a reference and empty lists are each run's own; ``no_reference`` and
    ``empty_cells`` of the set are their union over runs."""
    # lazy: the list metrics' rooms, only for a lists file with a run column
    from core.inputs.lists import ListSet, from_cells

    file = table.file
    ids, rs = table.column(id_col), table.column(run_col)
    blank = [r for r, x in zip(table.rows, rs) if x.strip() == ""]
    if blank:
        raise InputError("clusters.err_blank_run", file=file, row=blank[0], column=run_col,
                         count=len(blank), rows=_shown(blank))
    count = Counter(zip(ids, rs))
    dup = [r for r, key in zip(table.rows, zip(ids, rs)) if count[key] > 1]
    if dup:
        raise InputError("clusters.err_duplicate_list_run", file=file, row=dup[0],
                         column=run_col, count=len(dup), rows=_shown(dup))
    first: dict = {}
    by_run: dict = {}
    for i, (cid, r) in enumerate(zip(ids, rs)):
        first.setdefault(cid, i)
        by_run.setdefault(r, []).append(i)
    base = from_cells(_rows_of(table, sorted(first.values())), kind=kind, skip=skip)
    runs = tuple((r, from_cells(_rows_of(table, rows), kind=base.kind, skip=skip))
                 for r, rows in by_run.items())
    no_ref = set().union(*(set(s.no_reference) for _, s in runs))
    empty = {m: tuple(c for c in base.cases if any(c in s.empty_cells.get(m, ())
                                                   for _, s in runs))
             for m in base.methods}
    return ListSet(base.cases, base.gold, base.retrieved, stored_form(base, "text"),
                   base.source, base.kind, base.gold_column,
                   tuple(c for c in base.cases if c in no_ref), base.duplicates,
                   {m: v for m, v in empty.items() if v}, base.encoding, base.sheet,
                   stored_form(base, "groups"), base.group_column, runs, run_col)


# ----------------------------------------------------------------------------- comparing
def clusters_of(ids, labels: dict, file: str) -> list[str]:
    """The cluster of each paired case; a case the labels do not name is an ``InputError``."""
    missing = [cid for cid in ids if cid not in labels]
    if missing:
        raise InputError("clusters.err_missing", file=file, count=len(missing),
                         examples=_shown(missing))
    out = [labels[cid] for cid in ids]
    if len(set(out)) < 2:
        raise InputError("clusters.err_one_cluster", file=file, count=len(ids))
    return out


def compare_in_clusters(result, labels: dict, file: str, *, resamples: int = 20_000,
                        confidence: float = 0.95, seed: int = 0) -> ClusterComparison:
    """B − A of a ``core.inputs.systems.GoldenComparison`` with its cases in clusters
    (``core.paired.clusters.compare_clustered`` on the paired cases) with the clustered
    self-check (``core.paired.cluster_check.with_self_check``, same seed)."""
    cl = clusters_of(result.case_ids, labels, file)
    cc = compare_clustered(result.a_values, result.b_values, cl, confidence=confidence,
                           resamples=resamples, seed=seed)
    d = np.asarray(result.b_values, float) - np.asarray(result.a_values, float)
    return with_self_check(cc, d, cl, seed=seed)


def runs_block(runs: RunTable, result) -> dict:
    """The ``runs`` JSON block of a comparison: each method's variance split
    (``core.paired.clusters.RunSummary``), the run-to-run share of the variance of B − A's
    case values, and the cases whose B − A changes sign across runs (runs paired by label)."""
    c = result.comparison
    ids = list(result.case_ids)
    a, la = runs.matrix(c.a, ids)
    b, lb = runs.matrix(c.b, ids)
    sa, sb = run_summary(a), run_summary(b)
    common = [r for r in la if r in lb]
    d = (np.column_stack([b[:, lb.index(r)] - a[:, la.index(r)] for r in common])
         if common else np.full((len(ids), 1), np.nan))
    flips = sign_flipping_cases(d)
    var_case_d = float(np.var(sb.case_means - sa.case_means, ddof=1))
    noise = sa.var_within * float(np.mean(1 / sa.runs)) + sb.var_within * float(
        np.mean(1 / sb.runs))
    share = 0.0 if var_case_d <= 0 else min(1.0, noise / var_case_d)
    k_max = max(int(sa.runs.max()), int(sb.runs.max()))
    unequal = [cid for cid, ka, kb in zip(ids, sa.runs, sb.runs) if ka != k_max or kb != k_max]
    return {"column": runs.column, "k": (sa.k + sb.k) / 2,
            "k_min": int(min(sa.runs.min(), sb.runs.min())), "k_max": k_max,
            "equal_k": not unequal,
            "unequal_cases": unequal[:MAX_SHOWN], "n_unequal": len(unequal),
            "within_share": share, "sign_flips": flips, "n_cases": len(ids),
            "methods": {c.a: sa.to_dict(), c.b: sb.to_dict()}}


# ----------------------------------------------------------------------------- the hint
_ID_TAIL = re.compile(r"^(.*?[^\W\d_]\d*)(?:[\s_\-.:#/]+(?:q|question|query|질문|질의)?|"
                      r"(?:q|question|query|질문|질의))[\s_\-]?\d+$", re.IGNORECASE)


def cluster_hint(ids) -> dict | None:
    """When most case ids look like ``<source><sep><n>`` and the sources repeat
    (``doc12_q1``, ``doc12_q2``): ``{"sources": k, "cases": n, "example": first source}``;
    else None. Only a suggestion (the page and CLI say it in one line, never act on it)."""
    ids = [str(x) for x in ids]
    prefixes = []
    for cid in ids:
        m = _ID_TAIL.match(cid)
        prefixes.append(m.group(1) if m else None)
    found = [p for p in prefixes if p]
    if len(ids) < 4 or len(found) * 2 < len(ids):
        return None
    counts = Counter(found)
    if len(counts) < 2 or max(counts.values()) < 2 or len(counts) * 2 > len(found) + 1:
        return None
    return {"sources": len(counts), "cases": len(ids), "example": found[0]}

