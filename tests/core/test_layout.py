"""The shape of the house: computation in ``core``, presentation in ``core/views``.

These tests read the source (``ast``), so a new module that breaks a rule fails here.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "core"
VIEWS = CORE / "views"
HEX = re.compile(r"#[0-9a-fA-F]{6}\b")


def _modules(folder: Path):
    return sorted(p for p in folder.rglob("*.py") if ".venv" not in p.parts)


def _imports(path: Path) -> set[str]:
    """Top-level package names a module imports, anywhere in it (lazy imports included)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.add(node.module.split(".")[0])
    return out


def _imported_modules(path: Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
    return out


def test_no_domain_module_imports_altair():
    offenders = [str(p.relative_to(ROOT)) for p in _modules(CORE)
                 if VIEWS not in p.parents and "altair" in _imports(p)]
    assert offenders == [], f"altair belongs in core/views only: {offenders}"


def test_core_never_imports_streamlit_or_pages():
    offenders = [str(p.relative_to(ROOT)) for p in _modules(CORE)
                 if {"streamlit", "pages"} & _imports(p)]
    assert offenders == []


def test_domain_modules_do_not_import_views():
    """Imports run downward: views may use the domain modules, never the other way round
    (commands, the CLI shell, may use both). The verdict sentences live in
    ``core.views.verdicts``; no domain module is exempt."""
    offenders = [str(p.relative_to(ROOT)) for p in _modules(CORE)
                 if VIEWS not in p.parents and (CORE / "commands") not in p.parents
                 and any(m.startswith("core.views") for m in _imported_modules(p))]
    assert offenders == [], offenders


def test_colours_come_from_the_palette():
    offenders = []
    for p in _modules(CORE) + _modules(ROOT / "pages") + [ROOT / "app.py"]:
        if p == VIEWS / "palette.py":
            continue
        for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
            if HEX.search(line):
                offenders.append(f"{p.relative_to(ROOT)}:{i}")
    assert offenders == [], f"use core.views.palette: {offenders}"


def test_the_confidence_label_is_written_once():
    pattern = re.compile(r":g\}%")
    offenders = [f"{p.relative_to(ROOT)}" for p in _modules(CORE) + _modules(ROOT / "pages")
                 if p != VIEWS / "format.py" and pattern.search(p.read_text(encoding="utf-8"))]
    assert offenders == [], f"use core.views.format.level: {offenders}"


# Modules split by concern (issue 14: agreement, BEIR table, latency, statistics) stay near
# 400 lines; no module in core grows past 550 (a 1,000-line module holds several concerns).
SPLIT = ("agreement", "beir_grid", "beir_table", "beir_upload", "latency", "stats", "paired",
         "rank_similarity")
SPLIT_MAX, CORE_MAX = 420, 550


def _lines(p: Path) -> int:
    return len(p.read_text(encoding="utf-8").splitlines())


def test_split_modules_stay_small():
    big = {str(p.relative_to(ROOT)): _lines(p) for p in _modules(CORE)
           if p.stem.startswith(SPLIT) and _lines(p) > SPLIT_MAX}
    assert big == {}, f"split by concern, none over ~400 lines: {big}"


def test_no_core_module_holds_several_concerns():
    big = {str(p.relative_to(ROOT)): _lines(p) for p in _modules(CORE) if _lines(p) > CORE_MAX}
    assert big == {}, big


def test_the_compare_path_imports_no_heavy_library():
    """``python -m core compare`` on 0/1 data needs neither scipy, numba nor altair: the
    statistics modules import them lazily (the CLI's start-up time, ``bench/bench_cli.py``)."""
    import subprocess
    import sys
    code = ("import sys, core.paired, core.golden, core.commands.compare; "
            "print(sorted(m for m in ('scipy', 'numba', 'altair') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout.strip()
    assert out == "[]"


def _inline_type_checks(path: Path) -> list[int]:
    """Lines of ``if ... isinstance(...) ...: raise ValueError(...)``: an argument check written
    in place instead of through ``core.checks``. (Checks of uploaded data raise ``InputError``
    and are not argument checks.)"""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.If):
            continue
        uses_isinstance = any(isinstance(n, ast.Call) and getattr(n.func, "id", "") == "isinstance"
                              for n in ast.walk(node.test))
        raises_value_error = any(
            isinstance(s, ast.Raise) and isinstance(s.exc, ast.Call)
            and getattr(s.exc.func, "id", "") == "ValueError" for s in node.body)
        if uses_isinstance and raises_value_error:
            out.append(node.lineno)
    return out


# Parsers of cell contents: their ValueError is caught and becomes an InputError naming the
# row and column, so the type test there is about uploaded data, not about an argument.
DATA_PARSERS = {"lists.py"}


def test_argument_types_are_checked_in_core_checks():
    offenders = [f"{p.relative_to(ROOT)}:{line}" for p in _modules(CORE)
                 if p != CORE / "checks.py" and str(p.relative_to(CORE)) not in DATA_PARSERS
                 for line in _inline_type_checks(p)]
    assert offenders == [], f"use core.checks (instance, whole, number, text, ...): {offenders}"


def test_benchmarks_name_only_what_core_has():
    """Benchmarks import core lazily, inside functions and in code strings run as children,
    so a renamed module would only show when ``make bench`` runs: every ``from core.x import
    a, b`` and ``import core.x`` written in ``bench/`` must resolve now."""
    import importlib
    pattern = re.compile(r"from (core(?:\.\w+)*) import \(?([\w, \n]+?)\)?(?:\s*#|$|\")|"
                         r"import ((?:core(?:\.\w+)*(?:, )?)+)", re.M)
    missing = []
    for path in sorted((ROOT / "bench").glob("*.py")):
        for m in pattern.finditer(path.read_text(encoding="utf-8")):
            if m.group(1):
                mod = importlib.import_module(m.group(1))
                for name in (n.strip() for n in m.group(2).replace("\n", " ").split(",")):
                    if name and not hasattr(mod, name):
                        missing.append(f"{path.name}: {m.group(1)}.{name}")
            else:
                for name in filter(None, (n.strip() for n in m.group(3).split(","))):
                    try:
                        importlib.import_module(name)
                    except ImportError:
                        missing.append(f"{path.name}: {name}")
    assert missing == []


def test_the_cli_benchmark_imports_what_the_command_imports():
    import subprocess
    import sys
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import bench_cli
    finally:
        sys.path.remove(str(ROOT / "bench"))
    subprocess.run([sys.executable, "-c", bench_cli.IMPORTS_ONLY], cwd=ROOT, check=True)


# ----------------------------------------------------------------------------- private names
# A name with one leading underscore is private to its module; a module with one is private
# to its package (``core/_kernels.py``: the numba kernels of the statistics modules;
# ``core/commands/_common.py``: skipped by the CLI's command discovery; ``pages/_ui.py``:
# not a page). app.py is the app's first page, so it shares the pages' helpers.
PACKAGE_FRIENDS = {"pages": {"app"}}
PROJECT = ("core", "pages", "bench")


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _is_module(dotted: str) -> bool:
    path = ROOT.joinpath(*dotted.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _may_use_private_module(importer: str, dotted: str) -> bool:
    """``importer`` (dotted) lies in the package that holds the private module ``dotted``."""
    parts = dotted.split(".")
    first = next(i for i, p in enumerate(parts) if _private(p))
    package = ".".join(parts[:first])
    return (importer == package or importer.startswith(package + ".")
            or importer in PACKAGE_FRIENDS.get(package, ()))


def private_imports(source: str, importer: str) -> list[str]:
    """Uses of another module's private names in ``source`` (the module ``importer``):
    ``from core.x import _y``, ``import core._x`` outside its package, ``core.x._y``
    (an attribute of an imported project module)."""
    out = []
    modules = {}  # local name -> dotted project module it is bound to
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            if node.module.split(".")[0] not in PROJECT:
                continue
            if any(_private(p) for p in node.module.split(".")) and \
                    not _may_use_private_module(importer, node.module):
                out.append(f"{node.lineno}: from {node.module} import ...")
            for a in node.names:
                full = f"{node.module}.{a.name}"
                if _is_module(full):
                    modules[a.asname or a.name] = full
                if not _private(a.name):
                    continue
                if _is_module(full) and _may_use_private_module(importer, full):
                    continue  # a package's private module, used inside the package
                out.append(f"{node.lineno}: from {node.module} import {a.name}")
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] not in PROJECT:
                    continue
                if any(_private(p) for p in a.name.split(".")) and \
                        not _may_use_private_module(importer, a.name):
                    out.append(f"{node.lineno}: import {a.name}")
                modules[a.asname or a.name.split(".")[0]] = a.asname and a.name or \
                    a.name.split(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            chain, v = [node.attr], node.value
            while isinstance(v, ast.Attribute):
                chain.append(v.attr)
                v = v.value
            if isinstance(v, ast.Name) and v.id in modules:
                dotted = ".".join([modules[v.id], *reversed(chain)])
                owner = dotted.rsplit(".", 1)[0]
                if owner != importer and not (_is_module(dotted) and
                                              _may_use_private_module(importer, dotted)):
                    out.append(f"{node.lineno}: {v.id}.{'.'.join(reversed(chain))}")
    return out


def _project_files():
    files = _modules(CORE) + _modules(ROOT / "pages") + _modules(ROOT / "bench")
    return files + [ROOT / "app.py"]


def _dotted(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_no_private_name_is_imported_across_modules():
    """A helper two modules share gets a public name and a docstring (or moves): private
    names stay in their module, private modules in their package. Tests may use the
    privates of the module they test."""
    offenders = [f"{p.relative_to(ROOT)}:{hit}" for p in _project_files()
                 for hit in private_imports(p.read_text(encoding="utf-8"), _dotted(p))]
    assert offenders == [], offenders


@pytest.mark.parametrize("source,importer,caught", [
    ("from core.stats import _interval", "core.paired", True),
    ("from core.stats import kernels, _kernels", "core.paired", True),
    ("import core.stats\ncore.stats._interval(1)", "core.paired", True),
    ("from core import stats\nstats._kernels()", "core.paired_tests", True),
    ("from core import _kernels", "pages.golden", True),
    ("from core._kernels import _splitmix", "core.latency_resample", True),
    ("from core.commands._common import print_json", "core.views.golden", True),
    ("from pages._ui import tr", "core.golden", True),
    # allowed: public names, a private module inside its package, own privates, non-project
    ("from core import _kernels", "core.stats", False),
    ("from core._kernels import splitmix", "core.latency_resample", False),
    ("from core.commands._common import print_json", "core.commands.compare", False),
    ("from pages._ui import tr", "pages.golden", False),
    ("from pages._ui import tr", "app", False),
    ("from numpy import _NoValue\nimport numpy as np\nnp._x", "core.stats", False),
    ("def _f(): pass\nclass A:\n    def g(self): return self._h", "core.stats", False),
])
def test_the_private_name_check_catches_what_it_should(source, importer, caught):
    assert bool(private_imports(source, importer)) is caught


# ----------------------------------------------------------------------------- a test file each
TESTS = ROOT / "tests" / "core"


def expected_test_file(path: Path) -> str | None:
    """The test file of a core module (``tests/core/`` mirrors ``core/``):
    ``core/x.py`` -> ``test_x.py`` (``core/_kernels.py`` -> ``test_kernels.py``);
    ``core/views/x.py`` -> ``test_views_x.py``, or ``test_x.py`` when there is no
    ``core/x.py``; ``core/commands/x.py`` -> ``test_cli_x.py``; ``core/__main__.py`` ->
    ``test_cli.py``; a package's ``__init__.py`` that defines anything -> ``test_<package>.py``
    (``core/i18n`` -> ``test_i18n.py``). None for an ``__init__.py`` that only names its
    package."""
    rel = path.relative_to(CORE)
    parts = list(rel.with_suffix("").parts)
    if parts[-1] == "__init__":
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if not any(isinstance(n, (ast.FunctionDef, ast.ClassDef)) for n in tree.body):
            return None
        return f"test_{parts[-2] if len(parts) > 1 else 'core'}.py"
    if parts == ["__main__"]:
        return "test_cli.py"
    name = parts[-1].lstrip("_")
    if parts[0] == "commands":
        return f"test_cli_{name}.py"
    if parts[0] == "views":
        if (TESTS / f"test_views_{name}.py").exists() or (CORE / f"{name}.py").exists():
            return f"test_views_{name}.py"
        return f"test_{name}.py"
    return f"test_{name}.py"


def _tests_module(test: Path, path: Path) -> bool:
    """The test file imports the module (or, for a command, runs it by its name)."""
    dotted = _dotted(path)
    package, _, leaf = dotted.rpartition(".")
    tree = ast.parse(test.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(a.name == dotted for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == dotted or (node.module == package and
                                         any(a.name == leaf for a in node.names)):
                return True
    if package == "core.commands":
        name = next((n.value.value for n in ast.parse(path.read_text(encoding="utf-8")).body
                     if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "NAME"),
                    None)
        return name is not None and f'"{name}"' in test.read_text(encoding="utf-8")
    return False


def test_every_core_module_has_its_test_file():
    """One test file per module, named after it, that imports it: a number on screen is
    traceable page -> core function -> its test (STYLE.md)."""
    missing, unused = [], []
    for path in _modules(CORE):
        name = expected_test_file(path)
        if name is None:
            continue
        test = TESTS / name
        if not test.exists():
            missing.append(f"{path.relative_to(ROOT)} -> tests/core/{name}")
        elif not _tests_module(test, path):
            unused.append(f"tests/core/{name} does not import {_dotted(path)}")
    assert missing == [] and unused == [], missing + unused


def test_the_test_file_rule_maps_as_documented():
    assert expected_test_file(CORE / "_kernels.py") == "test_kernels.py"
    assert expected_test_file(CORE / "__main__.py") == "test_cli.py"
    assert expected_test_file(CORE / "commands" / "_common.py") == "test_cli_common.py"
    assert expected_test_file(CORE / "views" / "golden.py") == "test_views_golden.py"
    assert expected_test_file(CORE / "views" / "report.py") == "test_report.py"
    assert expected_test_file(CORE / "i18n" / "__init__.py") == "test_i18n.py"
    assert expected_test_file(CORE / "__init__.py") is None
