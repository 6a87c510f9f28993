"""Does the planner's non-inferiority n give the power it promises? (issue 23, item 4.)

For each setting the planner (``core.sample_size_margin``) gives n, the cases needed for 80%
power to show that B loses at most the margin delta when the true difference B − A is Delta.
Each simulated data set of n cases is then judged by the rule of the margin verdict
(``core.margin``): non-inferior (or equivalent) when the lower end of the two-sided 95%
interval of B − A is above −delta AND the one-sided test of H0: B − A <= −delta rejects at
2.5%. The share of sets judged so is the power; the goal is 0.80 +/- 0.03.

* 0/1 outcomes: tables of n paired cases drawn from the trinomial (only B right, only A
  right, agree) with discordance d and difference Delta; Tango's score interval
  (``core.intervals.tango_limits``, the 0/1 default) and Tango's score test with the margin
  (``core.intervals.tango_statistic``), combined by ``core.margin.margin_rule``; the plan is
  ``n_noninferiority_paired`` (Nam 1997).
* scores: n values drawn with replacement from a population of per-case differences B − A
  with mean Delta: a normal one (SD 0.3), and the real per-query nDCG@10 differences of dense
  and BM25 on BEIR scifact's 300 judged test queries (centred, then shifted to Delta; 53% of
  them are exactly 0, so this is far from normal); the t-interval (the score default) and
  the one-sided sign-flip test on d + delta (``core.paired_tests.shifted_signflip_p``, here
  Monte-Carlo with a shared sign matrix); the plan is ``n_noninferiority_continuous`` with the
  population's SD (one-sided paired t).

A check at the start runs ``core.margin.margin_decision`` on real comparisons of the first
simulated sets of each 0/1 setting and counts how often it agrees with the vectorised rule.

``--quick`` runs fewer sets (2,000 tables, 500 score sets) and does not write the table;
otherwise it is written to ``docs/noninferiority_plan.md``.
"""
from __future__ import annotations

import os
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
from scipy import stats as st

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.intervals import tango_limits, tango_statistic, z_two_sided  # noqa: E402
from core.margin import margin_decision, margin_rule  # noqa: E402
from core.paired import compare_paired  # noqa: E402
from core.sample_size_margin import (n_noninferiority_continuous,  # noqa: E402
                                     n_noninferiority_paired)

OUT = ROOT / "docs" / "noninferiority_plan.md"
CONFIDENCE, POWER = 0.95, 0.80
ALPHA1 = (1 - CONFIDENCE) / 2
SEED = 20261223
PAIRED = [  # (discordance d, margin delta, true B − A)
    (0.06, 0.02, 0.0), (0.10, 0.02, 0.0), (0.10, 0.05, 0.0), (0.20, 0.05, 0.0),
    (0.20, 0.05, 0.01), (0.20, 0.05, -0.01), (0.30, 0.10, 0.0), (0.40, 0.15, 0.0),
    (0.25, 0.10, 0.02)]
SCORE_MARGINS = {"normal, SD 0.3": (0.05, 0.10), "scifact dense − BM25": (0.05, 0.10, 0.20)}


def paired_power(d: float, margin: float, delta: float, n: int, sets: int,
                 rng: np.random.Generator) -> tuple[float, np.ndarray]:
    """Share of ``sets`` simulated tables judged non-inferior (or equivalent), and the tables
    (n12 = only B right, n21 = only A right)."""
    q = [(d + delta) / 2, (d - delta) / 2, 1 - d]
    counts = rng.multinomial(n, q, size=sets)
    n12, n21 = counts[:, 0].astype(float), counts[:, 1].astype(float)
    lo, hi = tango_limits(n12, n21, np.full(sets, float(n)), z_two_sided(CONFIDENCE))
    t_lo = tango_statistic(-margin, n12, n21, float(n))
    t_hi = tango_statistic(margin, n12, n21, float(n))
    p_ni, p_inf, p_up = st.norm.sf(t_lo), st.norm.cdf(t_lo), st.norm.cdf(t_hi)
    ok = [margin_rule(margin, lo[i], hi[i], p_ni[i], p_inf[i], p_up[i], ALPHA1)[0]
          in ("non_inferior", "equivalent") for i in range(sets)]
    return float(np.mean(ok)), counts


def agreement_with_core(counts: np.ndarray, n: int, margin: float, k: int) -> tuple[int, int]:
    """(agreements, checked): ``core.margin.margin_decision`` on real comparisons of the first
    ``k`` tables against the vectorised rule above."""
    agree = 0
    for n12, n21, _ in counts[:k]:
        a = np.r_[np.zeros(n12), np.ones(n21), np.ones(n - n12 - n21)]
        b = np.r_[np.ones(n12), np.zeros(n21), np.ones(n - n12 - n21)]
        comp = compare_paired(a, b, resamples=1000, confidence=CONFIDENCE, seed=1)
        core_ok = margin_decision(comp, margin).verdict in ("non_inferior", "equivalent")
        lo, hi = tango_limits(float(n12), float(n21), float(n), z_two_sided(CONFIDENCE))
        t_lo = float(tango_statistic(-margin, n12, n21, n))
        t_hi = float(tango_statistic(margin, n12, n21, n))
        mine = margin_rule(margin, float(lo), float(hi), st.norm.sf(t_lo), st.norm.cdf(t_lo),
                           st.norm.cdf(t_hi), ALPHA1)[0] in ("non_inferior", "equivalent")
        agree += core_ok == mine
    return agree, k


def score_power(pop: np.ndarray, margin: float, delta: float, n: int, sets: int,
                signs: int, rng: np.random.Generator) -> float:
    """Share of ``sets`` draws of n values (mean ``delta``) whose t-interval's lower end is
    above −margin and whose one-sided sign-flip p of d + margin is below alpha/2."""
    x = rng.choice(pop - pop.mean() + delta, size=(sets, n))
    m, s = x.mean(axis=1), x.std(axis=1, ddof=1)
    lower = m - st.t.ppf(1 - ALPHA1, n - 1) * s / np.sqrt(n)
    shifted = x + margin
    flips = rng.choice([-1.0, 1.0], size=(signs, n))
    obs = shifted.sum(axis=1)
    null = shifted @ flips.T
    tol = 1e-12 * np.maximum(1.0, np.abs(shifted).sum(axis=1))
    p = (1 + np.sum(null >= (obs - tol)[:, None], axis=1)) / (1 + signs)
    return float(np.mean((lower > -margin) & (p < ALPHA1)))


def scifact_population():
    """The real per-query differences (``bench/calibration.scifact_differences``), or None."""
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        from calibration import scifact_differences
        d, note = scifact_differences()
    except Exception as exc:  # noqa: BLE001 - a bench reports and goes on
        return None, f"scifact not available ({exc})"
    return d, note


def main() -> None:
    quick = "--quick" in sys.argv
    sets, score_sets, signs, check = (2000, 500, 500, 10) if quick else (20000, 4000, 2000, 40)
    rng = np.random.default_rng(SEED)
    t0 = time.perf_counter()
    rows = []
    agree_total = [0, 0]
    for d, margin, delta in PAIRED:
        n = n_noninferiority_paired(d, delta, margin, alpha=1 - CONFIDENCE, power=POWER)
        power, counts = paired_power(d, margin, delta, n, sets, rng)
        ag, k = agreement_with_core(counts, n, margin, check)
        agree_total[0] += ag
        agree_total[1] += k
        se = np.sqrt(power * (1 - power) / sets)
        rows.append(("0/1 pairs", f"d = {100 * d:g}%", f"{100 * margin:g} %p",
                     f"{100 * delta:+g} %p", n, power, se))
        print(f"0/1 d={d:g} margin={margin:g} Delta={delta:+g}: n = {n:,}, power "
              f"{power:.3f} (+/- {1.96 * se:.3f})", flush=True)
    pops = {"normal, SD 0.3": (rng.normal(0, 0.3, 200_000), "normal(0, 0.3), 200,000 draws")}
    real, note = scifact_population()
    print(f"scifact: {note}", flush=True)
    if real is not None:
        pops["scifact dense − BM25"] = (real, note)
    for name, (pop, _) in pops.items():
        sd = float(np.std(pop, ddof=1))
        for margin in SCORE_MARGINS[name]:
            n = n_noninferiority_continuous(0.0, round(sd, 3), margin,
                                            alpha=1 - CONFIDENCE, power=POWER)
            power = score_power(pop, margin, 0.0, n, score_sets, signs, rng)
            se = np.sqrt(power * (1 - power) / score_sets)
            rows.append((f"scores: {name}", f"SD = {sd:.3f}", f"{margin:g}", "0", n, power, se))
            print(f"scores {name} margin={margin:g}: n = {n:,}, power {power:.3f} "
                  f"(+/- {1.96 * se:.3f})", flush=True)
    wall = time.perf_counter() - t0
    print(f"core.margin.margin_decision agrees with the vectorised 0/1 rule on "
          f"{agree_total[0]}/{agree_total[1]} tables; {wall:.0f} s")
    within = sum(abs(r[5] - POWER) <= 0.03 for r in rows)
    print(f"{within}/{len(rows)} settings within 0.80 +/- 0.03")
    if quick:
        return
    load = os.getloadavg()
    lines = [
        "# The planner's non-inferiority n: power in simulation",
        "",
        f"Written by `python bench/noninferiority_plan.py` (also run by `bench/run.py`) on "
        f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, load average "
        f"{load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} on {os.cpu_count()} cores, "
        f"{wall:.0f} s. Seed {SEED}.",
        "",
        "For each setting the planner (`core.sample_size_margin`) gives n for 80% power to "
        "show non-inferiority at the margin (95% two-sided interval, one-sided tests at 2.5%). "
        "Data sets of that n are simulated and judged by the margin verdict's rule "
        "(`core.margin.margin_rule`: the interval's lower end above −δ and the one-sided test "
        "agreeing). **Goal: power 0.80 ± 0.03.** 0/1 pairs: "
        f"{sets:,} tables per setting, Tango's interval and score test (plan: Nam 1997). "
        f"Scores: {score_sets:,} sets per setting, t-interval and a {signs:,}-sign "
        "Monte-Carlo sign-flip test on d + δ (plan: one-sided paired t with the population SD); "
        "true difference 0.",
        "",
        "| data | spread | margin δ | true B − A | planned n | power | ± (95% MC) |",
        "|---|---|---|---|---:|---:|---:|",
    ]
    lines += [f"| {a} | {b} | {c} | {d_} | {n:,} | {p:.3f} | {1.96 * se:.3f} |"
              for a, b, c, d_, n, p, se in rows]
    lines += [
        "",
        f"{within} of {len(rows)} settings are within 0.80 ± 0.03. "
        f"`core.margin.margin_decision`, run on real comparisons of the first {check} tables "
        f"of each 0/1 setting, gave the same answer as the vectorised rule on "
        f"{agree_total[0]} of {agree_total[1]}.",
        "",
        f"Scores population notes: {'; '.join(v[1] for v in pops.values())}.",
        "",
    ]
    OUT.write_text("\n".join(lines), encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
