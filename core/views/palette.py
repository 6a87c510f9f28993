"""One palette for the app, the HTML report and the charts.

Colours carry meaning, the same everywhere: a verdict's tone is decided by which method won,
with B read as the new method and A as the baseline (``tone_of``).
"""
from __future__ import annotations

# Marks in charts (Tableau 10, the Vega default, so charts look familiar).
PRIMARY = "#4c78a8"      # bars, dots, lines of the data itself
DARK = "#1f3b73"         # point estimates drawn over a bar or interval
HIGHLIGHT = "#f58518"    # the selected item, the CI band
REFERENCE = "#e45756"    # reference lines: zero difference, y = x, a target
MUTED = "#bab0ac"        # ties, "not applicable"
POSITIVE = "#54a24b"     # a planned or achieved target

# Verdict tones: (accent, background) pairs for cards, report boxes and chart marks.
TONES = {
    "better": ("#2e7d32", "#eef7ee"),    # the new method (B) is better: green
    "worse": ("#c62828", "#fdecea"),     # the new method (B) is worse: red
    "neutral": ("#b26a00", "#fff6e5"),   # no difference / not enough evidence: amber
}
TEXT = "#1f2430"
TABLE_HEADER = "#f3f4f6"


def tone_of(verdict: str) -> str:
    """'b_better' -> 'better', 'a_better' -> 'worse', anything else -> 'neutral'.

    B is the new method, A the baseline: a significant win for A means the new method is worse.
    """
    if verdict not in ("a_better", "b_better", "no_difference", "a_faster", "b_faster",
                       "units_unclear"):
        raise ValueError(f"verdict must be a_better, b_better, no_difference, a_faster, "
                         f"b_faster or units_unclear, got {verdict!r}")
    if verdict in ("b_better", "b_faster"):
        return "better"
    if verdict in ("a_better", "a_faster"):
        return "worse"
    return "neutral"


MARGIN_TONES = {"equivalent": "better", "non_inferior": "better", "inferior": "worse",
                "inconclusive": "neutral"}


def margin_tone(verdict: str) -> str:
    """The tone of a margin's answer (``core.paired.margin``): non-inferior or equivalent ->
    'better' (safe to switch), inferior -> 'worse', inconclusive -> 'neutral'."""
    if verdict not in MARGIN_TONES:
        raise ValueError(f"verdict must be one of {tuple(MARGIN_TONES)}, got {verdict!r}")
    return MARGIN_TONES[verdict]
