"""TREC run files and qrels: read them (plain or ``.gz``), score each query with ir_measures.

Formats (whitespace-separated, one judgement or retrieved document per line)::

    run:    qid Q0 docid rank score tag       (trec_eval's format; ``rank`` is ignored)
    qrels:  qid 0 docid rel                   (``rel`` an integer; > 0 means relevant)

Per-query values come from ``ir_measures`` with its pytrec_eval provider (Van Gysel &
de Rijke 2018; MacAvaney et al. 2022), i.e. trec_eval's definitions: a run is ordered by
score (descending), ties by doc id (descending). Measures pytrec_eval lacks (``RR@10``) go
through ir_measures' default pipeline, exactly as ``ir_measures.iter_calc`` does. Measures
are ir_measures strings (``nDCG@10``, ``R@100``, ``RR@10``, ``P@10``, ``AP``), parsed as
data, never evaluated.

Nothing is dropped silently: queries judged in the qrels but absent from a run score 0 (as
``trec_eval -c``) and are listed; run queries without judgements are listed and ignored;
a run that lists a document twice for one query is refused, naming the run, query and
document (trec_eval refuses it too; ir_measures would silently keep the last line's score).
Uploads are parsed as text, never executed.
"""
from __future__ import annotations

import csv
import io
import re
import zlib
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import PurePath

import ir_measures
import numpy as np

from core import checks
from core.errors import InputError
from core.inputs.golden import GoldenSet, check_method_names
from core.inputs.golden_cases import CaseScores, CaseText
from core.inputs.metrics import parse_measure
from core.inputs.tables import AmbiguousNumber, parse_number, parse_numbers
from core.inputs.text import nfc, visible_controls

MAX_UNCOMPRESSED = 2 * 1024 ** 3  # a .gz that inflates beyond 2 GiB is refused
MAX_SHOWN = 20
# a control character (``core.tables.CONTROLS``) in UTF-8: C0 but tab/LF/CR, DEL, C1
_CONTROL_BYTES = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]|\xc2[\x80-\x9f]")
RUN_COLUMNS = ("query_id", "q0", "doc_id", "rank", "score", "tag")
QRELS_COLUMNS = ("query_id", "iteration", "doc_id", "relevance")
COMMON_MEASURES = ("nDCG@10", "R@100", "RR@10", "P@10", "AP", "R@10", "nDCG@100",
                   "Success@10")


# ----------------------------------------------------------------------------- bytes
def gunzip(data: bytes, file: str) -> bytes:
    """Inflate gzip bytes (by their magic number, not the file name); others unchanged.

    Inflation is bounded (``MAX_UNCOMPRESSED``) so a tiny hostile upload cannot fill memory.
    """
    if not isinstance(data, (bytes, bytearray)):
        raise InputError("not_bytes", file=file)
    if data[:2] != b"\x1f\x8b":
        return bytes(data)
    out, rest = [], bytes(data)
    total = 0
    try:
        while rest:  # concatenated gzip members are legal
            d = zlib.decompressobj(16 + zlib.MAX_WBITS)
            chunk = d.decompress(rest, MAX_UNCOMPRESSED - total + 1)
            total += len(chunk)
            if total > MAX_UNCOMPRESSED or d.unconsumed_tail:
                raise InputError("systems.err_gz_too_large",
                                 file=file, limit_gb=MAX_UNCOMPRESSED // 1024 ** 3)
            out.append(chunk)
            rest = d.unused_data
            if not d.eof:
                raise InputError("systems.err_gz", file=file, detail="truncated file")
    except zlib.error as exc:
        raise InputError("systems.err_gz", file=file, detail=str(exc)) from None
    return b"".join(out)


def _text_bytes(data: bytes, file: str) -> bytes:
    raw = gunzip(data, file)
    if raw[:3] == b"\xef\xbb\xbf":
        raw = raw[3:]
    if not raw.strip():
        raise InputError("empty_file", file=file)
    if b"\x00" in raw[:8192]:
        raise InputError("binary_file", file=file)
    return raw


def _locate_bad_line(raw: bytes, file: str, n_fields: int, numeric: dict[int, str],
                     kind: str) -> InputError:
    """The first line that does not have ``n_fields`` fields or a number where one belongs."""
    names = RUN_COLUMNS if kind == "run" else QRELS_COLUMNS
    for no, line in enumerate(io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8",
                                                errors="replace"), start=1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != n_fields:
            return InputError(f"systems.err_{kind}_fields", file=file, row=no,
                              n=len(parts), line=line.strip()[:80])
        for pos, typ in numeric.items():
            try:
                v = parse_number(parts[pos]) if typ == "float" else int(parts[pos])
            except AmbiguousNumber as exc:
                return InputError("ambiguous_number", file=file, row=no, column=names[pos],
                                  value=parts[pos][:40], decimal=exc.decimal,
                                  thousands=exc.thousands, count=1)
            except ValueError:
                return InputError(f"systems.err_{kind}_number", file=file, row=no,
                                  column=names[pos], value=parts[pos][:40])
            if typ == "float" and not np.isfinite(v):
                return InputError(f"systems.err_{kind}_number", file=file, row=no,
                                  column=names[pos], value=parts[pos][:40])
    return InputError(f"systems.err_{kind}_fields", file=file, row=None, n="?", line="")


# up to this many bytes (uncompressed) a file is first read by the plain-Python reader
# (``_plain_columns``), above it by pandas' C parser (``_pandas_columns``), which also reads
# every file the plain reader declines and names a bad line. Measured (docs/speed.md): plain
# ~0.09 s CPU per MB, pandas ~0.016 s per MB + ~0.34 s to import it, so the plain reader wins
# up to ~4.5 MB while pandas is not yet imported; 1 MiB bounds its cost to ~0.1 s a file (the
# demo's runs are 0.14 MB each)
PLAIN_MAX_BYTES = 1024 ** 2
# a number the plain reader converts itself: at most 15 digits and no exponent, so Python's
# correctly rounded ``float`` and pandas' C parser (exact below 2**53 and 10**22) agree
_PLAIN_FLOAT = re.compile(r"-?(?=[0-9.]{1,15}$)(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")
_PLAIN_INT = re.compile(r"-?[0-9]{1,15}")
_WS = re.compile(r"[ \t]+")


def _read_columns(raw: bytes, file: str, names: tuple[str, ...], use: list[int],
                  dtypes: dict, numeric: dict[int, str], kind: str) -> dict[str, list]:
    """The used columns as lists (``{name: [value per line]}``; numbers as ``float``/``int``):
    ``_plain_columns`` for a small clean file, else ``_pandas_columns``; then ids holding a
    control character made visible (``core.tables.visible_controls``, as every table cell
    is): the check is one scan of the bytes, so clean files pay nothing more."""
    cols = _plain_columns(raw, names, use, numeric) if len(raw) <= PLAIN_MAX_BYTES else None
    if cols is None:
        cols = _pandas_columns(raw, file, names, use, dtypes, numeric, kind)
    if _CONTROL_BYTES.search(raw):
        for i in use:
            if i not in numeric:
                cols[names[i]] = [visible_controls(v) for v in cols[names[i]]]
    return cols


def _plain_columns(raw: bytes, names: tuple[str, ...], use: list[int],
                   numeric: dict[int, str]) -> dict[str, list] | None:
    """The plain-Python reader of a clean file (no pandas): lines split on runs of spaces and
    tabs (pandas' ``\\s+``), blank lines skipped, every line exactly ``len(names)`` fields,
    numbers in the plain form ``_PLAIN_FLOAT``/``_PLAIN_INT`` accepts. ``None`` for anything
    else (bad UTF-8, a NUL, a short or long line, any other number spelling): the pandas reader
    then reads the file and names what is wrong, so both readers agree by construction on
    every file this one refuses (tests/core/inputs/test_trec_readers.py checks both)."""
    if b"\x00" in raw or b"\r" in raw or _CONTROL_BYTES.search(raw):
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if "\u2028" in text or "\u2029" in text:  # str.splitlines would end a line there
        return None
    n_fields = len(names)
    out: list[list] = [[] for _ in use]
    conv = [(numeric.get(i), _PLAIN_FLOAT if numeric.get(i) == "float" else _PLAIN_INT)
            for i in use]
    for line in text.splitlines():
        parts = _WS.split(line.strip(" \t"))
        if len(parts) != n_fields:
            if parts == [""]:
                continue
            return None
        for col, i, (typ, pattern) in zip(out, use, conv):
            v = parts[i]
            if typ is None:
                col.append(v)
            elif pattern.fullmatch(v) is None:
                return None
            else:
                col.append(float(v) if typ == "float" else int(v))
    if not out[0]:
        return None
    return {names[i]: col for i, col in zip(use, out)}


def _pandas_columns(raw: bytes, file: str, names: tuple[str, ...], use: list[int],
                    dtypes: dict, numeric: dict[int, str], kind: str) -> dict[str, list]:
    """``_parse_columns`` (pandas' C parser) as lists; an integer column (``relevance``) read
    as pandas reads numbers (``pd.to_numeric``), a non-integer one naming its line."""
    import pandas as pd  # lazy: only for a large file or one the plain reader refuses

    frame = _parse_columns(raw, file, names, use, dtypes, numeric, kind)
    cols = {}
    for i in use:
        c = names[i]
        if numeric.get(i) == "int":
            rel = pd.to_numeric(frame[c], errors="coerce")
            if (rel.isna() | (rel != rel.round())).any():
                raise _locate_bad_line(raw, file, n_fields=len(names), numeric=numeric,
                                       kind=kind)
            cols[c] = rel.astype(int).tolist()
        else:
            cols[c] = frame[c].tolist()
    return cols


def _parse_columns(raw: bytes, file: str, names: tuple[str, ...], use: list[int],
                   dtypes: dict, numeric: dict[int, str], kind: str):
    """Fast path: pandas' C parser on single spaces, reading only the needed columns, then a
    separator count (``(fields - 1) * lines`` spaces) proves every line had all its fields.
    Otherwise (tabs, runs of spaces, a bad line) every column is read with ``\\s+``, and any
    problem is re-found line by line to name the line and column."""
    import pandas as pd

    cols = [names[i] for i in use]
    n_fields = len(names)
    if b"\t" not in raw and b"\r" not in raw and not raw[:1].isspace():
        try:
            frame = pd.read_csv(io.BytesIO(raw), sep=" ", header=None, names=list(names),
                                usecols=cols, dtype={names[i]: t for i, t in dtypes.items()},
                                engine="c", skip_blank_lines=True, na_filter=False,
                                quoting=csv.QUOTE_NONE)
            if raw.count(b" ") == (n_fields - 1) * len(frame) and len(frame):
                return frame
        except (pd.errors.ParserError, ValueError, UnicodeDecodeError):
            pass
    try:
        frame = pd.read_csv(io.BytesIO(raw), sep=r"\s+", header=None, names=list(names),
                            dtype=str, engine="c", skip_blank_lines=True, na_filter=False,
                            quoting=csv.QUOTE_NONE)
    except (pd.errors.ParserError, ValueError, UnicodeDecodeError):
        raise _locate_bad_line(raw, file, n_fields, numeric, kind) from None
    if frame.empty:
        raise InputError("empty_file", file=file)
    if (frame[names[-1]] == "").any():  # a short line
        raise _locate_bad_line(raw, file, n_fields, numeric, kind)
    frame = frame[cols]
    for pos, typ in numeric.items():
        if typ == "float":  # a decimal comma (12,5) is read as core.inputs.tables reads cells
            try:
                conv = parse_numbers(frame[names[pos]], file=file, column=names[pos])
            except InputError:  # an ambiguous 1,234: the line-by-line pass names its line
                conv = np.array([np.nan])
            if np.isnan(conv).any():
                raise _locate_bad_line(raw, file, n_fields, numeric, kind)
            frame = frame.assign(**{names[pos]: conv})
    return frame


# ----------------------------------------------------------------------------- runs
@dataclass(frozen=True)
class Run:
    """One system's retrieved documents: the one run type of the codebase (``core.inputs.trec``
    reads TREC runs into it, ``core.agreement.files.load_run`` reads TREC runs and
    ``query_id, doc_id, rank`` tables into it).

    ``docs[qid] = {doc_id: score}`` is the form ir_measures and pytrec_eval take; a rank
    table is stored with score ``-rank``, so the trec_eval order (score descending, then doc
    id descending) is its rank order. ``lines``: lines or rows read; ``format``: ``"trec"``
    or ``"table"``. A (query, doc) appears once: the readers refuse a repeated one.
    """

    name: str
    file: str
    docs: dict = field(repr=False)
    lines: int
    format: str = "trec"

    @property
    def queries(self) -> list[str]:
        return list(self.docs)

    @property
    def n_queries(self) -> int:
        return len(self.docs)

    def ranked(self, query_id: str, k: int | None = None) -> list[tuple[str, float]]:
        """(doc, score) in trec_eval order: score descending, then doc id descending."""
        items = sorted(self.docs.get(query_id, {}).items(), key=lambda x: (x[1], x[0]),
                       reverse=True)
        return items if k is None else items[:k]

    @cached_property
    def ranking(self) -> dict[str, list[str]]:
        """``ranking[qid]`` = doc ids, best first (the order of ``ranked``), computed once:
        the form ``core.inputs.metrics.per_query`` and the agreement levels 3-4 take."""
        return {q: [d for d, _ in self.ranked(q)] for q in self.docs}

    def renamed(self, name: str) -> "Run":
        """The same run under another name (to make names unique)."""
        return replace(self, name=name)


def run_name(file: str) -> str:
    """A display name from a file name: ``runs/bm25.run.gz`` -> ``bm25`` (``nfc``: control
    characters made visible, as in every name read from a table)."""
    name = PurePath(str(file)).name
    name = re.sub(r"(\.gz)$", "", name, flags=re.I)
    name = re.sub(r"\.(run|txt|trec|tsv|res)$", "", name, flags=re.I)
    return nfc(name or str(file))


def read_run(data: bytes, file: str, name: str | None = None) -> Run:
    """Bytes of a TREC run (``qid Q0 docid rank score tag``; plain or gzip) -> ``Run``.

    Raises ``InputError`` naming the file and line of the first malformed line (wrong number
    of fields, a score that is not a finite number), and ``systems.err_run_duplicate`` naming
    the run, the first query and document listed twice and how many lines repeat one.
    """
    raw = _text_bytes(data, file)
    cols = _read_columns(raw, file, RUN_COLUMNS, [0, 2, 4],
                         {0: str, 2: str, 4: "float64"}, {4: "float"}, "run")
    if not np.all(np.isfinite(cols["score"])):
        raise _locate_bad_line(raw, file, 6, {4: "float"}, "run")
    qids = np.array(cols["query_id"], dtype=object)
    docs_col = cols["doc_id"]
    scores = cols["score"]
    # group lines by query (runs are normally already grouped; stable sort otherwise)
    change = np.flatnonzero(qids[1:] != qids[:-1]) + 1
    starts = np.concatenate(([0], change))
    ends = np.concatenate((change, [len(qids)]))
    if len(set(qids[starts].tolist())) != len(starts):  # a query appears in several blocks
        order = np.argsort(qids, kind="stable")
        qids = qids[order]
        docs_col = [docs_col[i] for i in order]
        scores = [scores[i] for i in order]
        change = np.flatnonzero(qids[1:] != qids[:-1]) + 1
        starts = np.concatenate(([0], change))
        ends = np.concatenate((change, [len(qids)]))
    name = nfc(name) if name else run_name(file)
    docs: dict[str, dict[str, float]] = {}
    repeated, first = 0, None
    for s, e in zip(starts.tolist(), ends.tolist()):
        q = qids[s]
        d = dict(zip(docs_col[s:e], scores[s:e]))
        if len(d) != e - s:
            repeated += (e - s) - len(d)
            if first is None:
                seen: set = set()
                doc = next(x for x in docs_col[s:e] if x in seen or seen.add(x))
                first = (q, doc)
        docs[q] = d
    if first is not None:
        raise InputError("systems.err_run_duplicate", file=file, run=name, query=first[0],
                         doc=first[1], count=repeated)
    return Run(name, file, docs, len(docs_col))


def read_qrels(data: bytes, file: str) -> dict[str, dict[str, int]]:
    """Bytes of TREC qrels (``qid 0 docid rel``; plain or gzip) -> ``{qid: {doc: rel}}``.

    A repeated (query, doc) judgement with a different grade is an ``InputError``.
    """
    raw = _text_bytes(data, file)
    cols = _read_columns(raw, file, QRELS_COLUMNS, [0, 2, 3],
                         {0: str, 2: str, 3: str}, {3: "int"}, "qrels")
    triples = list(zip(cols["query_id"], cols["doc_id"], cols["relevance"]))
    grades: dict[tuple[str, str], set] = {}
    for q, d, r in triples:
        grades.setdefault((q, d), set()).add(r)
    if len(grades) != len(triples):  # a repeated judgement: refused when its grades differ
        clash = sorted(k for k, g in grades.items() if len(g) > 1)
        if clash:
            q, d = clash[0]
            raise InputError("systems.err_qrels_conflict", file=file, query=q, doc=d,
                             count=len(clash))
    out: dict[str, dict[str, int]] = {}
    for q, d, r in triples:
        out.setdefault(q, {})[d] = r
    return out


# ----------------------------------------------------------------------------- measures
def parse_measures(texts) -> list:
    """Measure names -> measure objects ir_measures can compute; ``InputError`` else.

    Names the metric registry knows (``core.inputs.metrics.parse_measure``: ``ndcg@10``,
    ``mrr@10``, ``hit@10``, ...) are turned into their ir_measures spelling (``nDCG@10``,
    ``RR@10``, ``Success@10``); anything else is ir_measures' own measure grammar
    (``P(rel=2)@10``, ``Judged@10``, ...)."""
    if isinstance(texts, str):
        texts = [t for t in re.split(r"[,\s]+", texts) if t]
    out = []
    for text in texts:
        text = str(text).strip()
        try:
            text = parse_measure(text).ir_measures or text
        except ValueError:
            pass  # not a registry name: ir_measures' grammar decides below
        try:
            m = ir_measures.parse_measure(text)
        except (ValueError, SyntaxError, NameError, TypeError, AttributeError):
            raise InputError("systems.err_measure", measure=str(text)[:40],
                             examples=", ".join(COMMON_MEASURES)) from None
        if not ir_measures.DefaultPipeline.supports(m):
            raise InputError("systems.err_measure", measure=str(text)[:40],
                             examples=", ".join(COMMON_MEASURES))
        out.append(m)
    if not out:
        raise InputError("systems.err_measure", measure="", examples=", ".join(COMMON_MEASURES))
    return out


@dataclass(frozen=True)
class TrecScores:
    """Per-query values of one or more runs on the judged queries.

    ``arrays[measure]`` is a ``CaseScores`` (every judged query, sorted, x one column per run;
    no pandas), ``values[measure]`` the same as a pandas frame indexed by ``query_id``, built
    on first access. ``missing[run]``: judged queries the run does not contain (scored 0).
    ``unjudged[run]``: run queries without qrels (ignored). ``no_relevant``: judged queries
    with no document judged relevant (every measure is 0 there; kept, as trec_eval does).
    """

    arrays: dict = field(repr=False)
    runs: tuple[Run, ...] = field(repr=False)
    qrels: dict = field(repr=False)
    qrels_file: str
    missing: dict
    unjudged: dict
    no_relevant: tuple[str, ...]

    @cached_property
    def values(self) -> dict:
        """{measure: a pandas frame, judged queries x runs} (pandas imported here only)."""
        import pandas as pd

        return {m: pd.DataFrame(cs.values.copy(), index=pd.Index(list(cs.ids), name="query_id"),
                                columns=list(cs.methods)) for m, cs in self.arrays.items()}

    @property
    def measures(self) -> list[str]:
        return list(self.arrays)

    @property
    def names(self) -> list[str]:
        return [r.name for r in self.runs]

    def means(self):
        """Mean over judged queries (a pandas frame): one row per run, one column per measure."""
        import pandas as pd

        return pd.DataFrame({m: v.mean() for m, v in self.values.items()})

    def to_dict(self) -> dict:
        """{measure: {run: mean over judged queries}}: ``means`` without pandas, to the bit
        (every judged query has a value; the frame's one block is the transpose of this
        C-ordered array, so pandas, like this, adds the queries row by row in their order)."""
        return {m: dict(zip(cs.methods, np.ascontiguousarray(cs.values).sum(axis=0)
                            / len(cs.ids))) for m, cs in self.arrays.items()}

    def golden(self, measure: str | None = None) -> GoldenSet:
        """One measure's per-query values (default: the first) as a ``GoldenSet`` for
        ``core.inputs.systems.compare_golden``: queries are the cases, runs the methods."""
        measure = self.measures[0] if measure is None else measure
        if measure not in self.arrays:
            raise InputError("systems.err_measure", measure=str(measure)[:40],
                             examples=", ".join(self.measures))
        cs = self.arrays[measure]
        check_method_names(list(cs.methods), self.qrels_file)  # a run named 'difference'
        return GoldenSet(replace(cs, values=cs.values.copy()), CaseText(cs.ids, {}),
                         f"{self.qrels_file} [{measure}]", "trec")

    def report(self) -> dict:
        return {"judged": len(next(iter(self.arrays.values())).ids),
                "missing_from_run": {k: list(v) for k, v in self.missing.items()},
                "without_qrels": {k: list(v) for k, v in self.unjudged.items()},
                "no_relevant": list(self.no_relevant)}


def unique_names(runs) -> list[Run]:
    """Rename runs whose names clash (``bm25``, ``bm25 (2)``) so each column is unique."""
    seen: dict[str, int] = {}
    out = []
    for r in runs:
        n = seen.get(r.name, 0) + 1
        seen[r.name] = n
        out.append(r if n == 1 else r.renamed(f"{r.name} ({n})"))
    return out


def _provider(ms):
    """pytrec_eval (trec_eval's code) when it computes every measure; otherwise ir_measures'
    default pipeline, which picks a provider per measure (e.g. ``RR@10`` from its msmarco
    provider, as ``ir_measures.iter_calc`` would)."""
    if all(ir_measures.pytrec_eval.supports(m) for m in ms):
        return ir_measures.pytrec_eval
    return ir_measures.DefaultPipeline


def score_runs(runs, qrels: dict, measures, *, qrels_file: str = "qrels") -> TrecScores:
    """Per-query values of each measure for each run, from ``ir_measures`` (pytrec_eval).

    Judged queries missing from a run get 0 (``trec_eval -c``); both lists are reported.
    """
    runs = unique_names(checks.nonempty("runs", runs, what="Run"))
    if not qrels:
        raise InputError("header_only", file=qrels_file)
    ms = parse_measures(measures)
    qids = sorted(qrels)
    judged = set(qids)
    row = {q: i for i, q in enumerate(qids)}
    values = {str(m): np.zeros((len(qids), len(runs))) for m in ms}
    missing, unjudged = {}, {}
    for j, r in enumerate(runs):
        in_run = set(r.docs)
        miss = sorted(judged - in_run)
        extra = sorted(in_run - judged)
        if miss:
            missing[r.name] = tuple(miss)
        if extra:
            unjudged[r.name] = tuple(extra)
        run_docs = r.docs if not extra else {q: d for q, d in r.docs.items() if q in judged}
        for res in _provider(ms).iter_calc(ms, qrels, run_docs):
            values[str(res.measure)][row[res.query_id], j] = float(res.value)
    names = tuple(r.name for r in runs)
    # ``from_frame``: the values keep this C order in ``CaseScores.matrix`` (the order of the
    # per-query frame this table was, whose column sums in core.paired.best add row by row)
    arrays = {m: CaseScores(tuple(qids), names, v, index_name="query_id", from_frame=True)
              for m, v in values.items()}
    no_rel = tuple(q for q in qids if not any(v > 0 for v in qrels[q].values()))
    return TrecScores(arrays, tuple(runs), qrels, qrels_file, missing, unjudged, no_rel)


def _grade(judged: dict, doc: str) -> str:
    return str(judged[doc]) if doc and doc in judged else ""


def trec_side_by_side(scores: TrecScores, query_id: str, a: str, b: str, k: int = 10):
    """Top-k of runs ``a`` and ``b`` for one query, side by side (a pandas frame), with each
    doc's judgement as text (blank = not judged)."""
    import pandas as pd

    runs = {r.name: r for r in scores.runs}
    for name in (a, b):
        if name not in runs:
            raise InputError("unknown_method", method=name, methods=", ".join(runs))
    judged = scores.qrels.get(query_id, {})
    rows = []
    la, lb = runs[a].ranked(query_id, k), runs[b].ranked(query_id, k)
    for i in range(max(len(la), len(lb))):
        da = la[i][0] if i < len(la) else ""
        db = lb[i][0] if i < len(lb) else ""
        rows.append({"rank": i + 1, a: da, f"{a} rel": _grade(judged, da),
                     b: db, f"{b} rel": _grade(judged, db)})
    return pd.DataFrame(rows, columns=["rank", a, f"{a} rel", b, f"{b} rel"])
