"""``python -m core warm-up`` (core/commands/warm_up.py): compiles once, then is a silent
no-op that does not even import numba. Runs against a temporary ``NUMBA_CACHE_DIR``
(``tests/conftest.py``)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def _warm_up(cache: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "core", "warm-up", *args], cwd=ROOT,
                          env={**os.environ, "NUMBA_CACHE_DIR": str(cache)},
                          capture_output=True, text=True, check=True)


def test_warm_up_twice_in_a_row_is_a_silent_no_op_the_second_time(compiled_kernels,
                                                                    numba_cache):
    _, first = compiled_kernels          # the session's first warm-up compiled
    assert first["compiled"] and first["signatures"] >= 10
    before = {p.name: p.stat().st_mtime_ns for p in numba_cache.rglob("*")}
    second = _warm_up(numba_cache)
    assert second.stdout == "" and second.stderr == ""      # quiet when nothing is to do
    third = json.loads(_warm_up(numba_cache, "--json").stdout)
    assert third["before"] == ["ok", "ok"] and not third["compiled"] and third["signatures"] == 0
    assert {p.name: p.stat().st_mtime_ns for p in numba_cache.rglob("*")} == before


def test_a_no_op_warm_up_does_not_import_numba(numba_cache):
    out = subprocess.run([sys.executable, "-c",
                          "import sys; from core.__main__ import main; main(['warm-up']); "
                          "print('numba' in sys.modules)"], cwd=ROOT,
                         env={**os.environ, "NUMBA_CACHE_DIR": str(numba_cache)},
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_warm_up_says_what_it_compiles(monkeypatch, capsys, tmp_path):
    """When there is work: one line on stderr before the pause (where it compiles to), one
    after; stdout stays empty (the printing only: compiling is tested above)."""
    from core.__main__ import main
    from core.commands import warm_up
    from core.commands.warm_up import WarmUp

    def fake(*, force, on_compile):
        on_compile(tmp_path)
        return WarmUp((str(tmp_path),), ("absent",), True, 13, 41.6)

    monkeypatch.setattr(warm_up, "warm_up", fake)
    assert main(["warm-up"]) == 0
    out, err = capsys.readouterr()
    assert out == ""
    assert err.splitlines() == [f"compiling the statistics kernels once into {tmp_path} "
                                "(about a minute)...", "compiled 13 kernel signatures in 42 s"]
