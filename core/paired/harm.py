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
  s_z the sample standard deviation of z (n - 1): the one-sample Student t statistic of z.
  Dincer et al. refer it to t with n - 1 degrees of freedom and read TRisk > 2 as B
  significantly better than A with losses weighed, TRisk < -2 as B significantly riskier.
  Undefined (None) with fewer than 2 cases or all z equal. alpha = 2 by default (``ALPHAS``:
  1, 2 or 5; Dincer et al. report 1, 5 and 10).
* TRisk's test of "no risk-adjusted difference" (E z = 0), two-sided: z is skewed by
  construction (a loss weighs 1 + alpha times a gain) and retrieval differences are
  zero-heavy with a long tail, so Student's p alone rejected up to 19% of the time at 5% on
  real scifact differences at 20 queries (``bench/best_harm.py``, ``docs/harm.md``). The p
  shown is the largest of three (an intersection-union test, Berger 1982: it rejects only
  when all three do, so its level is at most each one's): Student's (``core.paired
  .significance.paired_ttest_p`` of z against 0); the studentized bootstrap test of z
  (Efron & Tibshirani 1993, Algorithm 16.2, ``core.paired.calibration.bootstrap_t_test_p``,
  ``resamples`` seeded resamples); and the skew guard's (issue 36, ``core.paired
  .skew_intervals.skew_guard_interval``: 1 - the highest level at which its interval of
  mean(z) leaves out 0). At 95% it rejects exactly when the house's interval of a mean
  difference (calibrated t with the skew guard) of z leaves out 0. It assumes independent
  cases; what it cannot see is a loss the sample does not contain. Below ``TRISK_MIN_N``
  (50) cases only the "riskier" side is tested (``Harm.trisk_withheld`` when TRisk >= 0):
  the p is given when TRisk < 0 and withheld when TRisk >= 0. The "better even with losses
  weighed" side fails at small n: when nothing changed, the three together said it in up to
  10% of the sets at 20 cases and 6% at 30 (alpha 5; ``bench/best_harm.py``), because a
  sample that misses the rare losses (1 + alpha) magnifies looks like a clean gain, and no
  test built from the sample alone can tell.
  The "riskier" side holds: it said "riskier" in at most ~1.2% of those null sets at 20–30
  cases, since a sample holds too few losses more often than too many. TRisk itself is
  always shown.

``Harm.within(max_harm)``: "B hurts at most ``max_harm`` of the cases by more than delta" is
shown when the upper end of the hurt share's Wilson interval is at or below ``max_harm``
(a one-sided test at (1 - confidence) / 2; ``bench/best_harm.py`` measures it).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core import checks
from core.paired.calibration import bootstrap_t_test_p
from core.paired.difference import PairedData, paired_data
from core.paired.intervals import inverted_p, wilson_bounds, z_two_sided
from core.paired.significance import paired_ttest_p
from core.paired.skew_intervals import skew_guard_interval
from core.paired.resampling import difference_draws

ALPHAS = (1, 2, 5)
TRISK_MIN_N = 50   # fewer cases: TRisk's test is withheld (the module docstring)
DEFAULT_RESAMPLES = 20_000
DEFAULT_ALPHA = 2
SCORE_DELTA = 0.05


@dataclass(frozen=True)
class Harm:
    """The hurt and helped shares of B against A (with Wilson intervals at ``confidence``),
    URisk and TRisk at ``alpha`` with TRisk's two-sided p (None when undefined), and the
    ``hurt_cases`` (indices into the cases, most hurt first) for a drill-down.
    ``trisk_withheld``: TRisk is defined but its test is not given (fewer than
    ``TRISK_MIN_N`` cases and TRisk >= 0: below 50 cases only the "riskier" side is
    tested, the module docstring)."""

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
    trisk_withheld: bool = False
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
                "trisk_test": ("withheld_below_%d_cases" % TRISK_MIN_N if self.trisk_withheld
                               else "withheld_with_clusters" if self.n_clusters is not None
                               else None if self.trisk_p is None
                               else "riskier_side_only_below_%d_cases" % TRISK_MIN_N
                               if self.n < TRISK_MIN_N
                               else "largest_p_of_t_bootstrap_t_skew_guard"),
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


def trisk(d: np.ndarray, alpha: float, *, resamples: int = DEFAULT_RESAMPLES,
          seed: int = 0) -> tuple[float, float | None, float | None]:
    """(URisk, TRisk, two-sided p of TRisk's test) of the differences ``d`` = B - A (the
    module docstring, with every n: the withholding below ``TRISK_MIN_N`` is ``no_harm_of``'s);
    TRisk and p are None when undefined. The caller checked ``d``, ``alpha``, ``resamples``
    and ``seed``."""
    z = risk_adjusted(d, alpha)
    urisk = float(z.mean()) if z.size else 0.0
    p = paired_ttest_p(np.zeros_like(z), z) if z.size >= 2 else None
    if p is None:
        return urisk, None, None
    t = urisk / (float(np.std(z, ddof=1)) / np.sqrt(z.size))
    return urisk, float(t), max(p, bootstrap_t_p(z, resamples, seed), skew_guard_p(z))


def bootstrap_t_p(z: np.ndarray, resamples: int, seed: int) -> float:
    """The studentized bootstrap test's two-sided p of mean(z) = 0 (Efron & Tibshirani 1993,
    Algorithm 16.2; ``core.paired.calibration.bootstrap_t_test_p``): the resamples' t* =
    (mean* - mean(z)) / (sd* / sqrt(n)) (resamples with sd* = 0 carry none), seeded as every
    bootstrap of a difference (``core.paired.resampling.difference_draws``)."""
    means, sds = difference_draws(z, resamples, seed, True)
    sds = sds[0]
    ok = sds > 0
    t_null = (means[ok] - z.mean()) / (sds[ok] / np.sqrt(z.size))
    return bootstrap_t_test_p(z, t_null) if t_null.size else 1.0


def skew_guard_p(z: np.ndarray) -> float:
    """1 - the highest level at which the skew guard's interval of mean(z) leaves out 0
    (``core.paired.skew_intervals.skew_guard_interval``; its intervals nest as the level
    grows): the guard's interval inverted (``core.paired.intervals.inverted_p``); 1 when it
    never does."""
    def interval_at(level: float):
        with np.errstate(invalid="ignore", divide="ignore"):
            lo, hi = skew_guard_interval(z[None, :], level)
        return float(lo[0]), float(hi[0])

    return inverted_p(interval_at, lambda lo, hi: lo > 0 or hi < 0)


def harm_iv(a, b, delta, alpha, confidence, resamples=DEFAULT_RESAMPLES, seed=0) -> tuple:
    """Checks of ``no_harm``'s arguments (the door): the pair through ``paired_data``, delta a
    number >= 0 (None: ``default_delta``), alpha >= 0, the confidence level, the resamples and
    seed of TRisk's bootstrap test."""
    data = paired_data(a, b)
    if delta is not None:
        delta = checks.between("delta", delta, 0.0, float("inf"))
    alpha = checks.between("alpha", alpha, 0.0, 1e6)
    resamples, confidence, seed = checks.bootstrap_iv(resamples, confidence, seed)
    return data, delta, alpha, confidence, resamples, seed


def no_harm(a, b, *, delta: float | None = None, alpha: float = DEFAULT_ALPHA,
            confidence: float = 0.95, resamples: int = DEFAULT_RESAMPLES,
            seed: int = 0, clusters=None) -> Harm:
    """How often B hurts and helps against A, and TRisk with its test (the module docstring).
    ``a``, ``b``: the per-case values of the baseline and the new method, aligned;
    ``clusters``: one cluster label per case when cases share a document (``no_harm_of``)."""
    data, delta, alpha, confidence, resamples, seed = harm_iv(a, b, delta, alpha, confidence,
                                                              resamples, seed)
    layout = None
    if clusters is not None:
        from core.paired.clusters import layout_for  # lazy: only with clusters (issue 32)
        layout = layout_for(clusters, data.n)
    return no_harm_of(data, delta=delta, alpha=alpha, confidence=confidence,
                      resamples=resamples, seed=seed, layout=layout)


def no_harm_of(data: PairedData, *, delta: float | None = None, alpha: float = DEFAULT_ALPHA,
               confidence: float = 0.95, resamples: int = DEFAULT_RESAMPLES,
               seed: int = 0, layout=None) -> Harm:
    """``no_harm`` of a checked ``PairedData`` (the caller checked delta, alpha, confidence,
    resamples and seed, as ``harm_iv`` does). With a ``core.paired.clusters.ClusterLayout``
    the cluster is the unit (issue 32): each share's interval is Wilson at its df-adjusted
    effective n (``core.paired.clusters.cluster_wilson_rows``, a clustered rate's interval) and
    TRisk = URisk / its CR2 standard error; TRisk's test is not given (p None,
    ``trisk_test`` "withheld_with_clusters"): its guards (bootstrap-t, skew guard) resample
    cases, and no clustered form of them is measured. Counts and URisk are unchanged."""
    if delta is None:
        delta = default_delta(data.binary)
    d = data.d
    n = data.n
    hurt_mask = d < -delta
    hurt, helped = int(hurt_mask.sum()), int((d > delta).sum())
    z = z_two_sided(confidence)
    lo, hi, _ = wilson_bounds(np.array([hurt, helped]), n, z)
    withheld = n < TRISK_MIN_N
    if layout is not None:   # clusters as the unit (issue 32): no test, the statistic on CR2
        from core.paired.clusters import cluster_wilson_rows, cr2_t_test  # lazy: clusters only
        _, lo, hi, _ = cluster_wilson_rows(np.vstack([hurt_mask, d > delta]).astype(float),
                                           layout, confidence)
        z = risk_adjusted(d, alpha)
        urisk, _, t, p = cr2_t_test(z, layout)
        p, withheld = None, False
    elif withheld:   # below 50 cases: the "riskier" side only (the module docstring)
        z = risk_adjusted(d, alpha)
        urisk = float(z.mean()) if z.size else 0.0
        sd = float(np.std(z, ddof=1)) if z.size >= 2 else 0.0
        defined = z.size >= 2 and paired_ttest_p(np.zeros_like(z), z) is not None
        t, p = (urisk / (sd / np.sqrt(z.size)) if defined else None), None
        if defined and t < 0:   # the side that holds: its p (no bootstrap on the other side)
            urisk, t, p = trisk(d, alpha, resamples=resamples, seed=seed)
        withheld = defined and p is None
    else:
        urisk, t, p = trisk(d, alpha, resamples=resamples, seed=seed)
    order = np.flatnonzero(hurt_mask)
    order = order[np.argsort(d[order], kind="stable")]  # most hurt first
    return Harm(float(delta), n, hurt, helped, hurt / n, (float(lo[0]), float(hi[0])),
                helped / n, (float(lo[1]), float(hi[1])), urisk, t, p, float(alpha),
                confidence, tuple(int(i) for i in order), withheld,
                None if layout is None else layout.n_clusters)
