"""Who ran first within a query? The position-in-pair check of a timing log.

A log that always times B right after A on the same query lets B reuse what A warmed (a
cache, a page in memory, a JIT-compiled path): B's advantage then mixes a real difference with
a position effect. Run ``r`` of A and run ``r`` of B on query ``q`` form a pair; the one with
the smaller ``order`` (timestamp, else spreadsheet row) ran first. Ties (a wide log's row
holds both) leave the position unknown.

* **Fixed order** (the minority position has fewer than ``MIN_MINORITY`` pairs, or too few
  queries on each side to compare): the log cannot separate the position effect from the
  difference between the methods. The method that ran second is the one that may benefit,
  by an unknown amount up to all of its measured advantage.
* **Mixed order**: the per-pair log ratio d = log B - log A is modelled as
  d = delta - s log g, with s = +1 when B ran second and -1 when A did, and g the speed-up of
  running second (g > 1: second is faster). With queries timed in both positions, log g is
  minus half the mean within-query contrast (cell mean of d with B second minus with B first),
  tested with the sign-flip randomization test (``core.paired.significance.paired_test``); with
  each query in one position only, minus half the difference of query means (Welch's t-test,
  ``scipy.stats.ttest_ind(equal_var=False)``). A position effect is reported when p <
  ``ORDER_ALPHA`` and g is at least ``ORDER_MIN_GAIN`` (either way). Its pull on the ratio is
  g^-(2p - 1) for a share p of pairs with B second, so the balanced-order ratio is about
  ratio x g^(2p - 1).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from core.paired import paired_test

ORDER_ALPHA, ORDER_MIN_GAIN = 0.01, 1.05
MIN_MINORITY = 3          # fewer pairs than this in the rarer position: the order is fixed
MIN_QUERIES_PER_SIDE = 3  # queries needed on each side (or with both positions) to compare


@dataclass(frozen=True)
class PairOrder:
    """Position-in-pair evidence for methods ``a`` and ``b``: ``n_pairs`` pairs with a known
    order, ``b_second`` of them with B second; ``gain`` (running second is ``gain``x faster;
    None when it cannot be estimated), its p, the design used (``within`` | ``between`` |
    ``fixed`` | ``unclear``: mixed but too few queries to compare | ``none``) and the median
    gap between the two runs of a pair (order units)."""

    a: str
    b: str
    n_pairs: int
    b_second: int
    design: str
    gain: float | None
    p_value: float | None
    n_queries: int
    gap: float | None

    @property
    def share_b_second(self) -> float:
        return self.b_second / self.n_pairs if self.n_pairs else float("nan")

    @property
    def fixed(self) -> bool:
        return self.design == "fixed"

    @property
    def second(self) -> str:
        """The method that ran second in most pairs."""
        return self.b if self.b_second * 2 >= self.n_pairs else self.a

    @property
    def first(self) -> str:
        return self.a if self.second == self.b else self.b

    @property
    def detected(self) -> bool:
        """A position effect large and clear enough to report (mixed order only)."""
        return (self.gain is not None and self.p_value is not None
                and self.p_value < ORDER_ALPHA
                and max(self.gain, 1 / self.gain) >= ORDER_MIN_GAIN)

    def balanced_ratio(self, ratio: float) -> float | None:
        """The B/A ratio with the position pull removed: ratio x g^(2p - 1)."""
        if self.gain is None:
            return None
        return ratio * self.gain ** (2 * self.share_b_second - 1)

    def to_dict(self) -> dict:
        return {"n_pairs": self.n_pairs, "b_second": self.b_second, "design": self.design,
                "gain": self.gain, "p_value": self.p_value, "n_queries": self.n_queries,
                "gap": self.gap, "second": self.second}


def pair_order(frame: pd.DataFrame, a: str, b: str, *, seed: int = 0,
               resamples: int = 20_000) -> PairOrder:
    """The position-in-pair check on a ``TimingLog.frame`` (rows of methods ``a`` and ``b``;
    see the module docstring). Pairs are (query, run) with both methods timed."""
    cols = ["query", "run", "order", "latency_ms"]
    pa = frame.loc[frame["method"] == a, cols]
    pb = frame.loc[frame["method"] == b, cols]
    m = pa.merge(pb, on=["query", "run"], suffixes=("_a", "_b"))
    oa, ob = m["order_a"].to_numpy(float), m["order_b"].to_numpy(float)
    known = oa != ob
    m = m[known]
    n = len(m)
    if n == 0:
        return PairOrder(a, b, 0, 0, "none", None, None, 0, None)
    s = (m["order_b"].to_numpy(float) > m["order_a"].to_numpy(float))  # True: B second
    d = np.log(m["latency_ms_b"].to_numpy(float)) - np.log(m["latency_ms_a"].to_numpy(float))
    gap = float(np.median(np.abs(m["order_b"].to_numpy(float) - m["order_a"].to_numpy(float))))
    q = m["query"].to_numpy(dtype=object)
    nq = len(pd.unique(q))
    b_second = int(s.sum())
    cells = pd.DataFrame({"q": q, "s": s, "d": d}).groupby(["q", "s"], sort=False)["d"].mean()
    cells = cells.unstack("s")
    second = cells[True] if True in cells else pd.Series(dtype=float)
    first = cells[False] if False in cells else pd.Series(dtype=float)
    both = second.notna() & first.notna() if len(second) and len(first) else pd.Series(
        False, index=cells.index)
    minority = min(b_second, n - b_second)
    gain = p = None
    design = "fixed" if minority < MIN_MINORITY else "unclear"
    if minority >= MIN_MINORITY and int(both.sum()) >= MIN_QUERIES_PER_SIDE:
        design = "within"
        hi, lo = second[both].to_numpy(float), first[both].to_numpy(float)
        log_g = -float(np.mean(hi - lo)) / 2
        p = paired_test(lo, hi, resamples=resamples, seed=seed, binary=False).p
        gain = math.exp(log_g)
    elif minority >= MIN_MINORITY:
        only_s = second[second.notna() & ~both].to_numpy(float)
        only_f = first[first.notna() & ~both].to_numpy(float)
        if min(only_s.size, only_f.size) >= MIN_QUERIES_PER_SIDE:
            from scipy import stats
            design = "between"
            log_g = -(float(only_s.mean()) - float(only_f.mean())) / 2
            spread = np.concatenate([only_s - only_s.mean(), only_f - only_f.mean()])
            p = 0.0 if not np.any(np.abs(spread) > 1e-12) else float(
                stats.ttest_ind(only_s, only_f, equal_var=False).pvalue)
            gain = math.exp(log_g)
    return PairOrder(a, b, n, b_second, design, gain, p, nq, gap)
