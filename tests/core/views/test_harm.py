"""core.views.harm: the hurt/helped/TRisk sentences and the harm condition, EN and KO, with the
numbers of the Harm they describe."""
import numpy as np
import pytest

from core.paired.harm import no_harm
from core.views.format import p_text
from core.views.harm import condition_line, delta_text, harm_lines, short_line


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_lines_carry_the_numbers(lang):
    rng = np.random.default_rng(0)
    a = rng.random(60)
    b = np.clip(a + rng.normal(0.02, 0.1, 60), 0, 1)
    h = no_harm(a, b)
    hurt, helped, risk, note = harm_lines(h, "base", "cand", "score", lang)
    assert f"{h.hurt}/60" in hurt and f"{100 * h.hurt_share:.1f}%" in hurt
    assert f"{100 * h.hurt_ci[1]:.1f}%" in hurt and "0.050" in hurt
    assert f"{h.helped}/60" in helped and f"{100 * h.helped_ci[0]:.1f}%" in helped
    assert f"{h.trisk:.2f}" in risk and "α = 2" in risk
    assert ("3×" if lang == "en" else "3배") in risk
    assert ("skew guard" if lang == "en" else "왜도 보정") in note  # how TRisk's p is read
    assert "docs/harm.md" in note and p_text(h.trisk_p) in risk  # the largest of three ps
    flat = no_harm([0.1, 0.2, 0.3], [0.2, 0.3, 0.4])  # TRisk undefined: no hint
    assert len(harm_lines(flat, "base", "cand", "score", lang)) == 3
    up = np.minimum(1.1 * a[:40], 1)   # 40 cases, B never worse: TRisk >= 0, test withheld
    small = no_harm(a[:40], up)
    lines = harm_lines(small, "base", "cand", "score", lang)
    assert len(lines) == 3 and small.trisk_p is None and small.trisk_withheld
    assert small.trisk > 0 and f"{small.trisk:.2f}" in lines[2]
    assert "50" in lines[2] and "40" in lines[2]
    assert "p =" not in lines[2] and "p <" not in lines[2]
    assert ("only 'riskier' is tested" if lang == "en" else "'더 위험함'만") in lines[2]
    worse = no_harm(a[:40], b[:40])   # TRisk < 0 at 40 cases: the riskier side's p is given
    lines = harm_lines(worse, "base", "cand", "score", lang)
    assert worse.trisk < 0 and len(lines) == 4 and p_text(worse.trisk_p) in lines[2]
    assert f"{worse.trisk:.2f}" in lines[2] and "40" in lines[2] and "50" in lines[2]
    assert ("only this side" if lang == "en" else "이 방향만") in lines[2]


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_zero_one_any_loss_and_the_condition(lang):
    a = np.array([1] * 30 + [0] * 10 + [1] * 5)
    b = np.array([1] * 30 + [1] * 10 + [0] * 5)
    h = no_harm(a, b)
    hurt = harm_lines(h, "A", "B", "rate", lang)[0]
    assert "5/45" in hurt and "11.1%" in hurt
    line = condition_line(h, "unsure", 0.2, "B", "rate", lang)
    assert "20.0%" in line and f"{100 * h.hurt_ci[1]:.1f}%" in line
    assert "%" in short_line(h, "fails", 0.01, "B", "rate", lang)
    assert delta_text(0.05, "rate") == "5 %p" and delta_text(0.05, "score") == "0.050"


def test_gap_cell_reads_the_condition():
    from core.switch import Condition
    from core.views.harm import gap_cell
    assert gap_cell(Condition("harm", "holds", 0.08, 0.1, 0.0)) == "inside by 2.0 %p"
    assert "3.0 %p" in gap_cell(Condition("harm", "unsure", 0.13, 0.1, 0.03))
    assert "3.0 %p" in gap_cell(Condition("harm", "fails", 0.13, 0.1, 0.03), "ko")
