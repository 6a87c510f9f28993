"""Issue 32 across the CLI: files without a cluster or run column give the outputs recorded
before clusters existed (tests/fixtures/cli_recorded; text byte for byte, JSON value for
value), and a clustered file's JSON carries the clusters block and the verdict with clusters
as the unit."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
REC = ROOT / "tests" / "fixtures" / "cli_recorded"
FIX = ROOT / "tests" / "fixtures" / "clusters"

RECORDED = {
    "compare_golden.json": ["compare", "data/demo_golden.csv", "--json", "--resamples", "2000"],
    "compare_golden.txt": ["compare", "data/demo_golden.csv", "--resamples", "2000"],
    "compare_lists.json": ["compare", "--format", "lists", "data/demo_lists.csv", "--a", "bm25",
                           "--b", "dense", "--json", "--resamples", "2000"],
    "compare_trec.json": ["compare", "--format", "trec", "data/demo_trec/bm25.run",
                          "data/demo_trec/dense.run", "--qrels", "data/demo_trec/qrels.txt",
                          "--json", "--resamples", "2000"],
    "sample_size.json": ["sample-size", "--rate", "0.8", "--half-width", "0.05", "--json"],
    "sample_size.txt": ["sample-size", "--discordance", "0.2", "--diff", "0.05"],
}


def _run(*args):
    return subprocess.run([sys.executable, "-m", "core", *args], cwd=ROOT, capture_output=True,
                          timeout=300)


def _same_json(got, want, where="$"):
    """The recorded JSON again: the same keys in the same order, the same strings, integers,
    booleans and nulls, and floats equal up to the CPU's rounding (relative 1e-11). numpy's
    reductions and BLAS pick their SIMD kernels by CPU, so the last bits of a float may differ
    between machines (a critical value read 2.410684101492943 here, 2.4106841014929423 on CI)."""
    if isinstance(want, _Object):   # an object's (key, value) pairs, in order
        assert isinstance(got, _Object) and [k for k, _ in got] == [k for k, _ in want], where
        for (k, g), (_, w) in zip(got, want):
            _same_json(g, w, f"{where}.{k}")
    elif isinstance(want, list):
        assert type(got) is list and len(got) == len(want), where
        for i, (g, w) in enumerate(zip(got, want)):
            _same_json(g, w, f"{where}[{i}]")
    elif isinstance(want, float):
        assert isinstance(got, float) and got == pytest.approx(want, rel=1e-11, abs=1e-15), \
            (where, got, want)
    else:
        assert type(got) is type(want) and got == want, (where, got, want)


class _Object(list):
    """A JSON object read as its (key, value) pairs in order: not equal in kind to an array."""


def _pairs(text: bytes):
    return json.loads(text, object_pairs_hook=_Object)


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_outputs_without_clusters_are_unchanged(name):
    """Text outputs byte for byte; JSON outputs key for key and value for value (floats up to
    the CPU's rounding, ``_same_json``), with the recorded layout (indentation, key order)."""
    p = _run(*RECORDED[name])
    assert p.returncode == 0, p.stderr
    want = (REC / name).read_bytes()
    if name.endswith(".txt"):
        assert p.stdout == want
        return
    _same_json(_pairs(p.stdout), _pairs(want))
    assert p.stdout.count(b"\n") == want.count(b"\n")


def test_the_json_comparison_can_fail():
    """``_same_json`` tells a changed key, order, value or type apart from a float's last bits."""
    want = _pairs(b'{"a": 1, "b": [0.1, "x", null], "c": {"d": 2.410684101492943}}')
    _same_json(_pairs(b'{"a": 1, "b": [0.1, "x", null], "c": {"d": 2.4106841014929423}}'),
               want)
    for bad in (b'{"b": [0.1, "x", null], "a": 1, "c": {"d": 2.410684101492943}}',
                b'{"a": 1, "b": [0.1, "x", null], "c": {"d": 2.4106841}}',
                b'{"a": 1.0, "b": [0.1, "x", null], "c": {"d": 2.410684101492943}}',
                b'{"a": 1, "b": [0.1, "y", null], "c": {"d": 2.410684101492943}}',
                b'{"a": 1, "b": [0.1, "x"], "c": {"d": 2.410684101492943}}',
                b'{"a": 1, "b": [0.1, "x", null], "c": {"d": 2.410684101492943, "e": 0}}',
                b'{"a": 1, "b": [0.1, "x", null], "c": {"d": 2.410684101492943}, "e": {}}'):
        with pytest.raises(AssertionError):
            _same_json(_pairs(bad), want)
    with pytest.raises(AssertionError):   # an empty object is not an empty array
        _same_json(_pairs(b'{"e": {}}'), _pairs(b'{"e": []}'))
    with pytest.raises(AssertionError):
        _same_json(_pairs(b'{"e": []}'), _pairs(b'{"e": {}}'))


def test_clustered_golden_json():
    p = _run("compare", str(FIX / "golden_clustered.csv"), "--json", "--resamples", "2000")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    c = d["clusters"]
    assert c["column"] == "document" and c["n_clusters"] == 12 and c["mean_size"] == 4
    assert set(c) >= {"n_clusters", "mean_size", "icc", "design_effect", "effective_n"}
    assert c["effective_n"] == pytest.approx(48 / c["design_effect"])
    assert d["verdict"] == c["verdict"] and "verdict_independent_cases" in d
    assert c["difference"]["mean"] == pytest.approx(d["difference"]["b_minus_a"])
    assert "mcnemar_cluster" in c


def test_clustered_json_carries_the_cluster_self_check():
    """The self-check with the cluster as the unit (whole-cluster centred resamples, the card's
    interval recomputed on each): the CLI's block is the in-process one on the same cases and
    seed, and its rules decide the verdict."""
    import numpy as np

    from core.inputs import compare_golden, load_clustered
    from core.paired.cluster_check import cluster_self_check
    from core.paired.clusters import cluster_layout

    p = _run("compare", str(FIX / "golden_clustered.csv"), "--json", "--resamples", "2000")
    assert p.returncode == 0, p.stderr
    sc = json.loads(p.stdout)["clusters"]["self_check"]
    cl = load_clustered((FIX / "golden_clustered.csv").read_bytes(), "golden_clustered.csv")
    res = compare_golden(cl.golden, resamples=2000)
    labels = [cl.labels[i] for i in res.case_ids]
    d = np.asarray(res.b_values, float) - np.asarray(res.a_values, float)
    ref = cluster_self_check(d, cluster_layout(labels), 0.95, seed=0)
    assert sc["unit"] == "cluster" and sc["sets"] == 1000 and sc["n_clusters"] == 12
    assert sc["null_rejection"] == ref.null_rejection and sc["survival_p"] == ref.survival_p
    assert sc["warning"] == ref.warns and sc["withholds"] == ref.withholds
    text = _run("compare", str(FIX / "golden_clustered.csv"), "--resamples", "2000").stdout
    assert f"wrongly left out 0 in {100 * ref.null_rejection:.1f}%".encode() in text
    assert b"not re-run" not in text


def test_runs_file_json_and_text():
    p = _run("compare", str(FIX / "golden_runs.csv"), "--json", "--resamples", "2000")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert d["runs"]["k_max"] == 3 and d["runs"]["unequal_cases"] == ["d0q0"]
    assert 0 <= d["runs"]["within_share"] <= 1 and d["clusters"]["n_clusters"] == 10
    t = _run("compare", str(FIX / "golden_runs.csv"), "--resamples", "2000")
    out = t.stdout.decode()
    assert "Repeated runs ('run')" in out and "Unequal runs: 1 case" in out
    assert (out.index("Verdict (clusters as the unit)")
            < out.index("Below, the rates, paired tests and tables treat"))


def test_blank_cluster_is_exit_2_naming_rows(tmp_path):
    f = tmp_path / "g.csv"
    f.write_text("case_id,cluster,A,B\nq1,d1,1,0\nq2,,0,1\nq3,d2,1,1\nq4,d2,0,0\n")
    p = _run("compare", str(f))
    assert p.returncode == 2
    err = p.stderr.decode()
    assert "row 3" in err and "cluster" in err


def test_side_file_for_trec(tmp_path):
    qids = sorted({line.split()[0] for line in
                   (ROOT / "data/demo_trec/qrels.txt").read_text().splitlines() if line.strip()})
    side = tmp_path / "c.csv"
    side.write_text("qid,cluster\n" + "".join(f"{q},t{i % 7}\n" for i, q in enumerate(qids)))
    p = _run("compare", "--format", "trec", "data/demo_trec/bm25.run", "data/demo_trec/dense.run",
             "--qrels", "data/demo_trec/qrels.txt", "--clusters", str(side), "--json",
             "--resamples", "2000")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert d["clusters"]["file"] == str(side) and d["clusters"]["n_clusters"] == 7
    assert d["clusters"]["few"] is True


def test_hint_goes_to_stderr_only(tmp_path):
    f = tmp_path / "g.csv"
    f.write_text("case_id,A,B\n" + "".join(f"doc{d}_q{q},{(d + q) % 2},{d % 2}\n"
                                           for d in range(6) for q in range(3)))
    p = _run("compare", str(f), "--json", "--resamples", "500")
    assert p.returncode == 0 and "clusters" not in json.loads(p.stdout)
    assert b"cluster column" in p.stderr


def test_sample_size_with_clusters_and_runs():
    p = _run("sample-size", "--rate", "0.8", "--half-width", "0.05", "--icc", "0.2",
             "--cluster-size", "5", "--json")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    plan = d["clusters"]["plans"]["n_wilson"]
    assert plan["n_independent"] == d["n_wilson"] and plan["factor"] == pytest.approx(1.8)
    assert plan["n_clusters"] * 5 == plan["n_cases"] >= d["n_wilson"] * 1.8
    t = _run("sample-size", "--sigma", "0.2", "--runs", "3", "--run-share", "0.5")
    assert b"3 runs" in t.stdout and b"buy the most" in t.stdout
    bad = _run("sample-size", "--icc", "0.2")
    assert bad.returncode == 2 and b"--cluster-size" in bad.stderr


def _switch_file(tmp_path, cluster=True):
    rows = []
    for doc in range(8):
        for q in range(40):
            a, b = 1, 1
            if q < 5:
                a, b = (1, 0) if doc < 4 else (0, 1)
            rows.append(f"d{doc}q{q},{a},{b}" + (f",doc{doc}" if cluster else ""))
    f = tmp_path / ("s.csv" if cluster else "plain.csv")
    f.write_text("case_id,rerank,hybrid" + (",document" if cluster else "") + "\n"
                 + "\n".join(rows) + "\n")
    return f


def test_decide_takes_the_quality_condition_in_clusters(tmp_path):
    args = ["--latency", "data/demo_switch_latency.csv", "--margin", "5pp", "--resamples", "2000"]
    plain = _run("decide", "--quality", str(_switch_file(tmp_path, False)), *args, "--json")
    assert plain.returncode == 0, plain.stderr           # independent cases: switch
    assert "clusters" not in json.loads(plain.stdout)
    p = _run("decide", "--quality", str(_switch_file(tmp_path)), *args, "--json")
    assert p.returncode == 3, p.stderr                    # 8 documents: not shown
    d = json.loads(p.stdout)
    assert d["decision"] == "inconclusive" and d["conditions"]["quality"]["state"] == "unsure"
    c = d["clusters"]
    assert c["column"] == "document" and c["n_clusters"] == 8 and c["state"] == "unsure"
    assert c["decision_independent_cases"] == "switch" and c["ci_low"] < -0.05
    t = _run("decide", "--quality", str(_switch_file(tmp_path)), *args)
    assert t.stdout.decode().startswith("Quality with clusters as the unit (8 clusters)")


def _three_methods(tmp_path):
    """12 documents x 4 questions, a group column nested in the documents, three methods."""
    import numpy as np
    rng = np.random.default_rng(4)
    rows = []
    for doc in range(12):
        shift = rng.normal(0.05, 0.1)
        for q in range(4):
            a = float(np.clip(rng.random(), 0, 1))
            b = float(np.clip(a + shift + rng.normal(0, 0.05), 0, 1))
            c = float(np.clip(a - 0.3, 0, 1))
            rows.append(f"doc{doc}_q{q},doc{doc},{'early' if doc < 6 else 'late'},"
                        f"{a:.4f},{b:.4f},{c:.4f}")
    f = tmp_path / "three.csv"
    f.write_text("case_id,document,group,base,new,weak\n" + "\n".join(rows) + "\n")
    return f


def test_compare_margin_harm_groups_and_best_set_take_the_clusters(tmp_path):
    """Issue 32 item 2: with a cluster column, --margin, --harm, the groups and the best set
    all take the document as the unit (each checked against core on the same data), and the
    JSON keeps the independent-cases margin beside it."""
    import numpy as np
    import pandas as pd

    from core.inputs import compare_golden, load_clustered
    from core.inputs.groups import compare_by_group
    from core.paired import best_set, cluster_margin, no_harm
    f = _three_methods(tmp_path)
    p = _run("compare", str(f), "--a", "base", "--b", "new", "--margin", "0.02", "--harm",
             "--json", "--resamples", "2000")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    cl = load_clustered(f.read_bytes(), str(f))
    res = compare_golden(cl.golden, "base", "new", resamples=2000)
    labels = [cl.labels[i] for i in res.case_ids]
    cm = cluster_margin(res.a_values, res.b_values, labels, 0.02, resamples=2000)
    assert d["margin"]["unit"] == "clusters" and d["margin"]["state"] == cm.state
    assert d["margin"]["ci_low"] == pytest.approx(cm.ci_low)
    assert d["margin_independent_cases"]["margin"] == pytest.approx(0.02)
    h = no_harm(res.a_values, res.b_values, clusters=labels)
    assert d["harm"]["n_clusters"] == 12 and d["harm"]["hurt_ci"] == pytest.approx(h.hurt_ci)
    assert d["groups_test"]["unit"] == "clusters" and d["groups_test"]["clusters"] == "nested"
    gc = compare_by_group(res.case_ids, res.a_values, res.b_values, cl.golden.group_labels,
                          clusters=cl.labels, resamples=2000, name_a="base", name_b="new")
    assert [g["ci_low"] for g in d["groups"]] == pytest.approx([g.ci_low for g in gc.groups])
    scores = cl.golden.scores
    bs = best_set(scores, resamples=2000, clusters=[cl.labels[str(i)] for i in scores.index])
    assert d["best_set"]["unit"] == "clusters" and d["best_set"]["best"] == list(bs.best)
    assert "weak" in d["best_set"]["behind"]
    t = _run("compare", str(f), "--a", "base", "--b", "new", "--margin", "0.02", "--harm",
             "--resamples", "2000").stdout.decode()
    assert "Margin with clusters as the unit (12 clusters)" in t
    assert "No harm with clusters as the unit (12 clusters)" in t
    assert "Clusters as the unit in every group" in t
    assert "with the 12 clusters as the unit" in t          # the best set's reason line
    assert "Self-check with clusters" in t
    assert t.count("not worse than") <= 1   # the margin answered once, with clusters
    del np, pd


def test_decide_max_harm_takes_the_clusters(tmp_path):
    args = ["--latency", "data/demo_switch_latency.csv", "--margin", "5pp", "--resamples",
            "2000", "--max-harm", "0.2", "--json"]
    p = _run("decide", "--quality", str(_switch_file(tmp_path)), *args)
    d = json.loads(p.stdout)
    assert d["harm"]["n_clusters"] == 8 and d["harm"]["unit"] == "clusters"
    assert "harm_independent_cases" in d["clusters"]
    assert d["conditions"]["harm"]["bound"] == pytest.approx(d["harm"]["hurt_ci"][1])
    plain = json.loads(_run("decide", "--quality", str(_switch_file(tmp_path, False)),
                            *args).stdout)
    assert "n_clusters" not in plain["harm"]


def test_lists_with_repeated_runs_json_and_text(tmp_path):
    """A lists file with a trial column: the case value is its mean over runs (JSON metrics
    by hand), the runs block and line, and the line saying the judged bounds are left out."""
    f = tmp_path / "l.csv"
    f.write_text("case_id,query,gold_ids,trial,bm25,dense\n"
                 "q1,a,d1,1,d1|x,x|d1\nq1,a,d1,2,x|d1,d1\n"
                 "q2,b,d2,1,d2,x|d2\nq2,b,d2,2,d2,d2\n"
                 "q3,c,d3,1,x|d3,d3\nq3,c,d3,2,x,d3\n")
    p = _run("compare", "--format", "lists", str(f), "--measure", "mrr", "--json",
             "--resamples", "500")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    # bm25 reciprocal ranks by run: q1 (1, .5), q2 (1, 1), q3 (.5, 0); dense: (.5, 1), (.5, 1), (1, 1)
    assert d["metrics"]["mrr@10"]["bm25"] == pytest.approx((0.75 + 1 + 0.25) / 3)
    assert d["metrics"]["mrr@10"]["dense"] == pytest.approx((0.75 + 0.75 + 1) / 3)
    r = d["runs"]
    assert r["column"] == "trial" and r["k"] == 2 and r["equal_k"] and r["n_cases"] == 3
    assert r["sign_flips"] == 1   # q1: B − A is -.5 in run 1, +.5 in run 2
    assert "judged" not in d
    t = _run("compare", "--format", "lists", str(f), "--measure", "mrr", "--resamples", "500")
    out = t.stdout.decode()
    assert "Repeated runs ('trial'): 2 runs per case" in out and "1 of 3 cases" in out
    assert "left out for a file with repeated runs" in out
