"""Calibration bench (issue 19): do the intervals and the verdict keep their promise at 10-200
cases? Writes the tables to ``docs/calibration.md``; ``python bench/calibration.py [--quick]``.

(a) 0/1 outcomes, **exact** (no Monte-Carlo error for the closed-form intervals and the tests):
    every possible paired 2x2 table of n cases is enumerated and weighted by its multinomial
    probability, on the grid n in {10, 20, 31, 50, 100, 200}, p_A in {0.5, 0.7, 0.85, 0.95},
    discordance d in {5, 15, 30}% and a true difference B - A of 0 or d/3 (cells that no
    probability table can have are skipped). The bootstrap intervals (percentile, BCa: the
    seed's) are computed from 1,000 resamples per table. Also: the type-I error of the exact
    and mid-p McNemar tests, alone and inside the verdict, at every n from 10 to 200.
(b) scores, Monte-Carlo: sets of n in {10, 20, 30, 50} per-query differences drawn from
    (1) the shipped BEIR scifact BM25 vs dense nDCG@10 per query, centred, signs randomised;
    (2) the same, centred but not sign-flipped (its real skew); (3) Exp(1) - 1 (skewness 2).
    True mean 0; power at a true shift of half an SD. 2,000 sets x 2,000 resamples per cell.
    Intervals: the bootstrap ones, the t-interval, the skewness-corrected t-intervals of
    Johnson (1978) and Hall (1992), the hull of t and Hall's (``t_or_hall``), the t-interval
    widened symmetrically by the bootstrap (``sym_calibrated_t``) and tail by tail
    (``calibrated_t``, the default); also the verdict's sign-flip test alone.
(c) latency logs: 10 / 20 / 50 queries x 5 runs each, skewed per-query log ratios; the
    geometric-mean ratio (t-interval, Johnson's and Hall's skewness-corrected t vs the seed's
    percentile bootstrap; and the sign-flip test alone) and the ratio of
    medians (percentile vs expanded percentile of its paired bootstrap).
(d) the sample-size planner: does its n reach the target half-width with the default
    interval (exact for 0/1, 1,000 simulated sets for scores)?
(e) the self-check rule (``core.paired.calibration``): verdict type-I and power of the default with
    and without "a 'better' must survive the bootstrap-t test when a self-check warns", and
    how often a check warns (scifact with its real skew, Exp(1) - 1, normal; n = 10/20).

The verdict is the product's rule: "better" only when the interval excludes 0 (ends within
1e-12 of 0 count as 0) and the matching test has p < 1 - confidence.
"""
from __future__ import annotations

import functools
import math
import os
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats
from scipy.special import gammaln

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.paired.difference import paired_proportion_ci  # noqa: E402
from core.paired.intervals import (PAIRED_PROPORTION_METHODS, distribution_interval,  # noqa: E402
                                   score_intervals, side)
from core.latency.resample import paired_median_ratio_bootstrap  # noqa: E402
from core.paired.resampling import kernels  # noqa: E402
from core.paired.streams import stream_key  # noqa: E402
from bench.calibration_warning import (planner_rows, planner_shape_table,  # noqa: E402
                                       warning_block, warning_table)

CONF = 0.95
ALPHA = 1 - CONF
NS_BIN = (10, 20, 31, 50, 100, 200)
PA = (0.5, 0.7, 0.85, 0.95)
DISC = (0.05, 0.15, 0.30)
NS_SCORE = (10, 20, 30, 50)
NS_LAT = (10, 20, 50)
BOOT_BIN = 1_000
SCORE_METHODS = ("percentile", "bca", "expanded_percentile", "bootstrap_t", "t", "johnson_t",
                 "hall_t", "t_or_hall", "sym_calibrated_t", "calibrated_t", "calibrated_t_guard")
# bench-only candidates (issue 19): "t_or_hall" = the hull [min(lo_t, lo_hall), max(hi_t, hi_hall)]
# (candidate 1; as a verdict it is candidate 2, "t AND Hall's interval must both exclude 0");
# "sym_calibrated_t" = the t-interval widened symmetrically to the 95% quantile of |t*| of the
# centred resamples, never narrower (candidate 3 read symmetrically: Hall 1988, JRSS-B 50:35);
# "calibrated_t" = the same calibration tail by tail (candidate 3; the product's default for a
# method's own mean and the latency ratio); "calibrated_t_guard" = it with the skew guard of
# issue 36 (``score_intervals(..., skew_guard=True)``): the product's interval of B - A.
BENCH_ONLY = ("t_or_hall", "sym_calibrated_t", "calibrated_t_guard")
OUT = ROOT / "docs" / "calibration.md"


def intervals(x, means, sds, method):
    """``core.paired.intervals.score_intervals`` plus the bench-only candidates (``BENCH_ONLY``)."""
    if method == "t_or_hall":
        lt, ht = score_intervals(x, means, sds, CONF, "t")
        lh, hh = score_intervals(x, means, sds, CONF, "hall_t")
        return np.minimum(lt, lh), np.maximum(ht, hh)
    if method == "sym_calibrated_t":
        n = x.shape[1]
        xbar, se = x.mean(axis=1), x.std(axis=1, ddof=1) / math.sqrt(n)
        with np.errstate(divide="ignore", invalid="ignore"):
            tstar = np.where(sds > 0, (means - xbar[:, None]) / (sds / math.sqrt(n)), np.nan)
        crit = np.maximum(np.nanquantile(np.abs(tstar), CONF, axis=1),
                          stats.t.ppf(1 - ALPHA / 2, n - 1))
        return xbar - crit * se, xbar + crit * se
    if method == "calibrated_t_guard":
        return score_intervals(x, means, sds, CONF, "calibrated_t", skew_guard=True)
    return score_intervals(x, means, sds, CONF, method)


# ============================================================================ (a) 0/1 exact
def _pairs(n):
    """All (n12, n21) with n12 + n21 <= n."""
    i, j = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")
    keep = i + j <= n
    return i[keep], j[keep]


def _tables(n):
    """All (n11, n12, n21, n22), with the index of their (n12, n21) pair in ``_pairs(n)``."""
    b, c = _pairs(n)
    conc = n - b - c
    reps = conc + 1
    pair = np.repeat(np.arange(b.size), reps)
    starts = np.repeat(np.cumsum(reps) - reps, reps)
    n11 = np.arange(pair.size) - starts
    return n11, b[pair], c[pair], conc[pair] - n11, pair


def _log_multinomial(n, counts, probs):
    out = gammaln(n + 1)
    for k, p in zip(counts, probs):
        if p == 0:
            out = np.where(k > 0, -np.inf, out)
        else:
            out = out - gammaln(k + 1) + k * math.log(p)
    return out


def _mcnemar(b, c):
    m = b + c
    k = np.minimum(b, c)
    exact = np.minimum(1.0, 2 * stats.binom.cdf(k, m, 0.5))
    midp = exact - stats.binom.pmf(k, m, 0.5)
    exact = np.where(m == 0, 1.0, exact)
    midp = np.where(m == 0, 1.0, midp)
    return {"exact": exact, "midp": midp}


def _boot_pairs(n, b, c, rng):
    """Percentile and BCa intervals of (n12 - n21)/n per pair from the seed's cell bootstrap
    (1,000 resamples), through ``core.paired.intervals.score_intervals``."""
    lo = {"percentile": np.empty(b.size), "bca": np.empty(b.size)}
    hi = {"percentile": np.empty(b.size), "bca": np.empty(b.size)}
    chunk = max(1, 4_000_000 // (BOOT_BIN + n))
    for s in range(0, b.size, chunk):
        bb, cc = b[s:s + chunk], c[s:s + chunk]
        m = bb + cc
        disc = rng.binomial(n, (m / n)[:, None], size=(bb.size, BOOT_BIN))
        share = np.where(m > 0, bb / np.maximum(m, 1), 0.0)
        up = rng.binomial(disc, share[:, None])
        means = (2 * up - disc) / n
        vals = np.zeros((bb.size, n))
        idx = np.arange(n)[None, :]
        vals[idx < bb[:, None]] = 1.0
        vals[(idx >= bb[:, None]) & (idx < m[:, None])] = -1.0
        for meth in ("percentile", "bca"):
            l, h = score_intervals(vals, means, None, CONF, meth)
            lo[meth][s:s + chunk], hi[meth][s:s + chunk] = l, h
    return lo, hi


def binary_block(quick=False):
    rng = np.random.default_rng(0)
    methods = PAIRED_PROPORTION_METHODS + ("percentile", "bca")
    rows = []       # one per (n, pA, d, delta)
    for n in (NS_BIN[:3] if quick else NS_BIN):
        b, c = _pairs(n)
        n11, tb, tc, n22, pair = _tables(n)
        ci = {}
        for meth in PAIRED_PROPORTION_METHODS:
            if meth == "newcombe":
                ci[meth] = paired_proportion_ci(n11, tb, tc, n22, CONF, method=meth)
            else:
                ci[meth] = paired_proportion_ci(n - b - c, b, c, np.zeros_like(b), CONF,
                                                method=meth)
        blo, bhi = _boot_pairs(n, b, c, rng)
        for meth in ("percentile", "bca"):
            ci[meth] = (blo[meth], bhi[meth])
        tests = _mcnemar(b, c)
        for pa in PA:
            for d in DISC:
                for delta in (0.0, d / 3):
                    p12, p21 = (d + delta) / 2, (d - delta) / 2   # B only, A only
                    p11 = pa - p21
                    p22 = 1 - p11 - p12 - p21
                    if p11 < -1e-12 or p22 < -1e-12:
                        continue
                    p11, p22 = max(p11, 0.0), max(p22, 0.0)
                    wp = np.exp(_log_multinomial(n, (b, c, n - b - c), (p12, p21, p11 + p22)))
                    wt = np.exp(_log_multinomial(n, (n11, tb, tc, n22), (p11, p12, p21, p22)))
                    row = {"n": n, "pa": pa, "d": d, "delta": delta}
                    for meth in methods:
                        lo, hi = ci[meth]
                        w = wt if meth == "newcombe" else wp
                        row[f"cov_{meth}"] = float(np.sum(w * ((lo <= delta + 1e-12)
                                                               & (delta - 1e-12 <= hi))))
                        sgn = side(lo, hi)
                        for tname, p in tests.items():
                            pv = p[pair] if meth == "newcombe" else p
                            agree = (pv < ALPHA)
                            key = "t1" if delta == 0 else "pow"
                            hit = (sgn != 0) if delta == 0 else (sgn > 0)
                            row[f"{key}_{meth}_{tname}"] = float(np.sum(w * (hit & agree)))
                    for tname, p in tests.items():
                        row[f"test_{tname}"] = float(np.sum(wp * (p < ALPHA)))
                    rows.append(row)
    return rows


def test_sweep(quick=False):
    """Type-I error of the exact and mid-p McNemar tests alone and of the verdict with the
    Tango interval, at every n from 10 to 200, under a null with discordance 5/15/30%."""
    out = []
    for n in range(10, (60 if quick else 200) + 1):
        b, c = _pairs(n)
        tests = _mcnemar(b, c)
        sgn = side(*paired_proportion_ci(n - b - c, b, c, np.zeros_like(b), CONF,
                                         method="tango"))
        worst = {k: 0.0 for k in ("exact", "midp", "v_exact", "v_midp")}
        for d in DISC:
            w = np.exp(_log_multinomial(n, (b, c, n - b - c), (d / 2, d / 2, 1 - d)))
            for t, p in tests.items():
                worst[t] = max(worst[t], float(np.sum(w * (p < ALPHA))))
                worst["v_" + t] = max(worst["v_" + t],
                                      float(np.sum(w * ((p < ALPHA) & (sgn != 0)))))
        out.append((n, worst))
    return out


# ============================================================================ (b) scores
@functools.lru_cache(maxsize=2)
def scifact_tables(methods: tuple[str, ...] = ("bm25", "dense")):
    """Per-query metric tables of ``methods`` on BEIR scifact's judged test queries, through
    ``core.retrieval.scifact`` with the normal data, shipped vectors and cache locations
    (``NOISEFLOOR_BEIR_DIR``, ``data/beir/scifact.vectors.npy``, ``NOISEFLOOR_CACHE_DIR``):
    (tables, reason), or (None, the reason) when the document vectors are neither shipped nor
    cached: encoding 5,183 documents is not a benchmark's job. The benches share it."""
    from core.retrieval import beir
    from core.retrieval import search as retrieval
    from core.retrieval import scifact
    try:
        path, _ = beir.resolve_dir()
        if not beir.is_beir_dir(path):
            path = beir.ensure_default()
        data = beir.load_beir(path)
    except Exception as exc:  # noqa: BLE001 - a bench reports and goes on
        return None, f"scifact not available ({exc})"
    from core.retrieval import vectors
    _, model_key = retrieval.resolve_model(None)
    shipped = vectors.find_manifest(data.content_hash, model_key) is not None
    if not shipped and not retrieval.is_cached(data.texts, content_hash=data.content_hash):
        return None, (f"dense document vectors of scifact are neither shipped nor cached in "
                      f"{retrieval.CACHE_DIR} (set NOISEFLOOR_CACHE_DIR or run the scifact "
                      f"page once)")
    rankings = scifact.run_retrievers(data, list(methods))
    return scifact.evaluate(data, rankings), f"{len(data.queries)} judged test queries"


def scifact_differences():
    """Per-query nDCG@10 of dense minus BM25 on scifact (``scifact_tables``), or None with
    the reason."""
    tables, why = scifact_tables(("bm25", "dense"))
    if tables is None:
        return None, why
    d = (tables["dense"]["ndcg@10"] - tables["bm25"]["ndcg@10"]).to_numpy(float)
    return d, f"{d.size} judged test queries, mean dense - BM25 = {d.mean():+.4f}"


_RAW = {}


def score_pop_raw():
    """The real scifact differences as they are (ties at 0), loaded once; None without them."""
    if "d" not in _RAW:
        _RAW["d"] = scifact_differences()[0]
    return _RAW["d"]


def _signflip_p(x, signs):
    """Monte-Carlo sign-flip p of each row of x (shared sign matrix; Phipson & Smyth 2010)."""
    obs = np.abs(x.sum(axis=1))
    null = np.abs(x @ signs.T)
    tol = 1e-12 * np.maximum(1.0, np.abs(x).sum(axis=1))
    return (1 + np.sum(null >= (obs - tol)[:, None], axis=1)) / (1 + signs.shape[0])


def score_cell(pop, n, sets, resamples, rng, *, signflip: bool, shift_sd: float = 0.5,
               methods=SCORE_METHODS):
    """Null rejection, verdict type-I and power (shift of ``shift_sd`` population SDs) of each
    interval on ``sets`` draws of n values from the mean-zero population ``pop``."""
    x = rng.choice(pop, size=(sets, n))
    if signflip:
        x = x * rng.choice([-1.0, 1.0], size=x.shape)
    shift = shift_sd * float(np.std(pop))
    signs = rng.choice([-1.0, 1.0], size=(1999, n))
    p0 = _signflip_p(x, signs)
    p1 = _signflip_p(x + shift, signs)
    res = {m: {"rej": 0, "t1": 0, "pow": 0} for m in methods}
    res["sign-flip test alone"] = {"rej": int(np.sum(p0 < ALPHA)), "t1": int(np.sum(p0 < ALPHA)),
                                   "pow": int(np.sum(p1 < ALPHA))}
    scale = np.max(np.abs(x), axis=1)
    for s in range(0, sets, 500):
        xs = np.ascontiguousarray(x[s:s + 500])
        boot = kernels().bootstrap_sets(xs, stream_key(s + 1), resamples)
        for m in methods:
            lo, hi = intervals(xs, boot[0], boot[1], m)
            sg0 = side(lo, hi, scale[s:s + 500])
            sg1 = side(lo + shift, hi + shift, scale[s:s + 500] + shift)
            res[m]["rej"] += int(np.sum(sg0 != 0))
            res[m]["t1"] += int(np.sum((sg0 != 0) & (p0[s:s + 500] < ALPHA)))
            res[m]["pow"] += int(np.sum((sg1 > 0) & (p1[s:s + 500] < ALPHA)))
    return {m: {k: v / sets for k, v in r.items()} for m, r in res.items()}


def rule_cell(pop, n, sets, rng, *, signflip: bool, shift_sd: float = 0.5, alt_checks=250):
    """The self-check rule on the default interval (``core.paired.calibration.calibrate_scores``,
    the product's own 1,000 + 1,000 null sets): verdict type-I and power before and after
    the rule ("better" must survive the bootstrap-t test when a check warns), and how often a
    check warns. The checks run only where the verdict before the rule says "better" (the
    rule can only take a "better" away): every such null set, and ``alt_checks`` of the
    alternative's (power after = power before x the share of them that survive)."""
    from core.paired.calibration import calibrate_scores
    x = rng.choice(pop, size=(sets, n))
    if signflip:
        x = x * rng.choice([-1.0, 1.0], size=x.shape)
    shift = shift_sd * float(np.std(pop))
    signs = rng.choice([-1.0, 1.0], size=(1999, n))
    out = {}
    for name, data, p in (("null", x, _signflip_p(x, signs)),
                          ("alt", x + shift, _signflip_p(x + shift, signs))):
        boot = kernels().bootstrap_sets(np.ascontiguousarray(data), stream_key(n), 1000)
        lo, hi = score_intervals(data, boot[0], boot[1], CONF, "calibrated_t", skew_guard=True)
        sg = side(lo, hi, np.max(np.abs(data), axis=1))
        better = np.flatnonzero(((sg > 0) if name == "alt" else (sg != 0)) & (p < ALPHA))
        picked = better if name == "null" else better[:alt_checks]
        warn = keep = 0
        for i in picked:
            cal = calibrate_scores(data[i], interval="calibrated_t", seed=int(i))
            warn += cal.warns
            keep += cal.survives
        share = keep / max(picked.size, 1)
        out[name] = {"before": better.size / sets, "after": better.size / sets * share,
                     "warned": warn / max(picked.size, 1), "checked": int(picked.size)}
    return out


def rule_block(quick=False):
    rng = np.random.default_rng(5)
    sets = 300 if quick else 1000
    pops = {}
    d, _ = scifact_differences()
    if d is not None:
        nz = d != 0   # centred with the ties kept at 0 (core.paired.calibration.null_centred)
        pops["scifact, real (ties kept at 0)"] = (np.where(nz, d - d.sum() / nz.sum(), 0.0),
                                                  False)
    pops["Exp(1) - 1 (skewness 2)"] = (rng.exponential(size=200_000) - 1.0, False)
    pops["normal"] = (rng.normal(size=200_000), False)
    return {(name, n): rule_cell(pop, n, sets, rng, signflip=flip,
                                 alt_checks=40 if quick else 80)
            for name, (pop, flip) in pops.items() for n in (10, 20)}


def rule_table(out):
    lines = ["### (e) the self-check rule: verdict type-I and power before / after", "",
             "Default interval of B - A (calibrated t with the skew guard). \"After\": a \"better\" also needs the "
             "studentized bootstrap test on the centred resamples (p < 0.05) whenever the "
             "self-checks (1,000 sign-flip and 1,000 centred-resample null sets, the product's "
             "own `core.paired.calibration.calibrate_scores`) warn (`Calibration.warns`, the rule of "
             "the table below). \"Warned\": share of the sets the rule looked at "
             "(those whose verdict said \"better\") on which a check warned. 1,000 sets per "
             "cell (Monte-Carlo SE of a 5% rate 0.7%); power at 0.5 SD from up to 80 checked "
             "sets (the cost: two sets of 1,000 null sets each, with a bootstrap inside).", "",
             "| data | n | type-I before | type-I after | warned (null) | power before | "
             "power after | warned (alternative) |", "|---|---|---|---|---|---|---|---|"]
    for (name, n), r in out.items():
        lines.append(f"| {name} | {n} | {_pct(r['null']['before'])} | "
                     f"{_pct(r['null']['after'])} | {_pct(r['null']['warned'])} "
                     f"({r['null']['checked']} sets) | {_pct(r['alt']['before'])} | "
                     f"{_pct(r['alt']['after'])} | {_pct(r['alt']['warned'])} |")
    return lines + [""]


def scores_block(quick=False):
    rng = np.random.default_rng(1)
    sets, resamples = (400, 500) if quick else (2000, 2000)
    pops = {}
    d, note = scifact_differences()
    if d is not None:
        centred = d - d.mean()
        pops["scifact, centred, signs randomised"] = (centred, True)
        pops["scifact, centred (real skew)"] = (centred, False)
    pops["Exp(1) - 1 (skewness 2)"] = (rng.exponential(size=200_000) - 1.0, False)
    out = {}
    for name, (pop, flip) in pops.items():
        for n in NS_SCORE:
            out[(name, n)] = score_cell(pop, n, sets, resamples, rng, signflip=flip)
    return out, note, sets, resamples, (None if d is None else d - d.mean())


# ============================================================================ (c) latency
def _latency_sets(nq, sets, runs, mu, rng):
    """``sets`` simulated logs of nq queries x ``runs`` runs per method: base latency
    lognormal(log 40 ms, 0.6), per-query true log ratio mu + 0.25 (Exp(1) - 1) (skewed),
    run noise lognormal(0, 0.15) with one slow outlier run in 10%."""
    base = rng.lognormal(math.log(40), 0.6, size=(sets, nq))
    r = mu + 0.25 * (rng.exponential(size=(sets, nq)) - 1.0)

    def runs_of(scale):
        noise = rng.normal(0, 0.15, size=(sets, nq, runs))
        spike = rng.random((sets, nq, runs)) < 0.1
        return scale[..., None] * np.exp(noise + np.where(spike, 0.7, 0.0))

    return runs_of(base), runs_of(base * np.exp(r))


def _true_median_ratio(mu, runs, rng):
    a, b = _latency_sets(200_000, 1, runs, mu, rng)
    return float(np.median(b) / np.median(a))


def latency_block(quick=False):
    """Geometric-mean ratio on ``geo_sets`` simulated logs per cell (closed forms and one
    bootstrap per set, vectorised: Monte-Carlo SE of a 5% rate 0.4% at 3,000 sets); the
    ratio of medians' own bootstrap on the first ``sets`` of them (a loop per set)."""
    rng = np.random.default_rng(2)
    (geo_sets, sets, resamples), runs = ((400, 200, 500) if quick else (3000, 800, 1000)), 5
    out = {}
    truth = {mu: _true_median_ratio(mu, runs, rng) for mu in (0.0, math.log(0.9))}
    geo_methods = ("percentile", "expanded_percentile", "bootstrap_t", "t", "johnson_t",
                   "hall_t", "t_or_hall", "sym_calibrated_t", "calibrated_t")
    for nq in NS_LAT:
        res = {k: {"cov": 0, "t1": 0, "pow": 0} for k in
               [f"geo: {m}" for m in geo_methods] + ["median: percentile",
                                                      "median: expanded_percentile",
                                                      "sign-flip test alone"]}
        for mu in (0.0, math.log(0.9)):
            a, b = _latency_sets(nq, geo_sets, runs, mu, rng)
            L = np.log(np.median(b, axis=2)) - np.log(np.median(a, axis=2))
            signs = rng.choice([-1.0, 1.0], size=(1999, nq))
            p = _signflip_p(L, signs)
            boot = kernels().bootstrap_sets(np.ascontiguousarray(L), stream_key(7), resamples)
            for m in geo_methods:
                lo, hi = intervals(L, boot[0], boot[1], m)
                _tally(res[f"geo: {m}"], lo, hi, mu, p, mu == 0.0, geo_sets)
            # the test alone: an interval that always excludes 0 on the side of the data
            sgn_mean = np.sign(L.mean(axis=1))
            _tally(res["sign-flip test alone"], np.where(sgn_mean < 0, -np.inf, 1.0),
                   np.where(sgn_mean < 0, -1.0, np.inf), mu, p, mu == 0.0, geo_sets)
            qa = np.repeat(np.arange(nq), runs)
            mlo = {m: np.empty(sets) for m in ("percentile", "expanded_percentile")}
            mhi = {m: np.empty(sets) for m in ("percentile", "expanded_percentile")}
            for s in range(sets):
                _, dist = paired_median_ratio_bootstrap(a[s].ravel(), qa, b[s].ravel(), qa, nq,
                                                        resamples=resamples, seed=s)
                for m in mlo:
                    mlo[m][s], mhi[m][s] = distribution_interval(dist, nq, CONF, method=m)
            for m in mlo:
                _tally(res[f"median: {m}"], mlo[m], mhi[m], math.log(truth[mu]), p[:sets],
                       mu == 0.0, sets)
        out[nq] = res
    return out, truth, (geo_sets, sets)


def _tally(acc, lo, hi, true, p, null, sets):
    """Add this half's shares (coverage averaged over null and alternative)."""
    acc["cov"] += np.mean((lo <= true) & (true <= hi)) / 2
    sgn = side(lo, hi)
    if null:
        acc["t1"] += np.mean((sgn != 0) & (p < ALPHA))
    else:
        acc["pow"] += np.mean((sgn < 0) & (p < ALPHA))


# ============================================================================ (d) planner
PLANS = ((0.2, 0.03, 0.05), (0.1, 0.0, 0.03), (0.3, 0.1, 0.08), (0.05, 0.02, 0.04))


def planner_block(score_pop=None, quick=False):
    """Does the planned n reach the target half-width? 0/1: the planner's n
    (``core.planning.sample_size.n_paired_ci``) and the exact mean half-width of the default interval
    (Tango) over every table of that n. Scores: Sakai's n (``n_continuous_ci``) for the SD of
    the population and the simulated mean half-width of the t-interval and of the default
    calibrated t-interval at that n."""
    from core.paired.difference import tango_limits
    from core.paired.intervals import z_two_sided
    from core.planning.sample_size import n_continuous_ci, n_paired_ci
    rows = []
    z = z_two_sided(CONF)
    for d, delta, e in PLANS[:2] if quick else PLANS:
        n = n_paired_ci(d, delta, e, CONF)
        b, c = _pairs(n)
        w = np.exp(_log_multinomial(n, (b, c, n - b - c), ((d + delta) / 2, (d - delta) / 2,
                                                           1 - d)))
        lo, hi = tango_limits(b, c, n, z)
        rows.append(("0/1", f"discordance {d:g}, B - A {delta:+g}", e, n,
                     float(np.sum(w * (hi - lo) / 2))))
    rng = np.random.default_rng(4)
    pops = {"Exp(1) - 1": rng.exponential(size=200_000) - 1.0}
    if score_pop is not None:
        pops["scifact"] = score_pop
    for name, pop in pops.items():
        sd = float(np.std(pop))
        for e in (0.5 * sd, 0.25 * sd):
            n = n_continuous_ci(sd, e, CONF)
            x = rng.choice(pop, size=(1000, n))
            boot = kernels().bootstrap_sets(np.ascontiguousarray(x), stream_key(n), 1000)
            for m in ("t", "calibrated_t"):
                lo, hi = score_intervals(x, boot[0], boot[1], CONF, m)
                rows.append(("scores", f"{name} (SD {sd:.3f}), {m}", e, n,
                             float(np.mean(hi - lo) / 2)))
    return rows


def planner_table(rows):
    lines = ["### (d) sample-size planner: planned n and the mean half-width it reaches", "",
             "| data | design | target half-width | planned n | mean half-width at n |",
             "|---|---|---|---|---|"]
    for kind, what, e, n, half in rows:
        lines.append(f"| {kind} | {what} | {e:.4f} | {n:,} | {half:.4f} |")
    return lines + [""]


# ============================================================================ report
def _pct(x):
    return f"{100 * x:.1f}%"


def binary_tables(rows, sweep):
    methods = PAIRED_PROPORTION_METHODS + ("percentile", "bca")
    lines = ["### (a) 0/1 outcomes: coverage of B - A (exact over all tables)", "",
             "Mean / lowest coverage over the feasible grid cells (p_A x discordance x true "
             "difference 0 or d/3) at each n, and over the whole grid.", "",
             "| n | " + " | ".join(methods) + " |", "|---|" + "---|" * len(methods)]
    ns = sorted({r["n"] for r in rows})
    for n in ns + ["all"]:
        sub = [r for r in rows if n == "all" or r["n"] == n]
        cells = []
        for m in methods:
            v = np.array([r[f"cov_{m}"] for r in sub])
            cells.append(f"{_pct(v.mean())} / {_pct(v.min())}")
        lines.append(f"| {n} | " + " | ".join(cells) + " |")
    lines += ["", "Null (true difference 0): largest share of sets where the interval alone "
              "leaves out 0, and the verdict's type-I error (interval AND test) with the "
              "exact / the mid-p McNemar test, worst cell at each n.", "",
              "| n | " + " | ".join(f"{m}: interval / verdict exact / verdict mid-p"
                                    for m in ("tango", "newcombe", "percentile", "bca"))
              + " |", "|---|" + "---|" * 4]
    for n in ns:
        sub = [r for r in rows if r["n"] == n and r["delta"] == 0]
        cells = []
        for m in ("tango", "newcombe", "percentile", "bca"):
            rej = max(1 - r[f"cov_{m}"] for r in sub)
            ex = max(r[f"t1_{m}_exact"] for r in sub)
            mp = max(r[f"t1_{m}_midp"] for r in sub)
            cells.append(f"{_pct(rej)} / {_pct(ex)} / {_pct(mp)}")
        lines.append(f"| {n} | " + " | ".join(cells) + " |")
    lines += ["", "Power of the verdict at a true difference of d/3 (mean over the grid "
              "cells), before (percentile + exact McNemar, the seed) and after "
              "(Tango + exact, Tango + mid-p, Newcombe + mid-p).", "",
              "| n | percentile + exact | tango + exact | tango + mid-p | newcombe + mid-p |",
              "|---|---|---|---|---|"]
    for n in ns:
        sub = [r for r in rows if r["n"] == n and r["delta"] > 0]
        cells = [np.mean([r[k] for r in sub]) for k in
                 ("pow_percentile_exact", "pow_tango_exact", "pow_tango_midp",
                  "pow_newcombe_midp")]
        lines.append(f"| {n} | " + " | ".join(_pct(c) for c in cells) + " |")
    worst = {k: max(w[k] for _, w in sweep) for k in ("exact", "midp", "v_exact", "v_midp")}
    at = {k: max(sweep, key=lambda t: t[1][k])[0] for k in worst}
    lines += ["", f"Mid-p vs exact McNemar at every n from {sweep[0][0]} to {sweep[-1][0]} "
              "(null, discordance 5/15/30%, exact): largest type-I error of the test alone "
              f"exact {_pct(worst['exact'])} (n = {at['exact']}), mid-p {_pct(worst['midp'])} "
              f"(n = {at['midp']}); of the verdict with the Tango interval: exact "
              f"{_pct(worst['v_exact'])}, mid-p {_pct(worst['v_midp'])} "
              f"(n = {at['v_midp']}).", ""]
    return lines, worst


def score_tables(out, note, sets, resamples):
    se = math.sqrt(0.05 * 0.95 / sets)
    lines = ["### (b) scores: null rejection of the interval / verdict type-I / power at 0.5 SD",
             "", f"Real data: {note}. {sets:,} sets per cell, {resamples:,} resamples per set; "
             f"Monte-Carlo SE of a 5% rate {_pct(se)} (of 95% coverage the same).", "",
             "The last column is the verdict's sign-flip test alone (no interval): its share of "
             "p < 0.05 under the null, repeated, and its power.", "",
             "| data | n | " + " | ".join(SCORE_METHODS + ("sign-flip test alone",)) + " |",
             "|---|---|" + "---|" * (len(SCORE_METHODS) + 1)]
    for (name, n), res in out.items():
        cells = [f"{_pct(res[m]['rej'])} / {_pct(res[m]['t1'])} / {_pct(res[m]['pow'])}"
                 for m in SCORE_METHODS + ("sign-flip test alone",)]
        lines.append(f"| {name} | {n} | " + " | ".join(cells) + " |")
    return lines + [""]


def latency_tables(out, truth, counts):
    keys = list(next(iter(out.values())).keys())
    lines = ["### (c) latency: coverage / verdict type-I / power (true B/A = 0.9)", "",
             f"True ratio of pooled medians: {truth[0.0]:.4f} under the null, "
             f"{truth[math.log(0.9)]:.4f} under the alternative (geometric mean 0.9). "
             f"{counts[0]:,} simulated logs per cell for the geometric-mean ratio (Monte-Carlo "
             f"SE of a 5% rate {_pct(math.sqrt(0.05 * 0.95 / counts[0]))}), the first "
             f"{counts[1]:,} of them for the ratio of medians.", "",
             "| queries | " + " | ".join(keys) + " |", "|---|" + "---|" * len(keys)]
    for nq, res in out.items():
        cells = [("n/a" if k == "sign-flip test alone" else _pct(res[k]['cov']))
                 + f" / {_pct(res[k]['t1'])} / {_pct(res[k]['pow'])}" for k in keys]
        lines.append(f"| {nq} | " + " | ".join(cells) + " |")
    return lines + [""]


BEFORE_AFTER = {"0/1": (("percentile", "exact"), ("tango", "midp")),
                "scores": ("percentile", "calibrated_t_guard"),
                "latency": ("geo: percentile", "geo: calibrated_t")}
PREVIOUS = {"scores": "t", "latency": "geo: t"}   # the default before calibrated_t


def summary(rows, sweep, scores, lat):
    """Before (the seed's defaults) and after (the defaults chosen here), side by side."""
    (bm, bt), (am, at) = BEFORE_AFTER["0/1"]
    lines = ["### Before / after", "",
             "Before: the seed's defaults (percentile bootstrap, exact McNemar). For scores and "
             "latency the middle column is the previous default (the t-interval).", "",
             "| data | measure | before | previous (t) | after |", "|---|---|---|---|---|"]
    cov = {m: np.array([r[f"cov_{m}"] for r in rows]) for m in (bm, am)}
    lines.append(f"| 0/1 grid | coverage, mean / lowest cell | {_pct(cov[bm].mean())} / "
                 f"{_pct(cov[bm].min())} | same as after | {_pct(cov[am].mean())} / "
                 f"{_pct(cov[am].min())} |")
    for n in (10, 20, 31):
        sub = [r for r in rows if r["n"] == n and r["delta"] == 0]
        if sub:
            lines.append(f"| 0/1 grid, n = {n} | null rejection of the interval, worst cell | "
                         f"{_pct(max(1 - r[f'cov_{bm}'] for r in sub))} | same as after | "
                         f"{_pct(max(1 - r[f'cov_{am}'] for r in sub))} |")
    t1 = lambda m, t: max(r[f"t1_{m}_{t}"] for r in rows if r["delta"] == 0)  # noqa: E731
    lines.append(f"| 0/1 grid | verdict type-I, worst cell | {_pct(t1(bm, bt))} | same as after | "
                 f"{_pct(t1(am, at))} |")
    for n in (31, 100, 200):
        sub = [r for r in rows if r["n"] == n and r["delta"] > 0]
        if sub:
            lines.append(f"| 0/1 grid, n = {n} | verdict power at d/3, mean | "
                         f"{_pct(np.mean([r[f'pow_{bm}_{bt}'] for r in sub]))} | same as after | "
                         f"{_pct(np.mean([r[f'pow_{am}_{at}'] for r in sub]))} |")
    b, a = BEFORE_AFTER["scores"]
    pr = PREVIOUS["scores"]
    three = lambda r, k: f"{_pct(r[k]['rej'])} / {_pct(r[k]['t1'])} / {_pct(r[k]['pow'])}"  # noqa: E731
    for (name, n), res in scores.items():
        lines.append(f"| {name}, n = {n} | null rejection / verdict type-I / power | "
                     f"{three(res, b)} | {three(res, pr)} | {three(res, a)} |")
    b, a = BEFORE_AFTER["latency"]
    pr = PREVIOUS["latency"]
    three = lambda r, k: f"{_pct(r[k]['cov'])} / {_pct(r[k]['t1'])} / {_pct(r[k]['pow'])}"  # noqa: E731
    for nq, res in lat.items():
        lines.append(f"| latency, {nq} queries | geometric-mean ratio: coverage / verdict "
                     f"type-I / power | {three(res, b)} | {three(res, pr)} | {three(res, a)} |")
    return lines + [""]


def main(argv=None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    quick = "--quick" in argv
    t0 = time.perf_counter()
    rows = binary_block(quick)
    sweep = test_sweep(quick)
    t1 = time.perf_counter()
    print(f"(a) 0/1 grid and McNemar sweep: {t1 - t0:.1f} s", flush=True)
    scores, note, sets, resamples, score_pop = scores_block(quick)
    t2 = time.perf_counter()
    print(f"(b) scores: {t2 - t1:.1f} s ({note})", flush=True)
    lat, truth, lat_counts = latency_block(quick)
    t3 = time.perf_counter()
    print(f"(c) latency: {t3 - t2:.1f} s", flush=True)
    plans = planner_block(score_pop, quick)
    t4 = time.perf_counter()
    print(f"(d) planner: {t4 - t3:.1f} s", flush=True)
    shape_plans = planner_rows(score_pop_raw(), quick)
    rules = rule_block(quick)
    warnings = warning_block(score_pop_raw(), quick)
    t5 = time.perf_counter()
    print(f"(e) self-check rule: {t5 - t4:.1f} s", flush=True)
    blines, _ = binary_tables(rows, sweep)
    text = "\n".join(summary(rows, sweep, scores, lat) + blines
                     + score_tables(scores, note, sets, resamples) + latency_tables(lat, truth, lat_counts)
                     + planner_table(plans) + planner_shape_table(shape_plans)
                     + rule_table(rules) + warning_table(warnings))
    print(text)
    if not quick:
        doc = OUT.read_text(encoding="utf-8") if OUT.exists() else ""
        start, end = "<!-- bench:start -->", "<!-- bench:end -->"
        block = (f"{start}\n{text}\n_Generated by `bench/calibration.py` on "
                 f"{time.strftime('%Y-%m-%d', time.gmtime())} in {t5 - t0:.0f} s "
                 f"({os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the end; "
                 f"`python bench/calibration.py`)._\n{end}")
        if start in doc and end in doc:
            doc = doc[:doc.index(start)] + block + doc[doc.index(end) + len(end):]
        else:
            doc = (doc or "# Calibration\n\n") + "\n" + block + "\n"
        OUT.write_text(doc, encoding="utf-8")
        print(f"written to {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
