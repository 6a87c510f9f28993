"""core.inputs.trec against ir_measures (its own reader + pytrec_eval) on generated runs."""
import gzip

import ir_measures
import numpy as np
import pytest

from core.errors import InputError
from core.inputs.metrics import per_query
from core.inputs.trec import gunzip, parse_measures, read_qrels, read_run, score_runs, trec_side_by_side

MEASURES = ["nDCG@10", "R@100", "RR@10", "P@10", "AP"]


def _generated(seed, *, sep=" ", shuffle=False):
    """Run and qrels text with ties, graded and all-zero queries, missing/extra queries."""
    rng = np.random.default_rng(seed)
    docs = [f"d{i}" for i in range(400)]
    qrels, run = [], []
    for q in range(30):
        qid = f"q{q}"
        judged = rng.choice(docs, size=int(rng.integers(1, 15)), replace=False)
        rels = rng.integers(0, 3, size=judged.size)
        if q % 9 == 0:
            rels[:] = 0
        qrels += [f"{qid} 0 {d} {r}" for d, r in zip(judged, rels)]
        if q == 4:
            continue  # judged, missing from the run
        ranked = rng.choice(docs, size=int(rng.integers(5, 120)), replace=False)
        scores = np.round(rng.random(ranked.size) * 5, 1)  # many ties
        run += [sep.join([qid, "Q0", d, str(i + 1), f"{s}", "tag"])
                for i, (d, s) in enumerate(zip(ranked, scores))]
    run += [f"extra{j} Q0 d1 1 1.0 tag" for j in range(2)]  # not judged
    if shuffle:
        run = list(np.random.default_rng(seed + 100).permutation(run))
    return "\n".join(run) + "\n", "\n".join(qrels) + "\n"


def _reference(run_text, qrels_text, measure):
    ms = [ir_measures.parse_measure(measure)]
    return {r.query_id: r.value for r in ir_measures.iter_calc(
        ms, list(ir_measures.read_trec_qrels(qrels_text)),
        list(ir_measures.read_trec_run(run_text)))}


@pytest.mark.parametrize("seed,sep,shuffle", [(0, " ", False), (1, "\t", False),
                                              (2, "  ", True)])
def test_equals_ir_measures(seed, sep, shuffle):
    run_text, qrels_text = _generated(seed, sep=sep, shuffle=shuffle)
    run = read_run(run_text.encode(), "gen.run")
    qrels = read_qrels(qrels_text.encode(), "gen.qrels")
    ts = score_runs([run], qrels, MEASURES)
    ref_text = run_text.replace("  ", " ").replace("\t", " ")
    for m in MEASURES:
        ref = _reference(ref_text, qrels_text, m)
        col = ts.values[m]["gen"]
        assert list(col.index) == sorted(qrels)
        for qid, v in col.items():
            assert v == pytest.approx(ref.get(qid, 0.0), abs=1e-12), (m, qid)
    assert ts.missing == {"gen": ("q4",)}
    assert ts.unjudged == {"gen": ("extra0", "extra1")}
    assert {"q0", "q9", "q18", "q27"} <= set(ts.no_relevant)
    assert set(ts.no_relevant) == {q for q, j in qrels.items() if max(j.values()) <= 0}


def test_agrees_with_core_metrics_on_trec_order():
    """pytrec_eval ranks by score, ties by doc id descending; core.inputs.metrics on that order."""
    run_text, qrels_text = _generated(3)
    run = read_run(run_text.encode(), "gen.run")
    qrels = read_qrels(qrels_text.encode(), "gen.qrels")
    ts = score_runs([run], qrels, ["nDCG@10", "AP"])
    lists = {q: [d for d, _ in run.ranked(q)] for q in run.queries}
    ours = per_query(lists, qrels, ["ndcg@10", "ap"])
    assert np.allclose(ours["ndcg@10"].to_numpy(), ts.values["nDCG@10"]["gen"].to_numpy(),
                       atol=1e-12)
    assert np.allclose(ours["ap"].to_numpy(), ts.values["AP"]["gen"].to_numpy(), atol=1e-12)


def test_gzip_equals_plain_and_names():
    run_text, qrels_text = _generated(4)
    plain = read_run(run_text.encode(), "runs/bm25.run")
    packed = read_run(gzip.compress(run_text.encode()), "runs/bm25.run.gz")
    assert plain.name == packed.name == "bm25"
    assert plain.docs == packed.docs and plain.lines == packed.lines
    assert read_qrels(gzip.compress(qrels_text.encode()), "q.gz") == \
        read_qrels(qrels_text.encode(), "q")
    with pytest.raises(InputError) as e:
        gunzip(gzip.compress(b"x" * 1000)[:-12], "cut.gz")
    assert "cut.gz" in str(e.value)


def test_several_runs_same_name_and_repeated_lines():
    qrels = read_qrels(b"q1 0 a 1\nq1 0 b 1\n", "q")
    r1 = read_run(b"q1 Q0 a 1 3 t\nq1 Q0 b 3 2 t\n", "x/run.txt")
    r2 = read_run(b"q1 Q0 b 1 3 t\n", "y/run.txt")
    ts = score_runs([r1, r2], qrels, ["P@1"])
    assert ts.names == ["run", "run (2)"]
    assert ts.values["P@1"].loc["q1"].tolist() == [1.0, 1.0]


def test_a_document_listed_twice_for_a_query_is_refused_naming_run_query_and_doc():
    """Issue 30: the last copy used to win silently (nDCG@10 changed); trec_eval refuses
    such a run, and so do we, naming the run, the first repeat and how many lines repeat."""
    data = (b"q1 Q0 a 1 3 t\nq1 Q0 b 2 2 t\nq2 Q0 c 1 5 t\nq2 Q0 c 2 1 t\n"
            b"q2 Q0 d 3 0.5 t\nq1 Q0 a 3 1 t\n")
    with pytest.raises(InputError) as e:
        read_run(data, "runs/bm25.run")
    err = e.value
    assert err.code == "systems.err_run_duplicate"
    assert (err.params["run"], err.params["count"]) == ("bm25", 2)
    assert (err.params["query"], err.params["doc"]) in {("q1", "a"), ("q2", "c")}
    assert "bm25" in str(err) and "twice" in str(err)


def test_side_by_side_uses_trec_order_and_grades():
    qrels = read_qrels(b"q 0 b 2\nq 0 c 0\n", "q")
    ra = read_run(b"q Q0 a 1 1.0 t\nq Q0 b 2 1.0 t\nq Q0 c 3 0.5 t\n", "A.run")
    rb = read_run(b"q Q0 c 1 9 t\n", "B.run")
    ts = score_runs([ra, rb], qrels, ["nDCG@10"])
    side = trec_side_by_side(ts, "q", "A", "B", k=2)
    assert side["A"].tolist() == ["b", "a"]  # tie on score: doc id descending
    assert side["A rel"].tolist() == ["2", ""]
    assert side["B"].tolist() == ["c", ""] and side["B rel"].tolist() == ["0", ""]


@pytest.mark.parametrize("data,row,column,needle", [
    (b"q1 Q0 d1 1 3.0 r\nq1 Q0 d2 2 abc r\n", 2, "score", "'abc'"),
    (b"q1 Q0 d1 1 3.0 r\nq1 Q0 d2 2 r\n", 2, None, "6 fields"),
    (b"q1 Q0 d1 1 3.0 r\nq1 Q0 d2 2 3 r x\n", 2, None, "has 7"),
    (b"q1 Q0 d1 1 3.0 r\n\nq1 Q0 d2 2 inf r\n", 3, "score", "'inf'"),
    (b"q1\tQ0\td1\t1\tnan\tr\n", 1, "score", "'nan'"),
])
def test_bad_run_lines_are_named(data, row, column, needle):
    with pytest.raises(InputError) as e:
        read_run(data, "bad.run")
    assert e.value.file == "bad.run" and e.value.row == row and e.value.column == column
    assert needle in str(e.value)


@pytest.mark.parametrize("data,row,needle", [
    (b"q1 0 d1 1\nq1 0 d2 x\n", 2, "'x'"),
    (b"q1 0 d1 1.5\n", 1, "'1.5'"),
    (b"q1 0 d1\n", 1, "4 fields"),
    (b"q1 0 d1 1\nq1 0 d1 2\n", None, "judged twice"),
    (b"", None, "empty"),
    (b"\x1f\x8bnot really gzip", None, "decompress"),
])
def test_bad_qrels_are_named(data, row, needle):
    with pytest.raises(InputError) as e:
        read_qrels(data, "bad.qrels")
    assert e.value.file == "bad.qrels" and e.value.row == row
    assert needle in str(e.value)


def test_measures_are_parsed_as_data():
    assert [str(m) for m in parse_measures("nDCG@10, R@100 RR@10")] == \
        ["nDCG@10", "R@100", "RR@10"]
    for bad in ["foo@10", "__import__('os')", "nDCG@x", ""]:
        with pytest.raises(InputError):
            parse_measures(bad)


def test_cli_trec_three_runs_json(capsys, tmp_path):
    import json
    from pathlib import Path

    from core.__main__ import main

    demo = Path(__file__).resolve().parents[3] / "data" / "demo_trec"
    gz = tmp_path / "hybrid.run.gz"
    gz.write_bytes(gzip.compress((demo / "hybrid.run").read_bytes()))
    args = ["compare", "--format", "trec", "--qrels", str(demo / "qrels.txt"),
            str(demo / "bm25.run"), str(demo / "dense.run"), str(gz),
            "--measure", "nDCG@10", "--resamples", "1000", "--json"]
    assert main(args) == 0
    d = json.loads(capsys.readouterr().out)
    assert set(d) >= {"n_cases", "methods", "difference", "resolution", "excluded", "verdict",
                      "pairs", "metrics", "queries"}
    assert d["n_cases"] == 50 and list(d["methods"]) == ["bm25", "dense"]
    assert [(p["a"], p["b"]) for p in d["pairs"]] == [("bm25", "dense"), ("bm25", "hybrid"),
                                                      ("dense", "hybrid")]
    for p in d["pairs"]:
        assert set(p) >= {"a", "b", "b_minus_a", "ci_low", "ci_high", "p", "p_holm", "verdict"}
        assert p["p_holm"] >= p["p"]
    assert d["queries"]["missing_from_run"] == {"dense": ["q50"]}
    assert d["queries"]["without_qrels"] == {"hybrid": ["q99"]}
    qrels = read_qrels((demo / "qrels.txt").read_bytes(), "q")
    ref = _reference((demo / "bm25.run").read_text(), (demo / "qrels.txt").read_text(),
                     "nDCG@10")
    assert d["metrics"]["nDCG@10"]["bm25"] == pytest.approx(
        sum(ref.get(q, 0.0) for q in qrels) / len(qrels), abs=1e-12)
    # baseline mode, and text output
    assert main(args[:-1] + ["--baseline", "bm25"]) == 0
    out = capsys.readouterr().out
    assert "Holm-Bonferroni" in out and "hybrid − bm25" in out and "q50" in out


@pytest.mark.parametrize("extra,needle", [
    ([], "--qrels"),
    (["--qrels", "QRELS", "--measure", "bogus@1"], "bogus@1"),
])
def test_cli_trec_errors(capsys, extra, needle):
    from pathlib import Path

    from core.__main__ import main

    demo = Path(__file__).resolve().parents[3] / "data" / "demo_trec"
    extra = [str(demo / "qrels.txt") if x == "QRELS" else x for x in extra]
    assert main(["compare", "--format", "trec", str(demo / "bm25.run"), *extra]) == 2
    err = capsys.readouterr().err
    assert needle in err and len(err.strip().splitlines()) == 1


def test_ids_with_quotes_commas_and_hashes_are_kept_verbatim():
    data = b'q1 Q0 "abc 1 2.0 t\nq1 Q0 d,e 2 1.0 t\nq1 Q0 #x 3 0.5 t\n'
    assert read_run(data, "r").docs == {"q1": {'"abc': 2.0, "d,e": 1.0, "#x": 0.5}}
    assert read_run(data.replace(b" ", b"\t"), "r").docs == read_run(data, "r").docs
    assert read_qrels(b'q1 0 "abc 1\n', "q") == {"q1": {'"abc': 1}}


def test_one_run_type_for_trec_and_agreement():
    """``core.agreement.files`` reads into ``core.inputs.trec.Run``: a TREC run loaded either way is the
    same run, and a ``query_id, doc_id, rank`` table scores under ir_measures as its ranks."""
    from core.agreement import files as agreement_io
    from core.inputs.trec import Run

    assert agreement_io.Run is Run
    data = b"q1 Q0 a 1 1.5 t\nq1 Q0 b 2 2.5 t\nq1 Q0 c 3 2.5 t\nq2 Q0 d 1 1 t\n"
    direct, loaded = read_run(data, "x.run"), agreement_io.load_run(data, "x.run")
    assert isinstance(loaded, Run) and loaded.format == "trec"
    assert (loaded.name, loaded.docs, loaded.lines) == (direct.name, direct.docs, direct.lines)
    assert loaded.ranking == {"q1": ["c", "b", "a"], "q2": ["d"]}  # trec_eval order
    assert loaded.ranking is loaded.ranking  # computed once
    assert loaded.n_queries == 2 and loaded.queries == ["q1", "q2"]
    table = agreement_io.load_run(b"query_id,doc_id,rank\nq1,b,2\nq1,a,1\nq1,c,3\n", "t.csv")
    assert (table.format, table.lines, table.ranking) == ("table", 3, {"q1": ["a", "b", "c"]})
    assert [d for d, _ in table.ranked("q1", 2)] == ["a", "b"]
    qrels = read_qrels(b"q1 0 b 1\nq1 0 c 2\n", "q")
    ts = score_runs([table, direct], qrels, ["nDCG@10", "RR@10"])
    ref = per_query(table.ranking, qrels, ["ndcg@10", "mrr@10"])
    assert np.allclose(ts.values["nDCG@10"]["t"], ref["ndcg@10"], atol=1e-12)
    assert np.allclose(ts.values["RR@10"]["t"], ref["mrr@10"], atol=1e-12)
    renamed = table.renamed("other")
    assert renamed.name == "other" and renamed.docs is table.docs and table.name == "t"


def test_run_name_and_unique_names():
    from core.inputs.trec import run_name, unique_names

    assert run_name("runs/bm25.run.gz") == "bm25" and run_name("x/dense.TREC") == "dense"
    assert run_name("plain") == "plain" and run_name("a/b.res") == "b"
    r = read_run(b"q Q0 d 1 1 t\n", "x/sys.run")
    names = [x.name for x in unique_names([r, r, r.renamed("other"), r])]
    assert names == ["sys", "sys (2)", "other", "sys (3)"]


def test_control_characters_in_ids_and_names_are_made_visible():
    """Issue 30: query and document ids and the run's name (from the file name) reach charts
    and the report; their control characters are made visible as table cells' are
    (``core.inputs.text.nfc``), the same way in the run and the qrels, so they still match."""
    from core.inputs.trec import run_name

    run = read_run(b"q\x1b1 Q0 d\x071 1 2.0 x\nq\x1b1 Q0 d2 2 1.0 x\n", "new\x1b[31m.run")
    assert run.name == r"new\u001b[31m"
    assert run.queries == [r"q\u001b1"]
    assert run.ranking[r"q\u001b1"] == [r"d\u00071", "d2"]
    qrels = read_qrels(b"q\x1b1 0 d\x071 1\n", "qrels")
    assert qrels == {r"q\u001b1": {r"d\u00071": 1}}
    scores = score_runs([run], qrels, ["P@1"])
    assert float(scores.means().iloc[0, 0]) == 1.0  # the run's top document is judged
    assert run_name("a\x85b.run") == r"a\u0085b"
    assert read_run(b"q1 Q0 d1 1 2.0 x\n", "r.run", name="x\x07").name == r"x\u0007"
