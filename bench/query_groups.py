"""Do the per-group verdicts and the interaction test keep their promises? (``core.inputs.groups``,
issue 24.)

The per-query differences d = nDCG@10(dense) − nDCG@10(bm25) on BEIR scifact's 300 judged
test queries (``core.retrieval.scifact``, shipped vectors or the cache, as ``bench/best_set.py``) are
centred (d − mean d), so no group has a true difference. Each simulated set draws n = 60
queries with replacement, gives them random groups of 30, 20 and 10 (labels unrelated to
the data) and runs ``core.inputs.groups.compare_by_group`` at 95%:

* ``null``: every group's true B − A is 0 and the effect is the same everywhere: the share of
  sets with any "better" verdict (the family-wise error; goal <= 5%), the share where every
  corrected interval holds 0 (family-wise coverage; goal >= 95%), the interaction test's
  rejection rate (goal about 5%) and the share of groups called "cannot tell";
* ``one group moves``: the 10-query group gets +0.15 added to its differences (a true
  interaction): how often the interaction test sees it (power) and how often that group is
  called better.

``--quick`` runs 200 sets instead of 1,000 and writes nothing; otherwise the table goes into
``docs/query_groups.md``.
"""
from __future__ import annotations

import os
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.best_set import scifact_scores  # noqa: E402
from core.inputs.groups import compare_by_group  # noqa: E402

OUT = ROOT / "docs" / "query_groups.md"
SIZES = (30, 20, 10)
RESAMPLES = 2_000
PERMUTATIONS = 2_000
SHIFT = 0.15


def simulate(d: np.ndarray, a: np.ndarray, runs: int, *, shift: float = 0.0,
             seed: int = 0) -> dict:
    """``runs`` sets of sum(SIZES) queries drawn from the centred differences ``d`` (A's
    values ``a`` with them); the last group gets ``shift`` added to B − A."""
    rng = np.random.default_rng(seed)
    n = sum(SIZES)
    labels = np.repeat([f"g{i}" for i in range(len(SIZES))], SIZES)
    any_better = covered = reject = cannot = groups = moved_better = 0
    for r in range(runs):
        idx = rng.integers(0, len(d), n)
        lab = rng.permutation(labels)
        av = a[idx]
        bv = av + d[idx] + np.where(lab == labels[-1], shift, 0.0)
        ids = [str(i) for i in range(n)]
        gc = compare_by_group(ids, av, bv, dict(zip(ids, lab)), resamples=RESAMPLES,
                              permutations=PERMUTATIONS, seed=r)
        truth = {g: (shift if g == labels[-1] else 0.0) for g in set(labels)}
        any_better += any(g.verdict not in (None, "no_difference") and truth[g.group] == 0
                          for g in gc.groups)
        covered += all(g.ci_low <= truth[g.group] <= g.ci_high for g in gc.groups)
        reject += gc.interaction is not None and gc.interaction.p < 0.05
        cannot += sum(g.status == "cannot_tell" for g in gc.groups)
        groups += len(gc.groups)
        moved_better += any(g.group == labels[-1] and g.verdict == "b_better"
                            for g in gc.groups)
    return {"runs": runs, "fwer": any_better / runs, "coverage": covered / runs,
            "interaction": reject / runs, "cannot_tell": cannot / max(groups, 1),
            "moved_better": moved_better / runs}


def main() -> None:
    quick = "--quick" in sys.argv
    runs = 200 if quick else 1_000
    scores, why = scifact_scores()
    if scores is None:
        print(f"skipped: {why}")
        return
    a = scores["bm25"].to_numpy(float)
    d = scores["dense"].to_numpy(float) - a
    d = d - d.mean()
    t0 = time.perf_counter()
    rows = {"null": simulate(d, a, runs),
            "one group moves (+0.15 in the 10-query group)": simulate(d, a, runs, shift=SHIFT,
                                                                        seed=1)}
    secs = time.perf_counter() - t0
    lines = ["| scenario (n = 60: groups of 30, 20, 10) | any false 'better' (goal <= 5%) "
             "| every corrected CI holds the truth (goal >= 95%) | interaction test rejects "
             "| groups 'cannot tell' | moved group called better | sets |",
             "|---|---|---|---|---|---|---|"]
    for name, r in rows.items():
        lines.append(f"| {name} | {100 * r['fwer']:.1f}% | {100 * r['coverage']:.1f}% | "
                     f"{100 * r['interaction']:.1f}% | {100 * r['cannot_tell']:.1f}% | "
                     f"{100 * r['moved_better']:.1f}% | {r['runs']:,} |")
    print("\n".join(lines))
    print(f"{2 * runs:,} sets in {secs:.0f} s ({1000 * secs / (2 * runs):.0f} ms a set)")
    if quick:
        return
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    doc = ["# Query groups: do the per-group verdicts keep their promises?", "",
           *cost_note(), "",
           "Written by `python bench/query_groups.py` (`python bench/run.py query_groups`; "
           "`--quick` for a short run that writes nothing). Real per-query differences of "
           "dense − BM25 (nDCG@10) on BEIR scifact, centred so that no group differs; random "
           "groups; `core.inputs.groups.compare_by_group` at 95% (Bonferroni-level intervals, Holm "
           "p, the verdict rule, the permutation interaction test with "
           f"{PERMUTATIONS:,} permutations, {RESAMPLES:,} resamples).", "",
           *lines, "",
           f"_{stamp}; load average {load}; {2 * runs:,} sets in {secs:.0f} s._", ""]
    OUT.write_text("\n".join(doc), encoding="utf-8")
    print(f"written to {OUT.relative_to(ROOT)}")


def cost_note() -> list[str]:
    """How the interaction test bounds its work (``core.inputs.groups``), from its own constants."""
    from core.inputs.groups import PERM_BLOCK, PERM_MIN, PERM_SURE, PERM_WORK
    return ["The interaction test's cost: permutations x (cases + groups). Up to "
            f"{PERM_WORK:,} it draws every permutation asked for (10,000 by default, so up to "
            f"{PERM_WORK // 10_000:,} cases). Above that it stops after the first block of "
            f"{PERM_BLOCK:,} permutations whose {100 * PERM_SURE:.1f}% Wilson interval of the "
            "exceedance rate lies wholly on one side of alpha (Besag & Clifford 1991), and "
            f"never draws more than {PERM_WORK:,} / (cases + groups) permutations (at least "
            f"{PERM_MIN:,}, so p = 1/{PERM_MIN + 1:,} stays reachable). The JSON's "
            "`groups_test.interaction` gives `permutations` (used), `permutations_requested` and "
            "`stopped` (`all`, `settled` or `work_limit`)."]


if __name__ == "__main__":
    main()
