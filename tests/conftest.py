"""Suite-wide settings. Translations are strict in tests: an unknown key or a template that
cannot be filled raises (``core.i18n.strict``) instead of showing "{n}" to a user. The
browser tests' server inherits the setting through the environment.

Tests leave the checkout alone: before any ``core`` module is imported, the embedding cache
(``NOISEFLOOR_CACHE_DIR``), the folder where BEIR collections are unpacked and listed
(``NOISEFLOOR_BEIR_ROOT``, normally ``data/beir/``) and the records of passed spot checks
(``NOISEFLOOR_SPOT_DIR``, normally in ``.venv``, ``core.retrieval.spot_record``) point into
one temporary folder for the session, removed at exit. The shipped files (``data/beir/scifact.tar.gz``, the shipped
vectors) are only read. The browser tests' server inherits both variables. Tests of numba's
compiled cache use a temporary ``NUMBA_CACHE_DIR`` (fixtures ``compiled_kernels``,
``numba_cache``); every other test loads the kernels ``make test``'s warm-up compiled."""
import atexit
import os
import shutil
import tempfile
from pathlib import Path

import pytest

os.environ.setdefault("NOISEFLOOR_STRICT_I18N", "1")

_STATE = Path(tempfile.mkdtemp(prefix="noisefloor-tests-"))
atexit.register(shutil.rmtree, _STATE, ignore_errors=True)
os.environ["NOISEFLOOR_CACHE_DIR"] = str(_STATE / "cache")
os.environ["NOISEFLOOR_BEIR_ROOT"] = str(_STATE / "beir")
os.environ["NOISEFLOOR_SPOT_DIR"] = str(_STATE / "spot-checks")


@pytest.fixture(autouse=True)
def _own_spot_records(monkeypatch, tmp_path_factory):
    """Each test starts with no spot check on record (``core.retrieval.spot_record``):
    tests hand fake models to loaders marked ``from_files``, whose passed checks would
    otherwise be recorded for the next test."""
    monkeypatch.setenv("NOISEFLOOR_SPOT_DIR", str(tmp_path_factory.mktemp("spot")))


SESSION_SPOT = _STATE / "spot-session"   # the spot checks the session's warm-up recorded


def _compile_kernels(cache: Path) -> dict:
    """``python -m core warm-up --json`` into an empty numba cache ``cache`` (and the spot
    checks into ``SESSION_SPOT``): its JSON."""
    import json
    import subprocess
    import sys
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, "-m", "core", "warm-up", "--json"], cwd=root,
                          env={**os.environ, "NUMBA_CACHE_DIR": str(cache),
                               "NOISEFLOOR_SPOT_DIR": str(SESSION_SPOT)},
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


@pytest.fixture(scope="session")
def compiled_kernels():
    """One numba cache compiled by ``warm-up`` for the whole session, in a temporary folder
    (tests of the cache itself never touch the real one): (folder, warm-up's JSON). The
    same warm-up records the shipped vectors' spot checks in ``SESSION_SPOT``."""
    cache = _STATE / "numba-session"
    return cache, _compile_kernels(cache)


@pytest.fixture
def spot_records(compiled_kernels, tmp_path):
    """A private copy of the spot checks the session's warm-up recorded."""
    folder = tmp_path / "spot"
    shutil.copytree(SESSION_SPOT, folder)
    return folder


@pytest.fixture
def numba_cache(compiled_kernels, tmp_path):
    """A private copy of the session's compiled cache (a test may damage it)."""
    cache = tmp_path / "numba"
    shutil.copytree(compiled_kernels[0], cache)
    return cache


_ROOT = Path(__file__).resolve().parent.parent
# the test files that use numba's compiled cache (fixture ``compiled_kernels``): one worker
_COMPILING = frozenset(p.relative_to(_ROOT).as_posix()
                       for p in (_ROOT / "tests").rglob("test_*.py")
                       if "compiled_kernels" in p.read_text(encoding="utf-8"))


def xdist_scope(nodeid: str) -> str:
    """The unit ``make test``'s pytest-xdist workers share out (``-n 2``): a whole test file
    (its module fixtures are computed once), every browser test together (they share one app
    server, ``app_servers``), and the files that test numba's compiled cache together (one
    ``compiled_kernels`` compile, about 20 s of CPU)."""
    path = nodeid.split("::", 1)[0]
    if path.startswith("tests/browser/"):
        return "browser"
    return "compiled_kernels" if path in _COMPILING else path


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """pytest-xdist's scope scheduler, with ``xdist_scope`` as the scope. (Marking items
    ``xdist_group`` for ``--dist loadgroup`` does nothing under pytest 9: xdist 3.8 renames
    ``item._nodeid``, which pytest 9 no longer reads, so browser tests ran on both workers,
    each with its own servers.) Without ``-n`` this hook is not called."""
    from xdist.scheduler import LoadScopeScheduling   # only under -n, where xdist is loaded

    class _Scheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return xdist_scope(nodeid)

    return _Scheduling(config, log)
