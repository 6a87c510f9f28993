"""Two paired vectors checked once (scipy's ``_iv`` style, issue 20 item 7a): ``paired_data``
checks A and B at the public door and finds their kind (0/1 outcomes or scores) and, for 0/1
outcomes, the 2x2 table; helpers that take the ``PairedData`` trust it. ``core.paired.stats``
re-exports these names."""
from __future__ import annotations

import sys
from dataclasses import dataclass, field

import numpy as np

from core import checks


@dataclass(frozen=True)
class PairedData:
    """Two aligned vectors A (baseline) and B (new), checked once at the public door
    (``paired_data``): finite, one-dimensional, the same length. ``binary`` when both hold
    only 0 and 1, and then ``table`` = (both right, A only, B only, neither). Functions that
    take a ``PairedData`` trust it (scipy's ``_iv`` style: validate once, not in every
    helper)."""

    a: np.ndarray = field(repr=False)
    b: np.ndarray = field(repr=False)
    binary: bool
    table: tuple[int, int, int, int] | None

    @property
    def n(self) -> int:
        return int(self.a.size)

    @property
    def d(self) -> np.ndarray:
        """The paired differences B - A (computed when asked: 0/1 data rarely need them)."""
        return self.b - self.a

    @property
    def scale(self) -> float:
        """max |B - A|: the size a rounding tolerance is relative to (1 for 0/1 data)."""
        if self.binary:
            return 1.0
        return float(np.max(np.abs(self.d))) if self.n else 0.0

    @property
    def unit_scores(self) -> bool:
        """Every value of A and B lies in [0, 1] (golden outcomes, IR metrics), so B - A
        cannot leave [-1, 1]: an interval end beyond it (a bootstrap-t over a few non-zero
        differences can reach 2) is cut there, which can only raise coverage."""
        return bool(self.n and self.a.min() >= 0 and self.a.max() <= 1 and self.b.min() >= 0
                    and self.b.max() <= 1)


def _only_zeros_and(x: np.ndarray, ones: int) -> bool:
    """True when every non-zero value of the float array ``x`` is one of its ``ones`` ones
    (so x is 0/1). Non-zero bit patterns are counted on an int64 view (fast); -0.0 has a
    non-zero pattern, so a mismatch is confirmed with the float count."""
    if int(np.count_nonzero(x.view(np.int64))) == ones:
        return True
    return int(np.count_nonzero(x)) == ones


def paired_data(a, b, *, min_n: int = 1) -> PairedData:
    """Check two paired vectors once (``checks.pair``) and find their kind in one pass each:
    0/1 outcomes get their 2x2 table."""
    a, b = checks.pair(a, b, min_n=min_n)
    return checked_pair(a, b)


def checked_pair(a: np.ndarray, b: np.ndarray) -> PairedData:
    """``paired_data`` of two float arrays the caller checked (``checks.pair``; e.g. one
    group's cases of a checked pair, ``core.inputs.groups``): the kind and the 2x2 table
    found the same way, nothing checked again."""
    a1 = a == 1
    ones_a = int(np.count_nonzero(a1))
    binary = _only_zeros_and(a, ones_a)
    table = None
    if binary:
        b1 = b == 1
        ones_b = int(np.count_nonzero(b1))
        binary = _only_zeros_and(b, ones_b)
        if binary:
            both = int(np.count_nonzero(a1 & b1))
            table = (both, ones_a - both, ones_b - both, a.size - ones_a - ones_b + both)
    return PairedData(a, b, binary, table)


def score_table(scores) -> tuple[tuple[str, ...], tuple[str, ...], np.ndarray]:
    """The cases x systems table of ``core.paired.multi.compare_many`` and
    ``core.paired.best.best_set``, checked once at their door: a pandas DataFrame (index: case
    ids, one column per system) or its pandas-free form, an object with ``ids``, ``methods``
    and a numpy ``values`` array of cases x methods (``core.inputs.golden_cases.CaseScores``,
    which ``GoldenSet.cases`` gives: the CLI hands it over, so a comparison of three or more
    systems never imports pandas). Returns (the case ids and the system names as text, the
    values as a float array, NaN where a system has no value, in the memory layout the
    frame's ``to_numpy`` gives). Anything else raises ``ValueError`` naming ``scores``."""
    pd = sys.modules.get("pandas")  # a DataFrame exists only once pandas has been imported
    if pd is not None and isinstance(scores, pd.DataFrame):
        return (tuple(str(x) for x in scores.index), tuple(str(c) for c in scores.columns),
                scores.to_numpy(float))
    values = getattr(scores, "values", None)
    if (isinstance(values, np.ndarray) and values.ndim == 2 and hasattr(scores, "ids")
            and hasattr(scores, "methods") and values.shape == (len(scores.ids),
                                                               len(scores.methods))):
        # laid out as the object's frame would be (``CaseScores.matrix``): sums add in the
        # same order whichever form the caller handed over
        laid_out = scores.matrix() if hasattr(scores, "matrix") else values
        return (tuple(str(x) for x in scores.ids), tuple(str(c) for c in scores.methods),
                np.asarray(laid_out, dtype=float))
    raise ValueError("scores must be a pandas DataFrame or a CaseScores (cases x systems), "
                     f"got {type(scores).__name__} {scores!r:.60}")
