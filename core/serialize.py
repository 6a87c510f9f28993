"""Serialization of results, the one way each: JSON for the CLI and the pages (``to_json``:
plain JSON types, NaN -> null, Korean kept readable) and CSV downloads (``to_csv_bytes``:
spreadsheet formulas neutralised, OWASP "CSV Injection"). Kept apart from the HTML report
(``core.views.report``) so the CLI never imports a chart library to print JSON, nor pandas
(imported by the CSV functions only)."""
from __future__ import annotations

import json
import math
import sys

import numpy as np

from core import checks


def print_json(obj) -> None:
    """``to_json`` of ``obj`` on standard output, one line: every command's ``--json``."""
    sys.stdout.write(to_json(obj) + "\n")


def json_safe(value):
    """Plain JSON types: numpy scalars unwrapped, tuples as lists, NaN/inf -> null."""
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


CSV_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value):
    """One cell as a spreadsheet may safely open it (OWASP, "CSV Injection"): a string that
    starts with ``=``, ``+``, ``-``, ``@``, tab or carriage return is prefixed with ``'`` so
    Excel, LibreOffice and Google Sheets show it as text instead of running it as a formula.
    Numbers (int, float, numpy scalars, bool) are returned unchanged, so ``-2.5`` stays a
    number; the string ``"-2+3"`` becomes ``"'-2+3"``."""
    if isinstance(value, str) and value.startswith(CSV_FORMULA_START):
        return "'" + value
    return value


def csv_safe(df: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``df`` with every string cell, header and index label passed through
    ``csv_cell``; numeric columns are untouched. The input frame is not modified."""
    import pandas as pd

    checks.instance("df", df, pd.DataFrame, "a pandas DataFrame")
    out = df.copy()
    for col in out.columns:
        if not (pd.api.types.is_numeric_dtype(out[col]) or pd.api.types.is_bool_dtype(out[col])):
            out[col] = out[col].map(csv_cell)
    out.columns = [csv_cell(c) if isinstance(c, str) else c for c in out.columns]
    if not pd.api.types.is_numeric_dtype(out.index):
        out.index = out.index.map(csv_cell)
        out.index.name = csv_cell(df.index.name) if isinstance(df.index.name, str) \
            else df.index.name
    return out


def to_csv_bytes(df: pd.DataFrame, *, index: bool = False) -> bytes:
    """The one CSV export: ``csv_safe(df)`` as UTF-8 with BOM (Excel opens Korean text
    correctly) and CRLF line ends, so a cell holding a bare CR or LF is quoted. Every CSV
    download goes through here."""
    return csv_safe(df).to_csv(index=index, lineterminator="\r\n").encode("utf-8-sig")


def to_json(obj) -> str:
    """Pretty UTF-8 JSON (Korean kept readable) of ``json_safe(obj)``; the CLI's and the
    pages' one serializer."""
    return json.dumps(json_safe(obj), ensure_ascii=False, indent=2, allow_nan=False)
