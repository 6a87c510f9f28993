"""core.views.harm: the hurt/helped/TRisk sentences and the harm condition, EN and KO, with the
numbers of the Harm they describe."""
import numpy as np
import pytest

from core.paired.harm import no_harm
from core.views.harm import condition_line, delta_text, harm_lines, short_line


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_lines_carry_the_numbers(lang):
    rng = np.random.default_rng(0)
    a = rng.random(40)
    b = np.clip(a + rng.normal(0.02, 0.1, 40), 0, 1)
    h = no_harm(a, b)
    hurt, helped, risk, note = harm_lines(h, "base", "cand", "score", lang)
    assert f"{h.hurt}/40" in hurt and f"{100 * h.hurt_share:.1f}%" in hurt
    assert f"{100 * h.hurt_ci[1]:.1f}%" in hurt and "0.050" in hurt
    assert f"{h.helped}/40" in helped and f"{100 * h.helped_ci[0]:.1f}%" in helped
    assert f"{h.trisk:.2f}" in risk and "α = 2" in risk
    assert ("3×" if lang == "en" else "3배") in risk
    assert "19%" in note and "docs/harm.md" in note  # TRisk's p is a hint
    flat = no_harm([0.1, 0.2, 0.3], [0.2, 0.3, 0.4])  # TRisk undefined: no hint
    assert len(harm_lines(flat, "base", "cand", "score", lang)) == 3


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
