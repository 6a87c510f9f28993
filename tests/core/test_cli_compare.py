"""The CLI contract: `python -m core compare FILE [--json]`, exit 0 / 2, one-line errors."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from core.__main__ import main

ROOT = Path(__file__).resolve().parents[2]
DEMO = str(ROOT / "data" / "demo_golden.csv")


def _run(*args):
    return subprocess.run([sys.executable, "-m", "core", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)


def test_json_contract_on_the_demo():
    p = _run("compare", DEMO, "--json")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert d["n_cases"] == 31 and d["verdict"] == "no_difference"
    assert set(d) >= {"n_cases", "methods", "difference", "resolution", "excluded", "verdict"}
    m = d["methods"]["title-only"]
    assert m == {**m, "n": 31, "successes": 26, "interval": "wilson"}
    assert round(m["ci_low"], 3) == 0.674 and round(m["ci_high"], 3) == 0.929
    diff = d["difference"]
    assert diff["a"] == "title-only" and diff["b"] == "RRF"
    assert diff["resamples"] == 20000 and diff["seed"] == 0
    assert diff["ci_low"] < 0 < diff["ci_high"] and diff["ttest_p"] is None
    assert 0 < diff["mcnemar_p"] <= 1 and 0 < diff["randomization_p"] <= 1
    assert d["excluded"] == {"missing": [], "duplicates": [], "blank": []}


def test_options_and_text_output(capsys):
    assert main(["compare", DEMO, "--a", "RRF", "--b", "title-only", "--resamples", "2000",
                 "--seed", "3", "--confidence", "0.9", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["difference"]["a"] == "RRF" and d["difference"]["resamples"] == 2000
    assert d["difference"]["confidence"] == 0.9 and d["difference"]["seed"] == 3
    assert main(["compare", DEMO]) == 0
    out = capsys.readouterr().out
    assert "83.9%" in out and "No significant difference" in out


def test_a_workbook_names_the_sheet_it_read(tmp_path, capsys):
    import openpyxl
    wb = openpyxl.Workbook()
    wb.active.title = "Notes"
    wb.active.append(["written by the team"])
    ws = wb.create_sheet("Results")
    for row in (["case_id", "bm25", "dense"], ["q1", 1, 0], ["q2", 0, 1], ["q3", 1, 1]):
        ws.append(row)
    path = tmp_path / "book.xlsx"
    wb.save(path)
    assert main(["compare", str(path), "--resamples", "1000", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["sheet"] == "Results"
    assert main(["compare", str(path), "--resamples", "1000"]) == 0
    assert "book.xlsx (sheet 'Results'): 3 paired cases" in capsys.readouterr().out
    assert main(["compare", DEMO, "--resamples", "1000", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["sheet"] is None
    lists = openpyxl.Workbook()
    lists.active.title = "Runs"
    for row in (["case_id", "gold_ids", "bm25", "dense"], ["q1", "d1", "d1|d2", "d2|d1"],
                ["q2", "d3", "d4|d3", "d3"], ["q3", "d5", "d5", "d6|d5"]):
        lists.active.append(row)
    lpath = tmp_path / "lists.xlsx"
    lists.save(lpath)
    assert main(["compare", str(lpath), "--format", "lists", "--resamples", "1000",
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["sheet"] == "Runs"


def test_same_seed_same_json():
    a, b = _run("compare", DEMO, "--json"), _run("compare", DEMO, "--json")
    assert a.stdout == b.stdout


@pytest.mark.parametrize("args,needle", [
    (["compare", "/no/such/file.csv"], "no such file"),
    (["compare", DEMO, "--a", "nope"], "no method 'nope'"),
    (["compare", DEMO, "--resamples", "0"], "resamples"),
    (["compare", DEMO, "--confidence", "2"], "confidence"),
    (["compare", DEMO, "--resamples", "many"], "invalid int"),
    (["frobnicate"], "invalid choice"),
])
def test_bad_input_exits_2_with_one_line(args, needle):
    p = _run(*args)
    assert p.returncode == 2
    assert needle in p.stderr
    assert "Traceback" not in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1


def test_bad_file_names_row_and_column(tmp_path):
    f = tmp_path / "bad.csv"
    f.write_text("case_id,A,B\nq1,1,0\nq2,maybe,1\n")
    p = _run("compare", str(f))
    assert p.returncode == 2 and "row 3" in p.stderr and "'A'" in p.stderr


# ----------------------------------------------------------------------------- metric names
def _spellings(name):
    """Every registry spelling of a metric, as typed in lower, upper and display case."""
    from core.metrics import REGISTRY

    spec = REGISTRY[name]
    words = {spec.name, *spec.aliases}
    return sorted({w for s in words for w in (s, s.upper())} |
                  ({spec.display} if spec.display.lower() in words else set()))


def test_lists_measure_accepts_every_registry_alias(capsys):
    """``--format lists --measure``: each list metric under every alias of the registry
    compares the same per-case values as its canonical name."""
    from core.lists import LIST_METRICS

    lists = str(ROOT / "data" / "demo_lists.csv")
    seen = 0
    for name in LIST_METRICS:
        want = None
        for spelling in _spellings(name):
            assert main(["compare", lists, "--format", "lists", "--measure", f"{spelling}@5",
                         "--resamples", "200", "--json"]) == 0, spelling
            out = json.loads(capsys.readouterr().out)
            assert out["measure"] == f"{name}@5" and out["k"] == 5, spelling
            got = (out["methods"], out["difference"])
            assert want is None or got == want, spelling
            want = got
            seen += 1
    assert seen > len(LIST_METRICS)  # the aliases were tried, not only the names


def test_trec_measure_accepts_every_registry_alias(capsys):
    """``--format trec --measure``: registry spellings (``mrr@10``, ``RR@10``, ``hit@10``,
    ``Success@10``, ``recall@10``, ``R@10``, ``map``, ``precision@10``) reach ir_measures
    under its own name, with the same numbers."""
    from core.metrics import REGISTRY, RANK_MEASURES

    trec = ROOT / "data" / "demo_trec"
    runs = [str(trec / f) for f in ("bm25.run", "dense.run")]
    for name in RANK_MEASURES:
        spec = REGISTRY[name]
        want = None
        for spelling in _spellings(name):
            text = spelling if spec.cutoff != "required" and name == "ap" else f"{spelling}@10"
            assert main(["compare", *runs, "--format", "trec", "--qrels",
                         str(trec / "qrels.txt"), "--measure", text, "--resamples", "200",
                         "--json"]) == 0, text
            out = json.loads(capsys.readouterr().out)
            expect = spec.ir_measures if text == spelling else f"{spec.ir_measures}@10"
            assert out["measure"] == expect, text
            assert want is None or out["metrics"] == want, text
            want = out["metrics"]


def test_unknown_measure_exits_2_naming_the_valid_ones():
    lists = str(ROOT / "data" / "demo_lists.csv")
    p = _run("compare", lists, "--format", "lists", "--measure", "bleu")
    assert p.returncode == 2 and "bleu" in p.stderr and "ndcg" in p.stderr


@pytest.mark.parametrize("interval", ("johnson_t", "hall_t"))
def test_skewness_corrected_interval_by_name(tmp_path, capsys, interval):
    """--interval johnson_t / hall_t on scores: JSON names the interval and its ends are the
    closed form of core.intervals on the file's B - A; on 0/1 outcomes it falls back to the
    calibrated default (Tango) and says so by name."""
    import numpy as np

    from core.intervals import score_intervals
    rng = np.random.default_rng(3)
    a = rng.uniform(0.2, 0.6, size=16).round(3)
    b = (a + rng.exponential(0.1, size=16) - 0.08).round(3)
    path = tmp_path / "scores.csv"
    path.write_text("case_id,bm25,dense\n" + "".join(f"q{i},{x},{y}\n" for i, (x, y)
                                                     in enumerate(zip(a, b))), encoding="utf-8")
    assert main(["compare", str(path), "--a", "bm25", "--b", "dense", "--resamples", "1000",
                 "--interval", interval, "--json"]) == 0
    diff = json.loads(capsys.readouterr().out)["difference"]
    lo, hi = score_intervals((b - a)[None, :], None, None, 0.95, interval)
    assert diff["interval"] == interval
    assert (diff["ci_low"], diff["ci_high"]) == pytest.approx((lo[0], hi[0]), abs=1e-12)
    assert main(["compare", DEMO, "--resamples", "1000", "--interval", interval, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["difference"]["interval"] == "tango"


def test_json_carries_both_self_checks_and_the_default_interval(tmp_path, capsys):
    """Scores: JSON ``difference.interval`` is the calibrated t-interval by default, and
    ``difference.calibration`` keeps its keys and adds the centred-resample check's figures,
    the warning flag and the survival test; ``decision`` carries the survival fields; the
    0/1 demo names the exact McNemar test as its survival test."""
    import numpy as np
    rng = np.random.default_rng(9)
    a = rng.uniform(0.2, 0.6, size=12).round(3)
    b = (a + rng.lognormal(0, 1.0, size=12) * 0.05 - 0.06).round(3)
    path = tmp_path / "skewed.csv"
    path.write_text("case_id,bm25,dense\n" + "".join(f"q{i},{x},{y}\n" for i, (x, y)
                                                     in enumerate(zip(a, b))), encoding="utf-8")
    assert main(["compare", str(path), "--a", "bm25", "--b", "dense", "--resamples", "2000",
                 "--json"]) == 0
    diff = json.loads(capsys.readouterr().out)["difference"]
    assert diff["interval"] == "calibrated_t"
    cal = diff["calibration"]
    assert {"null_rejection", "sets", "n", "interval", "promise", "exact", "resamples",
            "mc_se"} <= set(cal)
    assert cal["resample_sets"] == 1000 and 0 <= cal["resample_null_rejection"] <= 1
    assert cal["warning"] == (max(cal["null_rejection"], cal["resample_null_rejection"]) > 0.06)
    assert cal["survival_test"] == "bootstrap_t" and 0 < cal["survival_p"] <= 1
    assert {"survival_test", "survival_p", "self_check_rate"} <= set(diff["decision"])
    assert main(["compare", DEMO, "--resamples", "1000", "--json"]) == 0
    demo = json.loads(capsys.readouterr().out)["difference"]["calibration"]
    assert demo["survival_test"] == "mcnemar_exact" and demo["exact"] is True
    assert demo["resample_sets"] == 1000
