"""One unit per measure kind, the same in tables, charts and sentences.

- ``"rate"``: a share of cases that passed (binary 0/1 outcomes): shown in percent,
  ``83.9%``; a difference of two rates in percentage points, ``+6.5 %p``; charts use the
  percent scale (``scale("rate") == 100``).
- ``"score"``: a graded measure on its own scale (nDCG, MRR, a continuous golden score in
  [0, 1], Cohen's kappa): shown with three decimals, ``0.662``; a difference signed,
  ``+0.031``; charts use the measure's own scale (``scale("score") == 1``).

Plus the fixed formats every page, the HTML report and the CLI text share: ``pct`` (a rate),
``pp`` (a difference in percentage points), ``fmt_p`` (a p-value in a table cell), ``p_text`` (one in a sentence) and ``level`` (a confidence
level, "95%").

Nothing here computes a statistic: these turn numbers into text.
"""
from __future__ import annotations

import math

KINDS = ("rate", "score")
SCORE_DIGITS = 3


def _check(kind: str) -> str:
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    return kind


def kind_of(binary: bool) -> str:
    """``"rate"`` for binary outcomes, ``"score"`` otherwise."""
    return "rate" if binary else "score"


def _missing(x) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def value(x: float | None, kind: str) -> str:
    """0.8387 -> '83.9%' (rate) or '0.839' (score); 'n/a' when missing."""
    _check(kind)
    if _missing(x):
        return "n/a"
    return f"{100 * x:.1f}%" if kind == "rate" else f"{x:.{SCORE_DIGITS}f}"


def signed(x: float, digits: int) -> str:
    """``x`` with ``digits`` decimals and its sign, except that a value that rounds to zero
    prints without one ('0.000', never '-0.000' or '+0.000')."""
    text = f"{x:.{digits}f}"
    if float(text) == 0:
        return f"{0:.{digits}f}"
    return f"{x:+.{digits}f}"


def diff(x: float | None, kind: str) -> str:
    """A signed difference: 0.0645 -> '+6.5 %p' (rate) or '+0.065' (score); one that
    rounds to zero has no sign ('0.0 %p', '0.000')."""
    _check(kind)
    if _missing(x):
        return "n/a"
    return f"{signed(100 * x, 1)} %p" if kind == "rate" else signed(x, SCORE_DIGITS)


def margin(x: float, kind: str) -> str:
    """A margin delta >= 0, unsigned: 0.02 -> '2.0 %p' (rate) or '0.020' (score); more
    decimals when one would round it (0.0025 -> '0.25 %p'), so the margin a person set is
    the one they read."""
    _check(kind)
    digits = 1 if kind == "rate" else SCORE_DIGITS
    v = 100 * x if kind == "rate" else x
    while digits < 6 and abs(round(v, digits) - v) > 1e-9 * max(1.0, abs(v)):
        digits += 1
    text = f"{v:.{digits}f}"
    return f"{text} %p" if kind == "rate" else text


def interval(lo: float | None, hi: float | None, kind: str, *, signed: bool = False) -> str:
    """'[5.0%, 25.0%]', '[+5.0 %p, +25.0 %p]' (``signed``) or '[0.512, 0.640]'."""
    fmt = diff if signed else value
    return f"[{fmt(lo, kind)}, {fmt(hi, kind)}]"


def scale(kind: str) -> float:
    """The factor charts multiply by: 100 for rates (percent), 1 for scores."""
    return 100.0 if _check(kind) == "rate" else 1.0


def axis_unit(kind: str, *, difference: bool = False) -> str:
    """The unit appended to an axis title: ' (%)', ' (%p)' or '' for scores."""
    if _check(kind) == "rate":
        return " (%p)" if difference else " (%)"
    return ""


def tooltip_format(kind: str) -> str:
    """d3 format of a chart value of this kind (after ``scale``)."""
    return ".1f" if _check(kind) == "rate" else f".{SCORE_DIGITS}f"


def pct(x: float | None, digits: int = 1) -> str:
    """0.8387 -> '83.9%'."""
    return "n/a" if x is None else f"{100 * x:.{digits}f}%"


def pp(x: float | None, digits: int = 1) -> str:
    """A difference of shares in percentage points: 0.0645 -> '+6.5 %p' (signed; one that
    rounds to zero has no sign, '0.0 %p')."""
    return "n/a" if x is None else f"{signed(100 * x, digits)} %p"


def fmt_p(p: float | None) -> str:
    """p-values: 3 significant digits, '<0.001' below that, 'n/a' when not applicable."""
    if p is None:
        return "n/a"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def p_text(p: float | None, name: str = "p") -> str:
    """A p-value inside a sentence: 'p = 0.032', 'p < 0.001' (never 'p = <0.001'), or
    'p: n/a'. ``name`` replaces the 'p' ('p_Holm')."""
    if p is None:
        return f"{name}: n/a"
    return f"{name} < 0.001" if p < 0.001 else f"{name} = {p:.3f}"


def level(confidence: float) -> str:
    """A confidence level as people say it: 0.95 -> '95%', 0.9 -> '90%', 0.995 -> '99.5%'."""
    return f"{100 * confidence:g}%"


MAX_RATIO_DIGITS = 6


def ratio_digits(*values: float) -> int:
    """Decimals for ratios shown beside the line of no difference: 2, or more until no value
    other than exactly 1 prints as '1.00…' (1.002 must not print as 1.00 beside 'no
    measurable difference'; 0.9996 not as 1.000), and two significant digits of ratios below
    0.1 (B logged in seconds: 0.00080, not 0.00). At most ``MAX_RATIO_DIGITS``."""
    small = [v for v in values if math.isfinite(v) and 0 < v < 0.1]
    start = 2 if not small else 1 + math.ceil(-math.log10(min(small)))  # 2 significant
    for d in range(min(max(2, start), MAX_RATIO_DIGITS), MAX_RATIO_DIGITS + 1):
        one = f"{1:.{d}f}"
        if all(v == 1 or not math.isfinite(v) or f"{v:.{d}f}" != one for v in values):
            return d
    return MAX_RATIO_DIGITS


def ratio(x: float, digits: int) -> str:
    """A ratio with ``digits`` decimals (choose them with ``ratio_digits``)."""
    return f"{x:.{digits}f}"
