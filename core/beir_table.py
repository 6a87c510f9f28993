"""BEIR Table 2, counted: who beats the baseline on how many datasets, and by how much.

Source grid: Thakur, Reimers, Rücklé, Srivastava, Gurevych, "BEIR: A Heterogeneous Benchmark
for Zero-shot Evaluation of Information Retrieval Models", NeurIPS 2021 Datasets and
Benchmarks, arXiv:2104.08663v4, Table 2 (nDCG@10), stored in ``data/beir_table2.csv`` with the
citation in ``# key: value`` header lines that :func:`load_grid` reads.

Counting rules (one dataset = one duel between a model and the baseline):

* Values are compared at the table's precision, 3 decimals: x is turned into whole
  thousandths with round-half-up on its decimal text (``0.6745`` -> 675). Equal thousandths
  are a **tie**, otherwise the larger value **wins**.
* Mean relative difference = (1/n) * sum_d (model_d - baseline_d) / baseline_d, times 100,
  over the n datasets both columns have (datasets where the baseline is 0 are left out of
  this mean; ``None`` when none remain).
* Sign test (Dixon & Mood 1946): under "no systematic difference" each decided duel is a coin
  flip, so model wins ~ Binomial(w + l, 1/2) with w + l = wins + losses (ties dropped);
  p = two-sided exact binomial p-value, ``scipy.stats.binomtest(model_wins, w + l, 0.5)``.
  It is the same computation as McNemar's exact test, so it is delegated to
  ``core.stats.mcnemar_exact``. ``None`` when every duel is a tie. The cells are per-dataset
  means: the test counts datasets and says nothing about per-query noise inside a cell.
* "First" on a dataset = no other column is higher (at 3 decimals); columns tied for the top
  are all first, so first-place counts can add up to more than the number of datasets.
"""
from __future__ import annotations

import io
import math
import re
import unicodedata
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from pathlib import Path

import altair as alt
import numpy as np
import pandas as pd

from core import checks
from core.errors import InputError
from core.i18n import catalog, t
from core.stats import mcnemar_exact
from core.tables import read_table
from core.views.format import fmt_p

DATA = Path(__file__).resolve().parent.parent / "data" / "beir_table2.csv"
DEFAULT_BASELINE = "BM25"
DENSE = "dense"
KINDS = ("lexical", "dense", "late-interaction", "sparse", "yours")
ALPHA = 0.05  # sign-test level used to call a standing "clear" in the story
STANDINGS = ("behind_clear", "behind", "even", "ahead", "ahead_clear")
SCIFACT = "SciFact"
MAX_LISTED = 10

DATASET_NAMES = ("dataset", "datasets", "data", "name", "corpus", "task", "beir_dataset",
                 "데이터셋", "데이터", "데이터 세트", "데이터세트", "이름")
VALUE_NAMES = ("ndcg@10", "ndcg_cut_10", "ndcg_cut.10", "ndcg10", "ndcg", "ndcg@10_mean",
               "score", "value", "mean", "점수", "값")
# Extra spellings (normalised: lower case, accents and non-alphanumerics removed) that BEIR's
# own dataset ids and common short forms use; every canonical name also matches itself.
ALIASES = {
    "fiqa": "FiQA-2018", "fiqa2018": "FiQA-2018",
    "signal": "Signal-1M", "signal1m": "Signal-1M", "signal1mrt": "Signal-1M",
    "trecnews": "TREC-NEWS", "news": "TREC-NEWS",
    "touche": "Touche-2020", "touche2020": "Touche-2020", "webistouche2020": "Touche-2020",
    "webistouche2020v2": "Touche-2020",
    "cqadupstack": "CQADupStack", "cqa": "CQADupStack",
    "dbpedia": "DBPedia", "dbpediaentity": "DBPedia",
    "climatefever": "Climate-FEVER", "covid": "TREC-COVID", "treccovid": "TREC-COVID",
    "naturalquestions": "NQ", "hotpot": "HotpotQA", "robust": "Robust04",
}


# ----------------------------------------------------------------------------- helpers
def norm_name(name: str) -> str:
    """Lenient key for a dataset, model or header name: accents dropped (NFKD, combining marks
    removed, then NFC so Hangul stays whole), lower case, letters and digits only
    ("Touché-2020" -> "touche2020", "nDCG@10" -> "ndcg10", "데이터셋" -> "데이터셋")."""
    s = unicodedata.normalize("NFKD", str(name))
    s = unicodedata.normalize("NFC", "".join(c for c in s if not unicodedata.combining(c)))
    return re.sub(r"[\W_]+", "", s.lower())


def to_milli(x: float | str) -> int:
    """A value in whole thousandths, round-half-up on its shortest decimal text
    (0.6745 -> 675, 0.6744 -> 674): the table's 3-decimal precision, used for wins and ties."""
    text = x.strip() if isinstance(x, str) else repr(float(x))
    try:
        d = Decimal(text)
    except InvalidOperation:
        raise ValueError(f"x must be a number, got {x!r}") from None
    if not d.is_finite():
        raise ValueError(f"x must be finite, got {x!r}")
    return int((d * 1000).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def sign_test_p(model_wins: int, baseline_wins: int) -> float | None:
    """Two-sided exact sign test on wins vs losses (ties already dropped).

    p = ``scipy.stats.binomtest(model_wins, model_wins + baseline_wins, 0.5).pvalue``
    (Dixon & Mood 1946); ``None`` when there is no decided duel.
    """
    model_wins, baseline_wins = checks.counts_iv(model_wins=model_wins,
                                                 baseline_wins=baseline_wins)
    if model_wins + baseline_wins == 0:
        return None
    return mcnemar_exact(model_wins, baseline_wins)


# ----------------------------------------------------------------------------- the grid
@dataclass(frozen=True)
class Grid:
    """Datasets x models of nDCG@10 (NaN where a column has no value), with its source.

    ``frame``: index = dataset names in the paper's order, columns = models in the paper's
    order. ``kinds`` maps each model to lexical / dense / late-interaction / sparse / yours.
    """

    frame: pd.DataFrame
    kinds: dict
    meta: dict = field(default_factory=dict)

    @property
    def models(self) -> list[str]:
        return list(self.frame.columns)

    @property
    def datasets(self) -> list[str]:
        return list(self.frame.index)

    @property
    def citation(self) -> str:
        return self.meta.get("citation", "")

    @property
    def url(self) -> str:
        return self.meta.get("url", "")

    @property
    def metric(self) -> str:
        return self.meta.get("metric", "nDCG@10")

    def model(self, name: str) -> str:
        """The column called ``name`` (case and punctuation ignored); ValueError listing the
        columns otherwise."""
        if not isinstance(name, str):
            raise ValueError(f"baseline must be a column name, got {name!r}")
        for m in self.models:
            if norm_name(m) == norm_name(name):
                return m
        raise ValueError(f"baseline must be one of {', '.join(self.models)}; got {name!r}")

    def dataset(self, name: str) -> str | None:
        """The canonical dataset for a user's spelling ("scifact", "fiqa", "webis-touche2020"),
        or None."""
        key = norm_name(name)
        for d in self.datasets:
            if norm_name(d) == key:
                return d
        alias = ALIASES.get(key)
        return alias if alias in self.frame.index else None

    def with_column(self, name: str, values: dict, kind: str = "yours") -> "Grid":
        """A new grid with one more column (datasets not in ``values`` stay NaN)."""
        if not isinstance(name, str) or not name.strip():
            raise ValueError("name must be a non-empty string")
        if any(norm_name(name) == norm_name(m) for m in self.models):
            raise ValueError(f"name {name!r} is already a column; pick another")
        unknown = [d for d in values if d not in self.frame.index]
        if unknown:
            raise ValueError(f"values has datasets not in the grid: {unknown}")
        frame = self.frame.copy()
        frame[name] = pd.Series(values, dtype=float).reindex(frame.index)
        return Grid(frame, {**self.kinds, name: kind}, dict(self.meta))

    def subset(self, datasets) -> "Grid":
        """The same grid on some datasets (paper order kept)."""
        keep = [d for d in self.datasets if d in set(datasets)]
        return Grid(self.frame.loc[keep].copy(), dict(self.kinds), dict(self.meta))

    def long(self, baseline: str | None = None) -> pd.DataFrame:
        """One row per (dataset, model): ``dataset, model, kind, value`` and, with a
        baseline, ``diff`` = value - baseline value on that dataset."""
        out = self.frame.reset_index(names="dataset").melt(
            id_vars="dataset", var_name="model", value_name="value").dropna(subset=["value"])
        out["kind"] = out["model"].map(self.kinds)
        if baseline is not None:
            base = self.frame[self.model(baseline)]
            out["diff"] = out["value"] - out["dataset"].map(base)
        return out.reset_index(drop=True)


def _parse_header(lines: list[str], file: str) -> tuple[dict, int]:
    meta, n = {}, 0
    for line in lines:
        if not line.startswith("#"):
            break
        n += 1
        key, sep, value = line[1:].partition(":")
        if sep:
            meta[key.strip().lower()] = value.strip()
    return meta, n


def parse_grid(text: str, file: str = "beir_table2.csv") -> Grid:
    """Read the grid file: ``# key: value`` lines (citation, url, metric, kinds), then a CSV
    with ``dataset`` and one column per model. Every model needs a kind and every cell a
    number in [0, 1]; anything else raises ``InputError`` naming the row and column."""
    lines = text.splitlines()
    meta, skip = _parse_header(lines, file)
    body = "\n".join(lines[skip:])
    if not body.strip():
        raise InputError("header_only", file=file)
    raw = pd.read_csv(io.StringIO(body), dtype=str, keep_default_na=False)
    raw.columns = [c.strip() for c in raw.columns]
    if raw.columns[0].lower() != "dataset":
        raise InputError("beir_table.err_grid_first_column", file=file, column=raw.columns[0])
    kinds = {}
    for part in meta.get("kinds", "").split(";"):
        model, sep, kind = part.partition("=")
        if sep:
            kinds[model.strip()] = kind.strip()
    models = list(raw.columns[1:])
    for m in models:
        if kinds.get(m) not in KINDS:
            raise InputError("beir_table.err_grid_kind", file=file, column=m,
                             kinds=", ".join(KINDS))
    frame = pd.DataFrame(index=pd.Index(raw.iloc[:, 0].str.strip(), name="dataset"),
                         columns=models, dtype=float)
    for i, row in enumerate(raw.itertuples(index=False)):
        line = skip + 2 + i  # 1-based line in the file; the CSV header is line skip + 1
        for m, cell in zip(models, row[1:]):
            value = _parse_value(cell, file=file, row=line, column=m)
            if value is None:
                raise InputError("beir_table.err_grid_blank", file=file, row=line, column=m)
            frame.iat[i, models.index(m)] = value
    if frame.index.duplicated().any():
        raise InputError("beir_table.err_duplicate_dataset", file=file, column="dataset",
                         name=frame.index[frame.index.duplicated()][0], rows="")
    return Grid(frame, {m: kinds[m] for m in models}, meta)


def load_grid(path: Path | str = DATA) -> Grid:
    """The stored BEIR Table 2 grid with its citation (see :func:`parse_grid`)."""
    p = Path(path)
    return parse_grid(p.read_text(encoding="utf-8"), file=p.name)


# ----------------------------------------------------------------------------- the tally
@dataclass(frozen=True)
class TallyRow:
    """One model against the baseline on the datasets both have."""

    model: str
    kind: str
    baseline_wins: int
    model_wins: int
    ties: int
    mean_relative_diff_pct: float | None
    sign_test_p: float | None

    @property
    def n_datasets(self) -> int:
        return self.baseline_wins + self.model_wins + self.ties

    def standing(self, alpha: float = ALPHA) -> str:
        """behind_clear / behind / even / ahead / ahead_clear: who wins more duels, and
        "clear" when the sign test p is below ``alpha``."""
        alpha = checks.share("alpha", alpha)
        if self.model_wins == self.baseline_wins:
            return "even"
        clear = self.sign_test_p is not None and self.sign_test_p < alpha
        if self.model_wins > self.baseline_wins:
            return "ahead_clear" if clear else "ahead"
        return "behind_clear" if clear else "behind"

    def to_dict(self) -> dict:
        return {"model": self.model, "kind": self.kind, "baseline_wins": self.baseline_wins,
                "model_wins": self.model_wins, "ties": self.ties,
                "mean_relative_diff_pct": self.mean_relative_diff_pct,
                "sign_test_p": self.sign_test_p, "n_datasets": self.n_datasets}


@dataclass(frozen=True)
class TableTally:
    """Every column against one baseline, plus the "who is first" counts."""

    baseline: str
    rows: tuple
    datasets: tuple
    dense_models: tuple
    baseline_ge_all_dense: tuple
    baseline_first: tuple
    first_place_counts: dict

    @property
    def n_datasets(self) -> int:
        return len(self.datasets)

    def row(self, model: str) -> TallyRow:
        for r in self.rows:
            if r.model == model:
                return r
        raise ValueError(f"model must be one of {[r.model for r in self.rows]}, got {model!r}")

    def frame(self) -> pd.DataFrame:
        return pd.DataFrame([r.to_dict() for r in self.rows])

    def to_dict(self) -> dict:
        return {"baseline": self.baseline,
                "rows": [r.to_dict() for r in self.rows],
                "baseline_ge_all_dense": list(self.baseline_ge_all_dense),
                "baseline_first": list(self.baseline_first),
                "first_place_counts": dict(self.first_place_counts),
                "n_datasets": self.n_datasets, "datasets": list(self.datasets),
                "dense_models": list(self.dense_models)}


def _milli_frame(grid: Grid) -> pd.DataFrame:
    return grid.frame.apply(lambda col: col.map(lambda v: np.nan if pd.isna(v) else to_milli(v)))


def tally(grid: Grid, baseline: str = DEFAULT_BASELINE, *,
          rank_columns=None) -> TableTally:
    """Wins, losses, ties, mean relative difference and sign test of every other column
    against ``baseline``; the datasets where the baseline is >= every dense model (dense
    models other than the baseline itself); the datasets where the baseline is first; and how
    often each column is first. Rules and formulas: see the module docstring.

    Only datasets where the baseline has a value count; for a column with gaps (an uploaded
    one) each row counts the datasets both columns have. "Dense" and "first" use the
    columns of ``rank_columns`` (default: all) that have a value on that dataset; pass the
    paper's columns to keep an added column out of the "who is first" counts.
    """
    if not isinstance(grid, Grid):
        raise ValueError(f"grid must be a Grid, got {type(grid).__name__}")
    base = grid.model(baseline)
    ranked = grid.models if rank_columns is None else [grid.model(m) for m in rank_columns]
    if base not in ranked:
        ranked = [base, *ranked]
    frame = grid.frame[grid.frame[base].notna()]
    if frame.empty:
        raise ValueError(f"baseline {base!r} has no values")
    milli = _milli_frame(Grid(frame, grid.kinds, grid.meta))
    rows = []
    for m in grid.models:
        if m == base:
            continue
        both = frame[m].notna()
        bm, mm = milli.loc[both, base], milli.loc[both, m]
        b_wins, m_wins = int((bm > mm).sum()), int((mm > bm).sum())
        ties = int((mm == bm).sum())
        denom = frame.loc[both, base]
        ok = denom > 0
        rel = ((frame.loc[both, m][ok] - denom[ok]) / denom[ok])
        rows.append(TallyRow(m, grid.kinds.get(m, "yours"), b_wins, m_wins, ties,
                             float(100 * rel.mean()) if ok.any() else None,
                             sign_test_p(m_wins, b_wins)))
    dense = tuple(m for m in ranked if grid.kinds.get(m) == DENSE and m != base)
    ge_dense, first = [], []
    counts = {m: 0 for m in ranked}
    for d in frame.index:
        row = milli.loc[d, ranked].dropna()
        top = row.max()
        for m in row.index[row == top]:
            counts[m] += 1
        if row[base] == top:
            first.append(d)
        dense_here = [m for m in dense if m in row.index]
        if dense_here and all(row[base] >= row[m] for m in dense_here):
            ge_dense.append(d)
    return TableTally(base, tuple(rows), tuple(frame.index), dense, tuple(ge_dense),
                      tuple(first), counts)


# ----------------------------------------------------------------------------- uploads
@dataclass(frozen=True)
class UserColumn:
    """An uploaded ``dataset, ndcg@10`` column matched to the grid's dataset names."""

    file: str
    values: dict        # canonical dataset -> value
    spelled: dict       # canonical dataset -> the name as written in the file

    @property
    def n_datasets(self) -> int:
        return len(self.values)


def _parse_value(cell: str, *, file: str, row: int, column: str) -> float | None:
    s = str(cell).strip()
    if s == "":
        return None
    try:
        x = float(s.replace(",", ".")) if s.count(",") == 1 and "." not in s else float(s)
    except ValueError:
        raise InputError("beir_table.err_bad_value", file=file, row=row, column=column,
                         value=s) from None
    if not math.isfinite(x):
        raise InputError("beir_table.err_bad_value", file=file, row=row, column=column, value=s)
    if 1 < x <= 100:
        raise InputError("beir_table.err_percent", file=file, row=row, column=column, value=s,
                         share=f"{x / 100:.3f}")
    if not 0 <= x <= 1:
        raise InputError("beir_table.err_bad_value", file=file, row=row, column=column, value=s)
    return x


def _find_column(columns, names) -> str | None:
    wanted = {norm_name(n) for n in names}
    return next((c for c in columns if norm_name(c) in wanted), None)


def parse_user_column(data: bytes, grid: Grid, file: str = "upload") -> UserColumn:
    """Read an uploaded ``dataset, ndcg@10`` table (CSV/TSV/XLSX via ``core.tables``) and
    match its dataset names leniently to the grid ("scifact" = "SciFact", BEIR ids such as
    "webis-touche2020" and "dbpedia-entity" too). Unknown names, repeated datasets, blank or
    out-of-range values raise ``InputError`` naming the file, rows and column."""
    table = read_table(data, file)
    frame, cols = table.frame, list(table.frame.columns)
    ds_col = _find_column(cols, DATASET_NAMES)
    val_col = _find_column(cols, VALUE_NAMES)
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
        value = _parse_value(cell, file=file, row=int(row), column=val_col)
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
    if not isinstance(column, UserColumn) or not column.values:
        raise ValueError("column must be a UserColumn with at least one dataset")
    sub = grid.subset(column.values).with_column(name, column.values)
    return tally(sub, name)


def user_column_name(file: str, grid: Grid) -> str:
    """A column name for an added file: its stem, or '<stem> (yours)' when that is a model."""
    stem = Path(file).stem.strip() or "yours"
    if any(norm_name(stem) == norm_name(m) for m in grid.models):
        stem = f"{stem} (yours)"
    return stem


# ----------------------------------------------------------------------------- scifact
def scifact_ranking(grid: Grid, measured: dict | None) -> pd.DataFrame:
    """The SciFact row ranked by nDCG@10, best first, with measured values inserted.

    ``measured`` is the scifact live page's ``{"bm25": {"ndcg@10": x, ...}, "dense": {...}}``
    (retrievers without an ``ndcg@10`` are skipped). Columns: ``rank`` (1 = best; equal
    3-decimal values share a rank), ``name``, ``ndcg@10``, ``source`` ("paper" or
    "measured"), ``kind``.
    """
    if SCIFACT not in grid.frame.index:
        raise ValueError(f"the grid has no {SCIFACT} row")
    if measured is not None and not isinstance(measured, dict):
        raise ValueError(f"measured must be a dict or None, got {type(measured).__name__}")
    rows = [{"name": m, "ndcg@10": float(v), "source": "paper", "kind": grid.kinds.get(m, "")}
            for m, v in grid.frame.loc[SCIFACT].dropna().items()]
    for retriever, metrics in (measured or {}).items():
        if not isinstance(metrics, dict):
            continue
        value = next((v for k, v in metrics.items() if norm_name(k) == "ndcg10"), None)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float, np.floating)) \
                or not math.isfinite(float(value)):
            raise ValueError(f"measured[{retriever!r}]['ndcg@10'] must be a number, "
                             f"got {value!r}")
        rows.append({"name": str(retriever), "ndcg@10": float(value), "source": "measured",
                     "kind": "measured"})
    out = pd.DataFrame(rows)
    out["_m"] = out["ndcg@10"].map(to_milli)
    out = out.sort_values(["_m", "source"], ascending=[False, True], kind="stable")
    out.insert(0, "rank", out["_m"].rank(method="min", ascending=False).astype(int))
    return out.drop(columns="_m").reset_index(drop=True)


# ----------------------------------------------------------------------------- words
def _fmt_rel(x: float | None) -> str:
    return "n/a" if x is None else f"{x:+.1f}%"


def _note(model: str, lang: str) -> str:
    """A one-line description of a paper model ("first-generation dense ..."), or ""."""
    key = f"beir_table.note_{norm_name(model)}"
    return t(key, lang) if key in catalog(lang) or key in catalog("en") else ""


def story(result: TableTally, lang: str = "en", alpha: float = ALPHA) -> str:
    """The "generations" reading of a tally, in ``lang``: the models grouped by their standing
    against the baseline (``TallyRow.standing``), each with its computed wins-losses and mean
    relative difference, then the per-kind totals. Every number comes from ``result``."""
    if not isinstance(result, TableTally):
        raise ValueError(f"result must be a TableTally, got {type(result).__name__}")
    groups: dict[str, list[TallyRow]] = {s: [] for s in STANDINGS}
    for r in result.rows:
        groups[r.standing(alpha)].append(r)
    lines = []
    for s in STANDINGS:
        if not groups[s]:
            continue
        detail = "; ".join(
            t("beir_table.story_model", lang,
              model=r.model + (f" ({_note(r.model, lang)})" if _note(r.model, lang) else ""),
              wins=r.model_wins, losses=r.baseline_wins, ties=r.ties,
              rel=_fmt_rel(r.mean_relative_diff_pct))
            for r in groups[s])
        lines.append("- " + t(f"beir_table.story_{s}", lang, baseline=result.baseline,
                              detail=detail, alpha=f"{alpha:g}"))
    by_kind: dict[str, list[int]] = {}
    for r in result.rows:
        k = by_kind.setdefault(r.kind, [0, 0, 0])
        k[0] += r.model_wins
        k[1] += r.baseline_wins
        k[2] += r.ties
    kinds = "; ".join(t("beir_table.story_kind", lang, kind=t(f"beir_table.kind_{k}", lang),
                        wins=v[0], losses=v[1], ties=v[2])
                      for k, v in by_kind.items())
    lines.append("- " + t("beir_table.story_kinds", lang, baseline=result.baseline,
                          detail=kinds))
    return "\n".join(lines)


def tally_text(result: TableTally, grid: Grid, lang: str = "en") -> str:
    """Readable multi-line summary of a tally (the CLI's default output)."""
    lines = [t("beir_table.cli_header", lang, baseline=result.baseline, n=result.n_datasets,
               metric=grid.metric)]
    w = max(len(r.model) for r in result.rows) + 2
    lines.append(f"  {'model':<{w}}{'kind':<18}{'base':>5}{'model':>6}{'ties':>5}"
                 f"{'rel.diff':>10}{'sign p':>9}")
    for r in result.rows:
        p = fmt_p(r.sign_test_p)
        lines.append(f"  {r.model:<{w}}{r.kind:<18}{r.baseline_wins:>5}{r.model_wins:>6}"
                     f"{r.ties:>5}{_fmt_rel(r.mean_relative_diff_pct):>10}{p:>9}")
    lines.append(t("beir_table.caution", lang))
    lines.append(t("beir_table.ge_dense_line", lang, baseline=result.baseline,
                   count=len(result.baseline_ge_all_dense), n=result.n_datasets,
                   dense=", ".join(result.dense_models),
                   datasets=", ".join(result.baseline_ge_all_dense) or "-"))
    lines.append(t("beir_table.first_line", lang, baseline=result.baseline,
                   count=len(result.baseline_first), n=result.n_datasets,
                   datasets=", ".join(result.baseline_first) or "-"))
    lines.append(t("beir_table.first_counts_line", lang, counts=", ".join(
        f"{m} {c}" for m, c in sorted(result.first_place_counts.items(),
                                      key=lambda kv: -kv[1]))))
    return "\n".join(lines)


# ----------------------------------------------------------------------------- charts
def heatmap_chart(grid: Grid, baseline: str, *, mode: str = "value", title: str = "",
                  value_title: str = "nDCG@10", diff_title: str = "") -> alt.LayerChart:
    """Datasets x models; colour = nDCG@10 (``mode="value"``) or value - baseline
    (``mode="diff"``, diverging around 0). Each cell is labelled with its value."""
    if mode not in ("value", "diff"):
        raise ValueError(f"mode must be 'value' or 'diff', got {mode!r}")
    base = grid.model(baseline)
    df = grid.long(base)
    df["label"] = df["value"].map(lambda v: f"{v:.3f}") if mode == "value" else \
        df["diff"].map(lambda v: f"{v:+.3f}")
    field_, title_ = ("value", value_title) if mode == "value" else ("diff", diff_title or
                                                                    f"− {base}")
    if mode == "value":
        scale = alt.Scale(scheme="blues", domain=[0, float(df["value"].max())])
    else:
        lim = float(df["diff"].abs().max()) or 1.0
        scale = alt.Scale(scheme="redblue", domain=[-lim, lim], domainMid=0)
    x = alt.X("model:N", sort=grid.models, title=None, axis=alt.Axis(labelAngle=-30))
    y = alt.Y("dataset:N", sort=grid.datasets, title=None)
    rect = alt.Chart(df).mark_rect().encode(
        x=x, y=y, color=alt.Color(f"{field_}:Q", scale=scale, title=title_),
        tooltip=["dataset:N", "model:N", "kind:N", alt.Tooltip("value:Q", format=".3f"),
                 alt.Tooltip("diff:Q", format="+.3f", title=f"− {base}")])
    if mode == "value":
        dark = alt.datum.value > 0.6 * float(df["value"].max())
    else:
        dark = (alt.datum.diff > 0.6 * lim) | (alt.datum.diff < -0.6 * lim)
    text = alt.Chart(df).mark_text(fontSize=10).encode(
        x=x, y=y, text="label:N",
        color=alt.condition(dark, alt.value("white"), alt.value("black")))
    return alt.layer(rect, text).properties(title=title, height=24 * len(grid.datasets) + 20)


def tally_chart(result: TableTally, *, labels: dict, title: str = "") -> alt.Chart:
    """Diverging bars per model: baseline wins to the left, model wins to the right, ties in
    the middle. ``labels`` names the three parts: keys baseline_wins, model_wins, ties."""
    for k in ("baseline_wins", "model_wins", "ties"):
        if k not in labels:
            raise ValueError(f"labels needs the key {k!r}")
    rows = []
    for r in result.rows:
        half = r.ties / 2
        rows += [{"model": r.model, "part": labels["baseline_wins"], "start": -half - r.baseline_wins,
                  "end": -half, "count": r.baseline_wins},
                 {"model": r.model, "part": labels["ties"], "start": -half, "end": half,
                  "count": r.ties},
                 {"model": r.model, "part": labels["model_wins"], "start": half,
                  "end": half + r.model_wins, "count": r.model_wins}]
    df = pd.DataFrame(rows)
    order = [labels["baseline_wins"], labels["ties"], labels["model_wins"]]
    colour = alt.Color("part:N", scale=alt.Scale(domain=order,
                                                 range=["#e45756", "#bab0ac", "#4c78a8"]),
                       title=None, legend=alt.Legend(orient="bottom"))
    bars = alt.Chart(df[df["count"] > 0]).mark_bar().encode(
        y=alt.Y("model:N", sort=[r.model for r in result.rows], title=None),
        x=alt.X("start:Q", title=None, axis=alt.Axis(tickMinStep=1, labelExpr="abs(datum.value)")),
        x2="end:Q", color=colour, tooltip=["model:N", "part:N", "count:Q"])
    zero = alt.Chart(pd.DataFrame({"x": [0]})).mark_rule(color="black").encode(x="x:Q")
    return alt.layer(bars, zero).properties(title=title, height=alt.Step(30))


def scifact_chart(ranking: pd.DataFrame, *, source_labels: dict, title: str = "") -> alt.Chart:
    """Horizontal bars of the ranked SciFact list, coloured paper vs measured."""
    df = ranking.copy()
    df["source_label"] = df["source"].map(source_labels).fillna(df["source"])
    df["label"] = df["name"] + " (" + df["source_label"] + ")"
    return alt.Chart(df).mark_bar().encode(
        y=alt.Y("label:N", sort=list(df["label"]), title=None),
        x=alt.X("ndcg@10:Q", title="nDCG@10", scale=alt.Scale(zero=True)),
        color=alt.Color("source_label:N", title=None, legend=alt.Legend(orient="bottom")),
        tooltip=["rank:Q", "name:N", "source_label:N",
                 alt.Tooltip("ndcg@10:Q", format=".3f")]).properties(
        title=title, height=alt.Step(26))
