"""Where numba keeps NoiseFloor's compiled kernels and the check before they are trusted
(issue 38; ``python -m core warm-up``, ``core.commands.warm_up``, compiles them all once).

**Where.** The kernels (``KERNEL_MODULES``) are ``@njit(cache=True)``: numba keeps their
machine code in ``NUMBA_CACHE_DIR``, which ``core/__init__`` sets (``point_numba``) before numba
can be imported, to ``cache_root()``: ``<sys.prefix>/noisefloor-cache/numba`` (inside the
virtual environment, ``.venv``) or, when that is not a writable virtual environment,
``$XDG_CACHE_HOME/noisefloor/numba`` (``~/.cache/noisefloor/numba``). Never the checkout. A
``NUMBA_CACHE_DIR`` set before ``core`` is imported is kept (tests of the cache itself point it
at a temporary folder). numba files each kernel module's code under a folder named after the
module's directory (``core_<sha1 of its absolute path>``, ``kernel_folder``), so two checkouts
sharing one ``.venv`` never read each other's code.

**Trusted only after a check.** numba itself refuses an index written by another numba version
or for another source (its SHA-256). On top of that, the warm-up leaves a manifest
(``MANIFEST``) in the folder: the Python, numba, llvmlite and numpy versions, the SHA-256 of
the kernel modules' sources, of this file and of ``core/commands/warm_up.py`` (the recipe:
which signatures are compiled), and the SHA-256 of every file it
leaves there. Each kernel module calls ``prepare(__file__)`` before it defines a kernel
(after importing numba, which reads no compiled code before a kernel's first call);
``prepare`` reads the manifest (``status``) and removes the folder when it is damaged (a file
missing or changed, the manifest unreadable) or stale (another version or source), so numba
compiles afresh instead of loading machine code nobody can vouch for. A folder without a
manifest (kernels compiled on first use, before any warm-up) is left to numba's own checks
until the next warm-up, which removes it and compiles again.
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import sys
from pathlib import Path

KERNEL_MODULES = ("core._kernels", "core.latency.resample")
MANIFEST = "noisefloor-manifest.json"
MANIFEST_VERSION = 1
_LIBRARIES = ("numba", "llvmlite", "numpy")
_CACHED_SUFFIXES = (".nbi", ".nbc")
RECIPE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "commands", "warm_up.py")
_checked: dict[str, str] = {}   # folder -> status prepare() found (once per process)


def cache_root() -> Path:
    """The folder numba writes compiled kernels to: ``NUMBA_CACHE_DIR`` when set, else
    ``<sys.prefix>/noisefloor-cache/numba`` in a writable virtual environment, else
    ``$XDG_CACHE_HOME/noisefloor/numba`` (default ``~/.cache``)."""
    env = os.environ.get("NUMBA_CACHE_DIR")
    return Path(env) if env else default_root()


def default_root() -> Path:
    """``cache_root()`` when ``NUMBA_CACHE_DIR`` is not set (see the module docstring)."""
    if sys.prefix != sys.base_prefix and os.access(sys.prefix, os.W_OK):
        return Path(sys.prefix) / "noisefloor-cache" / "numba"
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "noisefloor" / "numba"


def point_numba() -> None:
    """Set ``NUMBA_CACHE_DIR`` to ``cache_root()`` unless it is set already; if numba was
    imported before (its configuration is read at import), set its configuration too."""
    os.environ.setdefault("NUMBA_CACHE_DIR", str(default_root()))
    config = getattr(sys.modules.get("numba.core.config"), "CACHE_DIR", None)
    if config is not None and config != os.environ["NUMBA_CACHE_DIR"]:
        sys.modules["numba.core.config"].CACHE_DIR = os.environ["NUMBA_CACHE_DIR"]


def quiet_threads() -> None:
    """Set ``OMP_WAIT_POLICY=PASSIVE`` unless it is set already (read when the OpenMP runtime
    loads, so before the first parallel kernel runs). numba's ``prange`` kernels run on
    OpenMP (``numba.threading_layer()`` is "omp" here), whose idle threads spin after every
    parallel region by default: at NoiseFloor's sizes that spinning costs more than the
    kernel (a bootstrap of 60 cases x 1,000 resamples: 4.5 ms of CPU per call spinning,
    0.22 ms passive, at load 12; the lists demo 1.8 -> 1.4 s of CPU, docs/speed.md). The
    threads and the numbers are the same; idle threads sleep instead of spinning."""
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def kernel_folder(module_file: str | os.PathLike) -> Path:
    """The folder numba keeps ``module_file``'s kernels in: ``<cache_root>/<dir>_<sha1>``,
    numba's own rule (``numba.core.caching._CacheLocator.get_suitable_cache_subpath``: the
    name of the module's directory and the SHA-1 of its absolute path)."""
    directory = os.path.dirname(os.path.abspath(module_file))
    name = os.path.split(directory)[-1]
    return cache_root() / f"{name}_{hashlib.sha1(directory.encode()).hexdigest()}"


def _module_file(name: str) -> str:
    return importlib.util.find_spec(name).origin


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def fingerprint(folder: Path) -> dict:
    """What the code in ``folder`` was compiled from and with: the Python and library
    versions and the SHA-256 of the kernel modules filed there, of this module and of
    ``RECIPE`` (the signatures warm-up compiles: a new one makes the folder stale, so the
    next warm-up compiles it instead of its first user)."""
    sources = sorted({f for f in map(_module_file, KERNEL_MODULES)
                      if kernel_folder(f).name == folder.name} | {os.path.abspath(__file__),
                                                                   RECIPE})
    digest = hashlib.sha256()
    for f in sources:
        digest.update(Path(f).read_bytes())
    libs = {}
    for lib in _LIBRARIES:   # the imported module's version, else the installed one's
        libs[lib] = getattr(sys.modules.get(lib), "__version__", None)
        if libs[lib] is None:   # warm-up's check: importlib.metadata, not numba (0.4 s)
            from importlib.metadata import PackageNotFoundError, version
            try:
                libs[lib] = version(lib)
            except PackageNotFoundError:
                pass
    return {"manifest": MANIFEST_VERSION, "python": sys.version, "libraries": libs,
            "sources": digest.hexdigest()}


def _cached_files(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.suffix in _CACHED_SUFFIXES)


def status(folder: Path) -> str:
    """``"ok"`` (the manifest matches this environment and every file it lists),
    ``"absent"`` (nothing compiled yet), ``"unverified"`` (compiled files but no manifest),
    ``"stale"`` (another version or source) or ``"damaged"`` (a listed file missing or
    changed, or the manifest unreadable)."""
    manifest = folder / MANIFEST
    if not manifest.is_file():
        return "unverified" if _cached_files(folder) else "absent"
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
        files = data["files"]
        recorded = data["fingerprint"]
    except (OSError, ValueError, KeyError, TypeError):
        return "damaged"
    if recorded != fingerprint(folder):
        return "stale"
    if not isinstance(files, dict) or not files:
        return "damaged"
    for name, digest in files.items():
        path = folder / name
        if os.sep in name or not path.is_file():
            return "damaged"
        try:
            if _sha256(path) != digest:
                return "damaged"
        except OSError:
            return "damaged"
    return "ok"


def remove(folder: Path) -> None:
    """Delete a kernel folder (numba then compiles its kernels afresh)."""
    shutil.rmtree(folder, ignore_errors=True)


def prepare(module_file: str) -> str:
    """Called by each kernel module after importing numba, before it defines a kernel: point
    numba at ``cache_root()`` and remove the module's kernel folder when its manifest says it
    is damaged or stale (checked once per folder and process). Returns the status found."""
    point_numba()
    folder = kernel_folder(module_file)
    key = str(folder)
    if key not in _checked:
        found = status(folder)
        if found in ("damaged", "stale"):
            remove(folder)
        _checked[key] = found
    return _checked[key]


def write_manifest(folder: Path) -> dict:
    """Record ``fingerprint(folder)`` and the SHA-256 of every compiled file in ``folder``
    (written to a temporary name, then renamed: a reader never sees half a manifest)."""
    data = {"fingerprint": fingerprint(folder),
            "files": {p.name: _sha256(p) for p in _cached_files(folder)}}
    tmp = folder / f"{MANIFEST}.tmp.{os.getpid()}"
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True), encoding="utf-8")
    os.replace(tmp, folder / MANIFEST)
    return data
