"""core.paired.designs: the repeated-runs variance split against a one-way ANOVA by hand, the
sign flips across runs counted, and the planner against Kish's design effect and Miller's
formula."""
import math

import numpy as np
import pytest
from scipy import stats

from core.paired.designs import (design_factor, design_variance, plan_clusters, plan_design,
                                 run_summary, sign_flipping_cases)


def test_run_summary_splits_the_variance():
    rng = np.random.default_rng(8)
    n, k = 400, 5
    case = rng.normal(0, 1.0, n)
    x = case[:, None] + rng.normal(0, 2.0, (n, k))
    r = run_summary(x)
    assert r.var_within == pytest.approx(4.0, rel=0.1)
    assert r.var_between == pytest.approx(1.0, rel=0.3)
    assert r.within_share == pytest.approx(0.8, abs=0.06)
    # one-way ANOVA by hand
    ssw = np.sum((x - x.mean(axis=1, keepdims=True)) ** 2)
    assert r.var_within == pytest.approx(ssw / (n * (k - 1)), rel=1e-12)
    x[0, 3:] = np.nan
    r2 = run_summary(x)
    assert not r2.equal_k and r2.runs[0] == 3 and r2.case_means[0] == pytest.approx(
        np.mean(x[0, :3]))
    with pytest.raises(ValueError):
        run_summary(np.full((3, 2), np.nan))


def test_sign_flipping_cases():
    d = np.array([[0.1, -0.2, 0.0], [0.1, 0.2, 0.3], [0.0, 0.0, np.nan], [-1, np.nan, 1]])
    assert sign_flipping_cases(d) == 2


def test_plan_design_follows_miller_formula():
    v = design_variance(0.01, 0.04, 0.08, 10, 5, 2)
    assert v == pytest.approx(0.01 / 10 + 0.04 / 50 + 0.08 / 100)
    p = plan_design(0.01, 0.04, 0.08, clusters=10, per_cluster=5, runs=2)
    assert p.half_width == pytest.approx(stats.norm.ppf(0.975) * math.sqrt(v))
    assert p.best == "clusters" and p.options["clusters"] < p.options["runs"]
    # all the noise is run-to-run: more runs buy as much as more cases
    q = plan_design(0.0, 0.0, 1.0, clusters=10, per_cluster=1, runs=1)
    assert q.options["runs"] == pytest.approx(q.options["clusters"])
    with pytest.raises(ValueError):
        plan_design(-1, 0, 0, clusters=2, per_cluster=1)


def test_plan_clusters_design_factor_and_miller():
    assert design_factor(0.2, 5) == pytest.approx(1.8)                   # Kish
    assert design_factor(0.0, 1, 4, 0.6) == pytest.approx(0.4 + 0.6 / 4)  # Miller eq. 6
    p = plan_clusters(245, icc=0.2, cluster_size=5)
    assert p.n_clusters == math.ceil(245 * 1.8 / 5) and p.n_cases == 5 * p.n_clusters
    assert p.doubling["clusters"] == pytest.approx(1 / math.sqrt(2))
    # doubling m: variance 0.2/G + 0.8/(2Gm) vs 0.2/G + 0.8/(Gm)
    assert p.doubling["per_cluster"] == pytest.approx(math.sqrt((0.2 + 0.08) / (0.2 + 0.16)))
    assert p.best == "clusters" and p.doubling["runs"] == pytest.approx(1.0)
    with pytest.raises(ValueError):
        plan_clusters(10, icc=1.5, cluster_size=2)
