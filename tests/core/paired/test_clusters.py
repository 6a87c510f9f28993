"""core.paired.clusters: the CR2 variance against statsmodels' cluster covariance (equal sizes)
and against the matrix formula written out (unequal sizes), the Bell–McCaffrey df against
Imbens & Kolesár's G'G built from the full hat matrix, the whole-cluster sign-flip p against
the sign patterns enumerated by hand, McNemar's cluster form, ICC vs a balanced ANOVA, and the
repeated-runs split."""
import itertools

import numpy as np
import pytest
import statsmodels.api as sm
from scipy import linalg, stats

from core.paired.clusters import (FEW_CLUSTERS, bell_mccaffrey_df, cluster_interval,
                                  cluster_layout, cluster_mcnemar, cluster_signflip_test,
                                  cluster_wilson_rows, compare_clustered, cr2_rows, cr2_t_rows,
                                  design_effect, icc_anova)
from core.paired.significance import mcnemar_exact


def _cr2_by_matrices(x, labels):
    """CR2 written out with matrices: X = 1, H = X (X'X)^-1 X', A_g = (I - H_gg)^(-1/2),
    V = (X'X)^-1 sum_g X_g' A_g e_g e_g' A_g X_g (X'X)^-1; and Imbens & Kolesár's df from
    G_g = (I - H)_{., g} A_g X_g (X'X)^-1."""
    x = np.asarray(x, float)
    n = x.size
    X = np.ones((n, 1))
    bread = np.linalg.inv(X.T @ X)
    H = X @ bread @ X.T
    e = x - X @ bread @ X.T @ x
    meat = np.zeros((1, 1))
    Gs = []
    for g in dict.fromkeys(labels):
        idx = np.array([i for i, l in enumerate(labels) if l == g])
        A = linalg.fractional_matrix_power(np.eye(idx.size) - H[np.ix_(idx, idx)], -0.5).real
        u = X[idx].T @ A @ e[idx]
        meat += np.outer(u, u)
        Gs.append(((np.eye(n) - H)[:, idx] @ A @ X[idx] @ bread).ravel())
    V = float((bread @ meat @ bread)[0, 0])
    G = np.column_stack(Gs)
    lam = np.linalg.eigvalsh(G.T @ G)
    return V, lam.sum() ** 2 / np.sum(lam ** 2)


def test_cr2_equals_statsmodels_cluster_covariance_with_equal_sizes():
    rng = np.random.default_rng(1)
    labels = np.repeat(np.arange(6), 4)
    x = rng.normal(size=6)[labels] + rng.normal(size=24)
    fit = sm.OLS(x, np.ones((24, 1))).fit(cov_type="cluster", cov_kwds={"groups": labels})
    layout = cluster_layout(labels)
    mean, var = cr2_rows(x, layout)
    assert mean[0] == pytest.approx(fit.params[0], rel=1e-12)
    assert var[0] == pytest.approx(fit.cov_params()[0, 0], rel=1e-10)
    assert layout.df == pytest.approx(5.0, rel=1e-10)


def test_cr2_and_df_equal_the_matrix_formula_with_unequal_sizes():
    labels = ["d1"] * 5 + ["d2"] * 2 + ["d3"] + ["d4"] * 3 + ["d5"] * 4
    x = np.array([0.9, 0.7, 0.8, 1.0, 0.6, 0.1, 0.3, 0.5, 0.4, 0.2, 0.35, 0.8, 0.75, 0.9, 0.65])
    V, df = _cr2_by_matrices(x, labels)
    layout = cluster_layout(labels)
    _, var = cr2_rows(x, layout)
    assert var[0] == pytest.approx(V, rel=1e-10)
    assert layout.df == pytest.approx(df, rel=1e-10)
    assert 1.0 < layout.df < 4.0          # unequal sizes cost degrees of freedom below G - 1


def test_singletons_give_the_t_interval():
    x = np.array([0.2, -0.1, 0.4, 0.0, 0.3, 0.25, -0.05])
    layout = cluster_layout(range(x.size))
    mean, lo, hi, _ = cr2_t_rows(x, layout, 0.95)
    ref = stats.ttest_1samp(x, 0).confidence_interval(0.95)
    assert (lo[0], hi[0]) == pytest.approx((ref.low, ref.high), rel=1e-9)
    assert layout.df == pytest.approx(x.size - 1)


def test_equal_sizes_give_the_t_interval_of_cluster_means():
    rng = np.random.default_rng(3)
    labels = np.repeat(np.arange(5), 3)
    x = rng.random(15)
    _, lo, hi, _ = cr2_t_rows(x, cluster_layout(labels), 0.9)
    ref = stats.ttest_1samp(x.reshape(5, 3).mean(axis=1), 0).confidence_interval(0.9)
    assert (lo[0], hi[0]) == pytest.approx((ref.low, ref.high), rel=1e-9)


def test_rows_are_independent_sets():
    rng = np.random.default_rng(4)
    layout = cluster_layout(np.repeat(np.arange(4), [2, 3, 1, 4]))
    x = rng.random((3, 10))
    m, v = cr2_rows(x, layout)
    for s in range(3):
        m1, v1 = cr2_rows(x[s], layout)
        assert (m[s], v[s]) == pytest.approx((m1[0], v1[0]), rel=1e-12)


def test_signflip_p_enumerated_by_hand():
    # 4 clusters with sums S = (2, 1, -1, 3): observed |sum| = 5
    labels = ["a", "a", "b", "c", "c", "d", "d", "d"]
    d = np.array([1, 1, 1, -1, 0, 1, 1, 1], float)
    s = np.array([2, 1, -1, 3], float)
    extreme = sum(abs(np.dot(sg, s)) >= 5 for sg in itertools.product((1, -1), repeat=4))
    # signs applied to S: (+,+,+,+) 5, (+,+,-,+) 7, (+,-,-,+) 5 and their mirror images
    assert extreme == 6
    test = cluster_signflip_test(d, cluster_layout(labels))
    assert test.exact and test.p == pytest.approx(6 / 16)
    assert test.nonzero == 4 and test.min_p == pytest.approx(2 / 16)


def test_signflip_with_singleton_clusters_is_the_exact_mcnemar():
    a = np.array([1, 0, 1, 1, 0, 0, 1, 0, 1, 1])
    b = np.array([1, 1, 1, 0, 1, 1, 1, 1, 0, 1])
    test = cluster_signflip_test(b - a, cluster_layout(range(10)))
    assert test.p == pytest.approx(mcnemar_exact(2, 4), rel=1e-12)


def test_cluster_mcnemar_reduces_to_mcnemar_and_counts_cluster_sums():
    a = np.array([1, 0, 1, 1, 0, 0, 1, 0])
    b = np.array([0, 1, 1, 0, 1, 1, 1, 1])
    x2, p = cluster_mcnemar(a, b, cluster_layout(range(8)))
    assert x2 == pytest.approx((4 - 2) ** 2 / 6)     # B only 4, A only 2
    assert p == pytest.approx(stats.chi2.sf(x2, 1), rel=1e-12)
    labels = [0, 0, 0, 1, 1, 2, 2, 2]        # sums of b - a: (0, 0, 2)
    x2, p = cluster_mcnemar(a, b, cluster_layout(labels))
    assert x2 == pytest.approx(2 ** 2 / (0 + 0 + 2 ** 2))
    assert cluster_mcnemar(a, a, cluster_layout(labels)) == (0.0, 1.0)


def test_icc_equals_the_balanced_anova_formula_and_design_effect():
    rng = np.random.default_rng(5)
    g, m = 8, 5
    x = rng.normal(size=g)[np.repeat(np.arange(g), m)] + rng.normal(size=g * m)
    groups = x.reshape(g, m)
    msb = m * np.var(groups.mean(axis=1), ddof=1)
    msw = np.mean(np.var(groups, axis=1, ddof=1))
    ref = (msb - msw) / (msb + (m - 1) * msw)
    layout = cluster_layout(np.repeat(np.arange(g), m))
    assert icc_anova(x, layout) == pytest.approx(max(ref, 0), rel=1e-10)
    assert design_effect(0.2, [5] * 8) == pytest.approx(1.8)
    assert design_effect(0.2, [2, 8]) == pytest.approx(1 + ((0.36 + 1) * 5 - 1) * 0.2)
    assert icc_anova(np.arange(6.0), cluster_layout(range(6))) == 0.0


def test_cluster_interval_rates_and_scores():
    labels = np.repeat(np.arange(6), 5)
    x = np.array([1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 0, 1,
                  0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1], float)
    r = cluster_interval(x, labels)
    assert r.interval == "cluster_wilson" and r.mean == pytest.approx(x.mean())
    assert 0 < r.effective_n < 30
    assert r.ci_low < r.mean < r.ci_high
    # wider than the plain Wilson interval of 30 independent cases
    z = stats.norm.ppf(0.975)
    plain = stats.binomtest(int(x.sum()), 30).proportion_ci(0.95, method="wilson")
    assert r.ci_high - r.ci_low > plain.high - plain.low
    # all 1: effective n = N, no variance to read
    ones = cluster_interval(np.ones(30), labels)
    assert ones.effective_n == 30 and ones.ci_high == pytest.approx(1.0) and z > 0
    s = cluster_interval(np.linspace(0.1, 0.9, 30), labels)
    assert s.interval == "cr2_t" and 0 <= s.ci_low < s.ci_high <= 1


def test_compare_clustered_to_dict_and_checks():
    rng = np.random.default_rng(7)
    labels = np.repeat([f"doc{i}" for i in range(8)], 4)
    a = (rng.random(32) < 0.5).astype(float)
    b = (rng.random(32) < 0.7).astype(float)
    r = compare_clustered(a, b, labels)
    d = r.to_dict()
    assert d["n_clusters"] == 8 and d["mean_size"] == 4 and d["few"] == (8 <= FEW_CLUSTERS)
    assert d["difference"]["mean"] == pytest.approx(b.mean() - a.mean())
    assert d["effective_n"] == pytest.approx(32 / d["design_effect"])
    assert "mcnemar_cluster" in d and r.resolution == pytest.approx(4 / 32)
    with pytest.raises(ValueError):
        compare_clustered(a, b, labels[:-1])
    with pytest.raises(ValueError):
        compare_clustered(a, b, ["one"] * 32)


def test_bell_mccaffrey_df_equal_sizes():
    assert bell_mccaffrey_df([3, 3, 3, 3]) == pytest.approx(3.0)


def test_calibrated_cr2_contains_the_cr2_interval_and_is_seeded():
    from core.paired.clusters import calibrated_cr2
    rng = np.random.default_rng(11)
    labels = np.repeat(np.arange(8), 5)
    x = rng.exponential(size=8)[labels] + rng.normal(0, 0.2, 40)   # skewed cluster means
    layout = cluster_layout(labels)
    m, lo, hi, se = calibrated_cr2(x, layout, 0.95, seed=3)
    _, lo_t, hi_t, se_t = cr2_t_rows(x, layout, 0.95)
    assert lo <= lo_t[0] and hi >= hi_t[0] and se == pytest.approx(se_t[0])
    assert (lo, hi) != (lo_t[0], hi_t[0])          # the skew moves an end out
    assert calibrated_cr2(x, layout, 0.95, seed=3) == (m, lo, hi, se)
    # by hand: the same bootstrap-t written with a loop over resamples
    from core.paired.clusters import STREAM_CLUSTERS
    from core.paired.streams import stream_key
    g = np.random.default_rng(int(stream_key(3, STREAM_CLUSTERS))).integers(0, 8, (4000, 8))
    ts = []
    for row in g:
        xs = np.concatenate([x[labels == c] for c in row])
        ls = np.repeat(np.arange(8), [int(np.sum(labels == c)) for c in row])
        mm, vv = cr2_rows(xs, cluster_layout(ls)) if len(set(row)) > 1 else (None, None)
        if mm is not None and vv[0] > 0:
            ts.append((mm[0] - m) / np.sqrt(vv[0]))
    q_hi, q_lo = np.quantile(ts, [0.975, 0.025])
    assert lo == pytest.approx(min(lo_t[0], m - q_hi * se), rel=1e-9)
    assert hi == pytest.approx(max(hi_t[0], m - q_lo * se), rel=1e-9)



def test_informative_df_counts_clusters_with_a_non_zero_difference():
    from core.paired.clusters import calibrated_cr2, informative_df
    labels = np.repeat(np.arange(10), 10)
    layout = cluster_layout(labels)
    assert layout.df == pytest.approx(9)
    d = np.zeros(100)
    d[[0, 1, 12, 25, 38]] = [1, 1, -1, 1, 1]          # 4 clusters with a discordant pair
    d2 = d.copy()
    d2[[41, 52, 63, 74, 85, 96]] = 1                    # 10 clusters: the Bell–McCaffrey df
    assert informative_df(np.vstack([d, d2]), layout) == pytest.approx([6.0, 9.0])
    one = np.zeros(100)
    one[5] = 1
    assert informative_df(one, layout)[0] == 1.0        # at least 1
    # the CR2 t-interval inside the calibrated interval is at 6 df, not 9
    m, lo, hi, se = calibrated_cr2(d, layout, 0.95, seed=0)
    q6 = stats.t.ppf(0.975, 6)
    assert m == pytest.approx(0.03) and se == pytest.approx(np.sqrt(cr2_rows(d, layout)[1][0]))
    assert lo <= m - q6 * se + 1e-12 and hi >= m + q6 * se - 1e-12
    assert compare_clustered(np.zeros(100), d.clip(0), labels).difference.df == 4.0   # 3 docs
    # scores are never exactly tied: the df is the Bell–McCaffrey df
    x = np.random.default_rng(1).normal(size=100)
    assert informative_df(x, layout)[0] == pytest.approx(layout.df)


# ----------------------------------------------------------------------------- issue 32 item 2
# the self-check, margin, best set, groups and max-harm share take the clusters too

def _equal_clusters(seed=3, g=10, m=4):
    rng = np.random.default_rng(seed)
    labels = np.repeat([f"doc{i}" for i in range(g)], m)
    u = np.repeat(rng.normal(0, 0.15, g), m)
    a = np.clip(0.5 + u + rng.normal(0, 0.1, g * m), 0, 1)
    b = np.clip(a + 0.05 + np.repeat(rng.normal(0, 0.1, g), m) + rng.normal(0, 0.05, g * m),
                0, 1)
    return a, b, labels


def test_cr2_t_test_equals_the_t_test_of_cluster_means_with_equal_sizes():
    from core.paired.clusters import cr2_t_test
    a, b, labels = _equal_clusters()
    d = b - a
    layout = cluster_layout(labels)
    mean, se, t, p = cr2_t_test(d, layout)
    ref = stats.ttest_1samp(d.reshape(10, 4).mean(axis=1), 0.0)
    assert mean == pytest.approx(d.mean(), abs=1e-12)
    assert t == pytest.approx(ref.statistic, rel=1e-9)
    assert p == pytest.approx(ref.pvalue, rel=1e-9)
    assert cr2_t_test(np.full(8, 0.3), cluster_layout(np.repeat([1, 2], 4)))[2:] == (None, None)


def test_no_harm_with_clusters_uses_the_cluster_intervals_and_cr2_trisk():
    from core.paired import no_harm
    from core.paired.clusters import cluster_wilson_rows
    from core.paired.harm import risk_adjusted
    a, b, labels = _equal_clusters()
    h = no_harm(a, b, delta=0.05, alpha=2, clusters=labels)
    plain = no_harm(a, b, delta=0.05, alpha=2)
    d = b - a
    assert (h.hurt, h.helped, h.urisk) == (plain.hurt, plain.helped, plain.urisk)
    layout = cluster_layout(labels)
    _, lo, hi, _ = cluster_wilson_rows((d < -0.05).astype(float), layout, 0.95)
    assert h.hurt_ci == pytest.approx((lo[0], hi[0]), abs=1e-12)
    _, lo, hi, _ = cluster_wilson_rows((d > 0.05).astype(float), layout, 0.95)
    assert h.helped_ci == pytest.approx((lo[0], hi[0]), abs=1e-12)
    z = risk_adjusted(d, 2).reshape(10, 4).mean(axis=1)   # equal sizes: t of cluster means
    ref = stats.ttest_1samp(z, 0.0)
    assert h.trisk == pytest.approx(ref.statistic, rel=1e-9)
    assert h.trisk_p is None and not h.trisk_withheld   # no clustered form of its test
    assert h.to_dict()["trisk_test"] == "withheld_with_clusters"
    assert h.to_dict()["unit"] == "clusters" and h.to_dict()["n_clusters"] == 10
    assert "unit" not in plain.to_dict() and plain.n_clusters is None
    with pytest.raises(ValueError, match="one cluster label per case"):
        no_harm(a, b, clusters=labels[:-1])


def test_best_set_with_clusters_is_bonferroni_t_on_cr2_standard_errors():
    import pandas as pd

    from core.paired import best_set
    a, b, labels = _equal_clusters()
    rng = np.random.default_rng(5)
    c = np.clip(a - 0.3 + rng.normal(0, 0.02, a.size), 0, 1)   # far behind
    scores = pd.DataFrame({"a": a, "b": b, "c": c}, index=[f"q{i}" for i in range(a.size)])
    bs = best_set(scores, resamples=500, clusters=labels)
    k, pairs, g = 3, 3, 10
    assert bs.critical == pytest.approx(stats.t.ppf(1 - 0.05 / (2 * pairs), g - 1), rel=1e-9)
    assert bs.mcb_critical == pytest.approx([stats.t.ppf(1 - 0.05 / (k - 1), g - 1)] * k,
                                            rel=1e-9)
    # each pair's interval: mean difference +/- c * sd(cluster means of d) / sqrt(G)
    for p_ in bs.pairs:
        d = scores[p_.b].to_numpy() - scores[p_.a].to_numpy()
        se = d.reshape(g, 4).mean(axis=1).std(ddof=1) / np.sqrt(g)
        assert (p_.ci_low, p_.ci_high) == pytest.approx(
            (d.mean() - bs.critical * se, d.mean() + bs.critical * se), rel=1e-9)
    assert "c" in bs.behind and bs.max_t.size == 0
    out = bs.to_dict()
    assert out["unit"] == "clusters" and out["n_clusters"] == 10
    assert "unit" not in best_set(scores, resamples=500).to_dict()
    # cases with a missing value are left out, their clusters with them
    scores.iloc[0, 0] = np.nan
    assert best_set(scores, resamples=500, clusters=labels).n == a.size - 1
    with pytest.raises(ValueError, match="one cluster label per row"):
        best_set(scores, resamples=500, clusters=labels[:-1])


def test_signflip_midp_enumerated_by_hand_and_singletons_give_the_midp_mcnemar():
    from core.paired.clusters import signflip_midp
    from core.paired.significance import mcnemar_midp
    s = np.array([2.0, 1.0, 1.0, -1.0])   # |sum| = 3
    pats = np.array(list(itertools.product((1, -1), repeat=4)))
    t = np.abs(pats @ s)
    by_hand = np.mean(t > 3) + 0.5 * np.mean(t == 3)
    assert signflip_midp(s) == pytest.approx(by_hand, abs=1e-15)
    assert signflip_midp(np.array([])) == 1.0 and signflip_midp(np.array([1.0, -1.0])) == 1.0
    # 0/1 outcomes in clusters: the verdict's test is the mid-p; singletons: mid-p McNemar
    a = np.array([1, 0, 1, 1, 0, 1, 0, 1, 1, 0, 1, 1])
    b = np.array([1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 0, 1])
    single = compare_clustered(a, b, list(range(12)), resamples=2000)
    only_a, only_b = int(np.sum((a == 1) & (b == 0))), int(np.sum((a == 0) & (b == 1)))
    assert single.test.mid_p and single.test.p == pytest.approx(mcnemar_midp(only_a, only_b))
    docs = np.repeat(np.arange(4), 3)
    cc = compare_clustered(a, b, docs, resamples=2000)
    sums = np.bincount(docs, weights=b - a)
    assert cc.test.p == pytest.approx(signflip_midp(sums[sums != 0]))
    assert cc.test.min_p == pytest.approx(2.0 ** -cc.test.nonzero)
    scores = compare_clustered(a * 0.5 + 0.1, b * 0.4 + 0.2, docs, resamples=2000)
    assert not scores.test.mid_p   # scores keep the exact p


def test_monte_carlo_midp_above_20_nonzero_clusters_is_near_the_exact_midp():
    from core.paired.clusters import cluster_signflip_test, signflip_midp
    rng = np.random.default_rng(8)
    docs = np.repeat(np.arange(32), 3)
    d = rng.choice([-1.0, 0.0, 1.0], docs.size, p=[0.3, 0.3, 0.4])
    layout = cluster_layout(docs)
    test = cluster_signflip_test(d, layout, resamples=40_000, seed=3, binary=True)
    sums = np.bincount(docs, weights=d)
    assert test.nonzero > 20 and not test.exact and test.mid_p
    exact = signflip_midp(sums[sums != 0])   # meet in the middle handles 21+ values too
    assert test.p == pytest.approx(exact, abs=4 * np.sqrt(exact * (1 - exact) / 40_000) + 1e-4)
    plain = cluster_signflip_test(d, layout, resamples=40_000, seed=3)
    assert not plain.mid_p and plain.p >= test.p


def _wilson(p, n, q):
    """Wilson's interval by hand: centre (p + q^2 / 2n) / (1 + q^2 / n), half-width
    q / (1 + q^2 / n) sqrt(p (1 − p) / n + q^2 / 4n^2)."""
    u = q * q / n
    centre = (p + u / 2) / (1 + u)
    half = q / (1 + u) * np.sqrt(p * (1 - p) / n + q * q / (4 * n * n))
    return centre - half, centre + half


def test_cluster_wilson_adjusts_for_df_first_then_truncates_at_n():
    """Dean & Pagano (2015): n*_df = n* (z / t(df))^2, truncated at N, with z. Three sets of 6
    clusters of 5 (df 5), V_CR2 = sum E_g^2 / (1 − 5/30) / 30^2 by hand."""
    labels = np.repeat(np.arange(6), 5)
    layout = cluster_layout(labels)
    z, t5 = stats.norm.ppf(0.975), stats.t.ppf(0.975, 5)

    def rows(per_cluster):
        return np.concatenate([[1.0] * k + [0.0] * (5 - k) for k in per_cluster])

    # design effect above 1: Wilson at n* with t(5)
    x = rows([5, 1, 4, 0, 5, 3])               # p = 0.6, E_g = 2, -2, 1, -3, 2, 0
    n_star = 0.24 / (22 * 1.2 / 900)
    p, lo, hi, ne = cluster_wilson_rows(x, layout, 0.95)
    assert ne[0] == pytest.approx(n_star) and n_star < 30
    assert (lo[0], hi[0]) == pytest.approx(_wilson(0.6, n_star, t5), abs=1e-12)
    # design effect 1/3 (below (z / t)^2 = 0.58): the independent-cases Wilson interval at N
    x = rows([3, 3, 3, 3, 2, 4])               # E_g = 0, 0, 0, 0, -1, 1
    p, lo, hi, ne = cluster_wilson_rows(x, layout, 0.95)
    ref = stats.binomtest(18, 30).proportion_ci(0.95, method="wilson")
    assert (lo[0], hi[0]) == pytest.approx((ref.low, ref.high), abs=1e-12)
    assert ne[0] == 30                          # the design effect reported is read as 1
    # design effect 2/3 (between 0.58 and 1): n* (z / t)^2 < N, i.e. Wilson at n* with t(5)
    x = rows([4, 3, 2, 3, 2, 4])               # E_g = 1, 0, -1, 0, -1, 1
    n_star = 0.24 / (4 * 1.2 / 900)
    assert 30 < n_star < 30 * (t5 / z) ** 2
    p, lo, hi, ne = cluster_wilson_rows(x, layout, 0.95)
    assert (lo[0], hi[0]) == pytest.approx(_wilson(0.6, n_star, t5), abs=1e-12)
    # every value 1: n* = N, Wilson at N with t(5) (no spread to read)
    p, lo, hi, ne = cluster_wilson_rows(np.ones(30), layout, 0.95)
    assert (lo[0], hi[0]) == pytest.approx(_wilson(1.0, 30, t5), abs=1e-12)
