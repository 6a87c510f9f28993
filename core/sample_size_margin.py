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
``bench/bench_noninferiority.py`` checks by simulation that the planned n gives 0.80 +/- 0.03
power (table in ``docs/noninferiority.md``).
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd
from scipy import stats as _st

from core import checks
from core.errors import InputError
from core.intervals import tango_statistic
from core.sample_size import MAX_N, CasesNeeded, ceil_n, smallest_n
from core.stats import significance_level


def one_sided_alpha(alpha: float) -> float:
    """The one-sided level of a non-inferiority test whose lower bound is that of the
    two-sided (1 - alpha) interval shown: alpha / 2 (0.025 at 95%). The caller checked
    alpha."""
    return alpha / 2


def _nam_sds(d: float, delta: float, margin: float) -> tuple[float, float]:
    """SDs of one case's B - A under H0 (B - A = -margin, with Tango's restricted estimate
    of the A-only share at the planned table: the denominator of Tango's statistic at N = 1,
    s0 = (Delta + margin) / T(-margin), ``core.intervals.tango_statistic``) and under the
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
    z = _st.norm.ppf(1 - one_sided_alpha(alpha))
    pw = _st.norm.cdf(((delta + m) * np.sqrt(n) - z * s0) / s1)
    return float(pw) if np.ndim(pw) == 0 else pw


def n_noninferiority_paired(discordance: float, diff: float, margin: float, *,
                            alpha: float = 0.05, power: float = 0.8) -> int:
    """Cases needed for ``power`` to show non-inferiority at ``margin`` on 0/1 outcomes (Nam
    1997's sample size for Tango's score test, one-sided level alpha/2)::

        n = [ z(1 - alpha/2) s0 + z(power) s1 ]^2 / (Delta + margin)^2

    (``noninferiority_power_paired`` for s0, s1). ``bench/bench_noninferiority.py`` checks
    by simulation that this n gives 0.80 +/- 0.03 power with the decision rule."""
    d, delta = checks.plan_discordance(discordance, diff)
    m, delta = checks.plan_margin(margin, delta)
    alpha, power = checks.power_plan_iv(alpha, power)
    s0, s1 = _nam_sds(d, delta, m)
    za, zb = _st.norm.ppf(1 - one_sided_alpha(alpha)), _st.norm.ppf(power)
    n = (za * s0 + zb * s1) ** 2 / (delta + m) ** 2
    if n > MAX_N:
        raise InputError("sample_size.err_too_many", limit=f"{MAX_N:,}")
    return max(1, ceil_n(n))


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
    c = _st.t.ppf(1 - one_sided_alpha(alpha), n - 1)
    pw = _st.nct.sf(c, n - 1, (delta + m) * np.sqrt(n) / s)
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
            None if cur is None else noninferiority_power_paired(cur, d, delta, m, alpha=alpha))
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
    d = b - a
    delta = float(d.mean())
    binary = bool(np.all((a == 0) | (a == 1)) and np.all((b == 0) | (b == 1)))
    n_needed = None
    if binary:
        disc = float(np.mean(a != b))
        try:
            n_needed = n_noninferiority_paired(round(disc, 3), assumed, m, alpha=alpha,
                                               power=power)
        except InputError:
            n_needed = None
        return MarginCasesNeeded("paired", n_needed, int(a.size), delta, disc, None,
                                 confidence, float(power), m, assumed)
    sigma = float(np.std(d, ddof=1))
    try:
        n_needed = n_noninferiority_continuous(assumed, round(sigma, 3), m, alpha=alpha,
                                               power=power)
    except InputError:
        n_needed = None
    return MarginCasesNeeded("continuous", n_needed, int(a.size), delta, None, sigma,
                             confidence, float(power), m, assumed)
