"""core.planning.noninferiority: Nam's (1997) n against the exact power of Tango's rule (every
table enumerated), the planned n against the exact power of the verdict's exact test (a
table-by-table implementation and margin_decision itself), the one-sided paired t power against statsmodels, a short seeded
simulation, monotonicity, bad inputs, and the next step's link values."""
import numpy as np
import pytest
from scipy import stats as st
from statsmodels.stats.power import TTestPower

from core.errors import InputError
from core.paired.difference import tango_ci
from core.paired.margin import exact_unconditional_p, margin_decision
from core.paired.compare import compare_paired
from core.planning.noninferiority import (cases_needed_noninferiority,
                                     exact_noninferiority_power_paired,
                                     n_noninferiority_continuous, n_noninferiority_paired,
                                     noninferior_shown, noninferiority_power_continuous,
                                     noninferiority_power_curve,
                                     noninferiority_power_paired, plan_noninferiority)

def _exact_tango_ni_power(n, d, delta, margin, confidence=0.95):
    """P(lower bound of Tango's interval > -margin) at n cases, every table enumerated
    (discordant count m ~ Bin(n, d), then B-only ~ Bin(m, (d + delta) / 2d))."""
    total = 0.0
    pm = st.binom.pmf(np.arange(n + 1), n, d)
    for m in np.flatnonzero(pm > 1e-13):
        k = np.arange(m + 1)
        lo, _ = tango_ci(n - m, k, m - k, np.zeros(m + 1), confidence)
        total += pm[m] * st.binom.pmf(k, m, (d + delta) / (2 * d))[lo > -margin].sum()
    return total


@pytest.mark.parametrize("d, delta, margin", [(0.1, 0.0, 0.05), (0.3, 0.0, 0.1),
                                              (0.25, 0.02, 0.1), (0.4, 0.0, 0.15)])
def test_nam_n_gives_eighty_percent_power_to_tangos_rule_exactly(d, delta, margin):
    n = n_noninferiority_paired(d, delta, margin, alpha=0.05, power=0.8, exact=False)
    assert 0.79 <= _exact_tango_ni_power(n, d, delta, margin) <= 0.83
    assert noninferiority_power_paired(n, d, delta, margin) >= 0.8
    assert noninferiority_power_paired(n - 1, d, delta, margin) < 0.8


def _exact_rule_power_table_by_table(n, d, delta, margin):
    """P(non-inferior) of the verdict's exact rule at n cases: every table, its own exact
    unconditional p (core.paired.margin.exact_unconditional_p) and Tango's interval (tango_ci),
    summed with its trinomial probability (scipy's multinomial pmf)."""
    total = 0.0
    q = [(d + delta) / 2, (d - delta) / 2, 1 - d]
    for n12 in range(n + 1):
        for n21 in range(n + 1 - n12):
            lo, _ = tango_ci(n - n12 - n21, n12, n21, 0, 0.95)
            if lo > -margin and exact_unconditional_p(n12, n21, n, -margin, upper=True) < 0.025:
                total += st.multinomial.pmf([n12, n21, n - n12 - n21], n, q)
    return total


@pytest.mark.parametrize("n, d, delta, margin", [(24, 0.2, 0.0, 0.3), (18, 0.3, 0.05, 0.25)])
def test_exact_power_equals_a_table_by_table_sum(n, d, delta, margin):
    want = _exact_rule_power_table_by_table(n, d, delta, margin)
    assert exact_noninferiority_power_paired(n, d, delta, margin) == pytest.approx(want,
                                                                                  abs=1e-12)


def test_noninferior_shown_is_what_margin_decision_answers():
    n, margin = 30, 0.2
    tables = [(k12, k21) for k12 in range(0, 13, 2) for k21 in range(0, 10, 3)]
    shown = noninferior_shown([t[0] for t in tables], [t[1] for t in tables], n, margin)
    assert 0 < shown.sum() < len(tables)
    for (k12, k21), got in zip(tables, shown):
        a = np.r_[np.zeros(k12), np.ones(k21), np.ones(n - k12 - k21)]
        b = np.r_[np.ones(k12), np.zeros(k21), np.ones(n - k12 - k21)]
        v = margin_decision(compare_paired(a, b, resamples=200, seed=1), margin).verdict
        assert got == (v in ("non_inferior", "equivalent")), (k12, k21, v)


@pytest.mark.parametrize("d, delta, margin", [(0.3, 0.0, 0.2), (0.1, 0.0, 0.2),
                                              (0.5, 0.0, 0.2)])
def test_planned_n_reaches_eighty_percent_under_the_exact_test(d, delta, margin):
    n = n_noninferiority_paired(d, delta, margin)
    nam = n_noninferiority_paired(d, delta, margin, exact=False)
    power = exact_noninferiority_power_paired(n, d, delta, margin)
    assert 0.8 <= power <= 0.83
    if n > nam:       # moved up: the case before did not reach it
        assert exact_noninferiority_power_paired(n - 1, d, delta, margin) < 0.8
    assert plan_noninferiority(margin, discordance=d, current_n=n).current_power == power


def test_exact_power_is_below_nams_at_nams_n_here():
    # d = 30%, margin 20 %p: Nam's n = 64 gives 0.791 under the exact test (0.803 by Nam)
    nam = n_noninferiority_paired(0.3, 0.0, 0.2, exact=False)
    assert exact_noninferiority_power_paired(nam, 0.3, 0.0, 0.2) < 0.8 <= \
        noninferiority_power_paired(nam, 0.3, 0.0, 0.2)
    assert n_noninferiority_paired(0.3, 0.0, 0.2) > nam


def test_nam_reduces_to_the_normal_formula_at_margin_zero_limit():
    # with Delta = 0 and a tiny margin the restricted variance equals d: n ~ (za + zb)^2 d / m^2
    d, m = 0.2, 1e-3
    za, zb = st.norm.ppf(0.975), st.norm.ppf(0.8)
    assert n_noninferiority_paired(d, 0.0, m) == pytest.approx((za + zb) ** 2 * d / m ** 2,
                                                              rel=2e-3)


@pytest.mark.parametrize("n, diff, sigma, margin", [(10, 0.0, 0.3, 0.1), (40, 0.02, 0.2, 0.05),
                                                    (200, -0.01, 0.25, 0.05)])
def test_continuous_ni_power_equals_statsmodels_one_sided(n, diff, sigma, margin):
    want = TTestPower().power(effect_size=(diff + margin) / sigma, nobs=n, alpha=0.025,
                              alternative="larger")
    assert noninferiority_power_continuous(n, diff, sigma, margin) == pytest.approx(want,
                                                                                   abs=1e-9)


def test_continuous_ni_n_is_smallest_and_simulates_to_eighty_percent():
    n = n_noninferiority_continuous(0.0, 0.3, 0.05)
    assert noninferiority_power_continuous(n, 0.0, 0.3, 0.05) >= 0.8
    assert noninferiority_power_continuous(n - 1, 0.0, 0.3, 0.05) < 0.8
    rng = np.random.default_rng(23)
    x = rng.normal(0.0, 0.3, size=(4000, n))
    t = (x.mean(1) + 0.05) / (x.std(1, ddof=1) / np.sqrt(n))
    assert abs(np.mean(t > st.t.ppf(0.975, n - 1)) - 0.8) <= 0.03


def test_ni_plans_shrink_with_margin_and_grow_with_a_worse_truth():
    ns = [n_noninferiority_paired(0.2, 0.0, m) for m in (0.02, 0.05, 0.1)]
    assert ns[0] > ns[1] > ns[2]
    assert n_noninferiority_paired(0.2, -0.01, 0.05) > ns[1] > n_noninferiority_paired(
        0.2, 0.01, 0.05)
    plan = plan_noninferiority(0.05, discordance=0.2, current_n=ns[1])
    assert plan.n_needed == ns[1] and plan.current_power >= 0.8
    assert plan_noninferiority(0.05, sigma=0.3).n_needed == n_noninferiority_continuous(
        0.0, 0.3, 0.05)


@pytest.mark.parametrize("call, code", [
    (lambda: n_noninferiority_paired(0.2, -0.05, 0.05), "sample_size.err_ni_diff"),
    (lambda: n_noninferiority_paired(0.2, 0.0, 0.0), "sample_size.err_margin"),
    (lambda: n_noninferiority_continuous(0.0, 0.3, 1.5), "sample_size.err_margin")])
def test_ni_bad_inputs(call, code):
    with pytest.raises(InputError) as e:
        call()
    assert e.value.code == code


def test_cases_needed_noninferiority_uses_the_datas_spread_and_links_the_same_n():
    rng = np.random.default_rng(5)
    a = (rng.random(60) < 0.7).astype(float)
    b = a.copy()
    b[:9] = 1 - b[:9]
    c = cases_needed_noninferiority(a, b, 0.05)
    assert c.mode == "noninferiority" and c.design == "paired"
    assert c.discordance == pytest.approx(np.mean(a != b))
    u = c.url_params()
    assert u["mode"] == "noninferiority" and u["margin"] == "5.0" and u["assumed"] == "0.0"
    assert c.n_needed == n_noninferiority_paired(float(u["disc"]) / 100, 0.0, 0.05)
    s = rng.normal(0.5, 0.2, 40)
    c2 = cases_needed_noninferiority(s, s + rng.normal(0, 0.1, 40), 0.02, confidence=0.9)
    assert c2.design == "continuous"
    assert c2.n_needed == n_noninferiority_continuous(0.0, float(c2.url_params()["sigma"]),
                                                      0.02, alpha=0.1)


def test_power_curve_with_a_margin_reaches_the_planned_power_at_the_planned_n():
    n = n_noninferiority_paired(0.2, 0.0, 0.05)
    curve = noninferiority_power_curve(diff=0.0, discordance=0.2, margin=0.05, n_max=4 * n)
    assert curve["power"].is_monotonic_increasing
    at = curve[curve["n"] >= n]["power"].iloc[0]
    assert at >= 0.8
    curve = noninferiority_power_curve(diff=0.0, sigma=0.3, margin=0.05, n_max=1000)
    assert np.allclose(curve["power"], noninferiority_power_continuous(
        curve["n"].to_numpy(), 0.0, 0.3, 0.05))
