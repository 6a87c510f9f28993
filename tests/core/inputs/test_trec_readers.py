"""The two TREC readers of ``core.inputs.trec`` give the same runs, qrels and errors: the
plain-Python reader (``_plain_columns``, files up to ``PLAIN_MAX_BYTES``) and pandas' C parser
(``_pandas_columns``, larger files and every file the plain reader declines), on clean and
malformed inputs alike."""
import gzip
from pathlib import Path

import numpy as np
import pytest

import core.inputs.trec as trec
from core.errors import InputError

ROOT = Path(__file__).resolve().parents[3]
DEMO = ROOT / "data" / "demo_trec"


def _generated(seed: int) -> tuple[bytes, bytes]:
    rng = np.random.default_rng(seed)
    run, qrels = [], []
    for q in range(12):
        docs = rng.choice(80, size=int(rng.integers(1, 25)), replace=False)
        for rank, d in enumerate(docs, 1):
            score = rng.choice([round(float(rng.normal()), 4), float(rng.integers(-5, 30)),
                                round(float(rng.uniform(0, 1)), 12)])
            run.append(f"q{q} Q0 D{d:03d} {rank} {score} gen")
        for d in rng.choice(80, size=6, replace=False):
            qrels.append(f"q{q} 0 D{d:03d} {int(rng.integers(0, 3))}")
    return ("\n".join(run) + "\n").encode(), ("\n".join(qrels) + "\n").encode()


RUNS = {
    "demo bm25": (DEMO / "bm25.run").read_bytes(),
    "demo hybrid": (DEMO / "hybrid.run").read_bytes(),
    "generated": _generated(1)[0],
    "unsorted queries": b"q2 Q0 a 1 3 r\nq1 Q0 b 1 2.5 r\nq2 Q0 c 2 -.5 r\nq1 Q0 d 2 0 r\n",
    "tabs and runs of spaces": b"q1\tQ0\td1\t1\t3.0\tr\nq1  Q0 d2 2   2.0 r  \n",
    "blank lines": b"\nq1 Q0 d1 1 3.0 r\n\n  \nq1 Q0 d2 2 2 r\n",
    "no final newline": b"q1 Q0 d1 1 3.0 r\nq1 Q0 d2 2 2 r",
    "crlf": b"q1 Q0 d1 1 3.0 r\r\nq1 Q0 d2 2 2.0 r\r\n",
    "decimal comma": b"q1 Q0 d1 1 12,5 r\nq1 Q0 d2 2 2 r\n",
    "exponent": b"q1 Q0 d1 1 1e-3 r\nq1 Q0 d2 2 2E2 r\n",
    "many digits": b"q1 Q0 d1 1 0.12345678901234567 r\nq1 Q0 d2 2 123456789012345678 r\n",
    "plus sign": b"q1 Q0 d1 1 +1.5 r\n",
    "leading/trailing dot": b"q1 Q0 d1 1 5. r\nq1 Q0 d2 2 .5 r\nq1 Q0 d3 3 -0 r\n",
    "underscore": b"q1 Q0 d1 1 1_0 r\n",
    "quotes and hashes": b'q"1 Q0 d,1 1 3 #r\nq"1 Q0 \'d2\' 2 2 r\n',
    "unicode ids": "질의1 Q0 문서1 1 3 r\nq\u00a01 Q0 d\u2003 2 2 r\n".encode(),
    "line separator": "q1 Q0 d\u20281 1 3 r\n".encode(),
    "control characters": b"q\x1b1 Q0 d\x7f1 1 3 r\nq1 Q0 d\x0b2 2 2 r\n",
    "bom": b"\xef\xbb\xbfq1 Q0 d1 1 3 r\n",
    "gzip": gzip.compress(b"q1 Q0 d1 1 3 r\nq1 Q0 d2 2 2 r\n"),
    "nul after 8 KiB": b"q1 Q0 d1 1 3 r\n" * 700 + b"q1 Q0 d\x002 2 2 r\n",
    "bad utf-8": b"q1 Q0 d\xff1 1 3 r\n",
    "short line": b"q1 Q0 d1 1 3.0 r\nq1 Q0 d2 2 r\n",
    "long line": b"q1 Q0 d1 1 3.0 r\nq1 Q0 d2 2 3 r x\n",
    "word score": b"q1 Q0 d1 1 3.0 r\nq1 Q0 d2 2 abc r\n",
    "inf": b"q1 Q0 d1 1 3.0 r\n\nq1 Q0 d2 2 inf r\n",
    "nan with tabs": b"q1\tQ0\td1\t1\tnan\tr\n",
    "ambiguous thousands": b"q1 Q0 d1 1 1,234 r\n",
    "repeated document": b"q1 Q0 d1 1 3 r\nq1 Q0 d1 2 2 r\nq2 Q0 x 1 1 r\nq2 Q0 x 2 1 r\n",
    "blank only": b"\n \n\t\n",
    "empty": b"",
}
QRELS = {
    "demo qrels": (DEMO / "qrels.txt").read_bytes(),
    "generated": _generated(2)[1],
    "tabs, negative, zeros": b"q1\t0\td1\t-1\nq1 0 d2 007\nq2 0 d1 0\n",
    "repeated same grade": b"q1 0 d1 1\nq1 0 d1 1\n",
    "conflict": b"q2 0 d9 1\nq2 0 d9 2\nq1 0 d1 1\nq1 0 d1 0\nq1 0 d1 0\n",
    "grade 1.0": b"q1 0 d1 1.0\n",
    "grade 1.5": b"q1 0 d1 1.5\n",
    "grade word": b"q1 0 d1 1\nq1 0 d2 x\n",
    "three fields": b"q1 0 d1\n",
    "huge grade": b"q1 0 d1 12345678901234567890\n",
    "crlf": b"q1 0 d1 1\r\nq1 0 d2 0\r\n",
    "control characters": b"q\x1b1 0 d1 1\n",
    "not gzip": b"\x1f\x8bnot really gzip",
    "empty": b"",
}


def _outcome(read, data: bytes):
    try:
        got = read(data, "f.trec")
    except InputError as e:
        return ("error", e.code, e.file, e.row, e.column, e.params, str(e), e.message("ko"))
    if isinstance(got, trec.Run):
        return ("run", got.name, got.file, got.lines, got.format,
                {q: list(d.items()) for q, d in got.docs.items()})
    return ("qrels", {q: list(d.items()) for q, d in got.items()})


def _both(monkeypatch, read, data: bytes):
    monkeypatch.setattr(trec, "PLAIN_MAX_BYTES", 1 << 40)
    plain = _outcome(read, data)
    monkeypatch.setattr(trec, "PLAIN_MAX_BYTES", -1)
    frame = _outcome(read, data)
    return plain, frame


@pytest.mark.parametrize("name", sorted(RUNS))
def test_both_readers_give_the_same_run_or_error(monkeypatch, name):
    plain, frame = _both(monkeypatch, trec.read_run, RUNS[name])
    assert plain == frame
    if name.startswith(("demo", "generated")):
        assert plain[0] == "run"


@pytest.mark.parametrize("name", sorted(QRELS))
def test_both_readers_give_the_same_qrels_or_error(monkeypatch, name):
    plain, frame = _both(monkeypatch, trec.read_qrels, QRELS[name])
    assert plain == frame
    if name.startswith(("demo", "generated")):
        assert plain[0] == "qrels"


def test_the_plain_reader_reads_clean_files_and_declines_the_rest():
    """The small-file path is taken for the demo and plain files (so the TREC demo needs no
    pandas), and declines every form it does not read exactly as pandas does."""
    run_args = (trec.RUN_COLUMNS, [0, 2, 4], {4: "float"})
    for name in ("demo bm25", "generated", "unsorted queries", "tabs and runs of spaces",
                 "blank lines", "no final newline", "leading/trailing dot", "unicode ids"):
        raw = trec._text_bytes(RUNS[name], "f")
        assert trec._plain_columns(raw, *run_args) is not None, name
    for name in ("crlf", "decimal comma", "exponent", "many digits", "plus sign", "underscore",
                 "line separator", "control characters", "nul after 8 KiB", "bad utf-8",
                 "short line", "long line", "word score", "inf", "nan with tabs"):
        raw = trec._text_bytes(RUNS[name], "f")
        assert trec._plain_columns(raw, *run_args) is None, name
    cols = trec._plain_columns(b"q1 Q0 d1 1 -0.25 r\n", *run_args)
    assert cols == {"query_id": ["q1"], "doc_id": ["d1"], "score": [-0.25]}
    q = trec._plain_columns(trec._text_bytes(QRELS["demo qrels"], "f"), trec.QRELS_COLUMNS,
                            [0, 2, 3], {3: "int"})
    assert q is not None and all(type(r) is int for r in q["relevance"])
