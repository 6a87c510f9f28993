"""core.views.multi.matrix_chart: one labelled cell per compared ordered pair, ``*`` where
Holm's adjustment keeps it significant, a colour scale centred at 0."""
import numpy as np
import pandas as pd

from core.paired.multi import compare_many
from core.views.format import signed
from core.views.multi import matrix_chart


def _scores():
    rng = np.random.default_rng(0)
    base = rng.random(60)
    return pd.DataFrame({"A": base, "B": np.clip(base + 0.2, 0, 1),
                         "C": np.clip(base + rng.normal(0, 0.05, 60), 0, 1)})


def test_matrix_chart_cells_match_the_comparison():
    mc = compare_many(_scores(), resamples=1000)
    spec = matrix_chart(mc, digits=2).to_dict()
    cells = next(iter(spec["datasets"].values()))
    matrix = mc.matrix()
    assert len(cells) == len(matrix) == 6  # every ordered pair of 3 systems
    for cell, (_, row) in zip(cells, matrix.iterrows()):
        assert (cell["row"], cell["col"]) == (row["row"], row["col"])
        assert cell["label"].startswith(signed(row["diff"], 2))  # a rounded 0 has no sign
        assert cell["label"].endswith(" *") == bool(row["significant"])
    scale = spec["layer"][0]["encoding"]["color"]["scale"]
    assert scale["domainMid"] == 0 and scale["domain"][0] == -scale["domain"][1]


def test_matrix_chart_baseline_mode_has_one_cell_per_pair():
    mc = compare_many(_scores(), mode="baseline", baseline="A", resamples=1000)
    cells = next(iter(matrix_chart(mc).to_dict()["datasets"].values()))
    assert len(cells) == 2
