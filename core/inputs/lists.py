"""Retrieval-list CSV: per-case ranking and (non-LLM) context metrics for each method.

Layout (CSV/TSV/XLSX via ``core.inputs.tables.read_table``)::

    case_id, query, gold_ids, <method 1>, <method 2>, ...

``gold_ids`` and every method cell hold ids separated by ``|`` or a JSON list
(``["d3", "d7"]``); method lists are in rank order. When the cells hold passages instead of
ids (JSON lists of text), the text variant matches passages by normalized Levenshtein
similarity (``rapidfuzz``). Other text columns (notes, answer, ...) are kept for display.

Per case, with ``top`` = the first k retrieved items and ``ref`` = the reference items:

- ``hit@k``, ``p@k``, ``recall@k``, ``mrr@k``, ``ndcg@k``: ``core.inputs.metrics`` (binary gains;
  equal to ir_measures/trec_eval), a reference item relevant with grade 1.
- ``context_precision@k`` (Ragas ``IDBasedContextPrecision``):
  |set(top) ∩ ref| / |set(top)|; undefined (NaN) when nothing was retrieved.
- ``context_recall@k`` (Ragas ``IDBasedContextRecall``): |ref ∩ set(top)| / |ref|.
- ``context_precision_ranked@k`` (Ragas ``NonLLMContextPrecisionWithReference``, average-
  precision style): sum_i (precision@i * v_i) / sum_i v_i, v_i = 1 when retrieved item i is
  relevant, 0 when no item is relevant.

Sources: Ragas documentation, "Context Precision" and "Context Recall"
(docs.ragas.io/en/stable/concepts/metrics/available_metrics/context_precision/ and
.../context_recall/), sections "Non LLM Based Context Precision/Recall" and "ID Based".

Text variant (Ragas' non-LLM versions, with ``NonLLMStringSimilarity`` =
1 - rapidfuzz ``Levenshtein.normalized_distance`` = 1 - edit distance / max length):
retrieved passage i is relevant when max_j sim(i, ref_j) >= 0.5 (precision metrics);
reference j is recalled when max_i sim(i, ref_j) > 0.5 (``context_recall``). The ranking
metrics treat passage i as reference argmax_j sim(i, ref_j) when it is relevant.
Ragas divides by sum(v) + 1e-10; here the division is exact (difference < 1e-9).

k applies to every metric: set k at least as long as the lists to score whole lists as Ragas
does. Cases without any reference have no defined value (NaN) and are reported; an empty
method cell means "retrieved nothing" and is counted in ``empty_cells``.
"""
from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from core import checks
from core.errors import InputError
from core.inputs.golden import CASE_ID_NAMES, GoldenSet, TEXT_HINTS, check_method_names
from core.inputs.golden_cases import (CaseScores, CaseText, PandasField, RunTable,
                                      group_series, mean_of_defined, stored_form)
from core.inputs.groups import group_column, group_labels, is_group_column
from core.inputs.metrics import Measure, UnknownMeasure, parse_measure, query_score
from core.inputs.tables import CellTable, RawTable, find_column, norm_header, read_cells
from core.inputs.text import visible_controls

GOLD_NAMES = ("gold_ids", "gold", "gold_id", "golds", "reference_ids", "reference_id",
              "reference_contexts", "reference_context_ids", "references", "relevant",
              "relevant_ids", "relevant_docs", "qrels", "labels", "answers_ids", "정답",
              "정답id", "정답_id", "정답ids", "정답_ids", "정답문서", "참조", "참조문서")
QUERY_NAMES = ("query", "question", "user_input", "질문", "질의", "쿼리")
RANK_METRICS = ("hit", "p", "recall", "mrr", "ndcg")
CONTEXT_METRICS = ("context_precision", "context_recall", "context_precision_ranked")
LIST_METRICS = RANK_METRICS + CONTEXT_METRICS
PRECISION_THRESHOLD = 0.5  # sim >= 0.5: relevant retrieved passage (Ragas precision)
RECALL_THRESHOLD = 0.5     # sim > 0.5: recalled reference (Ragas recall)
KINDS = ("auto", "ids", "text")
MAX_K = 10_000


def split_cell(cell: str) -> list[str]:
    """One list cell -> items in order: a JSON list (``["a", "b"]``) or ``a|b|c``.

    Blank items are dropped; an empty cell is an empty list. ``ValueError`` on a malformed
    JSON list or one holding something other than strings/numbers.
    """
    s = cell.strip()
    if not s:
        return []
    if s.startswith("["):
        try:
            items = json.loads(s)
        except json.JSONDecodeError as exc:
            raise ValueError(f"not a JSON list ({exc.msg} at character {exc.pos})") from None
        if not isinstance(items, list) or not all(
                isinstance(x, (str, int, float)) and not isinstance(x, bool) for x in items):
            raise ValueError("a JSON list of strings or numbers was expected")
        out = [visible_controls(str(x)).strip() for x in items]  # as cells are (nfc)
    else:
        out = [x.strip() for x in s.split("|")]
    return [x for x in out if x]


def parse_metric(text: str, k: int | None = None) -> tuple[str, int]:
    """``'ndcg@10'`` or (``'ndcg'``, k) -> (name, k), through the metric registry
    (``core.inputs.metrics.parse_measure``); ``InputError`` naming the valid ones."""
    default_k = check_k(10 if k is None else k)
    try:
        m = parse_measure(str(text), allowed=LIST_METRICS, default_k=default_k)
    except UnknownMeasure:
        raise InputError("systems.err_list_metric", metric=str(text)[:40],
                         metrics=", ".join(LIST_METRICS)) from None
    return m.name, check_k(m.k)


def check_k(k) -> int:
    return checks.whole("k", k, lo=1, hi=MAX_K)


@dataclass(frozen=True)
class ListSet:
    """Reference and retrieved lists by case, in file order.

    ``retrieved[method][i]`` is the ranked list of case ``cases[i]``; ``kind`` is ``"ids"``
    or ``"text"``. ``no_reference``: cases whose reference cell is empty (no metric defined);
    ``duplicates``: case ids on more than one row (left out); ``empty_cells[method]``: cases
    where the method retrieved nothing. ``text`` (the other columns) and ``groups`` (the
    group label by case) are given as pandas objects or, as the reader does, as
    ``CaseText`` / a dict; read, they are pandas (built on first access: the CLI never
    imports pandas for a list file, issue 38).
    """

    cases: tuple[str, ...]
    gold: tuple[tuple[str, ...], ...]
    retrieved: dict
    text: pd.DataFrame = PandasField(CaseText, CaseText.frame)
    source: str = "upload"
    kind: str = "ids"
    gold_column: str = "gold_ids"
    no_reference: tuple[str, ...] = ()
    duplicates: tuple[str, ...] = ()
    empty_cells: dict = field(default_factory=dict)
    encoding: str = ""
    sheet: str | None = None   # the worksheet read (xlsx)
    groups: pd.Series | None = PandasField(dict, group_series, default=None)  # label by case
    group_column: str | None = None
    # repeated runs (issue 32, ``core.inputs.clusters.load_lists_clustered``): (run label,
    # ``ListSet`` of that run's rows) in first-seen order; the set itself holds each case's
    # first row (what the side-by-side view shows) and ``score_lists`` averages the runs
    runs: tuple = ()
    run_column: str | None = None

    @property
    def methods(self) -> list[str]:
        return list(self.retrieved)

    def index_of(self, case_id: str) -> int:
        try:
            return self.cases.index(case_id)
        except ValueError:
            raise InputError("systems.err_unknown_case", case=case_id) from None


def _detect_kind(gold_lists) -> str:
    items = [x for g in gold_lists for x in g][:2000]
    if not items:
        return "ids"
    spaced = sum(1 for x in items if re.search(r"\s", x))
    return "text" if spaced * 2 > len(items) and np.mean([len(x) for x in items]) >= 20 \
        else "ids"


def from_cells(table: CellTable, *, kind: str = "auto", skip: tuple = ()) -> ListSet:
    """A parsed table (``core.inputs.tables.read_cells``, no pandas) -> ``ListSet``, the
    columns named in ``skip`` left out (a cluster column); ``InputError`` with row and
    column on a bad cell."""
    checks.choice("kind", kind, KINDS)
    names, file = tuple(c for c in table.names if c not in skip), table.file
    id_col = find_column(names, CASE_ID_NAMES)
    if id_col is None:
        raise InputError("no_case_id", file=file, columns=", ".join(names[:10]))
    gold_col = find_column(names, GOLD_NAMES)
    if gold_col is None:
        raise InputError("systems.err_no_gold", file=file, columns=", ".join(names[:10]))
    ids = table.column(id_col)
    blank_ids = [int(r) for r, c in zip(table.rows, ids) if c == ""]
    if blank_ids:
        raise InputError("blank_case_id", file=file, row=blank_ids[0], column=id_col,
                         count=len(blank_ids))
    hints = {norm_header(h) for h in TEXT_HINTS + QUERY_NAMES + ("response", "reference",
                                                          "answer", "ground_truth")}
    methods = [c for c in names if c not in (id_col, gold_col)
               and norm_header(c) not in hints and not is_group_column(c)]
    text_cols = [c for c in names if c not in (id_col, gold_col) and c not in methods
                 and not is_group_column(c)]
    if not methods:
        raise InputError("systems.err_no_method_lists", file=file,
                         columns=", ".join(names[:10]))
    check_method_names(methods, file)

    def parse_col(col):
        out = []
        for row, cell in zip(table.rows, table.column(col)):
            try:
                out.append(tuple(split_cell(cell)))
            except ValueError as exc:
                raise InputError("systems.err_bad_list", file=file, row=int(row), column=col,
                                 detail=str(exc), value=cell[:40]) from None
        return out

    seen = Counter(ids)
    keep = [seen[c] == 1 for c in ids]   # a case id on more than one row is left out
    duplicates = tuple(sorted(c for c, n in seen.items() if n > 1))
    cases = tuple(c for c, k_ in zip(ids, keep) if k_)
    gold_all = parse_col(gold_col)
    gold = tuple(g for g, k_ in zip(gold_all, keep) if k_)
    retrieved, empty = {}, {}
    for m in methods:
        lists = [x for x, k_ in zip(parse_col(m), keep) if k_]
        retrieved[m] = tuple(lists)
        e = tuple(c for c, x in zip(cases, lists) if not x)
        if e:
            empty[m] = e
    if len(cases) < 2:
        raise InputError("too_few_cases", file=file, count=len(cases))
    if kind == "auto":
        kind = _detect_kind(gold)
    no_ref = tuple(c for c, g in zip(cases, gold) if not g)
    text = CaseText(cases, {c: [x for x, k_ in zip(table.column(c), keep) if k_]
                            for c in text_cols})
    groups, group_col = None, group_column(names)
    if group_col is not None:
        rows = [r for r, k_ in zip(table.rows, keep) if k_]
        cells = [x for x, k_ in zip(table.column(group_col), keep) if k_]
        groups = group_labels(list(cases), cells, rows, file, group_col)
    return ListSet(cases, gold, retrieved, text, file, kind, gold_col, no_ref, duplicates,
                   empty, table.encoding, table.sheet, groups, group_col)


def from_table(raw: RawTable, *, kind: str = "auto") -> ListSet:
    """``from_cells`` of a pandas ``RawTable`` (``core.inputs.tables.read_table``'s form:
    index = spreadsheet row)."""
    f = raw.frame
    table = CellTable(tuple(f.columns), tuple(f[c].tolist() for c in f.columns),
                      tuple(int(r) for r in f.index), raw.file, raw.encoding, raw.delimiter,
                      raw.sheet, raw.other_sheets, raw.normalized)
    return from_cells(table, kind=kind)


def load_lists(data: bytes, file: str = "upload", *, kind: str = "auto") -> ListSet:
    """Bytes of a CSV/TSV/XLSX retrieval-list file -> ``ListSet`` (no pandas on the way)."""
    return from_cells(read_cells(data, file), kind=kind)


# ----------------------------------------------------------------------------- metrics
def similarity_matrix(retrieved, reference) -> np.ndarray:
    """sim[i, j] = 1 - Levenshtein.normalized_distance(retrieved_i, reference_j) (rapidfuzz),
    i.e. 1 - edit distance / max(len_i, len_j); Ragas' ``NonLLMStringSimilarity``."""
    if not len(retrieved) or not len(reference):
        return np.zeros((len(retrieved), len(reference)))
    # lazy: rapidfuzz only for passages (kind "text"); id lists and TREC runs never load it
    from rapidfuzz import process
    from rapidfuzz.distance import Levenshtein

    return process.cdist(list(retrieved), list(reference),
                         scorer=Levenshtein.normalized_similarity, dtype=np.float64)


def _ranked_precision(v: np.ndarray) -> float:
    """sum_i precision@i * v_i / sum_i v_i (0 when nothing is relevant)."""
    total = v.sum()
    if total == 0:
        return 0.0
    prec = np.cumsum(v) / np.arange(1, v.size + 1)
    return float(np.sum(prec * v) / total)


def case_values(retrieved, reference, k: int, kind: str = "ids", *,
                only: str | None = None) -> dict[str, float]:
    """Every list metric for one case at cutoff ``k`` (see the module docstring); with
    ``only`` (a name of ``RANK_METRICS``, ids), that metric alone, computed as among all."""
    k = check_k(k)
    top = list(retrieved[:k])
    ref = list(dict.fromkeys(reference))
    out: dict[str, float] = {}
    if not ref:
        return {m: float("nan") for m in LIST_METRICS}
    if only in RANK_METRICS and kind == "ids":
        return {only: query_score(Measure(only, k), top, {x: 1 for x in ref})}
    if kind == "text":
        sim = similarity_matrix(top, ref)
        best_ref = sim.max(axis=1) if top else np.zeros(0)
        v = (best_ref >= PRECISION_THRESHOLD).astype(float)
        recalled = (sim.max(axis=0) > RECALL_THRESHOLD) if top else np.zeros(len(ref), bool)
        labels = [f"\x00ref{int(sim[i].argmax())}" if v[i] else f"\x00miss{i}"
                  for i in range(len(top))]
        judged = {f"\x00ref{j}": 1 for j in range(len(ref))}
        out["context_precision"] = float(v.mean()) if top else float("nan")
        out["context_recall"] = float(recalled.mean())
        out["context_precision_ranked"] = _ranked_precision(v)
        ranked = labels
    else:
        refset = set(ref)
        v = np.array([x in refset for x in top], dtype=float)
        topset = set(top)
        out["context_precision"] = (len(topset & refset) / len(topset)) if top else float("nan")
        out["context_recall"] = len(refset & topset) / len(refset)
        out["context_precision_ranked"] = _ranked_precision(v)
        judged = {x: 1 for x in ref}
        ranked = top
    for name in RANK_METRICS:
        out[name] = query_score(Measure(name, k), ranked, judged)
    return {m: out[m] for m in LIST_METRICS}


def metric_key(name: str, k: int) -> str:
    """The column key of a list metric at k: ``str(Measure(name, k))``, e.g. 'ndcg@10'."""
    return str(Measure(name, k))


@dataclass(frozen=True)
class ListScores:
    """Per-case values: ``arrays[metric_key]`` a ``CaseScores`` (cases x methods, NaN where
    undefined; no pandas), ``values[metric_key]`` the same as a pandas frame (index
    ``case_id``), built on first access."""

    lists: ListSet = field(repr=False)
    k: int
    arrays: dict = field(repr=False)
    # a lists file with repeated runs: {metric key: ``core.inputs.clusters.RunTable``} (each
    # case's value in ``arrays`` is then its mean over its runs); None otherwise
    runs: dict | None = field(default=None, repr=False)

    @cached_property
    def values(self) -> dict:
        """{metric key: a pandas frame, cases x methods}."""
        import pandas as pd

        idx = pd.Index(self.lists.cases, name="case_id")
        return {m: pd.DataFrame({meth: cs.values[:, j] for j, meth in enumerate(cs.methods)},
                                index=idx) for m, cs in self.arrays.items()}

    def means(self):
        """Mean over cases with a defined value (a pandas frame): one row per method, one
        column per metric."""
        import pandas as pd

        return pd.DataFrame({m: v.mean() for m, v in self.values.items()})

    def undefined(self) -> dict:
        """{metric: {method: count of NaN cases}} where any."""
        out = {}
        for m, cs in self.arrays.items():
            counts = np.isnan(cs.values).sum(axis=0)
            c = {meth: int(n) for meth, n in zip(cs.methods, counts) if n}
            if c:
                out[m] = c
        return out

    def golden(self, metric: str) -> GoldenSet:
        """The metric's per-case values as a ``GoldenSet`` for ``core.inputs.systems.compare_golden``
        (Wilson intervals for hit@k, bootstrap for continuous metrics)."""
        if metric not in self.arrays:
            raise InputError("systems.err_list_metric", metric=metric,
                             metrics=", ".join(self.arrays))
        ls = self.lists
        return GoldenSet(self.arrays[metric], stored_form(ls, "text"),
                         f"{ls.source} [{metric}]", "lists", ls.duplicates, {}, ls.encoding,
                         sheet=ls.sheet, groups=stored_form(ls, "groups"),
                         group_column=ls.group_column)

    def to_dict(self) -> dict:
        """{metric: {method: mean over the cases with a defined value}} (``means``)."""
        return {m: {meth: mean_of_defined(cs.values[:, j]) for j, meth in enumerate(cs.methods)}
                for m, cs in self.arrays.items()}


def score_lists(ls: ListSet, k: int = 10) -> ListScores:
    """Every list metric at cutoff ``k`` for every case and method. A set with repeated runs
    (``ls.runs``): each run scored on its own, a case's value the mean over the runs where it
    is defined (Miller 2024, "Adding error bars to evals", arXiv:2411.00640: the case mean
    over K runs, cases stay the unit; ``core.paired.designs``), NaN where no run defines it;
    ``runs`` keeps every run's value for the variance split (``core.inputs.runs_block``)."""
    k = check_k(k)
    if ls.runs:
        return _score_runs(ls, k)
    per = {m: {meth: np.empty(len(ls.cases)) for meth in ls.methods} for m in LIST_METRICS}
    for meth in ls.methods:
        for i, (got, ref) in enumerate(zip(ls.retrieved[meth], ls.gold)):
            vals = case_values(got, ref, k, ls.kind)
            for m in LIST_METRICS:
                per[m][meth][i] = vals[m]
    methods = tuple(ls.methods)
    arrays = {metric_key(m, k): CaseScores(ls.cases, methods, np.asfortranarray(
        np.column_stack([per[m][x] for x in methods]))) for m in LIST_METRICS}
    return ListScores(ls, k, arrays)


def _score_runs(ls: ListSet, k: int) -> ListScores:
    """``score_lists`` of a set with repeated runs (the mean over runs, and the runs)."""
    methods = tuple(ls.methods)
    keys = [metric_key(m, k) for m in LIST_METRICS]
    per = {key: {meth: {} for meth in methods} for key in keys}
    for label, sub in ls.runs:
        sc = score_lists(sub, k)
        for key in keys:
            cs = sc.arrays[key]
            for j, meth in enumerate(methods):
                col, out = cs.values[:, j], per[key][meth]
                for i, cid in enumerate(cs.ids):
                    if not np.isnan(col[i]):
                        out.setdefault(cid, {})[label] = float(col[i])
    arrays, runs = {}, {}
    for key in keys:
        vals = np.full((len(ls.cases), len(methods)), np.nan)
        for j, meth in enumerate(methods):
            by_case = per[key][meth]
            for i, cid in enumerate(ls.cases):
                if by_case.get(cid):
                    vals[i, j] = float(np.mean(list(by_case[cid].values())))
        arrays[key] = CaseScores(ls.cases, methods, np.asfortranarray(vals))
        runs[key] = RunTable(ls.run_column, per[key])
    return ListScores(ls, k, arrays, runs)


def lists_side_by_side(ls: ListSet, case_id: str, a: str, b: str, k: int = 10):
    """Top-k of methods ``a`` and ``b`` for one case (a pandas DataFrame), with ✓ on items
    that match a reference (ids: equal; text: similarity >= 0.5)."""
    for name in (a, b):
        if name not in ls.retrieved:
            raise InputError("unknown_method", method=name, methods=", ".join(ls.methods))
    i = ls.index_of(case_id)
    ref = list(ls.gold[i])

    def marks(items):
        if ls.kind == "text":
            sim = similarity_matrix(items, ref)
            return ["✓" if len(ref) and sim[j].max() >= PRECISION_THRESHOLD else ""
                    for j in range(len(items))]
        refset = set(ref)
        return ["✓" if x in refset else "" for x in items]

    la, lb = list(ls.retrieved[a][i][:k]), list(ls.retrieved[b][i][:k])
    ma, mb = marks(la), marks(lb)
    n = max(len(la), len(lb))
    pad = lambda x: x + [""] * (n - len(x))  # noqa: E731
    import pandas as pd

    return pd.DataFrame({"rank": range(1, n + 1), a: pad(la), f"{a} rel": pad(ma),
                         b: pad(lb), f"{b} rel": pad(mb)})
