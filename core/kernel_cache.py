"""Where numba keeps NoiseFloor's compiled kernels, the check before they are trusted, and
the warm-up that compiles them all once (issue 38; ``python -m core warm-up``).

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
or for another source (its SHA-256). On top of that, ``warm_up`` leaves a manifest
(``MANIFEST``) in the folder: the Python, numba, llvmlite and numpy versions, the SHA-256 of
the kernel modules' sources and of this file (the recipe), and the SHA-256 of every file it
leaves there. Each kernel module calls ``prepare(__file__)`` before it defines a kernel
(after importing numba, which reads no compiled code before a kernel's first call);
``prepare`` reads the manifest (``status``) and removes the folder when it is damaged (a file
missing or changed, the manifest unreadable) or stale (another version or source), so numba
compiles afresh instead of loading machine code nobody can vouch for. A folder without a
manifest (kernels compiled on first use, before any warm-up) is left to numba's own checks
until the next ``warm_up``, which removes it and compiles again.
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path

KERNEL_MODULES = ("core._kernels", "core.latency.resample")
MANIFEST = "noisefloor-manifest.json"
MANIFEST_VERSION = 1
_LIBRARIES = ("numba", "llvmlite", "numpy")
_CACHED_SUFFIXES = (".nbi", ".nbc")
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
    versions and the SHA-256 of the kernel modules filed there and of this module."""
    sources = sorted({f for f in map(_module_file, KERNEL_MODULES)
                      if kernel_folder(f).name == folder.name} | {os.path.abspath(__file__)})
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


def compile_all() -> int:
    """Compile (or load) every kernel for every argument type NoiseFloor passes it: float64
    C-contiguous arrays, ``numpy.uint64`` keys (``core.streams``), Python ints for counts.
    The latency kernels go through their public functions, which build their arguments.
    Returns the number of compiled signatures."""
    import numpy as np

    from core import _kernels as k
    from core.latency import resample as lr
    x = np.linspace(0.1, 0.9, 7)
    key = np.uint64(12345)
    k.bootstrap_means(x, key, 0, 4)
    k.bootstrap_means_sd(x, float(x.mean()), key, 0, 4)
    k.signflip_sums(x, key, 0, 4)
    k.bootstrap_sets(np.ascontiguousarray(np.stack([x, x[::-1]])), key, 4)
    groups = [np.array([1.0, 2.0, 3.0]), np.array([2.0, 2.5]), np.array([4.0])]
    lr.nested_bootstrap_quantiles(groups, [0.5, 0.95], resamples=4, seed=0)
    q = np.array([0, 0, 1, 1, 2], np.int64)
    t = np.array([1.0, 1.2, 2.0, 2.1, 3.0])
    lr.paired_median_ratio_bootstrap(t, q, t * 1.1, q, 3, resamples=4, seed=0)
    return sum(len(d.signatures) for d in dispatchers())


def dispatchers() -> list:
    """Every numba dispatcher of the kernel modules (imported), by module then name."""
    from numba.core.registry import CPUDispatcher
    out = []
    for name in KERNEL_MODULES:
        mod = importlib.import_module(name)
        out += [getattr(mod, a) for a in sorted(vars(mod))
                if isinstance(getattr(mod, a), CPUDispatcher)]
    return out


@dataclass(frozen=True)
class WarmUp:
    """What ``warm_up`` found and did: the cache folders and their status before, whether it
    compiled, how many signatures, in how many seconds."""
    folders: tuple[str, ...]
    before: tuple[str, ...]
    compiled: bool
    signatures: int
    seconds: float

    def to_dict(self) -> dict:
        return {"folders": list(self.folders), "before": list(self.before),
                "compiled": self.compiled, "signatures": self.signatures,
                "seconds": self.seconds}


def warm_up(*, force: bool = False, on_compile=None) -> WarmUp:
    """Compile every kernel into ``cache_root()`` unless each kernel folder's manifest already
    vouches for it (then nothing is imported or written: a no-op costing a few hashes).
    Otherwise the folders are removed, every kernel compiled (``compile_all``, in a fresh
    interpreter: kernels this one already holds would not be written) and a fresh manifest
    written. ``force`` rebuilds whatever the status; ``on_compile(cache_root())`` is called
    before compiling (the CLI says what the pause is)."""
    point_numba()
    folders = sorted({kernel_folder(_module_file(m)) for m in KERNEL_MODULES})
    before = tuple(status(f) for f in folders)
    names = tuple(str(f) for f in folders)
    if not force and all(s == "ok" for s in before):
        return WarmUp(names, before, False, 0, 0.0)
    if on_compile is not None:
        on_compile(cache_root())
    t0 = time.perf_counter()
    for f in folders:
        remove(f)
    import subprocess
    # a fresh interpreter: kernels this process already holds in memory would not be saved
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    done = subprocess.run([sys.executable, "-c", "from core.kernel_cache import compile_all; "
                           "print(compile_all())"], cwd=root, capture_output=True, text=True,
                          env={**os.environ, "NUMBA_CACHE_DIR": str(cache_root())})
    if done.returncode != 0:
        raise RuntimeError(f"compiling the kernels failed:\n{done.stderr.strip()}")
    signatures = int(done.stdout.split()[-1])
    for f in folders:
        f.mkdir(parents=True, exist_ok=True)
        write_manifest(f)
    return WarmUp(names, before, True, signatures, time.perf_counter() - t0)
