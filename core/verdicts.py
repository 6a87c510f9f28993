"""Plain-language verdict sentences, in English or Korean (the CLI text is in ``core.views``)."""
from __future__ import annotations

from core.i18n import t
from core.stats import Verdict
from core.views.format import fmt_p, level as fmt_level, pct, pp

__all__ = ["comparison_verdict", "fmt_p", "pct", "pp", "verdict_sentence"]


def verdict_sentence(verdict: Verdict, *, a: str, b: str, mean: float, ci_low: float,
                     ci_high: float, n: int, confidence: float, lang: str = "en",
                     unit: str = "cases") -> str:
    """'No significant difference at 95%: this 31-case golden set cannot tell them apart' (or
    'these 300 queries cannot …' with ``unit="queries"``), or 'A is better by x %p [lo, hi]'
    (or B), in ``lang``."""
    if unit not in ("cases", "queries"):
        raise ValueError(f"unit must be 'cases' or 'queries', got {unit!r}")
    level = fmt_level(confidence)
    if verdict == "no_difference":
        key = "verdicts.no_difference" + ("_queries" if unit == "queries" else "")
        return t(key, lang, level=level, n=n, a=a, b=b)
    if verdict == "a_better":
        return t("verdicts.better", lang, winner=a, loser=b, level=level,
                 diff=f"{100 * mean:.1f}", lo=f"{100 * ci_low:.1f}", hi=f"{100 * ci_high:.1f}")
    return t("verdicts.better", lang, winner=b, loser=a, level=level,
             diff=f"{-100 * mean:.1f}", lo=f"{-100 * ci_high:.1f}", hi=f"{-100 * ci_low:.1f}")


def comparison_verdict(result, lang: str = "en") -> str:
    """The verdict sentence of a ``GoldenComparison``."""
    c = result.comparison
    bs = c.bootstrap
    return verdict_sentence(c.verdict, a=c.a, b=c.b, mean=bs.mean, ci_low=bs.ci_low,
                            ci_high=bs.ci_high, n=result.n_cases, confidence=bs.confidence,
                            lang=lang, unit=result.golden.unit)
