"""Speed claims, honestly: the latency of two methods compared query by query.

Input is a timing log, long ``query_id, method, latency_ms[, run, cache, timestamp]`` or wide
``query_id, <method>, <method>, ...[, run, cache]``; several repetitions per query are allowed
(a ``run`` column or repeated rows). ``load_timings`` parses it (through
``core.tables.read_table``), ``compare_latency`` gives:

* per method, the median and p95 of all its timings with nested bootstrap CIs (queries
  resampled with replacement, then each chosen query's repetitions resampled within it);
* paired by query, the ratio of medians B/A and the geometric mean of the per-query ratios
  (each query's median of B over its median of A), each with a paired bootstrap CI over
  queries, and a sign-flip randomization p on the per-query log ratios;
* a verdict that never overclaims: "faster" only if the CI of the geometric-mean ratio
  excludes 1 *and* the randomization p is below 1 - confidence;
* fairness checks with their evidence: warm-up (a changepoint on the run index), order
  effects (all A timings before all B timings), cache (a ``cache`` column or a bimodal
  distribution), unequal numbers of runs, queries or cells left out;
* how many queries a +/-5 % CI of the ratio would need (``core.sample_size``).

Ratios are B/A: below 1 means B is faster. Everything is computed here; pages and the CLI
only draw and print.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from numba import njit, prange, uint64

from core import checks
from core._kernels import _splitmix
from core.errors import InputError
from core.i18n import t
from core.sample_size import n_continuous_ci
from core.stats import bootstrap_mean, percentile_ci, randomization_p, resample_seeds
from core.tables import find_column, read_table

QUERY_NAMES = ("query_id", "queryid", "qid", "query", "case_id", "id", "질의id", "쿼리id",
               "쿼리", "질의", "케이스")
METHOD_NAMES = ("method", "system", "variant", "pipeline", "retriever", "방법", "방식", "시스템")
LATENCY_NAMES = ("latency_ms", "latency", "ms", "time_ms", "duration_ms", "elapsed_ms",
                 "지연시간", "지연시간_ms", "응답시간", "응답시간_ms")
RUN_NAMES = ("run", "rep", "repetition", "iteration", "trial", "회차", "반복")
CACHE_NAMES = ("cache", "cache_hit", "cached", "캐시")
TIME_NAMES = ("timestamp", "time", "ts", "started_at", "start_time", "시각", "시간")
HIT_WORDS = {"hit", "true", "t", "1", "yes", "y", "warm", "cached", "적중", "예"}
TEXT_NAMES = ("query", "query_text", "question", "text", "note", "notes", "comment", "질문",
              "질의", "쿼리", "메모", "비고")  # wide logs: text beside the timings, not a method
MISS_WORDS = {"miss", "false", "f", "0", "no", "n", "cold", "미스", "아니오"}

DEFAULT_RESAMPLES, DEFAULT_QUANTILE_RESAMPLES = 20_000, 2_000
TARGET_RATIO_HALF_WIDTH = 0.05       # sample-size plan: a CI of the ratio within +/-5 %
WARMUP_MIN_SLOWDOWN = 1.10           # warm-up runs must be >= 10 % slower (geometric mean)
WARMUP_ALPHA, WARMUP_PERMUTATIONS = 0.01, 199
CACHE_MIN_SHARE, CACHE_MIN_ASHMAN_D, BIMODALITY_COEFFICIENT = 0.05, 3.5, 5 / 9
MAX_SHOWN = 10


# ----------------------------------------------------------------------------- parsing
@dataclass(frozen=True)
class TimingLog:
    """A parsed timing log: one row per timing in ``frame`` with columns ``query`` (str),
    ``method`` (str), ``latency_ms`` (float > 0), ``run`` (1-based rank of the repetition
    within its query and method), ``order`` (timestamp, else spreadsheet row: when it ran),
    ``row`` (spreadsheet row), ``cache`` (1 hit, 0 miss, NaN unknown)."""

    frame: pd.DataFrame
    source: str
    layout: str                      # "long" | "wide"
    methods: tuple[str, ...]
    has_run: bool
    has_cache: bool
    has_timestamp: bool
    blank: tuple[str, ...] = ()      # cells left blank, as "row 7 (dense)"

    @property
    def n_rows(self) -> int:
        return len(self.frame)


def _number_cells(col: pd.Series, *, file: str, column: str) -> np.ndarray:
    """Latencies in ms: floats > 0; anything else raises ``InputError`` naming the row."""
    vals = pd.to_numeric(col, errors="coerce").to_numpy(float)
    bad = ~np.isfinite(vals)
    if bad.any():
        row = int(col.index[np.argmax(bad)])
        raise InputError("latency.err_bad_latency", file=file, row=row, column=column,
                         value=str(col.iloc[np.argmax(bad)])[:40], count=int(bad.sum()))
    low = vals <= 0
    if low.any():
        row = int(col.index[np.argmax(low)])
        raise InputError("latency.err_not_positive", file=file, row=row, column=column,
                         value=str(col.iloc[np.argmax(low)])[:40], count=int(low.sum()))
    return vals


def _cache_cells(col: pd.Series, *, file: str, column: str) -> np.ndarray:
    out = np.full(len(col), np.nan)
    for i, (row, cell) in enumerate(col.items()):
        low = cell.strip().lower()
        if low in HIT_WORDS:
            out[i] = 1.0
        elif low in MISS_WORDS:
            out[i] = 0.0
        elif low != "":
            raise InputError("latency.err_bad_cache", file=file, row=int(row), column=column,
                             value=cell[:40])
    return out


def _run_cells(col: pd.Series, *, file: str, column: str) -> np.ndarray:
    vals = pd.to_numeric(col, errors="coerce").to_numpy(float)
    bad = ~np.isfinite(vals) | (vals != np.round(vals))
    if bad.any():
        i = int(np.argmax(bad))
        raise InputError("latency.err_bad_run", file=file, row=int(col.index[i]), column=column,
                         value=str(col.iloc[i])[:40])
    return vals


def _time_cells(col: pd.Series, *, file: str, column: str) -> np.ndarray:
    nums = pd.to_numeric(col, errors="coerce")
    if nums.notna().all():
        return nums.to_numpy(float)
    stamps = pd.to_datetime(col, errors="coerce", format="mixed")
    bad = stamps.isna().to_numpy()
    if bad.any():
        i = int(np.argmax(bad))
        raise InputError("latency.err_bad_time", file=file, row=int(col.index[i]), column=column,
                         value=str(col.iloc[i])[:40])
    return (stamps - stamps.min()).dt.total_seconds().to_numpy(float)


def _blank_check(frame: pd.DataFrame, column: str, code: str, file: str) -> None:
    blank = frame[column] == ""
    if blank.any():
        raise InputError(code, file=file, row=int(frame.index[np.argmax(blank.to_numpy())]),
                         column=column, count=int(blank.sum()))


def load_timings(data: bytes, file: str = "upload") -> TimingLog:
    """Parse a timing log (CSV/TSV/XLSX bytes, as ``core.tables.read_table``).

    Long when a method column and a latency column are found, else wide (every column other
    than the query id, run, cache, timestamp and query-text columns is a method). The query id
    column is the first of ``QUERY_NAMES`` present (``query_id`` before ``query``). Latencies must be
    numbers above 0 (ms); a blank latency cell is left out and listed in ``blank``.
    Repetitions are ranked 1, 2, ... within each query and method by the ``run`` column,
    else by timestamp, else by row order.
    """
    raw = read_table(data, file)
    f = raw.frame
    cols = list(f.columns)
    qcol = next((c for n in QUERY_NAMES if (c := find_column(cols, [n])) is not None), None)
    if qcol is None:
        raise InputError("latency.err_no_query", file=file, columns=", ".join(cols)[:300])
    mcol, lcol = find_column(cols, METHOD_NAMES), find_column(cols, LATENCY_NAMES)
    rcol, ccol = find_column(cols, RUN_NAMES), find_column(cols, CACHE_NAMES)
    tcol = find_column(cols, TIME_NAMES)
    _blank_check(f, qcol, "latency.err_blank_query", file)
    if mcol is not None and lcol is not None:
        layout = "long"
        _blank_check(f, mcol, "latency.err_blank_method", file)
        blank_mask = (f[lcol] == "").to_numpy()
        blank = tuple(f"{t('latency.row', 'en', row=int(r))} ({m})"
                      for r, m in zip(f.index[blank_mask], f[mcol][blank_mask]))
        body = f[~blank_mask]
        if body.empty:
            raise InputError("header_only", file=file)
        long = pd.DataFrame({"query": body[qcol].to_numpy(), "method": body[mcol].to_numpy(),
                             "latency_ms": _number_cells(body[lcol], file=file, column=lcol),
                             "row": body.index.to_numpy(int)})
        extra = body
    else:
        layout = "wide"
        skip = {qcol, rcol, ccol, tcol, *(c for c in cols if find_column([c], TEXT_NAMES))}
        methods = [c for c in cols if c not in skip]
        if len(methods) < 1:
            raise InputError("latency.err_no_methods", file=file, columns=", ".join(cols)[:300])
        parts, blank = [], []
        for m in methods:
            cells = f[m]
            empty = (cells == "").to_numpy()
            blank += [f"{t('latency.row', 'en', row=int(r))} ({m})" for r in f.index[empty]]
            keep = cells[~empty]
            parts.append(pd.DataFrame({
                "query": f[qcol][~empty].to_numpy(), "method": m,
                "latency_ms": _number_cells(keep, file=file, column=m),
                "row": keep.index.to_numpy(int)}))
        long = pd.concat(parts, ignore_index=True)
        if long.empty:
            raise InputError("header_only", file=file)
        extra = f.loc[long["row"].to_numpy()]
        blank = tuple(blank)
    long = long.astype({"query": object, "method": object})
    long["cache"] = (_cache_cells(extra[ccol], file=file, column=ccol) if ccol
                     else np.full(len(long), np.nan))
    stamps = _time_cells(extra[tcol], file=file, column=tcol) if tcol else None
    long["order"] = stamps if stamps is not None else long["row"].to_numpy(float)
    if rcol:
        long["run_label"] = _run_cells(extra[rcol], file=file, column=rcol)
        dup = long.duplicated(["query", "method", "run_label"])
        if dup.any():
            r = long.loc[dup.idxmax()]
            raise InputError("latency.err_duplicate_run", file=file, row=int(r["row"]),
                             column=rcol, query=r["query"], method=r["method"],
                             run=f"{r['run_label']:g}")
        key = "run_label"
    else:
        key = "order"
    methods = tuple(dict.fromkeys(long["method"]))  # file order: columns, or first rows
    long["mpos"] = long["method"].map({m: i for i, m in enumerate(methods)})
    long = long.sort_values(["method", "query", key, "row"], kind="stable")
    long["run"] = long.groupby(["method", "query"], sort=False).cumcount() + 1
    long = long.drop(columns=["run_label"], errors="ignore") \
        .sort_values(["row", "mpos"], kind="stable").drop(columns="mpos")
    return TimingLog(long.reset_index(drop=True), file, layout, methods, rcol is not None,
                     ccol is not None and bool(long["cache"].notna().any()), tcol is not None,
                     tuple(blank))


# ----------------------------------------------------------------------------- kernels
_U53 = 1.0 / 9007199254740992.0  # 2**-53: a 64-bit word's top 53 bits as a uniform in [0, 1)


@njit(cache=True, inline="always")
def _below(state, n):
    """An index in [0, n) from the next splitmix64 word (top 53 bits as a uniform; the bias
    is below n / 2**53)."""
    state, word = _splitmix(state)
    return state, int((word >> uint64(11)) * _U53 * n)


@njit(cache=True, inline="always")
def _bin(n, p):
    """Binomial(n, p) with the edge cases numba's sampler rejects handled."""
    if n <= 0 or p <= 0.0:
        return 0
    if p >= 1.0:
        return n
    return np.random.binomial(n, p)


@njit(parallel=True, cache=True)
def _nested_walk(sv, sq, k, starts, below, probs, seeds):
    """Two-stage bootstrap of pooled quantiles without drawing every timing.

    ``sv`` is one method's sorted timings, ``sq`` the query of each, ``k`` the runs per query,
    and for quantile j ``starts[j]`` its observed position and ``below[j, q]`` query q's runs
    before it. A resample draws each query's copy count w_q (queries with replacement); the
    D_q = w_q k_q run draws of query q are Multinomial(D_q; 1/k_q, ...) over its runs. The
    order statistic is found by walking in sorted order from the observed quantile, drawing
    only the counts the walk needs, each from its exact conditional law: the draws of q before
    the start are Binomial(D_q, b_q/k_q); a count at the edge of the visited stretch is
    Binomial(remaining draws of q on that side, 1 / remaining runs of q on that side).
    Each quantile gets its own within-query draws (its marginal law is the nested bootstrap's).
    numba's generator is seeded from ``seeds[r]`` at the start of resample r, so the output
    does not depend on threads.
    """
    N = sv.shape[0]
    nq = k.shape[0]
    R = seeds.shape[0]
    P = probs.shape[0]
    out = np.empty((R, P))
    for r in prange(R):
        np.random.seed(seeds[r])
        w = np.zeros(nq, np.int64)
        for _ in range(nq):
            w[np.random.randint(0, nq)] += 1
        T = 0
        for q in range(nq):
            T += w[q] * k[q]
        cnt = np.zeros(N, np.int64)
        L = np.empty(nq, np.int64)
        U = np.empty(nq, np.int64)
        lb = np.empty(nq, np.int64)
        ub = np.empty(nq, np.int64)
        for j in range(P):
            p0 = starts[j]
            c = 0
            for q in range(nq):
                d = w[q] * k[q]
                lb[q] = below[j, q]
                ub[q] = k[q] - lb[q]
                x = _bin(d, lb[q] / k[q])
                L[q] = x
                U[q] = d - x
                c += x
            lo = p0
            hi = p0  # visited stretch [lo, hi); c = weight before p
            h = (T - 1) * probs[j]
            rank = int(math.floor(h))
            p = p0
            while c > rank:
                p -= 1
                if p < lo:
                    q = sq[p]
                    x = _bin(L[q], 1.0 / lb[q])
                    L[q] -= x
                    lb[q] -= 1
                    cnt[p] = x
                    lo = p
                c -= cnt[p]
            while True:
                if p >= hi:
                    q = sq[p]
                    x = _bin(U[q], 1.0 / ub[q])
                    U[q] -= x
                    ub[q] -= 1
                    cnt[p] = x
                    hi = p + 1
                if c + cnt[p] > rank:
                    break
                c += cnt[p]
                p += 1
            v = sv[p]
            if h > rank:
                c2 = c + cnt[p]
                p2 = p
                if rank + 1 >= c2:  # the next order statistic lies further up
                    p2 = p + 1
                    while True:
                        if p2 >= hi:
                            q = sq[p2]
                            x = _bin(U[q], 1.0 / ub[q])
                            U[q] -= x
                            ub[q] -= 1
                            cnt[p2] = x
                            hi = p2 + 1
                        if c2 + cnt[p2] > rank + 1:
                            break
                        c2 += cnt[p2]
                        p2 += 1
                v = v + (h - rank) * (sv[p2] - v)
            out[r, j] = v
    return out


@njit(cache=True)
def draw_query_counts(seed, nq):
    """How often each of ``nq`` queries is drawn in one resample of ``nq`` with replacement
    (the draws ``_paired_median_ratio`` makes for that seed)."""
    state = uint64(seed)
    w = np.zeros(nq, np.int64)
    for _ in range(nq):
        state, q = _below(state, nq)
        w[q] += 1
    return w


@njit(cache=True, inline="always")
def _weighted_order_stat(sv, sq, w, rank, p, c):
    """Position of the ``rank``-th (0-based) value of the sample in which sorted value
    ``sv[i]`` appears ``w[sq[i]]`` times, walking from position ``p`` where ``c`` is the
    weight strictly before ``p``. Returns (position, weight before it)."""
    while c > rank:
        p -= 1
        c -= w[sq[p]]
    while c + w[sq[p]] <= rank:
        c += w[sq[p]]
        p += 1
    return p, c


@njit(cache=True)
def _resampled_median(sv, sq, below0, p0, w):
    total = 0
    c = 0
    for q in range(w.shape[0]):
        c += w[q] * below0[q, 0]
        total += w[q] * below0[q, 1]
    h = (total - 1) * 0.5
    lo = int(math.floor(h))
    p, c = _weighted_order_stat(sv, sq, w, lo, p0, c)
    v = sv[p]
    if h > lo:
        p2, _ = _weighted_order_stat(sv, sq, w, lo + 1, p, c)
        v = 0.5 * (v + sv[p2])
    return v


@njit(parallel=True, cache=True)
def _paired_median_ratio(sv_a, sq_a, below_a, p0_a, sv_b, sq_b, below_b, p0_b, seeds):
    """log(median of B's timings) - log(median of A's timings) when the queries are resampled
    with replacement (A and B together); each query keeps all its runs. The median of a
    resample is found in sorted order by walking from the observed median, so a resample
    costs O(queries + walk) instead of O(timings)."""
    nq = below_a.shape[0]
    R = seeds.shape[0]
    out = np.empty(R)
    for r in prange(R):
        w = draw_query_counts(seeds[r], nq)
        ma = _resampled_median(sv_a, sq_a, below_a, p0_a, w)
        mb = _resampled_median(sv_b, sq_b, below_b, p0_b, w)
        out[r] = math.log(mb) - math.log(ma)
    return out


def _sorted_index(values: np.ndarray, query_idx: np.ndarray, nq: int):
    """Sorted values, the query of each, and per query (#runs before the observed median's
    position, #runs), with that position."""
    order = np.argsort(values, kind="stable")
    sv, sq = values[order], query_idx[order].astype(np.int64)
    p0 = (sv.size - 1) // 2
    below = np.zeros((nq, 2), np.int64)
    below[:, 0] = np.bincount(sq[:p0], minlength=nq)
    below[:, 1] = np.bincount(sq, minlength=nq)
    return sv, sq, below, p0


# ----------------------------------------------------------------------------- statistics
def nested_bootstrap_quantiles(groups, probs, *, resamples: int = DEFAULT_QUANTILE_RESAMPLES,
                               seed: int = 0) -> np.ndarray:
    """Two-stage (nested) bootstrap distribution of pooled quantiles: (resamples, len(probs)).

    ``groups`` is a list of 1-D arrays, one per query (its repetitions). Each resample draws
    the queries with replacement, then each drawn query's repetitions with replacement from
    its own, and takes numpy's linear quantiles of everything drawn (Davison & Hinkley 1997,
    "Bootstrap Methods and their Application", sec. 3.8; resampling at both stages errs on the
    wide side). With one repetition per query it is the ordinary bootstrap of the quantile
    (Efron & Tibshirani 1993), equal in distribution to ``scipy.stats.bootstrap``'s.
    """
    if not isinstance(groups, (list, tuple)) or len(groups) < 1:
        raise ValueError("groups must be a non-empty list of 1-D arrays")
    arrays = [np.asarray(g, dtype=float) for g in groups]
    if any(a.ndim != 1 or a.size == 0 or not np.all(np.isfinite(a)) for a in arrays):
        raise ValueError("groups must be non-empty 1-D arrays of finite numbers")
    p = np.asarray(probs, dtype=float).ravel()
    if p.size == 0 or np.any((p < 0) | (p > 1)):
        raise ValueError(f"probs must be numbers in [0, 1], got {probs!r}")
    k = np.array([a.size for a in arrays], np.int64)
    values = np.concatenate(arrays)
    order = np.argsort(values, kind="stable")
    sv, sq = values[order], np.repeat(np.arange(k.size), k)[order]
    starts = np.floor((sv.size - 1) * p).astype(np.int64)
    below = np.stack([np.bincount(sq[:s], minlength=k.size) for s in starts]).astype(np.int64)
    seeds = (resample_seeds(seed, resamples) >> np.uint64(33)).astype(np.int64)
    return _nested_walk(sv, sq.astype(np.int64), k, starts, below, p, seeds)


def paired_median_ratio_bootstrap(a_values, a_query, b_values, b_query, nq: int, *,
                                  resamples: int = DEFAULT_RESAMPLES, seed: int = 0):
    """Observed log(median B / median A) of all timings and its paired bootstrap
    distribution, resampling the ``nq`` queries with replacement (both methods' timings of a
    drawn query go in together; Efron & Tibshirani 1993, ch. 6, for clustered data). ``*_query``
    gives each timing's query index in [0, nq)."""
    a, b = np.asarray(a_values, float), np.asarray(b_values, float)
    qa, qb = np.asarray(a_query, np.int64), np.asarray(b_query, np.int64)
    if a.shape != qa.shape or b.shape != qb.shape or a.size == 0 or b.size == 0:
        raise ValueError("values and query indices must be non-empty and of equal length")
    if nq < 1 or qa.min() < 0 or qb.min() < 0 or qa.max() >= nq or qb.max() >= nq:
        raise ValueError(f"query indices must lie in [0, nq={nq})")
    if np.any(a <= 0) or np.any(b <= 0):
        raise ValueError("latencies must be above 0")
    ia, ib = _sorted_index(a, qa, nq), _sorted_index(b, qb, nq)
    dist = _paired_median_ratio(*ia, *ib, resample_seeds(seed, resamples))
    return float(np.log(np.median(b)) - np.log(np.median(a))), dist


def bimodality(log_values) -> tuple[float, float, float, float, float]:
    """Is a distribution of log latencies two clumps? Returns (bimodality coefficient,
    Ashman's D, share of the fast clump, geometric mean of the fast clump, of the slow one).

    The split is the threshold minimising the within-clump squared error (Otsu's 1979
    two-class criterion, exact over every cut of the sorted values), and Ashman's D = sqrt(2)
    |mu1 - mu2| / sqrt(s1^2 + s2^2) of the two clumps (Ashman, Bird & Zepf 1994). D > 2 means
    separated components for fitted mixtures; the two halves of a split single normal already
    give D = 2.7 and of a uniform 3.5, so the checks here ask for D >= 3.5;
    the sample bimodality coefficient BC = (g^2 + 1) / (k + 3 (n-1)^2 / ((n-2)(n-3))) with g
    the skewness and k the excess kurtosis (bias-corrected) exceeds 5/9 for bimodal shapes
    (SAS; Pfister et al. 2013).
    """
    x = np.sort(np.asarray(log_values, dtype=float))
    n = x.size
    if n < 10:
        return 0.0, 0.0, 0.0, float("nan"), float("nan")
    from scipy import stats as _st
    g = _st.skew(x, bias=False)
    k = _st.kurtosis(x, bias=False)
    bc = float((g * g + 1) / (k + 3 * (n - 1) ** 2 / ((n - 2) * (n - 3))))
    cs, cs2 = np.cumsum(x), np.cumsum(x * x)
    i = np.arange(1, n)  # left clump = first i values
    left_ss = cs2[:-1] - cs[:-1] ** 2 / i
    right_ss = (cs2[-1] - cs2[:-1]) - (cs[-1] - cs[:-1]) ** 2 / (n - i)
    cut = int(np.argmin(left_ss + right_ss)) + 1
    lo, hi = x[:cut], x[cut:]
    var = lo.var() + hi.var()
    d = float(math.sqrt(2) * abs(hi.mean() - lo.mean()) / math.sqrt(var)) if var > 0 \
        else float("inf")
    return bc, d, cut / n, float(np.exp(lo.mean())), float(np.exp(hi.mean()))


def run_matrix(groups) -> np.ndarray:
    """Per-query runs as rows of a (queries x max runs) matrix, NaN-padded on the right."""
    width = max(len(g) for g in groups)
    m = np.full((len(groups), width), np.nan)
    for i, g in enumerate(groups):
        m[i, :len(g)] = g
    return m


def _best_split(profile: np.ndarray, weight: np.ndarray, max_k: int) -> tuple[int, float]:
    """The k in 1..max_k maximising the weighted between-segment sum of squares of
    ``profile[:k]`` vs ``profile[k:]`` (equivalently minimising the within-segment squared
    error) among splits whose first segment is slower; (0, 0.0) if none is."""
    best_k, best = 0, 0.0
    for k in range(1, max_k + 1):
        w1, w2 = weight[:k].sum(), weight[k:].sum()
        m1 = (weight[:k] * profile[:k]).sum() / w1
        m2 = (weight[k:] * profile[k:]).sum() / w2
        stat = w1 * w2 / (w1 + w2) * (m1 - m2) ** 2 if m1 > m2 else 0.0
        if stat > best:
            best_k, best = k, stat
    return best_k, best


@dataclass(frozen=True)
class WarmupCheck:
    """Warm-up of one method: the changepoint ``k`` on the run index (0 = none found), how
    much slower runs 1..k are than the rest (geometric-mean ratio), the permutation p, and
    the geometric mean latency at each run index (``profile``, ms) with its query count."""

    method: str
    k: int
    slowdown: float
    p_value: float | None
    profile: tuple[float, ...]
    counts: tuple[int, ...]

    @property
    def detected(self) -> bool:
        return self.k > 0

    def to_dict(self) -> dict:
        return {"method": self.method, "k": self.k, "slowdown": self.slowdown,
                "p_value": self.p_value, "profile": list(self.profile),
                "counts": list(self.counts)}


def detect_warmup(groups, *, method: str = "", permutations: int = WARMUP_PERMUTATIONS,
                  alpha: float = WARMUP_ALPHA, min_slowdown: float = WARMUP_MIN_SLOWDOWN,
                  seed: int = 0) -> WarmupCheck:
    """Changepoint on the run index: are the first k runs of each query slower than the rest?

    ``groups`` holds each query's latencies in run order. The profile is the mean log latency
    at each run index over the queries that have it (run indexes kept while at least half the
    queries reach them). The split k (1 <= k <= runs/2) minimises the within-segment squared
    error (a two-segment least-squares changepoint; Hinkley 1970) among splits whose first
    segment is slower. It is accepted only when the first k runs are at least
    ``min_slowdown`` times slower (geometric means) and a permutation test that shuffles the
    run order within every query and repeats the whole search gives p < ``alpha``
    (p = (1 + #{stat* >= stat}) / (1 + permutations); Phipson & Smyth 2010).
    """
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    if not min_slowdown >= 1:
        raise ValueError(f"min_slowdown must be >= 1, got {min_slowdown!r}")
    m = np.log(run_matrix([np.asarray(g, float) for g in groups]))
    counts_all = np.sum(~np.isnan(m), axis=0)
    runs = int(np.sum(counts_all >= max(2, 0.5 * m.shape[0])))
    counts = counts_all[:runs]
    with np.errstate(invalid="ignore"):
        profile = np.nanmean(m[:, :runs], axis=0) if runs else np.array([])
    geo = tuple(float(v) for v in np.exp(profile))
    cnt = tuple(int(c) for c in counts)
    max_k = runs // 2
    if runs < 3 or max_k < 1:
        return WarmupCheck(method, 0, 1.0, None, geo, cnt)
    k, stat = _best_split(profile, counts.astype(float), max_k)
    if k == 0:
        return WarmupCheck(method, 0, 1.0, None, geo, cnt)
    slow = float(np.exp(np.average(profile[:k], weights=counts[:k])
                        - np.average(profile[k:], weights=counts[k:])))
    if slow < min_slowdown:  # could never be accepted: skip the permutations
        return WarmupCheck(method, 0, slow, None, geo, cnt)
    rng = np.random.default_rng(seed)
    valid = ~np.isnan(m)
    full = bool(valid.all())
    exceed = 0
    for _ in range(checks.resamples(permutations)):
        if full:
            perm = rng.permuted(m, axis=1)
        else:
            keys = rng.random(m.shape)
            keys[~valid] = np.inf  # runs are contiguous from index 0: padding stays right
            perm = np.take_along_axis(m, np.argsort(keys, axis=1), axis=1)
        pprof = np.nanmean(perm[:, :runs], axis=0)
        if _best_split(pprof, counts.astype(float), max_k)[1] >= stat - 1e-12:
            exceed += 1
    p = (1 + exceed) / (1 + permutations)
    accepted = slow >= min_slowdown and p < alpha
    return WarmupCheck(method, k if accepted else 0, slow, p, geo, cnt)


# ----------------------------------------------------------------------------- results
@dataclass(frozen=True)
class MethodLatency:
    """One method's timings on the paired queries: pooled median and p95 (ms) with nested
    bootstrap CIs."""

    name: str
    median: float
    median_ci: tuple[float, float]
    p95: float
    p95_ci: tuple[float, float]
    n_queries: int
    n_runs: int

    def to_dict(self) -> dict:
        return {"median": self.median, "median_ci": list(self.median_ci), "p95": self.p95,
                "p95_ci": list(self.p95_ci), "n_queries": self.n_queries, "n_runs": self.n_runs}


@dataclass(frozen=True)
class RatioEstimate:
    """B/A latency ratios with paired bootstrap CIs over queries (below 1: B is faster)."""

    median_ratio: float
    ci_low: float
    ci_high: float
    geo_mean_ratio: float
    geo_ci_low: float
    geo_ci_high: float
    randomization_p: float
    confidence: float
    resamples: int
    seed: int
    n_queries: int
    drop_warmup: int
    geo_distribution: np.ndarray = field(repr=False)

    @property
    def verdict(self) -> str:
        return speed_verdict(self.geo_ci_low, self.geo_ci_high, self.randomization_p,
                             self.confidence)

    def to_dict(self) -> dict:
        return {"median_ratio": self.median_ratio, "ci_low": self.ci_low,
                "ci_high": self.ci_high, "geo_mean_ratio": self.geo_mean_ratio,
                "geo_ci_low": self.geo_ci_low, "geo_ci_high": self.geo_ci_high,
                "randomization_p": self.randomization_p, "confidence": self.confidence,
                "resamples": self.resamples, "seed": self.seed, "n_queries": self.n_queries,
                "drop_warmup": self.drop_warmup, "verdict": self.verdict}


def speed_verdict(ci_low: float, ci_high: float, p_value: float, confidence: float) -> str:
    """``b_faster`` when the CI of the ratio B/A lies below 1 *and* the randomization p is
    below 1 - confidence; ``a_faster`` when it lies above 1 with the same p; else
    ``no_difference``. Requiring both keeps the verdict from overclaiming."""
    confidence = checks.confidence(confidence)
    if p_value >= 1 - confidence:
        return "no_difference"
    if ci_high < 1:
        return "b_faster"
    if ci_low > 1:
        return "a_faster"
    return "no_difference"


@dataclass(frozen=True)
class FairnessWarning:
    """One fairness problem, as an i18n code (``latency.warn_<code>``) and its evidence."""

    code: str
    params: dict

    def message(self, lang: str = "en") -> str:
        return t(f"latency.warn_{self.code}", lang, **self.params)

    def to_dict(self) -> dict:
        return {"code": self.code, "message": self.message("en"), **self.params}


@dataclass(frozen=True)
class LatencyPlan:
    """Queries needed for a CI of the geometric-mean ratio within +/-``target`` (5 %)."""

    target: float
    sd_log_ratio: float
    sd_between: float
    sd_within: float
    runs: float
    n_queries: int
    n_queries_double_runs: int
    n_queries_floor: int
    current_half_width: float

    def to_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


@dataclass(frozen=True)
class PerQuery:
    """Each paired query's median latency (ms) for A and B, its number of runs and its
    B/A ratio (for tables and the per-query ratio chart)."""

    queries: tuple[str, ...]
    median_a: np.ndarray = field(repr=False)
    median_b: np.ndarray = field(repr=False)
    runs_a: np.ndarray = field(repr=False)
    runs_b: np.ndarray = field(repr=False)

    @property
    def ratio(self) -> np.ndarray:
        return self.median_b / self.median_a

    def frame(self) -> pd.DataFrame:
        return pd.DataFrame({"query_id": list(self.queries), "median_a_ms": self.median_a,
                             "median_b_ms": self.median_b, "runs_a": self.runs_a,
                             "runs_b": self.runs_b, "ratio_b_over_a": self.ratio})


@dataclass(frozen=True)
class LatencyComparison:
    """Everything the latency page shows for methods A and B."""

    source: str
    a: str
    b: str
    method_a: MethodLatency
    method_b: MethodLatency
    ratio: RatioEstimate
    per_query: PerQuery
    warmup: tuple[WarmupCheck, WarmupCheck]
    suggested_warmup: int
    alternative: RatioEstimate | None   # the verdict with the other warm-up choice
    warnings: tuple[FairnessWarning, ...]
    plan: LatencyPlan | None
    quantile_resamples: int
    distributions: dict = field(repr=False, default_factory=dict)  # method -> latencies (ms)

    @property
    def verdict(self) -> str:
        return self.ratio.verdict

    def to_dict(self) -> dict:
        return {"source": self.source, "a": self.a, "b": self.b,
                "methods": {self.a: self.method_a.to_dict(), self.b: self.method_b.to_dict()},
                "ratio": self.ratio.to_dict(),
                "warnings": [w.to_dict() for w in self.warnings],
                "verdict": self.verdict,
                "warmup": {"suggested_k": self.suggested_warmup,
                           "dropped": self.ratio.drop_warmup,
                           "methods": {w.method: w.to_dict() for w in self.warmup}},
                "alternative": None if self.alternative is None else self.alternative.to_dict(),
                "sample_size": None if self.plan is None else self.plan.to_dict(),
                "quantile_resamples": self.quantile_resamples}


# ----------------------------------------------------------------------------- analysis
def _groups(sub: pd.DataFrame, queries) -> list[np.ndarray]:
    """Each of ``queries``' latencies in run order (one sort, then slices)."""
    s = sub.sort_values(["query", "run"], kind="stable")
    qv, vals = s["query"].to_numpy(), s["latency_ms"].to_numpy(float)
    if qv.size == 0:
        raise KeyError("no timings")
    starts = np.concatenate([[0], np.flatnonzero(qv[1:] != qv[:-1]) + 1])
    ends = np.concatenate([starts[1:], [qv.size]])
    where = {qv[st]: (st, en) for st, en in zip(starts, ends)}
    return [vals[slice(*where[q])] for q in queries]


def _ratio(frame: pd.DataFrame, a: str, b: str, queries: list[str], *, resamples: int,
           confidence: float, seed: int, drop: int) -> tuple[RatioEstimate, PerQuery]:
    ga, gb = _groups(frame[frame["method"] == a], queries), \
        _groups(frame[frame["method"] == b], queries)
    med_a, med_b = _group_medians(ga), _group_medians(gb)
    log_a, log_b = np.log(med_a), np.log(med_b)
    geo = bootstrap_mean(log_b - log_a, resamples=resamples, confidence=confidence, seed=seed)
    p = randomization_p(log_b, log_a, resamples=resamples, seed=seed)
    nq = len(queries)
    qa = np.repeat(np.arange(nq), [g.size for g in ga])
    qb = np.repeat(np.arange(nq), [g.size for g in gb])
    obs, dist = paired_median_ratio_bootstrap(np.concatenate(ga), qa, np.concatenate(gb), qb,
                                              nq, resamples=resamples, seed=seed)
    lo, hi = percentile_ci(dist, confidence)
    est = RatioEstimate(float(np.exp(obs)), float(np.exp(lo)), float(np.exp(hi)),
                        float(np.exp(geo.mean)), float(np.exp(geo.ci_low)),
                        float(np.exp(geo.ci_high)), float(p), confidence, resamples, int(seed),
                        nq, drop, np.exp(geo.distribution))
    per = PerQuery(tuple(queries), med_a, med_b, np.array([g.size for g in ga]),
                   np.array([g.size for g in gb]))
    return est, per


def _group_medians(groups) -> np.ndarray:
    """numpy's median of every group, vectorised: sort within groups, average the middles."""
    k = np.array([g.size for g in groups])
    values = np.concatenate(groups)
    gid = np.repeat(np.arange(k.size), k)
    v = values[np.lexsort((values, gid))]
    start = np.concatenate([[0], np.cumsum(k)[:-1]])
    return 0.5 * (v[start + (k - 1) // 2] + v[start + k // 2])


def _paired_queries(frame: pd.DataFrame, a: str, b: str):
    method = frame["method"].to_numpy(dtype=object)
    query = frame["query"].to_numpy(dtype=object)
    qa = list(pd.unique(query[method == a]))
    qb = set(pd.unique(query[method == b]))
    sa = set(qa)
    paired = [q for q in qa if q in qb]
    only_a = [q for q in qa if q not in qb]
    only_b = sorted(q for q in qb if q not in sa)
    return paired, only_a, only_b


def _shown(items) -> str:
    items = list(items)
    more = f" (+{len(items) - MAX_SHOWN})" if len(items) > MAX_SHOWN else ""
    return ", ".join(str(i) for i in items[:MAX_SHOWN]) + more


def fmt_ms(x: float) -> str:
    """A latency in ms as shown: 3 significant digits below 100 ms, whole ms above."""
    return f"{x:.3g}" if x < 100 else f"{x:,.0f}"


def _fairness(log: TimingLog, frame: pd.DataFrame, a: str, b: str, per: PerQuery,
              warm: tuple[WarmupCheck, WarmupCheck], drop: int, only_a, only_b,
              dropped_queries) -> list[FairnessWarning]:
    out: list[FairnessWarning] = []
    for w in warm:
        if w.detected:
            out.append(FairnessWarning("warmup", {
                "method": w.method, "k": w.k, "slowdown": f"{w.slowdown:.2f}",
                "first": fmt_ms(float(np.mean(w.profile[:w.k]))) if w.profile else "",
                "rest": fmt_ms(float(np.mean(w.profile[w.k:]))) if w.profile else "",
                "p": f"{w.p_value:.3f}", "dropped": drop}))
    if log.layout == "long":
        oa = frame.loc[frame["method"] == a, "order"].to_numpy(float)
        ob = frame.loc[frame["method"] == b, "order"].to_numpy(float)
        basis = "timestamp" if log.has_timestamp else "row"
        for first, second, of, os_ in ((a, b, oa, ob), (b, a, ob, oa)):
            if of.size and os_.size and of.max() < os_.min():
                out.append(FairnessWarning("order", {
                    "first": first, "second": second, "n_first": int(of.size),
                    "n_second": int(os_.size), "basis": basis,
                    "first_range": f"{of.min():g}–{of.max():g}",
                    "second_range": f"{os_.min():g}–{os_.max():g}"}))
                break
    sub = frame[frame["method"].isin((a, b))]
    if log.has_cache and sub["cache"].notna().any():
        share = {m: float(sub.loc[sub["method"] == m, "cache"].mean()) for m in (a, b)}
        known = sub[sub["cache"].notna()]
        hits, misses = known[known["cache"] == 1], known[known["cache"] == 0]
        if abs(share[a] - share[b]) >= CACHE_MIN_SHARE or (
                len(hits) and len(misses) and min(share.values()) > 0):
            out.append(FairnessWarning("cache_column", {
                "a": a, "b": b, "share_a": f"{100 * share[a]:.0f}",
                "share_b": f"{100 * share[b]:.0f}",
                "hit_ms": fmt_ms(float(hits["latency_ms"].median())) if len(hits) else "–",
                "miss_ms": fmt_ms(float(misses["latency_ms"].median())) if len(misses) else "–"}))
    else:
        for m in (a, b):
            x = np.log(sub.loc[sub["method"] == m, "latency_ms"].to_numpy(float))
            bc, d, share, fast, slow = bimodality(x)
            if bc > BIMODALITY_COEFFICIENT and d >= CACHE_MIN_ASHMAN_D and \
                    CACHE_MIN_SHARE <= share <= 1 - CACHE_MIN_SHARE:
                out.append(FairnessWarning("bimodal", {
                    "method": m, "share": f"{100 * share:.0f}", "fast": fmt_ms(fast),
                    "slow": fmt_ms(slow), "d": f"{d:.1f}", "bc": f"{bc:.2f}"}))
    diff = per.runs_a != per.runs_b
    lo_runs = int(min(per.runs_a.min(), per.runs_b.min()))
    hi_runs = int(max(per.runs_a.max(), per.runs_b.max()))
    if not diff.any() and hi_runs > lo_runs:
        out.append(FairnessWarning("uneven_runs", {"min_runs": lo_runs, "max_runs": hi_runs}))
    if diff.any():
        idx = np.flatnonzero(diff)
        examples = [f"{per.queries[i]}: {per.runs_a[i]} vs {per.runs_b[i]}" for i in idx[:3]]
        out.append(FairnessWarning("unequal_runs", {
            "a": a, "b": b, "n_diff": int(diff.sum()), "n": len(per.queries),
            "min_runs": int(min(per.runs_a.min(), per.runs_b.min())),
            "max_runs": int(max(per.runs_a.max(), per.runs_b.max())),
            "examples": "; ".join(examples) if examples else "–"}))
    if only_a or only_b:
        out.append(FairnessWarning("unpaired", {
            "a": a, "b": b, "n_only_a": len(only_a), "n_only_b": len(only_b),
            "ids": _shown([*only_a, *only_b])}))
    if dropped_queries:
        out.append(FairnessWarning("warmup_emptied", {
            "k": drop, "n": len(dropped_queries), "ids": _shown(dropped_queries)}))
    if log.blank:
        out.append(FairnessWarning("blank", {"n": len(log.blank), "cells": _shown(log.blank)}))
    return out


def _plan(per: PerQuery, frame: pd.DataFrame, a: str, b: str, confidence: float,
          ratio: RatioEstimate) -> LatencyPlan | None:
    """Sakai's CI-based design on the per-query log ratios. The spread is split into a part
    between queries and a part from the runs: var(log ratio) ~ s_b^2 + (pi/2) s_w^2 / k with
    s_w^2 the pooled within-query variance of log latency of A plus B's and k the runs per
    query (the variance of a median of k near-normal values is about pi/2 sigma^2/k)."""
    d = np.log(per.ratio)
    if d.size < 3:
        return None
    sd = float(np.std(d, ddof=1))
    within = 0.0
    for m in (a, b):
        sub = frame[frame["method"] == m]
        logs = np.log(sub["latency_ms"].to_numpy(float))
        g = pd.Series(logs, index=sub.index).groupby(sub["query"].to_numpy())
        var = g.var(ddof=1).dropna()
        within += float(var.mean()) if len(var) else 0.0
    k = float(np.mean(np.concatenate([per.runs_a, per.runs_b])))
    between = max(0.0, sd ** 2 - math.pi / 2 * within / k)
    target = math.log(1 + TARGET_RATIO_HALF_WIDTH)

    def need(var: float) -> int:
        s = math.sqrt(var)
        return 2 if s <= 0 else n_continuous_ci(s, target, confidence)

    half = max(ratio.geo_ci_high / ratio.geo_mean_ratio, ratio.geo_mean_ratio / ratio.geo_ci_low)
    return LatencyPlan(TARGET_RATIO_HALF_WIDTH, sd, math.sqrt(between), math.sqrt(within), k,
                       need(sd ** 2), need(between + math.pi / 2 * within / (2 * k)),
                       need(between), half - 1)


def _check_method(log: TimingLog, name, role: str) -> str:
    if name not in log.methods:
        raise InputError("unknown_method", file=log.source, method=str(name),
                         methods=", ".join(log.methods))
    return name


def compare_latency(log: TimingLog, a: str, b: str, *, resamples: int = DEFAULT_RESAMPLES,
                    quantile_resamples: int = DEFAULT_QUANTILE_RESAMPLES,
                    confidence: float = 0.95, seed: int = 0,
                    drop_warmup: int = 0) -> LatencyComparison:
    """Compare the latency of ``a`` and ``b`` (see the module docstring).

    ``drop_warmup`` leaves out runs 1..k of every query and method. When warm-up is detected
    and none is dropped (or some is dropped), ``alternative`` holds the ratio and verdict with
    the other choice, so the page can show how the verdict changes.
    """
    if not isinstance(log, TimingLog):
        raise ValueError("log must be a TimingLog from load_timings")
    a, b = _check_method(log, a, "a"), _check_method(log, b, "b")
    if a == b:
        raise InputError("same_method", file=log.source, method=a)
    confidence = checks.confidence(confidence)
    resamples = checks.resamples(resamples)
    quantile_resamples = checks.resamples(quantile_resamples)
    if isinstance(drop_warmup, bool) or not isinstance(drop_warmup, (int, np.integer)) \
            or drop_warmup < 0:
        raise ValueError(f"drop_warmup must be a whole number >= 0, got {drop_warmup!r}")
    drop = int(drop_warmup)
    full = log.frame[log.frame["method"].isin((a, b))]
    paired_all, only_a, only_b = _paired_queries(full, a, b)
    if len(paired_all) < 2:
        raise InputError("too_few_paired", file=log.source, n=len(paired_all), a=a, b=b)
    warm = tuple(detect_warmup(_groups(full[full["method"] == m], paired_all), method=m,
                               seed=seed) for m in (a, b))
    suggested = max(w.k for w in warm)

    def analyse(k: int):
        kept = full[full["run"] > k]
        queries, _, _ = _paired_queries(kept, a, b)
        keep = set(queries)
        queries = [q for q in paired_all if q in keep]
        if len(queries) < 2:
            raise InputError("latency.err_drop_too_many", file=log.source, k=k,
                             n=len(queries))
        ratio, per = _ratio(kept, a, b, queries, resamples=resamples, confidence=confidence,
                            seed=seed, drop=k)
        return kept, queries, ratio, per

    kept, queries, ratio, per = analyse(drop)
    alternative = None
    if drop > 0:
        alternative = analyse(0)[2]
    elif suggested > 0:
        try:
            alternative = analyse(suggested)[2]
        except InputError:
            alternative = None
    qset = set(queries)
    kept = kept[kept["query"].isin(qset)]
    methods, dists = [], {}
    for i, m in enumerate((a, b)):
        groups = _groups(kept[kept["method"] == m], queries)
        allv = np.concatenate(groups)
        dist = nested_bootstrap_quantiles(groups, [0.5, 0.95], resamples=quantile_resamples,
                                          seed=seed + i)
        mlo, mhi = percentile_ci(dist[:, 0], confidence)
        plo, phi = percentile_ci(dist[:, 1], confidence)
        methods.append(MethodLatency(m, float(np.median(allv)), (mlo, mhi),
                                     float(np.quantile(allv, 0.95)), (plo, phi), len(queries),
                                     int(allv.size)))
        dists[m] = allv
    dropped_queries = [q for q in paired_all if q not in qset]
    warnings = _fairness(log, kept, a, b, per, warm, drop, only_a, only_b, dropped_queries)
    return LatencyComparison(log.source, a, b, methods[0], methods[1], ratio, per, warm,
                             suggested, alternative, tuple(warnings),
                             _plan(per, kept, a, b, confidence, ratio), quantile_resamples,
                             dists)
