"""core.kernel_cache: where numba's compiled kernels live, the manifest check that removes a
damaged or stale cache, and that a command after ``warm-up`` compiles nothing (numba's own
dispatcher statistics: timing-free). Tests of the cache use a temporary ``NUMBA_CACHE_DIR``
(``tests/conftest.py``: ``compiled_kernels``, ``numba_cache``)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from core import kernel_cache as kc

ROOT = Path(__file__).resolve().parents[2]
KERNELS = ROOT / "core" / "_kernels.py"
RESAMPLE = ROOT / "core" / "latency" / "resample.py"


def _python(code: str, cache: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT,
                          env={**os.environ, "NUMBA_CACHE_DIR": str(cache)},
                          capture_output=True, text=True, check=True)


def _folder(cache: Path) -> Path:
    """The kernel folder of ``core/`` (``core._kernels``) under ``cache``."""
    return cache / kc.kernel_folder(KERNELS).name


def _folders(cache: Path) -> list[Path]:
    """Every kernel folder under ``cache`` (``core/`` and ``core/latency/``), sorted."""
    return sorted(cache / kc.kernel_folder(f).name for f in (KERNELS, RESAMPLE))


# Runs CLI commands in process, then prints numba's cache hits and misses of every kernel
# (a miss is a compilation) and the signatures each dispatcher holds.
_STATS = """
import contextlib, io, json, sys
from core.__main__ import main
for line in sys.argv[1:]:
    with contextlib.redirect_stdout(io.StringIO()):
        main(line.split())
from core.commands.warm_up import dispatchers
print(json.dumps({d.py_func.__module__.split('.')[-1] + '.' + d.__name__:
                  [sum(d.stats.cache_hits.values()), sum(d.stats.cache_misses.values()),
                   len(d.signatures), d.targetoptions.get('inline') == 'always']
                  for d in dispatchers()}))
"""
LISTS = "compare data/demo_lists.csv --format lists --json"
DECIDE = ("decide --quality data/demo_switch_golden.csv --latency data/demo_switch_latency.csv "
          "--margin 0.02 --max-slowdown 1.10 --json")


def test_the_cache_lives_outside_the_checkouts_tracked_files():
    """By default (no ``NUMBA_CACHE_DIR`` before ``core`` is imported) numba writes into the
    virtual environment or a user cache folder: never a tracked path of the checkout."""
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    out = subprocess.run([sys.executable, "-c",
                          "import core, numba, os; from core.kernel_cache import cache_root; "
                          "print(os.environ['NUMBA_CACHE_DIR']); print(numba.config.CACHE_DIR);"
                          " print(cache_root())"],
                         cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    env_dir, numba_dir, root = out.stdout.split("\n")[:3]
    assert env_dir == numba_dir == root == str(kc.default_root())
    path = Path(root).absolute()
    inside = path.is_relative_to(ROOT.absolute())
    assert not inside or path.relative_to(ROOT.absolute()).parts[0] == ".venv"
    if inside:   # .venv is git-ignored
        assert {".venv", ".venv/"} & set((ROOT / ".gitignore").read_text().split())


def test_a_cache_dir_set_before_is_kept(tmp_path):
    out = _python("import core, numba; print(numba.config.CACHE_DIR)", tmp_path)
    assert out.stdout.strip() == str(tmp_path)


def test_kernel_folder_is_where_numba_files_the_kernels(numba_cache):
    """``kernel_folder`` repeats numba's rule; numba's own dispatcher says where it looked."""
    out = _python("from core import _kernels as k; import numpy as np; "
                  "k.bootstrap_means(np.ones(3), np.uint64(1), 0, 2); "
                  "print(k.bootstrap_means.stats.cache_path)", numba_cache)
    assert Path(out.stdout.strip()) == _folder(numba_cache)


def test_warm_up_compiles_every_kernel_and_writes_a_manifest(compiled_kernels):
    cache, first = compiled_kernels
    folders = _folders(cache)
    assert first["compiled"] and first["before"] == ["absent", "absent"]
    assert first["folders"] == [str(f) for f in folders]
    for folder in folders:
        assert kc.status(folder) == "ok"
        manifest = json.loads((folder / kc.MANIFEST).read_text())
        listed = set(manifest["files"])
        assert listed == {p.name for p in folder.iterdir() if p.suffix in (".nbi", ".nbc")}
    names = {p.name.split(".")[0] for f in folders for p in f.glob("*.nbc")}
    assert names == {"_kernels", "resample"}


def test_compile_all_leaves_no_kernel_uncompiled(numba_cache):
    """Every kernel that is not inlined into others has compiled code in the cache (those
    only other kernels call are compiled with them), and calling them all again from the
    warm cache compiled nothing."""
    out = _python("from core.commands.warm_up import compile_all\ncompile_all()\n"
                  + _STATS, numba_cache)
    stats = json.loads(out.stdout)
    assert stats   # the dispatchers were found
    indexed = {p.name.split("-")[0] for f in _folders(numba_cache) for p in f.glob("*.nbi")}
    for name, (hits, misses, signatures, inline) in stats.items():
        assert misses == 0, name
        if not inline:
            assert name in indexed, name
    assert sum(h for h, _, _, _ in stats.values()) >= 6


def test_after_warm_up_the_lists_demo_and_decide_compile_nothing(numba_cache):
    """A fresh interpreter running ``compare`` on the lists demo and ``decide`` on the
    Switch? demo after ``warm-up`` loads every kernel it calls and compiles none."""
    out = _python(_STATS, numba_cache, LISTS, DECIDE)
    stats = json.loads(out.stdout)
    assert sum(h for h, _, _, _ in stats.values()) >= 5   # bootstraps, sign flips, latency
    assert {n: m for n, (_, m, _, _) in stats.items() if m} == {}


def test_after_warm_up_a_read_only_column_compiles_nothing(numba_cache):
    """pandas 3 hands out read-only columns (copy-on-write): the scifact page's BM25 card
    (``retriever_estimate`` -> ``rate_estimate``) passed one to ``bootstrap_means_sd``, a
    signature warm-up had not compiled (issue 37). Now it loads, compiles nothing."""
    out = _python("import numpy as np, pandas as pd\nfrom core.paired import rate_estimate\n"
                  "x = pd.Series(np.linspace(0.1, 0.9, 30)).to_numpy(float)\n"
                  "assert not x.flags.writeable\nrate_estimate(x, resamples=200)\n"
                  + _STATS, numba_cache)
    stats = json.loads(out.stdout)
    assert stats["_kernels.bootstrap_means_sd"][0] >= 1     # loaded from the cache
    assert {n: m for n, (_, m, _, _) in stats.items() if m} == {}


def test_a_damaged_cache_is_detected_removed_and_rebuilt(numba_cache):
    """A changed machine-code file: the manifest's hash no longer matches, so the first
    kernel module imported removes the folder (numba would otherwise unpickle it) and the
    command compiles what it needs; its output equals the intact cache's. ``warm-up`` then
    finds the folder unverified and rebuilds it whole."""
    folder = _folder(numba_cache)
    intact = _python(f"import sys; from core.__main__ import main; main({LISTS.split()!r})",
                     numba_cache).stdout
    victim = next(p for p in sorted(folder.iterdir())
                  if p.name.startswith("_kernels.bootstrap_means_sd") and p.suffix == ".nbc")
    data = bytearray(victim.read_bytes())
    data[len(data) // 2: len(data) // 2 + 64] = b"\0" * 64
    victim.write_bytes(bytes(data))
    assert kc.status(folder) == "damaged"
    again = _python(f"import sys; from core.__main__ import main; main({LISTS.split()!r})",
                    numba_cache).stdout
    assert again == intact
    assert not (folder / kc.MANIFEST).exists()   # removed, then refilled by numba alone
    assert kc.status(folder) == "unverified"
    done = json.loads(_python("from core.__main__ import main; main(['warm-up', '--json'])",
                              numba_cache).stdout)
    assert done["before"] == ["unverified", "ok"] and done["compiled"]
    assert [kc.status(f) for f in _folders(numba_cache)] == ["ok", "ok"]


def test_a_damaged_manifest_or_index_counts_as_damaged(numba_cache):
    folder = _folder(numba_cache)
    index = next(p for p in sorted(folder.iterdir()) if p.suffix == ".nbi")
    index.write_bytes(index.read_bytes()[:-10])
    assert kc.status(folder) == "damaged"
    (folder / kc.MANIFEST).write_text("{not json")
    assert kc.status(folder) == "damaged"


def test_a_stale_cache_is_removed_before_numba_reads_it(numba_cache):
    """Another library version in the manifest (as after an upgrade): ``prepare`` removes the
    folder when the kernel module is imported, before any kernel is loaded."""
    folder = _folder(numba_cache)
    manifest = json.loads((folder / kc.MANIFEST).read_text())
    manifest["fingerprint"]["libraries"]["llvmlite"] = "0.0.1"
    (folder / kc.MANIFEST).write_text(json.dumps(manifest))
    assert kc.status(folder) == "stale"
    out = _python("import core._kernels, core.kernel_cache as kc, os; "
                  "print(kc.prepare(core._kernels.__file__)); "
                  "print(sorted(os.listdir(kc.kernel_folder(core._kernels.__file__))))",
                  numba_cache)
    found, left = out.stdout.strip().split("\n")
    assert found == "stale" and left == "[]"


def test_a_changed_source_makes_the_cache_stale(numba_cache, tmp_path, monkeypatch):
    folder = _folder(numba_cache)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(numba_cache))
    assert kc.status(folder) == "ok"
    real = kc.fingerprint(folder)
    monkeypatch.setattr(kc, "fingerprint", lambda f: {**real, "sources": "0" * 64})
    assert kc.status(folder) == "stale"


def test_status_of_an_empty_cache_is_absent(tmp_path):
    assert kc.status(tmp_path / "nothing") == "absent"


def test_kernels_loaded_from_a_copied_cache_give_the_same_numbers(numba_cache):
    """The session's cache, copied, loads machine code that gives this process's numbers
    bit for bit."""
    out = _python("import numpy as np, json; from core import _kernels as k; "
                  "x = np.linspace(0.05, 0.95, 11); key = np.uint64(99); "
                  "print(json.dumps([k.bootstrap_means(x, key, 3, 5).tolist(), "
                  "k.signflip_sums(x, key, 0, 5).tolist()]))", numba_cache)
    means, sums = json.loads(out.stdout)
    from core import _kernels as k
    x, key = np.linspace(0.05, 0.95, 11), np.uint64(99)
    np.testing.assert_allclose(means, k.bootstrap_means(x, key, 3, 5), rtol=0, atol=0)
    np.testing.assert_allclose(sums, k.signflip_sums(x, key, 0, 5), rtol=0, atol=0)


def test_idle_kernel_threads_sleep_unless_the_user_says_otherwise():
    """``import core`` sets ``OMP_WAIT_POLICY=PASSIVE`` before numba's OpenMP runtime loads
    (``core.kernel_cache.quiet_threads``): a spinning idle thread cost more CPU than a small
    kernel. A value the user set is kept, and the numbers do not depend on the policy."""
    code = ("import os, core, numpy as np; from core.paired.stats import bootstrap_mean; "
            "r = bootstrap_mean(np.arange(40) % 7 / 7, resamples=2000, seed=3); "
            "import numba; print(os.environ['OMP_WAIT_POLICY'], numba.threading_layer(), "
            "r.ci_low, r.ci_high)")
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    runs = {}
    for policy in (None, "ACTIVE"):
        e = env if policy is None else {**env, "OMP_WAIT_POLICY": policy}
        out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=e, text=True,
                             capture_output=True, check=True).stdout.split()
        runs[policy] = out
    assert runs[None][0] == "PASSIVE" and runs["ACTIVE"][0] == "ACTIVE"
    assert runs[None][2:] == runs["ACTIVE"][2:]
