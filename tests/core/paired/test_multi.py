"""core.paired.multi: Holm and Benjamini–Hochberg vs statsmodels and a hand computation; pairs equal
core.paired.stats per pair."""
import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.multitest import multipletests

from core.errors import InputError
from core.paired.multi import bh, compare_many, disagreements, holm
from core.views.multi import matrix_chart
from core.paired.significance import cohens_dz, randomization_p
from core.paired.stats import paired_bootstrap


def test_holm_by_hand():
    # sorted p: 0.01, 0.02, 0.04, 0.3 with m = 4 -> 0.04, 0.06, 0.08, 0.3 (monotone)
    p = [0.04, 0.01, 0.3, 0.02]
    assert holm(p) == pytest.approx([0.08, 0.04, 0.3, 0.06])
    # the running maximum: sorted 0.025*3 = 0.075, then 0.03*2 = 0.06 is raised to 0.075
    assert holm([0.03, 0.025, 0.9]) == pytest.approx([0.075, 0.075, 0.9])
    assert holm([0.6, 0.7]) == pytest.approx([1.0, 1.0])
    assert holm([]).size == 0


@pytest.mark.parametrize("seed", range(5))
def test_holm_equals_statsmodels(seed):
    p = np.random.default_rng(seed).random(12) ** 4
    p[3] = p[7]  # a tie
    assert np.allclose(holm(p), multipletests(p, method="holm")[1], atol=1e-15)


def test_bh_by_hand():
    # sorted p: 0.01, 0.02, 0.04, 0.3 with m = 4 -> m p / i = 0.04, 0.04, 0.0533, 0.3;
    # the running minimum from the top changes nothing here
    assert bh([0.04, 0.01, 0.3, 0.02]) == pytest.approx([0.16 / 3, 0.04, 0.3, 0.04])
    # step-up: sorted 0.02, 0.03, 0.031 (m = 3) -> 0.06, 0.045, 0.031: the smaller later
    # values pull the earlier ones down to 0.031
    assert bh([0.031, 0.02, 0.03]) == pytest.approx([0.031, 0.031, 0.031])
    assert bh([0.6, 0.9]) == pytest.approx([0.9, 0.9])
    assert bh([]).size == 0


@pytest.mark.parametrize("seed", range(8))
def test_bh_equals_statsmodels(seed):
    rng = np.random.default_rng(seed)
    p = rng.random(int(rng.integers(1, 40))) ** 3
    if p.size > 4:
        p[1] = p[4]  # a tie
    assert np.allclose(bh(p), multipletests(p, method="fdr_bh")[1], atol=1e-15)
    # BH never adjusts above Holm (it controls a weaker error)
    assert np.all(bh(p) <= holm(p) + 1e-15)


def test_bh_verdicts_read_the_bh_p():
    df = _scores(seed=3)
    holm_mc = compare_many(df, resamples=2000, seed=7)
    bh_mc = compare_many(df, resamples=2000, seed=7, correction="bh")
    raw = [p.p for p in bh_mc.pairs]
    assert raw == [p.p for p in holm_mc.pairs]
    assert [p.p_adjusted for p in bh_mc.pairs] == pytest.approx(
        multipletests(raw, method="fdr_bh")[1])
    assert [p.p_holm for p in bh_mc.pairs] == [p.p_holm for p in holm_mc.pairs]
    for p in bh_mc.pairs:
        assert p.significant == (p.p_adjusted < 0.05 and p.mean != 0)
    assert bh_mc.to_dict()["adjustment"] == "bh" and holm_mc.to_dict()["adjustment"] == "holm"
    assert {p["p_adjusted"] for p in holm_mc.to_dict()["pairs"]} == \
        {p.p_holm for p in holm_mc.pairs}
    assert list(bh_mc.matrix()["p_adjusted"])[::2] == [p.p_adjusted for p in bh_mc.pairs]
    with pytest.raises(ValueError, match="correction"):
        compare_many(df, resamples=200, correction="fdr")


def test_holm_rejects_bad_p():
    for bad in ([0.1, 1.5], [np.nan], [[0.1]]):
        with pytest.raises(ValueError):
            holm(bad)


def _scores(n=60, seed=0):
    rng = np.random.default_rng(seed)
    base = rng.random(n)
    return pd.DataFrame({"bm25": base, "dense": base + rng.normal(0.02, 0.2, n),
                         "hybrid": base + rng.normal(0.15, 0.2, n),
                         "tuned": base + rng.normal(0.16, 0.2, n)},
                        index=[f"q{i}" for i in range(n)])


def test_all_pairs_equal_core_stats_and_holm():
    df = _scores()
    mc = compare_many(df, resamples=2000, seed=7)
    assert [(p.a, p.b) for p in mc.pairs] == [
        ("bm25", "dense"), ("bm25", "hybrid"), ("bm25", "tuned"), ("dense", "hybrid"),
        ("dense", "tuned"), ("hybrid", "tuned")]
    raw = []
    for p in mc.pairs:
        a, b = df[p.a].to_numpy(), df[p.b].to_numpy()
        bs = paired_bootstrap(a, b, resamples=2000, seed=7, interval=mc.interval)
        assert (p.mean, p.ci_low, p.ci_high) == (bs.mean, bs.ci_low, bs.ci_high)
        assert p.p == randomization_p(a, b, resamples=2000, seed=7)
        assert p.cohens_dz == cohens_dz(a, b)
        assert p.wins + p.ties + p.losses == p.n == 60
        raw.append(p.p)
    assert [p.p_holm for p in mc.pairs] == pytest.approx(multipletests(raw, method="holm")[1])
    for p in mc.pairs:
        assert p.significant == (p.p_holm < 0.05)
        # different only when the Holm p and the adjusted interval both say so (issue 37)
        leaves_out_0 = p.adj_ci_low > 0 if p.mean > 0 else p.adj_ci_high < 0
        assert p.verdict == ("no_difference" if not (p.significant and leaves_out_0) else
                             "b_better" if p.mean > 0 else "a_better")  # mean is B - A
    by = {(p.a, p.b): p for p in mc.pairs}
    assert by[("bm25", "hybrid")].verdict == "b_better"
    assert by[("hybrid", "tuned")].verdict == "no_difference"


def test_baseline_mode_and_matrix():
    df = _scores()
    mc = compare_many(df, mode="baseline", baseline="bm25", resamples=1000)
    # the baseline is A of every pair, so B - A reads "system minus baseline"
    assert [(p.a, p.b) for p in mc.pairs] == [("bm25", "dense"), ("bm25", "hybrid"),
                                              ("bm25", "tuned")]
    assert all(p.mean == pytest.approx(df[p.b].mean() - df[p.a].mean()) for p in mc.pairs)
    assert mc.to_dict()["adjustment"] == "holm" and len(mc.to_dict()["pairs"]) == 3
    full = compare_many(df, resamples=1000).matrix()
    assert len(full) == 12
    cell = full.set_index(["row", "col"])["diff"]
    assert cell[("hybrid", "bm25")] == pytest.approx(-cell[("bm25", "hybrid")])
    assert cell[("hybrid", "bm25")] == pytest.approx(df["hybrid"].mean() - df["bm25"].mean())
    spec = matrix_chart(mc).to_dict()
    assert spec["layer"][0]["mark"]["type"] == "rect"


def test_missing_values_are_left_out_per_pair_and_reported():
    df = _scores(20)
    df.loc["q3", "dense"] = np.nan
    mc = compare_many(df[["bm25", "dense", "hybrid"]], resamples=1000)
    by = {(p.a, p.b): p for p in mc.pairs}
    assert by[("bm25", "dense")].n == 19 and by[("bm25", "hybrid")].n == 20
    assert mc.excluded == {"bm25 vs dense": ["q3"], "dense vs hybrid": ["q3"]}


def test_bad_arguments():
    df = _scores(10)
    with pytest.raises(InputError):
        compare_many(df, mode="baseline", baseline="nope")
    with pytest.raises(ValueError):
        compare_many(df, mode="some")
    with pytest.raises(InputError):
        compare_many(df[["bm25"]])
    with pytest.raises(ValueError):
        compare_many(df, resamples=0)


def test_disagreements_largest_first_with_text():
    df = pd.DataFrame({"A": [1.0, 0.5, 0.2, 0.9], "B": [0.0, 0.5, 0.9, 0.8]},
                      index=["c1", "c2", "c3", "c4"])
    text = pd.DataFrame({"query": ["w", "x", "y", "z"]}, index=df.index)
    d = disagreements(df, "A", "B", text=text)
    assert d["case_id"].tolist() == ["c1", "c3", "c4"]  # c2 ties, left out
    assert d["difference"].tolist() == pytest.approx([-1.0, 0.7, -0.1])  # B - A
    assert d["query"].tolist() == ["w", "y", "z"]
    assert len(disagreements(df, "A", "B", top=1)) == 1


# ----------------------------------------------------------------------------- issue 37
@pytest.mark.parametrize("correction", ["holm", "bh"])
@pytest.mark.parametrize("interval", ["percentile", "auto"])
def test_each_pairs_interval_is_at_the_level_of_the_verdicts(correction, interval):
    """Issue 37: an unadjusted 95% interval [+0.005, +0.235] stood beside a Holm "no clear
    difference". Each pair also carries the same interval at the per-pair level of the
    verdicts: 1 - alpha/m for Holm (Bonferroni: all m hold together at 1 - alpha), 1 - R alpha/m
    for BH (Benjamini & Yekutieli's FCR-adjusted level, R = pairs BH calls different). The
    percentile one is read off the pair's own resamples (numpy.quantile, as
    core.paired.resampling.percentile_ci); every adjusted interval holds the pair's 95% one."""
    from core.paired.multi import adjusted_confidence
    df = _scores(seed=3)
    mc = compare_many(df, resamples=2000, seed=7, correction=correction, interval=interval)
    m, alpha = len(mc.pairs), 0.05
    selected = sum(p.p_adj < alpha for p in mc.pairs)
    want = 1 - (1 if correction == "holm" else max(selected, 1)) * alpha / m
    assert mc.adjusted_confidence == pytest.approx(want, abs=1e-15)
    assert adjusted_confidence(0.95, 1, "holm", 0) == pytest.approx(0.95)
    for p in mc.pairs:
        a, b = df[p.a].to_numpy(), df[p.b].to_numpy()
        ref = paired_bootstrap(a, b, resamples=2000, seed=7, interval=interval,
                               confidence=mc.adjusted_confidence)
        assert (p.adj_ci_low, p.adj_ci_high) == pytest.approx((ref.ci_low, ref.ci_high),
                                                              abs=1e-12)
        if interval == "percentile":
            lo, hi = np.quantile(ref.distribution, [(1 - want) / 2, 1 - (1 - want) / 2])
            assert (p.adj_ci_low, p.adj_ci_high) == pytest.approx((lo, hi), abs=1e-12)
        assert p.adj_ci_low <= p.ci_low and p.ci_high <= p.adj_ci_high
        d = p.to_dict()
        assert (d["ci_low_adjusted"], d["ci_high_adjusted"]) == (p.adj_ci_low, p.adj_ci_high)


def test_a_no_clear_difference_beside_an_interval_that_leaves_out_0_is_gone():
    """The issue's case: a pair whose own 95% interval leaves out 0 but whose Holm p is not
    below alpha. Its adjusted interval (the one the page shows) holds 0; and no pair is
    "no difference" with an adjusted interval leaving out 0 unless its adjusted p is the
    reason."""
    found = held = 0
    # of seeds 0-11, 0 (two pairs out on their own, in by Holm), 2 (neither situation) and
    # 10 (one of each, and a "no difference" whose adjusted p is below alpha) cover every
    # branch below; the other nine repeated them at 0.15 s of CPU each (issue: make test time)
    for seed in (0, 2, 10):
        mc = compare_many(_scores(n=30, seed=seed), resamples=2000, seed=1)
        for p in mc.pairs:
            own_out = p.ci_low > 0 or p.ci_high < 0
            adj_out = p.adj_ci_low > 0 or p.adj_ci_high < 0
            if p.verdict == "no_difference" and p.p_adj < mc.alpha:
                held += 1
                assert not adj_out, p
            if own_out and p.p_adj >= mc.alpha:
                found += 1
                assert p.verdict == "no_difference" and not adj_out, p
    assert found >= 3 and held >= 1  # both situations occur in these data


def test_the_pandas_free_table_gives_the_same_pairs():
    """The CLI hands ``compare_many`` a ``CaseScores`` (no pandas on its path, issue 38):
    every pair, p-value, interval and exclusion equals the DataFrame's."""
    from core.inputs.golden_cases import CaseScores

    rng = np.random.default_rng(5)
    x = rng.random((25, 3))
    x[4, 0] = x[9, 2] = np.nan
    df = pd.DataFrame(x, columns=["bm25", "dense", "hybrid"],
                      index=pd.Index([f"c{i}" for i in range(25)], name="case_id"))
    cs = CaseScores(tuple(df.index), tuple(df.columns), x)
    for kw in (dict(), dict(mode="baseline", baseline="dense", correction="bh")):
        ref = compare_many(df, resamples=600, seed=2, **kw)
        got = compare_many(cs, resamples=600, seed=2, **kw)
        assert got.to_dict() == ref.to_dict() and got.excluded == ref.excluded
    assert got.excluded == {"dense vs bm25": ["c4"], "dense vs hybrid": ["c9"]}
    with pytest.raises(ValueError, match="scores must be"):
        compare_many(x, resamples=600)
