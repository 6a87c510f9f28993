"""One way to start the app for a real browser: ``streamlit run app.py`` on a free local port,
waited for until ``/_stcore/health`` answers, stopped (terminate, then kill) on the way out.
Used by the browser tests (``tests/browser/helpers.py``, fixture ``server``) and by
``bench/bench_first_verdict.py``; both drive Debian's Chromium with ``CHROMIUM_ARGS``."""
from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


class ServerFailed(RuntimeError):
    """The server exited or did not answer its health check in time; the message ends with
    the tail of its log."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 free at the time of asking."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def streamlit_server(cwd: Path, log_path: Path, *, env: dict | None = None,
                     python: str | Path = sys.executable, timeout: float = 60.0,
                     stop_timeout: float = 10.0):
    """Run ``python -m streamlit run app.py`` in ``cwd`` (headless, no usage statistics, no
    file watcher) with its output in ``log_path``; yield ``(base_url, process)`` once the
    health check answers "ok". ``ServerFailed`` when it exits first or ``timeout`` seconds
    pass. On exit the server is terminated (killed after ``stop_timeout`` seconds)."""
    port = free_port()
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [str(python), "-m", "streamlit", "run", "app.py", "--server.port", str(port),
             "--server.headless", "true", "--server.address", "127.0.0.1",
             "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
            cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT)
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + timeout
            while True:
                if proc.poll() is not None:
                    raise ServerFailed(f"streamlit exited with {proc.returncode}:\n"
                                       + _tail(log_path))
                try:
                    with urllib.request.urlopen(f"{base}/_stcore/health", timeout=2) as r:
                        if r.read().strip() == b"ok":
                            break
                except OSError:
                    pass
                if time.monotonic() > deadline:
                    raise ServerFailed(f"streamlit did not answer /_stcore/health within "
                                       f"{timeout:g} s:\n" + _tail(log_path))
                time.sleep(0.3)
            yield base, proc
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=stop_timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)


def _tail(path: Path) -> str:
    return Path(path).read_text(errors="replace")[-3000:]
