"""``python -m core warm-up``: compile every statistics kernel once, before anyone waits on it
(issue 38), and check the shipped scifact vectors against the model once (issue 37:
``core.retrieval.warm_shipped_checks``, records kept by ``core.retrieval.spot_record``).
``make run``, ``make test`` and ``make bench`` (hence ``.ci/run``) run it.

Silent, exit 0, when the compiled cache is already there and its manifest checks out (a
no-op: no numba import, ``core.kernel_cache.status``) and both spot checks are on record
(their keys checked against the files). Otherwise one line on stderr before each pause
(compiling: about a minute on two cores; the spot checks: about 5 s) and one when the
kernels are done. ``--force`` rebuilds the kernels; ``--json`` prints what it found and did
(``folders``, ``before`` (each folder's status: ok / absent / unverified / stale / damaged),
``compiled``, ``signatures``, ``seconds``, ``spot_checks`` (documents and queries: recorded /
passed / failed / none)).
"""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import time
from dataclasses import dataclass, replace

import numpy as np

from core.serialize import print_json
from core.retrieval import warm_shipped_checks
from core.kernel_cache import (KERNEL_MODULES, cache_root, kernel_folder, point_numba, remove,
                               status, write_manifest)

NAME = "warm-up"
HELP = ("compile the statistics kernels and check the shipped vectors once (quiet when "
        "they are ready)")


def register(p) -> None:
    p.add_argument("--force", action="store_true",
                   help="remove the compiled kernels and compile them again")
    p.add_argument("--json", action="store_true", help="print what was found and done as JSON")


def compile_all() -> int:
    """Compile (or load) every kernel for every argument type NoiseFloor passes it: float64
    C-contiguous arrays, writable and read-only, ``numpy.uint64`` keys (``core.paired.stream_key``), Python ints for
    counts. The latency kernels go through their public functions, which build their
    arguments. Returns the number of compiled signatures."""
    # lazy: numba, imported only when there is something to compile
    from core import _kernels as k
    from core.latency import nested_bootstrap_quantiles, paired_median_ratio_bootstrap
    x = np.linspace(0.1, 0.9, 7)
    key = np.uint64(12345)
    # a read-only array is another signature: pandas 3 (copy-on-write) hands out read-only
    # columns, so a page's table read with to_numpy() would compile at first use (issue 37:
    # the scifact page's BM25 card waited on bootstrap_means_sd, and the folder then no
    # longer matched its manifest)
    fixed = x.copy()
    fixed.flags.writeable = False
    for arr in (x, fixed):
        k.bootstrap_means(arr, key, 0, 4)
        k.bootstrap_means_sd(arr, float(arr.mean()), key, 0, 4)
        k.signflip_sums(arr, key, 0, 4)
    k.bootstrap_sets(np.ascontiguousarray(np.stack([x, x[::-1]])), key, 4)
    groups = [np.array([1.0, 2.0, 3.0]), np.array([2.0, 2.5]), np.array([4.0])]
    nested_bootstrap_quantiles(groups, [0.5, 0.95], resamples=4, seed=0)
    q = np.array([0, 0, 1, 1, 2], np.int64)
    t = np.array([1.0, 1.2, 2.0, 2.1, 3.0])
    paired_median_ratio_bootstrap(t, q, t * 1.1, q, 3, resamples=4, seed=0)
    return sum(len(d.signatures) for d in dispatchers())


def dispatchers() -> list:
    """Every numba dispatcher of the kernel modules (imported), by module then name."""
    import importlib

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
    spot_checks: dict | None = None

    def to_dict(self) -> dict:
        return {"folders": list(self.folders), "before": list(self.before),
                "compiled": self.compiled, "signatures": self.signatures,
                "seconds": self.seconds, "spot_checks": self.spot_checks}


def warm_up(*, force: bool = False, on_compile=None) -> WarmUp:
    """Compile every kernel into ``cache_root()`` unless each kernel folder's manifest already
    vouches for it (then nothing is imported or written: a no-op costing a few hashes).
    Otherwise the folders are removed, every kernel compiled (``compile_all``, in a fresh
    interpreter: kernels this one already holds would not be written) and a fresh manifest
    written. ``force`` rebuilds whatever the status; ``on_compile(cache_root())`` is called
    before compiling (the CLI says what the pause is)."""
    point_numba()
    folders = sorted({kernel_folder(importlib.util.find_spec(m).origin)
                      for m in KERNEL_MODULES})
    before = tuple(status(f) for f in folders)
    names = tuple(str(f) for f in folders)
    if not force and all(s == "ok" for s in before):
        return WarmUp(names, before, False, 0, 0.0)
    if on_compile is not None:
        on_compile(cache_root())
    t0 = time.perf_counter()
    for f in folders:
        remove(f)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    done = subprocess.run([sys.executable, "-c", "from core.commands.warm_up import "
                           "compile_all; print(compile_all())"], cwd=root, capture_output=True,
                          text=True, env={**os.environ, "NUMBA_CACHE_DIR": str(cache_root())})
    if done.returncode != 0:
        raise RuntimeError(f"compiling the kernels failed:\n{done.stderr.strip()}")
    signatures = int(done.stdout.split()[-1])
    for f in folders:
        f.mkdir(parents=True, exist_ok=True)
        write_manifest(f)
    return WarmUp(names, before, True, signatures, time.perf_counter() - t0)


def run(args) -> int:
    def say(root) -> None:   # before the work, so nobody wonders what the pause is
        if not args.json:
            sys.stderr.write(f"compiling the statistics kernels once into {root} "
                             "(about a minute)...\n")
            sys.stderr.flush()

    def say_check() -> None:
        if not args.json:
            sys.stderr.write("checking the shipped scifact vectors against the model once "
                             "(about 5 s)...\n")
            sys.stderr.flush()

    done = warm_up(force=args.force, on_compile=say)
    if done.compiled and not args.json:
        sys.stderr.write(f"compiled {done.signatures} kernel signatures in "
                         f"{done.seconds:.0f} s\n")
    done = replace(done, spot_checks=warm_shipped_checks(on_check=say_check))
    if args.json:
        print_json(done.to_dict())
    return 0
