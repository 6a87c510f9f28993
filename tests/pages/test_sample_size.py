"""The Sample size page under AppTest: defaults from the loaded golden set, numbers equal to
core.planning.sample_size, Korean text, and a clear error for impossible inputs."""
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from core.inputs.golden import load_golden
from core.inputs.systems import compare_golden
from core.planning.sample_size import (n_continuous_ci, n_continuous_power, n_mcnemar, n_normal,
                              n_paired_ci, n_wilson, wilson_half_width)

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "sample_size.py")
DEMO = ROOT / "data" / "demo_golden.csv"


def _metrics(at) -> dict:
    return {m.label: m.value for m in at.metric}


def _num(text: str) -> int:
    return int(text.replace(",", ""))


@pytest.fixture(scope="module")
def demo_comparison():
    gs = load_golden(DEMO.read_bytes(), "demo_golden.csv")
    return gs, compare_golden(gs, resamples=2000)


def _run(golden=None, comparison=None, lang="en"):
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.session_state["lang"] = lang
    if golden is not None:
        at.session_state["golden_set"] = golden
        at.session_state["golden_comparison"] = comparison
    return at.run()


def test_no_data_uses_general_defaults():
    at = _run()
    assert not at.exception and not at.error
    assert at.number_input(key="sample_size_rate").value == 80.0
    assert at.number_input(key="sample_size_discordance").value == 20.0
    assert at.number_input(key="sample_size_sigma").value == 0.3
    m = _metrics(at)
    assert _num(m["Cases needed"]) == n_wilson(0.8, 0.05)
    assert _num(m["Quick formula gives"]) == n_normal(0.8, 0.05)
    assert _num(m["Cases to detect 3.0 %p with 80% power"]) == n_mcnemar(0.2, 0.03)
    assert any("No golden set loaded" in i.value for i in at.info)
    assert any("general default" in c.value for c in at.caption)


def test_defaults_from_loaded_demo_comparison(demo_comparison):
    gs, comp = demo_comparison
    at = _run(gs, comp)
    assert not at.exception and not at.error
    c = comp.comparison
    assert at.number_input(key="sample_size_rate").value == pytest.approx(83.9)
    assert at.number_input(key="sample_size_discordance").value == pytest.approx(
        round(100 * c.discordance, 1))
    assert at.number_input(key="sample_size_diff").value == pytest.approx(-6.5)  # B − A
    sd = float(np.std(comp.a_values - comp.b_values, ddof=1))
    assert at.number_input(key="sample_size_sigma").value == pytest.approx(round(sd, 3))
    assert any("demo_golden.csv" in i.value and "31 paired cases" in i.value for i in at.info)
    m = _metrics(at)
    assert _num(m["Cases needed"]) == n_wilson(0.839, 0.05)
    hw = wilson_half_width(0.839, 31)
    warnings = " ".join(w.value for w in at.warning)
    assert f"current n = 31, the interval is ±{100 * hw:.1f} %p" in warnings
    # demo: 8 of 31 cases disagree; a 7-1 split is the most even one the verdict's mid-p
    # McNemar test calls significant (mid-p = 2*9/256 - 8/256 = 0.039; exact needed 8-0)
    assert "must reach 19.4 %p (7 of them going one way, 1 the other)" in warnings
    assert "mid-p McNemar" in warnings
    assert _num(m["Cases for a ±5 %p interval of B − A"]) == n_paired_ci(
        round(100 * c.discordance, 1) / 100, 0.065, 0.05)


def test_changing_widgets_recomputes(demo_comparison):
    gs, comp = demo_comparison
    at = _run(gs, comp)
    at.slider(key="sample_size_target").set_value(2.0)
    at.sidebar.slider(key="sample_size_power").set_value(90)
    at.number_input(key="sample_size_diff").set_value(3.0)
    at.number_input(key="sample_size_discordance").set_value(20.0)
    at.number_input(key="sample_size_sigma").set_value(0.3)
    at.number_input(key="sample_size_cdiff").set_value(3.0)
    at.run()
    assert not at.exception and not at.error
    m = _metrics(at)
    assert _num(m["Cases needed"]) == n_wilson(0.839, 0.02)
    assert _num(m["Cases for a ±2 %p interval of B − A"]) == n_paired_ci(0.2, 0.03, 0.02)
    assert _num(m["Cases to detect 3.0 %p with 90% power"]) == n_mcnemar(0.2, 0.03, power=0.9)
    # scores: planned for the calibrated interval (no score data here: normal-shaped)
    from core.planning.shape import n_calibrated_ci, normal_width_factor
    assert _num(m["Cases for a ±2 point interval of B − A"]) == n_calibrated_ci(
        0.3, 0.02, normal_width_factor())
    assert _num(m["Cases to detect 3.0 points with 90% power"]) == n_continuous_power(
        0.03, 0.3, power=0.9)


def test_difference_larger_than_discordance_shows_error(demo_comparison):
    gs, comp = demo_comparison
    at = _run(gs, comp)
    at.number_input(key="sample_size_discordance").set_value(2.0)
    at.number_input(key="sample_size_diff").set_value(5.0)
    at.run()
    assert not at.exception
    assert any("larger than the discordance" in e.value for e in at.error)
    assert "Cases needed" in _metrics(at)  # the other tabs still work


def test_continuous_golden_set_defaults(tmp_path):
    rng = np.random.default_rng(0)
    a = rng.uniform(0.2, 0.9, 40)
    b = np.clip(a - 0.05 + rng.normal(0, 0.1, 40), 0, 1)
    text = "case_id,A,B\n" + "".join(f"q{i},{x:.4f},{y:.4f}\n" for i, (x, y) in
                                     enumerate(zip(a, b)))
    gs = load_golden(text.encode(), "ndcg.csv")
    comp = compare_golden(gs, resamples=1000)
    at = _run(gs, comp)
    assert not at.exception and not at.error
    d = comp.a_values - comp.b_values
    assert at.number_input(key="sample_size_sigma").value == pytest.approx(
        round(float(np.std(d, ddof=1)), 3))
    assert at.number_input(key="sample_size_cdiff").value == pytest.approx(
        round(100 * abs(d.mean()), 1))
    assert at.number_input(key="sample_size_rate").value == 80.0  # scores are not a rate
    assert any("(scores)" in i.value for i in at.info)


def test_planner_plans_the_calibrated_interval_from_the_data_shape_en_and_ko():
    """Scores loaded on the comparison page: the interval answer is the calibrated
    interval's n (core.planning.shape.plan_scores with the comparison's differences), at
    least the t-interval's, and the page says what it assumed; without data it assumes
    normal-shaped differences."""
    from core.planning.shape import plan_scores
    rng = np.random.default_rng(2)
    a = rng.uniform(0.2, 0.6, 30)
    b = np.clip(a + rng.exponential(0.1, 30) - 0.08, 0, 1)
    text = "case_id,A,B\n" + "".join(f"q{i},{x:.4f},{y:.4f}\n" for i, (x, y) in
                                     enumerate(zip(a, b)))
    gs = load_golden(text.encode(), "skewed.csv")
    comp = compare_golden(gs, resamples=1000)
    for lang, words in (("en", "from the shape of your 30 differences"),
                        ("ko", "내 차이 30개의 모양")):
        at = _run(gs, comp, lang)
        assert not at.exception and not at.error
        sigma = at.number_input(key="sample_size_sigma").value
        target = at.slider(key="sample_size_target").value / 100
        plan = plan_scores(sigma, target, d=comp.b_values - comp.a_values)
        assert plan.n_ci >= n_continuous_ci(sigma, target)
        assert any(words in c.value and f"{plan.calibrated.n_t:,}" in c.value
                   for c in at.caption), lang
        assert any(f"{plan.n_ci:,}" == m.value for m in at.metric), lang
    at = _run()
    assert any("assuming normal-shaped differences" in c.value for c in at.caption)


def test_korean(demo_comparison):
    gs, comp = demo_comparison
    at = _run(gs, comp, lang="ko")
    assert not at.exception and not at.error
    assert at.title[0].value.startswith("표본 크기")
    assert "필요한 케이스 수" in _metrics(at)
    assert any("필요한 케이스 수" in md.value and "검정력" in md.value for md in at.markdown)


def _card(at) -> str:
    import html
    cards = [m.value for m in at.markdown if "verdict-card" in m.value]
    assert len(cards) == 1
    return html.unescape(cards[0])


def test_card_answers_first_with_the_test_size():
    """Title, question, 'You need N cases' (N = Connor's McNemar n), 'How to read this', then
    the inputs."""
    from tests.pages.headline import assert_headline_first
    at = _run()
    assert not at.exception
    assert_headline_first(at, first_input="slider")
    card = _card(at)
    assert f"You need {n_mcnemar(0.2, 0.03):,} cases" in card
    assert "McNemar test, Connor 1987, α = 0.05" in card and "verdict-neutral" in card


def test_link_fills_in_the_data_values_and_says_so():
    """The 'next step' link of a 'cannot tell' card: discordance, difference B − A and the
    cases the data have; the card compares the answer with them and the page keeps the link's
    values while widgets change (its own address is not a new link)."""
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.query_params.update({"design": "paired", "disc": "25.8", "diff": "-6.5", "n": "31"})
    at.run()
    assert not at.exception and not at.error
    assert at.number_input(key="sample_size_discordance").value == pytest.approx(25.8)
    assert at.number_input(key="sample_size_diff").value == pytest.approx(-6.5)
    need = n_mcnemar(0.258, -0.065)
    card = _card(at)
    assert f"You need {need:,} cases" in card and "you have 31" in card
    assert "With the 31 cases you have" in card
    assert any("link that opened this page" in i.value for i in at.info)
    at.sidebar.slider(key="sample_size_power").set_value(90).run()
    assert at.number_input(key="sample_size_discordance").value == pytest.approx(25.8)
    assert f"You need {n_mcnemar(0.258, -0.065, power=0.9):,} cases" in _card(at)
    assert at.query_params["power"] == "90" and at.query_params["n"] == "31"


def test_continuous_link_and_enough_cases_is_green():
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.query_params.update({"design": "continuous", "sigma": "0.2", "cdiff": "10", "n": "500"})
    at.run()
    assert not at.exception
    need = n_continuous_power(0.1, 0.2)
    card = _card(at)
    assert f"You need {need:,} cases" in card and "paired t-test" in card
    assert "verdict-better" in card  # 500 >= need: you have enough


def test_korean_card_and_presentation():
    at = _run(lang="ko")
    assert f"{n_mcnemar(0.2, 0.03):,}개 케이스가 필요합니다" in _card(at)
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.query_params["view"] = "present"
    at.run()
    assert not at.exception
    assert len(at.get("vega_lite_chart")) == 1 and not at.expander
    assert "You need" in _card(at)


def test_noninferiority_link_opens_the_mode_with_the_plans_n():
    """The link of an inconclusive quality condition: ?mode=noninferiority with the data's
    discordance, the margin and the assumed true difference; the card gives the same n as
    core.planning.noninferiority, and the widgets change it."""
    from core.planning.noninferiority import n_noninferiority_paired
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.query_params.update({"mode": "noninferiority", "design": "paired", "disc": "12.5",
                            "margin": "5.0", "assumed": "0.0", "n": "40", "alpha": "0.05"})
    at.run()
    assert not at.exception and not at.error
    assert at.radio(key="sample_size_mode").value == "noninferiority"
    need = n_noninferiority_paired(0.125, 0.0, 0.05)
    card = _card(at)
    assert f"You need {need:,} cases" in card and "not worse than A by more than 5 %p" in card
    assert "Nam 1997" in card and "you have 40" in card
    at.number_input(key="sample_size_margin").set_value(2.0).run()
    assert f"You need {n_noninferiority_paired(0.125, 0.0, 0.02):,} cases" in _card(at)
    assert at.query_params["mode"] == "noninferiority" and at.query_params["margin"] == "2"
    at.number_input(key="sample_size_assumed").set_value(-3.0).run()   # a loss beyond δ
    assert at.error


def test_noninferiority_mode_for_scores_in_korean():
    from core.planning.noninferiority import n_noninferiority_continuous
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.session_state["lang"] = "ko"
    at.query_params.update({"mode": "noninferiority", "design": "continuous", "sigma": "0.3",
                            "margin": "5", "assumed": "0", "n": "50"})
    at.run()
    assert not at.exception
    need = n_noninferiority_continuous(0.0, 0.3, 0.05)
    assert f"{need:,}개 케이스가 필요합니다" in _card(at) and "단측 대응 t-검정" in _card(at)


def test_korean_mode_switch_by_widget():
    from core.planning.noninferiority import n_noninferiority_paired
    at = _run(lang="ko")
    at.radio(key="sample_size_mode").set_value("noninferiority").run()
    assert not at.exception
    at.number_input(key="sample_size_margin").set_value(5.0).run()
    assert not at.exception
    need = n_noninferiority_paired(0.2, 0.0, 0.05)
    assert f"{need:,}개 케이스가 필요합니다" in _card(at)


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_clusters_and_runs_turn_the_plan_into_documents(lang):
    """Issue 32: ICC and questions per document (prefilled from the golden page's measured
    clusters) turn each n into documents x questions, the numbers of core.paired.plan_clusters."""
    from core.paired import plan_clusters
    at = AppTest.from_file(str(Path(__file__).resolve().parents[2] / "pages" / "sample_size.py"),
                           default_timeout=120)
    at.session_state["lang"] = lang
    at.session_state["golden_clusters"] = {"n_clusters": 12, "icc": 0.2, "mean_size": 5.0}
    at.run()
    assert not at.exception
    assert at.number_input(key="sample_size_icc").value == pytest.approx(0.2)
    assert at.number_input(key="sample_size_m").value == 5
    import re
    captions = "\n".join(c.value for c in at.caption)
    m = re.search(r"(\d+)\D{0,25}× \D*1\.80 = \D*(\d+)\D+(\d+)", captions)
    assert m, captions
    n, cases, clusters = map(int, m.groups())
    p = plan_clusters(n, icc=0.2, cluster_size=5)
    assert (cases, clusters) == (p.n_cases, p.n_clusters)
