"""Work bounded within the caps (issue 21): every input inside the limits is answered or
refused in seconds, measured against an ordinary input in the same run.

1. An xlsx whose sheet has no ``<dimension>`` and 2,300,000 one-cell rows (the issue's file,
   generated): refused by ``core.inputs.tables.read_table`` while inflating, vs reading an ordinary
   1,000-row workbook. Before issue 21 this ran 748 s and peaked at 1.1 GB.
   Target: the refusal costs at most a few ordinary reads (ratio printed).
2. 997 method columns x 40 cases (the 1,000-column cap): ``core.paired.multi.plan_mode`` falls back
   to each method against the baseline (996 pairs); timed against all pairs of 10 methods
   (45 pairs) at the same resamples. Target: at most 30 s and ~ the pair ratio (996 / 45).
   Before issue 21 ``compare`` ran all ~500,000 pairs (4.8 GB after 120 s).
3. The whole CLI, ``python -m core compare FILE --json`` on a CSV with ``case_id`` and 999
   method columns x 40 cases (the widest file the 1,000-column cap admits) with the default
   20,000 resamples: a clear answer (each method against the baseline, with a note naming
   the limit) or a refusal naming the limit. Target (issue 25): <= 30 s CPU; reference in the
   same run: the same command on a 10-method file.
Peak memory of each is measured in a fresh subprocess (RSS high-water mark, ``VmHWM``).
"""
from __future__ import annotations

import io
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.memory import run_process  # noqa: E402

from core.errors import InputError  # noqa: E402
from core.paired.multi import compare_many, estimate_cost, plan_mode  # noqa: E402
from core.inputs.tables import read_table  # noqa: E402

RESAMPLES = 2_000


def _xlsx_rows(rows: int) -> bytes:
    """The hostile sheet (no <dimension>), as tests/core/test_hostile_reading.py builds it."""
    sys.path.insert(0, str(ROOT / "tests" / "core"))
    from test_hostile_reading import _xlsx_without_dimension

    return _xlsx_without_dimension(rows)


def _ordinary_xlsx(rows: int) -> bytes:
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["case_id", "A", "B"])
    for i in range(rows):
        ws.append([f"c{i}", i % 2, (i // 2) % 2])
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def _timed(fn) -> float:
    t = time.process_time()
    fn()
    return time.process_time() - t


def _refuse(data: bytes) -> None:
    try:
        read_table(data, "nodim.xlsx")
    except InputError as exc:
        assert exc.code == "too_many_cells", exc.code
    else:
        raise RuntimeError("the hostile workbook was read")


def _scores(k: int, n: int = 40) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame(rng.random((n, k)), columns=[f"m{j}" for j in range(k)])


def _many(k: int) -> None:
    scores = _scores(k)
    mode, cost = plan_mode(k, len(scores), RESAMPLES)
    compare_many(scores, mode=mode, resamples=RESAMPLES)


def _peak_mb(call: str) -> float:
    """Peak RSS (MB, ``VmHWM``: reset by exec, unlike ``ru_maxrss``) of a fresh interpreter
    running ``b.<call>`` with this file loaded as ``b``."""
    code = ("import importlib.util as u; s = u.spec_from_file_location('b', "
            f"{str(Path(__file__).resolve())!r}); b = u.module_from_spec(s); "
            f"s.loader.exec_module(b); b.{call}")
    prog = (f"import sys; sys.path.insert(0, {str(ROOT)!r}); {code}; import json, re; "
            "print(json.dumps(int(re.search(r'VmHWM:\\s+(\\d+)', "
            "open('/proc/self/status').read()).group(1)) / 1024))")
    out = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True,
                         check=True, cwd=ROOT)
    return float(json.loads(out.stdout.strip().splitlines()[-1]))


def main() -> None:
    hostile, ordinary = _xlsx_rows(2_300_000), _ordinary_xlsx(1_000)
    ref = min(_timed(lambda: read_table(ordinary, "ok.xlsx")) for _ in range(3))
    refuse = min(_timed(lambda: _refuse(hostile)) for _ in range(2))
    print(f"1. no-<dimension> xlsx, 2,300,000 rows ({len(hostile) / 2**20:.1f} MB): refused in "
          f"{refuse:.2f} s CPU = {refuse / ref:.1f}x an ordinary 1,000-row read ({ref:.2f} s)")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "nodim.xlsx"
        path.write_bytes(hostile)
        peak = _peak_mb(f"_refuse(open({str(path)!r}, 'rb').read())")
    print(f"   peak memory of the refusal: {peak:.0f} MB (fresh process reading the file)")
    big = estimate_cost(997, 40, RESAMPLES, plan_mode(997, 40, RESAMPLES)[0])
    small = estimate_cost(10, 40, RESAMPLES)
    t_small = min(_timed(lambda: _many(10)) for _ in range(2))
    t_big = _timed(lambda: _many(997))
    print(f"2. 997 methods x 40 cases, {RESAMPLES:,} resamples: mode {big.mode}, "
          f"{big.pairs:,} pairs in {t_big:.1f} s CPU; 10 methods ({small.pairs} pairs) "
          f"{t_small:.2f} s; time ratio {t_big / t_small:.1f}x for a pair ratio "
          f"{big.pairs / small.pairs:.1f}x")
    print(f"   peak memory: {_peak_mb('_many(997)'):.0f} MB "
          "(fresh process)")
    with tempfile.TemporaryDirectory() as tmp:
        runs = {}
        for k in (10, 999):
            path = Path(tmp) / f"wide_{k}.csv"
            frame = _scores(k).round(4)
            frame.insert(0, "case_id", [f"c{i}" for i in range(len(frame))])
            frame.to_csv(path, index=False)
            runs[k] = run_process(["-m", "core", "compare", str(path), "--json"], cwd=ROOT)
    r10, r999 = runs[10], runs[999]
    print(f"3. CLI compare, 999 method columns x 40 cases, 20,000 resamples: {r999.cpu:.1f} s "
          f"CPU (target <= 30 s), {r999.wall:.1f} s wall, peak {r999.peak_mb:.0f} MiB; "
          f"10 methods {r10.cpu:.2f} s -> {r999.cpu / r10.cpu:.1f}x")


if __name__ == "__main__":
    main()
