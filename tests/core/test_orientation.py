"""One orientation: the difference is B − A (new minus baseline) on every surface.

The same file (data/demo_golden.csv, read only) through the CLI text, the CLI JSON, the verdict
card (``core.views.cards``) and the HTML report (``core.views.report``) must show one signed
number: RRF − title-only = (3 − 5) / 31 = −6.5 %p.
"""
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from core.inputs.golden import load_golden
from core.inputs.systems import compare_golden
from core.paired.multi import compare_many
from core.paired.compare import compare_paired
from core.retrieval.scifact import compare_retrievers
from core.paired.stats import paired_bootstrap
from core.views.verdicts import comparison_verdict
from core.views import format as fmt
from core.views.cards import card_html, paired_card
from core.views.report import build_report

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "data" / "demo_golden.csv"


def _cli(*args):
    p = subprocess.run([sys.executable, "-m", "core", "compare", str(DEMO), *args], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_cli_text_json_card_and_report_show_the_same_signed_number():
    text, data = _cli(), json.loads(_cli("--json"))
    d = data["difference"]
    assert (d["a"], d["b"]) == ("title-only", "RRF")
    # the number from the data: B right / A wrong minus A right / B wrong, over n
    table = d["table"]
    expected = (table["b_only"] - table["a_only"]) / data["n_cases"]
    assert d["b_minus_a"] == pytest.approx(expected) and expected < 0
    assert d["ci_low"] <= d["b_minus_a"] <= d["ci_high"]
    headline = fmt.diff(d["b_minus_a"], "rate")
    ci = fmt.interval(d["ci_low"], d["ci_high"], "rate", signed=True)
    assert headline == "-6.5 %p"

    # CLI text: "RRF − title-only: -6.5 %p ... [lo, hi]", B's name first
    line = next(ln for ln in text.splitlines() if " CI (" in ln and " − " in ln)
    assert re.match(r"\s+RRF − title-only: ", line), line
    assert f": {headline} " in line and ci in line

    # the card and the report the golden page builds from the same comparison
    result = compare_golden(load_golden(DEMO.read_bytes(), DEMO.name))
    c, bs = result.comparison, result.comparison.bootstrap
    card = paired_card(c.verdict, a=c.a, b=c.b, mean=bs.mean, ci_low=bs.ci_low,
                       ci_high=bs.ci_high, confidence=bs.confidence, kind="rate",
                       sentence=comparison_verdict(result, "en"))
    assert card.label == "RRF − title-only"
    assert card.value == headline and card.interval.endswith(ci)
    assert f">{headline}<" in card_html(card)
    report = build_report("T", [], inputs={}, params={}, card=card)
    assert f">{headline}<" in report and ci in report


def test_verdict_codes_keep_their_meaning_and_the_sentence_quotes_b_minus_a():
    a = np.array([0.0] * 30 + [1.0] * 10)
    b = np.array([1.0] * 30 + [1.0] * 10)          # B (new) right on 30 more cases
    c = compare_paired(a, b, name_a="old", name_b="new", resamples=2_000)
    assert c.bootstrap.mean == pytest.approx(0.75) and c.bootstrap.ci_low > 0
    assert c.verdict == "b_better"
    c2 = compare_paired(b, a, name_a="new", name_b="old", resamples=2_000)
    assert c2.bootstrap.mean == pytest.approx(-0.75) and c2.verdict == "a_better"
    gs = load_golden(("case_id,old,new\n" + "".join(
        f"c{i},{int(x)},{int(y)}\n" for i, (x, y) in enumerate(zip(a, b)))).encode(), "t.csv")
    sentence = comparison_verdict(compare_golden(gs, "old", "new", resamples=2_000), "en")
    assert sentence.startswith("new is better than old: new − old = +75.0 %p [")


def test_every_core_difference_is_b_minus_a():
    rng = np.random.default_rng(5)
    a, b = 0.9 * rng.random(40), 0.9 * rng.random(40) + 0.1
    assert paired_bootstrap(a, b, resamples=500).mean == pytest.approx(np.mean(b - a))
    c = compare_paired(a, b, resamples=500)
    assert c.bootstrap.mean == pytest.approx(np.mean(b - a))
    assert c.cohens_dz == pytest.approx(np.mean(b - a) / np.std(b - a, ddof=1))
    import pandas as pd
    scores = pd.DataFrame({"x": a, "y": b, "z": a + 0.05})
    mc = compare_many(scores, resamples=500)
    for p in mc.pairs:
        assert p.mean == pytest.approx((scores[p.b] - scores[p.a]).mean())
        assert p.wins == int(np.sum(scores[p.b] > scores[p.a]))
    from core.retrieval.scifact import MEASURES
    idx = pd.Index([f"q{i}" for i in range(40)], name="query_id")
    tables = {name: pd.DataFrame({**{m: v for m in MEASURES}, "hit@10": (v > 0.5) * 1.0},
                                 index=idx) for name, v in (("bm25", a), ("dense", b))}
    rc = compare_retrievers(tables, "bm25", "dense", resamples=500)
    assert rc.bootstrap.mean == pytest.approx(np.mean(b - a))
    assert np.allclose(rc.diff, b - a) and rc.b_wins == int(np.sum(b - a > 1e-12))
    assert rc.to_dict()["b_minus_a"] == rc.bootstrap.mean
    gs = load_golden(("case_id,A,B\n" + "".join(
        f"c{i},{x:.4f},{y:.4f}\n" for i, (x, y) in enumerate(zip(a, b)))).encode(), "s.csv")
    res = compare_golden(gs, resamples=500)
    disc = res.discordant()
    assert np.allclose(disc["difference"], disc["B"] - disc["A"])


@pytest.mark.parametrize("x,kind,text", [(-0.0000004, "score", "0.000"),
                                         (0.0000004, "score", "0.000"),
                                         (-0.0004, "rate", "0.0 %p"), (-0.0016, "score", "-0.002"),
                                         (0.065, "rate", "+6.5 %p")])
def test_a_difference_that_rounds_to_zero_has_no_sign(x, kind, text):
    assert fmt.diff(x, kind) == text
    assert fmt.pp(-0.0001) == "0.0 %p"
