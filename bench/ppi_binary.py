"""What drives the 0/1 prediction-powered interval's misses (issue 34): why 0/1 outcomes at
20-50 gold cases cover 93-94% in some cells and up to 99% in others, and which simple rules
were tried (``docs/cheap_labels_binary.md``).

Same simulated suites as ``bench/ppi.py`` (its ``simulate``, ``latent_r`` and ``truth``), 0/1
outcomes only. Two parts:

1. **Diagnosis** (8,000 data sets per cell): in a few extreme cells, the current interval's
   coverage split by D, the number of gold cases whose gold and cheap values disagree, with
   the estimate's root-mean-square error and the mean standard error in each part, beside the
   plain t-interval without pseudo cases ("none") and ``ppi_py``'s z.
2. **Rules** (2,000 data sets per cell, the full 0/1 grid of ``bench/ppi.py``: 288 cells):
   the rectifier's sum of squares SS (``core.paired.ppi.ppi_rows``) with the pseudo
   disagreements added (``PSEUDO`` cases: + pseudo lambda^2, the current rule) or as a
   floor (max(SS, pseudo lambda^2): only a gold sample without disagreements gets them), and
   ``PLUS`` (the agreeing pseudo cases: + plus (1 - lambda)^2) at 1, 0.5 or 0. Each row:
   lowest and highest coverage, cells under 94% and over 96.5%, the widest interval against
   the gold-only t-interval (with ``PLUS`` = 1), and the least narrowing at n = 50, rho 0.9.
3. **MOVER rules** (same grid, same data sets): intervals that are not symmetric in the rare
   disagreements. The PPI estimate is split into parts with their own score intervals,
   combined by MOVER (Zou & Donner 2008; Newcombe 1998) with the parts' correlation
   (``combine``): "MOVER 1" = lam x cheap mean of the M cheap-only cases (Wilson; B − A:
   Tango of cheap B vs cheap A) + (1 - lam) x cheap mean of the gold cases + gold - cheap on
   the gold cases (Tango's paired interval: its discordant pairs are the disagreements;
   B − A: two Tangos, B's minus A's); "MOVER 2" (lambda split) = lam x cheap mean of the
   cheap-only cases + (1 - lam) x gold mean (Wilson; B − A: Tango gold B vs gold A) + lam x
   (gold - cheap) (Tango, or Jeffreys intervals of the + and - units combined as a
   multinomial difference); "t quantile" uses Student's t(n - 1) quantile in place of z in
   the gold-case parts (or in the gold mean's only). The parts on the M cheap-only cases are independent of the gold
   cases (disjoint random cases); the gold-case parts get their per-case sample correlation.

``python bench/ppi_binary.py [--quick]``; the full run writes ``docs/cheap_labels_binary.md``.
"""
from __future__ import annotations

import math
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
from scipy.special import ndtr
from scipy.stats import beta

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from core.paired.difference import tango_limits  # noqa: E402
from core.paired.ppi import ppi_lambda_rows, ppi_rows  # noqa: E402
from core.paired.skew_intervals import t_quantile  # noqa: E402
import ppi as grid  # noqa: E402  (bench/ppi.py: the same suites)

OUT = ROOT / "docs" / "cheap_labels_binary.md"
KIND = "binary"
# name: (pseudo, plus, pseudo as a floor)
RULES = {"current: + 1 pseudo disagreement, plus 1": (1.0, 1.0, False),
         "none (plain t, slope term kept)": (0.0, 0.0, False),
         "+ 0.5 pseudo disagreement, plus 1": (0.5, 1.0, False),
         "+ 1 pseudo disagreement, plus 0.5": (1.0, 0.5, False),
         "floor 1 pseudo disagreement, plus 0.5": (1.0, 0.5, True),
         "floor 2 pseudo disagreements, plus 0.5": (2.0, 0.5, True),
         "floor 2 pseudo disagreements, plus 0": (2.0, 0.0, True),
         "floor 3 pseudo disagreements, plus 0.5": (3.0, 0.5, True),
         # MOVER (section 3 of the doc): the parts' asymmetric score intervals combined
         "MOVER 1: Wilson/Tango cheap mean + Tango gold - cheap": "mover",
         "MOVER 1 + the tuned lambda's slope term": "mover+slope",
         "MOVER 1, B − A gold - cheap as one Tango": "tango1",
         "MOVER 2 (lambda split): Tango gold - cheap": "m2tango",
         "MOVER 2: Jeffreys gold - cheap": "m2jeff",
         "MOVER 2, t quantile on the gold parts: Tango": "m2t_tango",
         "MOVER 2, t quantile on the gold parts: Jeffreys": "m2t_jeff",
         "MOVER 2, t quantile on the gold mean only: Jeffreys": "m2h",
         "the same + the tuned lambda's slope term": "m2h_slope"}
DIAG = ((20, 1000, 0.9, (0.0, 0.0), "A"), (20, 1000, 0.9, (0.0, 0.0), "B − A"),
        (20, 300, 0.9, (0.10, 0.10), "B"), (50, 300, 0.9, (0.10, 0.10), "B"))


def rule_rows(g, cg, cr, pseudo, plus, floor, confidence=0.95):
    """The t-interval of ``core.paired.ppi.ppi_rows`` (tuned lambda, ddof 2, the slope term,
    Welch df) with the pseudo disagreements added or as a floor (module docstring)."""
    if not floor:
        return ppi_rows(g, cg, cr, confidence=confidence, method="t", pseudo=pseudo, plus=plus)
    n, m = g.shape[1], cr.shape[1]
    lam = ppi_lambda_rows(g, cg, cr)
    rect = g - lam[:, None] * cg
    est = lam * cr.mean(1) + rect.mean(1)
    a = lam ** 2 * np.var(cr, axis=1, ddof=1) / m
    k = 1 + (lam > 0)
    ss = np.maximum(np.var(rect, axis=1) * n, pseudo * lam ** 2) + plus * (1 - lam) ** 2
    b = ss / (n - k) / n
    sxx = np.sum((cg - cg.mean(1, keepdims=True)) ** 2, axis=1)
    slope = (cg.mean(1) - cr.mean(1)) ** 2
    with np.errstate(divide="ignore", invalid="ignore"):
        b = b + np.where((lam > 0) & (sxx > 0), ss / (n - 2) / sxx * slope, 0.0)
        df = (a + b) ** 2 / (a ** 2 / (m - 1) + b ** 2 / (n - k))
    df = np.where(np.isfinite(df) & (df > 0), df, n - 1.0)
    q = np.asarray(t_quantile(0.5 + confidence / 2, df), float)
    se = np.sqrt(a + b)
    return {"estimate": est, "se": se, "low": est - q * se, "high": est + q * se}


# ----------------------------------------------------------------------------- MOVER (issue 34)
# theta(lam) = lam mean(cheap_rest) + (1 - lam) mean(cheap_gold) + mean(gold - cheap_gold):
# for 0/1 the last part is a paired difference of two proportions on the gold cases (its
# discordant pairs: gold and cheap disagree), Tango's score interval; the cheap means get
# Wilson's (a method) or Tango's (B − A: cheap B vs cheap A); B − A's rectifier is
# mean(gold_B - cheap_B) - mean(gold_A - cheap_A), two Tango intervals. The parts are combined
# by MOVER for a linear combination (Zou & Donner 2008, Stat Med 27:1693; Newcombe 1998):
# L = theta - sqrt(sum_ij s_ij r_ij dl_i dl_j), dl_i the distance of part i's estimate to the
# limit on theta's lower side, r_ij the part estimates' correlation: 0 between the cheap-only
# cases and the gold cases (disjoint random cases: independent), the sample correlation of the
# per-case values on the gold cases otherwise (0 when one does not vary); U likewise.
Z = 1.959963984540054  # the normal quantile of 95% (Tango and Wilson are z-based)


def wilson(k, m, z=Z):
    p = k / m
    c = (p + z * z / (2 * m)) / (1 + z * z / m)
    h = z / (1 + z * z / m) * np.sqrt(p * (1 - p) / m + z * z / (4 * m * m))
    return p, np.minimum(c - h, p), np.maximum(c + h, p)


def tango_rows(x, y, z=Z):
    """mean(x - y) of paired 0/1 rows with Tango's limits."""
    n12 = np.sum((x == 1) & (y == 0), axis=1).astype(float)
    n21 = np.sum((x == 0) & (y == 1), axis=1).astype(float)
    N = np.full(n12.shape, float(x.shape[1]))
    lo, hi = tango_limits(n12, n21, N, z)
    return (n12 - n21) / N, lo, hi


def _corr(u, v):
    uc = u - u.mean(1, keepdims=True); vc = v - v.mean(1, keepdims=True)
    den = np.sqrt(np.sum(uc * uc, 1) * np.sum(vc * vc, 1))
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.sum(uc * vc, 1) / den
    return np.where(den > 0, r, 0.0)


def combine(parts, corr):
    """parts: list of (coef (S,), est, low, high); corr[i][j] (S,) correlation of the
    component estimates. MOVER (Zou & Donner 2008) for sum coef_i theta_i."""
    est = sum(c * e for c, e, _, _ in parts)
    dl, du = [], []
    for c, e, lo, hi in parts:
        dl.append(np.where(c >= 0, c * (e - lo), -c * (hi - e)))   # lower-side distance
        du.append(np.where(c >= 0, c * (hi - e), -c * (e - lo)))
    k = len(parts)
    vl = np.zeros_like(est); vu = np.zeros_like(est)
    for i in range(k):
        for j in range(k):
            r = 1.0 if i == j else corr.get((min(i, j), max(i, j)), 0.0)
            s = np.sign(parts[i][0]) * np.sign(parts[j][0]) if i != j else 1.0
            vl = vl + s * r * dl[i] * dl[j]
            vu = vu + s * r * du[i] * du[j]
    return est, est - np.sqrt(np.maximum(vl, 0)), est + np.sqrt(np.maximum(vu, 0))


def mover_mean(g, cg, cr, lam=None, slope=False, z=Z):
    n, m = g.shape[1], cr.shape[1]
    lam = ppi_lambda_rows(g, cg, cr) if lam is None else np.broadcast_to(lam, g.shape[:1])
    p1 = wilson(cr.sum(1), m, z)
    p2 = wilson(cg.sum(1), n, z)
    d = tango_rows(g, cg, z)
    parts = [(lam, *p1), (1 - lam, *p2), (np.ones_like(lam), *d)]
    corr = {(1, 2): _corr(cg, g - cg)}
    est, lo, hi = combine(parts, corr)
    if slope:
        lo, hi = _slope(g, cg, cr, lam, est, lo, hi, z)
    return {"estimate": est, "low": lo, "high": hi, "lam": lam}


def _slope(g, cg, cr, lam, est, lo, hi, z):
    n = g.shape[1]
    rect = g - lam[:, None] * cg
    ss = np.var(rect, axis=1) * n
    sxx = np.sum((cg - cg.mean(1, keepdims=True)) ** 2, axis=1)
    sl = (cg.mean(1) - cr.mean(1)) ** 2
    with np.errstate(divide="ignore", invalid="ignore"):
        extra = np.where((lam > 0) & (sxx > 0), ss / (n - 2) / sxx * sl, 0.0)
    h = z * np.sqrt(extra)
    return est - np.sqrt((est - lo) ** 2 + h * h), est + np.sqrt((hi - est) ** 2 + h * h)


def mover_diff(ga, gb, ca, cb, ra, rb, lam=None, slope=False, z=Z):
    G, F, R = gb - ga, cb - ca, rb - ra
    n = G.shape[1]
    lam = ppi_lambda_rows(G, F, R) if lam is None else np.broadcast_to(lam, G.shape[:1])
    one = np.ones_like(lam)
    p1 = tango_rows(rb, ra, z)
    p2 = tango_rows(cb, ca, z)
    db = tango_rows(gb, cb, z)
    da = tango_rows(ga, ca, z)
    parts = [(lam, *p1), (1 - lam, *p2), (one, *db), (-one, *da)]
    corr = {(1, 2): _corr(F, gb - cb), (1, 3): _corr(F, ga - ca), (2, 3): _corr(gb - cb, ga - ca)}
    est, lo, hi = combine(parts, corr)
    if slope:
        lo, hi = _slope(G, F, R, lam, est, lo, hi, z)
    return {"estimate": est, "low": lo, "high": hi, "lam": lam}


def tango_units(v, z=Z):
    """Tango on a whole-valued per-case difference v: positive units as n12, negative as n21."""
    n12 = np.sum(np.maximum(v, 0), axis=1).astype(float)
    n21 = np.sum(np.maximum(-v, 0), axis=1).astype(float)
    N = np.maximum(float(v.shape[1]), n12 + n21)
    lo, hi = tango_limits(n12, n21, N, z)
    return (n12 - n21) / v.shape[1], lo * N / v.shape[1], hi * N / v.shape[1]


def mover_diff1(ga, gb, ca, cb, ra, rb, lam=None, slope=False, z=Z):
    G, F, R = gb - ga, cb - ca, rb - ra
    lam = ppi_lambda_rows(G, F, R) if lam is None else np.broadcast_to(lam, G.shape[:1])
    one = np.ones_like(lam)
    p1 = tango_rows(rb, ra, z)
    p2 = tango_rows(cb, ca, z)
    d = tango_units(G - F, z)
    parts = [(lam, *p1), (1 - lam, *p2), (one, *d)]
    est, lo, hi = combine(parts, {(1, 2): _corr(F, G - F)})
    if slope:
        lo, hi = _slope(G, F, R, lam, est, lo, hi, z)
    return {"estimate": est, "low": lo, "high": hi, "lam": lam}


def jeffreys(k, n, z=Z):
    a = 1 - ndtr(z)
    lo = np.where(k > 0, beta.ppf(a, k + 0.5, n - k + 0.5), 0.0)
    hi = np.where(k < n, beta.ppf(1 - a, k + 0.5, n - k + 0.5), 1.0)
    return k / n, lo, hi


def jeff_rect(v, z=Z):
    """mean of whole-valued v as p(+units) - p(-units), Jeffreys on each, MOVER with the
    multinomial correlation."""
    n = v.shape[1]
    kp = np.sum(np.maximum(v, 0), 1).astype(float); km = np.sum(np.maximum(-v, 0), 1).astype(float)
    pp, lp, up = jeffreys(kp, n, z); pm, lm, um = jeffreys(km, n, z)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = -np.sqrt(pp * pm / ((1 - pp) * (1 - pm)))
    r = np.where(np.isfinite(r), r, 0.0)
    est = pp - pm
    lo = est - np.sqrt(np.maximum((pp - lp) ** 2 + (um - pm) ** 2 - 2 * r * (pp - lp) * (um - pm), 0))
    hi = est + np.sqrt(np.maximum((up - pp) ** 2 + (pm - lm) ** 2 - 2 * r * (up - pp) * (pm - lm), 0))
    return est, lo, hi


def jeff_mean(g, cg, cr, z=Z):
    n, m = g.shape[1], cr.shape[1]
    lam = ppi_lambda_rows(g, cg, cr)
    parts = [(lam, *wilson(cr.sum(1), m, z)), (1 - lam, *wilson(cg.sum(1), n, z)),
             (np.ones_like(lam), *jeff_rect(g - cg, z))]
    est, lo, hi = combine(parts, {(1, 2): _corr(cg, g - cg)})
    return {"estimate": est, "low": lo, "high": hi}


def jeff_diff(ga, gb, ca, cb, ra, rb, z=Z):
    G, F, R = gb - ga, cb - ca, rb - ra
    lam = ppi_lambda_rows(G, F, R)
    parts = [(lam, *tango_rows(rb, ra, z)), (1 - lam, *tango_rows(cb, ca, z)),
             (np.ones_like(lam), *jeff_rect(G - F, z))]
    est, lo, hi = combine(parts, {(1, 2): _corr(F, G - F)})
    return {"estimate": est, "low": lo, "high": hi}


def mover2_mean(g, cg, cr, z=Z, rect="tango"):
    """theta = lam p_rest + (1 - lam) p_gold + lam mean(g - cg)."""
    n, m = g.shape[1], cr.shape[1]
    lam = ppi_lambda_rows(g, cg, cr)
    d = tango_rows(g, cg, z) if rect == "tango" else jeff_rect(g - cg, z)
    parts = [(lam, *wilson(cr.sum(1), m, z)), (1 - lam, *wilson(g.sum(1), n, z)), (lam, *d)]
    est, lo, hi = combine(parts, {(1, 2): _corr(g, g - cg)})
    return {"estimate": est, "low": lo, "high": hi}


def mover2_diff(ga, gb, ca, cb, ra, rb, z=Z, rect="tango"):
    G, F, R = gb - ga, cb - ca, rb - ra
    lam = ppi_lambda_rows(G, F, R)
    d = tango_units(G - F, z) if rect == "tango" else jeff_rect(G - F, z)
    parts = [(lam, *tango_rows(rb, ra, z)), (1 - lam, *tango_rows(gb, ga, z)), (lam, *d)]
    est, lo, hi = combine(parts, {(1, 2): _corr(G, G - F)})
    return {"estimate": est, "low": lo, "high": hi}


def _tq(n):
    return float(t_quantile(0.975, n - 1))


def mover2t_mean(g, cg, cr, rect="jeff"):
    n, m = g.shape[1], cr.shape[1]
    zt = _tq(n)
    lam = ppi_lambda_rows(g, cg, cr)
    d = tango_rows(g, cg, zt) if rect == "tango" else jeff_rect(g - cg, zt)
    parts = [(lam, *wilson(cr.sum(1), m)), (1 - lam, *wilson(g.sum(1), n, zt)), (lam, *d)]
    est, lo, hi = combine(parts, {(1, 2): _corr(g, g - cg)})
    return {"estimate": est, "low": lo, "high": hi}


def mover2t_diff(ga, gb, ca, cb, ra, rb, rect="jeff"):
    G, F, R = gb - ga, cb - ca, rb - ra
    zt = _tq(G.shape[1])
    lam = ppi_lambda_rows(G, F, R)
    d = tango_units(G - F, zt) if rect == "tango" else jeff_rect(G - F, zt)
    parts = [(lam, *tango_rows(rb, ra)), (1 - lam, *tango_rows(gb, ga, zt)), (lam, *d)]
    est, lo, hi = combine(parts, {(1, 2): _corr(G, G - F)})
    return {"estimate": est, "low": lo, "high": hi}


def mover2h_mean(g, cg, cr, slope=False):
    n, m = g.shape[1], cr.shape[1]
    zt = _tq(n)
    lam = ppi_lambda_rows(g, cg, cr)
    parts = [(lam, *wilson(cr.sum(1), m)), (1 - lam, *wilson(g.sum(1), n, zt)), (lam, *jeff_rect(g - cg))]
    est, lo, hi = combine(parts, {(1, 2): _corr(g, g - cg)})
    if slope:
        lo, hi = _slope(g, cg, cr, lam, est, lo, hi, Z)
    return {"estimate": est, "low": lo, "high": hi}


def mover2h_diff(ga, gb, ca, cb, ra, rb, slope=False):
    G, F, R = gb - ga, cb - ca, rb - ra
    zt = _tq(G.shape[1])
    lam = ppi_lambda_rows(G, F, R)
    parts = [(lam, *tango_rows(rb, ra)), (1 - lam, *tango_rows(gb, ga, zt)), (lam, *jeff_rect(G - F))]
    est, lo, hi = combine(parts, {(1, 2): _corr(G, G - F)})
    if slope:
        lo, hi = _slope(G, F, R, lam, est, lo, hi, Z)
    return {"estimate": est, "low": lo, "high": hi}


def _targets(ga, gb, ca, cb, truths):
    return {"A": (ga, ca, truths[0]), "B": (gb, cb, truths[1]),
            "B − A": (gb - ga, cb - ca, truths[1] - truths[0])}


def diagnose(rng, truths, reps):
    lines = ["| n gold | N | rho | bias A / B | estimand | interval | coverage | true SD of "
             "the estimate | mean SE |", "|" + "---|" * 9]
    dlines = ["| n gold | N | rho | bias A / B | estimand | D (gold cases that disagree) "
              "| share | coverage | RMS error | mean SE |", "|" + "---|" * 10]
    for n, total, rho, bias, name in DIAG:
        rs = (grid.latent_r(KIND, rho, bias[0], 0), grid.latent_r(KIND, rho, bias[1], 1))
        g, c, true = _targets(*grid.simulate(rng, KIND, n, total, rs, bias, reps), truths)[name]
        head = f"| {n} | {total:,} | {rho} | {grid._bias(bias)} | {name} "
        for label, kw in (("current", dict(pseudo=1.0, plus=1.0)), ("none", {}),
                          ("ppi_py z", dict(method="z"))):
            r = ppi_rows(g, c[:, :n], c[:, n:], confidence=0.95, **{"method": "t", **kw})
            hit = (r["low"] <= true) & (true <= r["high"])
            lines.append(head + f"| {label} | {100 * hit.mean():.1f} ± "
                         f"{grid.mc(hit.mean(), reps):.1f} | {r['estimate'].std():.4f} "
                         f"| {r['se'].mean():.4f} |")
            if label != "current":
                continue
            dis = np.sum(g != c[:, :n], axis=1)
            err = r["estimate"] - true
            for d in (0, 1, 2, 3):
                m = dis == d
                if m.sum() < 20:
                    continue
                dlines.append(head + f"| {d} | {m.mean():.2f} | {100 * hit[m].mean():.1f} "
                              f"| {np.sqrt(np.mean(err[m] ** 2)):.4f} | {r['se'][m].mean():.4f} |")
    return lines, dlines


def _mover(data, n, name, spec):
    ga, gb, ca, cb = data
    if name == "B − A":
        args = (ga, gb, ca[:, :n], cb[:, :n], ca[:, n:], cb[:, n:])
        return {"mover": lambda: mover_diff(*args), "mover+slope": lambda: mover_diff(*args, slope=True),
                "tango1": lambda: mover_diff1(*args), "m2tango": lambda: mover2_diff(*args),
                "m2jeff": lambda: mover2_diff(*args, rect="jeff"),
                "m2t_tango": lambda: mover2t_diff(*args, rect="tango"),
                "m2t_jeff": lambda: mover2t_diff(*args),
                "m2h": lambda: mover2h_diff(*args),
                "m2h_slope": lambda: mover2h_diff(*args, slope=True)}[spec]()
    g, c = (ga, ca) if name == "A" else (gb, cb)
    args = (g, c[:, :n], c[:, n:])
    return {"mover": lambda: mover_mean(*args), "mover+slope": lambda: mover_mean(*args, slope=True),
            "tango1": lambda: mover_mean(*args), "m2tango": lambda: mover2_mean(*args),
            "m2jeff": lambda: mover2_mean(*args, rect="jeff"),
            "m2t_tango": lambda: mover2t_mean(*args, rect="tango"),
            "m2t_jeff": lambda: mover2t_mean(*args),
            "m2h": lambda: mover2h_mean(*args),
            "m2h_slope": lambda: mover2h_mean(*args, slope=True)}[spec]()


def rules(rng, truths, reps, ns, ncheap, rhos, biases):
    cov = {k: [] for k in RULES}
    wid = {k: [] for k in RULES}
    for n in ns:
        for total in ncheap:
            for rho in rhos:
                for bias in biases:
                    rs = (grid.latent_r(KIND, rho, bias[0], 0),
                          grid.latent_r(KIND, rho, bias[1], 1))
                    data = grid.simulate(rng, KIND, n, total, rs, bias, reps)
                    for name, (g, c, true) in _targets(*data, truths).items():
                        gold = ppi_rows(g, c[:, :n], c[:, n:], confidence=0.95, plus=1.0,
                                        pseudo=1.0)
                        gw = np.mean(gold["gold_high"] - gold["gold_low"])
                        for k, spec in RULES.items():
                            if isinstance(spec, str):
                                r = _mover(data, n, name, spec)
                            else:
                                r = rule_rows(g, c[:, :n], c[:, n:], *spec)
                            cov[k].append(((n, total, rho, bias, name),
                                           np.mean((r["low"] <= true) & (true <= r["high"]))))
                            wid[k].append(((n, rho), np.mean(r["high"] - r["low"]) / gw))
    lines = ["| rule | lowest | highest | cells < 94% | cells > 96.5% | lowest at n = 20 / 30 "
             "/ 50 / 100 | highest at n = 20 / 30 / 50 / 100 | widest vs gold-only "
             "| least narrowing at n = 50, rho 0.9 |", "|" + "---|" * 9]
    for k in RULES:
        c = np.array([x[1] for x in cov[k]])
        by_n = {n: np.array([x[1] for x in cov[k] if x[0][0] == n]) for n in ns}
        lines.append(f"| {k} | {100 * c.min():.1f} | {100 * c.max():.1f} "
                     f"| {int((c < 0.94).sum())} | {int((c > 0.965).sum())} "
                     f"| {' / '.join(f'{100 * v.min():.1f}' for v in by_n.values())} "
                     f"| {' / '.join(f'{100 * v.max():.1f}' for v in by_n.values())} "
                     f"| {100 * (max(w for _, w in wid[k]) - 1):+.1f}% "
                     f"| {_least(wid[k])} |")
    return lines, len(cov[next(iter(RULES))])


def _least(wid):
    """The widest mean width ratio over the n = 50, rho 0.9 cells (the goal: <= -30%)."""
    w = [x for (n, rho), x in wid if n == 50 and rho == 0.9]
    return f"{100 * (max(w) - 1):+.1f}%" if w else "-"


def main() -> None:
    quick = "--quick" in sys.argv
    rng = np.random.default_rng(20261203)
    t0 = time.process_time()
    truths = grid.truth(KIND)
    dreps, rreps = (1000, 300) if quick else (8000, 2000)
    diag, dsplit = diagnose(rng, truths, dreps)
    args = ((20, 50), (300,), (0.3, 0.9), grid.BIASES[:2]) if quick else (
        grid.NS, grid.NCHEAP, grid.RHOS, grid.BIASES)
    table, cells = rules(rng, truths, rreps, *args)
    cpu = time.process_time() - t0
    for block in (diag, dsplit, table):
        print("\n".join(block) + "\n")
    if quick:
        return
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    # section 4 is bench/ppi_binary_mover.py's: kept as it is
    old = OUT.read_text(encoding="utf-8") if OUT.exists() else ""
    kept = old[old.index("## 4. "):] if "## 4. " in old else ""
    OUT.write_text(DOC.format(stamp=stamp, cpu=f"{cpu:.0f}", dreps=f"{dreps:,}",
                              dmc=f"{grid.mc(0.95, dreps):.2f}", rreps=f"{rreps:,}",
                              rmc=f"{grid.mc(0.95, rreps):.2f}", cells=cells,
                              diag="\n".join(diag), dsplit="\n".join(dsplit),
                              rules="\n".join(table),
                              drop=f"{100 * grid._expected_min_drop(cells, rreps):.1f}")
                   + ("\n" + kept if kept else ""), encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}")


DOC = """# Cheap labels on 0/1 outcomes: what drives the misses (issue 34)

Written by `python bench/ppi_binary.py` ({stamp}; {cpu} s CPU). The suites are those of
`bench/ppi.py` (`docs/cheap_labels.md`), 0/1 outcomes only; the interval of sections 1-3 is
the PPI++ t-interval of `core.paired.ppi` (tuned lambda, the slope term, Welch df) with its
pseudo cases: `PSEUDO` = 1 pseudo disagreement (+ lambda^2 on the rectifier's sum of squares)
and `PLUS` = 1 (Agresti & Coull's agreeing cases, + (1 - lambda)^2), the 0/1 default until
the rerun of section 4 (`bench/ppi_binary_mover.py`) made "MOVER 2, t quantile on the gold
parts: Jeffreys" (section 3) the default; "current" below is the pseudo-case rule.

## 1. Diagnosis: coverage split by the gold cases that disagree

{dreps} data sets per cell (Monte-Carlo SE about {dmc} points at 95%; ± below is one SE).
"none" is the same t-interval without pseudo cases; "ppi_py z" is `ppi_py.ppi_mean_ci`.

{diag}

The current interval by D, the number of gold cases on which the gold and cheap outcome
differ:

{dsplit}

Reading: with cheap labels that agree on about 95% of cases (rho 0.9, no bias), 20 gold
cases often hold no disagreement (D = 0) and the estimate is then close to the truth; the
plain t-interval already covers about 96% there, and the pseudo cases push it to about 99%.
With a shared bias (+0.10: the cheap labels say "solved" where gold says not, one way only)
the same D = 0 sample hides the bias: the estimate is off by about lambda x 0.10 while the
data show no disagreement, so only the pseudo disagreement keeps such samples covered; at
50 gold cases the same happens at D = 1-2, a count well below its expected 5. The two cells
look the same on the gold sample (D = 0, the cheap-only mean differs from the gold cases'
cheap mean by about as much as its own noise at n = 20), so a symmetric t-interval that
covers the biased cell must over-cover the unbiased one.

## 2. Rules tried on the full 0/1 grid

{rreps} data sets per cell, {cells} cells (n gold 20/30/50/100, N 300/1,000, rho 0.3/0.6/0.9,
four biases, A, B and B − A; Monte-Carlo SE about {rmc} points: with every true coverage at
95%, the lowest of {cells} cells falls about {drop} points below it by chance alone). Floor =
the pseudo disagreements only when the gold sample's sum of squares is below them (no
disagreement seen).

{rules}

No rule in the pseudo-case family keeps every cell in 94-96.5%: fewer pseudo cases bring
the unbiased high-agreement cells down but drop the shared-bias cells to 88-93% at 20-50
gold cases; the floor rules cut the over-coverage only a little, because at 20 gold cases
the D = 0 samples are covered either way and the over-coverage comes from the same pseudo
cases the biased samples need.

## 3. MOVER: asymmetric score intervals for the disagreements (the "MOVER" rows above)

The rows "MOVER ..." split the estimate theta(lam) into parts, give each its own score
interval and combine them by MOVER for a linear combination (Zou & Donner 2008, *Stat Med*
27:1693; Newcombe 1998): L = theta - sqrt(sum_ij s_ij r_ij dl_i dl_j), dl_i the distance
from part i's estimate to its limit on theta's lower side, s_ij the signs of the
coefficients, r_ij the parts' correlation (0 between the M cheap-only cases and the gold
cases: disjoint random cases, independent; the per-case sample correlation on the gold
cases otherwise); U likewise. "MOVER 1" is the split of the issue: lam x cheap mean of the
cheap-only cases (Wilson; B − A: Tango, cheap B vs cheap A) + (1 - lam) x cheap mean on the
gold cases + mean(gold - cheap) on the gold cases (Tango's paired interval: its discordant
pairs are the disagreements; B − A: B's Tango minus A's, or the +/- units of
(gold B - gold A) - (cheap B - cheap A) as one Tango). "MOVER 2" splits by lam instead:
lam x cheap mean of the cheap-only cases + (1 - lam) x gold mean (Wilson; B − A: Tango of
gold B vs gold A) + lam x mean(gold - cheap) (Tango, or Jeffreys intervals of the + and -
units as a multinomial difference); "t quantile" puts Student's t(n - 1) quantile in place
of z in the gold-case parts ("on the gold mean only": in the (1 - lam) x gold mean part,
z in the Jeffreys part); "slope term" adds the tuned lam's variance (``core.paired.ppi``) as
one more independent symmetric part.

Reading: Tango's interval is wide when no disagreement is seen (0 of 20 gold cases:
+/- 0.16, where the current interval's half-width is about 0.11), so MOVER 1 over-covers
the high-agreement cells more than the pseudo cases do (up to 99.9%, 68 cells above
96.5%) and narrows less at rho 0.9 (-10% where the current rule gives -18%: B − A needs
two such parts); with lam well below 1 (rho 0.3) its parts (1 - lam) x cheap mean and
gold - cheap are strongly negatively correlated and the combination under-covers (92% at
n = 20; 34 cells below 94%). MOVER 2 avoids that cancellation. With z in every part it is
too narrow at 20-30 gold cases and low rho (66 cells below 94%: the tuned lam's own noise
and Student's small-n correction are in no part). With Student's t(n - 1) quantile in the
gold parts and Tango for gold - cheap it is the only rule with no cell below 94% (lowest
94.0%), but the most conservative (82 cells above 96.5%). With Jeffreys intervals for the
+ and - disagreements instead ("MOVER 2, t quantile on the gold parts: Jeffreys") it has
5 cells below 94% (current: 6; lowest 93.5% both) and 43 above 96.5% (current: 66;
highest 98.8% against 99.5%), the same widest width (-0.5% against gold-only) and about
the same narrowing at n = 50, rho 0.9 (-17.6% against -17.9%; per method at n = 50,
N = 500, a separate 2,000-set check: -36% at rho 0.8, -45% at rho 0.9, both rules within a point). That is better
at the top and not worse at the bottom, but the bottom's 5 against 6 is within
Monte-Carlo error (0.49 points a cell), and no MOVER rule keeps every cell in 94-96.5%:
at 20 gold cases and rho 0.9 the unbiased and shared-bias cells still look the same on
the gold sample (section 1), so the over-coverage there falls only from 99.5% to 98.8%.
A MOVER interval has no single standard error, so the matching test (p-value by inverting
the interval over the confidence level), the non-inferiority p_above and "worth about N gold
cases" needed their own forms; the Jeffreys MOVER 2 row (``mover2t_mean`` / ``mover2t_diff``
with ``rect="jeff"`` here) was rerun against the pseudo-case rule on the same sets (section 4)
and is now ``core.paired.ppi``'s 0/1 default, with those forms.
"""


if __name__ == "__main__":
    main()
