"""Plain-language verdict sentences, in English or Korean (the CLI text is in ``core.views``)."""
from __future__ import annotations

from core import checks
from core.i18n import t
from core.paired import Verdict, resampled
from core.views.format import (diff as fmt_diff, fmt_p, level as fmt_level, margin as fmt_margin,
                               p_text, pct, pp)

__all__ = ["comparison_verdict", "degenerate_note", "fmt_p", "interval_label", "margin_reason", "margin_sentence",
           "pct", "pp", "reason_sentence", "verdict_sentence"]


def verdict_sentence(verdict: Verdict, *, a: str, b: str, mean: float, ci_low: float,
                     ci_high: float, n: int, confidence: float, lang: str = "en",
                     unit: str = "cases", kind: str = "rate") -> str:
    """'No significant difference at 95%: this 31-case golden set cannot tell them apart' (or
    'these 300 queries cannot …' with ``unit="queries"``), or 'B is better than A: B − A =
    +x %p [lo, hi]' (or A), in ``lang``. ``mean`` and [``ci_low``, ``ci_high``] are the
    difference B − A (new minus baseline) and its CI, quoted as they are, signed, so the
    sentence shows the same number as the card, the tables and the CLI. ``kind="score"``
    states it on the measure's own scale ('+0.031 [+0.010, +0.052]', see
    ``core.views.format``) instead of in %p."""
    checks.choice("unit", unit, ("cases", "queries"))
    kind = checks.choice("kind", kind, ("rate", "score"))
    level = fmt_level(confidence)
    if verdict == "no_difference":
        key = "verdicts.no_difference" + ("_queries" if unit == "queries" else "")
        return t(key, lang, level=level, n=n, a=a, b=b)
    winner, loser = (a, b) if verdict == "a_better" else (b, a)
    return t("verdicts.better", lang, winner=winner, loser=loser, a=a, b=b, level=level,
             diff=fmt_diff(mean, kind), lo=fmt_diff(ci_low, kind), hi=fmt_diff(ci_high, kind))


def reason_sentence(decision, lang: str = "en") -> str | None:
    """Why a verdict is ``no_difference`` although it might look otherwise, or None: too few
    discordant cases / non-zero differences for the exact test ever to reach alpha (with the
    smallest possible p), or a CI that excludes 0 while the exact test does not agree. A
    ``core.paired.compare.Decision``; None for "better" and for a plain CI that contains 0."""
    if decision.reason in (None, "ci_includes_zero"):
        return None
    alpha = f"{decision.alpha:.2g}"
    if decision.reason in ("too_few_discordant", "too_few_nonzero"):
        return t(f"verdicts.reason_{decision.reason}", lang, m=decision.nonzero,
                 min_p=f"{decision.min_p:.3g}", alpha=alpha)
    if decision.reason == "withheld_self_check":
        return t("verdicts.reason_withheld_self_check", lang, rate=pct(decision.self_check_rate),
                 level=pct(2 * decision.alpha, 0), promise=pct(decision.alpha, 0),
                 n=decision.self_check_n)
    if decision.reason == "fails_self_check":
        return t("verdicts.reason_fails_self_check", lang, rate=pct(decision.self_check_rate),
                 test=t(f"verdicts.survival_{decision.survival_test}", lang),
                 p=p_text(decision.survival_p), alpha=alpha)
    return t("verdicts.reason_test_disagrees", lang, test=t(f"verdicts.test_{decision.test}", lang),
             p=p_text(decision.p), alpha=alpha)


def interval_label(bs) -> str:
    """What produced the CI of B − A (a ``BootstrapResult``), for the CLI line (English, as
    the CLI's other statistics): 'tango, closed form: no resampling' or 'calibrated_t, paired
    bootstrap: 20,000 resamples, seed 0' (``core.paired.intervals.resampled``, issue 36);
    'calibrated_t + skew guard, ...' when the skew guard moved an end
    (``BootstrapResult.skew_guard``), '... + reaches 0 (too few cases differ), ...' when the
    interval was widened to reach 0 (``BootstrapResult.reaches_zero``)."""
    name = f"{bs.interval} + skew guard" if bs.skew_guard else bs.interval
    name += " + reaches 0 (too few cases differ)" if bs.reaches_zero else ""
    if not resampled(bs.interval):
        return f"{name}, closed form: no resampling"
    return f"{name}, paired bootstrap: {bs.resamples:,} resamples, seed {bs.seed}"


def interval_name(bs, lang: str = "en") -> str:
    """The interval of B − A (a ``BootstrapResult``) by name, translated, for the card:
    'Calibrated t-interval, widened by the bootstrap-t, for scores', or '..., widened by the
    bootstrap-t and the skew guard, ...' when the skew guard moved an end, '..., widened to
    reach 0: too few cases differ ...' when that moved an end (issue 36)."""
    if bs.reaches_zero:
        return t("verdicts.interval_calibrated_t_reaches_zero", lang)
    if bs.skew_guard:
        return t("verdicts.interval_calibrated_t_guarded", lang)
    return t(f"verdicts.interval_{bs.interval}", lang)


def degenerate_note(bootstrap, lang: str = "en") -> str | None:
    """A note for beside the CI when the bootstrap distribution is degenerate
    (``core.paired.resampling.BootstrapResult.degenerate``), else None."""
    kind = bootstrap.degenerate
    if kind is None:
        return None
    return t(f"verdicts.degenerate_{kind}", lang, k=bootstrap.distinct)


def paired_sentence(c, *, a: str, b: str, unit: str = "cases", lang: str = "en") -> str:
    """The verdict sentence of the one paired result ``c`` (a ``PairedComparison``) with A and B
    named ``a`` and ``b``: ``verdict_sentence`` of its verdict, B − A, interval, n and kind.
    The one place a comparison becomes its sentence (the card's, ``core.views.paired``; the
    CLI's; the report's)."""
    bs = c.bootstrap
    return verdict_sentence(c.verdict, a=a, b=b, mean=bs.mean, ci_low=bs.ci_low,
                            ci_high=bs.ci_high, n=c.n, confidence=bs.confidence, lang=lang,
                            unit=unit, kind="rate" if c.binary else "score")


def comparison_verdict(result, lang: str = "en") -> str:
    """The verdict sentence of a ``GoldenComparison`` (``paired_sentence`` of its comparison,
    in its set's unit)."""
    c = result.comparison
    return paired_sentence(c, a=c.a, b=c.b, unit=result.golden.unit, lang=lang)


def margin_sentence(result, *, a: str, b: str, lang: str = "en") -> str:
    """The margin's answer (a ``core.paired.margin.MarginResult``) in one plain sentence, the
    estimate and then its bound, as the Switch? card says it (issue 37): 'B scores +0.3 %p
    vs A; at worst -1.7 %p, within the 2.0 %p you allowed.', '... even at best ..., it loses
    more than ...', 'Equivalent within ±2.0 %p: ...', 'Cannot tell yet at a margin of
    2.0 %p: ...' (in other words when the interval clears the margin but the one-sided test
    or the self-check holds the answer back: ``margin_reason`` says which); B − A and the
    interval's ends as core computed them."""
    kind = checks.choice("kind", result.kind, ("rate", "score"))
    held = result.verdict == "inconclusive" and result.reason_key != "ci_holds_margin"
    key = result.verdict + ("_held" if held else "")  # by the test or the self-check
    return t(f"margin.verdict_{key}", lang, a=a, b=b, margin=fmt_margin(result.margin, kind),
             est=fmt_diff(result.mean, kind), lo=fmt_diff(result.ci_low, kind),
             hi=fmt_diff(result.ci_high, kind))


def margin_band_note(result, ci_low: float, ci_high: float, lang: str = "en") -> str | None:
    """One line when a score margin reads a wider interval of B − A than the card's
    [``ci_low``, ``ci_high``]: with delta > 0 its ends are moved out to the skew guard's at
    half its noise allowance (``core.paired.margin.MARGIN_GUARD_ALLOWANCE``, issue 36), so the
    band's ends are named with the reason; None when the two read the same as shown."""
    if result.kind != "score":
        return None
    band = fmt_diff(result.ci_low, "score"), fmt_diff(result.ci_high, "score")
    card = fmt_diff(ci_low, "score"), fmt_diff(ci_high, "score")
    if band == card:   # the same at the shown precision
        return None
    return t("margin.band_wider", lang, lo=band[0], hi=band[1], card_lo=card[0],
             card_hi=card[1])


def margin_reason(result, lang: str = "en") -> str | None:
    """Why a margin's answer is 'inconclusive' although the interval clears the margin (the
    one-sided test does not agree, or the self-check withholds the answer: issue 36), or
    None."""
    if result.reason_key == "withheld_self_check":
        p = result.reason_params
        return t("margin.reason_withheld_self_check", lang,
                 answer=t(f"margin.short_{p['withheld']}", lang), rate=pct(p["rate"]),
                 level=pct(p["level"], 0), promise=pct(p["promise"], 0), n=p["n"])
    if result.reason_key != "test_disagrees":
        return None
    return t("margin.reason_test_disagrees", lang, margin=fmt_margin(result.margin, result.kind),
             test=t(f"margin.test_{result.test_name}", lang),
             p=p_text(result.reason_params["p"]), alpha=f"{result.alpha:.3g}")
