"""One renderer for a paired comparison: the golden-case page, the ranked-lists / TREC page,
the scifact page and the CLI text all show A vs B through ``paired_view``.

``paired_view`` takes what ``core`` computed, the one paired result
``core.paired.PairedComparison`` (a golden file's, ranked lists', TREC runs', scifact's), and
builds, once, in one language:

- the verdict card (``core.views.cards``): B − A with its CI, the plain sentence, the reason
  when it is "no difference", and the next step the caller planned
  (``core.planning.card_next_step``: how many cases would tell apart a difference this size)
  with a link to the planner filled in;
- the rates row: A's and B's score (with its interval) and the difference tile;
- the tests table (the exact tests beside the bootstrap CI);
- the charts: each method with its interval, and the bootstrap distribution of B − A;
- the CLI lines.

The difference is B − A (new minus baseline) exactly as ``core`` computed it: nothing here
changes a sign. Nothing here computes a statistic or plans: the next step comes planned.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING
from urllib.parse import urlencode

from core import checks
from core.i18n import t
from core.paired import PairedComparison
from core.views import format as fmt
from core.views.cards import MarginBand, VerdictCard, paired_card
from core.views.verdicts import (degenerate_note, interval_label, interval_name,
                                 margin_band_note, margin_reason, margin_sentence,
                                 paired_sentence, reason_sentence)

if TYPE_CHECKING:  # altair and pandas only where a chart or table is drawn: the CLI needs none
    import altair as alt
    import pandas as pd

    from core.paired import MarginResult

PLANNER_PAGE = "sample_size"   # the planner page's URL path (app.py PAGE_ORDER stem)


@dataclass(frozen=True)
class Tile:
    """One number tile of the rates row: a label, the value, a caption line and hover help.
    Every field is plain text (a page escapes the label and caption)."""

    label: str
    value: str
    caption: str = ""
    help: str = ""


@dataclass(frozen=True)
class PairedView:
    """What a page (or the CLI) shows of one paired comparison, in ``lang``."""

    lang: str
    kind: str                     # "rate" (0/1 outcomes) or "score"
    a: str                        # display names
    b: str
    n: int
    unit: str                     # "cases" or "queries"
    sentence: str
    card: VerdictCard
    rates: tuple[Tile, Tile]
    difference: Tile
    next_step: object = None      # the plan's CasesNeeded / MarginCasesNeeded, when one was made
    comparison: PairedComparison | None = field(default=None, repr=False)
    margin: MarginResult | None = None   # when a margin was set

    @property
    def bootstrap(self):
        return self.comparison.bootstrap

    @cached_property
    def tests(self) -> pd.DataFrame:
        """The exact tests beside the bootstrap CI (``tests_table``), built when a page shows
        them (pandas is imported there, never for the CLI's lines)."""
        return tests_table(self.comparison, self.lang)

    @property
    def calibration_detail(self) -> str:
        """How the card's self-check sentence was measured (``calibration_sentence``'s second
        half), for the details below the card; '' when there is none."""
        return _calibration_how(self.comparison, self.lang)

    # -------------------------------------------------------------------- charts
    def _tr(self, key: str, **params) -> str:
        return t(key, self.lang, **params)

    def bootstrap_title(self) -> str:
        return self._tr("paired.chart_bootstrap", a=self.a, b=self.b,
                        resamples=f"{self.bootstrap.resamples:,}")

    def rates_title(self) -> str:
        return self._tr("paired.chart_rates", level=fmt.level(self.bootstrap.confidence))

    def bootstrap_chart(self, *, metric: str | None = None,
                        titled: bool = True) -> alt.LayerChart:
        """The bootstrap distribution of B − A with its CI band and 0 marked; ``titled=False``
        under the card in the presentation view, where the card and the axis say what it is
        and the screen has no room for a two-line title."""
        from core.views.charts import bootstrap_histogram  # lazy: charts loads pandas
        bs = self.bootstrap
        x_title = self._tr("paired.axis_diff", a=self.a, b=self.b)
        x_title += f" ({metric})" if metric else fmt.axis_unit(self.kind, difference=True)
        # rounding away float noise lets equal resampled means share one bar
        return bootstrap_histogram(bs.distribution.round(12), bs.ci_low, bs.ci_high,
                                   title=self.bootstrap_title() if titled else "",
                                   x_title=x_title,
                                   y_title=self._tr("paired.axis_resamples"),
                                   scale=fmt.scale(self.kind),
                                   margin=None if self.margin is None else self.margin.margin)

    def rates_chart(self, *, axis: str | None = None) -> alt.LayerChart | None:
        """Each method's score with its interval (None when the comparison carries no
        per-method intervals, as a scifact comparison does not)."""
        from core.views.charts import interval_chart  # lazy: charts loads pandas
        c = self.comparison
        if c.rate_a is None:
            return None
        import pandas as pd

        rows = pd.DataFrame([{"name": n_, "mean": r.mean, "ci_low": r.ci_low,
                              "ci_high": r.ci_high}
                             for n_, r in ((self.a, c.rate_a), (self.b, c.rate_b))])
        return interval_chart(rows, title=self.rates_title(),
                              x_title=(axis or self._tr("paired.axis_score"))
                              + fmt.axis_unit(self.kind), scale=fmt.scale(self.kind))

    # -------------------------------------------------------------------- CLI
    def cli_lines(self) -> list[str]:
        """The CLI's lines (statistics in English, sentences in ``lang``): 'B − A: +6.5 %p
        95% CI (tango, closed form: no resampling) [..]', the tests, the verdict, its reason."""
        bs = self.bootstrap
        c = self.comparison
        diff = fmt.diff(bs.mean, self.kind) if self.kind == "rate" else fmt.signed(bs.mean, 4)
        lo, hi = ((fmt.diff(bs.ci_low, self.kind), fmt.diff(bs.ci_high, self.kind))
                  if self.kind == "rate" else (fmt.signed(bs.ci_low, 4),
                                               fmt.signed(bs.ci_high, 4)))
        lines = [f"  {self.b} − {self.a}: {diff}  {fmt.level(bs.confidence)} CI "
                 f"({interval_label(bs)}) [{lo}, {hi}]"]
        if self.card.warning:
            lines.append(f"  {self.card.warning}")
        note = degenerate_note(bs, self.lang)
        if note:
            lines.append(f"  {note}")
        lines.append("  " + "; ".join(_cli_tests(c)))
        lines.append(self.sentence)
        why = reason_sentence(c.decision, self.lang)
        if why:
            lines.append(why)
        lines.extend(_margin_cli_lines(self.margin, self.card))
        if self.card.next_step:
            lines.append(self.card.next_step)
        if self.card.calibration or _calibration_how(c, self.lang):   # (warning: above)
            lines.append(calibration_sentence(c, self.lang, head=bool(self.card.calibration)))
        return lines


def _margin_cli_lines(m, card: VerdictCard) -> list[str]:
    """The margin's lines under the verdict (none without a margin): its sentence, the
    reason when the test disagrees, and the one-sided tests (English labels, as the CLI's
    other statistics)."""
    if m is None:
        return []
    lines = [card.margin] + ([card.margin_reason] if card.margin_reason else [])
    lines.append(t("margin.cli_line", "en", margin=fmt.margin(m.margin, m.kind),
                   verdict=t(f"margin.short_{m.verdict}", "en"), alpha=f"{m.alpha:.3g}",
                   test=t(f"margin.test_{m.test_name}", "en"), p_ni=fmt.p_text(m.p_noninferior),
                   p_inf=fmt.p_text(m.p_inferior), p_eq=fmt.p_text(m.p_equivalence)))
    return lines


def _margin_band(m, lang: str) -> MarginBand:
    """The card's strip of a ``core.paired.margin.MarginResult``, in display units."""
    k = fmt.scale(m.kind)
    text = fmt.margin(m.margin, m.kind)
    return MarginBand(k * m.margin, k * m.ci_low, k * m.ci_high, k * m.mean, f"−{text}",
                      f"+{text}", t("margin.band_label", lang, margin=text), f"±{text}")


def _cli_tests(c: PairedComparison) -> list[str]:
    test = c.test
    if c.randomization_p is not None:   # the detailed tests (compare_paired(detail=True))
        exact = " (exact)" if test.exact else ""
        if c.mcnemar_p is not None:   # 0/1: the exact randomization p is the exact McNemar p
            how = "mid-p" if test.mid_p else "exact"
            return [f"McNemar {how} {fmt.p_text(c.mcnemar_p)} (the verdict's test)", f"McNemar "
                    f"exact {fmt.p_text(c.randomization_p)} (= the exact sign-flip test)"]
        out = [f"randomization {fmt.p_text(c.randomization_p)}{exact}"]
        if c.ttest_p is not None:
            out.append(f"paired t-test {fmt.p_text(c.ttest_p)}")
        return out
    how = "exact" if test.exact else f"{test.resamples:,} random sign flips"
    return [f"{test.name} {fmt.p_text(test.p)} ({how})"]


def tests_table(c: PairedComparison, lang: str = "en") -> pd.DataFrame:
    """The exact tests beside the bootstrap CI, translated: McNemar + discordance (0/1
    outcomes) or paired t + Cohen's d_z of B − A (scores), and the randomization p-value; a
    comparison without the detailed tests (scifact) shows the one test its verdict uses."""
    import pandas as pd

    rows = []
    if c.randomization_p is not None:
        rows.append((t("paired.mcnemar_exact_p" if c.binary else "paired.randomization_p",
                       lang), fmt.fmt_p(c.randomization_p)))
        if c.binary:
            rows.insert(0, (t("paired.mcnemar_p", lang), fmt.fmt_p(c.mcnemar_p)))
            rows.append((t("paired.discordance", lang), fmt.pct(c.discordance)))
        else:
            rows.append((t("paired.ttest_p", lang), fmt.fmt_p(c.ttest_p)))
            rows.append((t("paired.cohens_dz", lang),
                         "n/a" if c.cohens_dz is None else f"{c.cohens_dz:.2f}"))
    else:
        test = c.test
        how = (t("paired.test_exact", lang) if test.exact else
               t("paired.test_monte_carlo", lang, resamples=f"{test.resamples:,}"))
        rows.append((t("paired.test_p", lang, test=t(f"verdicts.test_{test.name}", lang)),
                     f"{fmt.fmt_p(test.p)} ({how})"))
    return pd.DataFrame(rows, columns=[t("paired.col_test", lang), t("paired.col_value", lang)])


def calibration_sentence(c, lang="en", *, detail: bool = True, head: bool = True) -> str:
    """The self-checks under the card (issue 19), in plain words: "On data like yours, this
    interval would wrongly leave out 0 in 4.9% of cases; 5% is the promise." (``Calibration
    .shown``: for scores the worse of the two checks, for a 0/1 table the resample check) and,
    with ``detail``, how each was measured (``_calibration_how``). Empty when the comparison
    carries no self-check; the 'skipped' line when the data are too large for it. The card
    carries the sentence alone; the CLI and the page's details add how it was measured;
    ``head=False``: the measurement alone (the card shows the figure as its warning)."""
    cal = c.calibration
    if cal is None:
        return t("verdicts.calibration_skipped", lang)
    first = t("verdicts.calibration", lang, rate=fmt.pct(cal.shown),
              promise=fmt.pct(cal.promise, 0)) if head else ""
    return f"{first} {_calibration_how(c, lang)}".strip() if detail else first


def _calibration_how(c, lang: str = "en") -> str:
    """How the self-checks were measured: the sign-flip check (exact over every null table,
    or Monte-Carlo with its SE) and the centred-resample check (``core.paired.calibration``); ''
    when the comparison carries none."""
    cal = c.calibration
    if cal is None:
        return ""
    # the self-check runs the card's whole rule on each null set: for scores that is the
    # calibrated t with the skew guard and the reach-0 rule (core.paired.calibration)
    key = "calibrated_t_self_check" if cal.interval == "calibrated_t" else cal.interval
    name = t(f"verdicts.interval_{key}", lang)
    how = (t("verdicts.calibration_exact", lang, n=f"{cal.n:,}", interval=name,
             rate=fmt.pct(cal.null_rejection)) if cal.exact
           else t("verdicts.calibration_mc", lang, sets=f"{cal.sets:,}", n=f"{cal.n:,}",
                  interval=name, se=fmt.pct(cal.mc_se), rate=fmt.pct(cal.null_rejection)))
    if cal.resample_null_rejection is not None:
        key = ("verdicts.calibration_resample_table" if cal.exact
               else "verdicts.calibration_resample")
        how += " " + t(key, lang, rate=fmt.pct(cal.resample_null_rejection),
                       sets=f"{cal.resample_sets:,}", se=fmt.pct(cal.resample_mc_se))
    return how


def _calibration_warning_line(c, lang: str = "en") -> str:
    """The plain warning when a self-check finds the displayed interval leaving out 0 clearly
    more often than the check does where the interval holds (``core.paired.calibration.Calibration
    .warns``) or its figure reads above the promise (``.reads_above``, issue 36), else ''."""
    cal = c.calibration
    if cal is None or not (cal.warns or cal.reads_above):
        return ""
    return t("verdicts.calibration_warning", lang, rate=fmt.pct(cal.shown),
             promise=fmt.pct(cal.promise, 0))


def interval_warning_line(c, lang: str = "en") -> str:
    """The BCa warning below 50 cases (``core.paired.intervals.interval_warning``), or ''."""
    keys = {"bca_small_n": "verdicts.bca_small_n"}   # the codes of interval_warning
    code = c.interval_warning
    return t(keys[code], lang, n=f"{c.n:,}") if code else ""


def _planner_link(needed, lang: str) -> str:
    """The planner page's address with ``needed``'s values (``CasesNeeded.url_params``) and
    the language: a relative link, so it works wherever the app is served."""
    return f"{PLANNER_PAGE}?{urlencode({**needed.url_params(), 'lang': lang})}"


def _next_step_line(needed, lang: str, unit: str = "cases") -> str:
    """'To tell apart a difference this size you would need about N cases (you have n).'
    (``unit="queries"``: '... N queries (you have n).')"""
    if needed is None:
        return ""
    if needed.n_needed is None:
        return t("paired.next_step_none", lang)
    key = "paired.next_step_queries" if unit == "queries" else "paired.next_step"
    return t(key, lang, needed=f"{needed.n_needed:,}", n=f"{needed.n_have:,}")


def _margin_next_line(needed, margin, lang: str, unit: str, *, a: str, b: str) -> str:
    """'To show that B loses at most 2.0 %p (if B is truly as good as A) you would need about
    N cases (you have n).' for an inconclusive margin; '' otherwise."""
    if margin.verdict != "inconclusive":
        return ""
    text = fmt.margin(margin.margin, margin.kind)
    if needed is None or needed.n_needed is None:
        return t("margin.next_step_none", lang, margin=text)
    key = "margin.next_step_queries" if unit == "queries" else "margin.next_step"
    return t(key, lang, a=a, b=b, margin=text, needed=f"{needed.n_needed:,}",
             n=f"{needed.n_have:,}")


def paired_view(comparison: PairedComparison, *, lang: str = "en", names: dict | None = None,
                unit: str = "cases", metric: str | None = None, plan=None,
                margin: MarginResult | None = None) -> PairedView:
    """Build the view of ``comparison``, the one paired result (``core.paired.PairedComparison``;
    a golden file's is ``GoldenComparison.comparison``, its ``unit`` ``golden.unit``).
    ``names`` maps method ids to display names; ``unit`` names the rows ("cases" or
    "queries"); ``metric`` is named beside the difference. ``plan``: the card's next step
    (``core.planning.card_next_step(comparison, margin)``), or None (no next step line).
    ``margin``: the ``core.paired.margin.MarginResult`` of this comparison
    (``margin_decision``), or None (no margin: the card is as before); with one the card
    answers "safe to switch?" first and draws the margin as a band, and the bootstrap chart
    shades it."""
    checks.choice("lang", lang, ("en", "ko"))
    c = checks.instance("comparison", comparison, PairedComparison,
                        "a PairedComparison (core.paired.compare_paired)")
    checks.choice("unit", unit, ("cases", "queries"))
    names = names or {}
    n = c.n
    kind = fmt.kind_of(c.binary)
    a, b = names.get(c.a, c.a), names.get(c.b, c.b)
    bs = c.bootstrap
    level = fmt.level(bs.confidence)
    sentence = paired_sentence(c, a=a, b=b, unit=unit, lang=lang)
    needed = None if plan is None else plan.needed
    planned = plan is not None and margin is not None   # a margin plan was tried
    card = paired_card(c.verdict, a=a, b=b, mean=bs.mean, ci_low=bs.ci_low, ci_high=bs.ci_high,
                       confidence=bs.confidence, kind=kind, sentence=sentence,
                       ci_label=t("common.ci_short", lang),
                       # with a margin the card answers the margin's question only
                       reason="" if margin is not None else (reason_sentence(c.decision, lang)
                                                             or ""),
                       next_step=(_next_step_line(needed, lang, unit) if margin is None
                                  else _margin_next_line(needed, margin, lang, unit, a=a, b=b)
                                  if planned else ""),
                       next_link=(_planner_link(needed, lang)
                                  if needed is not None and needed.n_needed else ""),
                       next_label=t("paired.next_link", lang),
                       # above the promise the self-check line is the card's warning
                       calibration=("" if _calibration_warning_line(c, lang)
                                    else calibration_sentence(c, lang, detail=False)),
                       warning=" ".join(w for w in (interval_warning_line(c, lang),
                                                    _calibration_warning_line(c, lang)) if w),
                       margin_verdict=None if margin is None else margin.verdict,
                       margin="" if margin is None else margin_sentence(margin, a=a, b=b,
                                                                        lang=lang),
                       margin_reason=" ".join(x for x in (
                           margin_reason(margin, lang),
                           margin_band_note(margin, bs.ci_low, bs.ci_high, lang)) if x)
                       if margin else "",
                       band=None if margin is None else _margin_band(margin, lang))
    label = (t("paired.difference_metric", lang, a=a, b=b, metric=metric) if metric
             else t("paired.difference", lang, a=a, b=b))
    difference = Tile(label, fmt.diff(bs.mean, kind),
                      t("paired.difference_ci", lang, level=level,
                        interval=interval_name(bs, lang),
                        lo=fmt.diff(bs.ci_low, kind), hi=fmt.diff(bs.ci_high, kind)),
                      t("glossary.bootstrap", lang)
                      + ("\n\n" + t("glossary.pp", lang) if kind == "rate" else ""))
    return PairedView(lang, kind, a, b, n, unit, sentence, card, _rates(c, a, b, kind, lang),
                      difference, needed, c, margin)


def _rates(c: PairedComparison, a: str, b: str, kind: str, lang: str) -> tuple[Tile, Tile]:
    if c.rate_a is None:                     # no per-method intervals (scifact): the means
        return (Tile(a, fmt.value(c.mean_a, kind)), Tile(b, fmt.value(c.mean_b, kind)))
    level = fmt.level(c.bootstrap.confidence)
    tiles = []
    for name, r in ((a, c.rate_a), (b, c.rate_b)):
        count = f" ({r.successes:d}/{r.n:d})" if r.successes is not None else ""
        kind_text = t(f"paired.kind_{r.interval}", lang)
        lo, hi = fmt.value(r.ci_low, kind), fmt.value(r.ci_high, kind)
        caption = (t("paired.interval_line_step", lang, level=level, kind=kind_text, lo=lo,
                     hi=hi, step=f"{100 / r.n:.1f}") if kind == "rate" else
                   t("paired.interval_line", lang, level=level, kind=kind_text, lo=lo, hi=hi))
        tiles.append(Tile(name, fmt.value(r.mean, kind) + count, caption,
                          t(f"paired.interval_help_{r.interval}", lang, level=level) + "\n\n"
                          + t(f"glossary.{r.interval}", lang)))
    return tiles[0], tiles[1]
