"""The agreement page's label files feed the prediction-powered comparison (issue 34,
Required 1; ``core.agreement.cheap_pairs``): ``agreement --conclusions`` with gold labels on
some queries and a source's labels on more gives, for every pair of runs, the same figures
``compare --format trec --qrels GOLD --cheap-qrels CHEAP`` gives on those labels written as two
qrels files; without cheap-only queries (the demo) it says why; EN and KO lines."""
import json
from itertools import combinations
from pathlib import Path

import pandas as pd
import pytest

from core.__main__ import main
from core.agreement.cheap_pairs import cheap_pairs
from core.agreement.files import load_labels
from core.agreement.orderings import qrels_for
from core.inputs import read_run
from core.views import cheap_pair_lines, cheap_pair_rows

ROOT = Path(__file__).resolve().parents[3]
DEMO = ROOT / "data" / "demo_labels.csv"
RUNS = [str(ROOT / "data" / "demo_runs" / f"{n}.run") for n in ("bm25", "dense", "hybrid")]


def _labels(tmp_path, gold_until="q15"):
    """The demo labels with gold blank after query ``gold_until``: gold on 15 queries, the
    sources on all 40."""
    d = pd.read_csv(DEMO)
    d.loc[d["query_id"] > gold_until, "gold"] = None
    p = tmp_path / "labels.csv"
    d.to_csv(p, index=False)
    return p


def _qrels(labels, column, path):
    q = qrels_for(labels, column)
    path.write_text("".join(f"{qid} 0 {doc} {rel}\n" for qid, docs in q.items()
                            for doc, rel in docs.items()))
    return str(path)


def test_agreement_equals_compare_cheap_qrels(tmp_path, capsys):
    p = _labels(tmp_path)
    assert main(["agreement", str(p), "--runs", *RUNS, "--conclusions", "--resamples", "500",
                 "--json"]) == 0
    block = json.loads(capsys.readouterr().out)["prediction_powered"]
    assert block["source"] == "llm_basic" and block["error"] is None
    assert (block["n_gold"], block["n_cheap_only"]) == (15, 25)
    labels = load_labels(p.read_bytes(), str(p))
    gold = _qrels(labels, labels.gold_name, tmp_path / "gold.qrels")
    cheap = _qrels(labels, "llm_basic", tmp_path / "cheap.qrels")
    pairs = list(combinations(RUNS, 2))
    assert len(block["pairs"]) == len(pairs) == 3
    for got, (ra, rb) in zip(block["pairs"], pairs):
        assert main(["compare", ra, rb, "--format", "trec", "--qrels", gold, "--cheap-qrels",
                     cheap, "--resamples", "500", "--json"]) == 0
        ref = json.loads(capsys.readouterr().out)
        assert (got["a"], got["b"]) == (ref["difference"]["a"], ref["difference"]["b"])
        assert got["difference"] == ref["difference"]
        assert got["methods"] == ref["methods"] and got["verdict"] == ref["verdict"]
        ref["ppi"].pop("gold_difference")
        assert {k: v for k, v in got["ppi"].items() if k != "source"} == {
            k: v for k, v in ref["ppi"].items() if k != "source"}
        assert got["ppi"]["n_gold"] == 15 and got["ppi"]["n_cheap"] == 40


def test_text_lines_en_and_ko_quote_the_figures(tmp_path):
    p = _labels(tmp_path)
    labels = load_labels(p.read_bytes(), str(p))
    runs = [read_run(Path(f).read_bytes(), f) for f in RUNS]
    cp = cheap_pairs(labels, runs, source="crowd", measure="ndcg@10", resamples=500)
    assert cp.applies and len(cp.pairs) == 3
    for lang in ("en", "ko"):
        lines = cheap_pair_lines(cp, lang)
        rows = cheap_pair_rows(cp, lang)
        assert len(lines) == 4 and len(rows) == 3
        for line, row, cc in zip(lines[1:], rows, cp.pairs):
            d = cc.difference
            for figure in (f"{d.estimate:+.3f}", f"{d.ci_low:+.3f}", f"{d.ci_high:+.3f}",
                           f"{d.gold_only_low:+.3f}", f"{d.lam:.2f}"):
                assert figure.replace("+0.000", "0.000") in line
            assert f"{d.ci_low:+.3f}".replace("+0.000", "0.000") in " ".join(row.values())
    assert "15" in cheap_pair_lines(cp, "ko")[0] and "25" in cheap_pair_lines(cp, "ko")[0]


def test_without_cheap_only_queries_it_says_why(capsys):
    assert main(["agreement", str(DEMO), "--runs", *RUNS[:2], "--conclusions",
                 "--resamples", "500", "--json"]) == 0
    block = json.loads(capsys.readouterr().out)["prediction_powered"]
    assert block["pairs"] == [] and block["n_cheap_only"] == 0 and block["n_gold"] == 40
    labels = load_labels(DEMO.read_bytes(), str(DEMO))
    runs = [read_run(Path(f).read_bytes(), f) for f in RUNS[:2]]
    cp = cheap_pairs(labels, runs, source="llm_basic", measure="ndcg@10", resamples=500)
    assert not cp.applies
    assert "40 and 0" in cheap_pair_lines(cp)[0] and "40개와 0개" in cheap_pair_lines(cp, "ko")[0]
    assert cheap_pair_rows(cp) == []
    # without --conclusions the output has no trace of it
    main(["agreement", str(DEMO), "--runs", *RUNS[:2], "--resamples", "500", "--json"])
    assert "prediction_powered" not in json.loads(capsys.readouterr().out)


def test_a_gold_query_the_source_never_labelled_is_one_message(tmp_path):
    d = pd.read_csv(DEMO)
    d.loc[d["query_id"] > "q15", "gold"] = None
    d.loc[d["query_id"] == "q03", "crowd"] = None
    p = tmp_path / "labels.csv"
    d.to_csv(p, index=False)
    labels = load_labels(p.read_bytes(), str(p))
    runs = [read_run(Path(f).read_bytes(), f) for f in RUNS[:2]]
    cp = cheap_pairs(labels, runs, source="crowd", measure="ndcg@10", resamples=500)
    assert cp.pairs == () and cp.error is not None and cp.error.code == "cheap.err_missing_ids"
    assert "q03" in cheap_pair_lines(cp)[0]
    assert cp.to_dict()["error"] == cp.error.message("en")


def test_needs_two_runs(tmp_path):
    p = _labels(tmp_path)
    labels = load_labels(p.read_bytes(), str(p))
    with pytest.raises(ValueError, match="at least 2 runs"):
        cheap_pairs(labels, [read_run(Path(RUNS[0]).read_bytes(), RUNS[0])],
                    source="crowd", measure="ndcg@10")
