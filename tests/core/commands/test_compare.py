"""The CLI contract: `python -m core compare FILE [--json]`, exit 0 / 2, one-line errors."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from core.__main__ import main

ROOT = Path(__file__).resolve().parents[3]
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
    from core.inputs.metrics import REGISTRY

    spec = REGISTRY[name]
    words = {spec.name, *spec.aliases}
    return sorted({w for s in words for w in (s, s.upper())} |
                  ({spec.display} if spec.display.lower() in words else set()))


def test_lists_measure_accepts_every_registry_alias(capsys):
    """``--format lists --measure``: each list metric under every alias of the registry
    compares the same per-case values as its canonical name."""
    from core.inputs.lists import LIST_METRICS

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
    from core.inputs.metrics import REGISTRY, RANK_MEASURES

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
    closed form of core.paired.intervals on the file's B - A; on 0/1 outcomes it falls back to the
    calibrated default (Tango) and says so by name."""
    import numpy as np

    from core.paired.intervals import score_intervals
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
    assert cal["shown_rate"] == max(cal["null_rejection"], cal["resample_null_rejection"])
    assert cal["warn_above"] == pytest.approx(0.06 + 0.6 / np.count_nonzero(b - a))
    assert not cal["warning"] or cal["shown_rate"] > cal["warn_above"]
    assert cal["survival_test"] == "bootstrap_t" and 0 < cal["survival_p"] <= 1
    assert {"survival_test", "survival_p", "self_check_rate"} <= set(diff["decision"])
    assert main(["compare", DEMO, "--resamples", "1000", "--json"]) == 0
    demo = json.loads(capsys.readouterr().out)["difference"]["calibration"]
    assert demo["survival_test"] == "mcnemar_exact" and demo["exact"] is True
    assert demo["resample_sets"] == 1000
    # the demo's 8 discordant pairs: the conditional sign-flip rate (7.0%) does not warn
    assert demo["null_rejection"] > 0.06 and demo["warning"] is False
    assert demo["shown_rate"] == demo["resample_null_rejection"] < 0.06


def _trec_args(*more):
    d = ROOT / "data" / "demo_trec"
    return ["compare", str(d / "bm25.run"), str(d / "dense.run"), "--format", "trec",
            "--qrels", str(d / "qrels.txt"), "--resamples", "500", *more]


def test_trec_groups_side_file_and_judged_in_json(tmp_path, capsys):
    from core.inputs.groups import compare_by_group, read_group_file
    from core.inputs.judged import trec_bounds
    from core.inputs.trec import read_qrels, read_run, score_runs

    groups = tmp_path / "groups.csv"
    groups.write_text("qid,group\n" + "".join(f"q{i:02d},{'short' if i % 3 else 'long'}\n"
                                               for i in range(1, 51)), encoding="utf-8")
    pool = tmp_path / "pool.csv"
    assert main(_trec_args("--groups", str(groups), "--unjudged-csv", str(pool),
                           "--json")) == 0
    out = json.loads(capsys.readouterr().out)
    assert [g["group"] for g in out["groups"]] == ["short", "long"]
    assert out["groups_test"]["correction"]["tests"] == "holm"
    assert out["groups_test"]["interaction"]["p"] > 0
    # the same numbers as the core functions on the same per-query values
    d = ROOT / "data" / "demo_trec"
    ts = score_runs([read_run((d / n).read_bytes(), n) for n in ("bm25.run", "dense.run")],
                    read_qrels((d / "qrels.txt").read_bytes(), "qrels.txt"), ["nDCG@10"])
    vals = ts.values["nDCG@10"]
    gc = compare_by_group(list(vals.index), vals["bm25"], vals["dense"],
                          read_group_file(groups.read_bytes(), "g.csv"), resamples=500)
    assert out["groups"] == json.loads(json.dumps([g.to_dict() for g in gc.groups]))
    jb = trec_bounds(ts, "bm25", "dense", resamples=500)
    assert out["judged"]["methods"]["dense"]["judged@10"] == pytest.approx(
        float(jb.judged["dense"].mean()))
    assert out["judged"]["verdict"] == {"unjudged_nonrelevant": jb.verdict_low,
                                        "unjudged_relevant": jb.verdict_high}
    rows = pool.read_text(encoding="utf-8-sig").splitlines()
    assert rows[0] == "query_id,query,doc_id,best_rank,methods"
    assert len(rows) - 1 == out["judged"]["pool_size"] == len(jb.pool)
    assert main(_trec_args("--groups", str(groups))) == 0
    text = capsys.readouterr().out
    assert "By query group" in text and "Judged@10" in text


def test_golden_group_column_gives_groups(tmp_path, capsys):
    f = tmp_path / "g.csv"
    rows = ["case_id,그룹,A,B"] + [f"c{i},{'ko' if i < 20 else 'en'},{i % 2},{int(i < 20 or i % 3 == 0)}"
                                   for i in range(40)]
    f.write_text("\n".join(rows) + "\n", encoding="utf-8")
    assert main(["compare", str(f), "--resamples", "500", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["methods"].keys() == {"A", "B"}
    assert [g["group"] for g in out["groups"]] == ["ko", "en"]
    assert out["groups_test"]["column"] == "그룹" and "judged" not in out


def test_bad_group_file_exits_2_naming_row_and_column(tmp_path):
    g = tmp_path / "groups.csv"
    g.write_text("qid,group\nq01,short\nq02,\n", encoding="utf-8")
    d = ROOT / "data" / "demo_trec"
    p = _run("compare", str(d / "bm25.run"), str(d / "dense.run"), "--format", "trec",
             "--qrels", str(d / "qrels.txt"), "--groups", str(g), "--resamples", "200")
    assert p.returncode == 2
    assert "row 3" in p.stderr and "'group'" in p.stderr and "groups.csv" in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1

LISTS = str(ROOT / "data" / "demo_lists.csv")


def test_systems_mode_leads_with_the_tied_for_best_set(capsys):
    from core.paired.best import best_set
    from core.inputs.lists import load_lists, score_lists

    assert main(["compare", LISTS, "--format", "lists", "--resamples", "1000", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    scores = score_lists(load_lists(Path(LISTS).read_bytes(), "demo_lists.csv"), 10)
    ref = best_set(scores.values["ndcg@10"], resamples=1000, seed=0)
    assert d["best_set"]["best"] == list(ref.best)
    assert [(r["system"], r["rank_low"], r["rank_high"]) for r in d["best_set"]["ranks"]] == \
        [(r.name, r.rank_low, r.rank_high) for r in ref.ranks]
    assert d["multiple"]["adjustment"] == "holm"
    assert all(p["p_adjusted"] == p["p_holm"] for p in d["pairs"])
    assert main(["compare", LISTS, "--format", "lists", "--resamples", "1000"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("Tied for best (95%, all 3 systems at once")
    assert out[1].strip().startswith("Best: ")
    assert "Holm-Bonferroni adjusted p" in "\n".join(out)


def test_correction_bh_adjusts_like_statsmodels(capsys):
    from statsmodels.stats.multitest import multipletests

    assert main(["compare", LISTS, "--format", "lists", "--resamples", "1000",
                 "--correction", "bh", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["multiple"]["adjustment"] == "bh"
    raw = [p["p"] for p in d["pairs"]]
    assert [p["p_adjusted"] for p in d["pairs"]] == pytest.approx(
        multipletests(raw, method="fdr_bh")[1])
    assert [p["p_holm"] for p in d["pairs"]] == pytest.approx(
        multipletests(raw, method="holm")[1])
    assert main(["compare", LISTS, "--format", "lists", "--resamples", "1000",
                 "--correction", "bh"]) == 0
    text = capsys.readouterr().out
    assert "Benjamini-Hochberg adjusted p" in text and "false discovery rate" in text
    assert "p_bh" in text
    p = _run("compare", LISTS, "--format", "lists", "--correction", "fdr")
    assert p.returncode == 2 and "fdr" in p.stderr


def test_correction_choices_are_core_multi_s():
    from core.commands.compare import CORRECTIONS
    from core.paired.multi import CORRECTIONS as CORE

    assert CORRECTIONS == CORE


def test_margin_off_by_default_changes_nothing(capsys):
    base = ["compare", DEMO, "--resamples", "1000", "--json"]
    assert main(base) == 0
    plain = json.loads(capsys.readouterr().out)
    assert "margin" not in plain
    assert main(base + ["--margin", "0.05"]) == 0
    with_margin = json.loads(capsys.readouterr().out)
    block = with_margin.pop("margin")
    assert with_margin == plain
    assert block["margin"] == 0.05 and block["test"] == "tango_exact" and block["kind"] == "rate"
    assert block["verdict"] in ("non_inferior", "equivalent", "inferior", "inconclusive")
    assert block["ci_low"] == plain["difference"]["ci_low"]


@pytest.mark.parametrize("text", ["0.05", "5pp", "5%p", "5%"])
def test_margin_spellings_for_rates_agree(text, capsys):
    assert main(["compare", DEMO, "--resamples", "1000", "--json", "--margin", text]) == 0
    assert json.loads(capsys.readouterr().out)["margin"]["margin"] == pytest.approx(0.05)


def test_margin_text_answers_in_plain_words(capsys):
    # title-only − RRF = +6.5 %p [-12.8 %p, +25.7 %p]: above -15 %p, not inside ±15 %p
    assert main(["compare", DEMO, "--a", "RRF", "--b", "title-only", "--resamples", "1000",
                 "--margin", "15pp"]) == 0
    out = capsys.readouterr().out
    assert ("title-only scores +6.5 %p vs RRF; at worst -12.8 %p, within the 15.0 %p you "
            "allowed." in out)
    assert "Margin 15.0 %p: non-inferior" in out
    assert main(["compare", DEMO, "--resamples", "1000", "--margin", "30pp"]) == 0
    assert ("Equivalent within ±30.0 %p: RRF scores -6.5 %p vs title-only; at worst "
            "-25.7 %p, at best +12.8 %p" in capsys.readouterr().out)
    assert main(["compare", DEMO, "--resamples", "1000", "--margin", "0.05"]) == 0
    assert ("Cannot tell yet at a margin of 5.0 %p: RRF scores -6.5 %p vs title-only, but "
            "at worst -25.7 %p" in capsys.readouterr().out)


@pytest.mark.parametrize("text,needle", [("2", "ambiguous"), ("0.5", "ambiguous"),
                                         ("abc", "not a number"), ("-1pp", "not a number")])
def test_ambiguous_or_bad_margin_exits_2_with_one_line(text, needle):
    p = _run("compare", DEMO, "--resamples", "1000", f"--margin={text}")
    assert p.returncode == 2 and p.stdout == ""
    assert needle in p.stderr and len(p.stderr.strip().splitlines()) == 1


def test_margin_in_the_systems_mode_and_for_scores(capsys):
    lists = str(ROOT / "data" / "demo_lists.csv")
    assert main(["compare", lists, "--format", "lists", "--resamples", "1000", "--json",
                 "--margin", "0.05"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["margin"]["kind"] == "score" and d["margin"]["test"] == "signflip_tie_bootstrap"
    # a score margin reads the card's interval, each end moved out to the skew guard's at
    # half its noise allowance (issue 36): never narrower than the card's
    assert d["margin"]["ci_low"] <= d["difference"]["ci_low"] and "pairs" in d
    assert d["margin"]["ci_high"] >= d["difference"]["ci_high"]
    p = _run("compare", lists, "--format", "lists", "--resamples", "1000", "--margin", "5pp")
    assert p.returncode == 2 and "percentage points" in p.stderr


def test_trec_group_file_naming_other_queries(tmp_path, capsys):
    """A side file's ids beyond the runs are named (text and JSON); one naming none of the
    runs' queries is refused with the file named, exit code 2."""
    groups = tmp_path / "groups.csv"
    groups.write_text("qid,group\n" + "".join(f"q{i:02d},{'a' if i % 2 else 'b'}\n"
                                              for i in range(1, 51)) + "zz9,a\n",
                      encoding="utf-8")
    assert main(_trec_args("--groups", str(groups), "--json")) == 0
    assert json.loads(capsys.readouterr().out)["groups_test"]["unmatched"] == ["zz9"]
    assert main(_trec_args("--groups", str(groups))) == 0
    assert "1 query id in the group file is not among the compared queries" in \
        capsys.readouterr().out
    groups.write_text("qid,group\nnope,a\n", encoding="utf-8")
    assert main(_trec_args("--groups", str(groups))) == 2
    err = capsys.readouterr().err
    assert str(groups) in err and "none of the 1 query ids" in err and "nope" in err


def test_scores_give_each_method_its_calibrated_t_interval(tmp_path, capsys):
    """Issue 25: JSON names the per-method interval of scores ("calibrated_t", with the
    studentized resamples drawn) and the text line says the same; the numbers are
    ``core.paired.method_intervals.mean_intervals``'s, inside [0, 1] for scores in [0, 1]."""
    import numpy as np

    from core.paired.method_intervals import mean_intervals
    rng = np.random.default_rng(9)
    a, b = (rng.beta(0.5, 3, 12).round(4), rng.beta(0.6, 3, 12).round(4))
    f = tmp_path / "scores.csv"
    f.write_text("case_id,A,B\n" + "".join(f"c{i},{x},{y}\n" for i, (x, y) in
                                           enumerate(zip(a, b))), encoding="utf-8")
    assert main(["compare", str(f), "--resamples", "3000", "--seed", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    lo, hi, drawn = mean_intervals(np.vstack((a, b)), resamples=3000, seed=2)
    for i, name in enumerate("AB"):
        m = out["methods"][name]
        assert m["interval"] == "calibrated_t" and m["resamples"] == drawn == 3000
        assert (m["ci_low"], m["ci_high"]) == pytest.approx((lo[i], hi[i]), abs=1e-12)
        assert 0.0 <= m["ci_low"] < m["rate"] < m["ci_high"] <= 1.0
    assert main(["compare", str(f), "--resamples", "3000", "--seed", "2"]) == 0
    assert capsys.readouterr().out.count("95% calibrated_t [") == 2


def test_labels_name_the_interval_and_resample_only_where_it_resampled(tmp_path, capsys):
    """Issue 36, item 4: Tango's interval is closed form, so the CI line gives no resamples
    and JSON says ``interval_resamples: 0`` (``resamples`` is the chart's bootstrap); the
    calibrated t reads its ends off the bootstrap-t, so both name the resamples; the
    per-method scores print on the difference's scale (0.xxx, never %)."""
    import numpy as np

    assert main(["compare", DEMO, "--resamples", "2000"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if "95% CI" in x)
    assert "CI (tango, closed form: no resampling)" in line and "resamples" not in line
    assert main(["compare", DEMO, "--resamples", "2000", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)["difference"]
    assert (d["interval"], d["interval_resampled"], d["interval_resamples"]) == ("tango", False, 0)
    rng = np.random.default_rng(5)
    a = rng.uniform(0.2, 0.7, 14).round(3)
    b = (a + rng.normal(0.03, 0.1, 14)).clip(0, 1).round(3)
    f = tmp_path / "scores.csv"
    f.write_text("case_id,A,B\n" + "".join(f"c{i},{x},{y}\n" for i, (x, y) in
                                           enumerate(zip(a, b))), encoding="utf-8")
    assert main(["compare", str(f), "--resamples", "3000", "--seed", "4"]) == 0
    out = capsys.readouterr().out
    assert "CI (calibrated_t, paired bootstrap: 3,000 resamples, seed 4)" in out
    assert f"  A: {a.mean():.3f}  95% calibrated_t [" in out
    assert "%" not in out.split("\n")[1].replace("95%", "")
    assert main(["compare", str(f), "--resamples", "3000", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)["difference"]
    assert (d["interval_resampled"], d["interval_resamples"]) == (True, 3000)
    assert d["mcnemar_midp"] is None and d["mcnemar_exact"] is None


def test_mcnemar_keys_say_which_p_they_hold(capsys):
    """Issue 36, item 4: ``mcnemar_midp`` (the verdict's test) and ``mcnemar_exact`` against
    scipy's exact binomial test on the discordant pairs; ``mcnemar_p`` kept one release as
    the mid-p; the text names both."""
    from scipy.stats import binomtest

    assert main(["compare", DEMO, "--resamples", "1000", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)["difference"]
    t = d["table"]
    exact = binomtest(t["b_only"], t["a_only"] + t["b_only"], 0.5).pvalue
    assert d["mcnemar_exact"] == pytest.approx(exact, abs=1e-12)
    assert d["mcnemar_midp"] == d["mcnemar_p"] < d["mcnemar_exact"]
    k, m = min(t["a_only"], t["b_only"]), t["a_only"] + t["b_only"]
    mid = 2 * (binomtest(k, m, 0.5, alternative="less").pvalue - 0.5 * 0.5 ** m
               * __import__("math").comb(m, k))
    assert d["mcnemar_midp"] == pytest.approx(mid, abs=1e-12)
    assert main(["compare", DEMO, "--resamples", "1000"]) == 0
    out = capsys.readouterr().out
    assert "McNemar mid-p p = 0.508 (the verdict's test)" in out
    assert "McNemar exact p = 0.727" in out


def test_best_method_and_harm_options(capsys):
    """--best-method all-pairs names the all-pairs set (default mcb); --harm adds the harm
    block of A vs B equal to core.paired.harm.no_harm; without them neither key changes."""
    from core.inputs.lists import load_lists, score_lists
    from core.paired.best import best_set
    from core.paired.harm import no_harm

    base = ["compare", LISTS, "--format", "lists", "--resamples", "1000", "--json"]
    assert main(base) == 0
    plain = json.loads(capsys.readouterr().out)
    assert plain["best_set"]["method"] == "mcb" and "harm" not in plain
    assert main([*base, "--best-method", "all-pairs", "--harm", "--alpha", "5"]) == 0
    d = json.loads(capsys.readouterr().out)
    scores = score_lists(load_lists(Path(LISTS).read_bytes(), "demo_lists.csv"), 10)
    ref = best_set(scores.values["ndcg@10"], resamples=1000, seed=0, method="all-pairs")
    assert d["best_set"]["method"] == "all-pairs" and d["best_set"]["best"] == list(ref.best)
    table = scores.values["ndcg@10"]
    a, b = table.columns[:2]
    both = table[[a, b]].dropna()
    h = no_harm(both[a].to_numpy(), both[b].to_numpy(), alpha=5)
    assert d["harm"]["hurt_share"] == pytest.approx(h.hurt_share)
    assert d["harm"]["hurt_ci"] == pytest.approx(list(h.hurt_ci))
    assert d["harm"]["trisk"] == pytest.approx(h.trisk) and d["harm"]["alpha"] == 5
    assert d["harm"]["delta"] == 0.05  # scores
    assert {k: v for k, v in d.items() if k not in ("harm", "best_set")} == \
        {k: v for k, v in plain.items() if k != "best_set"}
    assert main([*base[:-1], "--harm"]) == 0
    text = capsys.readouterr().out
    assert "TRisk (α = 2" in text and f"{h.hurt}/{h.n}" in text


def test_the_labels_name_the_skew_guard_when_it_moved_an_end(tmp_path, capsys):
    """Issue 36, item 4: when the skew guard widened the interval of B − A, the CLI line says
    'calibrated_t + skew guard', JSON ``interval_skew_guard`` is true and the card's tile
    names it in EN and KO; otherwise none of them does."""
    import numpy as np
    from core.paired import compare_paired
    from core.views.paired import paired_view

    cases = []
    for seed in (0, 9):   # right-skewed differences: the guard moves the upper end (0), not (9)
        rng = np.random.default_rng(seed)
        a = rng.uniform(0.3, 0.6, 20).round(3)
        b = (a + rng.lognormal(0, 0.8, 20) * 0.05 - 0.05).clip(0, 1).round(3)
        cases.append((a, b, seed == 0))
    for a, b, guarded in cases:
        f = tmp_path / "scores.csv"
        f.write_text("case_id,A,B\n" + "".join(f"c{i},{x},{y}\n" for i, (x, y) in
                                               enumerate(zip(a, b))), encoding="utf-8")
        c = compare_paired(a, b, resamples=3000, seed=4)
        assert c.bootstrap.skew_guard is guarded
        assert main(["compare", str(f), "--resamples", "3000", "--seed", "4"]) == 0
        line = next(x for x in capsys.readouterr().out.splitlines() if "95% CI" in x)
        assert ("CI (calibrated_t + skew guard, paired bootstrap: 3,000 resamples, seed 4)"
                in line) is guarded
        assert main(["compare", str(f), "--resamples", "3000", "--seed", "4", "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["difference"]["interval_skew_guard"] is \
            guarded
        for lang, word in (("en", "skew guard"), ("ko", "왜도 보호")):
            assert (word in paired_view(c, lang=lang).difference.caption) is guarded


def test_too_few_differing_cases_widen_the_interval_to_reach_zero(tmp_path, capsys):
    """Issue 36 (recall@100 on scifact, 91% ties): with 4 equal gains and 26 ties the
    calibrated t-interval of B − A left out 0 ([+0.0004, +0.0306]) while no exact test can
    reach p < 0.05 with 4 non-zero differences (smallest p 2 / 2^4 = 0.125). The interval now
    reaches 0, the CLI line and JSON say so (``interval_reaches_zero``), the card names it in
    EN and KO, the verdict's reason stays "too few", and the self-check on the same data no
    longer reads above its promise. With 6 gains (smallest p 0.031) nothing changes."""
    import numpy as np
    from scipy import stats as sps
    from core.paired import compare_paired
    from core.paired.skew_intervals import calibrated_t_interval
    from core.paired.resampling import difference_draws
    from core.views.paired import paired_view

    for gains, reaches in ((4, True), (5, True), (6, False)):
        a = np.full(30, 0.5)
        b = a.copy()
        b[:gains] += 0.095
        f = tmp_path / f"few{gains}.csv"
        f.write_text("case_id,A,B\n" + "".join(f"c{i},{x},{y}\n" for i, (x, y) in
                                               enumerate(zip(a, b))), encoding="utf-8")
        c = compare_paired(a, b, resamples=3000, seed=4)
        bs = c.bootstrap
        d = b - a
        means, sds = difference_draws(d, 3000, 4, True)
        t_lo, t_hi = calibrated_t_interval(d[None, :], means[None, :], sds, 0.95)
        # the smallest exact p is the all-one-side sign test's, as scipy's binomtest gives it
        assert c.test.min_p == pytest.approx(sps.binomtest(gains, gains, 0.5).pvalue)
        assert bs.reaches_zero is reaches
        if reaches:
            assert t_lo[0] > 0   # the t-type interval alone would leave out 0 ...
            assert bs.ci_low == 0.0 and bs.ci_high >= t_hi[0]   # ... it now reaches 0
            assert c.verdict == "no_difference" and c.decision.reason == "too_few_nonzero"
            assert c.calibration is None or c.calibration.null_rejection <= 0.05
        else:
            assert bs.ci_low > 0 and c.test.p < 0.05
        assert main(["compare", str(f), "--resamples", "3000", "--seed", "4"]) == 0
        line = next(x for x in capsys.readouterr().out.splitlines() if "95% CI" in x)
        assert ("reaches 0 (too few cases differ)" in line) is reaches
        assert main(["compare", str(f), "--resamples", "3000", "--seed", "4", "--json"]) == 0
        diff = json.loads(capsys.readouterr().out)["difference"]
        assert diff.get("interval_reaches_zero", False) is reaches
        assert (diff["ci_low"] == 0.0) is reaches
        for lang, word in (("en", "widened to reach 0"), ("ko", "0까지 넓힘")):
            assert (word in paired_view(c, lang=lang).difference.caption) is reaches
