"""Issues 33/34: the Switch? card's and ``decide``'s sentences quote the B − A figures the
quality condition was read off: in the sequential mode the confidence sequence's last look
(not the fixed-n margin interval), with cheap labels the prediction-powered interval and its
one-sided t-test p (not the gold-only interval). EN and KO."""
import math
from pathlib import Path

import numpy as np
import pytest

from core.__main__ import main
from core.i18n import t
from core.inputs.cheap import compare_cheap
from core.inputs.golden import load_golden
from core.inputs.systems import compare_golden
from core.switch import decide_files
from core.views import format as fmt
from core.views.switch import condition_line, decision_card, decision_sentence

ROOT = Path(__file__).resolve().parents[3]
GOLD = ROOT / "data" / "demo_switch_golden.csv"
LAT = ROOT / "data" / "demo_switch_latency.csv"


def _decide(**kw):
    return decide_files(GOLD.read_bytes(), GOLD.name, LAT.read_bytes(), LAT.name, margin=0.02,
                        resamples=1000, **kw)


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_sequential_sentences_quote_the_sequence(lang):
    fixed, dec = _decide(), _decide(sequential=True)
    last = dec.sequential.last
    assert (last.ci_low, last.ci_high) != (fixed.quality.ci_low, fixed.quality.ci_high)
    card = decision_card(dec, lang)
    seq_low, fixed_low = fmt.diff(last.ci_low, "rate"), fmt.diff(fixed.quality.ci_low, "rate")
    assert seq_low != fixed_low
    assert seq_low in card.interval and fixed_low not in card.interval
    text = card.sentence + " " + card.reason
    assert fmt.diff(last.b_minus_a, "rate") in text
    cond = dec.quality_condition
    line = condition_line(cond, dec, lang)
    if cond.state == "holds":   # no test p to quote: the sequence's ends decide alone
        assert line == t("switch.cond_quality_holds_sequence", lang, a=dec.a, b=dec.b,
                         est=fmt.diff(last.b_minus_a, "rate"), low=seq_low,
                         margin=fmt.margin(0.02, "rate"))
    elif cond.state == "unsure":
        assert seq_low in line and fixed_low not in line
    else:
        assert fmt.diff(last.ci_high, "rate") in line
    # the fixed-n run's sentences are as before: the margin interval
    assert fixed_low in decision_card(fixed, lang).interval


def _cheap_file(tmp_path):
    g = load_golden(GOLD.read_bytes(), GOLD.name)
    rng = np.random.default_rng(1)
    cs = g.cases
    rows = [(cid, *(int(v) if rng.uniform() > 0.05 else 1 - int(v) for v in cs.values[i]))
            for i, cid in enumerate(cs.ids)]
    rows += [(f"x{j}", int(rng.uniform() < 0.8), int(rng.uniform() < 0.8)) for j in range(900)]
    path = tmp_path / "cheap.csv"
    path.write_text("case_id," + ",".join(cs.methods) + "\n"
                    + "\n".join(",".join(map(str, r)) for r in rows) + "\n", encoding="utf-8")
    return g, str(path)


def test_cheap_text_quotes_the_ppi_interval_and_its_test(tmp_path, capsys):
    g, cheap = _cheap_file(tmp_path)
    base = ["decide", "--quality", str(GOLD), "--latency", str(LAT), "--margin", "2pp",
            "--resamples", "1000"]
    main(base + ["--json"])
    import json
    plain = json.loads(capsys.readouterr().out)
    main(base + ["--cheap", cheap])
    out = capsys.readouterr().out
    res = compare_golden(g, plain["a"], plain["b"], resamples=1000)
    d = compare_cheap(res, load_golden(open(cheap, "rb").read(), cheap)).difference
    ppi_low, gold_low = fmt.diff(d.ci_low, "rate"), fmt.diff(res.comparison.bootstrap.ci_low,
                                                             "rate")
    sentence, cond = out.split("\n")[1], out.split("\n")[2]   # after the PPI line
    assert fmt.diff(d.estimate, "rate") in sentence + cond
    assert ppi_low in sentence + cond or fmt.diff(d.ci_high, "rate") in sentence + cond
    # 0/1 outcomes: the PPI interval is Jeffreys MOVER 2 and its one-sided non-inferiority p
    # the interval inverted: at confidence 1 - 2p the lower end is the limit -delta
    p = d.p_above(-0.02)
    assert d.mover and 0 < p < 0.5
    assert d.interval_at(1 - 2 * p)[0] == pytest.approx(-0.02, abs=1e-9)
    if d.ci_low > -0.02:
        assert t("switch.test_ppi_mover", "en") in cond and fmt.p_text(p) in cond
        assert p < 0.025
    assert gold_low != ppi_low and gold_low not in sentence + cond


def test_p_above_matches_the_interval():
    """ci_low > limit exactly when p_above(limit) < (1 - confidence) / 2."""
    from core.paired.ppi import ppi_mean
    rng = np.random.default_rng(3)
    for _ in range(100):
        y = rng.normal(rng.uniform(-0.3, 0.3), 1, 20)
        yh = y + rng.normal(0, 0.5, 20)
        e = ppi_mean(y, yh, rng.normal(y.mean(), 1.1, 200))
        for limit in (-0.2, 0.0, 0.1):
            assert (e.ci_low > limit) == (e.p_above(limit) < 0.025)
    assert math.isclose(ppi_mean([0.5] * 5, [0.5] * 5, [0.5] * 5).p_above(0.4), 0.0)
