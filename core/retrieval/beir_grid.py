"""The BEIR Table 2 grid: datasets x models of nDCG@10, read from ``data/beir_table2.csv``.

Source: Thakur, Reimers, Rücklé, Srivastava, Gurevych, "BEIR: A Heterogeneous Benchmark for
Zero-shot Evaluation of Information Retrieval Models", NeurIPS 2021 Datasets and Benchmarks,
arXiv:2104.08663v4, Table 2 (nDCG@10), stored with the citation in ``# key: value`` header
lines that :func:`load_grid` reads. Values are compared at the table's precision, 3 decimals
(``to_milli``). Counting happens in ``core.retrieval.beir_table``; uploads in ``core.retrieval.beir_upload``.
"""
from __future__ import annotations

import io
import math
import re
import unicodedata
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from pathlib import Path

import pandas as pd

from core import checks
from core.errors import InputError
from core.inputs import AmbiguousNumber, parse_number

DATA = Path(__file__).resolve().parents[2] / "data" / "beir_table2.csv"
KINDS = ("lexical", "dense", "late-interaction", "sparse", "yours")
SCIFACT = "SciFact"
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
        checks.instance("baseline", name, str, "a column name")
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
        checks.text("name", name)
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
            value = parse_score(cell, file=file, row=line, column=m)
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


def parse_score(cell: str, *, file: str, row: int, column: str) -> float | None:
    """One nDCG@10 cell (``core.inputs.tables.parse_number``) -> a number in [0, 1], None when
    blank; ``InputError`` naming the cell for anything else (a percentage, an ambiguous
    ``1,000``, text)."""
    s = str(cell).strip()
    if s == "":
        return None
    try:
        x = parse_number(s)
    except AmbiguousNumber as exc:
        raise InputError("ambiguous_number", file=file, row=row, column=column, value=s[:40],
                         decimal=exc.decimal, thousands=exc.thousands, count=1) from None
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
