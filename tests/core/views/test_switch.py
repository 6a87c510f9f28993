"""core.views.switch: the sentences quote the decision's own numbers in EN and KO, the card's
tone follows the decision, the next step links the planner with the plan's values, and the
charts carry the bounds and the limit."""
from urllib.parse import parse_qs, urlparse

import pytest

from core.switch import decide_files
from core.views.switch import (decision_card, decision_sentence, decision_text, quality_chart,
                               speed_chart)
from tests.core.test_switch import CLOSE, FAST, WORSE, golden_csv, latency_csv


@pytest.fixture(scope="module")
def decisions():
    def dec(table, margin, ratio, slow=1.10):
        return decide_files(golden_csv(table), "q.csv", latency_csv(ratio), "l.csv",
                            margin=margin, max_slowdown=slow, **FAST)
    return {"switch": dec(CLOSE, 0.02, 0.7), "slow": dec(CLOSE, 0.02, 1.5),
            "worse": dec(WORSE, 0.02, 0.7), "unsure": dec(CLOSE, 0.01, 0.7)}


def test_switch_sentence_quotes_margin_bound_and_ratio(decisions):
    d = decisions["switch"]
    s = decision_sentence(d, "en")
    # issue 37: the estimate and its bound in one sentence ("loses at most 2 %p (lower
    # bound -1.7 %p)" read as if B were 2 points worse)
    est, low = f"{100 * d.quality.mean:+.1f} %p", f"{100 * d.quality.ci_low:+.1f} %p"
    assert s.startswith(f"Switch: cand scores {est} vs base; at worst {low}, within the 2 %p "
                        "you allowed.")
    assert f"It takes {d.ratio:.2f}× base's time; at worst {d.ratio_high:.2f}×, within the " \
        "1.10× you allowed." in s
    ko = decision_sentence(d, "ko")
    assert ko.startswith(f"전환하세요: cand는 base 대비 {est}이고, 최악이라도 {low}로 허용한 2 %p")
    assert "loses" not in s


def test_failing_condition_is_named_with_its_gap(decisions):
    s = decision_sentence(decisions["slow"], "en")
    assert s.startswith("Do not switch:") and "1.10×" in s
    assert f"{decisions['slow'].speed_condition.gap:.2f}×" in s
    s = decision_sentence(decisions["worse"], "en")
    gap = decisions["worse"].quality_condition.gap
    w = decisions["worse"].quality
    assert f"cand scores {100 * w.mean:+.1f} %p vs base; even at best {100 * w.ci_high:+.1f} %p, "\
        f"{100 * gap:.1f} %p more loss than the 2 %p you allowed." in s
    assert decision_sentence(decisions["worse"], "ko").startswith("전환하지 마세요")


def test_card_tone_value_and_next_step_link(decisions):
    assert decision_card(decisions["switch"]).tone == "better"
    assert decision_card(decisions["slow"]).tone == "worse"
    card = decision_card(decisions["unsure"], "ko")
    assert card.tone == "neutral" and card.value == "아직 판단할 수 없습니다"
    ns = decisions["unsure"].next_step
    assert f"{ns.n_needed:,}" in card.next_step
    q = parse_qs(urlparse(card.next_link).query)
    assert urlparse(card.next_link).path == "sample_size"
    assert q["mode"] == ["noninferiority"] and q["margin"] == ["1.0"] and q["lang"] == ["ko"]
    assert q["disc"] == [f"{100 * ns.discordance:.1f}"]
    assert decision_card(decisions["switch"]).next_step == ""


def test_cli_text_says_the_exit_code(decisions):
    text = decision_text(decisions["unsure"])
    assert "exit code 3" in text and f"{decisions['unsure'].next_step.n_needed:,}" in text
    assert "exit code 0" in decision_text(decisions["switch"])


def test_charts_carry_the_bounds_and_limits(decisions):
    d = decisions["unsure"]
    spec = quality_chart(d, title="q", x_title="x", limit_label="-d").to_dict()
    values = [v for ds in spec["datasets"].values() for v in ds]
    assert {"lo": 100 * d.quality.ci_low, "hi": 100 * d.quality.ci_high,
            "mid": 100 * d.quality.mean, "y": 0} in values
    assert {"x": -100 * d.margin, "label": "-d"} in values
    spec = speed_chart(d, title="s", x_title="x", limit_label="max").to_dict()
    values = [v for ds in spec["datasets"].values() for v in ds]
    assert {"x": d.max_slowdown, "label": "max"} in values


def test_each_condition_against_its_limit_never_reads_as_a_miss_when_it_holds(decisions):
    """Issue 37: passed conditions showed "misses by 0.0 %p / 0.00×". A condition that holds
    says how far inside its limit its bound is; one that does not, how far short."""
    from core.views.switch import limit_cell
    d = decisions["switch"]
    q, sp = d.quality_condition, d.speed_condition
    assert q.holds and sp.holds
    assert limit_cell(q, d.kind) == f"inside by {100 * (d.quality.ci_low + d.margin):.1f} %p"
    assert limit_cell(sp, d.kind) == f"inside by {d.max_slowdown - d.ratio_high:.2f}×"
    assert limit_cell(q, d.kind, "ko").endswith("%p 여유")
    slow = decisions["slow"].speed_condition
    assert not slow.holds and limit_cell(slow, "rate") == f"short by {slow.gap:.2f}×"
    assert limit_cell(slow, "rate", "ko") == f"{slow.gap:.2f}× 부족"
    worse = decisions["worse"].quality_condition
    assert limit_cell(worse, "rate") == f"short by {100 * worse.gap:.1f} %p"
    for dec in decisions.values():
        for c in (dec.quality_condition, dec.speed_condition):
            assert ("inside" in limit_cell(c, dec.kind)) == (c.holds or c.gap == 0)
def test_chart_axes_have_a_tick_at_no_difference(decisions):
    """Issue 37: the quality axis ticks at 0 (and draws it), the speed axis at 1×."""
    for d in decisions.values():
        for chart, anchor in ((quality_chart(d, title="", x_title="x", limit_label="-d"), 0.0),
                              (speed_chart(d, title="", x_title="x", limit_label="max"), 1.0)):
            spec = chart.to_dict()
            x = spec["layer"][0]["encoding"]["x"]
            lo, hi = x["scale"]["domain"]
            ticks = x["axis"]["values"]
            assert anchor in ticks and all(lo <= v <= hi for v in ticks), (ticks, lo, hi)
            assert len(ticks) >= 3
            values = [v for ds in spec["datasets"].values() for v in ds]
            assert {"x": anchor} in values   # the line of no difference
            if anchor == 1.0:
                assert "×" in x["axis"]["labelExpr"]
