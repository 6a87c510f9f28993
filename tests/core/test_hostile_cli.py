"""Hostile input, round 3 (issue 30), on the command line: every file read bounded, nothing
silent, no limit that cannot fail. Whole-process cases run ``python -m core`` as a child with
a timeout and read its own peak memory (``VmHWM`` through ``bench/peak_launcher.py``)."""
from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from core.__main__ import main

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "data" / "demo_golden.csv"
GB = 1024 ** 3


def _child(args, *, timeout: float = 60.0, stdin=None):
    """``python -m core *args``: (exit code, stdout, stderr, peak RSS in bytes); killed and
    failed when it runs longer than ``timeout`` seconds."""
    out, err = io.BytesIO(), io.BytesIO()
    import tempfile

    # the child's own peak (VmHWM, written at exit by bench/peak_launcher.py): wait4's
    # ru_maxrss starts from the forking parent's, and pytest is past 1 GB late in a full run
    peak_file = Path(tempfile.mkdtemp()) / "peak.json"
    env = {**os.environ, "NOISEFLOOR_BENCH_PEAK": str(peak_file), "PYTHONPATH": str(ROOT)}
    with tempfile.TemporaryFile() as fo, tempfile.TemporaryFile() as fe:
        proc = subprocess.Popen([sys.executable, str(ROOT / "bench" / "peak_launcher.py"),
                                 "-m", "core", *map(str, args)], cwd=ROOT, env=env,
                                stdout=fo, stderr=fe, stdin=stdin or subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                proc.kill()
                os.wait4(proc.pid, 0)
                pytest.fail(f"python -m core {' '.join(map(str, args))} ran past {timeout} s")
            time.sleep(0.05)
        proc.returncode = os.waitstatus_to_exitcode(status)
        fo.seek(0)
        fe.seek(0)
        out, err = fo.read().decode("utf-8", "replace"), fe.read().decode("utf-8", "replace")
    peak = json.loads(peak_file.read_text())["peak_mb"] * 2**20
    shutil.rmtree(peak_file.parent, ignore_errors=True)
    return proc.returncode, out, err, peak


def _one_line_refusal(code, out, err, peak, *, says: str):
    assert code == 2, (code, err)
    assert "Traceback" not in err and err.count("\n") == 1, err
    assert err.startswith("error: ") and says in err, err
    assert peak < GB, peak


# ----------------------------------------------------------------------------- item 2: reads
@pytest.fixture()
def zero_csv(tmp_path):
    link = tmp_path / "zero.csv"
    link.symlink_to("/dev/zero")
    return link


def test_dev_zero_behind_a_csv_name_is_refused_at_once(zero_csv):
    _one_line_refusal(*_child(["compare", zero_csv]), says="not a regular file")
    _one_line_refusal(*_child(["decide", "--quality", DEMO, "--latency", zero_csv,
                               "--margin", "0.05"]),
                      says="not a regular file")


def test_a_fifo_with_no_writer_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "timings.csv"
    os.mkfifo(fifo)
    _one_line_refusal(*_child(["latency", fifo], timeout=30), says="not a regular file")
    _one_line_refusal(*_child(["compare", "--format", "trec", "--qrels", fifo, DEMO],
                              timeout=30),
                      says="not a regular file")


def test_every_command_reads_through_the_bounded_reader(tmp_path, zero_csv, capsys):
    """In-process: each command and side file refuses a device in one line naming it."""
    runs = tmp_path / "a.run"
    runs.write_text("".join(f"q{i} Q0 d{i} 1 1.0 x\n" for i in range(6)))
    other = tmp_path / "b.run"
    other.write_text("".join(f"q{i} Q0 d{i + i % 2} 1 1.0 x\n" for i in range(6)))
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"q{i} 0 d{i} 1\n" for i in range(6)))
    calls = [["compare", zero_csv], ["latency", zero_csv], ["agreement", zero_csv],
             ["beir-table", "--add", zero_csv],
             ["compare", "--format", "trec", "--qrels", zero_csv, runs],
             ["compare", "--format", "trec", "--qrels", qrels, zero_csv],
             ["compare", "--format", "trec", "--qrels", qrels, runs, other, "--groups",
              zero_csv],
             ["decide", "--quality", DEMO, "--latency", zero_csv, "--margin", "0.05"],
             ["decide", "--quality", zero_csv, "--latency", DEMO, "--margin", "0.05"]]
    for call in calls:
        assert main([str(a) for a in call]) == 2, call
        err = capsys.readouterr().err
        assert f"{zero_csv}" in err and "not a regular file" in err, (call, err)
    assert main(["compare", str(tmp_path)]) == 2
    assert "folder" in capsys.readouterr().err


def test_the_byte_cap_is_50_mb_and_stated_in_the_readme(tmp_path, capsys):
    from core.commands._common import MAX_INPUT_BYTES

    assert MAX_INPUT_BYTES == 50 * 2 ** 20
    assert "50 MB" in (ROOT / "README.md").read_text(encoding="utf-8")
    big = tmp_path / "big.run"
    with open(big, "wb") as fh:
        fh.truncate(MAX_INPUT_BYTES + 1)  # sparse: no disk, no memory
    assert main(["compare", "--format", "trec", "--qrels", str(big), str(big)]) == 2
    err = capsys.readouterr().err
    assert "big.run" in err and "the limit is 50 MB" in err, err


def _lying_zip() -> bytes:
    """A workbook whose sheet's stored CRC-32 is wrong (the zip's header lies about it)."""
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["case_id", "A", "B"])
    for i in range(20):
        ws.append([f"c{i}", i % 2, (i // 2) % 2])
    buf = io.BytesIO()
    wb.save(buf)
    data = bytearray(buf.getvalue())
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as zf:
        info = zf.getinfo("xl/worksheets/sheet1.xml")
    # the CRC sits at offset 14 of the local header and 16 of the central directory entry
    crc = info.CRC.to_bytes(4, "little")
    wrong = ((info.CRC + 1) % 2 ** 32).to_bytes(4, "little")
    assert data.count(crc) >= 2
    return bytes(data).replace(crc, wrong)


def test_a_lying_zip_is_refused_in_one_line(tmp_path):
    path = tmp_path / "golden.xlsx"
    path.write_bytes(_lying_zip())
    _one_line_refusal(*_child(["compare", path]), says="golden.xlsx")


# ----------------------------------------------------------------------------- item 3: silence
def _csv(rows) -> str:
    return "\n".join(",".join(map(str, r)) for r in rows) + "\n"


def test_a_duplicate_document_in_a_run_is_refused_naming_it(tmp_path, capsys):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"q{i} 0 d{i} 1\n" for i in range(5)))
    a = tmp_path / "a.run"
    a.write_text("".join(f"q{i} Q0 d{i} 1 2.0 x\nq{i} Q0 e{i} 2 1.0 x\n" for i in range(5)))
    dup = tmp_path / "dup.run"
    dup.write_text("".join(f"q{i} Q0 e{i} 1 2.0 x\nq{i} Q0 d{i} 2 1.0 x\n" for i in range(5))
                   + "q3 Q0 e3 3 0.5 x\n")
    assert main(["compare", "--format", "trec", "--qrels", str(qrels), str(a), str(dup)]) == 2
    err = capsys.readouterr().err
    assert "'dup'" in err and "'e3'" in err and "'q3'" in err and "1 repeated line" in err


def test_an_all_blank_method_column_is_named_in_text_and_json(tmp_path, capsys):
    f = tmp_path / "g.csv"
    f.write_text(_csv([["case_id", "A", "B", "C"]] +
                      [[f"c{i}", i % 2, (i // 2) % 2, ""] for i in range(12)]))
    assert main(["compare", str(f), "--resamples", "200"]) == 0
    assert "column 'C' has no value in any row: not compared" in capsys.readouterr().out
    assert main(["compare", str(f), "--resamples", "200", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["empty_columns"] == ["C"]


def test_a_timing_logs_other_methods_are_named(tmp_path, capsys):
    f = tmp_path / "t.csv"
    rows = [["query_id", "method", "latency_ms"]]
    for q in range(20):
        rows += [[f"q{q}", "A", 50 + q], [f"q{q}", "B", 40 + q], [f"q{q}", "C", 30 + q]]
    f.write_text(_csv(rows))
    args = ["latency", str(f), "--resamples", "200", "--quantile-resamples", "200"]
    assert main(args) == 0
    assert "C is in the log and not compared; pick with --a/--b" in capsys.readouterr().out
    assert main(args + ["--json"]) == 0
    assert json.loads(capsys.readouterr().out)["not_compared"] == ["C"]


def test_a_closed_stdout_ends_quietly_with_the_sigpipe_status():
    """``compare ... | head -1`` under ``set -o pipefail``: the reader leaves; the command
    ends with 141 (128 + SIGPIPE, what the shell reports for ``yes | head -1``) and says
    nothing, never exit 2 "bad input"."""
    proc = subprocess.Popen([sys.executable, "-m", "core", "compare", str(DEMO)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # the reader is gone before anything is written
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 141, err
    assert err == ""
    shell = subprocess.run(["bash", "-o", "pipefail", "-c",
                            f"{sys.executable} -m core compare {DEMO} --json | head -c 1 "
                            ">/dev/null; echo $?"], cwd=ROOT, capture_output=True, text=True,
                           timeout=60)
    assert shell.stdout.strip() in {"0", "141"} and "error" not in shell.stderr, shell


# ----------------------------------------------------------------------------- item 4: limits
@pytest.fixture()
def scores_csv(tmp_path):
    f = tmp_path / "scores.csv"
    f.write_text(_csv([["case_id", "A", "B"]] +
                      [[f"c{i}", f"0.{(i * 37) % 90 + 5}", f"0.{(i * 53) % 90 + 5}"]
                       for i in range(30)]))
    return f


@pytest.mark.parametrize("margin", ["5", "1", "1e308"])
def test_a_margin_that_cannot_fail_is_refused(scores_csv, margin):
    code, out, err, _ = _child(["compare", scores_csv, "--margin", margin, "--resamples",
                                "200"])
    assert code == 2 and "can never be failed" in err and err.count("\n") == 1, err
    assert "Warning" not in err and "overflow" not in err


@pytest.mark.parametrize("margin", ["1_0pp", "０.０２", "٠٫٠٢", "0.0_2"])
def test_margin_text_with_other_digits_is_refused(margin, capsys):
    assert main(["compare", str(DEMO), "--margin", margin, "--resamples", "200"]) == 2
    assert "digits 0-9" in capsys.readouterr().err


@pytest.mark.parametrize("limit", ["1e308", "inf", "nan", "10.5", "0"])
def test_a_max_slowdown_that_cannot_fail_is_refused(tmp_path, limit, capsys):
    log = tmp_path / "t.csv"
    rows = [["query_id", "method", "latency_ms"]]
    for q in range(20):
        rows += [[f"q{q}", "title-only", 50 + q], [f"q{q}", "RRF", 40 + q]]
    log.write_text(_csv(rows))
    assert main(["decide", "--quality", str(DEMO), "--latency", str(log), "--margin", "0.05",
                 "--max-slowdown", limit, "--resamples", "200",
                 "--quantile-resamples", "200"]) == 2
    err = capsys.readouterr().err
    assert "between 0.1 and 10" in err and err.count("\n") == 1, err
