"""The CLI contract: `python -m core latency FILE [--a --b --drop-warmup K] --json`, exit 0/2."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from core.__main__ import main

ROOT = Path(__file__).resolve().parents[2]
DEMO = str(ROOT / "data" / "demo_latency.csv")
FAST = ["--resamples", "2000", "--quantile-resamples", "300"]


def _run(*args):
    return subprocess.run([sys.executable, "-m", "core", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)


def test_json_contract_on_the_demo():
    p = _run("latency", DEMO, "--json")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert set(d) >= {"methods", "ratio", "warnings", "verdict"}
    assert set(d["methods"]) == {"bm25", "hybrid"}
    for m in d["methods"].values():
        assert set(m) == {"median", "median_ci", "p95", "p95_ci", "n_queries", "n_runs"}
        assert m["median_ci"][0] < m["median"] < m["median_ci"][1]
        assert m["n_queries"] == 60 and m["n_runs"] == 360
    r = d["ratio"]
    assert set(r) >= {"median_ratio", "ci_low", "ci_high", "geo_mean_ratio", "geo_ci_low",
                      "geo_ci_high", "randomization_p"}
    assert r["resamples"] == 20000 and r["seed"] == 0
    assert d["verdict"] in ("a_faster", "b_faster", "no_difference")
    codes = [w["code"] for w in d["warnings"]]
    assert "warmup" in codes and "cache_column" in codes
    assert all(w["message"] for w in d["warnings"])
    assert d["warmup"]["suggested_k"] == 2 and d["alternative"]["drop_warmup"] == 2


def test_options_drop_warmup_and_text(capsys):
    assert main(["latency", DEMO, "--a", "hybrid", "--b", "bm25", "--drop-warmup", "2",
                 "--seed", "4", "--confidence", "0.9", *FAST, "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["a"] == "hybrid" and d["ratio"]["drop_warmup"] == 2
    assert d["methods"]["bm25"]["n_runs"] == 240 and d["ratio"]["confidence"] == 0.9
    assert d["verdict"] == "b_faster" and d["alternative"]["drop_warmup"] == 0
    assert main(["latency", DEMO, *FAST]) == 0
    out = capsys.readouterr().out
    assert "ratio of medians hybrid/bm25" in out and "Warm-up in bm25" in out


@pytest.mark.parametrize("args, needle", [
    (["/no/such/file.csv"], "no such file"),
    ([DEMO, "--a", "nope"], "no method 'nope'"),
    ([DEMO, "--drop-warmup", "6"], "leaves too few queries"),
    ([str(ROOT / "data" / "demo_golden.csv")], "not a latency"),
])
def test_bad_input_exits_2_with_one_line(args, needle):
    p = _run("latency", *args, *FAST)
    assert p.returncode == 2 and p.stdout == ""
    assert needle in p.stderr and len(p.stderr.strip().splitlines()) == 1


def test_same_seed_same_json():
    a, b = _run("latency", DEMO, *FAST, "--json"), _run("latency", DEMO, *FAST, "--json")
    assert a.returncode == 0 and a.stdout == b.stdout
