"""Time to the first verdict on a fresh clone (issue 37): the scifact page opened in a real
browser on a server started from a new ``git clone`` of this checkout, until the paired
verdict card is on screen.

A fresh clone has no unpacked scifact folder (the page unpacks ``data/beir/scifact.tar.gz``)
and no embedding cache; the numba kernels are the ones ``make run``'s warm-up compiled into
the venv's cache (``core.kernel_cache``), as on a fresh clone after ``make run``. The shipped
document and query vectors are spot-checked (32 documents and 32 queries encoded live, in the
server's dense job, once BM25's card is drawn). The clock starts when the browser asks for ``/scifact``
(the server already answers ``/_stcore/health``) and stops when a verdict card other than
BM25's waiting card is visible; the time to BM25's card is printed too. The reference, in the
same run, is a second visit to the same server (everything loaded and cached). Printed: wall
seconds, the server process's CPU seconds over the visit (``/proc/<pid>/stat``), the 1-minute
load average before and after, and the number of cores: on a shared machine the load says
how quiet it was.

Goal: <= 15 s wall on a quiet 2-core machine. Run: ``python bench/bench_first_verdict.py``
(uses the checkout's ``.venv`` Python and ``/usr/bin/chromium``; a minute or two);
``NOISEFLOOR_BENCH_SHOTS=/tmp/first`` also saves screenshots of the first visit.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.streamlit_server import CHROMIUM, CHROMIUM_ARGS, streamlit_server  # noqa: E402

TARGET_S = 15.0
# the paired verdict: a card that is not BM25's waiting card ("scifact.waiting_card_label")
VERDICT = """() => [...document.querySelectorAll('.verdict-card')].some(
    c => c.getBoundingClientRect().height > 0 && !c.innerText.includes('BM25 alone'))"""
WAITING = """() => [...document.querySelectorAll('.verdict-card')].some(
    c => c.getBoundingClientRect().height > 0)"""


def _cpu_seconds(pid: int) -> float:
    """utime + stime of ``pid`` (all its threads), from /proc/<pid>/stat."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _visit(browser, url: str, pid: int, shots: str = "") -> dict:
    """Open ``url`` in a new 1280x720 page; seconds to BM25's card and to the verdict
    (with ``shots``, a path prefix: screenshots of both moments)."""
    page = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
    cpu0, load0, t0 = _cpu_seconds(pid), os.getloadavg()[0], time.perf_counter()
    page.goto(url)
    page.wait_for_function(WAITING, timeout=900_000, polling=100)
    first_card = time.perf_counter() - t0
    if shots:
        page.wait_for_timeout(1500)
        page.screenshot(path=f"{shots}_waiting.png")
    page.wait_for_function(VERDICT, timeout=900_000, polling=100)
    verdict = time.perf_counter() - t0
    if shots:
        page.screenshot(path=f"{shots}_verdict.png")
    out = {"card_s": first_card, "verdict_s": verdict, "cpu_s": _cpu_seconds(pid) - cpu0,
           "load_before": load0, "load_after": os.getloadavg()[0]}
    page.context.close()
    return out


def main(argv: list[str] | None = None) -> int:
    from playwright.sync_api import sync_playwright

    python = ROOT / ".venv" / "bin" / "python"
    python = python if python.exists() else Path(sys.executable)
    with tempfile.TemporaryDirectory() as tmp:
        clone = Path(tmp) / "clone"
        subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
        env = {k: v for k, v in os.environ.items()
               if not k.startswith("NOISEFLOOR_")}   # the clone's own data/ and cache
        # the same start as the browser tests' server (bench.streamlit_server); a stop
        # mid-encode may take a while to end cleanly, so it gets a minute
        with streamlit_server(clone, Path(tmp) / "server.log", env=env, python=python,
                              timeout=120, stop_timeout=60) as (base, server):
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
                first = _visit(browser, f"{base}/scifact", server.pid,
                               os.environ.get("NOISEFLOOR_BENCH_SHOTS", ""))
                again = _visit(browser, f"{base}/scifact", server.pid)
                browser.close()
        times = clone / "data" / "cache" / "step_times.json"   # core.retrieval.encode_job's record
        steps = json.loads(times.read_text()) if times.is_file() else {}
    cores = os.cpu_count()
    print(f"bench_first_verdict: fresh clone, scifact page, {cores} cores")
    print(f"  first visit: BM25's card after {first['card_s']:.1f} s, the verdict after "
          f"{first['verdict_s']:.1f} s wall ({first['verdict_s'] / TARGET_S:.2f}x of the "
          f"{TARGET_S:g} s goal); server CPU {first['cpu_s']:.1f} s; load average "
          f"{first['load_before']:.1f} -> {first['load_after']:.1f}")
    print(f"  second visit (reference, warm): verdict after {again['verdict_s']:.1f} s wall, "
          f"server CPU {again['cpu_s']:.1f} s -> first/second "
          f"{first['verdict_s'] / again['verdict_s']:.1f}x")
    print("  steps of the first visit (core.retrieval.encode_job.record_seconds): " + ", ".join(
        f"{k.split('|')[0]} {v:.1f} s" for k, v in steps.items()))
    print(f"  server exit code {server.returncode} (0: a clean stop)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
