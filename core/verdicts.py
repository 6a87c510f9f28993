"""Plain-language verdicts and the CLI's readable text, in English or Korean."""
from __future__ import annotations

from core.i18n import t
from core.stats import Verdict
from core.views.format import fmt_p, level as fmt_level, pct, pp

__all__ = ["comparison_text", "comparison_verdict", "fmt_p", "pct", "pp", "verdict_sentence"]


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


def comparison_text(result, lang: str = "en") -> str:
    """Readable multi-line summary of a ``GoldenComparison`` (the CLI's default output)."""
    c = result.comparison
    bs = c.bootstrap
    level = fmt_level(bs.confidence)
    lines = [f"{result.golden.source}: {result.n_cases} paired cases "
             f"(one case = {100 / result.n_cases:.1f} %p)"]
    for name, r in ((c.a, c.rate_a), (c.b, c.rate_b)):
        count = f" ({r.successes}/{r.n})" if r.successes is not None else ""
        lines.append(f"  {name}: {pct(r.mean)}{count}  {level} {r.interval} "
                     f"[{pct(r.ci_low)}, {pct(r.ci_high)}]")
    lines.append(f"  {c.a} - {c.b}: {pp(bs.mean)}  {level} paired bootstrap CI "
                 f"[{pp(bs.ci_low)}, {pp(bs.ci_high)}]  ({bs.resamples:,} resamples, "
                 f"seed {bs.seed})")
    tests = [f"randomization p = {fmt_p(c.randomization_p)}"]
    if c.mcnemar_p is not None:
        tests.insert(0, f"McNemar exact p = {fmt_p(c.mcnemar_p)}")
    if c.ttest_p is not None:
        tests.append(f"paired t-test p = {fmt_p(c.ttest_p)}")
    lines.append("  " + "; ".join(tests))
    ex = result.excluded
    if ex.total:
        lines.append(f"  left out: {len(ex.missing)} missing, {len(ex.duplicates)} duplicate, "
                     f"{len(ex.blank)} blank")
    lines.append(comparison_verdict(result, lang))
    return "\n".join(lines)
