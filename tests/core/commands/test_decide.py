"""``python -m core decide``: exit codes 0 switch / 1 do not switch / 3 inconclusive / 2 bad
input on generated files, JSON equal to core.switch, and a clear message when the two files
name different methods."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.__main__ import main
from core.switch import decide_files
from tests.core.test_switch import CLOSE, WORSE, golden_csv, latency_csv, scores_csv
from tests.shared_data import TINY

ROOT = Path(__file__).resolve().parents[3]

FAST = ["--resamples", "1000", "--quantile-resamples", "50", "--seed", "3"]


@pytest.fixture
def files(tmp_path):
    def write(name, data):
        p = tmp_path / name
        p.write_bytes(data)
        return str(p)
    return write


@pytest.mark.parametrize("quality, latency, margin, extra, code", [
    (golden_csv(CLOSE), latency_csv(0.7), "0.02", [], 0),
    (golden_csv(CLOSE), latency_csv(0.7), "2pp", ["--max-slowdown", "0.5"], 1),
    (golden_csv(WORSE), latency_csv(0.7), "0.02", [], 1),
    (golden_csv(CLOSE), latency_csv(0.7), "0.01", [], 3),
    (scores_csv(80, 0.0), latency_csv(0.8), "0.05", [], 0),
])
def test_exit_codes(files, capsys, quality, latency, margin, extra, code):
    q, lg = files("q.csv", quality), files("l.csv", latency)
    assert main(["decide", "--quality", q, "--latency", lg, "--margin", margin, *FAST,
                 *extra]) == code
    assert f"exit code {code}" in capsys.readouterr().out
    assert main(["decide", "--quality", q, "--latency", lg, "--margin", margin, "--json",
                 *FAST, *extra]) == code
    out = json.loads(capsys.readouterr().out)
    assert out["exit_code"] == code


def test_json_equals_core(files, capsys):
    q, lg = files("q.csv", golden_csv(CLOSE)), files("l.csv", latency_csv(0.7))
    main(["decide", "--quality", q, "--latency", lg, "--margin", "0.01", "--json", *FAST])
    out = json.loads(capsys.readouterr().out)
    dec = decide_files(golden_csv(CLOSE), q, latency_csv(0.7), lg, margin=0.01,
                       resamples=1000, quantile_resamples=50, seed=3)
    assert out["decision"] == "inconclusive" and out["a"] == "base" and out["b"] == "cand"
    assert out["conditions"]["quality"]["bound"] == dec.quality_condition.bound
    assert out["speed"]["ci_high"] == dec.ratio_high
    assert out["next_step"]["n_needed"] == dec.next_step.n_needed


@pytest.mark.parametrize("argv, words", [
    (["--margin", "0.02"], ["'cand'", "q.csv", "l.csv", "base, cand", "base, new"]),
    (["--margin", "2"], ["ambiguous"]),
    (["--margin", "0.02", "--a", "nope"], ["'nope'"]),
    (["--margin", "0.02", "--max-slowdown", "-1"], ["max_slowdown"]),
])
def test_bad_input_exits_2_with_one_clear_line(files, capsys, argv, words):
    q = files("q.csv", golden_csv(CLOSE))
    lg = files("l.csv", latency_csv(0.7, names=("base", "new")) if "'cand'" in words[0]
               else latency_csv(0.7))
    assert main(["decide", "--quality", q, "--latency", lg, *argv, *FAST]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and all(w in err for w in words), err


def test_missing_file_exits_2(files, capsys):
    q = files("q.csv", golden_csv(CLOSE))
    assert main(["decide", "--quality", q, "--latency", q + ".nope", "--margin", "0.02"]) == 2


def test_retrieval_lists_as_the_quality_file(files, capsys):
    """--format lists: the demo retrieval lists scored by nDCG@10 per case, against a timing
    log that names the same methods; the quality bound is compare --format lists's CI."""
    from pathlib import Path

    from core.inputs.systems import compare_golden
    from core.inputs.lists import load_lists, score_lists
    root = Path(__file__).resolve().parents[3]
    data = (root / "data" / "demo_lists.csv").read_bytes()
    q = files("lists.csv", data)
    lg = files("l.csv", latency_csv(0.6, names=("bm25", "hybrid")))
    code = main(["decide", "--format", "lists", "--quality", q, "--latency", lg,
                 "--a", "bm25", "--b", "hybrid", "--margin", "0.05", "--json", *FAST])
    out = json.loads(capsys.readouterr().out)
    assert code == out["exit_code"] and out["kind"] == "score"
    gs = score_lists(load_lists(data, file=q), 10).golden("ndcg@10")
    from core.paired import margin_decision
    # the quality bound is the score margin's: the card's interval, each end moved out to the
    # skew guard's at half its noise allowance (issue 36), never narrower than the card's
    comp = compare_golden(gs, "bm25", "hybrid", resamples=1000, seed=3).comparison
    want = margin_decision(comp, 0.05)
    assert out["quality"]["ci_low"] == want.ci_low and out["quality"]["ci_high"] == want.ci_high
    assert want.ci_low <= comp.bootstrap.ci_low and want.ci_high >= comp.bootstrap.ci_high


TREC = Path(__file__).resolve().parents[3] / "data" / "demo_trec"


@pytest.mark.parametrize("ratio, margin, slow, code", [
    (0.7, "0.2", "1.10", 0),     # dense within 0.2 nDCG@10 and faster: switch
    (1.5, "0.2", "1.10", 1),     # 1.5x slower: do not switch
    (0.7, "0.01", "1.10", 3),    # 0.01 is too tight for 50 queries: cannot tell
])
def test_trec_runs_as_quality_exit_codes(files, capsys, ratio, margin, slow, code):
    """--format trec: run files with --qrels, scored per query by ir_measures as compare
    --format trec does; the JSON equals core.switch on the same bytes."""
    lg = files("l.csv", latency_csv(ratio, names=("bm25", "dense")))
    runs = [str(TREC / "bm25.run"), str(TREC / "dense.run")]
    argv = ["decide", "--format", "trec", "--quality", *runs, "--qrels",
            str(TREC / "qrels.txt"), "--latency", lg, "--margin", margin, "--max-slowdown",
            slow, *FAST]
    assert main(argv) == code
    assert f"exit code {code}" in capsys.readouterr().out
    assert main([*argv, "--json"]) == code
    out = json.loads(capsys.readouterr().out)
    want = decide_files((TREC / "qrels.txt").read_bytes(), str(TREC / "qrels.txt"),
                        latency_csv(ratio, names=("bm25", "dense")), lg, margin=float(margin),
                        max_slowdown=float(slow), quality_format="trec",
                        runs=tuple((r, Path(r).read_bytes()) for r in runs),
                        resamples=1000, quantile_resamples=50, seed=3)
    assert out["exit_code"] == code and out["quality"]["ci_low"] == want.quality.ci_low
    assert out["sources"]["quality"].endswith("qrels.txt [nDCG@10]")


@pytest.mark.parametrize("argv, words", [
    (["--format", "trec"], ["--qrels"]),
    (["--format", "golden", "--qrels", "x"], ["one file", "--format trec"]),
])
def test_trec_usage_errors_exit_2(files, capsys, argv, words):
    lg = files("l.csv", latency_csv(0.7, names=("bm25", "dense")))
    runs = [str(TREC / "bm25.run"), str(TREC / "dense.run")]
    assert main(["decide", "--quality", *runs, "--latency", lg, "--margin", "0.2", *argv,
                 *FAST]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and all(w in err for w in words), err


def test_an_unsure_speed_gives_the_queries_needed(files, capsys):
    q = files("q.csv", golden_csv(CLOSE))
    lg = files("l.csv", latency_csv(1.05, n=12, noise=0.15))
    assert main(["decide", "--quality", q, "--latency", lg, "--margin", "0.02",
                 "--max-slowdown", "1.2", "--json", *FAST]) == 3
    out = json.loads(capsys.readouterr().out)
    step = out["next_step_speed"]
    assert out["conditions"]["speed"]["state"] == "unsure"
    assert step["n_needed"] > step["n_have"] == 12 and step["max_slowdown"] == 1.2
    assert step["plan"]["n_queries"] == step["n_needed"]


def test_scifact_as_quality_end_to_end(tmp_path):
    """--scifact on the tiny BEIR fixture (BM25 vs the bundled model, the embedding cache in
    a temporary folder): the quality is the comparison `python -m core scifact` prints. Both
    commands run in one child process (the model loads once)."""
    lg = tmp_path / "l.csv"
    lg.write_bytes(latency_csv(0.7, names=("bm25", "dense")))
    common = ["--data", str(TINY), "--resamples", "500", "--seed", "3", "--margin", "0.1",
              "--json"]
    decide = ["decide", "--scifact", "--latency", str(lg), "--quantile-resamples", "50",
              "--measure", "RR@10", *common]
    scifact = ["scifact", "--a", "bm25", "--b", "dense", "--metric", "RR@10", *common]
    code = ("import sys; from core.__main__ import main; "
            f"c = main({decide!r}); print('\\x1e'); main({scifact!r}); sys.exit(c)")
    env = {**os.environ, "NOISEFLOOR_CACHE_DIR": str(tmp_path)}
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                       text=True, timeout=300)
    assert p.returncode in (0, 1, 3), p.stderr
    first, second = p.stdout.split("\x1e")
    out, want = json.loads(first), json.loads(second)
    assert out["exit_code"] == p.returncode and (out["a"], out["b"]) == ("bm25", "dense")
    assert out["quality"] == want["margin"]
    assert out["sources"]["quality"] == f"{want['collection']} [mrr@10]"
    assert out["n_cases"] == want["n_queries"]


@pytest.mark.parametrize("max_harm, code, state", [("0.1", 0, "holds"), ("0.03", 3, "unsure"),
                                                   ("0.01", 1, "fails")])
def test_max_harm_is_a_third_condition(files, capsys, max_harm, code, state):
    """CLOSE: B wrong where A was right on 17 of 600 cases (2.8%, Wilson [1.8%, 4.5%]); quality
    and speed hold, so the harm condition alone decides: holds at 10%, unsure at 3%, fails at
    1%; the card names it; without --max-harm the JSON has no harm keys."""
    from core.paired import no_harm
    q, lg = files("q.csv", golden_csv(CLOSE)), files("l.csv", latency_csv(0.7))
    argv = ["decide", "--quality", q, "--latency", lg, "--margin", "0.02", *FAST]
    assert main([*argv, "--max-harm", max_harm, "--json"]) == code
    out = json.loads(capsys.readouterr().out)
    a = [1] * 480 + [0] * 84 + [0] * 19 + [1] * 17
    b = [1] * 480 + [0] * 84 + [1] * 19 + [0] * 17
    ref = no_harm(a, b)
    assert out["conditions"]["harm"]["state"] == state and out["max_harm"] == float(max_harm)
    assert out["harm"]["hurt_share"] == pytest.approx(17 / 600)
    assert out["harm"]["hurt_ci"] == pytest.approx(list(ref.hurt_ci))
    assert out["harm"]["trisk"] == pytest.approx(ref.trisk) and out["harm"]["alpha"] == 2
    assert out["conditions"]["harm"]["bound"] == pytest.approx(
        ref.hurt_ci[0] if state == "fails" else ref.hurt_ci[1])
    assert main([*argv, "--max-harm", max_harm]) == code
    text = capsys.readouterr().out
    first = text.splitlines()[0]
    if state == "holds":
        assert "Harm holds" in text and "17/600" in text
    else:  # the sentence names the failing condition: harm, not quality or speed
        assert "2.8%" in first and "hurts" in first and "time" not in first
    assert main([*argv, "--json"]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert "harm" not in plain and "max_harm" not in plain and "harm" not in plain["conditions"]


def test_max_harm_refuses_a_share_outside_0_1(files, capsys):
    q, lg = files("q.csv", golden_csv(CLOSE)), files("l.csv", latency_csv(0.7))
    assert main(["decide", "--quality", q, "--latency", lg, "--margin", "0.02", *FAST,
                 "--max-harm", "1.5"]) == 2
    assert "--max-harm" in capsys.readouterr().err
