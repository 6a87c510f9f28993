"""core.paired.sequential: the betting confidence sequence against the paper's formula worked by
hand, the pruned grid against the full one, the e-process against the sequence, a seeded
simulation of the any-look error, and the fixed-n peeking figure against scipy / the one
mid-p McNemar."""
import math

import numpy as np
import pytest
from scipy import stats

from core.paired.difference import paired_data
from core.paired.sequential import (GRID, METHOD, TRUNCATION, anytime_p, e_process,
                                    fixed_n_rejections, log_capital, look_points, peeking_cost,
                                    predictable_bets, sequential_compare, unit_sequence)
from core.paired.significance import mcnemar_midp

ALPHA = 0.05
L = math.log(2 / ALPHA)   # log 40 = 3.6889


# ----------------------------------------------------------------------------- the formula
def test_bets_worked_by_hand_from_the_papers_plug_in_rule():
    # x = (1, 1, 0.5): s2_0 = 1/4; mu_1 = (1/2 + 1)/2 = 3/4, s2_1 = (1/4 + (1 - 3/4)^2)/2 =
    # 0.15625; mu_2 = (1/2 + 2)/3 = 5/6, s2_2 = (0.3125 + (1 - 5/6)^2)/3 = 0.113426
    bets = predictable_bets(np.array([1.0, 1.0, 0.5]), ALPHA)
    assert bets[0] == pytest.approx(math.sqrt(2 * L / (0.25 * 1 * math.log(2))))    # 6.5249
    assert bets[1] == pytest.approx(math.sqrt(2 * L / (0.15625 * 2 * math.log(3))))  # 4.6357
    assert bets[2] == pytest.approx(math.sqrt(2 * L / (0.11342592592592593 * 3 * math.log(4))))
    assert bets[0] == pytest.approx(6.5249, abs=1e-4)


def test_hedged_capital_worked_by_hand():
    x = np.array([1.0, 1.0, 0.5])
    # at m' = 1/2 every bet is cut to c/m' = c/(1 - m') = 1: K+ = 1.5, 2.25, 2.25 and
    # K- = 0.5, 0.25, 0.25; the hedged capital max(K+/2, K-/2) = 0.75, 1.125, 1.125
    assert np.exp(log_capital(x, 0.5, ALPHA)[:, 0]) == pytest.approx([0.75, 1.125, 1.125])
    # at m' = 0.1: the K+ bets are min(bet_i, c/m' = 5) = 5, 4.6357, 3.9547 (bet_1 = 6.52 is
    # cut) and the K- bets min(bet_i, c/(1 - m') = 0.5556): x - m' = 0.9, 0.9, 0.4
    b = predictable_bets(x, ALPHA)
    assert b[1:] == pytest.approx([4.6357, 3.9547], abs=1e-4)
    up = (1 + 5 * 0.9) * (1 + 4.6357 * 0.9) * (1 + 3.9547 * 0.4)     # 73.45
    down = (1 - 0.5 / 0.9 * 0.9) * (1 - 0.5 / 0.9 * 0.9) * (1 - 0.5 / 0.9 * 0.4)
    assert np.exp(log_capital(x, 0.1, ALPHA)[-1, 0]) == pytest.approx(max(up, down) / 2,
                                                                        rel=1e-4)
    assert max(up, down) / 2 == pytest.approx(36.72, abs=0.01)


def _hand_capital(x, m, alpha=ALPHA, *, path=False):
    """The module docstring's K_n(m) in plain Python, one factor at a time (``path``: the
    largest K_t(m) over t <= n)."""
    mu, s2, kp, km, top = 0.5, 0.25, 1.0, 1.0, 0.0
    total, sq = 0.0, 0.0
    for i, xi in enumerate(x, start=1):
        bet = math.sqrt(2 * math.log(2 / alpha) / (s2 * i * math.log(1 + i)))
        kp *= 1 + min(bet, TRUNCATION / m if m > 0 else math.inf) * (xi - m)
        km *= 1 - min(bet, TRUNCATION / (1 - m) if m < 1 else math.inf) * (xi - m)
        total += xi
        mu = (0.5 + total) / (i + 1)
        sq += (xi - mu) ** 2
        s2 = (0.25 + sq) / (i + 1)
        top = max(top, max(kp, km) / 2)
    return top if path else max(kp, km) / 2


def test_the_sequence_at_one_n_matches_the_formula_by_bisection():
    rng = np.random.default_rng(3)
    x = (rng.integers(-1, 2, 40) * (rng.random(40) < 0.4) + 1) / 2   # 0/1 differences -> x
    lo, hi = unit_sequence(x, ALPHA)
    m = np.linspace(0, 1, GRID)
    inside = np.array([_hand_capital(x, mm, path=True) < 1 / ALPHA
                       for mm in m[(m > lo[-1] - 0.01) & (m < hi[-1] + 0.01)]])
    kept = m[(m > lo[-1] - 0.01) & (m < hi[-1] + 0.01)][inside]
    assert kept.min() == pytest.approx(lo[-1]) and kept.max() == pytest.approx(hi[-1])
    # the ends, found by bisection of the formula at n = 40 alone, lie within one grid step
    # of the sequence's (which also keeps the running intersection, so it is never wider)
    def edge(a, b):
        for _ in range(40):
            mid = (a + b) / 2
            if (_hand_capital(x, mid) < 1 / ALPHA) == (_hand_capital(x, a) < 1 / ALPHA):
                a = mid
            else:
                b = mid
        return (a + b) / 2
    centre = (lo[-1] + hi[-1]) / 2
    assert lo[-1] >= edge(0.0, centre) - 1 / (GRID - 1)
    assert hi[-1] <= edge(1.0, centre) + 1 / (GRID - 1)


def test_the_pruned_grid_equals_the_full_grids_running_intersection():
    rng = np.random.default_rng(5)
    for x in (rng.random(700) ** 2, (rng.random(600) < 0.3).astype(float)):
        lo, hi = unit_sequence(x, ALPHA)
        m = np.linspace(0, 1, GRID)
        inside = np.logical_and.accumulate(log_capital(x, m, ALPHA) < math.log(1 / ALPHA), 0)
        for t in (0, 9, 255, 256, 599):
            kept = m[inside[t]]
            assert (lo[t], hi[t]) == (kept.min(), kept.max())
        assert np.all(np.diff(lo) >= 0) and np.all(np.diff(hi) <= 0)   # it only narrows


# ----------------------------------------------------------------------------- the test
def test_the_e_process_and_the_sequence_agree_at_every_look():
    rng = np.random.default_rng(11)
    a = (rng.random(250) < 0.55).astype(float)
    b = np.where(rng.random(250) < 0.2, 1.0, a)
    r = sequential_compare(a, b, peeking=False)
    p = anytime_p(e_process(b - a, ALPHA))
    assert r.last.verdict == "b_better"
    for look in r.history:
        assert look.p == pytest.approx(p[look.n - 1])
        assert (look.ci_low > 0) == (look.p <= ALPHA)
        assert look.b_minus_a == pytest.approx((b[:look.n] - a[:look.n]).mean())
    # once "better", always "better" (the running intersection, the running max of E)
    first = next(i for i, look in enumerate(r.history) if look.verdict == "b_better")
    assert all(look.verdict == "b_better" for look in r.history[first:])
    # each method's own sequence holds its mean
    assert r.a.ci_low <= a.mean() <= r.a.ci_high and r.b.ci_low <= b.mean() <= r.b.ci_high


def test_e_process_rows_are_sets():
    rng = np.random.default_rng(2)
    d = rng.integers(-1, 2, (3, 50)).astype(float)
    e = e_process(d, ALPHA)
    for row in range(3):
        assert e[row] == pytest.approx(np.exp(log_capital((d[row] + 1) / 2, 0.5, ALPHA)[:, 0]))


def _null_sets(rng, sets, n, kind):
    if kind == "binary":   # 30% discordant, each discordant pair a fair coin
        u = rng.random((sets, n))
        return np.where(u < 0.15, 1.0, np.where(u < 0.3, -1.0, 0.0))
    # scores: half the cases tie at 0, the rest symmetric Beta-shaped in [-1, 1]
    mag = rng.beta(0.7, 2.0, (sets, n)) * (rng.random((sets, n)) < 0.5)
    return mag * rng.choice((-1.0, 1.0), (sets, n))


@pytest.mark.parametrize("kind", ["binary", "scores"])
def test_any_look_false_verdicts_stay_under_five_percent(kind):
    # 2,000 null sets of 200 cases, a look at every case: the e-process rejects at some look
    # in at most 5% + 2 Monte-Carlo SE of them (Ville's inequality), while the fixed-n test
    # read at the same looks rejects far more often
    rng = np.random.default_rng(20261202)
    d = _null_sets(rng, 2000, 200, kind)
    hit = (anytime_p(e_process(d, ALPHA)) <= ALPHA).any(axis=1).mean()
    assert hit <= 0.05 + 2 * math.sqrt(0.05 * 0.95 / 2000)
    fixed = fixed_n_rejections(d, np.arange(10, 201), ALPHA, kind == "binary").any(axis=1)
    assert fixed.mean() > 0.15


# ----------------------------------------------------------------------------- peeking, looks
def test_fixed_n_rejections_use_the_verdicts_tests():
    rng = np.random.default_rng(4)
    d = rng.integers(-1, 2, (40, 60)).astype(float) * (rng.random((40, 60)) < 0.4)
    looks = np.array([10, 25, 60])
    got = fixed_n_rejections(d, looks, ALPHA, True)
    for s in range(40):
        for j, k in enumerate(looks):
            wins, losses = int((d[s, :k] > 0).sum()), int((d[s, :k] < 0).sum())
            assert got[s, j] == (mcnemar_midp(losses, wins) < ALPHA)
    x = rng.normal(0.1, 0.3, (40, 60))
    got = fixed_n_rejections(x, looks, ALPHA, False)
    for s in range(40):
        for j, k in enumerate(looks):
            assert got[s, j] == (stats.ttest_1samp(x[s, :k], 0).pvalue < ALPHA)


def test_peeking_cost_is_seeded_and_counts_sets():
    rng = np.random.default_rng(8)
    data = paired_data((rng.random(120) < 0.6).astype(float), (rng.random(120) < 0.6) * 1.0)
    looks, _ = look_points(120)
    one = peeking_cost(data, looks, sets=500, seed=1)
    assert one == peeking_cost(data, looks, sets=500, seed=1)
    assert one.looks == 111 and one.sets == 500 and one.test == "mcnemar_midp"
    assert one.mc_se == pytest.approx(math.sqrt(one.rate * (1 - one.rate) / 500))
    assert 0.1 < one.rate < 0.5


def test_look_points():
    looks, step = look_points(300)
    assert step == 1 and looks[0] == 10 and looks[-1] == 300 and looks.size == 291
    looks, step = look_points(5)
    assert list(looks) == [1, 2, 3, 4, 5] and step == 1
    looks, step = look_points(2000)
    assert step == 4 and looks[0] == 10 and looks[-1] == 2000 and looks.size <= 501


def test_to_dict_and_input_checks():
    a = np.array([0, 1, 1, 0, 1, 1, 0, 1, 1, 1, 0, 1.0])
    b = np.array([1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1.0])
    out = sequential_compare(a, b, sets=200).to_dict()
    assert out["method"] == METHOD and out["test"] == "e_process" and out["n"] == 12
    assert [h["n"] for h in out["history"]] == [10, 11, 12]
    assert set(out["history"][0]) == {"n", "b_minus_a", "ci_low", "ci_high", "p", "verdict"}
    assert out["peeking"]["sets"] == 200 and out["look_every"] == 1
    assert out["a"]["rate"] == pytest.approx(a.mean())
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        sequential_compare([0.2, 1.5, 0.3], [0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="same length"):
        sequential_compare([0, 1], [1])
    with pytest.raises(ValueError, match="confidence"):
        sequential_compare(a, b, confidence=1.5)


def test_runs_p_flags_rows_sorted_by_outcome():
    from scipy.stats import norm
    from core.paired.sequential import runs_p
    d = np.array([0.0] * 50 + [1.0] * 19 + [-1.0] * 17)
    assert runs_p(d) < 1e-6
    r = sequential_compare(np.where(d < 0, 1.0, 0.5 + 0 * d) * (d != 0) + (d == 0) * 1.0,
                           np.where(d > 0, 1.0, 0.0) + (d == 0) * 1.0, peeking=False)
    assert r.looks_sorted and r.to_dict()["looks_sorted"] is True
    # the formula by hand: signs + + - + - - (n+ = 3, n- = 3, R = 4)
    mean, var = 1 + 2 * 9 / 6, 2 * 9 * (18 - 6) / (36 * 5)
    assert runs_p([1, 1, 0, -1, 1, -1, -1]) == pytest.approx(norm.cdf((4.5 - mean) / var ** 0.5))
    rng = np.random.default_rng(0)
    shuffled = rng.permutation(d)
    assert runs_p(shuffled) > 0.01 and runs_p([1, 1, 1]) == 1.0


def test_sequential_plan_reaches_its_power_on_fresh_sets():
    from core.paired.sequential import sequential_plan
    plan = sequential_plan(0.15, discordance=0.25, sets=600, max_n=800, seed=1)
    assert plan.reached > 0.95 and plan.median_n <= plan.n_power
    assert plan.median_n <= plan.expected_n * 1.5
    # fresh sets (another seed): the share that has said "better" by n_power is the power
    rng = np.random.default_rng(99)
    u = rng.random((1500, plan.n_power))
    d = np.where(u < 0.2, 1.0, np.where(u < 0.25, -1.0, 0.0))
    share = (anytime_p(e_process(d, ALPHA)) < ALPHA).any(axis=1).mean()
    assert abs(share - 0.8) < 4 * math.sqrt(0.8 * 0.2 / 600) + 4 * math.sqrt(0.16 / 1500)
    scores = sequential_plan(0.1, sigma=0.3, sets=300, max_n=600, seed=2)
    assert scores.model == "normal_cut" and scores.to_dict()["method"] == "simulation"
    with pytest.raises(ValueError, match="discordance"):
        sequential_plan(0.1)
    with pytest.raises(ValueError, match="discordance"):
        sequential_plan(0.3, discordance=0.2)   # a difference larger than the discordance


def test_the_fixed_n_intervals_beside_the_sequence():
    from core.paired.difference import tango_ci
    rng = np.random.default_rng(6)
    a = (rng.random(40) < 0.5).astype(float)
    b = np.where(rng.random(40) < 0.3, 1.0, a)
    r = sequential_compare(a, b, peeking=False)
    assert r.fixed_name == "tango" and len(r.fixed) == len(r.history)
    for look, (lo, hi) in zip(r.history, r.fixed):
        x, y = a[:look.n], b[:look.n]
        n11, n12 = int(((x == 1) & (y == 1)).sum()), int(((x == 0) & (y == 1)).sum())
        n21, n22 = int(((x == 1) & (y == 0)).sum()), int(((x == 0) & (y == 0)).sum())
        ref = tango_ci(n11, n12, n21, n22)
        assert (lo, hi) == pytest.approx((ref[0], ref[1]), abs=1e-8)
    a, b = rng.random(30), rng.random(30)
    s = sequential_compare(a, b, peeking=False)
    assert s.fixed_name == "t"
    for look, (lo, hi) in zip(s.history, s.fixed):   # the t-interval (scipy)
        d = b[:look.n] - a[:look.n]
        ref = stats.t.interval(0.95, look.n - 1, loc=d.mean(), scale=stats.sem(d))
        assert (lo, hi) == pytest.approx(ref, abs=1e-9)
