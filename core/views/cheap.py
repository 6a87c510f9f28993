"""What a comparison sharpened by cheap labels shows (issue 34; ``core.inputs.cheap``): each
method's and B − A's prediction-powered interval beside the gold-only one, lambda, the
gold–cheap correlation, "worth about N gold cases", the verdict from the PPI interval and its
test, and a plain note when the cheap labels do not help. The CLI prints ``cheap_lines``; the
pages draw the same lines (``cheap_lines`` in ``lang``). Conclusion agreement
(``core.agreement.conclusions``): ``conclusion_lines`` (CLI) and ``conclusion_rows`` (the
agreement page's table)."""
from __future__ import annotations

from core.i18n import t
from core.paired import MIN_GOLD
from core.views.cards import paired_card
from core.views.format import diff, interval, kind_of, level, p_text, value
from core.views.verdicts import verdict_sentence


def cheap_lines(cc, lang: str = "en") -> list[str]:
    """The lines of a ``core.inputs.cheap.CheapComparison`` in ``lang``: title, A, B, B − A
    (PPI interval, test, gold-only interval), the gain, the verdicts (with cheap labels, gold
    alone), the no-help note when lambda ≈ 0, what was left out and the assumption."""
    d = cc.difference
    kind = kind_of(cc.binary)
    lvl = level(d.confidence)
    lines = [t("cheap.title", lang, source=cc.source, n_gold=d.n_gold,
               n_rest=d.n_cheap - d.n_gold)]
    for name, r in ((cc.a, cc.rate_a), (cc.b, cc.rate_b)):
        lines.append("  " + t("cheap.method_line", lang, name=name, value=value(r.estimate, kind),
                              level=lvl, ci=interval(r.ci_low, r.ci_high, kind),
                              gold_ci=interval(r.gold_only_low, r.gold_only_high, kind)))
    lines.append("  " + t("cheap.difference_line", lang, a=cc.a, b=cc.b,
                          diff=diff(d.estimate, kind), level=lvl,
                          ci=interval(d.ci_low, d.ci_high, kind, signed=True),
                          test=t("cheap.test_mover" if d.mover else "cheap.test", lang), p=p_text(d.p_value),
                          gold_ci=interval(d.gold_only_low, d.gold_only_high, kind,
                                           signed=True)))
    lines.append("  " + _gain(d, lang))
    unit_kind = "rate" if cc.binary else "score"
    for key, v, lo, hi, est in (("cheap.verdict", cc.verdict, d.ci_low, d.ci_high, d.estimate),
                                ("cheap.gold_verdict", cc.gold_only_verdict, d.gold_only_low,
                                 d.gold_only_high, d.gold_only_estimate)):
        sentence = verdict_sentence(v, a=cc.a, b=cc.b, mean=est, ci_low=lo, ci_high=hi,
                                    n=d.n_gold, confidence=d.confidence, lang=lang,
                                    kind=unit_kind)
        lines.append("  " + t(key, lang, sentence=sentence))
    if not d.helps:
        lines.append("  " + t("cheap.no_help", lang))
    if cc.left_out:
        lines.append("  " + t("cheap.left_out", lang, count=len(cc.left_out)))
    lines.append("  " + t("cheap.assumption", lang))
    return lines


def _gain(d, lang: str) -> str:
    gain = dict(lam=f"{d.lam:.2f}", n_eff=f"{d.effective_n:,.0f}", n_gold=d.n_gold)
    return (t("cheap.gain", lang, rho=f"{d.correlation:.2f}", **gain)
            if d.correlation is not None else t("cheap.gain_no_rho", lang, **gain))


def cheap_card(cc, lang: str = "en"):
    """The verdict card of a comparison with cheap labels (``core.views.cards.paired_card``):
    B − A and its PPI interval, the verdict from them, the gold-only interval, lambda, the
    correlation and the gain as its reason line, and the no-help note (lambda ≈ 0) as its
    warning."""
    d = cc.difference
    kind = kind_of(cc.binary)
    sentence = verdict_sentence(cc.verdict, a=cc.a, b=cc.b, mean=d.estimate, ci_low=d.ci_low,
                                ci_high=d.ci_high, n=d.n_gold, confidence=d.confidence,
                                lang=lang, kind="rate" if cc.binary else "score")
    reason = t("cheap.card_reason_mover" if d.mover else "cheap.card_reason", lang, gold=diff(d.gold_only_estimate, kind),
               gold_ci=interval(d.gold_only_low, d.gold_only_high, kind, signed=True),
               gain=_gain(d, lang))
    return paired_card(cc.verdict, a=cc.a, b=cc.b, mean=d.estimate, ci_low=d.ci_low,
                       ci_high=d.ci_high, confidence=d.confidence, kind=kind,
                       sentence=sentence, ci_label=t("cheap.ci_label", lang), reason=reason,
                       warning="" if d.helps else t("cheap.no_help", lang),
                       calibration=t("cheap.assumption", lang))


_SHORT = {"b_better": "cheap.short_b_better", "a_better": "cheap.short_a_better",
          "no_difference": "cheap.short_no_difference"}
_KIND = {"agree": "cheap.kind_agree", "false_better": "cheap.kind_false_better",
         "missed": "cheap.kind_missed", "reversed": "cheap.kind_reversed"}


def _ci_text(x: float, lo: float, hi: float) -> str:
    return f"{diff(x, 'score')} {interval(lo, hi, 'score', signed=True)}"


def conclusion_lines(ca, lang: str = "en") -> list[str]:
    """A ``core.agreement.conclusions.ConclusionAgreement`` as text: the share of pairs of
    systems with the same verdict, the false "better" and missed differences with their
    denominators, then one line per pair (B − A under gold and under cheap labels)."""
    lines = [t("cheap.conclusions_title", lang, measure=ca.measure, source=ca.source,
               agree=ca.count("agree"), n=len(ca.pairs)),
             "  " + t("cheap.conclusions_counts", lang, false_better=ca.count("false_better"),
                      ties=ca.gold_ties, missed=ca.count("missed"), diffs=ca.gold_differences,
                      reversed=ca.count("reversed"))]
    for p in ca.pairs:
        lines.append("  " + t("cheap.conclusions_pair", lang, a=p.a, b=p.b,
                              gold=_ci_text(p.gold_diff, p.gold_low, p.gold_high),
                              gold_verdict=t(_SHORT[p.gold_verdict], lang, a=p.a, b=p.b),
                              cheap=_ci_text(p.cheap_diff, p.cheap_low, p.cheap_high),
                              cheap_verdict=t(_SHORT[p.cheap_verdict], lang, a=p.a, b=p.b),
                              kind=t(_KIND[p.kind], lang)))
    return lines


def conclusion_rows(ca, lang: str = "en") -> list[dict]:
    """The agreement page's table: one row per pair of systems, translated column names."""
    return [{t("cheap.col_pair", lang): f"{p.b} − {p.a}",
             t("cheap.col_gold", lang): _ci_text(p.gold_diff, p.gold_low, p.gold_high),
             t("cheap.col_gold_verdict", lang): t(_SHORT[p.gold_verdict], lang, a=p.a, b=p.b),
             t("cheap.col_cheap", lang): _ci_text(p.cheap_diff, p.cheap_low, p.cheap_high),
             t("cheap.col_cheap_verdict", lang): t(_SHORT[p.cheap_verdict], lang, a=p.a, b=p.b),
             t("cheap.col_kind", lang): t(_KIND[p.kind], lang)} for p in ca.pairs]


def _pair_figures(cc, lang: str) -> dict:
    d = cc.difference
    kind = kind_of(cc.binary)
    return dict(a=cc.a, b=cc.b, diff=diff(d.estimate, kind),
                ci=interval(d.ci_low, d.ci_high, kind, signed=True),
                verdict=t(_SHORT[cc.verdict], lang, a=cc.a, b=cc.b),
                gold=diff(d.gold_only_estimate, kind),
                gold_ci=interval(d.gold_only_low, d.gold_only_high, kind, signed=True),
                gold_verdict=t(_SHORT[cc.gold_only_verdict], lang, a=cc.a, b=cc.b),
                lam=f"{d.lam:.2f}", n_eff=f"{d.effective_n:,.0f}")


def cheap_pair_lines(cp, lang: str = "en") -> list[str]:
    """A ``core.agreement.cheap_pairs.CheapPairs`` as text: the title (gold and cheap-only
    queries), or why there is no comparison, then one line per pair of runs (PPI B − A, its
    interval and verdict, the gold-only interval and verdict, lambda, worth about)."""
    if cp.error is not None:
        return [t("cheap.pairs_error", lang, message=cp.error.message(lang))]
    if not cp.applies:
        return [t("cheap.pairs_none", lang, source=cp.source, n_gold=cp.n_gold,
                  n_rest=cp.n_rest, min_gold=MIN_GOLD)]
    return [t("cheap.pairs_title", lang, measure=cp.measure, source=cp.source,
              n_gold=cp.n_gold, n_rest=cp.n_rest)] + [
        "  " + t("cheap.pairs_line", lang, **_pair_figures(cc, lang)) for cc in cp.pairs]


def cheap_pair_rows(cp, lang: str = "en") -> list[dict]:
    """The agreement page's table of ``cheap_pair_lines``: one row per pair of runs."""
    rows = []
    for cc in cp.pairs:
        f = _pair_figures(cc, lang)
        rows.append({t("cheap.col_pair", lang): f"{cc.b} − {cc.a}",
                     t("cheap.col_ppi", lang): f"{f['diff']} {f['ci']}",
                     t("cheap.col_ppi_verdict", lang): f["verdict"],
                     t("cheap.col_gold_only", lang): f"{f['gold']} {f['gold_ci']}",
                     t("cheap.col_gold_only_verdict", lang): f["gold_verdict"],
                     t("cheap.col_lambda", lang): f["lam"],
                     t("cheap.col_worth", lang): f["n_eff"]})
    return rows
