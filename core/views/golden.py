"""What the golden-case page and ``python -m core compare`` show of a ``core.inputs.golden``
comparison: the CLI's text (``comparison_text``, ``compare_text``) and the report's tables
(``report_tables``): built here once, for the page, the CLI and the report alike (the JSON
summary both give is ``core.inputs.compare_summary``)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.i18n import t
from core.views.format import (fmt_p, interval, kind_of, level as fmt_level, p_text, signed,
                               value)
from core.views.paired import paired_view
from core.views.verdicts import interval_name

if TYPE_CHECKING:   # pandas is imported where the tables are built, never by the CLI's text
    import pandas as pd


def comparison_text(result, lang: str = "en", margin=None) -> str:
    """Readable multi-line summary of a ``GoldenComparison`` (the CLI's default output); the
    difference is B − A (new minus baseline), named in that order; ``margin`` a
    ``core.paired.margin.MarginResult`` (its lines under the verdict) or None."""
    c = result.comparison
    bs = c.bootstrap
    level = fmt_level(bs.confidence)
    sheet = f" (sheet '{result.golden.sheet}')" if result.golden.sheet is not None else ""
    enc = " (read as CP949/EUC-KR)" if result.golden.encoding == "cp949" else ""
    kind = kind_of(c.binary)   # rates in % beside a difference in %p; scores on their scale
    step = (f" (one case = {100 / result.n_cases:.1f} %p)" if c.binary
            else f" (each case weighs 1/{result.n_cases} in the mean)")
    lines = [f"{result.golden.source}{sheet}{enc}: {result.n_cases} paired cases{step}"]
    for name, r in ((c.a, c.rate_a), (c.b, c.rate_b)):
        count = f" ({r.successes}/{r.n})" if r.successes is not None else ""
        lines.append(f"  {name}: {value(r.mean, kind)}{count}  {level} {r.interval} "
                     f"[{value(r.ci_low, kind)}, {value(r.ci_high, kind)}]")
    ex = result.excluded
    if ex.total:
        lines.append(f"  left out: {len(ex.missing)} missing, {len(ex.duplicates)} duplicate, "
                     f"{len(ex.blank)} blank")
    for col in result.golden.empty_columns:
        lines.append(f"  column '{col}' has no value in any row: not compared")
    for cid, rows in list(result.golden.unicode_merged.items())[:20]:
        lines.append(f"  rows {', '.join(map(str, rows))} have the same id '{cid}' once "
                     "Unicode-normalised (NFC/NFD); left out as duplicates")
    lines.extend(paired_view(c, lang=lang, unit=result.golden.unit, margin=margin).cli_lines())
    return "\n".join(lines)


ADJUSTMENTS = {"holm": ("Holm-Bonferroni adjusted p", "p_holm",
                        "family-wise error: the chance of even one false * stays below alpha"),
               "bh": ("Benjamini-Hochberg adjusted p", "p_bh",
                      "false discovery rate: on average at most a share alpha of the * are "
                      "false")}


def compare_text(result, extra: dict, many, fmt: str, margin=None, best=None) -> str:
    """The ``compare`` command's readable output: with three or more systems the tied-for-best
    set first (``core.views.best_set.best_lines`` of a ``core.paired.best.BestSet``), then
    list-metric means (lists), query coverage (TREC), the A vs B summary
    (``comparison_text``) and every adjusted pair of a ``core.paired.multi.ManyComparison`` (Holm or
    Benjamini-Hochberg, named with the error it controls)."""
    lines: list[str] = []
    if best is not None:
        from core.views.best_set import best_lines  # lazy: pandas (core.paired.best), 3+ methods only

        lines.extend(best_lines(best) + [""])
    if extra.get("metrics") and fmt == "lists":
        lines.append(f"{extra['measure']} is compared; means of every metric (k={extra['k']}):")
        for metric, by_method in extra["metrics"].items():
            vals = "  ".join(f"{m}={v:.3f}" for m, v in by_method.items())
            lines.append(f"  {metric:<28} {vals}")
    if fmt == "trec":
        q = extra["queries"]
        lines.append(f"{q['judged']} judged queries; {extra['measure']} per query from "
                     "ir_measures")
        for r, ids in q["missing_from_run"].items():
            lines.append("  " + t("golden.cli_missing_from_run", "en", run=r, count=len(ids),
                                  ids=", ".join(ids[:10])))
        for r, ids in q["without_qrels"].items():
            lines.append("  " + t("golden.cli_without_qrels", "en", run=r, count=len(ids),
                                  ids=", ".join(ids[:10])))
    lines.append(comparison_text(result, margin=margin))
    if many is not None:
        level = fmt_level(round(many.adjusted_confidence, 4))
        who = "pairs" if many.mode == "all" else f"systems vs {many.baseline}"
        name, label, controls = ADJUSTMENTS[many.correction]
        lines.append(f"\nAll {who}"
                     f" ({len(many.pairs)} comparisons; {name}, "
                     f"alpha = {many.alpha:.2f}; {level} paired CIs, adjusted like the p):")
        lines.append(f"  ({controls})")
        for p in many.pairs:
            mark = "*" if p.significant else " "
            lines.append(f" {mark} {p.b} − {p.a}: {signed(p.mean, 4)} "
                         f"[{signed(p.adj_ci_low, 4)}, {signed(p.adj_ci_high, 4)}]"
                         f"  {p_text(p.p)}  {p_text(p.p_adj, label)}  {p.verdict}")
    return "\n".join(lines)


@dataclass(frozen=True)
class ReportTables:
    """The golden page's report tables, in ``lang``: each method's score and interval
    (``rates``), B − A with its interval and the tests (``difference``), the cases where A and
    B differ (``discordant``, user text kept as typed) and the per-case data file
    (``per_case``: case_id, A, B, b_minus_a; column names not translated)."""

    rates: pd.DataFrame
    difference: pd.DataFrame
    discordant: pd.DataFrame
    per_case: pd.DataFrame


def report_tables(result, view, lang: str = "en") -> ReportTables:
    """The tables of ``result`` (a ``GoldenComparison``) as its ``view``
    (``core.views.paired.paired_view`` of ``result.comparison``) shows them: one builder for the
    page, its report and its copyable Markdown/LaTeX. The rates' and the difference's figures
    are the comparison's own (nothing computed here)."""
    import pandas as pd

    c, bs = result.comparison, result.comparison.bootstrap
    kind, level = view.kind, fmt_level(bs.confidence)
    rates = pd.DataFrame([
        {t("golden.col_method", lang): n_, t("golden.col_score", lang): value(r.mean, kind),
         t("golden.col_count", lang): "" if r.successes is None else f"{r.successes}/{r.n}",
         t("golden.col_interval", lang, level=level): interval(r.ci_low, r.ci_high, kind)}
        for n_, r in ((c.a, c.rate_a), (c.b, c.rate_b))])
    difference = pd.DataFrame(
        [(view.difference.label, view.difference.value),
         (t("golden.ci_label", lang, level=level),
          interval(bs.ci_low, bs.ci_high, kind, signed=True)),
         (t("verdicts.interval_label", lang), interval_name(bs, lang)),
         *view.tests.itertuples(index=False, name=None)],
        columns=[t("paired.col_test", lang), t("paired.col_value", lang)])
    discordant = result.discordant().reset_index(drop=True).rename(
        columns={"case_id": t("golden.col_case", lang),
                 "difference": t("golden.col_difference", lang, a=c.a, b=c.b)})
    per_case = pd.DataFrame({"case_id": list(result.case_ids), c.a: result.a_values,
                             c.b: result.b_values,
                             "b_minus_a": result.b_values - result.a_values})
    return ReportTables(rates, difference, discordant, per_case)
