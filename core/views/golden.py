"""What the golden-case page and ``python -m core compare`` print as text (``core.inputs.golden``)."""
from __future__ import annotations

from core.i18n import t
from core.views.format import fmt_p, kind_of, level as fmt_level, p_text, signed, value
from core.views.paired import paired_view


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
