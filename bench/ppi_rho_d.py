"""B − A's width at n = 50 gold cases, N = 500, set by the correlation that governs it: the
gold–cheap correlation of the per-case *difference* rho_d (issue 34, width goal).

PPI++ tunes lambda on B − A's own per-case differences (``core.paired.ppi.ppi_difference``:
lambda = Cov(gold_d, cheap_d) / ((1 + n/N) Var(cheap_d))), so B − A's gain is set by rho_d,
not by each method's correlation. For each target rho_d (0.5, 0.8, 0.9) and each way the two
systems' cheap-label errors relate (independent, ``bench/ppi.py``'s main suites; correlated
0.7, ``bench/ppi_shared.py``'s judge whose errors follow the query) this finds by bisection
the method correlation whose difference correlation is rho_d (on 200,000 cases), then draws
``REPS`` data sets with ``bench/ppi.py``'s ``simulate`` and reports B − A's PPI t width against
the gold-only t width (ratio of mean widths; MC SE by the delta method), coverage of both and
lambda. PPI++'s asymptotic ratio is sqrt(1 - rho_d^2 N_rest / (N_rest + n)) (Angelopoulos,
Duchi & Zrnic 2023, Sec. 6): -12% at rho_d 0.5, -35% at 0.8, -48% at 0.9 with n = 50, N = 500;
printed beside the measured ratio.
``python bench/ppi_rho_d.py`` (about 1 min CPU) prints a markdown table.
"""
from __future__ import annotations

import math
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))

from ppi import CONFIDENCE, PLUS, SHAPES, latent_r, mc, simulate, truth  # noqa: E402

from core.paired.ppi import ppi_rows  # noqa: E402

N_GOLD, TOTAL, REPS = 50, 500, 8000
TARGETS = (0.5, 0.8, 0.9)
SHAREDS = (0.0, 0.7)


def diff_corr(kind: str, rho: float, shared: float) -> float:
    """Realised gold–cheap correlation of B − A on 200,000 cases at method correlation rho."""
    rs = (latent_r(kind, rho, 0.0, 0), latent_r(kind, rho, 0.0, 1))
    # n = total: gold on every case
    ga, gb, ca, cb = simulate(np.random.default_rng(4242), kind, 200_000, 200_000, rs,
                              (0.0, 0.0), 1, shared)
    return float(np.corrcoef((gb - ga)[0], (cb - ca)[0])[0, 1])


def method_rho_for(kind: str, target: float, shared: float) -> float | None:
    """The method correlation whose difference correlation is ``target`` (bisection); None
    when even 0.995 does not reach it."""
    lo, hi = 0.05, 0.995
    if diff_corr(kind, hi, shared) < target:
        return None
    for _ in range(12):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if diff_corr(kind, mid, shared) < target else (lo, mid)
    return (lo + hi) / 2


def _ratio_se(w, g):
    """SE of mean(w) / mean(g) by the delta method over the data sets."""
    r = w.mean() / g.mean()
    d = (w - r * g) / g.mean()
    return r, d.std(ddof=1) / math.sqrt(w.size)


def main() -> None:
    t0 = time.process_time()
    rng = np.random.default_rng(34034)
    lines = ["| shape | errors A/B | target rho_d | method rho | realised rho_d | B − A width vs "
             "gold-only (± MC SE) | asymptotic | PPI t coverage | gold-only coverage | lambda |",
             "|" + "---|" * 10]
    for kind in SHAPES:
        true = truth(kind)[1] - truth(kind)[0]
        for shared in SHAREDS:
            for target in TARGETS:
                rho = method_rho_for(kind, target, shared)
                label = "independent" if shared == 0 else f"correlated {shared}"
                if rho is None:
                    lines.append(f"| {kind} | {label} | {target} | > 0.995 | — | not reachable "
                                 "| | | | |")
                    continue
                rs = (latent_r(kind, rho, 0.0, 0), latent_r(kind, rho, 0.0, 1))
                ga, gb, ca, cb = simulate(rng, kind, N_GOLD, TOTAL, rs, (0.0, 0.0), REPS, shared)
                g, c = gb - ga, cb - ca
                whole = kind == "binary"
                # 0/1: core's default, the Jeffreys MOVER 2 interval of B − A
                r = ppi_rows(g, c[:, :N_GOLD], c[:, N_GOLD:], confidence=CONFIDENCE,
                             method="t", plus=PLUS if whole else 0.0,
                             mover="difference" if whole else None)
                ratio, se = _ratio_se(r["high"] - r["low"], r["gold_high"] - r["gold_low"])
                cov = np.mean((r["low"] <= true) & (true <= r["high"]))
                gcov = np.mean((r["gold_low"] <= true) & (true <= r["gold_high"]))
                real = np.mean([np.corrcoef(g[s], c[s, :N_GOLD])[0, 1] for s in range(400)
                                if np.ptp(g[s]) > 0 and np.ptp(c[s, :N_GOLD]) > 0])
                m = TOTAL - N_GOLD
                asym = math.sqrt(1 - target ** 2 * m / (m + N_GOLD))
                lines.append(
                    f"| {kind} | {label} | {target} | {rho:.3f} | {real:.2f} "
                    f"| {100 * (ratio - 1):+.1f}% ± {100 * se:.1f} | {100 * (asym - 1):+.1f}% "
                    f"| {100 * cov:.1f} ± {mc(cov, REPS):.1f} | {100 * gcov:.1f} "
                    f"| {np.mean(r['lam']):.2f} |")
                print(lines[-1], flush=True)
    print("\n".join(lines))
    print(f"\n{REPS} data sets per row; {time.process_time() - t0:.0f} s CPU")


if __name__ == "__main__":
    main()
