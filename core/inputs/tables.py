"""Reading uploaded tables (CSV in UTF-8 / UTF-8-BOM / CP949, with , tab or ; ; and XLSX).

Uploads are parsed as text or as an XLSX workbook, never executed or unpickled. Every cell
comes back as a string (blank = ""), so callers decide what a value means and can name the
row and column of anything they reject. Rows are numbered as a spreadsheet shows them:
the header is row 1, the first data row is row 2.

Two forms of the same read: ``read_cells`` -> ``CellTable`` (plain lists of strings, one per
column, no pandas: the CLI's light path) and ``read_table`` -> ``RawTable`` (the same cells
as a pandas frame, built by ``CellTable.raw``), with the same checks and messages.
"""
from __future__ import annotations

import csv
import io
import re
import zipfile
import zlib
from dataclasses import dataclass, field

import numpy as np

from core import checks
from core.errors import InputError
from core.inputs.text import CONTROLS, nfc

MAX_BYTES = 20 * 1024 * 1024
MAX_COLUMNS = 1_000       # a golden set has a handful of methods; 10^6 columns is an attack
MAX_CELLS = 2_000_000     # rows x columns, counted before pandas builds anything


def norm_header(name) -> str:
    """A header as matched: trimmed, lower-case, runs of spaces/hyphens -> '_'."""
    return re.sub(r"[\s\-]+", "_", str(name).strip().lower())


def find_column(columns, names, *, key=norm_header) -> str | None:
    """The first of ``columns`` whose normalised name is one of ``names`` (case-insensitive,
    spaces/hyphens/underscores alike; Korean names match as written), else None. ``key`` is
    the normaliser (default ``norm_header``; the BEIR upload passes its more lenient
    ``core.retrieval.beir_grid.norm_name``)."""
    wanted = {key(n) for n in names}
    return next((c for c in columns if key(c) in wanted), None)


class AmbiguousNumber(ValueError):
    """A cell such as ``1,234``: a decimal comma (1.234) or a thousands separator (1234)?"""

    def __init__(self, text: str) -> None:
        self.text = text
        self.decimal = text.replace(",", ".")
        self.thousands = text.replace(",", "")
        super().__init__(f"{text!r} could be {self.decimal} (decimal comma) or "
                         f"{self.thousands} (thousands separator)")


# one comma, then exactly three digits, after 1-3 digits that do not start with 0:
# ``1,234`` or ``12,500`` reads as well in Seoul (1234) as in Berlin (1.234)
_AMBIGUOUS = r"[+-]?[1-9]\d{0,2},\d{3}"


def _decimal_comma(s: str) -> str:
    """``s`` (stripped) with its one decimal comma made a point; others unchanged."""
    if s.count(",") == 1 and "." not in s:
        if re.fullmatch(_AMBIGUOUS, s):
            raise AmbiguousNumber(s)
        return s.replace(",", ".")
    return s


def parse_number(text: str) -> float:
    """A number as people type it in a cell: ``0.75``, ``1e-3``, ``12.5``, or with one
    decimal comma (``0,75``, ``12,5``: European Excel). The one number parser of uploads
    (golden, latency, labels, rank tables, BEIR columns, TREC run scores), one cell at a time;
    ``parse_numbers`` is the same rule for a column.

    A comma that may as well be a thousands separator (``1,234``: one to three digits, not
    starting with 0, then exactly three) raises ``AmbiguousNumber`` rather than guessing a
    reading 1,000 times off; anything else that is not a number raises ``ValueError``.
    ``nan`` and ``inf`` are read as Python reads them: range checks are the caller's."""
    return float(_decimal_comma(str(text).strip()))


def parse_numbers(cells: pd.Series, *, file: str, column: str) -> np.ndarray:
    """``parse_number`` for a column of string cells, vectorised: floats, NaN where a cell
    is not a number (the caller names its own error). An ambiguous cell (``1,234``) raises
    ``InputError("ambiguous_number")`` naming ``file``, its row (the series index: the
    spreadsheet row) and ``column``."""
    import pandas as pd

    s = cells if isinstance(cells, pd.Series) else pd.Series(cells, dtype=object)
    out = pd.to_numeric(s, errors="coerce").to_numpy(float, copy=True)
    miss = np.flatnonzero(np.isnan(out))
    if miss.size:
        sub = s.iloc[miss].astype(str).str.strip()
        amb = sub.str.fullmatch(_AMBIGUOUS).to_numpy(bool)
        if amb.any():
            i = int(np.argmax(amb))
            err = AmbiguousNumber(sub.iloc[i])
            raise InputError("ambiguous_number", file=file, row=int(sub.index[i]), column=column,
                             value=err.text[:40], decimal=err.decimal, thousands=err.thousands,
                             count=int(amb.sum()))
        comma = ((sub.str.count(",") == 1) & ~sub.str.contains(".", regex=False)).to_numpy()
        if comma.any():
            fixed = sub.str.replace(",", ".", regex=False).where(comma, sub)
            out[miss] = pd.to_numeric(fixed, errors="coerce").to_numpy(float)
        for j in miss[np.isnan(out[miss])].tolist():  # spellings only float() reads, or none
            try:
                out[j] = parse_number(s.iloc[j])
            except ValueError:
                pass
    return out


ENCODINGS = ("utf-8-sig", "cp949")  # cp949 is a superset of EUC-KR (Korean Excel "CSV")
DELIMITERS = (",", "\t", ";")


@dataclass(frozen=True)
class RawTable:
    """A parsed table: string cells, original headers, and how it was read."""

    frame: pd.DataFrame
    file: str
    encoding: str
    delimiter: str | None  # None for xlsx
    sheet: str | None = None          # the worksheet read (xlsx)
    other_sheets: tuple[str, ...] = ()  # the workbook's other worksheets, in order
    # cells whose text changed under Unicode NFC: {column: (row, ...)} (spreadsheet rows)
    normalized: dict = field(default_factory=dict)


@dataclass(frozen=True)
class CellTable:
    """A parsed table without pandas (``read_cells``): ``names`` the headers in file order,
    ``columns`` one list of string cells per header, ``rows`` the spreadsheet row number of
    each kept row (rows blank in every cell dropped; the first data row is 2);
    ``normalized`` as in ``RawTable``."""

    names: tuple[str, ...]
    columns: tuple[list[str], ...] = field(repr=False)
    rows: tuple[int, ...] = field(repr=False)
    file: str = "upload"
    encoding: str = ""
    delimiter: str | None = None
    sheet: str | None = None
    other_sheets: tuple[str, ...] = ()
    normalized: dict = field(default_factory=dict)
    # the columns before blank rows were dropped, for ``raw`` (None: none were)
    _all_columns: tuple[list[str], ...] | None = field(default=None, repr=False)

    empty = property(lambda self: not self.names or not self.rows)  # as frame.empty

    def column(self, name: str) -> list[str]:
        return self.columns[self.names.index(name)]

    def raw(self) -> RawTable:
        """The same table as a ``RawTable`` (pandas imported here, not on the light path):
        rows blank in every cell dropped, index = spreadsheet row."""
        import pandas as pd

        body = self.columns if self._all_columns is None else self._all_columns
        frame = pd.DataFrame(dict(enumerate(body)), index=pd.RangeIndex(2, 2 + len(body[0])),
                             columns=range(len(body)), dtype=str)
        frame.columns = list(self.names)
        return RawTable(frame[(frame != "").any(axis=1)], self.file, self.encoding,
                        self.delimiter, self.sheet, self.other_sheets, self.normalized)


# A Hangul syllable glued to a Latin letter: what UTF-8 'café' looks like read as CP949.
_GLUED = re.compile("[A-Za-z][\uac00-\ud7a3]|[\uac00-\ud7a3][A-Za-z]")
_HANGUL = re.compile("[\uac00-\ud7a3]")


def _hangul(text: str) -> int:
    """How many Hangul syllables (U+AC00..U+D7A3) ``text`` holds."""
    return len(_HANGUL.findall(text))


def decode_text(data: bytes, file: str) -> tuple[str, str]:
    """Decode bytes as UTF-8 (with or without BOM), else CP949/EUC-KR; say which.

    Some CP949 text is also valid UTF-8 ('청크' saved by Korean Excel reads as 'ûũ' in
    UTF-8). When both decodings succeed, the one with more Hangul syllables wins: a UTF-8
    file of Korean text has Hangul in UTF-8 and mostly none in CP949, the reverse for such
    CP949 bytes; unless a Hangul syllable in the CP949 reading touches a Latin letter
    ('café' in UTF-8 would read as 'caf' + a syllable). The encoding used is returned so
    callers can say which it was."""
    if b"\x00" in data[:8192]:
        raise InputError("binary_file", file=file)
    if data.isascii():  # both decodings agree and hold no Hangul: UTF-8 wins, as below
        return data.decode("ascii"), ENCODINGS[0]
    decoded = {}
    for enc in ENCODINGS:
        try:
            decoded[enc] = data.decode(enc)
        except UnicodeDecodeError:
            continue
    if not decoded:
        raise InputError("bad_encoding", file=file)
    if len(decoded) == 2 and not data.startswith(b"\xef\xbb\xbf") and \
            _hangul(decoded["cp949"]) > _hangul(decoded["utf-8-sig"]) and \
            not _GLUED.search(decoded["cp949"]):
        return decoded["cp949"], "cp949"
    enc = next(iter(decoded))
    return decoded[enc], enc


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


def _cell(value) -> str:
    return "" if value is None else str(value)


def _columns(rows: list[list], width: int, strings: bool) -> list[list[str]]:
    """The body rows (all but the first) as ``width`` columns of stripped strings; short rows
    pad with "", None reads as "". Rows of strings (``strings``: the CSV reader's) all
    ``width`` long are transposed in one step."""
    body = rows[1:]
    if not body:
        return [[] for _ in range(width)]
    if strings and set(map(len, body)) == {width}:
        return [[c.strip() for c in col] for col in zip(*body)]
    return [[_cell(r[j]).strip() if j < len(r) else "" for r in body] for j in range(width)]


def _nfc_column(cells: list[str]) -> list[str]:
    """``nfc`` of each (stripped) cell. A column that is all ASCII and free of ``CONTROLS``
    is returned as is: NFC leaves ASCII unchanged and the removed characters (``INVISIBLE``)
    are not ASCII, so only columns with other characters pay for the per-cell
    normalisation."""
    joined = "".join(cells)
    if joined.isascii() and not CONTROLS.search(joined):
        return cells
    return [nfc(c) for c in cells]


def _cells_from_rows(rows: list[list], file: str, *, strings: bool = False,
                     **how) -> CellTable:
    """First row -> header (read ourselves, so repeated names are seen, not renamed).
    Headers and cells are NFC-normalised and stripped; returns the ``CellTable`` of the
    remaining rows (numbered as a spreadsheet shows them, rows blank in every cell dropped)
    with the ``{column: (row, ...)}`` of cells whose text NFC changed (so callers can say
    so). ``how``: the table's encoding/delimiter/sheet fields. Works column by column on
    the parsed rows; no frame is built."""
    if not rows:
        raise InputError("empty_file", file=file)
    width = max(len(r) for r in rows)
    if width == 0:
        raise InputError("empty_file", file=file)
    first = rows[0]
    header = [nfc("" if j >= len(first) or first[j] is None else str(first[j]))
              for j in range(width)]
    raw = _columns(rows, width, strings)
    body = [_nfc_column(col) for col in raw]
    keep = []
    for pos, name in enumerate(header):
        if name == "":
            if any(c != "" for c in body[pos]):
                raise InputError("blank_header", file=file, column=str(pos + 1))
            continue  # an empty column with no header (trailing delimiter): nothing to lose
        keep.append(pos)
    names = [header[p] for p in keep]
    seen = set()
    for name in names:
        if name in seen:
            raise InputError("duplicate_column", file=file, column=name)
        seen.add(name)
    normalized = {}
    for j, p in enumerate(keep):
        if body[p] is not raw[p]:
            changed = tuple(i + 2 for i, (a, b) in enumerate(zip(raw[p], body[p])) if a != b)
            if changed:
                normalized[names[j]] = changed
    columns = [body[p] for p in keep]
    n = len(rows) - 1  # rows blank in every cell (trailing Excel rows) are dropped:
    filled = [any(cells) for cells in zip(*columns)] if columns else [False] * n
    if all(filled):
        return CellTable(tuple(names), tuple(columns), tuple(range(2, 2 + n)), file,
                         normalized=normalized, **how)
    kept = [i for i, f in enumerate(filled) if f]
    return CellTable(tuple(names), tuple([col[i] for i in kept] for col in columns),
                     tuple(i + 2 for i in kept), file, normalized=normalized,
                     _all_columns=tuple(columns), **how)


def check_shape(rows, file: str, *, max_columns: int = MAX_COLUMNS,
                max_cells: int = MAX_CELLS) -> None:
    """Count fields row by row (``rows``: an iterable of rows, e.g. ``csv.reader``) and stop
    at the first row past ``max_columns`` fields or once ``max_cells`` cells are passed, so
    a hostile file is refused before any frame is built."""
    cells, header = 0, True
    for lineno, row in enumerate(rows, start=1):
        width = len(row)
        if width > max_columns:
            raise InputError("too_many_columns", file=file, row=lineno, count=f"{width:,}",
                             limit=f"{max_columns:,}")
        if header:  # the header row names the columns; the cap counts data cells
            header = width == 0
            continue
        cells += width
        if cells > max_cells:
            raise InputError("too_many_cells", file=file, row=lineno, limit=f"{max_cells:,}")


def newlines(text: str) -> str:
    """Windows (CR LF) and old Mac (CR only, Excel for Mac before 2016) line ends -> LF."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


MAX_FIELD = 131_072  # characters in one cell: Python's csv limit, said in our words


def read_csv_rows(text: str, delim: str, file: str, *, max_columns: int = MAX_COLUMNS,
                  max_cells: int = MAX_CELLS) -> list[list[str]]:
    """The rows of CSV ``text`` (blank lines skipped), counted as they are read (see
    ``check_shape``). Malformed text raises ``InputError`` in the user's terms (a cell
    longer than ``MAX_FIELD`` characters: usually a quote that is never closed), never
    with Python's csv wording."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delim)
    rows: list[list[str]] = []

    def counted():
        for row in reader:
            if row:
                rows.append(row)
            yield row

    try:
        check_shape(counted(), file, max_columns=max_columns, max_cells=max_cells)
    except csv.Error as exc:
        row = reader.line_num or None
        if "field larger than field limit" in str(exc):
            raise InputError("csv_cell_too_long", file=file, row=row,
                             limit=f"{MAX_FIELD:,}") from None
        raise InputError("csv_malformed", file=file, row=row) from None
    if not rows:
        raise InputError("empty_file", file=file)
    return rows


def read_table(data: bytes, file: str = "upload", *, required: tuple = (),
               max_columns: int = MAX_COLUMNS, max_cells: int = MAX_CELLS) -> RawTable:
    """Parse CSV/TSV/XLSX bytes into string cells; raise ``InputError`` on anything else.

    Cells and headers are NFC-normalised and stripped. At most ``max_columns`` columns and
    ``max_cells`` cells, checked before parsing. ``required`` (groups of header names, each
    group as for ``find_column``) picks the worksheet of a workbook: the first sheet whose
    header has a column of every group (default: the first sheet). ``read_cells``: the same
    without pandas."""
    return read_cells(data, file, required=required, max_columns=max_columns,
                      max_cells=max_cells).raw()


def read_cells(data: bytes, file: str = "upload", *, required: tuple = (),
               max_columns: int = MAX_COLUMNS, max_cells: int = MAX_CELLS) -> CellTable:
    """``read_table`` without pandas (same checks and messages): a ``CellTable``."""
    checks.whole("max_columns", max_columns, lo=1)
    checks.whole("max_cells", max_cells, lo=1)
    if not isinstance(data, (bytes, bytearray)):
        raise InputError("not_bytes", file=file)
    if len(data) == 0:
        raise InputError("empty_file", file=file)
    if len(data) > MAX_BYTES:
        raise InputError("too_large", file=file, size_mb=f"{len(data) / 2**20:.1f}",
                         limit_mb=f"{MAX_BYTES / 2**20:.0f}")
    if data[:4] == b"PK\x03\x04" or file.lower().endswith((".xlsx", ".xlsm")):
        return _read_xlsx(bytes(data), file, required, max_columns, max_cells)
    text, enc = decode_text(bytes(data), file)
    if not text.strip():
        raise InputError("empty_file", file=file)
    text = newlines(text)
    delim = sniff_delimiter(text)
    rows = read_csv_rows(text, delim, file, max_columns=max_columns, max_cells=max_cells)
    table = _cells_from_rows(rows, file, strings=True, encoding=enc,
                             delimiter=delim)
    if table.empty:
        raise InputError("header_only", file=file)
    return table


MAX_XLSX_UNZIPPED = 200 * 1024 * 1024  # a workbook is a zip: cap what it may inflate to


# openpyxl reads about 100,000 cells a second and the workbook is read twice (values, then
# formulas): 500,000 cells keep a workbook to seconds. A golden set has far fewer.
MAX_XLSX_CELLS = 500_000
_XML_CELL = re.compile(rb"<(?:\w+:)?c[\s/>]")
_XML_ROW = re.compile(rb"<(?:\w+:)?row[\s/>]")


def _count_xlsx_cells(data: bytes, file: str, max_cells: int) -> None:
    """Count every worksheet's cell and row elements while inflating it in chunks; stop once
    the data cells pass ``max_cells`` (a row: at least one cell; a sheet's first row is its
    header, not counted, as in ``check_shape``). ``<dimension>`` may lie and is not read. A
    zip that lies (a wrong CRC-32 or size, a truncated compression) is ``bad_xlsx``."""
    cells = rows = 0  # data cells and rows of the sheets so far
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            for info in zf.infolist():
                if not re.fullmatch(r"xl/worksheets/.*\.xml", info.filename):
                    continue
                tail, sheet_rows, header = b"", 0, 0
                with zf.open(info) as fh:
                    while True:
                        chunk = fh.read(1 << 20)
                        block = tail + chunk  # tags in the last 16 bytes: counted next time
                        cut = max(len(block) - 16, 0) if chunk else len(block)
                        cell_at, row_at = ([m.start() for m in tag.finditer(block)
                                            if m.start() < cut] for tag in (_XML_CELL, _XML_ROW))
                        if sheet_rows < 2:  # the header's cells: those before the second row
                            second = (row_at + [len(block)] * 2)[1 - sheet_rows]
                            header += sum(1 for at in cell_at if at < second)
                        sheet_rows, rows = sheet_rows + len(row_at), rows + len(row_at)
                        cells += len(cell_at)
                        tail = block[cut:]
                        if max(cells - header, rows - min(sheet_rows, 1)) > max_cells:
                            raise InputError("too_many_cells", file=file, limit=f"{max_cells:,}")
                        if not chunk:
                            break
                cells, rows = cells - header, rows - min(sheet_rows, 1)
    except InputError:
        raise
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, ValueError,
            OSError) as exc:
        raise InputError("bad_xlsx", file=file, detail=str(exc)[:200] or type(exc).__name__)


def _has_columns(header, required) -> bool:
    return all(find_column(header, group) is not None for group in required)


def _read_xlsx(data: bytes, file: str, required: tuple = (), max_columns: int = MAX_COLUMNS,
               max_cells: int = MAX_CELLS) -> CellTable:
    """The first worksheet whose header has the ``required`` columns (any sheet's header
    when nothing is required). Formula cells saved without a computed value are refused."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            inflated = sum(info.file_size for info in zf.infolist())
    except (zipfile.BadZipFile, ValueError, OSError) as exc:
        raise InputError("bad_xlsx", file=file, detail=str(exc)[:200])
    if inflated > MAX_XLSX_UNZIPPED:
        raise InputError("xlsx_too_large", file=file, size_mb=f"{inflated / 2**20:.0f}",
                         limit_mb=f"{MAX_XLSX_UNZIPPED / 2**20:.0f}")
    max_cells = min(max_cells, MAX_XLSX_CELLS)
    _count_xlsx_cells(data, file, max_cells)
    import openpyxl

    try:
        values = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
        formulas = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=False)
    except Exception as exc:  # openpyxl raises assorted errors on hostile workbooks
        detail = str(exc)[:200] if isinstance(exc, (zipfile.BadZipFile, KeyError, ValueError,
                                                    OSError, TypeError)) else type(exc).__name__
        raise InputError("bad_xlsx", file=file, detail=detail)
    try:
        names = list(values.sheetnames)
        chosen, any_rows = None, False
        for name in names:
            ws = values[name]
            ws.reset_dimensions()  # the declared <dimension> (A1:XFD1048576?) is not trusted:
            rows = _xlsx_rows(ws, file, max_columns, max_cells)  # the cells read are counted
            while rows and all(v == "" for v in rows[-1]):
                rows.pop()
            if not rows:
                continue
            any_rows = True
            header = [nfc(v) for v in rows[0]]
            if not required or _has_columns(header, required):
                chosen = name
                break
        if chosen is None:
            if required and any_rows:
                raise InputError("xlsx_no_sheet", file=file, sheets=", ".join(names))
            raise InputError("empty_file", file=file)
        _check_formulas(formulas[chosen], rows, file, chosen)
    except InputError:
        raise
    except Exception as exc:  # noqa: BLE001 - hostile workbooks
        raise InputError("bad_xlsx", file=file, detail=type(exc).__name__)
    finally:
        values.close()
        formulas.close()
    others = tuple(n for n in names if n != chosen)
    table = _cells_from_rows(rows, file, encoding="xlsx", delimiter=None,
                             sheet=chosen, other_sheets=others)
    if table.empty:
        raise InputError("header_only", file=file)
    return table


def _xlsx_rows(ws, file: str, max_columns: int, max_cells: int) -> list[list[str]]:
    """The sheet's rows as text, counted while streaming: the declared size
    (``<dimension>``) comes from the file and may be missing or false, so every row read
    counts (at least one cell, so millions of empty rows count too) and reading stops once
    more than ``max_cells`` data cells or a row wider than ``max_columns`` is seen. The
    first row is the header and is not counted, as in a CSV file (``check_shape``)."""
    rows: list[list[str]] = []
    cells = 0
    for lineno, row in enumerate(ws.iter_rows(values_only=True), start=1):
        if len(row) > max_columns:
            raise InputError("too_many_columns", file=file, row=lineno,
                             count=f"{len(row):,}", limit=f"{max_columns:,}")
        if lineno > 1:  # the header row names the columns; the cap counts data cells
            cells += max(len(row), 1)
        if cells > max_cells:
            raise InputError("too_many_cells", file=file, row=lineno, limit=f"{max_cells:,}")
        rows.append(["" if v is None else _xlsx_text(v) for v in row])
    return rows


def _xlsx_text(value) -> str:
    """A cell value as text: whole floats without '.0' (Excel stores 1 as 1.0)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _check_formulas(ws, rows: list[list[str]], file: str, sheet: str) -> None:
    """A formula cell with no cached value (written by a script, never opened in Excel) reads
    as blank; say so instead of treating it as a missing value."""
    ws.reset_dimensions()  # read the cells there are, as ``_xlsx_rows`` did
    for r, row in enumerate(ws.iter_rows(values_only=True)):
        if r >= len(rows):
            break
        for c, v in enumerate(row):
            if isinstance(v, str) and v.startswith("=") and \
                    (c >= len(rows[r]) or rows[r][c] == ""):
                raise InputError("xlsx_formula_no_value", file=file, row=r + 1,
                                 column=openpyxl_column(c + 1), sheet=sheet,
                                 formula=v[:40])


def openpyxl_column(index: int) -> str:
    """1 -> 'A', 27 -> 'AA' (the column letters Excel shows)."""
    from openpyxl.utils import get_column_letter

    return get_column_letter(index)
