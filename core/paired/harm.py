"""No harm: what the average of B - A hides. The share of cases B hurts, the share it helps,
and the risk-sensitive URisk / TRisk of B against A.

On n paired cases with d_c = b_c - a_c (B - A, new minus baseline) and a tolerance delta >= 0:

* hurt share = #{c : d_c < -delta} / n (B worse than A by more than delta), helped share =
  #{c : d_c > delta} / n, each with its Wilson (1927) score interval
  (``core.paired.intervals.wilson_bounds``, the one Wilson formula). delta defaults to 0 for
  0/1 outcomes (any loss: the only step is 1) and ``SCORE_DELTA`` = 0.05 for scores.
* URisk (Wang, Macdonald & Ounis 2012, "Robust ranking models via risk-sensitive
  optimization", SIGIR, eq. for U_RISK): with the risk-adjusted differences
  z_c = d_c when d_c >= 0 and (1 + alpha) d_c when d_c < 0 (a loss weighs 1 + alpha times a
  gain), URisk = mean(z) = (1/n) [sum of wins + (1 + alpha) sum of losses]. URisk > 0: B's gains
  outweigh its losses weighted by 1 + alpha.
* TRisk (Dincer, Macdonald & Ounis 2014, "Hypothesis testing for risk-sensitive evaluation
  of retrieval systems", SIGIR, section 3): TRisk = URisk / SE(URisk), SE = s_z / sqrt(n) with
  s_z the sample standard deviation of z (n - 1): the one-sample Student t statistic of z, so
  under "no risk-adjusted difference" (E z = 0) it is referred to t with n - 1 degrees of
  freedom; p is two-sided (``core.paired.significance.paired_ttest_p`` of z against 0).
  Dincer et al. read TRisk > 2 as B significantly better than A with losses weighed, and
  TRisk < -2 as B significantly riskier. Undefined (None) with fewer than 2 cases or all z
  equal. alpha = 2 by default (``ALPHAS``: 1, 2 or 5; Dincer et al. report 1, 5 and 10).

``Harm.within(max_harm)``: "B hurts at most ``max_harm`` of the cases by more than delta" is
shown when the upper end of the hurt share's Wilson interval is at or below ``max_harm``
(a one-sided test at (1 - confidence) / 2; ``bench/best_harm.py`` measures it).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core import checks
from core.paired.data import PairedData, paired_data
from core.paired.intervals import wilson_bounds, z_two_sided
from core.paired.significance import paired_ttest_p

ALPHAS = (1, 2, 5)
DEFAULT_ALPHA = 2
SCORE_DELTA = 0.05


@dataclass(frozen=True)
class Harm:
    """The hurt and helped shares of B against A (with Wilson intervals at ``confidence``),
    URisk and TRisk at ``alpha`` with TRisk's two-sided p (None when undefined), and the
    ``hurt_cases`` (indices into the cases, most hurt first) for a drill-down."""

    delta: float
    n: int
    hurt: int
    helped: int
    hurt_share: float
    hurt_ci: tuple[float, float]
    helped_share: float
    helped_ci: tuple[float, float]
    urisk: float
    trisk: float | None
    trisk_p: float | None
    alpha: float
    confidence: float
    hurt_cases: tuple[int, ...] = ()
    n_clusters: int | None = None   # clusters as the unit (issue 32): see ``no_harm_of``

    def within(self, max_harm: float) -> bool:
        """B is shown to hurt at most ``max_harm`` of the cases (the hurt share's upper
        interval end is at or below it)."""
        return self.hurt_ci[1] <= checks.share("max_harm", max_harm)

    def to_dict(self) -> dict:
        return {"delta": self.delta, "n": self.n, "hurt": self.hurt, "helped": self.helped,
                "hurt_share": self.hurt_share, "hurt_ci": list(self.hurt_ci),
                "helped_share": self.helped_share, "helped_ci": list(self.helped_ci),
                "urisk": self.urisk, "trisk": self.trisk, "trisk_p": self.trisk_p,
                "alpha": self.alpha, "confidence": self.confidence,
                **({} if self.n_clusters is None else {"unit": "clusters",
                                                       "n_clusters": self.n_clusters})}


def default_delta(binary: bool) -> float:
    """delta when none is given: 0 for 0/1 outcomes (any loss), ``SCORE_DELTA`` for scores."""
    return 0.0 if binary else SCORE_DELTA


def risk_adjusted(d: np.ndarray, alpha: float) -> np.ndarray:
    """z = d where d >= 0, (1 + alpha) d where d < 0 (Wang et al. 2012). The caller checked
    ``d`` (finite floats) and ``alpha`` (>= 0)."""
    d = np.asarray(d, dtype=float)
    return np.where(d < 0, (1.0 + alpha) * d, d)


def trisk(d: np.ndarray, alpha: float) -> tuple[float, float | None, float | None]:
    """(URisk, TRisk, two-sided p) of the differences ``d`` = B - A (the module docstring);
    TRisk and p are None when undefined. The caller checked ``d`` and ``alpha``."""
    z = risk_adjusted(d, alpha)
    urisk = float(z.mean()) if z.size else 0.0
    p = paired_ttest_p(np.zeros_like(z), z) if z.size >= 2 else None
    if p is None:
        return urisk, None, None
    t = urisk / (float(np.std(z, ddof=1)) / np.sqrt(z.size))
    return urisk, float(t), p


def harm_iv(a, b, delta, alpha, confidence) -> tuple:
    """Checks of ``no_harm``'s arguments (the door): the pair through ``paired_data``, delta a
    number >= 0 (None: ``default_delta``), alpha >= 0, the confidence level."""
    data = paired_data(a, b)
    if delta is not None:
        delta = checks.between("delta", delta, 0.0, float("inf"))
    alpha = checks.between("alpha", alpha, 0.0, 1e6)
    return data, delta, alpha, checks.confidence(confidence)


def no_harm(a, b, *, delta: float | None = None, alpha: float = DEFAULT_ALPHA,
         confidence: float = 0.95, clusters=None) -> Harm:
    """How often B hurts and helps against A, and TRisk (the module docstring). ``a``, ``b``:
    the per-case values of the baseline and the new method, aligned; ``clusters``: one
    cluster label per case when cases share a document (``no_harm_of``)."""
    data, delta, alpha, confidence = harm_iv(a, b, delta, alpha, confidence)
    layout = None
    if clusters is not None:
        from core.paired.clusters import layout_for  # lazy: only with clusters (issue 32)
        layout = layout_for(clusters, data.n)
    return no_harm_of(data, delta=delta, alpha=alpha, confidence=confidence, layout=layout)


def no_harm_of(data: PairedData, *, delta: float | None = None, alpha: float = DEFAULT_ALPHA,
            confidence: float = 0.95, layout=None) -> Harm:
    """``no_harm`` of a checked ``PairedData`` (the caller checked delta, alpha and
    confidence, as ``harm_iv`` does). With a ``core.paired.clusters.ClusterLayout`` the
    cluster is the unit (issue 32): each share's interval is Wilson at its effective n with
    t(df) (``core.paired.clusters.cluster_wilson_rows``, the interval of a method's clustered
    rate) and TRisk = URisk / its CR2 standard error with the Bell–McCaffrey df
    (``core.paired.clusters.cr2_t_test``); the counts and URisk are unchanged."""
    if delta is None:
        delta = default_delta(data.binary)
    d = data.d
    n = data.n
    hurt_mask = d < -delta
    hurt, helped = int(hurt_mask.sum()), int((d > delta).sum())
    z = z_two_sided(confidence)
    lo, hi, _ = wilson_bounds(np.array([hurt, helped]), n, z)
    urisk, t, p = trisk(d, alpha)
    if layout is not None:   # clusters as the unit (issue 32)
        from core.paired.clusters import cluster_wilson_rows, cr2_t_test  # lazy: clusters only
        _, lo, hi, _ = cluster_wilson_rows(np.vstack([hurt_mask, d > delta]).astype(float),
                                           layout, confidence)
        _, _, t, p = cr2_t_test(risk_adjusted(d, alpha), layout)
    order = np.flatnonzero(hurt_mask)
    order = order[np.argsort(d[order], kind="stable")]  # most hurt first
    return Harm(float(delta), n, hurt, helped, hurt / n, (float(lo[0]), float(hi[0])),
                helped / n, (float(lo[1]), float(hi[1])), urisk, t, p, float(alpha),
                confidence, tuple(int(i) for i in order),
                None if layout is None else layout.n_clusters)
