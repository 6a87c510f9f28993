"""``python -m core warm-up`` (core/commands/warm_up.py): compiles once and checks the shipped
vectors once, then is a silent no-op that does not even import numba. Runs against a
temporary ``NUMBA_CACHE_DIR`` and ``NOISEFLOOR_SPOT_DIR`` (``tests/conftest.py``)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def _warm_up(cache: Path, spot: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "core", "warm-up", *args], cwd=ROOT,
                          env={**os.environ, "NUMBA_CACHE_DIR": str(cache),
                               "NOISEFLOOR_SPOT_DIR": str(spot)},
                          capture_output=True, text=True, check=True)


def test_warm_up_twice_in_a_row_is_a_silent_no_op_the_second_time(compiled_kernels,
                                                                    numba_cache, spot_records):
    _, first = compiled_kernels          # the session's first warm-up compiled and checked
    assert first["compiled"] and first["signatures"] >= 10
    assert first["spot_checks"] == {"docs": "passed", "queries": "passed"}
    before = {p.name: p.stat().st_mtime_ns for p in [*numba_cache.rglob("*"),
                                                      *spot_records.rglob("*")]}
    second = _warm_up(numba_cache, spot_records)
    assert second.stdout == "" and second.stderr == ""      # quiet when nothing is to do
    third = json.loads(_warm_up(numba_cache, spot_records, "--json").stdout)
    assert third["before"] == ["ok", "ok"] and not third["compiled"] and third["signatures"] == 0
    assert third["spot_checks"] == {"docs": "recorded", "queries": "recorded"}
    assert {p.name: p.stat().st_mtime_ns for p in [*numba_cache.rglob("*"),
                                                   *spot_records.rglob("*")]} == before


def test_a_no_op_warm_up_does_not_import_numba_or_the_model(numba_cache, spot_records):
    out = subprocess.run([sys.executable, "-c",
                          "import sys; from core.__main__ import main; main(['warm-up']); "
                          "print('numba' in sys.modules, 'tokenizers' in sys.modules)"],
                         cwd=ROOT, env={**os.environ, "NUMBA_CACHE_DIR": str(numba_cache),
                                        "NOISEFLOOR_SPOT_DIR": str(spot_records)},
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False False"


def test_warm_up_checks_the_shipped_vectors_again_when_a_record_is_edited(numba_cache,
                                                                          spot_records):
    """A record whose check was edited (here: a min cosine below the threshold, the digest
    left as it was) is not trusted: warm-up runs that spot check again and records it."""
    docs = next(spot_records.glob("spot-docs-*.json"))
    record = json.loads(docs.read_text())
    record["check"]["min_cosine"] = 0.5
    docs.write_text(json.dumps(record))
    done = _warm_up(numba_cache, spot_records, "--json")
    assert json.loads(done.stdout)["spot_checks"] == {"docs": "passed", "queries": "recorded"}
    assert json.loads(docs.read_text())["check"]["min_cosine"] >= 0.999


def test_warm_up_says_what_it_compiles_and_checks(monkeypatch, capsys, tmp_path):
    """When there is work: one line on stderr before the pause (where it compiles to), one
    after, one before the spot checks; stdout stays empty (the printing only: compiling and
    checking are tested above)."""
    from core.__main__ import main
    from core.commands import warm_up
    from core.commands.warm_up import WarmUp

    def fake(*, force, on_compile):
        on_compile(tmp_path)
        return WarmUp((str(tmp_path),), ("absent",), True, 13, 41.6)

    def fake_checks(*, on_check):
        on_check()
        return {"docs": "passed", "queries": "passed"}

    monkeypatch.setattr(warm_up, "warm_up", fake)
    monkeypatch.setattr(warm_up, "warm_shipped_checks", fake_checks)
    assert main(["warm-up"]) == 0
    out, err = capsys.readouterr()
    assert out == ""
    assert err.splitlines() == [f"compiling the statistics kernels once into {tmp_path} "
                                "(about a minute)...", "compiled 13 kernel signatures in 42 s",
                                "checking the shipped scifact vectors against the model once "
                                "(about 5 s)..."]
