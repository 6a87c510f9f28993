"""The rows of ``bench/clusters.py`` where the interval of B − A covers more than 96.5% (issue
32): which candidate change would bring them into 94–96.5% without pushing a neighbour under?

Same designs and data generators as ``bench/clusters.py`` (imported). Each selected row is
simulated once; every candidate is computed on the same sets (and the same cluster-bootstrap
draws), so differences between candidates are paired.

Candidates for the interval of B − A (all CR2; t at a df; each end widened to the cluster
bootstrap-t's when further out, ``core.paired.clusters.calibrated_cr2``, unless "no cal"):

* ``cur399``   the shipped rule as ``bench/clusters.py`` measures it: informative df
               (min(BM, 2 (G_nz − 1))), bootstrap-t with 399 resamples;
* ``cur4000``  the shipped rule as the core runs it: 4,000 resamples;
* ``bm4000``   Bell–McCaffrey df, calibrated (4,000) — the rule before the informative df;
* ``info_nocal`` informative df, no calibration;
* ``bm_nocal`` plain CR2 / Bell–McCaffrey;
* ``info3``    df cap 3 (G_nz − 1), 4,000;
* ``dis``      informative df counted in discordant questions when they are few:
               min(BM, max(2 (G_nz − 1), n_disc − 1)) (n_disc: questions with B ≠ A), 4,000;
* ``z_nocal``  CR2 with the normal quantile (df infinite), no calibration: the narrowest
               t-type interval (critical value 1.96).

Each cell: coverage % (mean width / the shipped rule's, ``cur4000``). ``--anatomy``: for the
c = 0 rows, coverage by G_nz (the clusters holding a non-zero difference) and the mid-p
whole-cluster sign flip on the same sets.

``python bench/clusters_overcover.py [--reps S] [--rows i,j,...] [--anatomy]`` (rows: indices
into ROWS). The output is markdown; docs/clusters.md ("Rows outside 94–96.5%") quotes it.
"""
from __future__ import annotations

import math
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.clusters import designs, gen_binary, gen_scores, signflip_both  # noqa: E402
from core.paired.clusters import cluster_layout, cr2_rows, informative_df  # noqa: E402

CONF = 0.95

# (design, kind, ICC, varying, c, why)
ROWS = [
    ("30 × 5", "0/1", 0.5, False, 0.0, "over 96.7"),
    ("10 × 10", "0/1", 0.05, True, 0.0, "over 96.6"),
    ("10 × 10", "0/1", 0.5, False, 0.0, "over 97.1"),
    ("10 × 10", "0/1", 0.5, True, 0.0, "over 96.9"),
    ("50 × 2", "0/1", 0.5, False, 0.0, "over 96.6"),
    ("20 × 2–18", "0/1", 0.2, False, 0.3, "over 96.6"),
    ("10 × 10", "scores", 0.2, True, 0.3, "over 96.8"),
    # guards: rows the informative df / calibration lifted, the lowest rows
    ("10 × 10", "0/1", 0.5, False, 0.3, "guard 95.7 (CR2 92.6)"),
    ("10 × 10", "0/1", 0.5, True, 0.3, "guard 96.2 (CR2 93.6)"),
    ("20 × 2–18", "0/1", 0.5, False, 0.3, "guard 94.1"),
    ("20 × 2–18", "0/1", 0.5, True, 0.3, "guard 94.6"),
    ("20 × 2–18", "scores", 0.5, True, 0.0, "guard 94.8 (CR2 93.8)"),
    ("20 × 2–18", "scores", 0.05, True, 0.3, "guard 94.6 (CR2 93.9)"),
    ("50 × 2", "0/1", 0.5, False, 0.3, "guard 96.3"),
    ("30 × 5", "0/1", 0.5, False, 0.3, "guard 94.7"),
    ("6 × 10", "0/1", 0.5, False, 0.3, "guard 6-8: 94.4 (CR2 91.2)"),
    ("6 × 10", "0/1", 0.5, True, 0.3, "guard 6-8: 95.0"),
    ("8 × 2–18", "0/1", 0.5, True, 0.3, "guard 6-8: 96.4"),
    ("10 × 10", "scores", 0.05, True, 0.3, "neighbour 96.5"),
    ("10 × 10", "scores", 0.5, True, 0.0, "neighbour 96.5"),
    ("8 × 10", "scores", 0.5, True, 0.3, "6-8 scores 96.8"),
]

CANDS = ("cur399", "cur4000", "bm4000", "info_nocal", "bm_nocal", "info3", "dis", "z_nocal")


def boot_t_quantiles(x, layout, B, rng, chunk):
    """Per set: the cluster bootstrap-t's alpha/2 and 1 − alpha/2 quantiles (NaN if no
    resample has a positive CR2 variance), as ``core.paired.clusters.calibrated_cr2``."""
    S = x.shape[0]
    G = layout.n_clusters
    tot = np.zeros((S, G))
    np.add.at(tot, (slice(None), layout.codes), x)
    mean, var = cr2_rows(x, layout)
    a2 = (1 - CONF) / 2
    q = np.full((S, 2), np.nan)
    for s0 in range(0, S, chunk):
        s1 = min(S, s0 + chunk)
        idx = rng.integers(0, G, (s1 - s0, B, G))
        T = np.take_along_axis(tot[s0:s1, None, :], idx, axis=2)
        M = layout.sizes[idx]
        N = M.sum(axis=2)
        mstar = T.sum(axis=2) / N
        E = T - M * mstar[..., None]
        vstar = (E ** 2 / (1.0 - M / N[..., None])).sum(axis=2) / N ** 2
        ok = vstar > 1e-300
        with np.errstate(divide="ignore", invalid="ignore"):
            tstar = np.where(ok, (mstar - mean[s0:s1, None]) / np.sqrt(vstar), np.nan)
        q[s0:s1, 0] = np.nanquantile(tstar, a2, axis=1)
        q[s0:s1, 1] = np.nanquantile(tstar, 1 - a2, axis=1)
    return q


def interval(mean, se, df, q=None):
    c = stats.t.ppf(1 - (1 - CONF) / 2, df)
    lo, hi = mean - c * se, mean + c * se
    if q is not None:
        blo = np.where(np.isfinite(q[:, 1]), mean - q[:, 1] * se, lo)
        bhi = np.where(np.isfinite(q[:, 0]), mean - q[:, 0] * se, hi)
        lo, hi = np.minimum(lo, blo), np.maximum(hi, bhi)
    return lo, hi


def run_row(label, kind, rho, vary, c, S, rng):
    sizes = dict(designs(np.random.default_rng(20261202)))[label]
    layout = cluster_layout(np.repeat(np.arange(sizes.size), sizes))
    gen = gen_binary if kind == "0/1" else gen_scores
    a, b, _, _, td = gen(rng, S, sizes, rho, c, vary)
    d = b - a
    mean, var = cr2_rows(d, layout)
    se = np.sqrt(var)
    bm = np.full(S, layout.df)
    info = informative_df(d, layout)
    hit = np.zeros((S, layout.n_clusters))
    np.add.at(hit, (slice(None), layout.codes), (d != 0).astype(float))
    g_nz = (hit > 0).sum(axis=1)
    n_disc = (d != 0).sum(axis=1)
    info3 = np.minimum(layout.df, np.maximum(1.0, 3.0 * (g_nz - 1)))
    dis = np.minimum(layout.df, np.maximum(1.0, np.maximum(2.0 * (g_nz - 1), n_disc - 1.0)))
    chunk = max(1, int(2e6 // (4000 * layout.n_clusters)))
    q399 = boot_t_quantiles(d, layout, 399, rng, chunk * 10)
    q4k = boot_t_quantiles(d, layout, 4000, rng, chunk)
    ivs = {"cur399": interval(mean, se, info, q399), "cur4000": interval(mean, se, info, q4k),
           "bm4000": interval(mean, se, bm, q4k), "info_nocal": interval(mean, se, info),
           "bm_nocal": interval(mean, se, bm), "info3": interval(mean, se, info3, q4k),
           "dis": interval(mean, se, dis, q4k), "z_nocal": interval(mean, se, np.inf)}
    out = {}
    for k, (lo, hi) in ivs.items():
        cov = (lo <= td + 1e-12) & (hi >= td - 1e-12)
        out[k] = (float(cov.mean()), float(np.mean(hi - lo)))
    out["_gnz"] = g_nz
    cov = {k: (lo <= td + 1e-12) & (hi >= td - 1e-12) for k, (lo, hi) in ivs.items()}
    if c == 0 and "--anatomy" in sys.argv:
        _, midp = signflip_both(d, layout, rng)
        lines = []
        lines.append("| G_nz | share of sets % | " + " | ".join(f"{k} covers %" for k in
              ("cur4000", "bm_nocal", "z_nocal")) + " | mid-p sign flip does not reject % |"
              " largest |t| any sign pattern can give (equal same-sign sums) |")
        lines.append("|---|---|---|---|---|---|---|")
        for g in np.unique(g_nz):
            m = g_nz == g
            G = layout.n_clusters
            tmax = math.sqrt(g * (G - 1) / (G - g)) if g < G else float("inf")
            lines.append(f"| {g} | {100 * m.mean():.1f} | " + " | ".join(
                f"{100 * cov[k][m].mean():.1f}" for k in ("cur4000", "bm_nocal", "z_nocal"))
                + f" | {100 * np.mean(midp[m] > 0.05):.1f} | {tmax:.2f} |")
        keep = 100 * np.mean(midp > 0.05)
        lines.append(f"\nAll sets: the mid-p sign flip does not reject {keep:.1f}%; "
                     f"G_nz <= 3 (no sign pattern takes |t| past sqrt(3 (G - 1) / (G - 3))): "
                     f"{100 * np.mean(g_nz <= 3):.1f}% of sets")
        out["_anat"] = "\n".join(lines)
    out["_ndisc"] = n_disc
    ok = (ivs["cur4000"][0] <= td + 1e-12) & (ivs["cur4000"][1] >= td - 1e-12)
    out["_cov_cur_by_gnz"] = {int(g): float(np.mean(ok[g_nz == g])) for g in np.unique(g_nz)}
    return out


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    S = int(argv[argv.index("--reps") + 1]) if "--reps" in argv else 6000
    sel = (list(map(int, argv[argv.index("--rows") + 1].split(","))) if "--rows" in argv
           else range(len(ROWS)))
    rng = np.random.default_rng(3232)
    se95 = 100 * math.sqrt(0.95 * 0.05 / S)
    print(f"{S} sets a row; MC SE near 95%: {se95:.2f}")
    print("| design | outcome | ICC | effect | c | why | " + " | ".join(CANDS) + " |")
    print("|---|---|---|---|---|---|" + "---|" * len(CANDS))
    t0 = time.process_time()
    anat = []
    for i in sel:
        label, kind, rho, vary, c, why = ROWS[i]
        r = run_row(label, kind, rho, vary, c, S, rng)
        w0 = r["cur4000"][1]
        cells = " | ".join(f"{100 * r[k][0]:.1f} ({r[k][1] / w0:.2f})" for k in CANDS)
        print(f"| {label} | {kind} | {rho} | {'varying' if vary else 'constant'} | {c} | {why} | "
              f"{cells} |", flush=True)
        if "_anat" in r:
            eff = "varying" if vary else "constant"
            anat.append((f"{label} {kind} ICC {rho} {eff} c = {c}", r["_anat"]))
        if "--detail" in argv:
            print("   G_nz mean", r["_gnz"].mean(), "n_disc mean", r["_ndisc"].mean(),
                  "cov by G_nz", {g: round(v * 100, 1) for g, v in r["_cov_cur_by_gnz"].items()})
    for name, text in anat:
        print(f"\n{name}\n\n{text}")
    print(f"cpu {time.process_time() - t0:.0f} s")


if __name__ == "__main__":
    main()
