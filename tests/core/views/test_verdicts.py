"""core.views.verdicts: the verdict sentence shows the comparison's own B − A and CI, says which
method won, and explains a "no difference" when the data could never show one."""
import numpy as np
import pytest

from core.inputs.golden import load_golden
from core.inputs.systems import compare_golden
from core.i18n import t
from core.paired.compare import compare_paired
from core.views.verdicts import comparison_verdict, degenerate_note, reason_sentence, verdict_sentence
from core.views import format as fmt


def _binary(n=200, pa=0.55, pb=0.75, seed=0):
    u = np.random.default_rng(seed).random(n)
    return (u < pa).astype(float), (u < pb).astype(float)


def test_a_winner_is_named_with_the_signed_difference_and_its_ci():
    a, b = _binary()
    c = compare_paired(a, b, name_a="old", name_b="new", resamples=2000)
    bs = c.bootstrap
    assert c.verdict == "b_better"
    s = verdict_sentence(c.verdict, a="old", b="new", mean=bs.mean, ci_low=bs.ci_low,
                         ci_high=bs.ci_high, n=c.n, confidence=0.95)
    assert s.startswith("new") and "old" in s and "95%" in s
    assert fmt.diff(bs.mean, "rate") in s
    assert fmt.diff(bs.ci_low, "rate").split()[0] in s and fmt.diff(bs.ci_high, "rate").split()[0] in s
    ko = verdict_sentence(c.verdict, a="old", b="new", mean=bs.mean, ci_low=bs.ci_low,
                          ci_high=bs.ci_high, n=c.n, confidence=0.95, lang="ko")
    assert ko != s and "new" in ko


def test_scores_are_stated_on_their_own_scale():
    s = verdict_sentence("a_better", a="A", b="B", mean=-0.0312, ci_low=-0.05, ci_high=-0.01,
                         n=40, confidence=0.9, kind="score")
    assert "%p" not in s and "0.031" in s and "90%" in s and s.startswith("A")


def test_no_difference_names_the_cases_or_queries():
    cases = verdict_sentence("no_difference", a="A", b="B", mean=0.01, ci_low=-0.1,
                             ci_high=0.12, n=31, confidence=0.95)
    assert cases == t("verdicts.no_difference", "en", level="95%", n=31, a="A", b="B")
    queries = verdict_sentence("no_difference", a="A", b="B", mean=0.01, ci_low=-0.1,
                               ci_high=0.12, n=300, confidence=0.95, unit="queries")
    assert queries == t("verdicts.no_difference_queries", "en", level="95%", n=300, a="A",
                        b="B")
    with pytest.raises(ValueError, match="unit"):
        verdict_sentence("no_difference", a="A", b="B", mean=0, ci_low=0, ci_high=0, n=3,
                         confidence=0.95, unit="rows")


def test_reason_sentence_only_when_the_data_could_not_decide():
    a, b = _binary()
    assert reason_sentence(compare_paired(a, b, resamples=1000).decision) is None
    few_a = np.array([1, 1, 1, 0, 1, 0, 1, 1.0])
    few_b = np.array([1, 1, 1, 1, 1, 1, 1, 1.0])  # 2 discordant pairs: min p = 0.5
    d = compare_paired(few_a, few_b, resamples=1000).decision
    assert d.reason == "too_few_discordant"
    text = reason_sentence(d)
    assert "2" in text and f"{d.min_p:.3g}" in text and reason_sentence(d, "ko") != text


def test_degenerate_note_for_a_constant_or_lumpy_bootstrap():
    a = np.linspace(0.2, 0.8, 20)
    constant = compare_paired(a, a + 0.1, resamples=1000).bootstrap
    assert constant.degenerate == "constant"
    assert degenerate_note(constant) == t("verdicts.degenerate_constant", "en", k=constant.distinct)
    fine = compare_paired(*_binary(), resamples=1000).bootstrap
    assert fine.degenerate is None and degenerate_note(fine) is None


def test_comparison_verdict_is_the_sentence_of_a_golden_comparison():
    data = "case_id,A,B\n" + "".join(f"q{i},{i % 2},{int(i % 3 > 0)}\n" for i in range(40))
    res = compare_golden(load_golden(data.encode(), "g.csv"), resamples=1000)
    c, bs = res.comparison, res.comparison.bootstrap
    assert comparison_verdict(res) == verdict_sentence(
        c.verdict, a=c.a, b=c.b, mean=bs.mean, ci_low=bs.ci_low, ci_high=bs.ci_high,
        n=res.n_cases, confidence=bs.confidence, unit=res.golden.unit, kind="rate")


def _margin_cases():
    from core.paired.margin import margin_decision
    a = np.array([1] * 20 + [1] * 2 + [0] * 6 + [0] * 8)
    b = np.array([1] * 20 + [0] * 2 + [1] * 6 + [0] * 8)
    c = compare_paired(a, b, resamples=1_000)
    return c, {m: margin_decision(c, m) for m in (0.01, 0.05, 0.15, 0.4)}


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_margin_sentence_quotes_the_margin_and_the_bound(lang):
    from core.views.verdicts import margin_reason, margin_sentence
    c, results = _margin_cases()
    seen = set()
    for m, r in results.items():
        s = margin_sentence(r, a="base", b="new", lang=lang)
        assert fmt.margin(m, "rate") in s and "base" in s and "new" in s
        # the estimate first, then its bound, as on the Switch? card (issue 37): B − A is
        # the card's own difference, the bound an end of its interval
        est = fmt.diff(c.bootstrap.mean, "rate")
        assert est == fmt.diff(r.mean, "rate") and s.index(est) < s.index(
            fmt.diff(r.ci_high if r.verdict == "inferior" else r.ci_low, "rate"))
        if r.verdict == "non_inferior":
            assert fmt.diff(r.ci_low, "rate") in s
        if r.verdict == "inferior":
            assert fmt.diff(r.ci_high, "rate") in s
        assert s == t(f"margin.verdict_{r.verdict}", lang, a="base", b="new",
                      margin=fmt.margin(m, "rate"), est=est, lo=fmt.diff(r.ci_low, "rate"),
                      hi=fmt.diff(r.ci_high, "rate"))
        assert "lower bound" not in s and "하한" not in s
        assert margin_reason(r, lang) is None or r.reason_key == "test_disagrees"
        seen.add(r.verdict)
    assert {"non_inferior", "equivalent", "inconclusive"} <= seen


@pytest.mark.parametrize("reason", ["test_disagrees", "withheld_self_check"])
def test_margin_sentence_when_the_test_or_the_self_check_holds_it_back(reason):
    """Inconclusive although the interval clears −δ (the one-sided test disagrees, or the
    self-check withholds, issue 36): the sentence does not claim a loss beyond the margin
    that the interval rules out; it gives the estimate and both ends."""
    from dataclasses import replace
    from core.views.verdicts import margin_sentence
    _, results = _margin_cases()
    r = replace(results[0.15], verdict="inconclusive", reason_key=reason)
    assert r.ci_low > -0.15
    for lang in ("en", "ko"):
        s = margin_sentence(r, a="base", b="new", lang=lang)
        assert s == t("margin.verdict_inconclusive_held", lang, a="base", b="new",
                      margin="15.0 %p", est=fmt.diff(r.mean, "rate"),
                      lo=fmt.diff(r.ci_low, "rate"), hi=fmt.diff(r.ci_high, "rate"))
        assert fmt.diff(r.mean, "rate") in s and fmt.diff(r.ci_low, "rate") in s
    assert "loss of more than" not in margin_sentence(r, a="base", b="new")


def test_margin_reason_when_the_self_check_withholds():
    # issue 36: six cases on which the self-check withholds "A is better" (figure 16.6%)
    from core.paired import margin_decision
    from core.views.verdicts import margin_reason
    a = np.full(6, 0.5)
    d = np.array([-0.379, -0.405, -0.157, -0.493, -0.426, -0.422])
    c = compare_paired(a, a + d, resamples=1_000)
    r = margin_decision(c, 0.02)
    assert r.reason_key == "withheld_self_check"
    rate = fmt.pct(c.calibration.shown)
    for lang in ("en", "ko"):
        text = margin_reason(r, lang)
        assert text == t("margin.reason_withheld_self_check", lang,
                         answer=t("margin.short_inferior", lang), rate=rate, level="10%",
                         promise="5%", n=6)
        assert rate in text and "6" in text


def test_margin_reason_when_the_test_disagrees():
    from dataclasses import replace
    from core.views.verdicts import margin_reason
    _, results = _margin_cases()
    r = replace(results[0.05], verdict="inconclusive", reason_key="test_disagrees")
    for lang in ("en", "ko"):
        text = margin_reason(r, lang)
        assert t(f"margin.test_{r.test_name}", lang) in text and "0.025" in text
