"""core.agreement.conclusions (issue 34, item 3): every pair of systems compared under gold and
cheap labels with the product's own ``compare_paired``; each pair's kind follows from its two
verdicts; the counts add up to the pairs; the CLI adds the block only when asked for."""
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from core.__main__ import main
from core.agreement.conclusions import (KINDS, ConclusionAgreement, PairConclusion,
                                        conclusion_agreement)
from core.paired import compare_paired

ROOT = Path(__file__).resolve().parents[3]


def _scores(seed=0, n=40):
    rng = np.random.default_rng(seed)
    q = [f"q{i:02d}" for i in range(n)]
    base = rng.uniform(0.2, 0.8, n)
    out = {}
    for name, shift, cheap_shift in (("A", 0.0, 0.0), ("B", 0.15, 0.0), ("C", 0.0, 0.12),
                                     ("D", 0.01, 0.01)):
        g = np.clip(base + shift + rng.normal(0, 0.05, n), 0, 1)
        o = np.clip(g - shift + cheap_shift + rng.normal(0, 0.05, n), 0, 1)
        out[name] = pd.DataFrame({"gold": g, "other": o}, index=pd.Index(q, name="query_id"))
    return out


def test_each_pair_is_the_product_comparison_twice():
    s = _scores()
    ca = conclusion_agreement(s, source="llm", measure="nDCG@10", resamples=2000, seed=4)
    assert [(p.a, p.b) for p in ca.pairs] == [("A", "B"), ("A", "C"), ("A", "D"), ("B", "C"),
                                              ("B", "D"), ("C", "D")]
    for p in ca.pairs:
        kw = dict(name_a=p.a, name_b=p.b, resamples=2000, seed=4)
        g = compare_paired(s[p.a]["gold"].to_numpy(), s[p.b]["gold"].to_numpy(), **kw)
        o = compare_paired(s[p.a]["other"].to_numpy(), s[p.b]["other"].to_numpy(), **kw)
        assert (p.gold_verdict, p.gold_low, p.gold_high) == (g.verdict, g.bootstrap.ci_low,
                                                             g.bootstrap.ci_high)
        assert (p.cheap_verdict, p.cheap_diff) == (o.verdict, o.bootstrap.mean)
        assert p.n == 40
    # built so that: B better under gold but not cheap (missed), C better under cheap only
    # (false 'better')
    kinds = {(p.a, p.b): p.kind for p in ca.pairs}
    assert kinds[("A", "B")] == "missed" and kinds[("A", "C")] == "false_better"
    d = ca.to_dict()
    assert sum(d[k] for k in KINDS) == d["n_pairs"] == 6
    assert d["false_better"] <= d["gold_ties"] and d["missed"] <= d["gold_differences"]
    assert d["gold_ties"] + d["gold_differences"] == 6


@pytest.mark.parametrize("gold, cheap, kind", [
    ("b_better", "b_better", "agree"), ("no_difference", "no_difference", "agree"),
    ("no_difference", "a_better", "false_better"), ("b_better", "no_difference", "missed"),
    ("a_better", "b_better", "reversed")])
def test_kind_of_every_verdict_pair(gold, cheap, kind):
    p = PairConclusion("a", "b", 10, 0, 0, 0, gold, 0, 0, 0, cheap)
    assert p.kind == kind


def test_queries_missing_for_one_system_are_left_out():
    s = _scores(n=30)
    s["B"] = s["B"].iloc[5:]
    s["A"].loc["q10", "other"] = np.nan
    ca = conclusion_agreement({"A": s["A"], "B": s["B"]}, source="x", measure="m",
                              resamples=500)
    assert ca.pairs[0].n == 24 and isinstance(ca, ConclusionAgreement)


def test_needs_two_systems():
    with pytest.raises(ValueError, match="at least 2 systems"):
        conclusion_agreement({"A": _scores()["A"]}, source="x", measure="m")


def test_cli_adds_the_block_only_when_asked(capsys):
    args = ["agreement", str(ROOT / "data" / "demo_labels.csv"), "--runs",
            str(ROOT / "data" / "demo_runs" / "bm25.run"),
            str(ROOT / "data" / "demo_runs" / "dense.run"),
            str(ROOT / "data" / "demo_runs" / "rerank.run"), "--resamples", "500", "--splits", "50",
            "--json"]
    assert main(args) == 0
    plain = json.loads(capsys.readouterr().out)
    assert "conclusion_agreement" not in plain
    assert main(args + ["--conclusions"]) == 0
    d = json.loads(capsys.readouterr().out)
    c = d["conclusion_agreement"]
    assert c["n_pairs"] == 3 and c["source"] == d["source"]
    assert sum(c[k] for k in KINDS) == 3
    assert {k: v for k, v in d.items()
            if k not in ("conclusion_agreement", "prediction_powered")} == plain
    assert main(args[:-1] + ["--conclusions"]) == 0
    text = capsys.readouterr().out
    assert f"the same verdict for {c['agree']} of 3 pairs" in text
