"""What the "Switch?" page and ``python -m core decide`` show for a ``core.switch``
decision: the sentences (EN/KO, ``core/i18n/*/switch.json``), the card, the two interval
charts and the CLI text. Numbers come from ``core.switch.SwitchDecision`` as computed; a
difference is B − A, a ratio B/A."""
from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlencode

from core.i18n import t
from core.switch import Condition, SwitchDecision
from core.views import format as fmt
from core.views.cards import VerdictCard
from core.views.harm import (condition_line as harm_condition_line, harm_lines,
                             short_line as harm_short_line)
from core.views.latency import caveat_line
from core.views.charts import TIMES_LABEL, linear_ticks, wrap_title
from core.views.palette import DARK, MUTED, REFERENCE, TONES as TONE_COLOURS

if TYPE_CHECKING:  # altair only in the chart builders: the CLI text needs none
    import altair as alt

TONES = {"switch": "better", "stay": "worse", "inconclusive": "neutral"}


def margin_text(margin: float, kind: str) -> str:
    """The margin as people say it: '2 %p' for rates, '0.02' for scores."""
    return f"{100 * margin:g} %p" if kind == "rate" else f"{margin:g}"


def _loss_text(x: float, kind: str) -> str:
    """An unsigned amount of a difference: 0.034 -> '3.4 %p' (rate) or '0.034' (score)."""
    return f"{100 * abs(x):.1f} %p" if kind == "rate" else f"{abs(x):.{fmt.SCORE_DIGITS}f}"


def ratio_text(r: float) -> str:
    """A time ratio B/A: 0.7149 -> '0.71×'."""
    return f"{r:.2f}×"


def _params(dec: SwitchDecision, lang: str) -> dict:
    """The sentences' figures. B − A's are those the quality condition was read off: the
    fixed-n margin interval, or (``dec.quality_used``) the confidence sequence's last look or
    the prediction-powered interval, with that test's name and p."""
    k = dec.kind
    q = dec.quality_condition
    s = dec.speed_condition
    used = dec.quality_used
    if used is None:
        est, low, high = dec.quality.mean, dec.quality.ci_low, dec.quality.ci_high
        p, test = dec.quality.p_noninferior, t(f"margin.test_{dec.quality.test_name}", lang)
    else:
        est, low, high, p = used.mean, used.ci_low, used.ci_high, used.p
        test = t(f"switch.test_{used.source}", lang)
    return {"a": dec.a, "b": dec.b, "margin": margin_text(dec.margin, k),
            "limit": fmt.diff(-dec.margin, k),
            "est": fmt.diff(est, k), "low": fmt.diff(low, k), "high": fmt.diff(high, k),
            "loss": _loss_text(min(low, 0.0), k),
            "qgap": _loss_text(q.gap, k), "ratio": ratio_text(dec.ratio),
            "rlo": f"{dec.ratio_low:.2f}", "rhi": f"{dec.ratio_high:.2f}",
            "max": ratio_text(dec.max_slowdown), "sgap": f"{s.gap:.2f}×",
            "p": "" if p is None else fmt.p_text(p), "test": test}


def condition_line(cond: Condition, dec: SwitchDecision, lang: str = "en") -> str:
    """One condition in plain words: ``switch.cond_quality_holds`` ... ``cond_speed_unsure``
    (``cond_quality_unsure_test`` when the lower bound clears -delta but the test does
    not); the harm condition's from ``core.views.harm``."""
    if cond.name == "harm":
        return harm_condition_line(dec.harm, cond.state, dec.max_harm, dec.b, dec.kind, lang)
    key = _which(cond)
    if key == "quality_holds" and dec.quality_used is not None and dec.quality_used.p is None:
        key = "quality_holds_sequence"   # the sequence's ends decide alone: no test p to quote
    return t(f"switch.cond_{key}", lang, **_params(dec, lang))


def limit_cell(cond: Condition, kind: str, lang: str = "en") -> str:
    """How a condition's bound stands against its limit, as the conditions table shows it:
    'inside by 0.3 %p' / 'inside by 0.38×' when it holds (quality: bound - limit, the lower
    bound of B − A above −delta; speed: limit - bound, the upper bound of B/A below
    ``max_slowdown``), 'short by 1.2 %p' (``Condition.gap``) when it does not, and
    'inside; the test does not agree yet' when the bound clears the limit but the test does
    not. A passed condition never reads as a miss (issue 37: 'misses by 0.0 %p')."""
    if cond.holds or (cond.name == "quality" and cond.state == "unsure" and cond.gap == 0
                      and not cond.reason):
        room = cond.bound - cond.limit if cond.name == "quality" else cond.limit - cond.bound
        amount = _loss_text(room, kind) if cond.name == "quality" else f"{abs(room):.2f}×"
        return t("switch.gap_inside" if cond.holds else "switch.gap_test", lang, amount=amount)
    amount = _loss_text(cond.gap, kind) if cond.name == "quality" else f"{cond.gap:.2f}×"
    return t("switch.gap_short", lang, amount=amount)


def _which(cond: Condition) -> str:
    """The sentence key's tail: name_state, or name_state_reason (the test disagrees with
    the bound; the log's units or fixed order withhold the speed verdict)."""
    if cond.reason:
        return f"{cond.name}_{cond.state}_{cond.reason}"
    if cond.name == "quality" and cond.state == "unsure" and cond.gap == 0:
        return "quality_unsure_test"
    return f"{cond.name}_{cond.state}"


def _short(cond: Condition) -> str:
    return f"{cond.name}_{cond.state}_{cond.reason}" if cond.reason else \
        f"{cond.name}_{cond.state}"


def decision_sentence(dec: SwitchDecision, lang: str = "en") -> str:
    """The decision in one sentence: "Switch: B loses at most 2 %p (lower bound −1.1 %p)
    and takes 0.71× A's time [0.66, 0.77]." or the conditions that fail (else those that
    are unsure) after "Do not switch:" / "Cannot tell yet:"."""
    if dec.decision == "switch":
        return t("switch.sentence_switch", lang, **_params(dec, lang))
    parts = " ".join(harm_short_line(dec.harm, c.state, dec.max_harm, dec.b, dec.kind, lang)
                     if c.name == "harm" else
                     t(f"switch.short_{_short(c)}", lang, **_params(dec, lang))
                     for c in dec.failing)
    return t(f"switch.sentence_{dec.decision}", lang, parts=parts)


def next_step(dec: SwitchDecision, lang: str = "en") -> tuple[str, str, str]:
    """(text, link, link label) of the next step of an unsure quality condition: the cases
    needed for the planned power to show non-inferiority at delta, and the planner page
    opened on the same values (``MarginCasesNeeded.url_params``); empty when none."""
    ns = dec.next_step
    if ns is None:
        return "", "", ""
    spread = (t("switch.spread_disc", lang, disc=fmt.pct(ns.discordance)) if ns.design == "paired"
              else t("switch.spread_sigma", lang, sigma=f"{ns.sigma:.3f}"))
    if ns.n_needed is None:
        return t("switch.next_none", lang, spread=spread), "", ""
    text = t("switch.next_step", lang, count=f"{ns.n_needed:,}",
             have=f"{ns.n_have:,}", margin=margin_text(dec.margin, dec.kind),
             power=fmt.pct(ns.power, 0), a=dec.a, b=dec.b, spread=spread)
    link = "sample_size?" + urlencode({**ns.url_params(), "lang": lang})
    return text, link, t("switch.next_link", lang)


def _speed_step(dec: SwitchDecision, lang: str = "en") -> str:
    """The next step of an unsure speed condition (``SwitchDecision.next_step_speed``): the
    queries needed for the time ratio's upper bound to reach the limit at the observed
    ratio, or that none would; empty when there is none."""
    ns = dec.next_step_speed
    if ns is None:
        return ""
    params = {"a": dec.a, "b": dec.b, "ratio": ratio_text(ns.ratio),
              "max": ratio_text(ns.max_slowdown), "have": f"{ns.n_have:,}"}
    if ns.n_needed is None:
        return t("switch.next_speed_none", lang, **params)
    key = "switch.next_speed_runs" if ns.plan.runs > 1 and ns.n_double_runs < ns.n_needed \
        else "switch.next_speed"   # twice the runs only helps when there are runs to double
    return t(key, lang, count=f"{ns.n_needed:,}", double=f"{ns.n_double_runs:,}", **params)


def steps(dec: SwitchDecision, lang: str = "en") -> tuple[str, str, str]:
    """(text, link, link label) of every next step: quality's (``next_step``, with the
    planner link) then speed's (``_speed_step``)."""
    text, link, label = next_step(dec, lang)
    text = " ".join(x for x in (text, _speed_step(dec, lang)) if x)
    return text, link, label


def decision_card(dec: SwitchDecision, lang: str = "en") -> VerdictCard:
    """The card: the decision, the two bounds against their limits, the sentence, each
    condition in words, the next steps when quality or speed is unsure, and the timing
    log's fairness warnings on one line (``core.views.latency.caveat_line``)."""
    p = _params(dec, lang)
    step, link, label = steps(dec, lang)
    return VerdictCard(
        tone=TONES[dec.decision], label=t("switch.card_label", lang, a=dec.a, b=dec.b),
        value=t(f"switch.value_{dec.decision}", lang),
        interval=t("switch.card_interval", lang, level=fmt.level(dec.confidence), **p),
        sentence=decision_sentence(dec, lang),
        reason=" ".join(condition_line(c, dec, lang) for c in dec.conditions),
        next_step=step, next_link=link, next_label=label,
        caveats=caveat_line(dec.latency_warnings, lang))


def decision_text(dec: SwitchDecision, lang: str = "en") -> str:
    """The ``decide`` command's readable output: the sentence, each condition, the next
    steps, with ``--max-harm`` the hurt/helped shares and TRisk, the sources, the exit code
    and the timing log's warnings."""
    step = steps(dec, lang)[0]
    lines = [decision_sentence(dec, lang),
             *("  " + condition_line(c, dec, lang) for c in dec.conditions)]
    if step:
        lines.append("  " + step)
    if dec.harm is not None:
        lines += ["  " + x for x in harm_lines(dec.harm, dec.a, dec.b, dec.kind, lang)]
    lines += ["  " + t("switch.cli_sources", lang, quality=dec.quality_source,
                       latency=dec.latency_source, n=dec.n_cases, q=dec.n_queries,
                       level=fmt.level(dec.confidence)),
              "  " + t("switch.cli_exit", lang, code=dec.exit_code,
                       decision=t(f"switch.value_{dec.decision}", lang))]
    lines += ["  " + t("switch.cli_warning", lang, text=w.message(lang))
              for w in dec.latency_warnings]
    if dec.sequential is not None:   # the sequence that decided the quality condition
        # lazy: only in the sequential mode
        from core.views.sequential import quality_line, sequential_lines
        lines += ["  " + line for line in sequential_lines(dec.sequential, dec.a, dec.b,
                                                            dec.arrival, lang)]
        lines.append("  " + quality_line(dec.quality_condition, dec.kind, dec.margin, lang))
    return "\n".join(lines)


def _interval_chart(lo: float, mid: float, hi: float, limit: float, *, bad_side: str,
                    ok: bool, title: str, x_title: str, limit_label: str, fmt_d3: str,
                    domain: tuple[float, float], anchor: float,
                    label_expr: str = "") -> alt.LayerChart:
    """One interval on an axis whose ticks go through ``anchor`` (0 for a difference, 1 for
    a ratio: no difference, drawn as a thin solid line) and whose region beyond ``limit``
    on ``bad_side`` is shaded."""
    import altair as alt
    import pandas as pd
    band_lo, band_hi = (domain[0], limit) if bad_side == "left" else (limit, domain[1])
    axis = alt.Axis(values=linear_ticks(*domain, anchor=anchor),
                    **({"labelExpr": label_expr} if label_expr else {}))
    band = alt.Chart(pd.DataFrame({"x": [band_lo], "x2": [band_hi]})).mark_rect(
        color=TONE_COLOURS["worse"][0], opacity=0.12).encode(
        x=alt.X("x:Q", scale=alt.Scale(domain=domain, nice=False), title=x_title, axis=axis),
        x2="x2:Q")
    none = alt.Chart(pd.DataFrame({"x": [anchor]})).mark_rule(
        color=MUTED, strokeWidth=1.5).encode(x="x:Q")
    tone = "better" if ok else ("neutral" if (lo - limit) * (hi - limit) <= 0 else "worse")
    colour = TONE_COLOURS[tone][0]
    df = pd.DataFrame({"lo": [lo], "hi": [hi], "mid": [mid], "y": [0]})
    bar = alt.Chart(df).mark_rule(color=colour, strokeWidth=6).encode(
        x="lo:Q", x2="hi:Q", tooltip=[alt.Tooltip("lo:Q", format=fmt_d3),
                                      alt.Tooltip("mid:Q", format=fmt_d3),
                                      alt.Tooltip("hi:Q", format=fmt_d3)])
    dot = alt.Chart(df).mark_point(filled=True, size=160, color=DARK).encode(x="mid:Q")
    rule_df = pd.DataFrame({"x": [limit], "label": [limit_label]})
    rule = alt.Chart(rule_df).mark_rule(color=REFERENCE, strokeDash=[5, 3],
                                        strokeWidth=2).encode(x="x:Q", tooltip=["label:N"])
    text = alt.Chart(rule_df).mark_text(align="left", dx=4, dy=-4, baseline="bottom",
                                        color=REFERENCE).encode(x="x:Q", y=alt.value(12),
                                                                text="label:N")
    return alt.layer(band, none, bar, dot, rule, text).properties(title=wrap_title(title), height=90)


def _domain(lo: float, hi: float, *marks: float) -> tuple[float, float]:
    xs = [lo, hi, *marks]
    span = max(max(xs) - min(xs), 1e-9)
    return min(xs) - 0.15 * span, max(xs) + 0.15 * span


def quality_chart(dec: SwitchDecision, *, title: str, x_title: str,
                  limit_label: str) -> alt.LayerChart:
    """The interval of B − A (in %p for rates) with the estimate, the line at −delta and the
    region of a larger loss shaded; the axis has a tick and a line at 0."""
    s = fmt.scale(dec.kind)
    q = dec.quality
    lo, mid, hi, lim = s * q.ci_low, s * q.mean, s * q.ci_high, -s * dec.margin
    return _interval_chart(lo, mid, hi, lim, bad_side="left",
                           ok=dec.quality_condition.holds, title=title, x_title=x_title,
                           limit_label=limit_label, fmt_d3=fmt.tooltip_format(dec.kind),
                           domain=_domain(lo, hi, lim, 0.0), anchor=0.0)


def speed_chart(dec: SwitchDecision, *, title: str, x_title: str,
                limit_label: str) -> alt.LayerChart:
    """The interval of the time ratio B/A with the estimate, the line at ``max_slowdown``
    and the slower region shaded; the axis has a tick and a line at 1×."""
    return _interval_chart(dec.ratio_low, dec.ratio, dec.ratio_high, dec.max_slowdown,
                           bad_side="right", ok=dec.speed_condition.holds, title=title,
                           x_title=x_title, limit_label=limit_label, fmt_d3=".2f",
                           domain=_domain(dec.ratio_low, dec.ratio_high, dec.max_slowdown,
                                          1.0), anchor=1.0, label_expr=TIMES_LABEL)
