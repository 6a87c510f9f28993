"""Reading uploaded tables (CSV in UTF-8 / UTF-8-BOM / CP949, with , tab or ; ; and XLSX).

Uploads are parsed as text or as an XLSX workbook, never executed or unpickled. Every cell
comes back as a string (blank = ""), so callers decide what a value means and can name the
row and column of anything they reject. Rows are numbered as a spreadsheet shows them:
the header is row 1, the first data row is row 2.
"""
from __future__ import annotations

import csv
import io
import re
import zipfile
from dataclasses import dataclass

import pandas as pd

from core.errors import InputError

MAX_BYTES = 20 * 1024 * 1024


def norm_header(name) -> str:
    """A header as matched: trimmed, lower-case, runs of spaces/hyphens -> '_'."""
    return re.sub(r"[\s\-]+", "_", str(name).strip().lower())


def find_column(columns, names, *, key=norm_header) -> str | None:
    """The first of ``columns`` whose normalised name is one of ``names`` (case-insensitive,
    spaces/hyphens/underscores alike; Korean names match as written), else None. ``key`` is
    the normaliser (default ``norm_header``; the BEIR upload passes its more lenient
    ``core.beir_grid.norm_name``)."""
    wanted = {key(n) for n in names}
    return next((c for c in columns if key(c) in wanted), None)


def parse_number(text: str) -> float:
    """A number as people type it in a cell: ``0.75``, ``1e-3``, or with one decimal comma
    (``0,75``, European Excel). ``ValueError`` otherwise. Range checks are the caller's."""
    s = str(text).strip()
    return float(s.replace(",", ".")) if s.count(",") == 1 and "." not in s else float(s)
ENCODINGS = ("utf-8-sig", "cp949")  # cp949 is a superset of EUC-KR (Korean Excel "CSV")
DELIMITERS = (",", "\t", ";")


@dataclass(frozen=True)
class RawTable:
    """A parsed table: string cells, original headers, and how it was read."""

    frame: pd.DataFrame
    file: str
    encoding: str
    delimiter: str | None  # None for xlsx


def decode_text(data: bytes, file: str) -> tuple[str, str]:
    """Decode bytes as UTF-8 (with or without BOM), else CP949/EUC-KR; say which."""
    if b"\x00" in data[:8192]:
        raise InputError("binary_file", file=file)
    for enc in ENCODINGS:
        try:
            return data.decode(enc), enc
        except UnicodeDecodeError:
            continue
    raise InputError("bad_encoding", file=file)


def sniff_delimiter(text: str) -> str:
    """The delimiter among comma, tab and semicolon that splits the header consistently."""
    sample = "\n".join(text.splitlines()[:50])
    try:
        return csv.Sniffer().sniff(sample, delimiters="".join(DELIMITERS)).delimiter
    except csv.Error:
        header = text.splitlines()[0] if text else ""
        counts = {d: header.count(d) for d in DELIMITERS}
        best = max(counts, key=counts.get)
        return best if counts[best] else ","


def _clean(frame: pd.DataFrame, file: str) -> pd.DataFrame:
    """First row -> header (read ourselves, so repeated names are seen, not renamed)."""
    frame = frame.fillna("").astype(str)
    if frame.empty:
        raise InputError("empty_file", file=file)
    header = [str(c).strip() for c in frame.iloc[0]]
    body = frame.iloc[1:].reset_index(drop=True).map(str.strip)
    keep = []
    for pos, name in enumerate(header):
        if name == "":
            if (body.iloc[:, pos] != "").any():
                raise InputError("blank_header", file=file, column=str(pos + 1))
            continue  # an empty column with no header (trailing delimiter): nothing to lose
        keep.append(pos)
    names = [header[p] for p in keep]
    seen = set()
    for name in names:
        if name in seen:
            raise InputError("duplicate_column", file=file, column=name)
        seen.add(name)
    frame = body.iloc[:, keep]
    frame.columns = names
    # Drop rows that are blank in every cell (trailing Excel rows); keep numbering stable.
    frame.index = pd.RangeIndex(2, 2 + len(frame))
    return frame[(frame != "").any(axis=1)]


def read_table(data: bytes, file: str = "upload") -> RawTable:
    """Parse CSV/TSV/XLSX bytes into string cells; raise ``InputError`` on anything else."""
    if not isinstance(data, (bytes, bytearray)):
        raise InputError("not_bytes", file=file)
    if len(data) == 0:
        raise InputError("empty_file", file=file)
    if len(data) > MAX_BYTES:
        raise InputError("too_large", file=file, size_mb=f"{len(data) / 2**20:.1f}",
                         limit_mb=f"{MAX_BYTES / 2**20:.0f}")
    if data[:4] == b"PK\x03\x04" or file.lower().endswith((".xlsx", ".xlsm")):
        return _read_xlsx(bytes(data), file)
    text, enc = decode_text(bytes(data), file)
    if not text.strip():
        raise InputError("empty_file", file=file)
    delim = sniff_delimiter(text)
    try:
        frame = pd.read_csv(io.StringIO(text), sep=delim, dtype=str, keep_default_na=False,
                            skip_blank_lines=True, engine="python", header=None)
    except pd.errors.ParserError as exc:
        raise InputError("csv_parse", file=file, detail=str(exc).strip().splitlines()[-1])
    except (ValueError, csv.Error) as exc:
        raise InputError("csv_parse", file=file, detail=str(exc))
    frame = _clean(frame, file)
    if frame.empty:
        raise InputError("header_only", file=file)
    return RawTable(frame, file, enc, delim)


MAX_XLSX_UNZIPPED = 200 * 1024 * 1024  # a workbook is a zip: cap what it may inflate to


def _read_xlsx(data: bytes, file: str) -> RawTable:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            inflated = sum(info.file_size for info in zf.infolist())
    except (zipfile.BadZipFile, ValueError, OSError) as exc:
        raise InputError("bad_xlsx", file=file, detail=str(exc)[:200])
    if inflated > MAX_XLSX_UNZIPPED:
        raise InputError("xlsx_too_large", file=file, size_mb=f"{inflated / 2**20:.0f}",
                         limit_mb=f"{MAX_XLSX_UNZIPPED / 2**20:.0f}")
    try:
        frame = pd.read_excel(io.BytesIO(data), sheet_name=0, dtype=str, engine="openpyxl",
                              keep_default_na=False, header=None)
    except (zipfile.BadZipFile, KeyError, ValueError, OSError, TypeError) as exc:
        raise InputError("bad_xlsx", file=file, detail=str(exc)[:200])
    except Exception as exc:  # openpyxl raises assorted errors on hostile workbooks
        raise InputError("bad_xlsx", file=file, detail=type(exc).__name__)
    if frame.shape[1] == 0:
        raise InputError("empty_file", file=file)
    frame = _clean(frame, file)
    if frame.empty:
        raise InputError("header_only", file=file)
    return RawTable(frame, file, "xlsx", None)
