"""Issue 33 across the CLI: ``compare --sequential`` gives the confidence sequence in JSON and
text, numbers equal to ``core.paired.sequential`` on the file's own values in arrival order,
and bad dates or values outside [0, 1] are refused naming what is wrong. (Outputs without
--sequential are the recorded ones: tests/core/test_cli_clusters.py.)"""
import csv
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from core.paired.sequential import sequential_compare

ROOT = Path(__file__).resolve().parents[2]


def _run(*args):
    return subprocess.run([sys.executable, "-m", "core", *args], cwd=ROOT, capture_output=True,
                          timeout=300)


def _demo():
    rows = list(csv.DictReader((ROOT / "data/demo_golden.csv").open(encoding="utf-8")))
    return (np.array([float(r["title-only"]) for r in rows]),
            np.array([float(r["RRF"]) for r in rows]))


def test_compare_sequential_json_matches_the_module_on_the_files_values():
    p = _run("compare", "data/demo_golden.csv", "--sequential", "--json", "--resamples", "2000")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    s = d["sequential"]
    a, b = _demo()
    ref = sequential_compare(a, b).to_dict()
    assert s["method"] == "betting_hedged_prpl" and s["order"]["by"] == "file_order"
    for key in ("ci_low", "ci_high", "p", "verdict", "b_minus_a", "history", "a", "b"):
        assert s[key] == ref[key], key
    assert [h["n"] for h in s["history"]] == list(range(10, 32))
    assert s["b_minus_a"] == pytest.approx(d["difference"]["b_minus_a"])
    assert d["verdict"] == s["verdict"] and d["verdict_fixed_n"] == "no_difference"
    # the sequence is wider than the fixed-n interval it sits beside
    assert s["ci_low"] < d["difference"]["ci_low"] and s["ci_high"] > d["difference"]["ci_high"]
    assert s["peeking"]["looks"] == 22 and s["peeking"]["rate"] > 0.05


def test_compare_sequential_text():
    p = _run("compare", "data/demo_golden.csv", "--sequential", "--resamples", "2000")
    assert p.returncode == 0, p.stderr
    out = p.stdout.decode()
    assert out.startswith("Sequential mode (anytime-valid")
    assert "Looked at 22 times (every case from 10 to 31)" in out
    assert out.index("Sequential verdict") < out.index("fixed-n comparison")


def test_a_date_column_orders_the_cases(tmp_path):
    a, b = _demo()
    order = np.random.default_rng(1).permutation(a.size)
    days = np.empty(a.size, int)
    days[order] = np.arange(a.size)   # case order[k] arrived on day k
    f = tmp_path / "g.csv"
    f.write_text("case_id,added,A,B\n" + "".join(
        f"q{i},2026-01-{1 + days[i] // 2:02d},{a[i]:g},{b[i]:g}\n" for i in range(a.size)))
    p = _run("compare", str(f), "--sequential", "--json", "--resamples", "2000")
    assert p.returncode == 0, p.stderr
    s = json.loads(p.stdout)["sequential"]
    assert s["order"]["by"] == "column" and s["order"]["column"] == "added"
    assert s["order"]["unsorted_rows"]   # the file was not in date order, and it says where
    key = [(1 + days[i] // 2, i) for i in range(a.size)]
    idx = sorted(range(a.size), key=lambda i: key[i])
    ref = sequential_compare(a[idx], b[idx]).to_dict()
    assert s["history"] == ref["history"]
    t = _run("compare", str(f), "--sequential", "--resamples", "2000").stdout.decode()
    assert "in the order of column 'added'" in t and "earlier than a row above" in t


def test_bad_input_is_exit_2_naming_rows(tmp_path):
    f = tmp_path / "g.csv"
    f.write_text("case_id,date,A,B\nq1,2026-03-01,1,0\nq2,someday,0,1\nq3,2026-03-02,1,1\n")
    p = _run("compare", str(f), "--sequential")
    assert p.returncode == 2 and "row 3" in p.stderr.decode()
    g = tmp_path / "s.csv"
    g.write_text("case_id,A,B\nq1,3.5,1\nq2,2,0.5\nq3,1,1\n")
    p = _run("compare", str(g), "--sequential")
    assert p.returncode == 2 and "[0, 1]" in p.stderr.decode()


def test_lists_sequential_in_file_order():
    p = _run("compare", "--format", "lists", "data/demo_lists.csv", "--a", "bm25", "--b",
             "dense", "--sequential", "--json", "--resamples", "2000")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert d["sequential"]["order"]["by"] == "file_order"
    assert d["sequential"]["n"] == d["n_cases"]


# ----------------------------------------------------------------------------- decide, scifact
FAST = ["--resamples", "1000", "--quantile-resamples", "50", "--seed", "3"]


def test_decide_sequential_reads_the_quality_condition_off_the_sequence(tmp_path, capsys):
    from core.__main__ import main
    from core.switch import EXIT_CODES
    from tests.core.test_switch import CLOSE, golden_csv, latency_csv
    q, lg = tmp_path / "q.csv", tmp_path / "l.csv"
    head, *rows = golden_csv(CLOSE).decode().splitlines()   # sorted by outcome: shuffle it
    order = np.random.default_rng(2).permutation(len(rows))
    q.write_text("\n".join([head, *(rows[i] for i in order)]) + "\n")
    lg.write_bytes(latency_csv(0.7))
    base = ["decide", "--quality", str(q), "--latency", str(lg), "--margin", "0.02", *FAST]
    fixed_code = main([*base, "--json"])
    fixed = json.loads(capsys.readouterr().out)
    assert "sequential" not in fixed
    code = main([*base, "--json", "--sequential"])
    d = json.loads(capsys.readouterr().out)
    s = d["sequential"]
    assert code == d["exit_code"] == EXIT_CODES[d["decision"]]
    assert s["quality_fixed_n"] == fixed["conditions"]["quality"]
    cond = d["conditions"]["quality"]
    low = s["ci_low"]
    assert cond["state"] == ("holds" if low > -0.02 else "fails" if s["ci_high"] < -0.02
                             else "unsure")
    assert cond["bound"] == (s["ci_high"] if cond["state"] == "fails" else low)
    assert s["ci_low"] < fixed["quality"]["ci_low"]   # wider than the fixed-n interval
    assert fixed_code in (0, 1, 3)
    assert main([*base, "--sequential"]) == code
    assert "The decision follows the sequence" in capsys.readouterr().out
    assert s["looks_sorted"] is False
    q.write_bytes(golden_csv(CLOSE))   # the rows sorted by outcome: the order check says so
    main([*base, "--json", "--sequential"])
    assert json.loads(capsys.readouterr().out)["sequential"]["looks_sorted"] is True
    main([*base, "--sequential"])
    assert "the rows look sorted by outcome" in capsys.readouterr().out


def test_scifact_sequential_on_the_tiny_fixture(capsys):
    from core.__main__ import main
    from tests.shared_data import TINY
    assert main(["scifact", "--data", str(TINY), "--a", "bm25", "--b", "dense", "--json",
                 "--resamples", "500", "--sequential"]) == 0
    out = json.loads(capsys.readouterr().out)
    s = out["sequential"]
    assert s["order"]["by"] == "query_order" and s["n"] == out["comparison"]["n_queries"]
    assert s["b_minus_a"] == pytest.approx(out["comparison"]["difference"]["b_minus_a"])
    assert main(["scifact", "--data", str(TINY), "--resamples", "500", "--sequential"]) == 0
    assert "in the order the queries were compared" in capsys.readouterr().out


def test_sample_size_sequential_beside_the_fixed_n_answer():
    p = _run("sample-size", "--discordance", "0.2", "--diff", "0.1", "--sequential", "--json")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    s = d["sequential"]
    assert s["method"] == "simulation" and s["n_power"] > d["n_paired_power"]
    t = _run("sample-size", "--discordance", "0.2", "--diff", "0.1", "--sequential")
    assert f"80% of sets by {s['n_power']:,}" in t.stdout.decode()
    assert _run("sample-size", "--discordance", "0.2", "--sequential").returncode == 2
    # without --sequential the output is the recorded one
    plain = _run("sample-size", "--discordance", "0.2", "--diff", "0.05")
    assert plain.stdout == (ROOT / "tests/fixtures/cli_recorded/sample_size.txt").read_bytes()
