"""core.views.two_by_two: the paired 2x2 of 0/1 outcomes with its margins (issue 37: the golden
page had swapped its disagreement cells), against pandas.crosstab."""
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from core.inputs.golden import load_golden
from core.inputs.systems import compare_golden
from core.paired.difference import paired_data
from core.views.two_by_two import outcome_table

DEMO = Path(__file__).resolve().parents[3] / "data" / "demo_golden.csv"


@pytest.fixture(scope="module")
def demo():
    return compare_golden(load_golden(DEMO.read_bytes(), DEMO.name), resamples=200)


def _lines(df):
    """{row label: [cells...]} and {column label: [cells...]} of a table."""
    return ({i: list(map(int, r)) for i, r in zip(df.index, df.to_numpy())},
            {c: list(map(int, df[c])) for c in df.columns})


def test_outcome_table_rows_are_a_columns_are_b_and_margins_are_the_rates(demo):
    """Issue 37: the golden page swapped the disagreement cells. On the demo title-only (A) is
    right and RRF (B) wrong on 5 cases and the reverse on 3: the A-right line reads 21, 5 | 26,
    its total A's 26/31 of the rates row; the B-right column 21, 3 | 24, B's 24/31."""
    c = demo.comparison
    both, a_only, b_only, neither = c.table
    assert (a_only, b_only) == (5, 3)
    rows, cols = _lines(outcome_table(c.table, c.a, c.b, "en"))
    assert rows["title-only right"] == [both, 5, 26] and rows["title-only wrong"] == [3, neither, 5]
    assert cols["RRF right"] == [both, 3, 24] and cols["RRF wrong"] == [5, neither, 7]
    assert rows["Total"] == [24, 7, 31] and cols["Total"] == [26, 5, 31]
    assert (c.rate_a.successes, c.rate_b.successes) == (26, 24)
    ko = outcome_table(c.table, c.a, c.b, "ko")
    assert list(ko.index) == ["title-only 정답", "title-only 오답", "합계"]
    assert list(ko.columns) == ["RRF 정답", "RRF 오답", "합계"]
    assert (ko.to_numpy() == outcome_table(c.table, c.a, c.b, "en").to_numpy()).all()


def test_outcome_table_of_the_issue_example_base_new():
    """10 both right, 7 base only, 2 new only, 5 neither: the base-right line sums to 17."""
    base = np.array([1] * 10 + [1] * 7 + [0] * 2 + [0] * 5)
    new = np.array([1] * 10 + [0] * 7 + [1] * 2 + [0] * 5)
    table = paired_data(base, new).table
    rows, cols = _lines(outcome_table(table, "base", "new", "en"))
    assert rows == {"base right": [10, 7, 17], "base wrong": [2, 5, 7], "Total": [12, 12, 24]}
    assert cols["new right"] == [10, 2, 12] and cols["Total"] == [17, 7, 24]


@pytest.mark.parametrize("seed", range(5))
def test_outcome_table_equals_pandas_crosstab_with_margins(seed):
    """Against pandas.crosstab(A, B, margins=True) (rows A, columns B), right = 1 first."""
    rng = np.random.default_rng(seed)
    a, b = rng.integers(0, 2, 40), rng.integers(0, 2, 40)
    mine = outcome_table(paired_data(a, b).table, "A", "B", outcome="hit")
    ref = pd.crosstab(pd.Series(a, name="A"), pd.Series(b, name="B"), margins=True)
    ref = ref.reindex(index=[1, 0, "All"], columns=[1, 0, "All"], fill_value=0)
    assert (mine.to_numpy() == ref.to_numpy()).all()
    assert list(mine.index) == ["A: hit", "A: no hit", "Total"]


@pytest.mark.parametrize("table, match", [((1, 2, 3), "len"), ([1, 2, 3, 4], "tuple"),
                                          ((1, -2, 3, 4), "a_only"), ((1, 2.5, 3, 4), "a_only")])
def test_outcome_table_refuses_a_table_that_is_not_four_counts(table, match):
    with pytest.raises(ValueError, match=match):
        outcome_table(table, "A", "B")
