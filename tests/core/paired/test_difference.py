"""core.paired.difference: two paired vectors checked once, their kind and 2x2 table."""
import numpy as np
import pytest

from core.paired.difference import PairedData, paired_data


def test_binary_table_counts_each_cell():
    a = np.array([1, 1, 0, 0, 1, 0, 1], float)
    b = np.array([1, 0, 1, 0, 1, 1, 1], float)
    d = paired_data(a, b)
    assert isinstance(d, PairedData) and d.binary and d.n == 7
    # (both right, A only, B only, neither) counted by hand
    assert d.table == (3, 1, 2, 1)
    assert d.scale == 1.0 and list(d.d) == list(b - a)


@pytest.mark.parametrize("a,b", [([0, 0.5, 1], [1, 0, 1]), ([0, 2, 1], [1, 0, 1]),
                                 ([0, 1, 1], [1, 0, -1])])
def test_anything_but_zeros_and_ones_is_scores(a, b):
    d = paired_data(np.array(a, float), np.array(b, float))
    assert not d.binary and d.table is None
    assert d.scale == pytest.approx(np.max(np.abs(np.array(b, float) - np.array(a, float))))


def test_negative_zero_counts_as_zero_and_views_are_fine():
    a = np.array([0.0, -0.0, 1.0, 1.0])
    d = paired_data(a[::-1], a)
    assert d.binary and d.table == (0, 2, 2, 0)   # pairs (1,0) (1,-0) (-0,1) (0,1)


@pytest.mark.parametrize("a,b", [([1, np.nan], [1, 0]), ([1, 0], [1]), ([[1, 0]], [[1, 0]])])
def test_bad_vectors_are_refused_at_the_door(a, b):
    with pytest.raises(ValueError):
        paired_data(np.array(a, float), np.array(b, float))
