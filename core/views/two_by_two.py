"""The paired 2x2 table of 0/1 outcomes a person reads, with its margins: one builder for the
golden page and its report (right / wrong) and the scifact page's Hit@10 (hit / no hit).
pandas is imported when a table is built, never at import (the CLI's compare path)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from core import checks
from core.i18n import t

if TYPE_CHECKING:
    import pandas as pd

# the labels of an outcome table's rows and columns: "right"/"wrong" (golden cases), "hit"/"no
# hit" (a relevant document in the top k)
OUTCOME_LABELS = {"right": ("paired.outcome_right", "paired.outcome_wrong"),
                  "hit": ("paired.outcome_hit", "paired.outcome_miss")}


def outcome_table(table, a: str, b: str, lang: str = "en", *,
                  outcome: str = "right") -> pd.DataFrame:
    """The paired 2x2 table of 0/1 outcomes with its margins, the one builder of every 2x2 a
    person reads (golden page and report, scifact's Hit@10).

    ``table`` = (both, a_only, b_only, neither) as ``core.paired.difference`` counts it (``a_only``:
    A right and B wrong). Rows are A (right, wrong, total), columns are B (right, wrong,
    total), so the cells read

        A right: both     a_only   | both + a_only   (= A's count in the rates table)
        A wrong: b_only   neither  | b_only + neither
        total:   both + b_only (= B's count), a_only + neither | n

    The two off-diagonal cells are the discordant pairs McNemar's test uses (Agresti,
    *Categorical Data Analysis*, 3rd ed., sec. 11.1). ``outcome``: "right" (right/wrong) or
    "hit" (hit/no hit)."""
    import pandas as pd

    checks.choice("lang", lang, ("en", "ko"))
    checks.choice("outcome", outcome, tuple(OUTCOME_LABELS))
    checks.instance("table", table, tuple, "a tuple (both, a_only, b_only, neither)")
    checks.choice("len(table)", len(table), (4,))
    both, a_only, b_only, neither = checks.counts_iv(
        **dict(zip(("both", "a_only", "b_only", "neither"), table)))
    yes, no = OUTCOME_LABELS[outcome]
    total = t("paired.outcome_total", lang)
    return pd.DataFrame(
        [[both, a_only, both + a_only], [b_only, neither, b_only + neither],
         [both + b_only, a_only + neither, both + a_only + b_only + neither]],
        index=[t(yes, lang, m=a), t(no, lang, m=a), total],
        columns=[t(yes, lang, m=b), t(no, lang, m=b), total])
