"""core.latency.compare: reading timing logs, the nested and paired bootstraps against numpy/scipy and
brute force, CI coverage in simulation, warm-up/order/cache checks, verdict rules."""
import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from core.latency import compare as L
from core.latency import fairness as LF
from core.latency import log as LL
from core.latency import resample as LR
from core.errors import InputError
from core.paired.resampling import kernels, percentile_ci
from core.paired.stats import bootstrap_mean
from core.paired.streams import resample_seeds, stream_key
from core.views import latency as VL

ROOT = Path(__file__).resolve().parents[3]
DEMO = ROOT / "data" / "demo_latency.csv"


def _long_csv(rows, header="query_id,method,run,latency_ms") -> bytes:
    return (header + "\n" + "".join(",".join(map(str, r)) + "\n" for r in rows)).encode()


def _log(a, b, *, names=("A", "B"), interleave=True) -> LL.TimingLog:
    """A long log from two (queries x runs) arrays of ms; runs interleaved A/B per query, who
    goes first in each pair drawn at random (a fair log: no position-in-pair effect)."""
    rows = []
    first = np.random.default_rng(7).random(a.shape) < 0.5
    for q in range(a.shape[0]):
        for r in range(a.shape[1]):
            pair = [(f"q{q}", names[0], r + 1, f"{a[q, r]:.6f}"),
                    (f"q{q}", names[1], r + 1, f"{b[q, r]:.6f}")]
            rows += pair if first[q, r] else pair[::-1]
    if not interleave:
        rows.sort(key=lambda t: t[1] != names[0])
    return LL.load_timings(_long_csv(rows), "sim.csv")


# ----------------------------------------------------------------------------- reading
def test_demo_reads_long_with_runs_cache_and_timestamps():
    log = LL.load_timings(DEMO.read_bytes(), "demo_latency.csv")
    assert log.layout == "long" and log.methods == ("bm25", "hybrid")
    assert log.has_run and log.has_cache and log.has_timestamp
    assert log.n_rows == 720 and set(log.frame["run"]) == set(range(1, 7))
    assert log.frame["cache"].isin([0.0, 1.0]).all()


def test_wide_layout_repeated_rows_become_runs_and_blanks_are_listed():
    text = "query_id,old,new\nq1,10,5\nq1,12,6\nq2,20,\nq2,22,11\nq3,30,15\n"
    log = LL.load_timings(text.encode("cp949"), "wide.csv")
    assert log.layout == "wide" and log.methods == ("old", "new")
    f = log.frame
    assert list(f[(f["method"] == "old") & (f["query"] == "q1")]["run"]) == [1, 2]
    assert log.blank == ("row 4 (new)",)
    assert len(f) == 9  # 10 cells, one blank left out and listed


def test_xlsx_and_korean_headers():
    df = pd.DataFrame({"쿼리": ["a", "a", "b", "b"], "방법": ["x", "y", "x", "y"],
                       "지연시간": [1.5, 2.5, 3.0, 4.0]})
    buf = io.BytesIO()
    df.to_excel(buf, index=False)
    log = LL.load_timings(buf.getvalue(), "log.xlsx")
    assert log.layout == "long" and log.methods == ("x", "y")
    assert log.frame["latency_ms"].tolist() == [1.5, 2.5, 3.0, 4.0]


def test_rows_without_run_column_are_ranked_by_timestamp():
    rows = [("q1", "A", "5.0", 30), ("q1", "A", "1.0", 10), ("q1", "A", "3.0", 20)]
    log = LL.load_timings(_long_csv(rows, "query_id,method,latency_ms,timestamp"), "t.csv")
    f = log.frame.sort_values("run")
    assert f["latency_ms"].tolist() == [1.0, 3.0, 5.0] and not log.has_run


@pytest.mark.parametrize("text, code, row, column", [
    ("query_id,method,latency_ms\nq1,A,fast\n", "latency.err_bad_latency", 2, "latency_ms"),
    ("query_id,method,latency_ms\nq1,A,3\nq2,B,-1\n", "latency.err_not_positive", 3,
     "latency_ms"),
    ("query_id,method,latency_ms\nq1,A,0\n", "latency.err_not_positive", 2, "latency_ms"),
    ("query_id,method,latency_ms,cache\nq1,A,3,maybe\n", "latency.err_bad_cache", 2, "cache"),
    ("query_id,method,run,latency_ms\nq1,A,1,3\nq1,A,1,4\n", "latency.err_duplicate_run", 3,
     "run"),
    ("query_id,method,run,latency_ms\nq1,A,1.5,3\n", "latency.err_bad_run", 2, "run"),
    ("query_id,method,latency_ms\n,A,3\n", "latency.err_blank_query", 2, "query_id"),
    ("query_id,method,latency_ms,timestamp\nq1,A,3,yesterday\n", "latency.err_bad_time", 2,
     "timestamp"),
])
def test_bad_cells_name_row_and_column(text, code, row, column):
    with pytest.raises(InputError) as e:
        LL.load_timings(text.encode(), "bad.csv")
    assert e.value.code == code and e.value.row == row and e.value.column == column
    assert "bad.csv" in str(e.value)


def test_no_query_column():
    with pytest.raises(InputError) as e:
        LL.load_timings(b"foo,bar\n1,2\n", "x.csv")
    assert e.value.code == "latency.err_no_query"


# ----------------------------------------------------------------------------- kernels
def test_paired_median_ratio_kernel_equals_brute_force():
    rng = np.random.default_rng(0)
    nq = 23
    ka, kb = rng.integers(1, 6, nq), rng.integers(1, 6, nq)
    a = [rng.lognormal(3, 0.6, k) for k in ka]
    b = [rng.lognormal(3, 0.6, k) for k in kb]
    qa, qb = np.repeat(np.arange(nq), ka), np.repeat(np.arange(nq), kb)
    obs, dist = LR.paired_median_ratio_bootstrap(np.concatenate(a), qa, np.concatenate(b), qb,
                                                nq, resamples=300, seed=7)
    assert obs == pytest.approx(np.log(np.median(np.concatenate(b)))
                                - np.log(np.median(np.concatenate(a))), abs=1e-12)
    for r, s in enumerate(resample_seeds(7, 300)):
        w = LR.draw_query_counts(s, nq)
        A = np.concatenate([np.tile(a[q], w[q]) for q in range(nq)])
        B = np.concatenate([np.tile(b[q], w[q]) for q in range(nq)])
        assert dist[r] == pytest.approx(np.log(np.median(B)) - np.log(np.median(A)), abs=1e-12)


def test_nested_bootstrap_with_one_run_matches_scipy_bootstrap():
    rng = np.random.default_rng(3)
    x = rng.lognormal(3, 0.8, 300)
    dist = LR.nested_bootstrap_quantiles([np.array([v]) for v in x], [0.5, 0.95],
                                        resamples=20_000, seed=1)
    for j, p in enumerate((0.5, 0.95)):
        ref = stats.bootstrap((x,), lambda s, axis: np.quantile(s, p, axis=axis),
                              n_resamples=20_000, method="percentile", rng=2)
        se = ref.standard_error
        lo, hi = percentile_ci(dist[:, j], 0.95)
        # Monte-Carlo error of a percentile endpoint at 20,000 resamples is well below 0.25 SE
        assert abs(lo - ref.confidence_interval.low) < 0.25 * se
        assert abs(hi - ref.confidence_interval.high) < 0.25 * se
        assert np.std(dist[:, j]) == pytest.approx(se, rel=0.05)


def test_nested_bootstrap_draws_runs_within_queries():
    """Two stages: the kernel's distribution has the mean and spread of a plain numpy
    implementation of the same scheme (Monte-Carlo tolerances)."""
    rng = np.random.default_rng(4)
    groups = [rng.lognormal(rng.normal(3, 0.5), 0.4, k) for k in rng.integers(2, 7, 40)]
    dist = LR.nested_bootstrap_quantiles(groups, [0.5], resamples=2000, seed=0)[:, 0]
    ref = np.empty(2000)
    for r in range(2000):
        qs = rng.integers(0, len(groups), len(groups))
        ref[r] = np.median(np.concatenate([groups[q][rng.integers(0, groups[q].size,
                                                                  groups[q].size)]
                                           for q in qs]))
    se = ref.std()
    assert abs(dist.mean() - ref.mean()) < 0.1 * se
    assert dist.std() == pytest.approx(se, rel=0.08)
    # more spread than resampling queries only (the second stage adds the runs' noise)
    one_stage = [np.median(np.concatenate([groups[q] for q in rng.integers(0, 40, 40)]))
                 for _ in range(2000)]
    assert dist.std() > 0.9 * np.std(one_stage)


def test_nested_walk_has_the_law_of_drawing_every_timing():
    """The walking kernel draws only the counts it needs; on a tiny log its distribution of
    the median and p95 matches drawing every timing (numpy), outcome by outcome."""
    groups = [np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0]), np.array([6.0]),
              np.array([2.0, 7.0, 8.0, 9.0])]
    R = 20_000
    dist = LR.nested_bootstrap_quantiles(groups, [0.5, 0.95], resamples=R, seed=3)
    rng = np.random.default_rng(5)
    ref = np.empty((R, 2))
    for r in range(R):
        qs = rng.integers(0, 4, 4)
        x = np.concatenate([groups[q][rng.integers(0, groups[q].size, groups[q].size)]
                            for q in qs])
        ref[r] = np.quantile(x, [0.5, 0.95])
    for j in range(2):
        values = np.union1d(dist[:, j], ref[:, j])
        f1 = np.array([np.mean(dist[:, j] == v) for v in values])
        f2 = np.array([np.mean(ref[:, j] == v) for v in values])
        assert np.max(np.abs(f1 - f2)) < 0.012  # ~4 Monte-Carlo SE at 20,000 draws
        assert dist[:, j].mean() == pytest.approx(ref[:, j].mean(), abs=0.05)


def test_same_seed_same_distribution_and_argument_checks():
    g = [np.array([1.0, 2.0]), np.array([3.0])]
    d1 = LR.nested_bootstrap_quantiles(g, [0.5], resamples=500, seed=9)
    assert np.array_equal(d1, LR.nested_bootstrap_quantiles(g, [0.5], resamples=500, seed=9))
    with pytest.raises(ValueError, match="groups"):
        LR.nested_bootstrap_quantiles([], [0.5])
    with pytest.raises(ValueError, match="probs"):
        LR.nested_bootstrap_quantiles(g, [1.5])
    with pytest.raises(ValueError, match="resamples"):
        LR.nested_bootstrap_quantiles(g, [0.5], resamples=0)


# ----------------------------------------------------------------------------- comparison
def _null_sim(rng, nq=60, runs=3, between=0.5, within=0.3, ratio=1.0):
    base = rng.normal(np.log(30), between, nq)
    a = np.exp(base[:, None] + rng.normal(0, within, (nq, runs)))
    b = ratio * np.exp(base[:, None] + rng.normal(0, within, (nq, runs)))
    return a, b


def test_summary_numbers_equal_numpy_and_the_geo_ci_is_the_calibrated_t_interval():
    rng = np.random.default_rng(11)
    a, b = _null_sim(rng, nq=40, runs=4, ratio=0.6)
    res = L.compare_latency(_log(a, b), "A", "B", resamples=5000, quantile_resamples=1000,
                            seed=3)
    for m, x in ((res.method_a, a), (res.method_b, b)):
        assert m.median == pytest.approx(np.median(x), rel=1e-5)
        assert m.p95 == pytest.approx(np.quantile(x, 0.95), rel=1e-5)
        assert m.median_ci[0] < m.median < m.median_ci[1]
        assert m.p95_ci is None and m.p95_ci_withheld == "few_queries"   # 40 < 100 queries
        assert (m.n_queries, m.n_runs) == (40, 160)
    d = np.log(np.median(b, axis=1)) - np.log(np.median(a, axis=1))
    ref = stats.t.interval(0.95, d.size - 1, loc=d.mean(), scale=stats.sem(d))
    r = res.ratio
    assert r.geo_mean_ratio == pytest.approx(np.exp(d.mean()), rel=1e-5)
    # the calibrated t-interval: the t-interval (scipy), each end widened to the bootstrap-t's
    # (studentized resamples of the same draws, numpy quantiles) when that lies further out
    assert r.geo_ci_low <= np.exp(ref[0]) * (1 + 1e-9)
    assert r.geo_ci_high >= np.exp(ref[1]) * (1 - 1e-9)
    means, sds = kernels().bootstrap_sets(np.ascontiguousarray(d[None, :]), stream_key(3), 5000)
    ok = sds[0] > 0
    tstar = (means[0][ok] - d.mean()) / (sds[0][ok] / np.sqrt(d.size))
    q_lo, q_hi = np.quantile(tstar, [0.025, 0.975])
    c, se = stats.t.ppf(0.975, d.size - 1), stats.sem(d)
    want = (d.mean() - max(c, q_hi) * se, d.mean() - min(-c, q_lo) * se)
    assert (r.geo_ci_low, r.geo_ci_high) == pytest.approx(tuple(np.exp(want)), rel=1e-7)
    assert r.to_dict()["geo_interval"] == "calibrated_t"
    # the bootstrap distribution of the log ratio stays (the chart draws it)
    boot = bootstrap_mean(d, resamples=5000, seed=3)
    assert np.allclose(np.log(r.geo_distribution), boot.distribution)
    assert r.median_ratio == pytest.approx(np.median(b) / np.median(a), rel=1e-5)
    assert r.ci_low < r.median_ratio < r.ci_high
    assert res.verdict == "b_faster" and r.randomization_p < 0.01
    text = VL.speed_sentence(r, a="A", b="B")
    assert text.startswith(f"B takes {r.geo_mean_ratio:.2f}× the time of A: B is faster.")
    assert "randomization p < 0.001" in text and "p = <" not in text


def test_geo_ratio_ci_coverage_when_there_is_no_difference():
    """Log-normal latencies, no true difference: the 95% CI of the geometric-mean ratio
    (the one the verdict uses) covers 1 in 93.5-96.5% of 1,000 simulated logs."""
    rng = np.random.default_rng(2026)
    covered = 0
    sims = 1000
    for s in range(sims):
        a, b = _null_sim(rng)
        d = np.log(np.median(b, axis=1)) - np.log(np.median(a, axis=1))
        ci = bootstrap_mean(d, resamples=1000, seed=s)
        covered += ci.ci_low <= 0 <= ci.ci_high
    assert 0.935 <= covered / sims <= 0.965


def test_median_ratio_ci_is_not_too_narrow():
    """The ratio of pooled medians (queries resampled, runs kept): the percentile CI errs on
    the wide side (the bootstrap overstates a median's variance; Hall & Martin 1988), never
    the narrow one: coverage of 1 under no difference at least 93.5%."""
    rng = np.random.default_rng(7)
    covered, sims = 0, 300
    q = np.repeat(np.arange(60), 3)
    for s in range(sims):
        a, b = _null_sim(rng)
        _, dist = LR.paired_median_ratio_bootstrap(a.ravel(), q, b.ravel(), q, 60,
                                                  resamples=1000, seed=s)
        lo, hi = percentile_ci(dist, 0.95)
        covered += lo <= 0 <= hi
    assert covered / sims >= 0.935


def test_verdict_needs_both_the_ci_and_the_randomization_p():
    assert L.speed_verdict(0.5, 0.9, 0.01, 0.95) == "b_faster"
    assert L.speed_verdict(1.1, 1.5, 0.01, 0.95) == "a_faster"
    assert L.speed_verdict(0.5, 0.9, 0.06, 0.95) == "no_difference"   # p too large
    assert L.speed_verdict(0.9, 1.1, 0.001, 0.95) == "no_difference"  # CI includes 1
    with pytest.raises(ValueError, match="confidence"):
        L.speed_verdict(0.5, 0.9, 0.01, 1.5)


def test_no_difference_says_so():
    rng = np.random.default_rng(5)
    a, b = _null_sim(rng, nq=30)
    res = L.compare_latency(_log(a, b), "A", "B", resamples=2000, quantile_resamples=500)
    assert res.verdict == "no_difference"
    assert "cannot tell which is faster" in VL.speed_sentence(res.ratio, a="A", b="B")
    assert "어느 쪽이 더 빠른지 알 수 없습니다" in VL.speed_sentence(res.ratio, a="A", b="B",
                                                           lang="ko")
    assert res.warnings == ()
    assert res.to_dict() == L.compare_latency(_log(a, b), "A", "B", resamples=2000,
                                              quantile_resamples=500).to_dict()


# ----------------------------------------------------------------------------- warm-up
@pytest.mark.parametrize("k", [1, 2, 3])
def test_warmup_detection_finds_known_k(k):
    rng = np.random.default_rng(k)
    runs = 10
    m = np.exp(rng.normal(np.log(20), 0.4, (50, 1)) + rng.normal(0, 0.15, (50, runs)))
    m[:, :k] *= 1.6
    w = LF.detect_warmup(list(m), method="A")
    assert w.k == k and w.slowdown == pytest.approx(1.6, rel=0.1) and w.p_value < 0.01
    assert len(w.profile) == runs and w.counts == (50,) * runs


@pytest.mark.parametrize("seed", range(5))
def test_no_warmup_is_not_invented(seed):
    rng = np.random.default_rng(100 + seed)
    m = np.exp(rng.normal(np.log(20), 0.4, (50, 1)) + rng.normal(0, 0.15, (50, 8)))
    assert LF.detect_warmup(list(m), method="A").k == 0


def test_dropping_warmup_changes_the_verdict_and_both_are_shown():
    rng = np.random.default_rng(22)
    a, b = _null_sim(rng, nq=40, runs=6, within=0.1)
    b[:, :2] *= 2.5  # B pays a cold start; steady states are equal
    res = L.compare_latency(_log(a, b), "A", "B", resamples=3000, quantile_resamples=500)
    assert res.suggested_warmup == 2 and res.warmup[1].k == 2 and res.warmup[0].k == 0
    assert res.verdict == "a_faster"
    assert res.alternative is not None and res.alternative.drop_warmup == 2
    assert res.alternative.verdict == "no_difference"
    assert [w.code for w in res.warnings] == ["warmup"]
    dropped = L.compare_latency(_log(a, b), "A", "B", resamples=3000, quantile_resamples=500,
                                drop_warmup=2)
    assert dropped.verdict == "no_difference" and dropped.method_a.n_runs == 160
    assert dropped.alternative.drop_warmup == 0 and dropped.alternative.verdict == "a_faster"
    with pytest.raises(InputError) as e:
        L.compare_latency(_log(a, b), "A", "B", resamples=1000, drop_warmup=6)
    assert e.value.code == "latency.err_drop_too_many"


# ----------------------------------------------------------------------------- fairness
def test_order_effect_all_a_before_all_b():
    rng = np.random.default_rng(1)
    a, b = _null_sim(rng, nq=20)
    res = L.compare_latency(_log(a, b, interleave=False), "A", "B", resamples=1000,
                            quantile_resamples=200)
    w = [w for w in res.warnings if w.code == "order"]
    assert len(w) == 1 and w[0].params["first"] == "A" and w[0].params["basis"] == "row"
    assert "all 60 timings of A ran before all 60 of B" in w[0].message()


def test_cache_column_and_bimodality():
    rows = []
    rng = np.random.default_rng(2)
    for q in range(30):
        for r in range(4):
            hit = r > 0 and rng.random() < 0.5
            rows.append((f"q{q}", "A", r + 1, f"{(3 if hit else 40) * rng.lognormal(0, .1):.3f}",
                         "hit" if hit else "miss"))
            rows.append((f"q{q}", "B", r + 1, f"{40 * rng.lognormal(0, .1):.3f}", "miss"))
    log = LL.load_timings(_long_csv(rows, "query_id,method,run,latency_ms,cache"), "c.csv")
    res = L.compare_latency(log, "A", "B", resamples=1000, quantile_resamples=200)
    w = {w.code: w for w in res.warnings}
    assert "cache_column" in w and w["cache_column"].params["share_b"] == "0"
    # the same log without the cache column: two clumps in A's timings
    nocache = [r[:4] for r in rows]
    res2 = L.compare_latency(LL.load_timings(_long_csv(nocache), "n.csv"), "A", "B",
                             resamples=1000, quantile_resamples=200)
    bim = [w for w in res2.warnings if w.code == "bimodal"]
    assert [w.params["method"] for w in bim] == ["A"] and float(bim[0].params["d"]) > 3.5


def test_bimodality_statistics():
    rng = np.random.default_rng(0)
    one = np.log(rng.lognormal(3, 0.3, 500))
    two = np.concatenate([one[:300], np.log(rng.lognormal(0.5, 0.2, 200))])
    bc1, d1, *_ = LF.bimodality(one)
    bc2, d2, share, fast, slow = LF.bimodality(two)
    assert bc1 < 5 / 9 < bc2 and d2 > LF.CACHE_MIN_ASHMAN_D > d1
    assert share == pytest.approx(0.4) and fast < 3 < 15 < slow
    # bias-corrected skewness/kurtosis as in scipy
    n, g, k = one.size, stats.skew(one, bias=False), stats.kurtosis(one, bias=False)
    assert bc1 == pytest.approx((g * g + 1) / (k + 3 * (n - 1) ** 2 / ((n - 2) * (n - 3))))


def test_unequal_runs_unpaired_queries_and_blanks_are_reported():
    text = ("query_id,A,B\nq1,10,5\nq1,11,\nq2,20,9\nq2,21,10\nq3,30,14\nq3,31,15\n"
            "q4,5,\n")
    res = L.compare_latency(LL.load_timings(text.encode(), "u.csv"), "A", "B", resamples=1000,
                            quantile_resamples=200)
    w = {w.code: w for w in res.warnings}
    assert w["unequal_runs"].params["n_diff"] == 1 and "q1: 2 vs 1" in w["unequal_runs"].message()
    assert w["unpaired"].params["n_only_a"] == 1 and "q4" in w["unpaired"].params["ids"]
    assert w["blank"].params["count"] == 2
    assert res.ratio.n_queries == 3


def test_argument_checks():
    log = LL.load_timings(DEMO.read_bytes(), "demo.csv")
    with pytest.raises(InputError, match="no method 'x'"):
        L.compare_latency(log, "x", "bm25")
    with pytest.raises(InputError) as e:
        L.compare_latency(log, "bm25", "bm25")
    assert e.value.code == "same_method"
    with pytest.raises(ValueError, match="drop_warmup"):
        L.compare_latency(log, "bm25", "hybrid", drop_warmup=-1)
    with pytest.raises(ValueError, match="confidence"):
        L.compare_latency(log, "bm25", "hybrid", confidence=2)


def test_demo_story_warmup_and_cache_found():
    res = L.compare_latency(LL.load_timings(DEMO.read_bytes(), "demo.csv"), "bm25", "hybrid",
                            resamples=2000, quantile_resamples=500)
    codes = [w.code for w in res.warnings]
    assert codes.count("warmup") == 2 and "cache_column" in codes
    assert res.suggested_warmup == 2 and res.alternative is not None
    assert res.plan is not None and res.plan.n_queries > res.plan.n_queries_floor >= 2


# ----------------------------------------------------------------------------- charts
def test_charts_are_aggregated():
    from core.views import latency as V
    rng = np.random.default_rng(0)
    d = {"A": rng.lognormal(3, 1, 20_000), "B": rng.lognormal(2, 0.5, 5_000)}
    bins = V.latency_bins(d, bins=40)
    assert len(bins) == 80
    for m, x in d.items():
        part = bins[bins["method"] == m]
        assert part["count"].sum() == x.size and part["share"].sum() == pytest.approx(1)
    thin = V.thin_sorted(rng.lognormal(0, 1, 10_000))
    assert len(thin) <= V.MAX_POINTS and thin["value"].is_monotonic_increasing
    assert thin["rank"].iloc[0] == pytest.approx(0.5 / 10_000)
    log = LL.load_timings(DEMO.read_bytes(), "demo.csv")
    res = L.compare_latency(log, "bm25", "hybrid", resamples=1000, quantile_resamples=200)
    for chart in (V.distribution_chart(res.distributions), V.ratio_chart(res.per_query.ratio),
                  V.runs_chart(res.warmup, k=res.suggested_warmup)):
        spec = chart.to_dict()
        rows = sum(len(v) for v in spec.get("datasets", {}).values())
        assert 0 < rows <= 2 * V.MAX_POINTS
    with pytest.raises(ValueError, match="above 0"):
        V.latency_bins({"A": np.array([0.0, 1.0])})


def test_uneven_runs_across_queries():
    text = "query_id,A,B\nq1,10,5\nq1,11,6\nq2,20,9\nq3,30,14\n"
    res = L.compare_latency(LL.load_timings(text.encode(), "e.csv"), "A", "B", resamples=1000,
                            quantile_resamples=200)
    assert [w.code for w in res.warnings] == ["uneven_runs"]
    assert res.warnings[0].params == {"min_runs": 1, "max_runs": 2}


def test_wide_log_with_a_query_text_column():
    text = "query,query_id,A,B\nhow to reset,q1,10,5\nrefund policy,q2,20,9\n"
    log = LL.load_timings(text.encode(), "w.csv")
    assert log.methods == ("A", "B") and set(log.frame["query"]) == {"q1", "q2"}


def test_p_text_in_warnings_is_the_views_p_text():
    """``core.latency.fairness.p_text`` restates ``core.views.format.p_text`` (domain modules
    do not import views): the two agree, and neither writes 'p = <0.001'."""
    from core.latency.fairness import p_text as domain_p
    from core.views.format import p_text
    for p in (0.0, 0.0004, 0.001, 0.0312, 0.5, 1.0):
        assert domain_p(p) == p_text(p)
    assert p_text(0.0004) == "p < 0.001" and p_text(0.0312) == "p = 0.031"


# ----------------------------------------------------------------------------- issue 25h
@pytest.mark.parametrize("nq, runs, reason", [
    (L.P95_CI_MIN_QUERIES - 1, 6, "few_queries"),   # enough timings, one query short
    (L.P95_CI_MIN_QUERIES, 4, "few_timings"),       # 400 < 500 timings
    (L.P95_CI_MIN_QUERIES, 5, None),                # exactly at both minimums
])
def test_p95_interval_is_withheld_below_the_benched_minimum(nq, runs, reason):
    rng = np.random.default_rng(5)
    a, b = _null_sim(rng, nq=nq, runs=runs, ratio=0.8)
    res = L.compare_latency(_log(a, b), "A", "B", resamples=2000, quantile_resamples=300,
                            seed=1)
    for m, x in ((res.method_a, a), (res.method_b, b)):
        assert m.p95_ci_withheld == reason
        assert m.p95 == pytest.approx(np.quantile(x, 0.95), rel=1e-5)   # the point stays
        assert m.median_ci[0] < m.median < m.median_ci[1]               # the median's too
        d = m.to_dict()
        assert d["p95_ci_withheld"] == reason
        assert d["p95_ci_min_queries"] == L.P95_CI_MIN_QUERIES
        assert d["p95_ci_min_timings"] == L.P95_CI_MIN_TIMINGS
        if reason is None:
            assert m.p95_ci[0] < m.p95 < m.p95_ci[1] and d["p95_ci"] == list(m.p95_ci)
        else:
            assert m.p95_ci is None and d["p95_ci"] is None
    text = VL.comparison_text(res)
    sentence = VL.p95_withheld_sentence(res)
    if reason is None:
        assert sentence is None and f"p95 {LF.fmt_ms(res.method_a.p95)} ms [" in text
    else:
        assert text.count(sentence) == 1 and text.count("p95 intervals need") == 1  # once
        assert f"p95 {LF.fmt_ms(res.method_a.p95)} ms  (" in text       # no brackets
        need = L.P95_CI_MIN_QUERIES if reason == "few_queries" else L.P95_CI_MIN_TIMINGS
        assert f"at least {need:,}" in sentence and "40%" in sentence
        ko = VL.p95_withheld_sentence(res, "ko")
        assert f"{need:,}개" in ko and ko != sentence

