"""core.views.clusters: the cluster block's lines carry the numbers of the comparison (EN and
KO), the few-clusters warning and the cannot-reach line appear when they should, the runs and
hint lines."""
import numpy as np
import pytest

from core.paired.clusters import compare_clustered
from core.views import format as fmt
from core.views.clusters import cluster_lines, cluster_verdict, hint_line, runs_lines


def _cc(g=6, m=5, shift=0.3, seed=0):
    rng = np.random.default_rng(seed)
    labels = np.repeat([f"d{i}" for i in range(g)], m)
    a = rng.random(g * m)
    b = np.clip(a + shift + rng.normal(0, 0.1, g * m), 0, 1)
    return compare_clustered(a, b, labels, resamples=500), a, b


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_lines_carry_the_numbers(lang):
    cc, a, b = _cc()
    lines = cluster_lines(cc, "A", "B", "document", False, lang)
    text = "\n".join(lines)
    assert fmt.diff(b.mean() - a.mean(), "score") in text
    assert fmt.diff(cc.difference.ci_low, "score") in text
    assert fmt.diff(cc.difference.ci_high, "score") in text
    assert fmt.value(cc.a.ci_low, "score") in text and fmt.value(cc.b.ci_high, "score") in text
    assert f"{cc.summary.design_effect:.2f}" in text and f"{cc.summary.effective_n:.1f}" in text
    assert "64" in text                       # 2^6 sign patterns, exact
    assert lines[-1] == cluster_verdict(cc, "A", "B", lang)
    assert cc.verdict == "b_better"
    # 6 clusters: the plain warning
    assert any("6" in l and ("10" in l) for l in lines)


def test_no_warning_with_enough_clusters_and_the_cannot_line():
    cc, _, _ = _cc(g=12, m=2)
    lines = cluster_lines(cc, "A", "B", "document", False, "en")
    assert not any("rough guide" in l for l in lines)
    ten, _, _ = _cc(g=10, m=2)   # 10 clusters: still few (docs/clusters.md, 10 x 10 rows)
    assert ten.summary.few
    assert any("Only 10 clusters" in l for l in cluster_lines(ten, "A", "B", "d", False, "en"))
    small, _, _ = _cc(g=4, m=3)
    assert any("cannot reach p below 0.05" in l
               for l in cluster_lines(small, "A", "B", "doc", False, "en"))
    assert small.verdict == "no_difference"


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_runs_and_hint_lines(lang):
    block = {"column": "run", "k": 3.0, "k_min": 2, "k_max": 3, "equal_k": False,
             "n_unequal": 2, "unequal_cases": ["c1", "c9"], "within_share": 0.42,
             "sign_flips": 7, "n_cases": 30}
    lines = runs_lines(block, lang)
    assert len(lines) == 2 and "42%" in lines[0] and "7" in lines[0] and "c1, c9" in lines[1]
    assert "doc3" in hint_line({"sources": 4, "cases": 12, "example": "doc3"}, lang)


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_cluster_card_carries_the_cr2_interval_and_the_warning(lang):
    from core.views.clusters import cluster_card
    cc, _, _ = _cc(g=6, m=5)
    card = cluster_card(cc, "A", "B", "document", False, lang)
    assert card.value == fmt.diff(cc.difference.mean, "score")
    assert fmt.interval(cc.difference.ci_low, cc.difference.ci_high, "score",
                        signed=True) in card.interval
    assert card.sentence == cluster_verdict(cc, "A", "B", lang) and card.tone == "better"
    assert "6" in card.warning and f"{cc.summary.effective_n:.1f}" in card.reason
    big, _, _ = _cc(g=14, m=2)
    assert cluster_card(big, "A", "B", "d", False, lang).warning == ""
