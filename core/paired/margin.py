"""A margin delta: "can we switch to B without losing more than delta?" (issue 23).

The superiority verdict (``core.paired.compare.decide``) asks "is B better?". With a margin delta >= 0
on the difference's own scale (0.02 = 2 %p for 0/1 outcomes, score units for scores) the
question becomes one of four answers about B - A (new minus baseline), read off the same
two-sided interval the card shows, [L, U] at level 1 - alpha, and the matching one-sided
tests at level alpha/2 (so each test agrees with one end of that interval):

- ``equivalent`` (two one-sided tests, Schuirmann 1987): L > -delta and U < delta, and both
  H0: B - A <= -delta and H0: B - A >= delta are rejected at alpha/2; ``p_equivalence`` is
  the larger of the two p-values;
- ``non_inferior``: L > -delta and H0: B - A <= -delta is rejected at alpha/2
  ("B is not worse than A by more than delta");
- ``inferior``: U < -delta and H0: B - A >= -delta is rejected at alpha/2
  ("B is worse than A by more than delta");
- ``inconclusive``: otherwise (the interval holds -delta, or the test does not agree).

There is no separate "superior": a B that is better is also non-inferior, and the
superiority verdict stays on the card beside the margin's answer. Like
``core.paired.stats.verdict``, an interval end within 1e-12 (relative) of -delta or delta counts as
on it (``core.paired.intervals.side``), so an end printed as the margin never decides.

The tests. 0/1 outcomes (a paired 2x2 table): Tango's score statistic for the difference
of paired proportions with a margin (Tango 1998, "Equivalence test and confidence interval for
the difference in proportions for the paired-sample design", *Statistics in Medicine*
17:891-908; the same statistic as Nam 1997, *Biometrics* 53:1422-1430), T of
``core.paired.difference.tango_statistic``. Up to ``EXACT_MAX_N`` (200) cases its p-value is exact
unconditional (``exact_unconditional_p``: the largest tail probability over the unknown
discordance), because the asymptotic p let "non-inferior" through in up to 3.1% of tables at
B - A = -delta with 20 cases (``docs/margin.md``); above, the asymptotic

    p_noninferior = 1 - Phi(T(-delta)),   p_inferior = Phi(T(-delta)),   p_upper = Phi(T(delta)).

The asymptotic test inverts to Tango's interval (the default 0/1 interval), so the bound
condition and that test agree; the exact p is larger or equal in practice, so it is the one
that can hold a verdict back ("test_disagrees"). At delta = 0, T is McNemar's statistic
(Tango 1998, section 2): the test is the one-sided McNemar test (exact unconditional,
Suissa & Shuster 1991, up to 200 cases).
Scores: the one-sided sign-flip randomization test on d_i + delta
(``core.paired.significance.shifted_signflip_p``), exact up to 20 non-zero values; at delta = 0 its
p is half the two-sided p of the superiority verdict's test, so a zero margin says
``non_inferior`` exactly when the verdict says "B is better". **It assumes symmetry**: it is
exact when, under H0, each d_i + delta is as likely to be -(d_i + delta), which fails on
tie-heavy scores: when B is delta worse, the tied cases stay at exactly 0, so d + delta has a
spike at +delta off its mean, and the sign-flip test and the interval's lower end said
"non-inferior" in 3.0-3.7% of such data sets at n = 20-50 (half the cases tied; promise
2.5%). So with delta > 0 each one-sided p is the larger of the sign-flip p and that of
``tie_kept_bootstrap_p`` (test ``signflip_tie_bootstrap``): a studentized bootstrap test from
the null population built from the data with the ties kept at 0 and the other differences
shifted, which needs no symmetry (``bench/margin_ties.py``, ``docs/margin.md``). At
delta = 0 the ties sit on the null value and the sign-flip test alone stays (the zero-margin
property above); data that are all ties keep it too (no null can be built from them).
**Skew** (issue 36): with delta > 0 the interval the rule reads for scores is the card's,
each end also moved out to the skew guard's at half its noise allowance
(``core.paired.skew_intervals.skew_guard_interval(d, confidence, MARGIN_GUARD_ALLOWANCE)``,
bounded to [-1, 1] for unit scores): the card's guard was tuned for the verdict's two-sided
5.5% goal, and on left-skewed differences (skewness -2, 18% ties) its lower end let
"non-inferior" through in 2.6-3.3% of data sets at n = 20 when B was exactly delta worse;
at half the allowance 2.1-2.6% (3,000-4,000 sets, ``bench/margin_ties.py``). ``ci_low`` /
``ci_high`` of the result are those ends (at delta = 0, and for 0/1 tables, the card's).

The self-check (issue 36). When the comparison's self-check withholds its superiority verdict
(``core.paired.calibration.Calibration.withholds``: on null sets shaped like these data the
interval leaves out its null value in twice the promise or more), the interval cannot keep its
promise on data shaped like these at this n, and any answer read off it is withheld too:
"non-inferior", "equivalent" and "inferior" become "inconclusive" with the reason
``withheld_self_check`` (the self-check's figure and its n in ``reason_params``). The
interval is translation-equivariant, so its honesty at 0 on these data's shape is its
honesty at -delta. A zero margin thus still says ``non_inferior`` exactly when the
superiority verdict says "B is better".

``docs/margin.md`` (``bench/margin.py``) measures P(non-inferior) when B - A is exactly
-delta (the promise: at most alpha/2 = 2.5%) on 0/1 pairs by exact enumeration and on real
per-query score differences, and the power at B - A = 0 beside a naive "cannot tell ->
switch" rule.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from statistics import NormalDist
from typing import Literal

import numpy as np

from core import checks
from core.paired.calibration import calibrate_comparison
from core.paired.compare import PairedComparison
from core.paired.difference import tango_statistic
from core.paired.intervals import side
from core.paired.significance import shifted_signflip_p
from core.paired.resampling import difference_draws
from core.paired.stats import significance_level
from core.paired.skew_intervals import skew_guard_interval

_NORMAL = NormalDist()

MarginVerdict = Literal["non_inferior", "equivalent", "inferior", "inconclusive"]
VERDICTS = ("equivalent", "non_inferior", "inferior", "inconclusive")
REASONS = ("inside_margin", "lower_above_margin", "upper_below_margin", "ci_holds_margin",
           "test_disagrees", "withheld_self_check")
TESTS = ("tango_exact", "tango_score", "signflip_shifted", "signflip_tie_bootstrap")
MARGIN_GUARD_ALLOWANCE = 0.5   # the skew guard's noise allowance for a score margin (issue 36)
EXACT_MAX_N = 200      # 0/1 tables up to this many cases get the exact unconditional test


@dataclass(frozen=True)
class MarginResult:
    """The margin's answer for B - A (new minus baseline).

    ``margin`` is delta on the difference's scale; ``ci_low``/``ci_high`` the two-sided
    interval of B - A the card shows (at ``confidence``); ``alpha`` the one-sided level of each
    test (half of 1 - confidence). ``p_noninferior`` tests H0: B - A <= -delta,
    ``p_inferior`` H0: B - A >= -delta, ``p_upper`` H0: B - A >= delta; ``p_equivalence`` =
    max(p_noninferior, p_upper) (two one-sided tests). ``reason_key`` (one of ``REASONS``)
    and ``reason_params`` say why, for ``core.views.margin``. ``kind`` is "rate" (0/1
    outcomes) or "score"; ``mean`` is B - A."""

    margin: float
    verdict: MarginVerdict
    mean: float
    ci_low: float
    ci_high: float
    confidence: float
    alpha: float
    p_noninferior: float
    p_inferior: float
    p_upper: float
    p_equivalence: float
    test_name: str
    exact: bool
    kind: str
    n: int
    reason_key: str
    reason_params: dict

    def to_dict(self) -> dict:
        return {"margin": self.margin, "verdict": self.verdict, "b_minus_a": self.mean,
                "ci_low": self.ci_low, "ci_high": self.ci_high,
                "confidence": self.confidence, "alpha_one_sided": self.alpha,
                "p_noninferior": self.p_noninferior, "p_inferior": self.p_inferior,
                "p_upper": self.p_upper, "p_equivalence": self.p_equivalence,
                "test": self.test_name, "exact": self.exact, "kind": self.kind, "n": self.n,
                "reason": self.reason_key, "reason_params": dict(self.reason_params)}


def margin_decision(comparison, margin: float, *,
                    confidence: float | None = None) -> MarginResult:
    """The margin's answer (see the module docstring) for the one paired result
    (``core.paired.compare.PairedComparison``; a golden file's is its ``.comparison``) and a
    margin delta >= 0 on the difference's own scale (0.02 = 2 %p for 0/1 outcomes, below 1; score units for scores).

    The interval is the comparison's own CI of B - A (the one on the card); ``confidence``,
    when given, must equal its level (the tests run at half of 1 - confidence, one-sided,
    so that they match that interval). The score test reuses the comparison's seed and
    resamples when it is Monte-Carlo. A conclusive answer is withheld ("inconclusive",
    reason ``withheld_self_check``) when the comparison's self-check withholds (module
    docstring; the self-check the comparison kept, else run here, ``calibrate_comparison``)."""
    comparison = checks.instance("comparison", comparison, PairedComparison,
                                 "a PairedComparison (core.paired.compare.compare_paired)")
    bs, data = comparison.bootstrap, comparison.data
    margin = checks.margin(margin, binary=data.binary, span=None if data.binary else
                           score_span(data.a, data.b))
    conf = checks.confidence(bs.confidence if confidence is None else confidence)
    if not math.isclose(conf, bs.confidence, rel_tol=0, abs_tol=1e-12):
        raise ValueError(f"confidence {conf!r} differs from the comparison's interval level "
                         f"{bs.confidence!r}; compare again at that level")
    alpha = significance_level(conf) / 2
    if data.binary:
        _, a_only, b_only, _ = data.table
        n = data.n
        p_ni = noninferior_p(b_only, a_only, n, margin)
        if n <= EXACT_MAX_N:
            p_inf = exact_unconditional_p(b_only, a_only, n, -margin, upper=False)
            p_up = exact_unconditional_p(b_only, a_only, n, margin, upper=False)
            test, exact = "tango_exact", True
        else:
            p_inf = tango_asymptotic_p(b_only, a_only, n, -margin, upper=False)
            p_up = tango_asymptotic_p(b_only, a_only, n, margin, upper=False)
            test, exact = "tango_score", False
    else:
        d = data.d
        kw = dict(resamples=bs.resamples, seed=bs.seed)
        ni = shifted_signflip_p(d, margin, alternative="greater", **kw)
        inf = shifted_signflip_p(d, margin, alternative="less", **kw)
        up = shifted_signflip_p(d, -margin, alternative="less", **kw)
        p_ni, p_inf, p_up = ni.p, inf.p, up.p
        test, exact = "signflip_shifted", ni.exact and inf.exact and up.exact
        if margin > 0:   # the ties sit off the null value: the tie-kept test must agree too
            tie = [tie_kept_bootstrap_p(d, at, upper=upper, **kw)
                   for at, upper in ((-margin, True), (-margin, False), (margin, False))]
            if tie[0] is not None:
                p_ni, p_inf, p_up = (max(p, q) for p, q in zip((p_ni, p_inf, p_up), tie))
                test, exact = "signflip_tie_bootstrap", False
    lo, hi = float(bs.ci_low), float(bs.ci_high)
    if not data.binary and margin > 0:   # the skew guard at half its noise allowance
        g_lo, g_hi = skew_guard_interval(d[None, :], conf, MARGIN_GUARD_ALLOWANCE)
        lo, hi = min(lo, float(g_lo[0])), max(hi, float(g_hi[0]))
        if data.unit_scores:
            lo, hi = max(lo, -1.0), min(hi, 1.0)
    result = _decide(margin, float(bs.mean), lo, hi, conf, alpha,
                     float(p_ni), float(p_inf), float(p_up), test, exact,
                     "rate" if data.binary else "score", data.n)
    if result.verdict == "inconclusive":
        return result
    cal = comparison.calibration
    if cal is None:   # not kept (a verdict-only comparison): run it now, as decide would
        cal = calibrate_comparison(bs, data)
    return _withhold(result, cal)


def _withhold(result: MarginResult, calibration) -> MarginResult:
    """``result`` made "inconclusive" with the reason ``withheld_self_check`` when the
    self-check ``calibration`` (a ``core.paired.calibration.Calibration`` of the same
    comparison, or None: not measured) withholds (``Calibration.withholds``), else
    ``result`` itself; ``reason_params`` then carry the answer withheld (``withheld``), the
    self-check's figure (``rate``, its
    ``Calibration.shown``), the stated level (``level``), the promise and its n. The caller
    checked both."""
    if calibration is None or not calibration.withholds or result.verdict == "inconclusive":
        return result
    params = dict(result.reason_params, withheld=result.verdict, rate=calibration.shown,
                  level=calibration.withhold_above, promise=calibration.promise,
                  n=calibration.n)
    return replace(result, verdict="inconclusive", reason_key="withheld_self_check",
                   reason_params=params)


def tie_kept_bootstrap_p(d: np.ndarray, delta0: float, *, upper: bool, resamples: int,
                         seed: int) -> float | None:
    """One-sided p of a test of the mean of the differences ``d`` (B - A, scores; the caller
    checked them) against ``delta0`` that keeps the ties at 0 (issue 36): H0 mean(d) <=
    delta0 (``upper``) or mean(d) >= delta0.

    Under "B is worse than A by delta", the cases where B and A score the same stay tied at
    exactly 0 and the other differences carry the loss; then the null distribution of d + delta
    has a spike at +delta, off its mean, and is not symmetric: the sign-flip test on d + delta
    (``shifted_signflip_p``, exact only for a symmetric null) and the interval's lower end let
    "non-inferior" through in about 3-4% of tie-heavy data sets at n = 20-50 (half the cases
    tied, B - A = -delta; ``docs/margin.md``). This test builds that null from the data: the
    m non-zero differences shifted by c = (mean(d) - delta0) n / m, the ties kept at 0, so the
    null population's mean is delta0, and compares the studentized statistic

        T = (mean(d) - delta0) / (s / sqrt(n))

    with its distribution over ``resamples`` bootstrap resamples of that population
    (``core.paired.resampling.difference_draws``, the stream of ``seed``): p = (1 + #{T* >= T}) /
    (1 + R) (``upper``; T* <= T otherwise), a resample with SD 0 counting as +/-inf by the sign
    of mean* - delta0 (0 when equal). This is the bootstrap-t test (Efron & Tibshirani 1993,
    ch. 16.4: resampling from a null-shifted population) with a null that shifts only the
    non-zero values. Without ties it is the bootstrap-t test of the calibrated interval (a
    shift of every value). None when there is no non-zero difference (the null cannot be
    built: the data are all ties, whose mean is 0)."""
    n = d.size
    nz = d != 0
    m = int(nz.sum())
    if m == 0 or n < 2:
        return None
    xbar = float(d.mean())
    d0 = np.where(nz, d - (xbar - delta0) * n / m, 0.0)
    means, sds = difference_draws(np.ascontiguousarray(d0), resamples, seed, True)
    sds = sds[0]
    scale = max(float(np.max(np.abs(d))), abs(delta0), 1e-300)
    tol = 1e-12 * scale
    s = float(d.std(ddof=1))
    dev = xbar - delta0
    t_obs = dev / (s / math.sqrt(n)) if s > 0 else (math.copysign(math.inf, dev)
                                                     if abs(dev) > tol else 0.0)
    dev_star = means - delta0
    with np.errstate(divide="ignore", invalid="ignore"):
        t_star = np.where(sds > 0, dev_star / (sds / math.sqrt(n)),
                          np.where(dev_star > tol, math.inf,
                                   np.where(dev_star < -tol, -math.inf, 0.0)))
    t_tol = 1e-9 * max(1.0, abs(t_obs)) if math.isfinite(t_obs) else 0.0
    far = t_star >= t_obs - t_tol if upper else t_star <= t_obs + t_tol
    return (1 + int(np.count_nonzero(far))) / (1 + resamples)


def noninferior_p(b_only: int, a_only: int, n: int, margin: float) -> float:
    """The one-sided p of H0: B - A <= -margin for a paired 2x2 table (``b_only`` = n12,
    ``a_only`` = n21 of ``n`` cases; the caller checked them), as ``margin_decision`` reads
    it: ``exact_unconditional_p`` of Tango's T(-margin) up to ``EXACT_MAX_N`` cases,
    ``tango_asymptotic_p`` above. The planner's exact power
    (``core.planning.noninferiority.exact_noninferiority_power_paired``) calls this same one."""
    if n <= EXACT_MAX_N:
        return exact_unconditional_p(b_only, a_only, n, -margin, upper=True)
    return tango_asymptotic_p(b_only, a_only, n, -margin, upper=True)


def tango_asymptotic_p(b_only: int, a_only: int, n: int, delta0: float, *,
                       upper: bool) -> float:
    """Tango's (1998) asymptotic one-sided p at delta0 (the caller checked the counts):
    1 - Phi(T(delta0)) (``upper``: H0 delta <= delta0) or Phi(T(delta0)) (H0 delta >=
    delta0), T of ``core.paired.difference.tango_statistic``."""
    t = float(tango_statistic(delta0, b_only, a_only, n))
    return _NORMAL.cdf(-t) if upper else _NORMAL.cdf(t)


def exact_unconditional_p(b_only: int, a_only: int, n: int, delta0: float, *,
                          upper: bool) -> float:
    """Exact unconditional p of Tango's score statistic T(delta0) for a paired 2x2 table with
    ``b_only`` = n12 (only B right) and ``a_only`` = n21 of ``n`` cases (the caller checked
    them; -1 < delta0 < 1). Under H0 the table is trinomial with p12 - p21 = delta0 and the
    discordance psi = p12 + p21 unknown (a nuisance parameter); the p-value is the largest
    probability, over psi in [|delta0|, 1], of a table at least as extreme by T
    (``upper``: T >= T_obs, else T <= T_obs):

        p = sup_psi  sum_{tables: T >= T_obs}  n! / (n12! n21! n_rest!)
                        p12^n12 p21^n21 (1 - psi)^n_rest,  p12 = (psi + delta0)/2,

    the exact unconditional test of Suissa & Shuster (1991, "The 2 x 2 matched-pairs trial:
    exact unconditional design and analysis", *Biometrics* 47:361-372) for delta0 = 0, with a
    margin as in Chan (1998, *Statistics in Medicine* 17:1403-1413) and Sidik (2003, "Exact
    unconditional tests for testing non-inferiority in matched-pairs design", *Statistics in
    Medicine* 22:265-278), ordered by Tango's statistic. Its size is at most the nominal level at every psi (up to the grid: 201
    points on [|delta0|, 1], refined with 101 points around the largest). Tango's
    asymptotic test (``tango_statistic``) let "non-inferior" through in up to 3.1% of tables
    at n = 20 (docs/margin.md); this one never exceeds 2.5% there. Every table of n cases is
    enumerated, so it is used up to ``EXACT_MAX_N`` cases."""
    from scipy.special import gammaln, xlogy   # only when a margin is asked for
    n12, n21 = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")
    keep = n12 + n21 <= n
    n12, n21 = n12[keep].astype(float), n21[keep].astype(float)
    t_all = tango_statistic(delta0, n12, n21, n)
    t_obs = float(tango_statistic(delta0, b_only, a_only, n))
    tol = 1e-9 * max(1.0, abs(t_obs))
    region = t_all >= t_obs - tol if upper else t_all <= t_obs + tol
    k12, k21 = n12[region], n21[region]
    rest = n - k12 - k21
    logc = gammaln(n + 1) - gammaln(k12 + 1) - gammaln(k21 + 1) - gammaln(rest + 1)

    def tail(psi):
        out = np.empty(psi.size)
        for s in range(0, psi.size, 64):
            ps = psi[s:s + 64, None]
            log_p = (logc + xlogy(k12, (ps + delta0) / 2) + xlogy(k21, (ps - delta0) / 2)
                     + xlogy(rest, 1 - ps))
            out[s:s + 64] = np.exp(log_p).sum(axis=1)
        return out

    lo = abs(delta0)
    grid = np.linspace(lo, 1.0, 201)
    vals = tail(grid)
    i = int(np.argmax(vals))
    fine = np.linspace(grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)], 101)
    return float(min(1.0, max(vals.max(), tail(fine).max())))


def margin_rule(margin: float, ci_low: float, ci_high: float, p_noninferior: float,
                p_inferior: float, p_upper: float, alpha: float) -> tuple[str, str]:
    """(verdict, reason) of the margin rule from the interval [ci_low, ci_high] of B - A and
    the three one-sided p-values, each compared with ``alpha`` (the caller checked them).
    An end within 1e-12 of the margin (relative to max(|ends|, margin)) is on it."""
    scale = max(abs(ci_low), abs(ci_high), margin)
    lower = side(ci_low + margin, ci_high + margin, scale)    # +1: L > -delta; -1: U < -delta
    upper = side(ci_low - margin, ci_high - margin, scale)    # -1: U < delta
    ni = lower > 0 and p_noninferior < alpha
    if ni and margin > 0 and upper < 0 and p_upper < alpha:
        return "equivalent", "inside_margin"
    if ni:
        return "non_inferior", "lower_above_margin"
    if lower < 0 and p_inferior < alpha:
        return "inferior", "upper_below_margin"
    if lower != 0:   # the interval is on one side of -delta but its test does not agree
        return "inconclusive", "test_disagrees"
    return "inconclusive", "ci_holds_margin"


def _decide(margin, mean, ci_low, ci_high, confidence, alpha, p_ni, p_inf, p_up, test, exact,
            kind, n) -> MarginResult:
    verdict, reason = margin_rule(margin, ci_low, ci_high, p_ni, p_inf, p_up, alpha)
    p_eq = max(p_ni, p_up)
    params = {"margin": margin, "ci_low": ci_low, "ci_high": ci_high, "alpha": alpha,
              "p": p_eq if verdict == "equivalent" else
              p_inf if verdict == "inferior" else p_ni}
    return MarginResult(margin, verdict, mean, ci_low, ci_high, confidence, alpha, p_ni, p_inf,
                        p_up, p_eq, test, exact, kind, n, reason, params)


def score_span(a, b) -> float:
    """The largest loss B - A can show on these scores: 1 when every score is in [0, 1] (the
    scale of nDCG, recall, a judge's 0-1 score), else the range of the values seen."""
    lo, hi = float(min(np.min(a), np.min(b))), float(max(np.max(a), np.max(b)))
    return 1.0 if 0.0 <= lo and hi <= 1.0 else hi - lo
