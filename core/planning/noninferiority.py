"""The planner's non-inferiority mode: how many cases show that B is not worse than A by
more than a margin delta, with 80% power?

"Not worse by more than delta" is shown when the lower bound of the two-sided (1 - alpha)
interval of B - A lies above -delta, i.e. a one-sided test of H0: B - A <= -delta at level
alpha/2 rejects (``one_sided_alpha``). The plans use the test that bound comes from:

* 0/1 outcomes on the same cases: Tango's (1998) score test with a margin, planned by Nam's
  (1997) formula from the discordance d (share of cases where A and B disagree) and the true
  difference assumed (``n_noninferiority_paired``);
* per-case scores: the one-sided paired t-test with shift delta, by the noncentral t
  (``n_noninferiority_continuous``).

``cases_needed_noninferiority`` runs the plan on a comparison's own data (the next step of an
"inconclusive" verdict, with the planner page's link values). Shares, never percents:
0.02 = 2 %p. Impossible inputs raise ``InputError`` with a ``sample_size.err_*`` code.
Up to ``EXACT_MAX_N`` (200) cases the 0/1 verdict uses the exact unconditional test, so
the 0/1 plan there is checked and moved by that test's exact power
(``exact_noninferiority_power_paired``). ``bench/noninferiority_plan.py`` checks by
simulation that the planned n gives 0.80 +/- 0.03 power (table in
``docs/noninferiority_plan.md``).
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from functools import lru_cache

import numpy as np
import pandas as pd

from core import checks
from core.errors import InputError
from core.paired import (EXACT_MAX_N, PairedComparison, margin_rule, nct_sf, noninferior_p,
                         significance_level, tango_limits, tango_statistic, z_two_sided)
from core.planning.sample_size import (CasesNeeded, MAX_N, cases_needed, ceil_n, data_spread,
                                       smallest_n)


SAW_STEPS = 3   # the downward search stops after this many smaller n in a row below the power
SAW_MAX_N = 100  # ... up to this n; above, the saw teeth are small and it stops at the first


def one_sided_alpha(alpha: float) -> float:
    """The one-sided level of a non-inferiority test whose lower bound is that of the
    two-sided (1 - alpha) interval shown: alpha / 2 (0.025 at 95%). The caller checked
    alpha."""
    return alpha / 2


def _nam_sds(d: float, delta: float, margin: float) -> tuple[float, float]:
    """SDs of one case's B - A under H0 (B - A = -margin, with Tango's restricted estimate
    of the A-only share at the planned table: the denominator of Tango's statistic at N = 1,
    s0 = (Delta + margin) / T(-margin), ``core.paired.difference.tango_statistic``) and under the
    assumed truth (s1 = sqrt(d - Delta^2)). The caller checked Delta > -margin."""
    t = float(tango_statistic(-margin, (d + delta) / 2, (d - delta) / 2, 1.0))
    return (delta + margin) / t, math.sqrt(d - delta * delta)


def noninferiority_power_paired(n, discordance: float, diff: float, margin: float, *,
                                alpha: float = 0.05):
    """Approximate power of Tango's score test of H0: B - A <= -margin at one-sided level
    alpha/2 (``one_sided_alpha``; the test whose rejection is "the lower bound of Tango's
    two-sided interval lies above -margin"), when the true difference is ``diff`` = Delta and
    the discordance d. Nam (1997), "Establishing equivalence of two treatments and sample size
    requirements of matched-pairs design", Biometrics 53:1422-1430::

        power(n) = Phi( ((Delta + margin) sqrt(n) - z(1 - alpha/2) s0) / s1 )

    with s1^2 = d - Delta^2 and s0^2 = 2 p21~ - margin (1 + margin), p21~ Tango's restricted
    estimate of the A-only share under B - A = -margin at the expected table. ``n`` may be an
    array."""
    d, delta = checks.plan_discordance(discordance, diff)
    m, delta = checks.plan_margin(margin, delta)
    alpha = checks.plan_level("alpha", alpha)
    n = checks.at_least("n", n, 1)
    s0, s1 = _nam_sds(d, delta, m)
    from scipy.special import ndtr, ndtri   # = scipy.stats.norm.cdf / .ppf, without scipy.stats
    z = ndtri(1 - one_sided_alpha(alpha))
    pw = ndtr(((delta + m) * np.sqrt(n) - z * s0) / s1)
    return float(pw) if np.ndim(pw) == 0 else pw


def n_noninferiority_paired(discordance: float, diff: float, margin: float, *,
                            alpha: float = 0.05, power: float = 0.8, exact: bool = True) -> int:
    """Cases needed for ``power`` to show non-inferiority at ``margin`` on 0/1 outcomes (Nam
    1997's sample size for Tango's score test, one-sided level alpha/2)::

        n = [ z(1 - alpha/2) s0 + z(power) s1 ]^2 / (Delta + margin)^2

    (``noninferiority_power_paired`` for s0, s1). Up to ``EXACT_MAX_N`` cases the verdict
    uses the exact unconditional test (``core.paired.margin``), so there this n is moved to where
    that test's exact power reaches ``power`` (``_exact_search``,
    ``exact_noninferiority_power_paired``); ``exact=False`` gives Nam's n as it is. ``bench/noninferiority_plan.py`` checks by
    simulation that this n gives 0.80 +/- 0.03 power with the decision rule
    (``docs/noninferiority_plan.md``)."""
    d, delta = checks.plan_discordance(discordance, diff)
    m, delta = checks.plan_margin(margin, delta)
    alpha, power = checks.power_plan_iv(alpha, power)
    s0, s1 = _nam_sds(d, delta, m)
    from scipy.special import ndtri   # = scipy.stats.norm.ppf
    za, zb = ndtri(1 - one_sided_alpha(alpha)), ndtri(power)
    n = (za * s0 + zb * s1) ** 2 / (delta + m) ** 2
    if n > MAX_N:
        raise InputError("sample_size.err_too_many", limit=f"{MAX_N:,}")
    n = max(1, ceil_n(n))
    if not exact or n > EXACT_MAX_N:
        return n
    return _exact_search(n, d, delta, m, alpha, power)


def _exact_search(n0: int, d: float, delta: float, m: float, alpha: float,
                  power: float) -> int:
    """Nam's n0 (<= ``EXACT_MAX_N``) moved to where the verdict's exact test reaches
    ``power`` (``exact_noninferiority_power_paired``): upward from n0 until it does (past
    ``EXACT_MAX_N`` the asymptotic test takes over, whose power Nam's formula gives, so
    ``EXACT_MAX_N`` + 1 is the most), or, when n0 already does, downward to the smallest n
    that does, passing over up to ``SAW_STEPS`` - 1 smaller n in a row that do not when n0 <=
    ``SAW_MAX_N`` (above, the teeth are small and it stops at the first; at most n0 // 4
    steps). The exact power is saw-toothed in n (Chernick & Liu 2002), so a few more
    cases can give a little less power, and the n found can overshoot the target by a few
    points at small n."""
    def ok(k):
        return exact_noninferiority_power_paired(k, d, delta, m, alpha=alpha) >= power
    n = n0
    if not ok(n):
        while n <= EXACT_MAX_N and not ok(n):
            n += 1
        return n
    floor, best, misses = max(1, n0 - n0 // 4), n0, 0
    steps = SAW_STEPS if n0 <= SAW_MAX_N else 1
    while n - 1 >= floor and misses < steps:
        n -= 1
        if ok(n):
            best, misses = n, 0
        else:
            misses += 1
    return best


def noninferior_shown(n12, n21, n: int, margin: float, *, alpha: float = 0.05) -> np.ndarray:
    """For paired 2x2 tables of ``n`` cases (arrays ``n12`` = only B right, ``n21`` = only A
    right; the caller checked them), True where ``core.paired.margin.margin_decision`` answers
    non-inferior or equivalent at ``margin`` with the two-sided (1 - alpha) interval: the
    same ``core.paired.margin.margin_rule`` on Tango's interval (``core.paired.difference.tango_limits``,
    the 0/1 default) and the same p of H0: B - A <= -margin (``core.paired.margin.noninferior_p``:
    exact unconditional up to ``EXACT_MAX_N`` cases, asymptotic above) at alpha/2. Only that
    test can make the answer non-inferior or equivalent, so the other two p-values are
    passed as 1.

    That p falls as Tango's T(-margin) rises (it is the largest probability of the region
    {T >= T_obs}, which shrinks), so p < alpha/2 holds exactly from one rank of T upward: a
    bisection over the tables sorted by T finds it with about log2(#tables) p-values instead
    of one per table (tables with equal T share their p)."""
    n12 = np.asarray(n12, float)
    n21 = np.asarray(n21, float)
    a1 = one_sided_alpha(alpha)
    t = tango_statistic(-margin, n12, n21, float(n))
    order = np.argsort(t, kind="stable")
    lo_k, hi_k = 0, t.size            # first rank that rejects; t.size: none does
    while lo_k < hi_k:
        mid = (lo_k + hi_k) // 2
        i = order[mid]
        if noninferior_p(int(n12[i]), int(n21[i]), n, margin) < a1:
            hi_k = mid
        else:
            lo_k = mid + 1
    shown = np.zeros(t.size, bool)
    cand = order[lo_k:]
    if cand.size:
        lo, hi = tango_limits(n12[cand], n21[cand], np.full(cand.size, float(n)),
                              z_two_sided(1 - alpha))
        shown[cand] = [margin_rule(margin, lo[j], hi[j], 0.0, 1.0, 1.0, a1)[0]
                       in ("non_inferior", "equivalent") for j in range(cand.size)]
    return shown


@lru_cache(maxsize=256)
def _exact_power(n: int, d: float, delta: float, margin: float, alpha: float) -> float:
    from scipy.special import gammaln, xlogy
    n12, n21 = np.meshgrid(np.arange(n + 1.0), np.arange(n + 1.0), indexing="ij")
    keep = n12 + n21 <= n
    n12, n21 = n12[keep], n21[keep]
    rest = n - n12 - n21
    logp = (gammaln(n + 1) - gammaln(n12 + 1) - gammaln(n21 + 1) - gammaln(rest + 1)
            + xlogy(n12, (d + delta) / 2) + xlogy(n21, (d - delta) / 2) + xlogy(rest, 1 - d))
    prob = np.exp(logp)
    live = prob > 1e-15 * prob.max()     # tables that cannot move the power are not judged
    shown = noninferior_shown(n12[live], n21[live], n, margin, alpha=alpha)
    return float(min(1.0, prob[live][shown].sum()))


def exact_noninferiority_power_paired(n: int, discordance: float, diff: float, margin: float,
                                      *, alpha: float = 0.05) -> float:
    """The exact power of the margin verdict on 0/1 outcomes: the probability that
    ``core.paired.margin.margin_decision`` answers non-inferior (or equivalent) for n cases when the
    true B - A is ``diff`` and the discordance d, by enumerating every table (n12, n21, rest)
    with its trinomial probability (p12, p21, 1 - d) = ((d + Delta)/2, (d - Delta)/2, 1 - d)::

        power = sum_{tables shown non-inferior}  n! / (n12! n21! rest!)
                                                  p12^n12 p21^n21 (1 - d)^rest

    (tables below 1e-15 of the likeliest are left out; ``noninferior_shown`` judges the
    rest). Up to ``EXACT_MAX_N`` cases the verdict's test is the exact unconditional one
    (Suissa & Shuster 1991; Chan 1998), whose power is below Nam's (1997) asymptotic
    ``noninferiority_power_paired``; the exact power of a discrete test is not monotone in n
    (Chernick & Liu 2002, "The saw-toothed behavior of power versus sample size and exact
    methods for the binomial", *The American Statistician* 56:149-155). Meant for n up to a
    few hundred (every table of n cases is built)."""
    d, delta = checks.plan_discordance(discordance, diff)
    m, delta = checks.plan_margin(margin, delta)
    alpha = checks.plan_level("alpha", alpha)
    n = checks.whole("n", n, lo=1)
    return _exact_power(int(n), float(d), float(delta), float(m), float(alpha))


def paired_power_at(n: int, discordance: float, diff: float, margin: float, *,
                    alpha: float = 0.05) -> float:
    """The power of the margin verdict at n cases on 0/1 outcomes, as the verdict tests:
    ``exact_noninferiority_power_paired`` up to ``EXACT_MAX_N`` cases (exact test),
    Nam's ``noninferiority_power_paired`` above (asymptotic test)."""
    if n <= EXACT_MAX_N:
        return exact_noninferiority_power_paired(n, discordance, diff, margin, alpha=alpha)
    return noninferiority_power_paired(n, discordance, diff, margin, alpha=alpha)


def noninferiority_power_continuous(n, diff: float, sigma: float, margin: float, *,
                                    alpha: float = 0.05):
    """Power of the one-sided paired t-test of H0: mean(B - A) <= -margin at level alpha/2
    (the lower bound of the two-sided t interval above -margin), when the true mean
    difference is ``diff`` and the per-case differences have SD ``sigma``: with df = n - 1,
    c = t(1 - alpha/2, df) and the noncentrality lambda = (diff + margin) sqrt(n) / sigma,
    power = P(T' > c), T' ~ noncentral t(df, lambda) (Chow, Shao & Wang 2008, "Sample Size
    Calculations in Clinical Research", sec. 3.1). ``n`` (>= 2) may be an array."""
    s = checks.plan_sigma(sigma)
    m, delta = checks.plan_margin(margin, diff)
    alpha = checks.plan_level("alpha", alpha)
    n = checks.at_least("n", n, 2)
    from scipy.special import stdtrit   # = scipy.stats.t.ppf
    c = stdtrit(n - 1, 1 - one_sided_alpha(alpha))
    pw = nct_sf(c, n - 1, (delta + m) * np.sqrt(n) / s)
    return float(pw) if np.ndim(pw) == 0 else pw


def n_noninferiority_continuous(diff: float, sigma: float, margin: float, *,
                                alpha: float = 0.05, power: float = 0.8) -> int:
    """The smallest n >= 2 whose ``noninferiority_power_continuous`` reaches ``power``
    (search over n; the power rises with n)."""
    s = checks.plan_sigma(sigma)
    m, delta = checks.plan_margin(margin, diff)
    alpha, power = checks.power_plan_iv(alpha, power)
    return smallest_n(lambda n: noninferiority_power_continuous(n, delta, s, m, alpha=alpha)
                      >= power, start=2)


def noninferiority_power_curve(*, diff: float, margin: float, n_max: int, alpha: float = 0.05,
                               discordance: float | None = None, sigma: float | None = None,
                               points: int = 80) -> pd.DataFrame:
    """The power to show non-inferiority against n on a log grid 2..n_max (at most ``points``
    rows, columns ``n`` and ``power``): ``noninferiority_power_paired`` with ``discordance``,
    ``noninferiority_power_continuous`` with ``sigma`` (give exactly one)."""
    if (discordance is None) == (sigma is None):
        raise ValueError("give exactly one of discordance (binary) or sigma (scores)")
    n_max = checks.plan_n(n_max, name="n_max", min_n=2)
    points = checks.whole("points", points, lo=2)
    grid = np.unique(np.round(np.geomspace(2, n_max, points)).astype(int))
    power = (noninferiority_power_paired(grid, discordance, diff, margin, alpha=alpha)
             if discordance is not None else
             noninferiority_power_continuous(grid, diff, sigma, margin, alpha=alpha))
    return pd.DataFrame({"n": grid, "power": np.asarray(power, float)})


@dataclass(frozen=True)
class NoninferiorityPlan:
    """Cases needed to show "B is not worse than A by more than ``margin``" with ``power``,
    when the true difference B - A is ``diff`` (0: B truly as good as A). ``design`` is
    "paired" (0/1 outcomes, ``discordance``) or "continuous" (scores, ``sigma``)."""

    design: str
    margin: float
    diff: float
    discordance: float | None
    sigma: float | None
    alpha: float
    power: float
    n_needed: int
    current_n: int | None = None
    current_power: float | None = None

    def to_dict(self) -> dict:
        return asdict(self)


def plan_noninferiority(margin: float, *, diff: float = 0.0, discordance: float | None = None,
                        sigma: float | None = None, alpha: float = 0.05, power: float = 0.8,
                        current_n: int | None = None) -> NoninferiorityPlan:
    """``n_noninferiority_paired`` (with ``discordance``) or ``n_noninferiority_continuous``
    (with ``sigma``; give exactly one), and the power at ``current_n``."""
    if (discordance is None) == (sigma is None):
        raise ValueError("give exactly one of discordance (binary) or sigma (scores)")
    alpha, power = checks.power_plan_iv(alpha, power)
    if discordance is not None:
        d, delta = checks.plan_discordance(discordance, diff)
        m, delta = checks.plan_margin(margin, delta)
        cur = checks.current_n_iv(current_n)
        return NoninferiorityPlan(
            "paired", m, delta, d, None, alpha, power,
            n_noninferiority_paired(d, delta, m, alpha=alpha, power=power), cur,
            None if cur is None else paired_power_at(cur, d, delta, m, alpha=alpha))
    s = checks.plan_sigma(sigma)
    m, delta = checks.plan_margin(margin, diff)
    cur = checks.current_n_iv(current_n, min_n=2)
    return NoninferiorityPlan(
        "continuous", m, delta, None, s, alpha, power,
        n_noninferiority_continuous(delta, s, m, alpha=alpha, power=power), cur,
        None if cur is None else noninferiority_power_continuous(cur, delta, s, m, alpha=alpha))


@dataclass(frozen=True)
class MarginCasesNeeded(CasesNeeded):
    """``CasesNeeded`` for non-inferiority: ``n_needed`` cases give ``power`` to show that B
    is not worse than A by more than ``margin`` if the true B - A is ``assumed_diff``."""

    margin: float = 0.0
    assumed_diff: float = 0.0
    mode: str = "noninferiority"

    def url_params(self) -> dict[str, str]:
        """The planner's URL values: ``mode=noninferiority``, ``margin`` and ``assumed`` (the
        true B - A assumed) in %p (0/1) or points x 100 (scores), ``disc`` or ``sigma``."""
        out = {k: v for k, v in super().url_params().items()
               if k in ("design", "n", "confidence", "power")}
        out["alpha"] = f"{significance_level(self.confidence):g}"   # the planner's 0.05
        out.update(mode=self.mode, margin=f"{100 * self.margin:.1f}",
                   assumed=f"{100 * self.assumed_diff:.1f}")
        if self.design == "paired":
            out["disc"] = f"{100 * self.discordance:.1f}"
        else:
            out["sigma"] = f"{self.sigma:.3f}"
        return out


def cases_needed_noninferiority(a, b, margin: float, *, confidence: float = 0.95,
                                power: float = 0.8, assumed_diff: float = 0.0) -> MarginCasesNeeded:
    """The next step of an inconclusive non-inferiority verdict: the cases needed for
    ``power`` (80%) to show that B is not worse than A by more than ``margin``, if the true
    difference B - A is ``assumed_diff`` (0: B truly as good as A), from the data's own
    spread: binary a, b give the discordance d = mean(a != b) and
    ``n_noninferiority_paired(d, assumed_diff, margin)`` (Nam 1997, Tango's score test);
    scores give sigma = std(b - a, ddof=1) and ``n_noninferiority_continuous`` (one-sided
    paired t), at alpha = 1 - ``confidence`` (one-sided alpha/2). d and sigma are rounded as
    the planner page shows them (0.1 %p, 0.001), so the link it gives opens on the same n.
    ``n_needed`` is None when no plan exists (no discordant case, an SD of 0, or more than
    ``MAX_N`` cases)."""
    a, b = checks.pair(a, b, min_n=2)
    confidence = checks.confidence(confidence)
    alpha = significance_level(confidence)
    m, assumed = checks.plan_margin(margin, assumed_diff)
    m, assumed = round(m, 3), round(assumed, 3)
    alpha, power = checks.power_plan_iv(alpha, power)
    binary, delta, disc, sigma = data_spread(a, b)
    n_needed = None
    if binary:
        try:
            n_needed = n_noninferiority_paired(round(disc, 3), assumed, m, alpha=alpha,
                                               power=power)
        except InputError:
            n_needed = None
        return MarginCasesNeeded("paired", n_needed, int(a.size), delta, disc, None,
                                 confidence, float(power), m, assumed)
    try:
        n_needed = n_noninferiority_continuous(assumed, round(sigma, 3), m, alpha=alpha,
                                               power=power)
    except InputError:
        n_needed = None
    return MarginCasesNeeded("continuous", n_needed, int(a.size), delta, None, sigma,
                             confidence, float(power), m, assumed)


NEXT_STEP_POWER = 0.8   # the power of the verdict card's "you would need about N cases"


@dataclass(frozen=True)
class NextStep:
    """The verdict card's next step, planned once (``card_next_step``): ``needed`` is the plan
    (``CasesNeeded`` of a "no difference", ``MarginCasesNeeded`` of an inconclusive margin),
    None when the planner has none; ``margin`` says it answers the margin's question."""

    needed: CasesNeeded | None
    margin: bool


def card_next_step(comparison, margin=None, *,
                   power: float = NEXT_STEP_POWER) -> NextStep | None:
    """How many cases the card's open question needs, on the comparison's own values (a
    ``core.paired.PairedComparison``): with a ``core.paired.MarginResult`` that is
    inconclusive, ``cases_needed_noninferiority`` (B loses at most the margin if B is truly as
    good as A; no plan for a margin of 0 or a score margin of 1 or more); without a margin, a
    "no difference" gets ``core.planning.sample_size.cases_needed``. None when the card asks
    nothing (a clear verdict, or a margin that answered). The view draws it
    (``core.views.paired.paired_view(..., plan=)``) and never plans itself."""
    c = checks.instance("comparison", comparison, PairedComparison,
                        "a PairedComparison (core.paired.compare_paired)")
    if margin is not None:
        if margin.verdict != "inconclusive":
            return None
        try:
            return NextStep(cases_needed_noninferiority(c.a_values, c.b_values, margin.margin,
                                                        confidence=margin.confidence,
                                                        power=power), True)
        except InputError:
            return NextStep(None, True)
    if c.verdict != "no_difference":
        return None
    return NextStep(cases_needed(c.a_values, c.b_values, confidence=c.bootstrap.confidence,
                                 power=power), False)
