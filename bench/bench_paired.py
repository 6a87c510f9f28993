"""One binary ``compare_paired`` at n = 1,000,000 (issue 20, item 7a: validate once at the door).

Target: <= 10 ms (20,000 resamples). Reference in the same run: one numpy pass that builds
the 2x2 table (``np.count_nonzero`` of the four cells), the least any implementation must do.
Also counts how often the checks run inside one call (``is_binary``, ``checks.values``,
``cells``): each should run once per input vector at the public entry, not in every helper.
"""
from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.timing import best  # noqa: E402

import core.checks as checks  # noqa: E402
import core.paired.compare as paired  # noqa: E402
import core.paired.significance as paired_tests  # noqa: E402
import core.paired.stats as stats  # noqa: E402


def _count_calls(fn):
    """Run ``fn`` once with counting wrappers around the checks, in every module that
    imported them by name; return the counts."""
    counts = Counter()
    patched = []
    for name, owner_mods in (("is_binary", (stats, paired, paired_tests)),
                             ("cells", (stats, paired, paired_tests)),
                             ("values", (checks,))):
        for mod in owner_mods:
            orig = getattr(mod, name, None)
            if orig is None:
                continue

            def wrap(*a, _orig=orig, _name=name, **k):
                counts[_name] += 1
                return _orig(*a, **k)
            setattr(mod, name, wrap)
            patched.append((mod, name, orig))
    try:
        fn()
    finally:
        for mod, name, orig in patched:
            setattr(mod, name, orig)
    return counts


def main() -> None:
    rng = np.random.default_rng(0)
    n = 1_000_000
    a = (rng.random(n) < 0.8).astype(float)
    b = np.where(rng.random(n) < 0.2, 1 - a, a)
    paired.compare_paired(a[:50], b[:50], resamples=100)  # warm imports
    ours = best(lambda: paired.compare_paired(a, b, resamples=20_000, seed=0), repeat=7)

    def table():
        a1, b1 = a == 1, b == 1
        return (np.count_nonzero(a1 & b1), np.count_nonzero(a1 & ~b1),
                np.count_nonzero(~a1 & b1), np.count_nonzero(~a1 & ~b1))
    ref = best(table, repeat=7)
    counts = _count_calls(lambda: paired.compare_paired(a, b, resamples=20_000, seed=0))
    print(f"binary compare_paired n=1,000,000, 20,000 resamples: {ours * 1e3:.1f} ms "
          f"(target <= 10 ms); one numpy pass building the 2x2 table {ref * 1e3:.1f} ms -> "
          f"{ours / ref:.1f}x that pass")
    print("checks inside one call: " + ", ".join(f"{k} {counts[k]}x"
                                                  for k in ("is_binary", "values", "cells")))

    # the self-checks under the card (issue 19 item 4): <= 1 s for n <= 1,000, 1,000 null sets
    # of each kind (sign flips and centred resamples)
    from core.paired.calibration import calibrate_scores, calibrate_table
    d = rng.normal(0.02, 0.3, 1_000)
    calibrate_scores(d[:30], interval="expanded_percentile", sets=20)   # compile once
    for interval in ("calibrated_t", "t", "expanded_percentile", "bootstrap_t", "percentile",
                     "bca"):
        secs = best(lambda: calibrate_scores(d, interval=interval), repeat=2)
        one = best(lambda: paired.compare_paired(np.zeros(1_000), d, interval=interval,
                                                  resamples=20_000), repeat=2)
        print(f"self-checks, scores n=1,000, 2 x 1,000 null sets, {interval}: {secs:.2f} s "
              f"(target <= 1 s); one comparison with 20,000 resamples {one:.2f} s")
    secs = best(lambda: calibrate_table(300, 250, 200, 250, interval="tango"), repeat=3)
    print(f"self-checks, 0/1 n=1,000 with 450 discordant pairs, tango (exact sign flips and "
          f"1,000 resampled tables): {secs * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
