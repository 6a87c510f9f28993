"""Number formats shared by the pages, the HTML report and the CLI text: one spelling of a
rate, a difference in percentage points, a p-value and a confidence level."""
from __future__ import annotations


def pct(x: float | None, digits: int = 1) -> str:
    """0.8387 -> '83.9%'."""
    return "n/a" if x is None else f"{100 * x:.{digits}f}%"


def pp(x: float | None, digits: int = 1) -> str:
    """A difference of shares in percentage points: 0.0645 -> '6.5 %p' (signed)."""
    return "n/a" if x is None else f"{100 * x:+.{digits}f} %p"


def fmt_p(p: float | None) -> str:
    """p-values: 3 significant digits, '<0.001' below that, 'n/a' when not applicable."""
    if p is None:
        return "n/a"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def level(confidence: float) -> str:
    """A confidence level as people say it: 0.95 -> '95%', 0.9 -> '90%', 0.995 -> '99.5%'."""
    return f"{100 * confidence:g}%"
