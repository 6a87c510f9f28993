"""The checkout's setup promises (issue 22): the file watcher leaves the virtualenv, the cache
and the unpacked data alone, the README says what the tests need and cost, and the suite's
own state lives in a temporary folder, not in the checkout."""
import fnmatch
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

from tests.shared_data import ROOT


def test_the_file_watcher_skips_venv_cache_and_unpacked_data():
    cfg = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    server = cfg["server"]
    assert server["fileWatcherType"] == "poll"  # no recursive inotify watch of the checkout
    skipped = server["folderWatchBlacklist"]
    for folder in (".venv/lib/x.py", "data/cache/emb.npy", "data/beir/scifact/corpus.jsonl",
                   "data/beir/nfcorpus/queries.jsonl"):
        # the matching Streamlit does (streamlit.file_util.file_is_in_folder_glob)
        assert any(fnmatch.fnmatch(os.path.dirname(folder) + "/", g.rstrip("/") + "/*")
                   for g in skipped), folder
    assert not any(fnmatch.fnmatch("pages/", g.rstrip("/") + "/*") for g in skipped)


def test_readme_names_chromium_the_duration_and_the_install_size():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "Chromium" in text and "apt-get install chromium" in text
    assert re.search(r"\d+ minutes on 2 (quiet )?cores", text) and re.search(r"\d(\.\d)? GB", text)


def test_the_suite_keeps_its_state_out_of_the_checkout():
    import core.retrieval.beir
    import core.retrieval.search

    for path in (core.retrieval.search.CACHE_DIR, core.retrieval.beir.BEIR_ROOT):
        assert not Path(path).resolve().is_relative_to(ROOT), path
    assert core.retrieval.beir.BUNDLE.is_relative_to(ROOT)  # the shipped archive is only read


def _readme_cli_lines() -> list[str]:
    """The command lines of the README's ```bash blocks that run the CLI."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```bash\n(.*?)```", text, flags=re.S)
    return [line.split("#")[0].strip() for block in blocks for line in block.splitlines()
            if "-m core" in line or line.startswith("make cli")]


def test_readme_cli_lines_run_as_pasted_with_the_venv_python():
    """Issue 37: `python -m core ... --help` failed with the system Python. Every CLI line of
    the README names the checkout's `.venv/bin/python` (what `make run`/`make test` create),
    and each one's `--help` exits 0 run from the checkout with that Python (``sys.executable``
    under `make test`), printing its usage."""

    lines = [x for x in _readme_cli_lines() if not x.startswith("make ")]
    assert len(lines) >= 7
    commands = set()
    for line in lines:
        assert line.startswith(".venv/bin/python -m core "), line
        argv = line.split()[3:]
        assert argv[-1] == "--help", line
        done = subprocess.run([sys.executable, "-m", "core", *argv], cwd=ROOT,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, (line, done.stderr[-500:])
        assert done.stdout.startswith("usage: python -m core " + argv[0]), line
        commands.add(argv[0])
    from core.__main__ import _command_modules
    assert commands == {m.replace("_", "-") for m in _command_modules()}  # every command


def test_make_cli_runs_the_cli_with_the_venv_python_and_port_is_documented():
    """`make cli ARGS="..."` (in the README) runs `$(PY) -m core $(ARGS)`; `make run` takes
    PORT and the README says so."""

    assert any(x.startswith('make cli ARGS="') for x in _readme_cli_lines())
    dry = subprocess.run(["make", "-n", "cli", "ARGS=compare --help", "VENV=/nonexistent/v"],
                         cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert dry.returncode == 0, dry.stderr
    assert "/nonexistent/v/bin/python -m core compare --help" in dry.stdout
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "make run PORT=" in text
    run = subprocess.run(["make", "-n", "run", "PORT=8612", "VENV=/nonexistent/v"], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert "--server.port 8612" in run.stdout


def test_a_python_without_the_packages_gets_one_line_not_a_traceback():
    """The CLI run by a Python that lacks a package (here pandas hidden from the import
    system) prints one line naming the package and the Python to use, exit 2; a missing
    module of NoiseFloor itself stays a traceback (a bug)."""

    code = ("import sys; sys.modules['pandas'] = None; from core.__main__ import main; "
            "sys.exit(main(['beir-table', '--help']))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert "has no package 'pandas'" in done.stderr and ".venv/bin/python -m core" in done.stderr
    code = ("import sys; sys.modules['core.retrieval.beir_table'] = None; from core.__main__ import main; "
            "sys.exit(main(['beir-table', '--help']))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 1 and "Traceback" in done.stderr


def test_make_test_shares_the_cores_and_keeps_each_file_and_the_browser_on_one_worker(tmp_path):
    """`make test` runs pytest-xdist workers (`-n $(TEST_WORKERS)`, two by default) whose unit
    is tests/conftest.py's ``xdist_scope``: a file's module fixtures are computed once, every
    browser test shares the one app server, and numba's cache is compiled once for the files
    that test it. Checked by running xdist for real on a small tree (marks alone did nothing
    under pytest 9: browser tests ran on both workers)."""
    from tests.conftest import xdist_scope

    make = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "TEST_WORKERS ?= 2" in make and "-m pytest -n $(TEST_WORKERS) --dist loadscope" in make
    assert "pytest-xdist==" in (ROOT / "requirements.txt").read_text(encoding="utf-8")
    assert [xdist_scope(n) for n in (
        "tests/browser/test_e2e.py::a", "tests/browser/test_load.py::b[x::y]",
        "tests/core/test_kernel_cache.py::c", "tests/core/commands/test_warm_up.py::e",
        "tests/pages/test_golden.py::f[en]", "tests/core/test_errors.py::h")] == [
        "browser", "browser", "compiled_kernels", "compiled_kernels",
        "tests/pages/test_golden.py", "tests/core/test_errors.py"]

    (tmp_path / "tests" / "browser").mkdir(parents=True)
    (tmp_path / "tests" / "core").mkdir()
    (tmp_path / "pytest.ini").write_text("[pytest]\ntestpaths = tests\n", encoding="utf-8")
    (tmp_path / "conftest.py").write_text(
        "import importlib.util\n"
        f"spec = importlib.util.spec_from_file_location('nf_conftest', {str(ROOT / 'tests' / 'conftest.py')!r})\n"
        "nf = importlib.util.module_from_spec(spec)\nspec.loader.exec_module(nf)\n"
        "pytest_xdist_make_scheduler = nf.pytest_xdist_make_scheduler\n", encoding="utf-8")
    body = ("import os, time\n"
            "def test_{i}(tmp_path):\n    time.sleep(0.2)\n"
            "    open({log!r}, 'a').write('{name} ' + os.environ['PYTEST_XDIST_WORKER'] + '\\n')\n")
    log = tmp_path / "workers.log"
    for name, folder in (("a", "browser"), ("b", "browser"), ("c", "browser"), ("x", "core"),
                         ("y", "core")):
        text = "".join(body.format(i=i, log=str(log), name=f"{folder}/{name}") for i in range(3))
        (tmp_path / "tests" / folder / f"test_{name}.py").write_text(text, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "2", "--dist",
                           "loadscope", "-p", "no:cacheprovider"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    seen: dict[str, set] = {}
    for line in log.read_text(encoding="utf-8").splitlines():
        name, worker = line.split()
        seen.setdefault(name, set()).add(worker)
    assert len(seen) == 5 and all(len(w) == 1 for w in seen.values())   # a file on one worker
    assert len(seen["browser/a"] | seen["browser/b"] | seen["browser/c"]) == 1   # browser: one
