"""BEIR Table 2, counted: who beats the baseline on how many datasets, and by how much.

Source grid: Thakur, Reimers, Rücklé, Srivastava, Gurevych, "BEIR: A Heterogeneous Benchmark
for Zero-shot Evaluation of Information Retrieval Models", NeurIPS 2021 Datasets and
Benchmarks, arXiv:2104.08663v4, Table 2 (nDCG@10), stored in ``data/beir_table2.csv`` with the
citation in ``# key: value`` header lines that :func:`load_grid` reads.

Counting rules (one dataset = one duel between a model and the baseline):

* Values are compared at the table's precision, 3 decimals: x is turned into whole
  thousandths with round-half-up on its decimal text (``0.6745`` -> 675). Equal thousandths
  are a **tie**, otherwise the larger value **wins**.
* Mean relative difference = (1/n) * sum_d (model_d - baseline_d) / baseline_d, times 100,
  over the n datasets both columns have (datasets where the baseline is 0 are left out of
  this mean; ``None`` when none remain).
* Sign test (Dixon & Mood 1946): under "no systematic difference" each decided duel is a coin
  flip, so model wins ~ Binomial(w + l, 1/2) with w + l = wins + losses (ties dropped);
  p = two-sided exact binomial p-value, ``scipy.stats.binomtest(model_wins, w + l, 0.5)``.
  It is the same computation as McNemar's exact test, so it is delegated to
  ``core.paired.significance.mcnemar_exact``. ``None`` when every duel is a tie. The cells are per-dataset
  means: the test counts datasets and says nothing about per-query noise inside a cell.
* "First" on a dataset = no other column is higher (at 3 decimals); columns tied for the top
  are all first, so first-place counts can add up to more than the number of datasets.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from core import checks
from core.paired import mcnemar_exact
from core.retrieval.beir_grid import (DATA, Grid, KINDS, SCIFACT, load_grid, norm_name, parse_grid,
                                      to_milli)

__all__ = ["ALPHA", "DATA", "DEFAULT_BASELINE", "DENSE", "Grid", "KINDS", "STANDINGS", "TableTally",
           "TallyRow", "load_grid", "norm_name", "parse_grid", "scifact_ranking", "sign_test_p",
           "strongest_rival", "tally", "to_milli"]

DEFAULT_BASELINE = "BM25"
DENSE = "dense"
ALPHA = 0.05  # sign-test level used to call a standing "clear" in the story
STANDINGS = ("behind_clear", "behind", "even", "ahead", "ahead_clear")


def sign_test_p(model_wins: int, baseline_wins: int) -> float | None:
    """Two-sided exact sign test on wins vs losses (ties already dropped).

    p = ``scipy.stats.binomtest(model_wins, model_wins + baseline_wins, 0.5).pvalue``
    (Dixon & Mood 1946); ``None`` when there is no decided duel.
    """
    model_wins, baseline_wins = checks.counts_iv(model_wins=model_wins,
                                                 baseline_wins=baseline_wins)
    if model_wins + baseline_wins == 0:
        return None
    return mcnemar_exact(model_wins, baseline_wins)


# ----------------------------------------------------------------------------- the tally
@dataclass(frozen=True)
class TallyRow:
    """One model against the baseline on the datasets both have."""

    model: str
    kind: str
    baseline_wins: int
    model_wins: int
    ties: int
    mean_relative_diff_pct: float | None
    sign_test_p: float | None

    @property
    def n_datasets(self) -> int:
        return self.baseline_wins + self.model_wins + self.ties

    def standing(self, alpha: float = ALPHA) -> str:
        """behind_clear / behind / even / ahead / ahead_clear: who wins more duels, and
        "clear" when the sign test p is below ``alpha``."""
        alpha = checks.share("alpha", alpha)
        if self.model_wins == self.baseline_wins:
            return "even"
        clear = self.sign_test_p is not None and self.sign_test_p < alpha
        if self.model_wins > self.baseline_wins:
            return "ahead_clear" if clear else "ahead"
        return "behind_clear" if clear else "behind"

    def to_dict(self) -> dict:
        return {"model": self.model, "kind": self.kind, "baseline_wins": self.baseline_wins,
                "model_wins": self.model_wins, "ties": self.ties,
                "mean_relative_diff_pct": self.mean_relative_diff_pct,
                "sign_test_p": self.sign_test_p, "n_datasets": self.n_datasets}


@dataclass(frozen=True)
class TableTally:
    """Every column against one baseline, plus the "who is first" counts."""

    baseline: str
    rows: tuple
    datasets: tuple
    dense_models: tuple
    baseline_ge_all_dense: tuple
    baseline_first: tuple
    first_place_counts: dict

    @property
    def n_datasets(self) -> int:
        return len(self.datasets)

    def row(self, model: str) -> TallyRow:
        for r in self.rows:
            if r.model == model:
                return r
        raise ValueError(f"model must be one of {[r.model for r in self.rows]}, got {model!r}")

    def frame(self) -> pd.DataFrame:
        return pd.DataFrame([r.to_dict() for r in self.rows])

    def to_dict(self) -> dict:
        return {"baseline": self.baseline,
                "rows": [r.to_dict() for r in self.rows],
                "baseline_ge_all_dense": list(self.baseline_ge_all_dense),
                "baseline_first": list(self.baseline_first),
                "first_place_counts": dict(self.first_place_counts),
                "n_datasets": self.n_datasets, "datasets": list(self.datasets),
                "dense_models": list(self.dense_models)}


def _milli_frame(grid: Grid) -> pd.DataFrame:
    return grid.frame.apply(lambda col: col.map(lambda v: np.nan if pd.isna(v) else to_milli(v)))


def tally(grid: Grid, baseline: str = DEFAULT_BASELINE, *,
          rank_columns=None) -> TableTally:
    """Wins, losses, ties, mean relative difference and sign test of every other column
    against ``baseline``; the datasets where the baseline is >= every dense model (dense
    models other than the baseline itself); the datasets where the baseline is first; and how
    often each column is first. Rules and formulas: see the module docstring.

    Only datasets where the baseline has a value count; for a column with gaps (an uploaded
    one) each row counts the datasets both columns have. "Dense" and "first" use the
    columns of ``rank_columns`` (default: all) that have a value on that dataset; pass the
    paper's columns to keep an added column out of the "who is first" counts.
    """
    checks.instance("grid", grid, Grid)
    base = grid.model(baseline)
    ranked = grid.models if rank_columns is None else [grid.model(m) for m in rank_columns]
    if base not in ranked:
        ranked = [base, *ranked]
    frame = grid.frame[grid.frame[base].notna()]
    if frame.empty:
        raise ValueError(f"baseline {base!r} has no values")
    milli = _milli_frame(Grid(frame, grid.kinds, grid.meta))
    rows = []
    for m in grid.models:
        if m == base:
            continue
        both = frame[m].notna()
        bm, mm = milli.loc[both, base], milli.loc[both, m]
        b_wins, m_wins = int((bm > mm).sum()), int((mm > bm).sum())
        ties = int((mm == bm).sum())
        denom = frame.loc[both, base]
        ok = denom > 0
        rel = ((frame.loc[both, m][ok] - denom[ok]) / denom[ok])
        rows.append(TallyRow(m, grid.kinds.get(m, "yours"), b_wins, m_wins, ties,
                             float(100 * rel.mean()) if ok.any() else None,
                             sign_test_p(m_wins, b_wins)))
    dense = tuple(m for m in ranked if grid.kinds.get(m) == DENSE and m != base)
    ge_dense, first = [], []
    counts = {m: 0 for m in ranked}
    for d in frame.index:
        row = milli.loc[d, ranked].dropna()
        top = row.max()
        for m in row.index[row == top]:
            counts[m] += 1
        if row[base] == top:
            first.append(d)
        dense_here = [m for m in dense if m in row.index]
        if dense_here and all(row[base] >= row[m] for m in dense_here):
            ge_dense.append(d)
    return TableTally(base, tuple(rows), tuple(frame.index), dense, tuple(ge_dense),
                      tuple(first), counts)


def strongest_rival(result: TableTally, kind: str | None = DENSE) -> TallyRow | None:
    """The ``kind`` model (default: dense; None: any kind) that does best against the
    baseline: the most
    datasets won from it, then the higher mean relative difference, then table order. Its
    row carries the headline duel, "the baseline beats the best dense model on k of n
    datasets" with its sign test (``TallyRow.sign_test_p``). None when no ``kind`` model
    other than the baseline is in the tally."""
    checks.instance("result", result, TableTally)
    if kind is not None:
        checks.choice("kind", kind, KINDS)
    rows = [r for r in result.rows if kind is None or r.kind == kind]
    if not rows:
        return None
    return max(rows, key=lambda r: (r.model_wins, -math.inf if r.mean_relative_diff_pct is None
                                    else r.mean_relative_diff_pct, -rows.index(r)))


# ----------------------------------------------------------------------------- scifact
def scifact_ranking(grid: Grid, measured: dict | None) -> pd.DataFrame:
    """The SciFact row ranked by nDCG@10, best first, with measured values inserted.

    ``measured`` is the scifact live page's ``{"bm25": {"ndcg@10": x, ...}, "dense": {...}}``
    (retrievers without an ``ndcg@10`` are skipped). Columns: ``rank`` (1 = best; equal
    3-decimal values share a rank), ``name``, ``ndcg@10``, ``source`` ("paper" or
    "measured"), ``kind``.
    """
    if SCIFACT not in grid.frame.index:
        raise ValueError(f"the grid has no {SCIFACT} row")
    if measured is not None:
        checks.instance("measured", measured, dict, "a dict or None")
    rows = [{"name": m, "ndcg@10": float(v), "source": "paper", "kind": grid.kinds.get(m, "")}
            for m, v in grid.frame.loc[SCIFACT].dropna().items()]
    for retriever, metrics in (measured or {}).items():
        if not isinstance(metrics, dict):
            continue
        value = next((v for k, v in metrics.items() if norm_name(k) == "ndcg10"), None)
        if value is None:
            continue
        value = checks.number(f"measured[{retriever!r}]['ndcg@10']", value)
        rows.append({"name": str(retriever), "ndcg@10": float(value), "source": "measured",
                     "kind": "measured"})
    out = pd.DataFrame(rows)
    out["_m"] = out["ndcg@10"].map(to_milli)
    out = out.sort_values(["_m", "source"], ascending=[False, True], kind="stable")
    out.insert(0, "rank", out["_m"].rank(method="min", ascending=False).astype(int))
    return out.drop(columns="_m").reset_index(drop=True)
