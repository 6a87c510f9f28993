"""core.views.cheap (issue 34): the lines of a cheap-label comparison quote the figures of
``core.inputs.cheap.CheapComparison`` exactly (formatted as the house formats them), in EN and
KO, say so when the cheap labels do not help, and name what was left out."""
import numpy as np

from core.inputs.cheap import CheapComparison
from core.paired.ppi import ppi_difference, ppi_mean
from core.paired.stats import verdict
from core.views.cheap import cheap_lines
from core.views.format import diff, interval, value


def _cc(rho, left_out=()):
    rng = np.random.default_rng(1)
    n, m = 40, 400
    a = rng.normal(0.5, 0.1, n + m)
    b = a + rng.normal(0.03, 0.05, n + m)
    noise = lambda: rng.normal(0, 0.1, n + m) * np.sqrt(1 - rho ** 2) / max(rho, 1e-3)
    ca, cb = (a + noise() if rho else rng.normal(0.5, 0.1, n + m),
              b + noise() if rho else rng.normal(0.5, 0.1, n + m))
    d = ppi_difference(a[:n], b[:n], ca[:n], cb[:n], ca[n:], cb[n:])
    return CheapComparison(a="base", b="new", rate_a=ppi_mean(a[:n], ca[:n], ca[n:]),
                           rate_b=ppi_mean(b[:n], cb[:n], cb[n:]), difference=d,
                           verdict=verdict(d.ci_low, d.ci_high, d.p_value, confidence=0.95),
                           gold_only_verdict=verdict(d.gold_only_low, d.gold_only_high),
                           source="cheap.csv", binary=False, left_out=left_out)


def test_lines_quote_the_figures():
    cc = _cc(0.9)
    text = "\n".join(cheap_lines(cc))
    d = cc.difference
    assert "40 gold cases + 400 with cheap labels only" in text
    assert value(cc.rate_a.estimate, "score") in text
    assert interval(cc.rate_b.ci_low, cc.rate_b.ci_high, "score") in text
    assert interval(cc.rate_b.gold_only_low, cc.rate_b.gold_only_high, "score") in text
    assert diff(d.estimate, "score") in text
    assert interval(d.ci_low, d.ci_high, "score", signed=True) in text
    assert f"worth about {d.effective_n:,.0f} gold cases (gold alone: 40)" in text
    assert f"correlation of B − A {d.correlation:.2f}" in text
    assert "do not help" not in text and d.helps


def test_no_help_note_and_left_out_in_both_languages():
    cc = _cc(0.0, left_out=("x", "y"))
    assert not cc.difference.helps
    en, ko = cheap_lines(cc, "en"), cheap_lines(cc, "ko")
    assert any("do not help" in line for line in en)
    assert any("2 cheap-only cases" in line for line in en)
    assert any("도움이 되지 않습니다" in line for line in ko)
    assert len(en) == len(ko)
