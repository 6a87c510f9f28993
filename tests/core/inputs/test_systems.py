"""core.inputs.systems: ``compare_systems`` is the one call behind ``compare`` and the systems
page; each part equals the function it calls on the same data, and ``compare_summary`` is the
one JSON summary (the contract first, then each block in place)."""
from pathlib import Path

import pytest

from core.errors import InputError
from core.inputs.golden import load_golden
from core.inputs.systems import compare_golden
from core.inputs.systems import (compare_summary, compare_systems, golden_systems,
                                 lists_systems, trec_systems)

ROOT = Path(__file__).resolve().parents[3]
DATA = "case_id,old,new,other\n" + "".join(
    f"q{i},{int(i % 3 == 0)},{int(i % 3 != 1)},{int(i % 2 == 0)}\n" for i in range(45))
STAT = dict(resamples=500, confidence=0.95, seed=3)


def _result():
    return compare_golden(load_golden(DATA.encode(), "g.csv"), "old", "new", resamples=2000)


def test_compare_summary_is_the_cli_json_with_each_block_in_place():
    """One JSON for the page and ``compare --json``: the contract first, then the blocks; with
    a sequence the verdict is the one valid at every look (the fixed-n one kept), with clusters
    the clusters' verdict (the independent-cases one kept)."""
    from core.inputs.clusters import compare_in_clusters
    from core.inputs.margin_text import margin_answer
    from core.paired.harm import no_harm
    from core.paired.sequential import sequential_compare

    res = _result()
    plain = compare_summary(res)
    assert plain == res.to_dict()
    harm = no_harm(res.a_values, res.b_values)
    margin = margin_answer(res.comparison, "5pp")
    seq = sequential_compare(res.a_values, res.b_values, seed=1)
    out = compare_summary(res, seq=seq, margin=margin, harm=harm)
    assert list(out)[-4:] == ["sequential", "verdict_fixed_n", "margin", "harm"]
    assert out["verdict"] == seq.last.verdict and out["verdict_fixed_n"] == plain["verdict"]
    assert out["sequential"]["order"]["by"] == "file_order"
    assert out["margin"] == margin.to_dict() and out["harm"] == harm.to_dict()
    labels = {f"q{i}": f"doc{i // 3}" for i in range(45)}
    cc = compare_in_clusters(res, labels, "g.csv", resamples=500)
    out = compare_summary(res, clustered=cc, cluster_column="doc", seq=seq)
    assert out["verdict"] == cc.verdict and out["verdict_independent_cases"] == plain["verdict"]
    assert out["clusters"] == {"column": "doc", "file": None, **cc.to_dict()}
    assert "verdict_fixed_n" not in out   # with clusters the sequence does not take the verdict


def test_compare_systems_holds_each_part_as_its_own_function_gives_it():
    """A vs B, the margin, no harm, the sequence, all pairs and the best set: each equal to
    the function behind it on the same cases and settings (nothing computed differently)."""
    from core.inputs.margin_text import margin_answer
    from core.paired.best import best_set
    from core.paired.harm import no_harm
    from core.paired.multi import compare_many
    from core.paired.sequential import sequential_compare

    gs = load_golden(DATA.encode(), "g.csv")
    sc = compare_systems(golden_systems(gs), "old", "new", margin="5pp", harm=(None, 0.1),
                         sequential=True, correction="bh", **STAT)
    res = compare_golden(gs, "old", "new", **STAT)
    assert sc.result.to_dict() == res.to_dict()
    assert sc.margin == margin_answer(res.comparison, "5pp")
    assert sc.harm.to_dict() == no_harm(res.a_values, res.b_values, alpha=0.1,
                                        **STAT).to_dict()
    assert sc.seq.last == sequential_compare(res.a_values, res.b_values, 0.95, seed=3).last
    assert sc.many.to_dict() == compare_many(gs.cases, correction="bh", **STAT).to_dict()
    assert sc.best.to_dict() == best_set(gs.cases, **STAT).to_dict()
    assert sc.many_fallback is None and sc.best_cost.fits
    out = sc.to_dict()
    assert out == compare_summary(res, margin=sc.margin, harm=sc.harm, seq=sc.seq,
                                  best=sc.best, many=sc.many)
    assert out["multiple"]["adjustment"] == "bh" and len(out["pairs"]) == 3
    two = compare_systems(golden_systems(gs), "old", "new", **STAT)
    assert "harm" not in two.to_dict()
    assert two.to_dict(harm=sc.harm)["harm"] == sc.harm.to_dict()   # the page's own section


def test_baseline_picks_a_and_b():
    """With a baseline and neither method named, A is the baseline and B the first other."""
    gs = load_golden(DATA.encode(), "g.csv")
    sc = compare_systems(golden_systems(gs), baseline="new", **STAT)
    assert (sc.result.comparison.a, sc.result.comparison.b) == ("new", "old")
    assert {p.a for p in sc.many.pairs} == {"new"}


def test_lists_and_trec_blocks_are_the_formats_figures():
    """The lists' and TREC's JSON blocks name the measure and carry the means of the scores
    they were built from; Judged@10 is computed for id lists and runs."""
    from core.inputs.lists import load_lists, score_lists
    from core.inputs.trec import read_qrels, read_run, score_runs

    scores = score_lists(load_lists((ROOT / "data/demo_lists.csv").read_bytes(), "l.csv"), 10)
    sys_ = lists_systems(scores, "ndcg@10")
    assert sys_.extra["measure"] == "ndcg@10" and sys_.extra["metrics"] == scores.to_dict()
    sc = compare_systems(sys_, **STAT)
    if sys_.kind == "lists":
        assert sc.to_dict()["judged"] == sc.judged.to_dict()
    trec = ROOT / "data/demo_trec"
    ts = score_runs([read_run((trec / n).read_bytes(), n) for n in ("bm25.run", "dense.run")],
                    read_qrels((trec / "qrels.txt").read_bytes(), "qrels.txt"), ["nDCG@10"],
                    qrels_file="qrels.txt")
    sc = compare_systems(trec_systems(ts, "qrels.txt"), **STAT)
    out = sc.to_dict()
    assert out["format"] == "trec" and out["runs"] == {"bm25": "bm25.run",
                                                        "dense": "dense.run"}
    assert out["judged"] == sc.judged.to_dict() and "best_set" not in out


def test_load_clustered_splits_only_a_file_that_names_clusters_or_runs(monkeypatch):
    """``load_clustered``: a plain golden file goes from the reader to the golden set without the
    cluster room's split (issue 31: the card's path), and gives ``load_golden``'s set; a file
    with a cluster column, or ``cluster`` named, is split."""
    from core.inputs import systems

    plain = b"case_id,A,B\nq1,1,0\nq2,0,1\nq3,1,1\n"
    clustered = b"case_id,document,A,B\nq1,d1,1,0\nq2,d1,0,1\nq3,d2,1,1\n"
    calls = []
    real = systems.split_table
    monkeypatch.setattr(systems, "split_table", lambda *a, **k: calls.append(a) or real(*a, **k))
    cl = systems.load_clustered(plain, "p.csv")
    assert calls == [] and cl.labels is None and cl.runs is None
    assert cl.golden.cases.ids == load_golden(plain, "p.csv").cases.ids
    assert list(cl.golden.methods) == ["A", "B"]
    cl = systems.load_clustered(clustered, "c.csv")
    assert len(calls) == 1 and cl.column == "document" and cl.labels["q1"] == "d1"
    assert list(cl.golden.methods) == ["A", "B"]
    with pytest.raises(InputError):
        systems.load_clustered(plain, "p.csv", cluster="nope")
    assert len(calls) == 2
