"""The clustered self-check (issue 32, Required 2): whole-cluster centred resamples, the
card's calibrated CR2 interval of B − A recomputed on each."""
import math

import numpy as np
import pytest

from core.paired.calibration import STREAM_RESAMPLE_NULL, null_centred
from core.paired.cluster_check import (ClusterSelfCheck, check_resamples, cluster_self_check,
                                       with_self_check)
from core.paired.clusters import (calibrated_cr2, cluster_layout, compare_clustered,
                                  cr2_rows)
from core.paired.intervals import side


def _data(seed=5, g=8, m=3, shift=0.3):
    rng = np.random.default_rng(seed)
    labels = [f"doc{k}" for k in range(g) for _ in range(m)]
    d = np.repeat(rng.normal(0, 1, g), m) + rng.normal(0, 1, g * m) + shift
    d[[1, 7]] = 0.0   # ties stay at 0 under the null
    return d, labels


def _hand_rolled(d, labels, sets, seed, confidence=0.95):
    """The construction written out: centre as the unclustered check, draw G whole clusters
    with replacement, each draw a cluster of its own, the card's interval on each set."""
    z = null_centred(d)
    names = list(dict.fromkeys(labels))
    groups = [[i for i, lab in enumerate(labels) if lab == nm] for nm in names]
    rng = np.random.default_rng([seed, STREAM_RESAMPLE_NULL])
    resamples = check_resamples(sets, len(names))
    rejected, t_null = 0, []
    for _ in range(sets):
        pick = rng.integers(0, len(names), size=len(names))
        x, lab = [], []
        for j, k in enumerate(pick):
            x += [z[i] for i in groups[k]]
            lab += [j] * len(groups[k])
        x = np.array(x)
        mean, lo, hi, se = calibrated_cr2(x, cluster_layout(lab), confidence,
                                          resamples=resamples, seed=seed)
        rejected += int(side(lo, hi, float(np.max(np.abs(d)))) != 0)
        t_null.append(mean / se if se > 0 else math.copysign(math.inf, mean) if mean else 0)
    mean, var = cr2_rows(d, cluster_layout(labels))
    t_obs = float(mean[0] / np.sqrt(var[0]))
    far = sum(t >= t_obs for t in t_null) if t_obs >= 0 else sum(t <= t_obs for t in t_null)
    return rejected / sets, min(1.0, 2 * (1 + far) / (1 + sets))


@pytest.mark.parametrize("seed", [0, 11])
def test_self_check_is_the_hand_rolled_loop(seed):
    d, labels = _data()
    got = cluster_self_check(d, cluster_layout(labels), 0.95, sets=60, seed=seed)
    rate, p = _hand_rolled(d, labels, 60, seed)
    assert got.null_rejection == rate and got.survival_p == pytest.approx(p)
    assert got.sets == 60 and got.n_clusters == 8 and got.nonzero == 8
    assert got.mc_se == pytest.approx(math.sqrt(rate * (1 - rate) / 60))


def test_unequal_clusters_and_seeded():
    rng = np.random.default_rng(2)
    labels = [f"d{k}" for k, m in enumerate([1, 2, 5, 3, 4, 2, 6]) for _ in range(m)]
    d = rng.normal(0.2, 1, len(labels))
    a = cluster_self_check(d, cluster_layout(labels), 0.9, sets=40, seed=3)
    rate, p = _hand_rolled(d, labels, 40, 3, confidence=0.9)
    assert (a.null_rejection, a.survival_p) == (rate, pytest.approx(p))
    assert a == cluster_self_check(d, cluster_layout(labels), 0.9, sets=40, seed=3)


def test_resamples_bounded_by_work():
    assert check_resamples(1000, 10) == 2000 and check_resamples(1000, 5) == 4000
    assert check_resamples(1000, 100_000) == 100
    assert check_resamples(1000, 40) * 1000 * 40 <= 2e7


def _check(rate, p, nonzero=40):
    return ClusterSelfCheck(rate, 1000, 500, 0.0, nonzero, nonzero, 0.95, p)


def test_rules_are_the_unclustered_checks():
    # warn limit 6% + 0.6 / m (7.5% at 40 clusters) on the Wilson lower bound (0.095 over
    # 1,000 sets: 8.1%); withhold at twice the promise
    assert _check(0.095, 0.5).warn_above == pytest.approx(0.075)
    assert not _check(0.095, 0.5, nonzero=10).warns   # 12% allowed at 10 clusters
    assert not _check(0.05, 0.5).warns and _check(0.05, 0.5).keeps("b_better") == "b_better"
    warned = _check(0.095, 0.5)
    assert warned.warns and not warned.withholds and warned.keeps("b_better") == "no_difference"
    assert _check(0.095, 0.01).keeps("a_better") == "a_better"
    assert _check(0.10, 0.001).withholds
    assert _check(0.10, 0.001).keeps("b_better") == "no_difference"
    assert _check(0.5, 0.5).keeps("no_difference") == "no_difference"


def test_with_self_check_fills_the_comparison_and_names_the_reason():
    d, labels = _data(shift=1.5)
    a = np.zeros_like(d)
    cc = compare_clustered(a, d, labels, resamples=2000, seed=0)
    out = with_self_check(cc, d, labels, sets=50, seed=0)
    sc = out.self_check
    again = cluster_self_check(d, cluster_layout(labels), 0.95, sets=50, seed=0)
    assert (sc.null_rejection, sc.survival_p) == (again.null_rejection, again.survival_p)
    assert out.verdict == sc.keeps(cc.verdict)
    assert (sc.reason != "") == (out.verdict != cc.verdict)
    js = out.to_dict()["self_check"]
    assert js["unit"] == "cluster" and js["null_rejection"] == sc.null_rejection
    assert "self_check" not in cc.to_dict()
