"""core.planning.sample_size: formulas against scipy/statsmodels, the searches against brute force, and
simulations showing the planned n delivers the promised half-width and power.

Run with ``pytest -s`` to see the simulated figures (they are also in assertion messages).
"""
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as st
from statsmodels.stats.power import TTestPower

from core.errors import InputError
from core.paired.difference import tango_limits
from core.inputs.golden import load_golden
from core.inputs.systems import compare_golden
from core.planning.sample_size import (defaults_from, half_width_curve, mcnemar_power, min_significant_diff,
                              n_continuous_ci, n_continuous_power, n_mcnemar, n_normal,
                              n_paired_ci, n_wilson, paired_half_width, paired_t_power,
                              plan_continuous, plan_paired, plan_rate, smallest_n,
                              t_half_width, wilson_half_width)
from core.paired.significance import mcnemar_exact, mcnemar_midp
from core.paired.intervals import z_two_sided as z_value
from core.paired.stats import paired_bootstrap, wilson_interval

ROOT = Path(__file__).resolve().parents[3]
DEMO = ROOT / "data" / "demo_golden.csv"


# ----------------------------------------------------------------------------- formulas
@pytest.mark.parametrize("k,n", [(26, 31), (1, 10), (50, 100), (999, 1000), (3, 7)])
@pytest.mark.parametrize("conf", [0.90, 0.95, 0.99])
def test_wilson_half_width_equals_scipy(k, n, conf):
    ci = st.binomtest(k, n).proportion_ci(confidence_level=conf, method="wilson")
    assert wilson_half_width(k / n, n, conf) == pytest.approx((ci.high - ci.low) / 2, abs=1e-12)
    lo, hi = wilson_interval(k, n, conf)
    assert wilson_half_width(k / n, n, conf) == pytest.approx((hi - lo) / 2, abs=1e-12)


@pytest.mark.parametrize("p", [0.01, 0.2, 0.5, 0.839, 0.999])
def test_wilson_half_width_decreases_in_n(p):
    hw = wilson_half_width(p, np.arange(1, 20_001), 0.95)
    assert np.all(np.diff(hw) < 0)


def test_smallest_n_matches_linear_scan():
    for threshold in (1, 2, 3, 17, 1000, 65_537):
        calls = []

        def ok(n, t=threshold):
            calls.append(n)
            return n >= t
        assert smallest_n(ok) == threshold
        assert len(calls) <= 2 * math.log2(threshold) + 3
    assert smallest_n(lambda n: n >= 5, start=7) == 7
    with pytest.raises(InputError):
        smallest_n(lambda n: False, limit=1000)


@pytest.mark.parametrize("p,e,conf", [(0.839, 0.02, 0.95), (0.8, 0.05, 0.95), (0.5, 0.03, 0.99),
                                      (0.05, 0.01, 0.90), (0.95, 0.15, 0.95)])
def test_n_wilson_is_smallest_by_brute_force(p, e, conf):
    n = n_wilson(p, e, conf)
    hw = wilson_half_width(p, np.arange(1, n + 1), conf)
    assert hw[-1] <= e and (n == 1 or hw[-2] > e)
    # normal approximation n = z^2 p(1-p)/E^2, rounded up
    z = st.norm.ppf(0.5 + conf / 2)
    assert n_normal(p, e, conf) == math.ceil(z * z * p * (1 - p) / e ** 2 - 1e-9)


def test_n_normal_close_to_wilson_away_from_edges():
    assert abs(n_normal(0.5, 0.03) - n_wilson(0.5, 0.03)) <= 0.01 * n_wilson(0.5, 0.03)
    assert n_normal(0.999, 0.01) < n_wilson(0.999, 0.01)  # Wald is too optimistic near 1


def test_paired_ci_n_plans_with_the_tango_interval():
    """The planner plans with the interval the verdict shows (Tango): its n is the smallest
    whose Tango half-width at the expected table is <= E, at least the Wald closed form
    ceil(z^2 (d - Delta^2) / E^2) and within a few % of it at these sizes."""
    for d, delta, e in [(0.2, 0.03, 0.02), (0.258, 0.0645, 0.05), (0.5, 0.0, 0.01)]:
        z = z_value(0.95)
        closed = math.ceil(z * z * (d - delta ** 2) / e ** 2 - 1e-9)
        n = n_paired_ci(d, delta, e)
        assert closed <= n <= 1.1 * closed
        assert paired_half_width(d, delta, n) <= e < paired_half_width(d, delta, n - 1)
        n12, n21 = n * (d + delta) / 2, n * (d - delta) / 2
        lo, hi = tango_limits(n12, n21, n, z)
        assert (hi - lo) / 2 == pytest.approx(paired_half_width(d, delta, n))


def test_connor_formula_and_power_inverse():
    d, delta = 0.2, 0.03
    za, zb = st.norm.ppf(0.975), st.norm.ppf(0.8)
    expect = (za * math.sqrt(d) + zb * math.sqrt(d - delta ** 2)) ** 2 / delta ** 2
    n = n_mcnemar(d, delta)
    assert n == math.ceil(expect)
    assert mcnemar_power(n, d, delta) >= 0.8 > mcnemar_power(n - 1, d, delta)
    assert n_mcnemar(d, -delta) == n


@pytest.mark.parametrize("n,dz,alpha", [(10, 0.5, 0.05), (31, 0.2, 0.05), (200, 0.1, 0.01),
                                        (787, 0.1, 0.05)])
def test_paired_t_power_equals_statsmodels(n, dz, alpha):
    ours = paired_t_power(n, dz * 0.3, 0.3, alpha=alpha)
    ref = TTestPower().power(effect_size=dz, nobs=n, alpha=alpha, alternative="two-sided")
    assert ours == pytest.approx(ref, abs=1e-9)


@pytest.mark.parametrize("diff,sigma,alpha,power", [(0.03, 0.3, 0.05, 0.8),
                                                    (0.05, 0.2, 0.01, 0.9),
                                                    (0.3, 0.3, 0.05, 0.8)])
def test_n_continuous_power_equals_statsmodels(diff, sigma, alpha, power):
    ref = TTestPower().solve_power(effect_size=diff / sigma, alpha=alpha, power=power)
    assert n_continuous_power(diff, sigma, alpha=alpha, power=power) == math.ceil(ref)


def test_n_continuous_ci_is_smallest():
    for sigma, e, conf in [(0.3, 0.02, 0.95), (0.2, 0.05, 0.99), (0.5, 0.4, 0.95)]:
        n = n_continuous_ci(sigma, e, conf)
        t = st.t.ppf(0.5 + conf / 2, n - 1)
        assert t * sigma / math.sqrt(n) <= e
        assert n == 2 or t_half_width(sigma, n - 1, conf) > e


def test_min_significant_diff_uses_the_verdicts_mid_p_mcnemar():
    ms = min_significant_diff(31, 8 / 31)  # the demo: 8 discordant cases of 31
    # mid-p: 7-1 gives 2*9/256 - 8/256 = 0.039 < 0.05 (the exact test needed 8-0)
    assert (ms.discordant, ms.a_only, ms.b_only) == (8, 7, 1)
    assert ms.p_value == pytest.approx(mcnemar_midp(7, 1)) and ms.p_value < 0.05
    assert mcnemar_midp(6, 2) >= 0.05 and mcnemar_exact(7, 1) >= 0.05
    assert ms.diff == pytest.approx(6 / 31)
    for n, d in [(500, 0.2), (1743, 0.2), (100, 0.37)]:
        ms = min_significant_diff(n, d)
        m = round(d * n)
        assert ms.discordant == m and ms.a_only + ms.b_only == m
        assert mcnemar_midp(ms.a_only, ms.b_only) < 0.05
        assert mcnemar_midp(ms.a_only - 1, ms.b_only + 1) >= 0.05  # one step more even
    assert min_significant_diff(31, 4 / 31) is None  # 4-0 gives mid-p = 0.0625
    assert min_significant_diff(31, 0.0) is None


def test_plans_and_curve():
    rp = plan_rate(0.839, 0.02, current_n=31)
    assert rp.n_wilson == n_wilson(0.839, 0.02) and rp.resolution == 1 / rp.n_wilson
    assert rp.current_half_width == pytest.approx(wilson_half_width(0.839, 31))
    pp = plan_paired(0.2, 0.0, 0.02, current_n=31)
    assert pp.n_power is None and pp.current_power is None
    cp = plan_continuous(0.3, 0.02, diff=0.03, current_n=31)
    assert cp.n_power == n_continuous_power(0.03, 0.3)
    json.dumps([rp.to_dict(), plan_paired(0.2, 0.03, 0.02, current_n=31).to_dict(),
                cp.to_dict()])
    curve = half_width_curve(0.839, n_max=5000)
    assert curve["n"].iloc[0] == 1 and curve["n"].iloc[-1] == 5000 and len(curve) <= 160
    assert curve["half_width"].is_monotonic_decreasing


@pytest.mark.parametrize("call", [
    lambda: n_wilson(0.0, 0.02), lambda: n_wilson(1.0, 0.02), lambda: n_wilson(1.2, 0.02),
    lambda: n_wilson(0.8, 0.0), lambda: n_wilson(0.8, -0.1), lambda: n_normal(float("nan"), .1),
    lambda: n_paired_ci(0.02, 0.03, 0.02), lambda: n_paired_ci(0.0, 0.0, 0.02),
    lambda: n_paired_ci(1.0, 1.0, 0.02), lambda: n_mcnemar(0.2, 0.0),
    lambda: n_mcnemar(0.2, 0.03, power=1.0), lambda: n_mcnemar(0.2, 0.03, alpha=0.0),
    lambda: n_continuous_ci(0.0, 0.02), lambda: n_continuous_power(0.0, 0.3),
    lambda: n_wilson(0.5, 1e-6),  # needs more than 10^8 cases
])
def test_bad_inputs_raise_input_error(call):
    with pytest.raises(InputError):
        call()


def test_non_numbers_raise_value_error():
    with pytest.raises(ValueError, match="rate"):
        n_wilson("0.8", 0.02)
    with pytest.raises(ValueError, match="confidence"):
        n_wilson(0.8, 0.02, confidence=1.5)


def test_defaults_from_demo_comparison_and_none():
    gs = load_golden(DEMO.read_bytes(), "demo_golden.csv")
    comp = compare_golden(gs, resamples=1000)
    d = defaults_from(comp)
    c = comp.comparison
    assert d.source == "comparison" and d.current_n == 31 and d.binary
    assert d.rate == pytest.approx(26 / 31) and d.rate_from_data
    # the difference is B - A (RRF - title-only: 3 - 5 discordant cases of 31)
    assert d.discordance == pytest.approx(c.discordance) and d.diff == pytest.approx(-2 / 31)
    diffs = comp.b_values - comp.a_values
    assert d.sigma == pytest.approx(np.std(diffs, ddof=1)) and d.sigma_from_data
    d2 = defaults_from(None, gs)
    assert d2.source == "golden_set" and d2.rate == pytest.approx(26 / 31)
    assert not d2.paired_from_data
    d0 = defaults_from()
    assert (d0.source, d0.rate, d0.discordance, d0.diff, d0.sigma) == ("none", 0.8, 0.2, 0.03,
                                                                      0.3)


# ----------------------------------------------------------------------------- simulation
def _report(label, **figures):
    text = f"{label}: " + ", ".join(f"{k}={v:.5g}" if isinstance(v, float) else f"{k}={v}"
                                    for k, v in figures.items())
    print(text)
    return text


@pytest.mark.parametrize("p,e", [(0.839, 0.02), (0.8, 0.05), (0.5, 0.03), (0.95, 0.01)])
def test_simulated_wilson_half_width(p, e):
    """Golden sets of the planned size drawn from Binomial(n, p): median Wilson half-width.

    The observed rate lives on the k/n lattice, so the median outcome can sit up to one case
    nearer 50% than p; the target is met up to that one-case step of the half-width.
    """
    n = n_wilson(p, e)
    k = np.random.default_rng(11).binomial(n, p, size=40_000)
    hw = wilson_half_width(k / n, n)
    med = float(np.median(hw))
    one_case = abs(wilson_half_width(p, n) - wilson_half_width(min(p, 1 - p) + 1 / n, n))
    msg = _report("wilson", rate=p, target=e, n=n, median_half_width=med,
                  share_within_target=float(np.mean(hw <= e)), one_case_step=one_case)
    assert med <= e + one_case, msg
    # one case fewer would not make it: the n is the smallest, not just sufficient
    assert wilson_half_width(p, n - 1) > e, msg


def test_simulated_paired_ci_half_width_against_bootstrap():
    """Multinomial 2x2 cells at the planned n; the mean Tango half-width of the simulated
    tables reaches the target (within 0.5%); the percentile bootstrap CI of
    ``core.paired.stats.paired_bootstrap`` and the Wald half-width z sqrt((d^ - Delta^^2)/n) are no
    wider (within 2%)."""
    d, delta, e = 0.2, 0.03, 0.02
    n = n_paired_ci(d, delta, e)
    p10, p01 = (d + delta) / 2, (d - delta) / 2
    probs = np.array([(1 - d) * 0.8, p10, p01, (1 - d) * 0.2])
    rng = np.random.default_rng(5)
    tables = rng.multinomial(n, probs, size=4000)
    dhat = (tables[:, 1] + tables[:, 2]) / n
    mhat = (tables[:, 1] - tables[:, 2]) / n
    wald = z_value(0.95) * np.sqrt((dhat - mhat ** 2) / n)
    boot = []
    for i, (n11, n10, n01, n00) in enumerate(tables[:150]):
        a = np.repeat([1, 1, 0, 0], [n11, n10, n01, n00])
        b = np.repeat([1, 0, 1, 0], [n11, n10, n01, n00])
        bs = paired_bootstrap(a, b, resamples=4000, seed=i)
        boot.append((bs.ci_high - bs.ci_low) / 2)
    med_wald, med_boot = float(np.median(wald)), float(np.median(boot))
    msg = _report("paired CI", discordance=d, diff=delta, target=e, n=n,
                  median_wald_half_width=med_wald, median_bootstrap_half_width=med_boot,
                  coverage=float(np.mean(np.abs(mhat - delta) <= wald)))
    lo, hi = tango_limits(tables[:, 2], tables[:, 1], n, z_value(0.95))
    assert float(np.mean(hi - lo) / 2) <= e * 1.005, msg
    assert med_wald <= e * 1.005, msg
    assert med_boot <= e * 1.02, msg
    assert abs(med_boot - med_wald) < 0.03 * e, msg


@pytest.mark.parametrize("d,delta,power", [(0.2, 0.03, 0.8), (0.258, 0.0645, 0.8),
                                           (0.1, 0.04, 0.9)])
def test_simulated_mcnemar_power(d, delta, power):
    """Golden sets of Connor's n from the cell probabilities; rejection rate of the McNemar
    z-test (the test Connor's formula is for) is within 3 %p of the nominal power. The exact
    McNemar test's rate is printed too (it is conservative: a little lower)."""
    n = n_mcnemar(d, delta, power=power)
    rng = np.random.default_rng(7)
    sims = 20_000
    m = rng.binomial(n, d, size=sims)
    a_only = rng.binomial(m, (d + delta) / (2 * d))
    b_only = m - a_only
    with np.errstate(divide="ignore", invalid="ignore"):
        zstat = np.where(m > 0, (a_only - b_only) / np.sqrt(m), 0.0)
    achieved = float(np.mean(np.abs(zstat) > st.norm.ppf(0.975)))
    lo = np.minimum(a_only, b_only)
    exact_p = np.minimum(1.0, 2 * st.binom.cdf(lo, m, 0.5))
    exact = float(np.mean(exact_p < 0.05))
    msg = _report("McNemar power", discordance=d, diff=delta, n=n, nominal=power,
                  achieved_z_test=achieved, achieved_exact_test=exact)
    assert abs(achieved - power) <= 0.03, msg


@pytest.mark.parametrize("sigma,e", [(0.3, 0.02), (0.25, 0.05)])
def test_simulated_continuous_ci(sigma, e):
    n = n_continuous_ci(sigma, e)
    x = np.random.default_rng(3).normal(0.02, sigma, size=(3000, n))
    hw = st.t.ppf(0.975, n - 1) * x.std(axis=1, ddof=1) / math.sqrt(n)
    med = float(np.median(hw))
    msg = _report("continuous CI", sigma=sigma, target=e, n=n, median_half_width=med)
    assert med <= e, msg


@pytest.mark.parametrize("diff,sigma,power", [(0.03, 0.3, 0.8), (0.05, 0.2, 0.9)])
def test_simulated_paired_t_power(diff, sigma, power):
    n = n_continuous_power(diff, sigma, power=power)
    x = np.random.default_rng(4).normal(diff, sigma, size=(6000, n))
    t = x.mean(axis=1) / (x.std(axis=1, ddof=1) / math.sqrt(n))
    achieved = float(np.mean(np.abs(t) > st.t.ppf(0.975, n - 1)))
    msg = _report("paired t power", diff=diff, sigma=sigma, n=n, nominal=power,
                  achieved=achieved)
    assert abs(achieved - power) <= 0.03, msg


# ----------------------------------------------------------------------------- CLI
def _cli(capsys, *args):
    """The CLI in-process (``core.__main__.main``, the same code path as ``python -m core``)."""
    from core.__main__ import main
    try:
        code = main(["sample-size", *args])
    except SystemExit as exc:  # argparse errors
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_json_matches_core_in_a_real_process():
    r = subprocess.run([sys.executable, "-m", "core", "sample-size", "--rate", "0.839",
                        "--half-width", "0.02", "--discordance", "0.2", "--diff", "0.03",
                        "--sigma", "0.3", "--json"], cwd=ROOT, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["n_wilson"] == n_wilson(0.839, 0.02)
    assert out["n_normal"] == n_normal(0.839, 0.02)
    assert out["n_paired_ci"] == n_paired_ci(0.2, 0.03, 0.02)
    assert out["n_paired_power"] == n_mcnemar(0.2, 0.03)
    assert out["n_continuous_ci"] == n_continuous_ci(0.3, 0.02)
    assert out["n_continuous_power"] == n_continuous_power(0.03, 0.3)
    assert out["inputs"] == {"rate": 0.839, "half_width": 0.02, "confidence": 0.95,
                             "discordance": 0.2, "diff": 0.03, "power": 0.8, "alpha": 0.05,
                             "sigma": 0.3, "margin": None}


def test_cli_only_applicable_fields_and_default_rate(capsys):
    code, out, _ = _cli(capsys, "--json")
    out = json.loads(out)
    assert code == 0 and out["inputs"]["rate"] == 0.8
    assert set(out) == {"inputs", "n_wilson", "n_normal"}
    out = json.loads(_cli(capsys, "--discordance", "0.2", "--json")[1])
    assert set(out) == {"inputs", "n_paired_ci"}
    code, text, _ = _cli(capsys, "--rate", "0.839", "--half-width", "0.02")
    assert code == 0 and "1,297" in text and "n_normal" in text


@pytest.mark.parametrize("args", [("--rate", "1.2"), ("--rate", "0"), ("--half-width", "0"),
                                  ("--half-width", "-0.1"),
                                  ("--discordance", "0.02", "--diff", "0.03"),
                                  ("--diff", "0.03"), ("--sigma", "0"),
                                  ("--rate", "abc")])
def test_cli_bad_inputs_exit_2_one_line(capsys, args):
    code, out, err = _cli(capsys, *args)
    assert code == 2
    assert err.startswith("error:") and err.count("\n") == 1 and not out


def test_power_curve_reaches_the_planned_power_at_the_planned_n():
    from core.planning.sample_size import (mcnemar_power, n_continuous_power, n_mcnemar, paired_t_power,
                                  power_curve)
    n = n_mcnemar(0.2, 0.03)
    c = power_curve(diff=0.03, discordance=0.2, n_max=4 * n)
    assert c["n"].is_monotonic_increasing and c["power"].is_monotonic_increasing
    assert c["n"].iloc[0] == 2 and c["n"].iloc[-1] == 4 * n
    row = c.iloc[len(c) // 2]
    assert row["power"] == mcnemar_power(int(row["n"]), 0.2, 0.03)
    assert mcnemar_power(n, 0.2, 0.03) >= 0.8 > mcnemar_power(n - 1, 0.2, 0.03)
    m = n_continuous_power(0.05, 0.3)
    t = power_curve(diff=0.05, sigma=0.3, n_max=3 * m, alpha=0.01)
    assert t["power"].iloc[5] == paired_t_power(int(t["n"].iloc[5]), 0.05, 0.3, alpha=0.01)
    with pytest.raises(ValueError, match="exactly one"):
        power_curve(diff=0.03, n_max=100)
    with pytest.raises(ValueError, match="exactly one"):
        power_curve(diff=0.03, discordance=0.2, sigma=0.3, n_max=100)
    with pytest.raises(InputError):
        power_curve(diff=0.0, sigma=0.3, n_max=100)


def test_t_half_width_equals_scipy_stats_t_exactly():
    """t_half_width reads the t quantile from scipy.special.stdtrit (what scipy.stats.t.ppf
    evaluates) so that the latency CLI does not import scipy.stats: the same numbers."""
    n = np.arange(2, 5_000)
    for conf in (0.8, 0.9, 0.95, 0.99, 0.999):
        expected = st.t.ppf(0.5 + conf / 2, n - 1) * 0.3 / np.sqrt(n)
        assert np.array_equal(t_half_width(0.3, n, conf), expected)
        assert t_half_width(0.3, 31, conf) == float(st.t.ppf(0.5 + conf / 2, 30) * 0.3
                                                    / np.sqrt(31))


def test_latency_path_does_not_import_scipy_stats():
    code = ("import sys; import core.latency.compare, core.commands.latency; "
            "print('scipy.stats' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=Path(__file__).resolve().parents[3])
    assert out.stdout.strip() == "False"


def test_data_spread_reads_discordance_or_sd_of_b_minus_a():
    from core.planning.sample_size import data_spread
    a = np.array([1.0, 1, 0, 0, 1]); b = np.array([1.0, 0, 1, 1, 1])
    assert data_spread(a, b) == (True, pytest.approx(0.2), pytest.approx(0.6), None)
    x = np.array([0.2, 0.5, 0.9]); y = np.array([0.3, 0.4, 1.0])
    binary, delta, disc, sigma = data_spread(x, y)
    assert not binary and disc is None
    assert delta == pytest.approx(np.mean(y - x))
    assert sigma == pytest.approx(np.std(y - x, ddof=1))


def test_planned_n_without_scipy_stats_equals_the_scipy_stats_plan():
    """The planners read norm, t and noncentral t from scipy.special (issue 38: the lists
    and decide demos then never import scipy.stats); every n they plan on a grid equals the
    n planned from scipy.stats' distributions (powers equal to rounding, searched alike)."""
    from core.planning.sample_size import ceil_n, mcnemar_power, n_mcnemar, paired_t_power
    from core.planning.noninferiority import (n_noninferiority_continuous,
                                              noninferiority_power_continuous)
    for n in (5, 12, 40, 200):
        for diff, sigma in ((0.05, 0.2), (0.1, 0.3), (0.02, 0.05)):
            df, nc = n - 1, diff * np.sqrt(n) / sigma
            c = st.t.ppf(0.975, df)
            ref = st.nct.sf(c, df, nc) + st.nct.cdf(-c, df, nc)
            assert paired_t_power(n, diff, sigma) == pytest.approx(ref, abs=3e-16)
            ref = st.nct.sf(st.t.ppf(0.975, df), df, (diff + 0.02) * np.sqrt(n) / sigma)
            assert noninferiority_power_continuous(n, diff, sigma, 0.02) == pytest.approx(
                ref, abs=3e-16)
        za = st.norm.ppf(0.975)
        ref = st.norm.cdf((0.1 * np.sqrt(n) - za * np.sqrt(0.3)) / np.sqrt(0.3 - 0.01))
        assert mcnemar_power(n, 0.3, 0.1) == pytest.approx(ref, abs=1e-16)
    for diff, sigma in ((0.05, 0.2), (0.1, 0.3), (0.02, 0.05), (0.0, 0.1)):
        ok = [n for n in range(2, 400)
              if st.nct.sf(st.t.ppf(0.975, n - 1), n - 1,
                           (diff + 0.02) * np.sqrt(n) / sigma) >= 0.8]
        assert n_noninferiority_continuous(diff, sigma, 0.02) == ok[0]
    za, zb = st.norm.ppf(0.975), st.norm.ppf(0.8)
    assert n_mcnemar(0.3, 0.1) == max(1, ceil_n(
        (za * np.sqrt(0.3) + zb * np.sqrt(0.3 - 0.01)) ** 2 / 0.01))


def test_the_lists_and_decide_demos_import_no_scipy_stats():
    """The paths of the README's lists and Switch? demos (issue 38: scipy.stats costs more
    CPU to import than the whole comparison)."""
    code = ("import sys, io, contextlib; from core.__main__ import main\n"
            "for a in (['compare', 'data/demo_lists.csv', '--format', 'lists'], "
            "['decide', '--quality', 'data/demo_switch_golden.csv', '--latency', "
            "'data/demo_switch_latency.csv', '--margin', '0.02', '--max-slowdown', '1.10']):\n"
            "    with contextlib.redirect_stdout(io.StringIO()): main(a)\n"
            "print('scipy.stats' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=Path(__file__).resolve().parents[3])
    assert out.stdout.strip() == "False"
