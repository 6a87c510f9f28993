"""No harm (``core.paired.harm.Harm``) as people read it: the hurt and helped shares with their
intervals, TRisk with its reference, and the harm condition of a switch decision, in EN/KO
(``core/i18n/*/harm.json``); the CLI's lines are the English sentences."""
from __future__ import annotations

from core.i18n import t
from core.paired import TRISK_MIN_N, Harm
from core.views import format as fmt


def delta_text(delta: float, kind: str) -> str:
    """delta in the measure's unit: 5 %p for rates, 0.050 for scores."""
    return f"{100 * delta:g} %p" if kind == "rate" else f"{delta:.{fmt.SCORE_DIGITS}f}"


def harm_lines(h: Harm, a: str, b: str, kind: str, lang: str = "en") -> list[str]:
    """The hurt share, the helped share, TRisk (with fewer than ``TRISK_MIN_N`` cases its test
    of the "riskier" side only, and none when TRisk >= 0, saying why) and, when its test is given, the note on how its p is read (the largest of three tests, ``core.paired.harm``; bench/best_harm.py,
    docs/harm.md), each one sentence."""
    level = fmt.level(h.confidence)
    d = delta_text(h.delta, kind)
    any_loss = h.delta == 0
    hurt = t("harm.hurt_any" if any_loss else "harm.hurt_delta", lang, a=a, b=b, delta=d,
             hurt=h.hurt, n=h.n, share=fmt.pct(h.hurt_share), low=fmt.pct(h.hurt_ci[0]),
             high=fmt.pct(h.hurt_ci[1]), level=level)
    helped = t("harm.helped_any" if any_loss else "harm.helped_delta", lang, b=b, delta=d,
               helped=h.helped, n=h.n, share=fmt.pct(h.helped_share),
               low=fmt.pct(h.helped_ci[0]), high=fmt.pct(h.helped_ci[1]))
    alpha = f"{h.alpha:g}"
    urisk = fmt.diff(h.urisk, kind)
    if h.trisk is None:
        risk = t("harm.trisk_none", lang, alpha=alpha, urisk=urisk)
    elif h.n_clusters is not None:   # clusters as the unit (issue 32): the statistic, no p
        risk = t("clusters.trisk_no_test", lang, alpha=alpha, weight=f"{1 + h.alpha:g}",
                 trisk=f"{h.trisk:.2f}", urisk=urisk)
    elif h.trisk_withheld:
        risk = t("harm.trisk_small", lang, alpha=alpha, weight=f"{1 + h.alpha:g}",
                 trisk=f"{h.trisk:.2f}", urisk=urisk, n=h.n, min_n=TRISK_MIN_N, b=b)
    elif h.n < TRISK_MIN_N:   # below 50 cases the "riskier" side only (core.paired.harm)
        risk = t("harm.trisk_riskier", lang, alpha=alpha, weight=f"{1 + h.alpha:g}",
                 trisk=f"{h.trisk:.2f}", p=fmt.p_text(h.trisk_p), urisk=urisk, b=b, n=h.n,
                 min_n=TRISK_MIN_N)
    else:
        risk = t("harm.trisk", lang, alpha=alpha, weight=f"{1 + h.alpha:g}",
                 trisk=f"{h.trisk:.2f}", p=fmt.p_text(h.trisk_p), urisk=urisk, b=b)
    lines = [hurt, helped, risk]
    if h.trisk_p is not None:
        lines.append(t("harm.trisk_hint", lang))
    return lines


def _condition_params(h: Harm, max_harm: float, b: str, kind: str, lang: str = "en") -> dict:
    """The fields of the harm condition's sentences (``harm.cond_*``, ``harm.short_*``)."""
    by = t("harm.by_more", lang, delta=delta_text(h.delta, kind)) if h.delta else \
        t("harm.any_loss", lang)
    return {"b": b, "share": fmt.pct(h.hurt_share), "low": fmt.pct(h.hurt_ci[0]),
            "high": fmt.pct(h.hurt_ci[1]), "max": fmt.pct(max_harm), "by": by}


def condition_line(h: Harm, state: str, max_harm: float, b: str, kind: str,
                   lang: str = "en") -> str:
    """The harm condition in words (``harm.cond_holds`` / ``_fails`` / ``_unsure``)."""
    return t(f"harm.cond_{state}", lang, **_condition_params(h, max_harm, b, kind, lang))


def short_line(h: Harm, state: str, max_harm: float, b: str, kind: str,
               lang: str = "en") -> str:
    """Why the harm condition stops a switch (``harm.short_fails`` / ``_unsure``)."""
    return t(f"harm.short_{state}", lang, **_condition_params(h, max_harm, b, kind, lang))


def gap_cell(cond, lang: str = "en") -> str:
    """The harm row of the Switch? conditions table: 'inside by 2.1 %p' (the share allowed
    minus the hurt share's upper bound) when it holds, else 'short by ...' (``Condition.gap``),
    the shares' difference in percentage points."""
    if cond.holds:
        return t("switch.gap_inside", lang, amount=f"{100 * (cond.limit - cond.bound):.1f} %p")
    return t("switch.gap_short", lang, amount=f"{100 * cond.gap:.1f} %p")
