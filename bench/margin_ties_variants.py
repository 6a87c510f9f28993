"""Score margins on tie-heavy data (issue 36, item 3, 2026-12-02 evening): can a sharper
tie-kept test regain scifact's margin power and keep every promise?

P("non-inferior") when B - A is exactly -delta (the promise: at most 2.5%; the populations of
``bench/hard_shapes.py``, ties kept at 0, non-zero differences shifted) and, on the ordinary
rows, at B - A = 0 (power), delta = 0.25 and 0.5 population SD, n = 20 / 30 / 50. Each rule
also needs the card's lower end above -delta and the one-sided sign-flip test on d + delta
below 2.5% (``bench.margin_ties.rule``'s "before"):

- **now**: the product (``core.paired.margin``): the tie-kept bootstrap test
  (``bench.margin_ties.tie_kept_p``, unconditional: resamples of all n cases of the null
  population) and the skew guard's lower end at half its noise allowance;
- **cond+half**: the tie-kept test **conditional on the ties** (``cond_tie_p``: the n - m ties
  held at 0, the m shifted non-zero values resampled among themselves) and the half guard;
- **cond+zero**: the same with the guard at no noise allowance;
- **none+half**: no tie-kept test, the half guard only;
- **tk-only**: the tie-kept test alone (no lower end, no sign-flip test): where the product's
  conservativeness on tie-heavy data comes from.

One bootstrap of 400 resamples per set and test (the card: 20,000); Monte-Carlo SE of a rate
r over S sets: sqrt(r (1 - r) / S). ``python bench/margin_ties_variants.py [--sets 3000]
[--seed 36]`` (3,000 sets: about 4 CPU minutes).
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.hard_shapes import populations  # noqa: E402
from bench.margin_ties import BLOCK, lower_ends, tie_kept_p, tie_null  # noqa: E402
from bench.skew_guard import signflip_p  # noqa: E402
from core.paired.margin import MARGIN_GUARD_ALLOWANCE  # noqa: E402
from core.paired.skew_intervals import skew_guard_interval  # noqa: E402

ALPHA = 0.025


def cond_tie_p(d, delta, resamples, rng):
    """Tie-kept test conditional on the ties: the n - m ties fixed at 0, the m non-zero
    (shifted) values resampled among themselves."""
    S = d.shape[0]
    n, nz, m, d0, t_obs = tie_null(d, delta)
    # the non-zero values first in each row: resample indices below m
    order = np.argsort(~nz, axis=1, kind="stable")
    d0s = np.take_along_axis(d0, order, axis=1)
    out = np.empty(S)
    for b in range(0, S, BLOCK):
        part = d0s[b:b + BLOCK]; mm = np.maximum(m[b:b + BLOCK], 1)
        B_ = part.shape[0]
        u = rng.random((B_, resamples, n))
        idx = np.floor(u * mm[:, None, None]).astype(np.int64)
        r = part[np.arange(B_)[:, None, None], idx]
        keep = np.arange(n)[None, None, :] < mm[:, None, None]
        r = np.where(keep, r, 0.0)
        means, sds = r.mean(axis=2), r.std(axis=2, ddof=1)
        dev_star = means + delta
        with np.errstate(divide="ignore", invalid="ignore"):
            t_star = np.where(sds > 0, dev_star / (sds / math.sqrt(n)),
                              np.sign(np.round(dev_star, 12)) * np.inf)
        t_star = np.nan_to_num(t_star, nan=0.0, posinf=np.inf, neginf=-np.inf)
        far = t_star >= t_obs[b:b + BLOCK, None] - 1e-9
        out[b:b + BLOCK] = (1 + far.sum(axis=1)) / (1 + resamples)
    return np.where(m > 0, out, 0.0)


def rules(d, delta, resamples, rng, signs):
    """name -> "non-inferior" of each row of d under each rule (module docstring)."""
    lo = lower_ends(d, resamples, rng)
    base = (lo > -delta) & (signflip_p(d + delta, signs, "greater") < ALPHA)
    g_half = skew_guard_interval(d, 0.95, MARGIN_GUARD_ALLOWANCE)[0] > -delta
    g_zero = skew_guard_interval(d, 0.95, 0.0)[0] > -delta
    tk = tie_kept_p(d, delta, resamples, rng) < ALPHA
    ck = cond_tie_p(d, delta, resamples, rng) < ALPHA
    return {"now(tk+half)": base & tk & g_half, "cond+half": base & ck & g_half,
            "cond+zero": base & ck & g_zero, "none+half": base & g_half,
            "tk-only": tk}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=36)
    args = ap.parse_args(argv)
    sets, seed = args.sets, args.seed
    rng = np.random.default_rng(seed)
    pops = populations(rng)
    signs = rng.choice([-1.0, 1.0], size=(1999, 50))
    for name in ["left skew -2, 18% ties", "normal, 50% ties", "right skew +2, 50% ties",
                 "normal", "scifact dense - BM25, real ties"]:
        pop, ordinary = pops[name]
        sd = float(np.std(pop)); nz = pop != 0
        for f in (0.25, 0.5):
            delta = f * sd
            at = np.where(nz, pop - delta / nz.mean(), 0.0)
            for n in (20, 30, 50):
                d = rng.choice(at, size=(sets, n))
                r = rules(d, delta, 400, rng, signs[:, :n])
                line = f"{name} | f={f} | n={n} | at -δ: " + " ".join(
                    f"{k}={100 * v.mean():.2f}" for k, v in r.items())
                if ordinary:
                    x = rng.choice(pop, size=(min(sets, 2000), n))
                    r2 = rules(x, delta, 400, rng, signs[:, :n])
                    line += " | power@0: " + " ".join(
                        f"{k}={100 * v.mean():.1f}" for k, v in r2.items())
                print(line, flush=True)
    print(f"({sets:,} sets per cell at -delta, {min(sets, 2000):,} for power, seed {seed}; "
          f"CPU {time.process_time():.0f} s)")


if __name__ == "__main__":
    main()
