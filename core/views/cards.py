"""The verdict card: the first thing read on a results page and at the top of the report.

``paired_card`` turns a paired comparison (difference B − A, its CI, the verdict) into a
``VerdictCard``: the headline difference is read as "does B (the new method) beat A (the
baseline)": B − A as core computed it, with its CI, one plain sentence from ``core.views.verdicts`` under it,
and an optional second line (a reason, e.g. why the verdict is "no difference"). The tone
(colour) comes from ``core.views.palette.tone_of``. ``card_html`` renders it as escaped HTML
with inline styles, the same in the app and in the offline report.
"""
from __future__ import annotations

import html
from dataclasses import dataclass

from core import checks
from core.views import format as fmt
from core.views.format import level as fmt_level
from core.views.palette import MUTED, REFERENCE, TABLE_HEADER, TEXT, TONES, margin_tone, tone_of

BAND_LABEL_ROOM = 12   # % of the strip's width: a narrower band gets one label, not two
AGREEMENT_TONES = {"almost_perfect": "better", "substantial": "better", "moderate": "neutral",
                   "fair": "worse", "slight": "worse", "poor": "worse"}


@dataclass(frozen=True)
class VerdictCard:
    """What the card shows; every field is plain text (escaped when rendered)."""

    tone: str          # "better" | "worse" | "neutral" (core.views.palette.TONES)
    label: str         # what the big number is, e.g. "RRF − title-only"
    value: str         # the big number, e.g. "+15.0 %p"
    interval: str      # e.g. "95% CI [+5.0 %p, +25.0 %p]"
    sentence: str      # the verdict in one plain sentence
    reason: str = ""   # an optional second line
    next_step: str = ""   # "cannot tell": how many cases would tell them apart
    next_link: str = ""   # a relative link to the planner with those values filled in
    next_label: str = ""  # the link's text
    calibration: str = ""  # "On data like yours, this interval would wrongly leave out 0 ..."
    warning: str = ""      # e.g. BCa on fewer than 50 cases
    margin: str = ""       # with a margin: its answer ("B is not worse than A by more than ...")
    margin_reason: str = ""  # why the margin's answer is "inconclusive" (the test disagrees, or the self-check withholds)
    band: MarginBand | None = None   # the margin drawn as a shaded band beside the CI
    best: str = ""         # with more systems than A and B: who is tied for best of them all
    caveats: str = ""      # one line: what changes the reading (the latency fairness checks)

    def __post_init__(self):
        if self.tone not in TONES:
            raise ValueError(f"tone must be one of {tuple(TONES)}, got {self.tone!r}")

    def to_dict(self) -> dict:
        return {"tone": self.tone, "label": self.label, "value": self.value,
                "interval": self.interval, "sentence": self.sentence, "reason": self.reason,
                "next_step": self.next_step, "next_link": self.next_link,
                "calibration": self.calibration, "warning": self.warning,
                "margin": self.margin, "margin_reason": self.margin_reason,
                "best": self.best, "caveats": self.caveats}


@dataclass(frozen=True)
class MarginBand:
    """What the card's margin strip draws, in display units (``core.views.format.scale``):
    the band [-margin, +margin], the CI [ci_low, ci_high] of B − A, its mean and 0; ``text``
    labels the two ends of the band and ``label`` says it all for a screen reader."""

    margin: float
    ci_low: float
    ci_high: float
    mean: float
    low_text: str
    high_text: str
    label: str
    both_text: str = ""   # one label for a band too narrow for two ("±2.0 %p")

    def position(self, x: float) -> float:
        """``x`` as a percentage of the strip's width (the band, the CI and 0 fit, with 8% of
        room on each side)."""
        lo = min(self.ci_low, -self.margin, 0.0)
        hi = max(self.ci_high, self.margin, 0.0)
        span = max(hi - lo, 1e-12)
        return 8 + 84 * (x - lo) / span


def paired_card(verdict: str, *, a: str, b: str, mean: float, ci_low: float, ci_high: float,
                confidence: float, kind: str, sentence: str, ci_label: str = "CI",
                reason: str = "", next_step: str = "", next_link: str = "",
                next_label: str = "", calibration: str = "",
                warning: str = "", margin_verdict: str | None = None, margin: str = "",
                margin_reason: str = "", band: MarginBand | None = None) -> VerdictCard:
    """The card of a paired comparison whose difference ``mean`` = B − A (new minus
    baseline) lies in [``ci_low``, ``ci_high``] (a percentile or BCa bootstrap CI, Efron &
    Tibshirani 1993), shown as it is in ``kind``'s unit. With a margin (``core.paired.margin``),
    ``margin_verdict`` sets the tone (``margin_tone``: the question asked is then "safe to
    switch?"), ``margin`` is its sentence and ``band`` its strip."""
    confidence = checks.confidence(confidence)
    checks.text("sentence", sentence)
    level = fmt_level(confidence)
    tone = tone_of(verdict) if margin_verdict is None else margin_tone(margin_verdict)
    return VerdictCard(
        tone=tone, label=f"{b} − {a}", value=fmt.diff(mean, kind),
        interval=f"{level} {ci_label} {fmt.interval(ci_low, ci_high, kind, signed=True)}",
        sentence=sentence, reason=reason, next_step=next_step, next_link=next_link,
        next_label=next_label, calibration=calibration, warning=warning, margin=margin,
        margin_reason=margin_reason, band=band)


def _band_html(band: MarginBand, accent: str) -> str:
    """The margin strip: a grey track, the band [-margin, +margin] shaded in the card's
    accent with a solid line at -margin (the loss that must be ruled out), 0 dashed, and the
    CI of B − A as a dark bar with its mean as a dot; the band's ends are labelled below."""
    e = html.escape
    x = band.position
    left, right = x(-band.margin), x(band.margin)
    lo, hi = x(band.ci_low), x(band.ci_high)
    pos = "position:absolute;"
    label_style = (f"{pos}top:13px;transform:translateX(-50%);font-size:.75rem;"
                   f"line-height:1.2;white-space:nowrap;color:{TEXT}")
    return (
        f'<div class="verdict-band" role="img" aria-label="{e(band.label, quote=True)}" '
        f'style="position:relative;height:12px;margin:.35rem 0 1.05rem 0;'
        f'background:{TABLE_HEADER};border-radius:3px">'
        f'<div style="{pos}left:{left:.2f}%;width:{right - left:.2f}%;top:0;bottom:0;'
        f'background:{accent};opacity:.22"></div>'
        f'<div style="{pos}left:{left:.2f}%;top:-3px;bottom:-3px;'
        f'border-left:2px solid {accent}"></div>'
        f'<div style="{pos}left:{x(0.0):.2f}%;top:0;bottom:0;'
        f'border-left:2px dashed {REFERENCE}"></div>'
        f'<div style="{pos}left:{lo:.2f}%;width:{max(hi - lo, 0.3):.2f}%;top:4px;height:4px;'
        f'background:{TEXT}"></div>'
        f'<div style="{pos}left:{x(band.mean):.2f}%;top:2px;width:8px;height:8px;'
        f'margin-left:-4px;border-radius:50%;background:{TEXT};'
        f'border:1px solid {MUTED}"></div>'
        + (f'<span style="{label_style};left:{left:.2f}%">{e(band.low_text)}</span>'
           f'<span style="{label_style};left:{right:.2f}%">{e(band.high_text)}</span>'
           if right - left >= BAND_LABEL_ROOM else
           f'<span style="{label_style};left:{(left + right) / 2:.2f}%">{e(band.both_text or band.low_text)}'
           f'</span>')
        + '</div>')


def agreement_card(band: str | None, *, label: str, kappa: float, ci_low: float,
                   ci_high: float, confidence: float, sentence: str,
                   ci_label: str = "CI") -> VerdictCard:
    """The card of a label-agreement check: kappa (Cohen 1960) with its bootstrap CI; green
    from 'substantial' up, amber for 'moderate', red below (Landis & Koch 1977 bands)."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    tone = AGREEMENT_TONES.get(band, "neutral") if band else "neutral"
    level = fmt_level(confidence)
    return VerdictCard(tone=tone, label=label, value=fmt.value(kappa, "score"),
                       interval=f"{level} {ci_label} "
                                f"{fmt.interval(ci_low, ci_high, 'score')}",
                       sentence=sentence)


def card_html(card: VerdictCard, *, large: bool = False, links: bool = True) -> str:
    """The card as one escaped HTML block with inline styles (no scripts, no classes the
    page must define). The sentence sits in an element of class ``verdict`` (with a margin,
    the margin's answer, class ``verdict verdict-margin``, with its band), the next step
    in ``verdict-next`` with its link (``links=False`` for an offline report, where the
    app's pages are not there to open), the caveats that change the reading in
    ``verdict-caveats`` (kept in the presentation view, which hides the page's warnings)."""
    accent, background = TONES[card.tone]
    e = html.escape
    big = "3.4rem" if large else "2.6rem"
    reason = (f'<div class="verdict-reason" style="margin-top:.3rem;font-size:1rem;'
              f'color:{TEXT}">{e(card.reason)}</div>' if card.reason else "")
    if card.next_step:
        link = (f' <a href="{e(card.next_link, quote=True)}" target="_self" '
                f'style="color:{accent};font-weight:600">{e(card.next_label)}</a>'
                if links and card.next_link else "")
        reason += (f'<div class="verdict-next" style="margin-top:.3rem;font-size:1rem;'
                   f'color:{TEXT}">{e(card.next_step)}{link}</div>')
    # with a margin its answer is the card's sentence (the question asked: "safe to
    # switch?"), drawn with its band; the superiority sentence stays in the details and the
    # CLI, so the card still fits the presentation view's one screen
    sentence = (f'<div class="verdict" style="font-size:1.15rem;font-weight:600;'
                f'margin-top:.3rem">{e(card.sentence)}</div>')
    if card.margin:
        sentence = (f'<div class="verdict verdict-margin" style="font-size:1.15rem;'
                    f'font-weight:700;margin-top:.3rem;color:{accent}">{e(card.margin)}</div>')
        if card.band is not None:
            sentence += _band_html(card.band, accent)
        if card.margin_reason:
            sentence += (f'<div class="verdict-margin-reason" style="font-size:1rem;'
                         f'color:{TEXT}">{e(card.margin_reason)}</div>')
    best = (f'<div class="verdict-best" style="margin-top:.3rem;font-size:1.05rem;'
            f'font-weight:600;color:{TEXT}">{e(card.best)}</div>' if card.best else "")
    if card.caveats:
        reason += (f'<div class="verdict-caveats" style="margin-top:.45rem;font-size:1rem;'
                   f'font-weight:600;color:{TONES["worse"][0]}">⚠ {e(card.caveats)}</div>')
    for cls, text in (("verdict-warning", card.warning),
                      ("verdict-calibration", card.calibration)):
        if text:
            reason += (f'<div class="{cls}" style="margin-top:.3rem;font-size:.95rem;'
                       f'color:{TEXT}">{e(text)}</div>')
    return (
        f'<div class="verdict-card verdict-{card.tone}" role="status" '
        f'style="border-left:8px solid {accent};background:{background};color:{TEXT};'
        f'padding:.9rem 1.2rem;margin:.6rem 0 1rem 0;border-radius:.4rem">'
        f'<div style="font-size:1rem;font-weight:600;color:{accent}">{e(card.label)}</div>'
        f'<div style="display:flex;flex-wrap:wrap;align-items:baseline;gap:.2rem 1rem">'
        f'<span class="verdict-value" style="font-size:{big};font-weight:700;line-height:1.15;'
        f'color:{accent}">{e(card.value)}</span>'
        f'<span class="verdict-interval" style="font-size:1.35rem;font-weight:600">'
        f'{e(card.interval)}</span></div>'
        f'{sentence}{best}{reason}</div>')
