"""vl-convert in a separate process: a native crash in it costs one chart, never the caller.

vl-convert (Rust + V8) aborts the whole process on some inputs instead of raising (a C0
control character in a chart label did: issue 30), and a Streamlit server is one process for
every session. So charts are rendered by one persistent worker (``python -m
core.views.svg_worker``, started on first use, reused, restarted after a crash): the parent
sends a Vega-Lite spec as length-prefixed JSON on the worker's stdin and reads the SVG back
from its stdout. A worker that dies, answers garbage or takes longer than ``TIMEOUT`` seconds
raises ``ChartCrash`` for that chart, and the next chart starts a fresh worker.

Cost (``bench/bench_report.py``): the pipe adds about a millisecond to a chart that takes
vl-convert 100-150 ms; the worker is started once per process (about 1.5 s, the time
vl-convert's first chart takes in-process anyway) and holds vl-convert's memory instead of
the server.
"""
from __future__ import annotations

import atexit
import json
import os
import select
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

TIMEOUT = 120.0  # seconds for one chart (the largest report charts take ~1 s)
_HEADER = struct.Struct(">Q")  # 8-byte length prefix of each message
_ROOT = str(Path(__file__).resolve().parents[2])  # the folder holding the core package


class ChartCrash(RuntimeError):
    """The chart renderer died, hung, answered garbage or refused the spec; the message
    says which."""


# ----------------------------------------------------------------------------- the worker
def _read_exact(stream, n: int) -> bytes | None:
    buf = b""
    while len(buf) < n:
        chunk = stream.read(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return buf


def serve(stdin=None, stdout=None) -> None:
    """The worker's loop: one length-prefixed JSON spec in, one reply out
    (``{"svg": ...}`` or ``{"error": ...}`` for an ordinary exception), until stdin closes."""
    import vl_convert

    if stdout is None:  # the replies get fd 1 to themselves: stray prints go to stderr
        stdout = os.fdopen(os.dup(1), "wb")
        os.dup2(2, 1)
    stdin = stdin or sys.stdin.buffer
    while True:
        head = _read_exact(stdin, _HEADER.size)
        if head is None:
            return
        body = _read_exact(stdin, _HEADER.unpack(head)[0])
        if body is None:
            return
        try:
            reply = {"svg": vl_convert.vegalite_to_svg(json.loads(body))}
        except Exception as exc:  # noqa: BLE001 - an ordinary error goes back as text
            reply = {"error": f"{type(exc).__name__}: {exc}"}
        out = json.dumps(reply).encode("utf-8")
        stdout.write(_HEADER.pack(len(out)) + out)
        stdout.flush()


# ----------------------------------------------------------------------------- the client
class _Worker:
    """The one worker process of this process, shared by every thread (one chart at a time,
    under a lock: vl-convert renders one chart at a time in-process too)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen | None = None
        self.started = 0  # workers started so far (tests and the bench read it)

    def _start(self) -> subprocess.Popen:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (_ROOT, env.get("PYTHONPATH")) if p)
        self.started += 1
        return subprocess.Popen([sys.executable, "-m", "core.views.svg_worker"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, cwd=_ROOT, env=env,
                                start_new_session=True)  # a Ctrl-C aimed at the app is not its

    def _read(self, proc: subprocess.Popen, n: int, deadline: float, timeout: float) -> bytes:
        fd = proc.stdout.fileno()
        buf = b""
        while len(buf) < n:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise ChartCrash(f"the chart renderer took longer than {timeout:g} s")
            chunk = os.read(fd, n - len(buf))
            if not chunk:  # its end of the pipe closed: it is exiting, wait for its status
                try:
                    code = proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    code = None
                raise ChartCrash("the chart renderer stopped"
                                 + (f" (exit status {code})" if code is not None else ""))
            buf += chunk
        return buf

    def render(self, spec: dict, timeout: float) -> str:
        body = json.dumps(spec).encode("utf-8")
        with self._lock:
            if self._proc is None or self._proc.poll() is not None:
                self._proc = self._start()
            proc = self._proc
            try:
                proc.stdin.write(_HEADER.pack(len(body)) + body)
                proc.stdin.flush()
                deadline = time.monotonic() + timeout
                size = _HEADER.unpack(self._read(proc, _HEADER.size, deadline, timeout))[0]
                reply = json.loads(self._read(proc, size, deadline, timeout))
            except (OSError, ValueError, ChartCrash) as exc:
                self._stop(proc)
                if isinstance(exc, ChartCrash):
                    raise
                raise ChartCrash(f"the chart renderer stopped ({type(exc).__name__})") from None
        if "error" in reply:
            raise ChartCrash(f"the chart renderer refused the chart ({reply['error'][:200]})")
        return reply["svg"]

    def _stop(self, proc: subprocess.Popen) -> None:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        for stream in (proc.stdin, proc.stdout):
            try:
                stream.close()
            except OSError:
                pass
        if self._proc is proc:
            self._proc = None

    def close(self) -> None:
        with self._lock:
            if self._proc is not None:
                self._stop(self._proc)


_WORKER = _Worker()
atexit.register(_WORKER.close)


def render_svg(spec: dict, *, timeout: float = TIMEOUT) -> str:
    """The SVG text of a Vega-Lite ``spec`` (a JSON-able dict, checked by the caller), drawn
    by vl-convert in the worker process. Raises ``ChartCrash`` when the worker dies or hangs
    (it is restarted for the next chart) or vl-convert refuses the spec."""
    return _WORKER.render(spec, timeout)


def worker_pid() -> int | None:
    """The process id of the running worker, if one is running (the bench reads its memory)."""
    proc = _WORKER._proc
    return proc.pid if proc is not None and proc.poll() is None else None


def workers_started() -> int:
    """How many worker processes this process has started (1 unless one crashed)."""
    return _WORKER.started


if __name__ == "__main__":
    serve()
