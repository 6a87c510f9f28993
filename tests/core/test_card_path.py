"""The path of the card's number (docs/CONTRIBUTING.md, issue 31): the project files on the call
stack whenever a function that makes or carries B − A of the demo file returns, recorded with
``sys.setprofile`` (and ``threading.setprofile`` for the page's script thread) on ``python -m
core compare data/demo_golden.csv --json`` and on the golden page under AppTest. Stacks that
pass through the self-check, each method's own interval, No harm or the HTML report carry other
numbers and are left out. The issue asks for at most 8 files end to end; the caps below are
today's measured counts (a ratchet: the test fails when the path grows), with CONTRIBUTING
naming each file."""
import contextlib
import io
import os
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CARRIERS = {"read_cells", "paired_data", "bootstrap_difference", "table_interval", "settle",
            "paired_view", "card_html", "show_card"}
JSON_CARRIERS = {"to_dict", "compare_summary", "to_json", "print_json"}
OTHER = ("core/paired/calibration.py", "core/paired/method_intervals.py",
         "core/paired/harm.py", "core/views/report.py")
CLI_FILES = 8   # the target is 8
PAGE_FILES = 8   # the target is 8


def _recorder(carriers):
    files = set()
    root = str(ROOT) + os.sep

    def profile(frame, event, arg):
        if event != "return" or frame.f_code.co_name not in carriers:
            return
        stack, f = [], frame
        while f is not None:
            path = f.f_code.co_filename
            if (path.startswith(root) and f"{os.sep}.venv{os.sep}" not in path
                    and not path.startswith(str(ROOT / "tests"))):
                stack.append(Path(path).relative_to(ROOT).as_posix())
            f = f.f_back
        if stack and not any(o in stack for o in OTHER):
            files.update(stack)
    return files, profile


def test_the_cli_path_of_the_number(monkeypatch):
    from core.__main__ import main

    monkeypatch.chdir(ROOT)
    files, profile = _recorder(CARRIERS | JSON_CARRIERS)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        sys.setprofile(profile)
        try:
            code = main(["compare", "data/demo_golden.csv", "--json"])
        finally:
            sys.setprofile(None)
    assert code == 0 and '"b_minus_a"' in out.getvalue()
    assert {"core/inputs/golden.py", "core/paired/difference.py", "core/serialize.py"} <= files
    assert len(files) <= CLI_FILES, "\n".join(sorted(files))


def test_the_page_path_of_the_card():
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    # The page caches its one call (st.cache_data, one cache per process): an earlier page test
    # in this worker would leave the number already made, and the path would skip core.
    st.cache_data.clear()
    files, profile = _recorder(CARRIERS)
    threading.setprofile(profile)
    sys.setprofile(profile)
    try:
        at = AppTest.from_file(str(ROOT / "pages" / "golden.py"), default_timeout=120).run()
    finally:
        sys.setprofile(None)
        threading.setprofile(None)
    assert not at.exception
    assert {"pages/golden.py", "pages/_ui.py", "core/views/paired.py",
            "core/paired/difference.py"} <= files
    assert len(files) <= PAGE_FILES, "\n".join(sorted(files))
