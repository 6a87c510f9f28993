"""B − A of one checked pair, made once, and its interval: the two vectors checked at the public
door (``paired_data`` -> ``PairedData``: their kind, 0/1 outcomes or scores, and for 0/1 the
2x2 table; scipy's ``_iv`` style, issue 20 item 7a: helpers that take a ``PairedData`` trust
it), the closed-form intervals of a paired 2x2 table (Tango's score interval, the card's for
0/1 outcomes; Newcombe, Bonett-Price, Wald), the bootstrap of mean(B − A)
(``bootstrap_difference``; the draws and their reading in ``core.paired.resampling``) and its
interval (``guarded_interval``: Tango's for a 0/1 table, the calibrated t with the skew guard
for scores, ``core.paired.intervals`` / ``core.paired.skew_intervals``), in one
``BootstrapResult``. The room the card's number is made in (docs/CONTRIBUTING.md);
``core.paired.compare`` decides on it, and ``core.paired.stats`` holds the checked public
entries (``paired_bootstrap``, ``bootstrap_mean``).

0/1 tables (Fagerland, Lydersen & Laake 2014, "Recommended tests and confidence intervals for
paired binomial proportions", *Statistics in Medicine* 33:2850-2875): a paired 2x2 table
``n11, n12, n21, n22`` with N cases; the difference is delta = (n12 - n21) / N. The functions
do not know which method is which: pass n12 = "only the new method right" and n21 = "only the
baseline right" to get an interval of B - A. Every table function takes scalars or equal-shape
integer arrays (so the bench evaluates every possible table at once) and returns
``(low, high)``.

Functions here take checked arguments (``paired_data``, ``checks.bootstrap_iv``,
``check_interval``) and never check again, but the ``*_ci`` doors of the table intervals;
seeds are explicit, the same seed gives identical output.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from core import checks
from core.paired.intervals import (PAIRED_PROPORTION_METHODS, STUDENTIZED_METHODS,
                                   interval_of_means, resolve_interval, snap_zero,
                                   wilson_bounds, z_of, z_two_sided)
from core.paired.resampling import (BootstrapResult, binary_paired_dist, difference_draws,
                                    is_constant, read_ci)
from core.paired.skew_intervals import widen_by_skew_guard


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


# ----------------------------------------------------------------------------- 0/1 tables
def _cells(n11, n12, n21, n22):
    """The four cells as float arrays of one shape (no check: ``_table`` checks)."""
    return np.broadcast_arrays(*[np.asarray(c).astype(float) for c in (n11, n12, n21, n22)])


def _table(n11, n12, n21, n22):
    cells = [np.asarray(c) for c in (n11, n12, n21, n22)]
    for name, c in zip(("n11", "n12", "n21", "n22"), cells):
        if c.dtype.kind not in "iu" and not (c.dtype.kind == "f" and np.all(c == np.round(c))):
            raise ValueError(f"{name} must hold whole numbers, got {c!r}")
        if np.any(c < 0):
            raise ValueError(f"{name} must be non-negative, got {c!r}")
    out = _cells(*cells)
    if np.any(out[0] + out[1] + out[2] + out[3] <= 0):
        raise ValueError("the table needs at least one case (n11 + n12 + n21 + n22 >= 1)")
    return out


def _scalar(lo, hi):
    if np.ndim(lo) == 0:
        return float(lo), float(hi)
    return lo, hi


# ----------------------------------------------------------------------------- 0/1 tables
def wald_paired_ci(n11, n12, n21, n22, confidence: float = 0.95):
    """Wald interval of delta = (n12 - n21)/N (Fagerland et al. 2014, eq. 1)::

        delta +/- z * sqrt(n12 + n21 - (n12 - n21)^2 / N) / N

    Kept as the reference the others improve on; it collapses to a point with no discordant
    pairs. Truncated to [-1, 1].
    """
    return _wald(*_table(n11, n12, n21, n22), z_two_sided(confidence))


def _wald(n11, n12, n21, n22, z: float):
    N = n11 + n12 + n21 + n22
    est = (n12 - n21) / N
    se = np.sqrt(np.maximum(n12 + n21 - (n12 - n21) ** 2 / N, 0.0)) / N
    return _scalar(np.maximum(est - z * se, -1.0), np.minimum(est + z * se, 1.0))


def bonett_price_ci(n11, n12, n21, n22, confidence: float = 0.95):
    """Bonett & Price (2012) adjusted Wald interval of delta ("Adjusted Wald confidence
    interval for a difference of binomial proportions based on paired data", *Journal of
    Educational and Behavioral Statistics* 37:479-488): add one pseudo-case to each discordant
    cell (Laplace), p12 = (n12 + 1)/(N + 2), p21 = (n21 + 1)/(N + 2)::

        (p12 - p21) +/- z * sqrt((p12 + p21 - (p12 - p21)^2) / (N + 2))

    truncated to [-1, 1] (Fagerland et al. 2014, section 3.1). Centred on the shrunk
    estimate p12 - p21, not on delta.
    """
    return _bonett_price(*_table(n11, n12, n21, n22), z_two_sided(confidence))


def _bonett_price(n11, n12, n21, n22, z: float):
    N = n11 + n12 + n21 + n22
    p12, p21 = (n12 + 1) / (N + 2), (n21 + 1) / (N + 2)
    centre = p12 - p21
    se = np.sqrt((p12 + p21 - centre ** 2) / (N + 2))
    return _scalar(np.maximum(centre - z * se, -1.0), np.minimum(centre + z * se, 1.0))


def newcombe_ci(n11, n12, n21, n22, confidence: float = 0.95):
    """Newcombe's square-and-add (MOVER) Wilson interval of delta = pi_1+ - pi_+1 (Newcombe
    1998, "Improved confidence intervals for the difference between binomial proportions based
    on paired data", *Statistics in Medicine* 17:2635-2650, method 10; Fagerland et al. 2014,
    eq. 6).

    With [l1, u1] the Wilson interval of pi_1+ = (n11 + n12)/N and [l2, u2] that of
    pi_+1 = (n11 + n21)/N, and phi the correlation estimate::

        A = n11 n22 - n12 n21;  phi = (A - N/2)/sqrt(n1+ n2+ n+1 n+2) if A > N/2,
                                      0 if 0 <= A <= N/2, A/sqrt(...) if A < 0
                                      (0 when a margin is 0)
        L = delta - sqrt((p1 - l1)^2 - 2 phi (p1 - l1)(u2 - p2) + (u2 - p2)^2)
        U = delta + sqrt((p2 - l2)^2 - 2 phi (p2 - l2)(u1 - p1) + (u1 - p1)^2)
    """
    return _newcombe(*_table(n11, n12, n21, n22), z_two_sided(confidence))


def _newcombe(n11, n12, n21, n22, z: float):
    N = n11 + n12 + n21 + n22
    r1, r2, c1, c2 = n11 + n12, n21 + n22, n11 + n21, n12 + n22
    p1, p2 = r1 / N, c1 / N
    l1, u1, _ = wilson_bounds(r1, N, z)
    l2, u2, _ = wilson_bounds(c1, N, z)
    prod = r1 * r2 * c1 * c2
    A = n11 * n22 - n12 * n21
    with np.errstate(divide="ignore", invalid="ignore"):
        phi = np.where(A > N / 2, (A - N / 2) / np.sqrt(prod), np.where(A < 0, A / np.sqrt(prod), 0.0))
    phi = np.where(prod > 0, phi, 0.0)
    dl1, du1, dl2, du2 = p1 - l1, u1 - p1, p2 - l2, u2 - p2
    est = p1 - p2
    lo = est - np.sqrt(np.maximum(dl1 ** 2 - 2 * phi * dl1 * du2 + du2 ** 2, 0.0))
    hi = est + np.sqrt(np.maximum(dl2 ** 2 - 2 * phi * dl2 * du1 + du1 ** 2, 0.0))
    return _scalar(np.maximum(lo, -1.0), np.minimum(hi, 1.0))


def _tango_t(delta0, n12, n21, N):
    """Tango's score statistic at delta0 with the restricted ML estimate of pi_21."""
    a = 2 * N
    b = -n12 - n21 + (2 * N - n12 + n21) * delta0
    c = -n21 * delta0 * (1 - delta0)
    p21 = (np.sqrt(np.maximum(b * b - 4 * a * c, 0.0)) - b) / (2 * a)
    var = N * (2 * p21 + delta0 * (1 - delta0))
    num = n12 - n21 - N * delta0
    with np.errstate(divide="ignore", invalid="ignore"):
        t = num / np.sqrt(var)
    # 0/0 only at delta0 = 0 with no discordant pairs, where T tends to 0
    return np.where((var <= 0) & (num == 0), 0.0, t)


def tango_statistic(delta0: float, n12, n21, N):
    """Tango's (1998) score statistic T(delta0) of H0: delta = delta0 (``tango_ci``; the
    caller checked the counts, -1 < delta0 < 1); at 0 McNemar's (n12 - n21)/sqrt(n12 + n21).
    ``core.paired.margin`` rejects H0: delta <= -m at level a when T(-m) > z_(1-a), exactly when
    Tango's lower limit at level 1 - 2a is above -m (T falls as delta0 rises)."""
    return _tango_t(np.asarray(delta0, dtype=float), np.asarray(n12, dtype=float),
                    np.asarray(n21, dtype=float), np.asarray(N, dtype=float))


def tango_ci(n11, n12, n21, n22, confidence: float = 0.95, *, tol: float = 1e-10):
    """Tango's (1998) asymptotic score interval of delta ("Equivalence test and confidence
    interval for the difference in proportions for the paired-sample design", *Statistics in
    Medicine* 17:891-908; Fagerland et al. 2014, eq. 7): the delta0 with |T(delta0)| <= z, where

        T(delta0) = (n12 - n21 - N delta0) / sqrt(N (2 p21~ + delta0 (1 - delta0)))

    and p21~ is the maximum likelihood estimate of pi_21 under delta = delta0, the root
    (sqrt(b^2 - 4ac) - b) / (2a) of a = 2N, b = (2N - n12 + n21) delta0 - n12 - n21,
    c = -n21 delta0 (1 - delta0). T falls as delta0 rises, so each limit is found by bisection
    on (-1, 1), for every table of an array at once (to ``tol``). L = -1 when delta = -1 and
    U = 1 when delta = 1.
    """
    tol = checks.between("tol", tol, 1e-15, 1e-3)
    return _tango(*_table(n11, n12, n21, n22), z_two_sided(confidence), tol)


def _tango(n11, n12, n21, n22, z: float, tol: float = 1e-10):
    return _scalar(*tango_limits(n12, n21, n11 + n12 + n21 + n22, z, tol))


def tango_limits(n12, n21, N, z: float, tol: float = 1e-10):
    """Tango's limits for (possibly non-integer, e.g. expected) discordant counts n12, n21
    of N cases at the normal quantile ``z``: bisection, see ``tango_ci``. Arrays in, arrays
    out."""
    n12, n21, N = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (n12, n21, N)))
    if np.any(n12 < 0) or np.any(n21 < 0) or np.any(n12 + n21 > N) or np.any(N <= 0):
        raise ValueError("tango_limits needs 0 <= n12, n21 and n12 + n21 <= N, N > 0")
    z = checks.positive("z", z)
    if n12.ndim == 0:   # one table: the same bisection in plain floats (no array overhead)
        return _tango_limits_scalar(float(n12), float(n21), float(N), z, tol)
    est = (n12 - n21) / N

    def root(target):
        lo = np.full(est.shape, -1.0)
        hi = np.full(est.shape, 1.0)
        for _ in range(int(math.ceil(math.log2(2 / tol)))):
            mid = 0.5 * (lo + hi)
            above = _tango_t(mid, n12, n21, N) > target   # root lies to the right of mid
            lo = np.where(above, mid, lo)
            hi = np.where(above, hi, mid)
        return 0.5 * (lo + hi)

    low = np.where(est <= -1, -1.0, root(z))
    high = np.where(est >= 1, 1.0, root(-z))
    return np.minimum(low, est), np.maximum(high, est)


def _tango_limits_scalar(n12: float, n21: float, N: float, z: float, tol: float):
    def t(d0):
        a, b = 2 * N, -n12 - n21 + (2 * N - n12 + n21) * d0
        c = -n21 * d0 * (1 - d0)
        p21 = (math.sqrt(max(b * b - 4 * a * c, 0.0)) - b) / (2 * a)
        var = N * (2 * p21 + d0 * (1 - d0))
        num = n12 - n21 - N * d0
        return 0.0 if var <= 0 and num == 0 else (num / math.sqrt(var) if var > 0 else
                                                   math.copysign(math.inf, num))

    def root(target):
        lo, hi = -1.0, 1.0
        for _ in range(int(math.ceil(math.log2(2 / tol)))):
            mid = 0.5 * (lo + hi)
            if t(mid) > target:
                lo = mid
            else:
                hi = mid
        return 0.5 * (lo + hi)

    est = (n12 - n21) / N
    low = -1.0 if est <= -1 else root(z)
    high = 1.0 if est >= 1 else root(-z)
    return np.float64(min(low, est)), np.float64(max(high, est))


_TABLE_FUNCS = {"tango": _tango, "newcombe": _newcombe, "bonett_price": _bonett_price,
                "wald": _wald}


def paired_proportion_ci(n11, n12, n21, n22, confidence: float = 0.95, *,
                         method: str = "tango"):
    """The ``method`` interval (one of ``PAIRED_PROPORTION_METHODS``) of delta =
    (n12 - n21)/N; see each function for its formula and source."""
    method = checks.choice("method", method, PAIRED_PROPORTION_METHODS)
    return _TABLE_FUNCS[method](*_table(n11, n12, n21, n22), z_two_sided(confidence))


def table_interval(n11, n12, n21, n22, confidence: float, method: str):
    """``paired_proportion_ci`` of cells, a level and a method the caller checked (whole,
    non-negative cells with at least one case: a ``PairedData.table`` or tables built from
    one; ``bootstrap_difference`` and the self-check): the same interval, no check again."""
    return _TABLE_FUNCS[method](*_cells(n11, n12, n21, n22), z_of(confidence))


# ----------------------------------------------------------------------------- B - A
def difference_interval(data: PairedData, dist: np.ndarray, *, confidence: float,
                        interval: str, seed: int,
                        sds: np.ndarray | None = None) -> tuple[float, float, str]:
    """The CI of mean(B - A) with ``interval`` (``resolve_interval`` picks the one used for
    the data's kind), given the bootstrap distribution ``dist`` of the mean difference that
    the caller drew from ``data``. Returns (low, high, interval used); ends within 1e-12 of 0
    relative to ``data.scale`` are exactly 0 (``core.paired.intervals.snap_zero``), so the printed
    interval and the verdict read the same numbers.

    * 0/1 outcomes, ``tango`` / ``newcombe`` / ``bonett_price`` / ``wald``: closed form from
      the 2x2 table (``core.paired.intervals``), with n12 = B only and n21 = A only;
    * ``percentile``, ``bca`` (falls back to percentile where BCa is undefined),
      ``expanded_percentile``: read off ``dist``;
    * ``bootstrap_t``: studentized resamples, the SDs of the very resamples of ``dist``
      (``difference_draws``);
    * ``calibrated_t`` (the default for scores): the t-interval, each end widened to the
      bootstrap-t's when that is further out (``core.paired.intervals.calibrated_t_interval``), with
      the bootstrap-t's resamples drawn as for ``bootstrap_t``;
    * ``t``: the t-interval; ``johnson_t`` / ``hall_t``: Johnson's (1978) and Hall's (1992)
      skewness-corrected t-intervals (closed forms, no bootstrap; ``core.paired.intervals``).

    ``sds``: the SDs of B - A of the same resamples as ``dist``, when the caller drew them in
    the same pass (``difference_draws``); else the studentized intervals draw them again.
    Scores all in [0, 1] keep their interval inside [-1, 1], the range of B - A.
    """
    checks.instance("data", data, PairedData, "a PairedData from paired_data")
    return interval_of_difference(data, dist, checks.confidence(confidence), interval, seed,
                                  sds)


def interval_of_difference(data: PairedData, dist: np.ndarray, confidence: float,
                           interval: str, seed: int,
                           sds: np.ndarray | None = None) -> tuple[float, float, str]:
    """``difference_interval`` for arguments the caller checked (``core.paired.multi``)."""
    return guarded_interval(data, dist, confidence, interval, seed, sds)[:3]


def guarded_interval(data: PairedData, dist: np.ndarray, confidence: float, interval: str,
                     seed: int, sds: np.ndarray | None = None
                     ) -> tuple[float, float, str, bool, bool]:
    """``interval_of_difference``, whether the skew guard moved an end and whether the
    interval was widened to reach 0 because too few cases differ for any exact test
    (``core.paired.skew_intervals.widen_by_skew_guard``; both False but for the calibrated t)."""
    used, guarded, zero = resolve_interval(interval, data.binary), False, False
    if used in PAIRED_PROPORTION_METHODS:
        both, a_only, b_only, neither = data.table
        lo, hi = table_interval(both, b_only, a_only, neither, confidence, used)
    elif used in ("percentile", "bca"):
        lo, hi, used = read_ci(dist, data.d, confidence, used)
    else:
        d = data.d[None, :]
        if used not in STUDENTIZED_METHODS:
            sds = None
        elif sds is None:
            sds = difference_draws(data.d, dist.size, seed, True)[1]
        l, h = interval_of_means(d, dist[None, :], sds, confidence, used)
        lo, hi = float(l[0]), float(h[0])
        if used == "calibrated_t":   # the skew guard (issue 36): a union, it only widens
            lo, hi, guarded, zero = widen_by_skew_guard(data.d, lo, hi, confidence,
                                                        unit=data.unit_scores, scale=data.scale)
        elif data.unit_scores:   # B - A of scores in [0, 1] lies in [-1, 1]
            lo, hi = max(lo, -1.0), min(hi, 1.0)
    return (float(snap_zero(lo, data.scale)), float(snap_zero(hi, data.scale)), used, guarded,
            zero)


def bootstrap_difference(data: PairedData, *, resamples: int = 20_000,
                         confidence: float = 0.95, seed: int = 0,
                         interval: str = "auto") -> BootstrapResult:
    """Paired bootstrap of mean(B - A) with the CI of ``difference_interval``, for arguments
    the caller checked (``paired_bootstrap``, ``core.paired.compare.compare_paired``: data from
    ``paired_data``, ``checks.bootstrap_iv``, ``check_interval``); nothing is checked again."""
    n = data.n
    if data.binary:
        _, a_only, b_only, _ = data.table
        dist, sds = binary_paired_dist(n, a_only, b_only, resamples, seed), None
        mean = (b_only - a_only) / n
        constant = a_only + b_only == 0 or a_only == n or b_only == n
        method = "cells"
    else:
        d = data.d
        dist, sds = difference_draws(d, resamples, seed,
                                     resolve_interval(interval, False) in STUDENTIZED_METHODS)
        mean, constant, method = float(d.mean()), is_constant(d), "resample"
    lo, hi, used, guarded, zero = guarded_interval(data, dist, confidence, interval, seed, sds)
    return BootstrapResult(float(mean), lo, hi, confidence, resamples, int(seed), method, dist,
                           used, bool(constant), guarded, zero)
