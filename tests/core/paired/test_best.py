"""core.paired.best: the tied-for-best set and rank intervals, by hand, by replaying the
resampling, as properties, at k = 2 against the paired verdict, and a short seeded coverage
run (the long one is bench/best_set.py)."""
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from core.paired.best import BLOCK, best_set
from core.errors import InputError
from core.paired.multi import compare_many


def test_by_hand_constant_differences():
    # dense and hybrid are exactly 0.1 above bm25 on every case and equal to each other:
    # every interval is a point (se = 0), so the set is {dense, hybrid} and bm25 is 3rd
    x = np.linspace(0.1, 0.8, 12)
    df = pd.DataFrame({"bm25": x, "dense": x + 0.1, "hybrid": x + 0.1})
    bs = best_set(df, resamples=500, seed=1)
    assert set(bs.best) == {"dense", "hybrid"} and bs.behind == ("bm25",)
    ranks = {r.name: (r.rank, r.rank_low, r.rank_high) for r in bs.ranks}
    assert ranks == {"dense": (1, 1, 2), "hybrid": (1, 1, 2), "bm25": (3, 3, 3)}
    by = {(p.a, p.b): p for p in bs.pairs}
    assert by[("bm25", "dense")].ci_low == pytest.approx(0.1)  # B - A, a point
    assert by[("dense", "hybrid")].ci_low == by[("dense", "hybrid")].ci_high == 0


def _t_scale(q, n):
    from scipy.stats import norm, t
    return max(q, float(t.ppf(norm.cdf(q), n - 1)))


def _guard(col, q, n):
    """The skew guard's interval of the mean of one column at the Student quantile q."""
    from scipy.stats import t
    from core.paired.skew_intervals import skew_guard_interval
    lo, hi = skew_guard_interval(np.asarray(col)[None, :], 2 * t.cdf(q, n - 1) - 1)
    return float(lo[0]), float(hi[0])


def _moderate(se, n):
    """Each pair's se moderated toward their pool by hand: (10 mean(se^2) + (n - 1) se^2) /
    (10 + n - 1), square-rooted (``core.paired.best.moderated_se``, d0 = 10 cases)."""
    se = np.asarray(se, dtype=float)
    pool = float(np.mean(se ** 2))
    return np.sqrt((10 * pool + (n - 1) * se ** 2) / (10 + n - 1))


def _replay(df, resamples, seed, confidence=0.95):
    """The all-pairs critical value by brute force: the same seeded blocks of case indices,
    each resample's mean differences standardized by the data's standard errors (that
    quantile read on Student's t) and by the resample's own (bootstrap-t); c the larger; each
    pair's interval dbar +/- c se widened to the skew guard's at c."""
    x = df.to_numpy(float)
    n, k = x.shape
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
    d = np.column_stack([x[:, j] - x[:, i] for i, j in pairs])
    dbar = d.mean(axis=0)
    se = _moderate(d.std(axis=0, ddof=1) / math.sqrt(n), n)
    maxima, maxima_t = [], []
    for b, start in enumerate(range(0, resamples, BLOCK)):
        m = min(BLOCK, resamples - start)
        idx = np.random.default_rng([seed, b]).integers(0, n, size=(m, n))
        for row in idx:
            ds = d[row]
            maxima.append(np.max(np.abs((ds.mean(axis=0) - dbar) / se)))
            maxima_t.append(np.max(np.abs((ds.mean(axis=0) - dbar)
                                          / _moderate(ds.std(axis=0, ddof=1) / math.sqrt(n),
                                                      n))))
    crit = max(_t_scale(float(np.quantile(maxima, confidence, method="higher")), n),
               float(np.quantile(maxima_t, confidence, method="higher")))
    guard = [_guard(d[:, p], crit, n) for p in range(len(pairs))]
    low = np.minimum(dbar - crit * se, [g[0] for g in guard])
    high = np.maximum(dbar + crit * se, [g[1] for g in guard])
    return crit, low, high


def _replay_mcb(df, resamples, seed, confidence=0.95):
    """Each system's one-sided MCB allowance by brute force: for control i, the max over
    j != i of ((xbar*_j - xbar*_i) - (xbar_j - xbar_i)) / se_ij on the same seeded resamples
    (quantile read on Student's t), and the same with the resample's own se; the larger."""
    x = df.to_numpy(float)
    n, k = x.shape
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]

    def moderated(rows):
        own = _moderate([np.std(x[rows, j] - x[rows, i], ddof=1) / math.sqrt(n)
                         for i, j in pairs], n)
        return {**dict(zip(pairs, own)), **{(j, i): v for (i, j), v in zip(pairs, own)}}

    se = moderated(np.arange(n))
    gap = x.mean(axis=0)
    maxima = [[] for _ in range(k)]
    maxima_t = [[] for _ in range(k)]
    for b, start in enumerate(range(0, resamples, BLOCK)):
        m = min(BLOCK, resamples - start)
        idx = np.random.default_rng([seed, b]).integers(0, n, size=(m, n))
        for row in idx:
            ms = x[row].mean(axis=0)
            se_row = moderated(row)
            for i in range(k):
                others = [j for j in range(k) if j != i]
                shift = [(ms[j] - ms[i]) - (gap[j] - gap[i]) for j in others]
                maxima[i].append(max(s / se[i, j] for s, j in zip(shift, others)))
                maxima_t[i].append(max(s / se_row[i, j] for s, j in zip(shift, others)))
    d = [max(_t_scale(float(np.quantile(maxima[i], confidence, method="higher")), n),
             float(np.quantile(maxima_t[i], confidence, method="higher"))) for i in range(k)]
    return d, se


def _scores(n=25, seed=0, shifts=(0.0, 0.02, 0.25, 0.27)):
    rng = np.random.default_rng(seed)
    base = rng.random(n)
    return pd.DataFrame({f"s{i}": base + s + rng.normal(0, 0.15, n)
                         for i, s in enumerate(shifts)},
                        index=[f"q{i}" for i in range(n)])


def test_equals_a_brute_force_replay():
    df = _scores()
    bs = best_set(df, resamples=300, seed=5)
    crit, low, high = _replay(df, 300, 5)
    assert bs.critical == pytest.approx(crit, rel=1e-9)
    assert [p.ci_low for p in bs.pairs] == pytest.approx(list(low), rel=1e-9)
    assert [p.ci_high for p in bs.pairs] == pytest.approx(list(high), rel=1e-9)
    assert bs.max_t.shape == (300,)
    # s2 and s3 are 0.25 above s0 and s1 on 25 cases with noise 0.15: tied for best
    assert set(bs.best) == {"s2", "s3"} and set(bs.behind) == {"s0", "s1"}
    assert bs.method == "mcb" and bs.to_dict()["method"] == "mcb"
    d, se = _replay_mcb(df, 300, 5)
    assert list(bs.mcb_critical) == pytest.approx(d, rel=1e-9)
    # the set and Hsu's constrained bounds, from the replayed d_i by hand: L[i][j] the lower
    # end of x_j - x_i at d_i (the t-type end or the skew guard's, whichever is lower)
    x = df.to_numpy(float)
    n, k = x.shape
    means = x.mean(axis=0)
    L = [[min(means[j] - means[i] - d[i] * se[i, j],
              _guard(x[:, j] - x[:, i], d[i], n)[0]) if j != i else None
          for j in range(k)] for i in range(k)]
    g = [i for i in range(k) if all(L[i][j] <= 0 for j in range(k) if j != i)]
    assert set(bs.best) == {f"s{i}" for i in g}
    by = {r.name: r for r in bs.ranks}
    for i in range(k):
        high = max(0.0, min(-L[i][j] for j in range(k) if j != i))
        others = [j for j in g if j != i]
        low = 0.0 if not others else min(0.0, min(L[j][i] for j in others))
        assert by[f"s{i}"].mcb_high == pytest.approx(high, rel=1e-9, abs=1e-12)
        assert by[f"s{i}"].mcb_low == pytest.approx(low, rel=1e-9, abs=1e-12)
    every = best_set(df, resamples=300, seed=5, method="all-pairs")
    assert every.method == "all-pairs" and every.critical == bs.critical
    assert all(r.mcb_high is None and "mcb_high" not in r.to_dict() for r in every.ranks)
    assert set(bs.best) <= set(every.best)


def _dunnett_one_sided(m, confidence=0.95, rho=0.5):
    """The one-sided Dunnett quantile (m comparisons with a control, correlation rho,
    infinite df), by quadrature: with Z_j = sqrt(rho) W + sqrt(1 - rho) E_j,
    P(max Z_j <= d) = integral of phi(w) Phi((d + sqrt(rho) w) / sqrt(1 - rho))^m dw
    (Dunnett 1955; the formula behind Hsu's tables), solved for = confidence."""
    from scipy.integrate import quad
    from scipy.optimize import brentq
    from scipy.stats import norm

    def cdf(d):
        f = lambda w: norm.pdf(w) * norm.cdf((d + math.sqrt(rho) * w) / math.sqrt(1 - rho)) ** m  # noqa: E731
        return quad(f, -12, 12, epsabs=1e-12, epsrel=1e-12, limit=200)[0]

    return brentq(lambda d: cdf(d) - confidence, 0.5, 5.0, xtol=1e-10)


@pytest.mark.parametrize("k, table", [(3, 1.916), (5, 2.160), (10, 2.417)])
def test_mcb_critical_values_match_hsus_table(k, table):
    """Hsu (1996, Table E.3, one-sided Dunnett / MCB, infinite df, equal correlation 0.5):
    1.916, 2.160, 2.417 for k = 3, 5, 10. scipy's multivariate normal CDF gives the same to
    3 decimals, and the bootstrap d_i of k independent equal-variance systems (pairwise
    differences with a common system correlated 0.5) on 600 cases with 20,000 resamples
    lands within Monte-Carlo error (sd of a 95% quantile ~0.015) of it."""
    assert _dunnett_one_sided(k - 1) == pytest.approx(table, abs=6e-4)
    rng = np.random.default_rng(k)
    df = pd.DataFrame(rng.normal(0, 1, (600, k)), columns=[f"m{i}" for i in range(k)])
    bs = best_set(df, resamples=20_000, seed=k)
    assert np.mean(bs.mcb_critical) == pytest.approx(table, abs=0.04)
    assert max(abs(v - table) for v in bs.mcb_critical) < 0.08
    # the all-pairs critical value is the studentized range / sqrt(2): 2.344, 2.728, 3.164
    assert bs.critical == pytest.approx({3: 2.344, 5: 2.728, 10: 3.164}[k], abs=0.08)


def test_zero_one_outcomes_near_the_ceiling_stay_finite():
    """0/1 outcomes: a system right on every case and one right on 24 of 25 make many
    resamples constant; the critical value stays finite and the clear gap is found."""
    rng = np.random.default_rng(0)
    n = 25
    df = pd.DataFrame({"weak": (rng.random(n) < 0.3).astype(float),
                       "good": np.r_[np.ones(n - 1), 0.0], "perfect": np.ones(n)})
    bs = best_set(df, resamples=2000, seed=0)
    assert np.isfinite(bs.critical)
    assert set(bs.best) == {"good", "perfect"} and bs.behind == ("weak",)


def test_seeded_and_reported():
    df = _scores(seed=2)
    one, two = best_set(df, resamples=400, seed=9), best_set(df, resamples=400, seed=9)
    assert one.critical == two.critical and one.best == two.best
    d = one.to_dict()
    assert d["best"] == list(one.best) and len(d["ranks"]) == 4 and len(d["pairs"]) == 6
    assert d["ranks"][0]["rank"] == 1  # highest mean first
    assert list(one.table()["system"]) == [r.name for r in one.ranks]


def test_missing_values_leave_the_case_out():
    df = _scores()
    df.iloc[3, 1] = np.nan
    bs = best_set(df, resamples=200)
    assert bs.n == 24 and bs.excluded == ("q3",)


def test_refusals():
    df = _scores()
    with pytest.raises(InputError):
        best_set(df[["s0"]], resamples=100)
    with pytest.raises(InputError):
        best_set(df.iloc[:1], resamples=100)
    with pytest.raises(ValueError):
        best_set(df.to_numpy(), resamples=100)
    with pytest.raises(ValueError):
        best_set(df, resamples=100, confidence=1.5)
    with pytest.raises(ValueError, match="method"):
        best_set(df, resamples=100, method="tukey")
    wide = pd.DataFrame(np.zeros((2_000, 60)), columns=[f"m{i}" for i in range(60)])
    with pytest.raises(InputError) as err:  # cost before work: 1,770 pairs
        best_set(wide, resamples=20_000)
    assert err.value.code == "too_much_work"


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.integers(2, 5), n=st.integers(5, 30),
       gap=st.floats(0.0, 0.3))
def test_properties(seed, k, n, gap):
    rng = np.random.default_rng(seed)
    base = rng.random(n)
    df = pd.DataFrame({f"m{i}": base + rng.normal(0, 0.1, n) for i in range(k)})
    df["far below"] = df.mean(axis=1) - 5.0 - gap  # far lower than all, on every case
    bs = best_set(df, resamples=200, seed=seed, method="all-pairs")
    mcb = best_set(df, resamples=200, seed=seed)
    for one in (bs, mcb):
        assert one.best  # never empty
        assert "far below" not in one.best  # a clearly lower mean is never in the set
        top = max(one.ranks, key=lambda r: r.mean)
        assert top.in_best  # the highest mean is always in the set
    for r in bs.ranks:
        assert 1 <= r.rank_low <= r.rank <= r.rank_high <= k + 1
        assert r.in_best == (r.rank_low == 1)
    # MCB: same rank intervals, a subset of the all-pairs set, d_i <= c, Hsu's bounds hold 0
    assert [(r.name, r.rank_low, r.rank_high) for r in mcb.ranks] == \
        [(r.name, r.rank_low, r.rank_high) for r in bs.ranks]
    assert set(mcb.best) <= set(bs.best)
    assert max(mcb.mcb_critical) <= mcb.critical
    for r in mcb.ranks:
        assert r.mcb_low <= 0 <= r.mcb_high
        if r.mcb_high > 0:
            assert r.in_best
        assert r.in_best == (not r.behind_of)
    if len(mcb.best) == 1:  # a single best: its lower bound is 0 (Hsu's constrained form)
        assert next(r for r in mcb.ranks if r.in_best).mcb_low == 0


@pytest.mark.parametrize("shift", [0.0, 0.01, 0.3, -0.3])
@pytest.mark.parametrize("seed", range(4))
def test_two_systems_reduce_to_the_paired_verdict(seed, shift):
    """k = 2: one pair, and the set is the winner alone exactly when that pair's interval
    leaves out 0; on clear cases this is the paired comparison's verdict too."""
    rng = np.random.default_rng(seed)
    a = rng.random(30)
    df = pd.DataFrame({"A": a, "B": a + shift + rng.normal(0, 0.1, 30)})
    bs = best_set(df, resamples=2000, seed=seed, method="all-pairs")
    (pair,) = bs.pairs
    winner = ("B",) if pair.ci_low > 0 else ("A",) if pair.ci_high < 0 else None
    assert bs.best == (winner or tuple(r.name for r in bs.ranks))
    verdict = compare_many(df, resamples=2000, seed=seed).pairs[0].verdict
    if abs(shift) >= 0.3:  # clear: both say the same winner
        assert verdict == ("b_better" if shift > 0 else "a_better")
        assert bs.best == (("B",) if shift > 0 else ("A",))
    if shift == 0.0:
        assert verdict == "no_difference" and len(bs.best) == 2


def test_short_coverage_holds_the_true_best():
    """A short seeded version of bench/best_set.py: 5 systems, 30 queries drawn from a
    skewed population (nDCG-like: many zeros and ones); the true best is s4 by 0.02 over s3.
    The set must hold it in >= 95% of 150 sets (the bench runs 1,000 per population)."""
    rng = np.random.default_rng(11)
    q = 300
    base = np.clip(rng.beta(0.6, 0.5, q), 0, 1)
    pop = pd.DataFrame({f"s{i}": np.clip(base + rng.normal(0, 0.25, q), 0, 1)
                        for i in range(5)})
    target = {"s0": 0.50, "s1": 0.55, "s2": 0.60, "s3": 0.64, "s4": 0.66}
    for c, m in target.items():
        pop[c] += m - pop[c].mean()
    assert pop.mean().idxmax() == "s4"
    held = sizes = naive = held_all = sizes_all = 0
    runs = 150
    for r in range(runs):
        sample = pop.iloc[rng.integers(0, q, 30)]
        bs = best_set(sample, resamples=500, seed=r)
        every = best_set(sample, resamples=500, seed=r, method="all-pairs")
        held += "s4" in bs.best
        held_all += "s4" in every.best
        sizes += len(bs.best)
        sizes_all += len(every.best)
        naive += sample.mean().idxmax() != "s4"
    assert held / runs >= 0.95 and held_all / runs >= 0.95
    assert sizes / runs < 5  # the set does shrink
    assert sizes < sizes_all  # and MCB's is smaller than the all-pairs set
    assert naive / runs > 1 - held / runs  # the naive pick is wrong more often than the set


def test_the_pandas_free_table_gives_the_same_set():
    """The CLI hands ``best_set`` a ``CaseScores`` (no pandas on its path, issue 38): the same
    set, ranks, intervals, critical values and exclusions as from the DataFrame, to the bit
    (a long file's cases x methods block and a wide file's columns alike)."""
    from core.inputs.golden_cases import CaseScores

    rng = np.random.default_rng(3)
    x = rng.random((30, 4))
    x[[2, 17], [1, 3]] = np.nan
    df = pd.DataFrame(x, columns=["a", "b", "c", "d"],
                      index=pd.Index([f"q{i}" for i in range(30)], name="case_id"))
    ref = best_set(df, resamples=700, seed=4)
    for values in (x.copy(), np.asfortranarray(x)):
        got = best_set(CaseScores(tuple(df.index), tuple(df.columns), values),
                       resamples=700, seed=4)
        assert got.to_dict() == ref.to_dict() and got.excluded == ("q2", "q17")
        assert np.array_equal(got.max_t, ref.max_t)
    with pytest.raises(ValueError, match="scores must be"):
        best_set(CaseScores(("a",), ("x", "y"), np.zeros((2, 2))), resamples=100)


def test_a_pair_seen_with_one_difference_borrows_the_pooled_spread():
    """Issue 35: a rival 0.02 above the best on every one of 20 cases (its rare large losses
    not in the sample) had se = 0, a point interval, and pushed the best out of the set. Its
    se is now moderated toward the pool of every pair (``moderated_se``: 10 cases' weight of
    the mean pair variance), so the point becomes an interval of the pooled spread."""
    from core.paired.best import POOL_PRIOR, moderated_se
    rng = np.random.default_rng(3)
    best = rng.random(20)
    df = pd.DataFrame({"best": best, "rival": best + 0.02,
                       "other": np.clip(best + rng.normal(0, 0.3, 20), 0, 1)})
    bs = best_set(df, resamples=500, seed=0)
    d = np.column_stack([df["rival"] - df["best"], df["other"] - df["best"],
                         df["other"] - df["rival"]])
    own = d.std(axis=0, ddof=1) / math.sqrt(20)
    pool = np.mean(own[1:] ** 2) * 2 / 3           # the constant pair adds 0 to the mean
    assert POOL_PRIOR == 10
    assert moderated_se(own, 20)[0] == pytest.approx(math.sqrt(10 * pool / 29), rel=1e-9)
    by = {(p.a, p.b): p for p in bs.pairs}
    rival = by[("best", "rival")]
    assert rival.ci_low < 0 < rival.ci_high and "best" in bs.best
    assert moderated_se(own[:1], 20)[0] == own[0]   # one pair (k = 2): its own se


def test_best_set_checks_the_resamples_once(monkeypatch):
    """Validate once (issue 31): ``best_set_iv`` checks the resamples at the door and the cost
    (``core.paired.multi.cost_of``, the trusted twin of ``estimate_cost``) does not again."""
    import core.checks as checks

    names = []
    real = checks.whole

    def counted(name, *args, **kw):
        names.append(name)
        return real(name, *args, **kw)

    monkeypatch.setattr(checks, "whole", counted)
    rng = np.random.default_rng(4)
    scores = pd.DataFrame(rng.random((20, 3)), columns=["x", "y", "z"])
    best_set(scores, resamples=300, seed=1)
    assert names.count("resamples") == 1
