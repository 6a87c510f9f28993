"""Peak memory the benchmarks report, measured in the process that did the work (issue 25).

``ru_maxrss`` is the wrong tool here: on Linux it survives ``exec``, so a child started from a
large parent (``bench/run.py`` after a few benchmarks holds hundreds of MB; ``subprocess``
spawns through ``vfork``) reports the *parent's* high-water mark, and a "growth" computed from
two such readings is 0. ``VmHWM`` in ``/proc/self/status`` belongs to the address space, which
``exec`` replaces, and writing ``5`` to ``/proc/self/clear_refs`` resets it to the current RSS
(Linux >= 4.0, ``Documentation/filesystems/proc.rst``), so one process can measure the peak of
one call.

* ``peak_mb()`` / ``reset_peak()``: the current process's high-water mark, and its reset.
* ``run_process(args)``: a command run as a child through ``bench/peak_launcher.py``, which
  runs it in-process (``runpy``) and writes its own ``VmHWM`` at exit; CPU time comes from
  ``os.wait4`` on that one child (user + system, all threads).
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
LAUNCHER = HERE / "peak_launcher.py"


def _status_kb(field: str) -> int:
    with open("/proc/self/status") as fh:
        return int(re.search(rf"{field}:\s+(\d+)", fh.read()).group(1))


def peak_mb() -> float:
    """This process's peak resident memory (``VmHWM``), MiB."""
    return _status_kb("VmHWM") / 1024


def rss_mb() -> float:
    """This process's resident memory now (``VmRSS``), MiB."""
    return _status_kb("VmRSS") / 1024


def reset_peak() -> bool:
    """Reset ``VmHWM`` to the current RSS; False where the kernel does not allow it (then
    ``peak_mb`` keeps the earlier high-water mark and growth figures are upper bounds)."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


@dataclass(frozen=True)
class ProcessRun:
    """One child process: CPU seconds (user + system), wall seconds, its own peak RSS (MiB)."""

    cpu: float
    wall: float
    peak_mb: float


def run_process(args: list[str], *, cwd=None, env=None) -> ProcessRun:
    """Run ``python <args>`` (``args`` as after ``python``: ``["-m", "core", ...]`` or
    ``["-c", code]``) in a child, stdout discarded; return its CPU, wall and peak memory."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "peak.json"
        env = {**(os.environ if env is None else env), "NOISEFLOOR_BENCH_PEAK": str(out)}
        env.setdefault("PYTHONPATH", str(HERE.parent))
        t = time.perf_counter()
        proc = subprocess.Popen([sys.executable, str(LAUNCHER), *args], cwd=cwd, env=env,
                                stdout=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode not in (0, 2):
            raise subprocess.CalledProcessError(proc.returncode, args)
        peak = json.loads(out.read_text())["peak_mb"]
    return ProcessRun(usage.ru_utime + usage.ru_stime, wall, peak)
