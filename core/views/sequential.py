"""How the sequential mode reads (issue 33): the CLI's lines for a confidence sequence
(``core.paired.sequential.SequentialComparison``), the order the cases were read in
(``core.inputs.arrival.Arrival``) and the one line on what peeking would have cost a fixed-n
verdict. Nothing is computed here; user names stay plain text (pages escape them)."""
from __future__ import annotations

from core.i18n import t
from core.views import format as fmt

VERDICT_KEYS = {"b_better": "sequential.cli_verdict_b_better",
                "a_better": "sequential.cli_verdict_a_better",
                "no_difference": "sequential.cli_verdict_no_difference"}
QUALITY_KEYS = {"holds": "sequential.cli_quality_holds",
                "unsure": "sequential.cli_quality_unsure",
                "fails": "sequential.cli_quality_fails"}


def order_text(arrival, lang: str = "en", *, queries: bool = False) -> str:
    """'in file order', "in the order of column 'date'" or (``queries``: a BEIR collection)
    'in the order the queries were compared'."""
    if queries:
        return t("sequential.order_queries", lang)
    if arrival is None or arrival.column is None:
        return t("sequential.order_file", lang)
    return t("sequential.order_column", lang, column=arrival.column)


def unsorted_note(arrival, lang: str = "en") -> str | None:
    """The note naming the rows above an earlier date, or None."""
    if arrival is None or not arrival.unsorted_rows:
        return None
    rows = list(arrival.unsorted_rows)
    shown = ", ".join(str(r) for r in rows[:10]) + (f" (+{len(rows) - 10})" if len(rows) > 10
                                                      else "")
    return t("sequential.note_unsorted", lang, count=len(rows), column=arrival.column,
             rows=shown)


def peeking_line(seq, lang: str = "en") -> str | None:
    """What peeking would have cost a fixed-n verdict at the history's looks, or None."""
    cost = seq.peeking
    if cost is None:
        return None
    key = "sequential.cli_peeking" if seq.step == 1 else "sequential.cli_peeking_step"
    return t(key, lang, looks=cost.looks, first=seq.history[0].n, n=seq.n, step=seq.step,
             rate=fmt.pct(cost.rate), sets=f"{cost.sets:,}", se=fmt.pct(cost.mc_se))


def quality_line(cond, kind: str, margin: float, lang: str = "en") -> str:
    """``decide --sequential``: the quality condition read off the sequence (``cond``, a
    ``core.switch.Condition``), in one line."""
    return t(QUALITY_KEYS[cond.state], lang, bound=fmt.diff(cond.bound, kind),
             margin=fmt.margin(margin, kind))


def sequential_lines(seq, a: str, b: str, arrival=None, lang: str = "en", *,
                     queries: bool = False) -> list[str]:
    """The sequential block of the CLI text: the order (``order_text``), each method's
    sequence, B − A's with the e-process's anytime p, the verdict and the peeking line."""
    kind = fmt.kind_of(seq.binary)
    level = fmt.level(seq.confidence)
    last = seq.last
    lines = [t("sequential.cli_head", lang, n=seq.n, order=order_text(arrival, lang, queries=queries))]
    note = unsorted_note(arrival, lang)
    if note:
        lines.append("  " + note)
    if seq.looks_sorted:
        lines.append(t("sequential.cli_sorted", lang, p=fmt.fmt_p(seq.order_p)))
    for name, est in ((a, seq.a), (b, seq.b)):
        lines.append(t("sequential.cli_method", lang, name=name, value=fmt.value(est.mean, kind),
                       level=level, lo=fmt.value(est.ci_low, kind),
                       hi=fmt.value(est.ci_high, kind)))
    lines.append(t("sequential.cli_diff", lang, a=a, b=b, diff=fmt.diff(last.b_minus_a, kind),
                   level=level, lo=fmt.diff(last.ci_low, kind), hi=fmt.diff(last.ci_high, kind),
                   p=fmt.p_text(last.p)))
    lines.append(t(VERDICT_KEYS[last.verdict], lang, a=a, b=b))
    peek = peeking_line(seq, lang)
    if peek:
        lines.append(peek)
    return lines
