"""Cases that are not independent (issue 32): several questions written from one document
(clusters), and systems scored over K repeated runs of the same case.

Everything here treats the **cluster** as the unit of independence. The estimate stays the
plain mean over cases (each question counts once); only its uncertainty changes.

**Cluster-robust variance of a mean, CR2** (Bell & McCaffrey 2002, "Bias reduction in
standard errors for linear regression with multi-stage samples", *Survey Methodology*
28:169-181; Pustejovsky & Tipton 2018, *JBES* 36:672). For the intercept-only regression of
x on 1 with N cases in G clusters of sizes m_g, residuals e_i = x_i − mean(x) and cluster
residual sums E_g = sum_{i in g} e_i, the hat matrix block is H_gg = J / N, so
(I − H_gg)^(-1/2) multiplies the constant vector by (1 − m_g / N)^(-1/2) and

    V_CR2 = sum_g E_g^2 / (1 − m_g / N) / N^2.

With equal sizes it is G / (G − 1) times the plain sandwich V_CR0 = sum_g E_g^2 / N^2, which
is statsmodels' ``cov_type="cluster"`` for one regressor (G / (G − 1) (N − 1) / (N − K) with
K = 1). The interval is mean ± t(df) sqrt(V_CR2) with the Bell–McCaffrey Satterthwaite
degrees of freedom (Imbens & Kolesár 2016, "Robust standard errors in small samples",
*REStat* 98:701, eq. 9): df = (sum λ)^2 / sum λ^2, λ the eigenvalues of the G × G matrix
M_gh = c_g c_h (δ_gh m_g − m_g m_h / N) / N^2, c_g = (1 − m_g / N)^(-1/2) (M = G'G for the
intercept; it does not depend on the data). Equal sizes give df = G − 1 and the interval is
then exactly the t-interval of the G cluster means; singletons (every case its own cluster)
give the ordinary t-interval of the cases.

**The interval of B − A: CR2, calibrated** (``calibrated_cr2``): the CR2 t-interval, t at
``informative_df``'s df, each end moved out to the cluster bootstrap-t's when further out (the
house's calibrated t, ``core.paired.skew_intervals``, one level up). ``bench/clusters.py``
(``docs/clusters.md``): null rejection of B − A at most 6% on every row (plain CR2 6.2%, CR1
8.0%, cluster percentile bootstrap 15.1%); the informative df lifts 0/1 rows from 92.8%.

**One method's rate** (0/1 outcomes): Wilson's interval at the effective sample size
n* = p(1 − p) / V_CR2 (Korn & Graubard 1998, "Confidence intervals for proportions with
small expected number of positive counts estimated from survey data", *Survey Methodology*
24:193) with z replaced by t(df) (the degrees-of-freedom adjustment of Korn & Graubard;
Dean & Pagano 2015, *J Surv Stat Methodol* 3:484, find Wilson so adjusted among the best for
clustered proportions). As Dean & Pagano do, the df adjustment comes first and the
truncation at N after: Wilson at n*_df = min(N, n* (z / t(df))^2) with z (Wilson depends on
z and n only through z^2 / n: it is Wilson at n* with t(df) unless that is narrower than the
independent-cases Wilson at N with z, whose binomial variance is not read from the clusters;
truncating first over-covered, 97.2% at 10 × 10, ICC 0.05). n* is N when p is 0 or 1.

**The exact test: whole-cluster sign flips.** Under "A and B are exchangeable within every
case" each cluster's sum S_g = sum_{i in g} (b_i − a_i) is as likely to be −S_g, so the p of
|sum_g S_g| over the 2^G sign patterns is exact (Fisher 1935; for clusters, Canay, Romano &
Shaikh 2017, *Econometrica* 85:1013). It is ``core.paired.significance.paired_test`` (the one
sign-flip test, exact up to 20 non-zero cluster sums, Monte-Carlo above) run on the cluster
sums. With singletons and 0/1 outcomes it is the exact McNemar test. With G clusters the
smallest p it can give is 2 / 2^G: at 5 clusters or fewer no difference can be shown at 5%.
For 0/1 outcomes the cluster sums are few distinct integers and the exact p is conservative
(null rejection 1.5–3.5% at 5%, ``bench/cluster_signflip.py``), so the verdict reads its
**mid-p** (Lancaster 1961: patterns tying with the data's |sum| count half; with singletons
the mid-p McNemar test the house uses for independent 0/1 cases), smallest value 1 / 2^G.

**McNemar's cluster form** (Durkalski, Palesch, Lipsitz & Rust 2003, "Analysis of clustered
matched-pair data", *Stat Med* 22:2417; Obuchowski 1998, *Stat Med* 17:1495): with b_g and
c_g a cluster's discordant counts (B only, A only), X^2 = (sum_g (b_g − c_g))^2 /
sum_g (b_g − c_g)^2 on 1 df. With singletons it is McNemar's X^2 = (b − c)^2 / (b + c).

**ICC, design effect, effective n.** The ANOVA estimator of the intraclass correlation for
unequal clusters (Donner 1986, *Int Stat Rev* 54:67): ICC = (MSB − MSW) / (MSB + (m0 − 1) MSW),
m0 = (N − sum m_g^2 / N) / (G − 1), floored at 0; the design effect 1 + ((cv^2 + 1) m − 1) ICC
(Eldridge, Ashby & Kerry 2006, *Int J Epidemiol* 35:1292; m the mean size, cv its coefficient
of variation); effective n = N / design effect.

Repeated runs and the design planner: ``core.paired.designs``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from core import checks
from core.paired.intervals import wilson_bounds
from core.paired.resampling import kernels
from core.paired.significance import PairedTest, paired_test, shifted_signflip_p, signed_sums
from core.paired.skew_intervals import t_quantile
from core.paired.stats import significance_level, verdict as one_verdict
from core.paired.streams import STREAM_SIGNFLIP, stream_key

# This many clusters or fewer and the card says plainly that the interval rests on few units
# (6-8 clusters of 0/1 outcomes at ICC 0.5: B − A's interval under 94%, docs/clusters.md)
FEW_CLUSTERS = 10
# The cluster bootstrap-t behind the calibrated interval of B − A: its resamples and stream.
CLUSTER_RESAMPLES = 4_000
STREAM_CLUSTERS = 7


# ----------------------------------------------------------------------------- layout
@dataclass(frozen=True)
class ClusterLayout:
    """Which cluster each of N cases belongs to: ``codes`` (N,) in 0..G-1, ``sizes`` (G,),
    and the CR2 constants (``weights`` 1 / (1 − m_g / N), ``df`` Bell–McCaffrey)."""

    codes: np.ndarray
    sizes: np.ndarray
    names: tuple
    df: float

    @property
    def n(self) -> int:
        return int(self.codes.size)

    @property
    def n_clusters(self) -> int:
        return int(self.sizes.size)

    @property
    def weights(self) -> np.ndarray:
        return 1.0 / (1.0 - self.sizes / self.n)


def bell_mccaffrey_df(sizes) -> float:
    """Satterthwaite degrees of freedom of the CR2 variance of a mean (module docstring):
    (sum λ)^2 / sum λ^2 over the eigenvalues λ of M_gh = c_g c_h (δ_gh m_g − m_g m_h / N) / N^2.
    Caller checked: at least 2 clusters, sizes >= 1."""
    m = np.asarray(sizes, dtype=float)
    n = m.sum()
    c = 1.0 / np.sqrt(1.0 - m / n)
    mat = (np.diag(m) - np.outer(m, m) / n) * np.outer(c, c) / n ** 2
    lam = np.linalg.eigvalsh(mat)
    return float(lam.sum() ** 2 / np.sum(lam ** 2))


def cluster_layout(labels) -> ClusterLayout:
    """The ``ClusterLayout`` of a sequence of cluster labels (one per case, any hashable;
    clusters numbered in order of first appearance). Needs at least 2 clusters."""
    labels = checks.nonempty("clusters", list(labels), what="cluster label")
    names: dict = {}
    codes = np.fromiter((names.setdefault(x, len(names)) for x in labels), dtype=np.int64,
                        count=len(labels))
    if len(names) < 2:
        raise ValueError("clusters needs at least 2 distinct clusters")
    sizes = np.bincount(codes, minlength=len(names)).astype(float)
    return ClusterLayout(codes, sizes, tuple(names), bell_mccaffrey_df(sizes))


# ----------------------------------------------------------------------------- CR2
def cr2_rows(x: np.ndarray, layout: ClusterLayout) -> tuple[np.ndarray, np.ndarray]:
    """Row-wise mean and CR2 variance of the mean (module docstring) of S sets of the same N
    cases (``x`` (S, N) or (N,)). Caller checked."""
    x = np.atleast_2d(np.asarray(x, dtype=float))
    mean = x.mean(axis=1)
    e = x - mean[:, None]
    sums = np.zeros((x.shape[0], layout.n_clusters))
    np.add.at(sums, (slice(None), layout.codes), e)
    var = (sums ** 2 * layout.weights).sum(axis=1) / layout.n ** 2
    return mean, var


def cr2_t_rows(x: np.ndarray, layout: ClusterLayout, confidence: float):
    """Row-wise CR2 / Bell–McCaffrey t-interval of the mean: (mean, low, high, se)."""
    mean, var = cr2_rows(x, layout)
    se = np.sqrt(var)
    q = float(t_quantile(1 - (1 - confidence) / 2, layout.df))
    return mean, mean - q * se, mean + q * se, se


def calibrated_cr2(x: np.ndarray, layout: ClusterLayout, confidence: float, *,
                   resamples: int = CLUSTER_RESAMPLES, seed: int = 0):
    """The CR2 t-interval of one set's mean widened tail by tail to the cluster bootstrap-t's
    ends (the house's calibrated t, ``core.paired.skew_intervals.calibrated_t_interval``, with
    whole clusters resampled): G clusters drawn with replacement ``resamples`` times, each
    resample's mean* = sum T*_g / sum m*_g and its CR2 variance (weights 1 / (1 − m*_g / N*)),
    t* = (mean* − mean) / se*; ends mean − t*(1 − α/2) se and mean − t*(α/2) se, taken only
    where they lie outside the CR2 t-interval (resamples with se* = 0 carry no t*), whose df is
    ``informative_df``'s. Returns (mean, low, high, se). Seeded (numpy's PCG64 from
    ``stream_key(seed, STREAM_CLUSTERS)``). Caller checked."""
    x = np.asarray(x, dtype=float)
    mean, var = cr2_rows(x, layout)
    mean, se = float(mean[0]), float(np.sqrt(var[0]))
    q = float(t_quantile(1 - (1 - confidence) / 2, informative_df(x, layout)[0]))
    lo, hi = mean - q * se, mean + q * se
    if se == 0:
        return mean, lo, hi, se
    g = layout.n_clusters
    tot = np.bincount(layout.codes, weights=x, minlength=g)
    rng = np.random.default_rng(int(stream_key(seed, STREAM_CLUSTERS)))
    idx = rng.integers(0, g, (resamples, g))
    t_sum, m = tot[idx], layout.sizes[idx]
    n = m.sum(axis=1)
    mstar = t_sum.sum(axis=1) / n
    e = t_sum - m * mstar[:, None]
    v = (e ** 2 / (1.0 - m / n[:, None])).sum(axis=1) / n ** 2
    ok = v > 1e-300 * max(1.0, mean * mean)
    if not np.any(ok):
        return mean, lo, hi, se
    tstar = (mstar[ok] - mean) / np.sqrt(v[ok])
    alpha = 1 - confidence
    q_hi, q_lo = np.quantile(tstar, [1 - alpha / 2, alpha / 2])
    return mean, min(lo, mean - q_hi * se), max(hi, mean - q_lo * se), se


def informative_df(x: np.ndarray, layout: ClusterLayout) -> np.ndarray:
    """Row-wise df of the interval of B − A: the Bell–McCaffrey df, at most 2 (G_nz − 1) (at
    least 1), G_nz the clusters with a non-zero difference: a cluster where A and B agree on
    every question says nothing about the spread between documents (as concordant pairs say
    nothing to McNemar's test). docs/clusters.md: G − 1 df 92.8–93.9%, G_nz − 1 up to 98%,
    2 (G_nz − 1) at least 94% on 0/1 at ICC 0.5. Scores are never exactly tied: G_nz = G."""
    x = np.atleast_2d(np.asarray(x, dtype=float))
    hit = np.zeros((x.shape[0], layout.n_clusters))
    np.add.at(hit, (slice(None), layout.codes), (x != 0).astype(float))
    g_nz = (hit > 0).sum(axis=1)
    return np.minimum(layout.df, np.maximum(1.0, 2.0 * (g_nz - 1)))


def cluster_wilson_rows(x: np.ndarray, layout: ClusterLayout, confidence: float):
    """Row-wise Wilson interval of a 0/1 rate with z at n*_df = min(N, n* (z / t(df))^2),
    n* = p(1 − p) / V_CR2 (module docstring; N when p is 0 or 1, infinite when V_CR2 = 0 < p
    < 1): (rate, low, high, min(n*, N)), the last the design effect's effective n."""
    p, var = cr2_rows(x, layout)
    n = layout.n
    with np.errstate(divide="ignore", invalid="ignore"):
        n_eff = np.where(var > 0, p * (1 - p) / var, np.where((p > 0) & (p < 1), np.inf, n))
    n_eff = np.clip(n_eff, 1e-9, None)
    z = float(t_quantile(1 - (1 - confidence) / 2, math.inf))
    q = float(t_quantile(1 - (1 - confidence) / 2, layout.df))
    n_df = np.minimum(n_eff * (z / q) ** 2, n)
    lo, hi, _ = wilson_bounds(p * n_df, n_df, z)
    return p, lo, hi, np.minimum(n_eff, n)


def cr2_t_test(x, layout: ClusterLayout) -> tuple[float, float, float | None, float | None]:
    """(mean, CR2 se, t = mean / se, two-sided p from t with the Bell–McCaffrey df) of one
    set's mean against 0: the cluster form of the one-sample t-test (module docstring). t and
    p are None when se is 0 (no spread between clusters). Caller checked."""
    mean, var = cr2_rows(x, layout)
    mean, se = float(mean[0]), float(np.sqrt(var[0]))
    if se <= 1e-12 * max(1.0, abs(mean)):
        return mean, se, None, None
    from scipy.special import stdtr  # continuous data only
    t = mean / se
    return mean, se, t, float(min(1.0, 2 * stdtr(layout.df, -abs(t))))


def layout_for(clusters, n: int, name: str = "clusters") -> ClusterLayout:
    """The checked ``ClusterLayout`` of one cluster label per case of ``n`` cases (the door of
    every function that takes ``clusters=``): a length other than ``n`` or fewer than 2
    clusters is a ``ValueError`` naming ``name``."""
    labels = list(clusters)
    if len(labels) != n:
        raise ValueError(f"{name} must give one cluster label per case: {len(labels)} labels "
                         f"for {n} cases")
    return cluster_layout(labels)


# ----------------------------------------------------------------------------- ICC
def icc_anova(x, layout: ClusterLayout) -> float:
    """The ANOVA intraclass correlation (Donner 1986; module docstring), floored at 0; 0 when
    every case is its own cluster or the values do not vary. Caller checked."""
    x = np.asarray(x, dtype=float)
    n, g, m = layout.n, layout.n_clusters, layout.sizes
    if g >= n:
        return 0.0
    means = np.bincount(layout.codes, weights=x, minlength=g) / m
    grand = x.mean()
    msb = float(np.sum(m * (means - grand) ** 2)) / (g - 1)
    msw = float(np.sum((x - means[layout.codes]) ** 2)) / (n - g)
    m0 = (n - float(np.sum(m ** 2)) / n) / (g - 1)
    denom = msb + (m0 - 1) * msw
    if denom <= 0:
        return 0.0
    return max(0.0, (msb - msw) / denom)


def design_effect(icc: float, sizes) -> float:
    """1 + ((cv^2 + 1) m − 1) ICC (Eldridge et al. 2006): m the mean cluster size, cv the
    coefficient of variation of the sizes (population SD / mean). Equal sizes: 1 + (m − 1) ICC
    (Kish 1965). Caller checked."""
    m = np.asarray(sizes, dtype=float)
    mean = float(m.mean())
    cv2 = float(m.var()) / mean ** 2
    return 1.0 + ((cv2 + 1.0) * mean - 1.0) * float(icc)


@dataclass(frozen=True)
class ClusterSummary:
    """How much the clusters shrink the evidence: ``icc`` of the values (for a comparison,
    of the differences B − A), the ``design_effect`` and ``effective_n`` = n / design effect."""

    n: int
    n_clusters: int
    mean_size: float
    min_size: int
    max_size: int
    icc: float
    design_effect: float
    df: float

    @property
    def effective_n(self) -> float:
        return self.n / self.design_effect

    @property
    def few(self) -> bool:
        """``FEW_CLUSTERS`` clusters or fewer: the card says so plainly."""
        return self.n_clusters <= FEW_CLUSTERS

    def to_dict(self) -> dict:
        return {"n_clusters": self.n_clusters, "mean_size": self.mean_size,
                "min_size": self.min_size, "max_size": self.max_size, "icc": self.icc,
                "design_effect": self.design_effect, "effective_n": self.effective_n,
                "df": self.df, "few": self.few}


def summarize(x, layout: ClusterLayout) -> ClusterSummary:
    """``ClusterSummary`` of the values ``x`` (one per case, in layout order). Caller checked."""
    icc = icc_anova(x, layout)
    return ClusterSummary(layout.n, layout.n_clusters, layout.n / layout.n_clusters,
                          int(layout.sizes.min()), int(layout.sizes.max()), icc,
                          design_effect(icc, layout.sizes), layout.df)


# ----------------------------------------------------------------------------- tests
def cluster_sums(d, layout: ClusterLayout) -> np.ndarray:
    """S_g = sum of d over the cases of cluster g (G,). Caller checked."""
    return np.bincount(layout.codes, weights=np.asarray(d, dtype=float),
                       minlength=layout.n_clusters)


def signflip_midp(nz: np.ndarray) -> float:
    """The exact mid-p of the sign-flip test on the non-zero values ``nz`` (at most
    ``EXACT_MAX_NONZERO``): P(|T*| > |T|) + P(|T*| = |T|) / 2 over all 2^m sign patterns
    (Lancaster 1961), counted meet-in-the-middle as ``core.paired.significance`` counts the
    exact p; |T*| within 1e-12 of the data's scale of |T| counts as equal."""
    m = nz.size
    observed = abs(float(nz.sum()))
    tol = 1e-12 * max(1.0, float(np.abs(nz).sum()))
    if m == 0 or observed - tol <= 0:
        return 1.0
    left, right = signed_sums(nz[: m // 2]), np.sort(signed_sums(nz[m // 2:]))
    lo_cut, hi_cut = observed - tol, observed + tol
    ge = (right.size - np.searchsorted(right, lo_cut - left, side="left")
          + np.searchsorted(right, -lo_cut - left, side="right"))
    gt = (right.size - np.searchsorted(right, hi_cut - left, side="right")
          + np.searchsorted(right, -hi_cut - left, side="left"))
    ge, gt = int(np.sum(ge)), int(np.sum(gt))
    return (gt + 0.5 * (ge - gt)) / 2.0 ** m


def cluster_signflip_test(d, layout: ClusterLayout, *, resamples: int = 20_000,
                          seed: int = 0, binary: bool = False) -> PairedTest:
    """The whole-cluster sign-flip test of mean(d) = 0 (module docstring): the one sign-flip
    test (``core.paired.significance.paired_test``, ``binary=False``) on the cluster sums S_g.
    Exact (all 2^G patterns) up to 20 non-zero sums. ``binary`` (d from 0/1 outcomes): the
    exact test's p is its mid-p (``signflip_midp``), as the McNemar test of independent 0/1
    cases is (``bench/cluster_signflip.py``: the exact p is conservative on the lumpy cluster
    sums of 0/1 data, the mid-p holds 5%); above 20 non-zero sums the Monte-Carlo mid-p
    (1 + #{|T*| > |T|} + #{|T*| = |T|} / 2) / (1 + R) over the same R sign patterns as the
    exact-p Monte-Carlo test (the form the bench measured). Caller checked ``d``."""
    s = cluster_sums(d, layout)
    test = paired_test(np.zeros_like(s), s, resamples=resamples, seed=seed, binary=False)
    if binary and test.exact:
        return PairedTest(test.name, signflip_midp(s[s != 0]), test.nonzero, True, 0, True)
    if binary:   # Monte-Carlo: the same sign patterns, ties at the data's |sum| count half
        nz = s[s != 0]
        null = np.abs(kernels().signflip_sums(nz, stream_key(seed, STREAM_SIGNFLIP), 0,
                                              resamples))
        obs = abs(float(nz.sum()))
        tol = 1e-12 * max(1.0, float(np.abs(nz).sum()))
        gt = int(np.sum(null > obs + tol))
        eq = int(np.sum(np.abs(null - obs) <= tol))
        return PairedTest(test.name, min(1.0, (1 + gt + 0.5 * eq) / (1 + resamples)),
                          test.nonzero, False, resamples, True)
    return test


def cluster_mcnemar(a, b, layout: ClusterLayout) -> tuple[float, float]:
    """Durkalski et al.'s (2003) clustered McNemar X^2 = (sum (b_g − c_g))^2 / sum (b_g − c_g)^2
    and its chi-square (1 df) p. Both 1.0-safe: no discordant case gives (0.0, 1.0). Caller
    checked: a, b 0/1 of the layout's cases."""
    s = cluster_sums(np.asarray(b, float) - np.asarray(a, float), layout)
    den = float(np.sum(s ** 2))
    if den == 0:
        return 0.0, 1.0
    x2 = float(s.sum()) ** 2 / den
    return x2, math.erfc(math.sqrt(x2 / 2))


# ----------------------------------------------------------------------------- results
@dataclass(frozen=True)
class ClusterInterval:
    """One mean (a method's rate or score, or B − A) with its cluster-robust interval."""

    mean: float
    ci_low: float
    ci_high: float
    se: float
    df: float
    interval: str            # "cluster_wilson" (0/1 rate) | "cr2_t"
    effective_n: float | None = None

    def to_dict(self) -> dict:
        out = {"mean": self.mean, "ci_low": self.ci_low, "ci_high": self.ci_high,
               "se": self.se, "df": self.df, "interval": self.interval}
        return out if self.effective_n is None else {**out, "effective_n": self.effective_n}


def _interval(x: np.ndarray, layout: ClusterLayout, confidence: float, binary: bool,
              bounds: tuple[float, float] | None, seed: int | None = None) -> ClusterInterval:
    """A method's interval (``seed`` None: Wilson at the effective n for 0/1, else CR2 t) or
    B − A's (``seed`` given: the calibrated CR2 interval, ``calibrated_cr2``)."""
    mean, var = cr2_rows(x, layout)
    se = float(np.sqrt(var[0]))
    if seed is not None:
        m, lo, hi, _ = calibrated_cr2(x, layout, confidence, seed=seed)
        if bounds is not None:
            lo, hi = max(lo, bounds[0]), min(hi, bounds[1])
        return ClusterInterval(m, lo, hi, se, float(informative_df(x, layout)[0]),
                               "cr2_calibrated")
    if binary:
        p, lo, hi, n_eff = cluster_wilson_rows(x, layout, confidence)
        return ClusterInterval(float(p[0]), float(lo[0]), float(hi[0]), se, layout.df,
                               "cluster_wilson", float(n_eff[0]))
    _, lo, hi, _ = cr2_t_rows(x, layout, confidence)
    lo, hi = float(lo[0]), float(hi[0])
    if bounds is not None:
        lo, hi = max(lo, bounds[0]), min(hi, bounds[1])
    return ClusterInterval(float(mean[0]), lo, hi, se, layout.df, "cr2_t")


def _is_binary(x: np.ndarray) -> bool:
    return bool(np.all((x == 0) | (x == 1)))


def cluster_interval(values, clusters, *, confidence: float = 0.95) -> ClusterInterval:
    """One method's mean over cases with its cluster-robust interval: Wilson at the df-adjusted
    effective n for 0/1 outcomes, the CR2 / Bell–McCaffrey t-interval for scores (clipped to
    [0, 1] when every score lies in it). ``clusters``: one label per case."""
    x = checks.values("values", values, min_n=2)
    layout = cluster_layout(clusters)
    checks.same_length(values=x, clusters=layout.codes)
    confidence = checks.confidence(confidence)
    unit = bool(np.all((x >= 0) & (x <= 1)))
    return _interval(x, layout, confidence, _is_binary(x), (0.0, 1.0) if unit else None)


@dataclass(frozen=True)
class ClusterComparison:
    """B − A on clustered cases: each method's interval, the interval of B − A (CR2 t), the
    whole-cluster sign-flip test and, for 0/1 outcomes, McNemar's cluster form; the
    ``summary`` (ICC of the differences, design effect, effective n). ``verdict`` is the one
    rule (``core.paired.stats.verdict``): the cluster-robust interval of B − A and the
    whole-cluster sign-flip test must agree."""

    a: ClusterInterval
    b: ClusterInterval
    difference: ClusterInterval
    test: PairedTest
    summary: ClusterSummary
    confidence: float
    verdict: str
    mcnemar_x2: float | None = None
    mcnemar_p: float | None = None
    self_check: object = None   # core.paired.cluster_check.ClusterSelfCheck, when run

    @property
    def resolution(self) -> float:
        """One cluster as a share of the cases (mean size / n): the resolution in clusters."""
        return self.summary.mean_size / self.summary.n

    def to_dict(self) -> dict:
        out = {"method": "cr2_calibrated", "confidence": self.confidence,
               **self.summary.to_dict(), "resolution": self.resolution,
               "a": self.a.to_dict(), "b": self.b.to_dict(),
               "difference": self.difference.to_dict(), "test": self.test.to_dict(),
               "verdict": self.verdict}
        if self.mcnemar_x2 is not None:
            out["mcnemar_cluster"] = {"x2": self.mcnemar_x2, "p": self.mcnemar_p}
        if self.self_check is not None:
            out["self_check"] = self.self_check.to_dict()
        return out


def compare_clustered(a, b, clusters, *, confidence: float = 0.95, resamples: int = 20_000,
                      seed: int = 0) -> ClusterComparison:
    """B − A on N paired cases in clusters (``clusters``: one label per case). Each method's
    interval (``cluster_interval``), the CR2 / Bell–McCaffrey t-interval of mean(b − a), the
    whole-cluster sign-flip test (``cluster_signflip_test``), McNemar's cluster form for 0/1
    outcomes and the ``ClusterSummary`` of the differences."""
    a, b = checks.pair(a, b, min_n=2)
    layout = cluster_layout(clusters)
    checks.same_length(a=a, clusters=layout.codes)
    confidence = checks.confidence(confidence)
    resamples, seed = checks.resampling_iv(resamples, seed)
    binary = _is_binary(a) and _is_binary(b)
    unit = bool(np.all((a >= 0) & (a <= 1) & (b >= 0) & (b <= 1)))
    bounds = (0.0, 1.0) if unit else None
    d = b - a
    diff = _interval(d, layout, confidence, False, (-1.0, 1.0) if unit else None, seed)
    test = cluster_signflip_test(d, layout, resamples=resamples, seed=seed, binary=binary)
    x2 = p = None
    if binary:
        x2, p = cluster_mcnemar(a, b, layout)
    v = one_verdict(diff.ci_low, diff.ci_high, test.p, confidence=confidence)
    return ClusterComparison(_interval(a, layout, confidence, binary, bounds),
                             _interval(b, layout, confidence, binary, bounds), diff, test,
                             summarize(d, layout), confidence, v, x2, p)


@dataclass(frozen=True)
class ClusterMargin:
    """The switch's quality condition with clusters as the unit: B − A's CR2 interval against
    −``margin`` and the one-sided whole-cluster sign-flip test of mean(B − A) <= −margin.
    ``state``: holds (lower end above −δ and p < alpha/2, the house's margin rule,
    ``core.paired.margin``), fails (upper end below −δ), else unsure."""

    margin: float
    mean: float
    ci_low: float
    ci_high: float
    p: float
    state: str
    n_clusters: int
    confidence: float

    def to_dict(self) -> dict:
        return {"margin": self.margin, "b_minus_a": self.mean, "ci_low": self.ci_low,
                "ci_high": self.ci_high, "p_noninferior": self.p, "state": self.state,
                "n_clusters": self.n_clusters, "confidence": self.confidence}


def cluster_margin(a, b, clusters, margin: float, *, confidence: float = 0.95,
                   resamples: int = 20_000, seed: int = 0) -> ClusterMargin:
    """``ClusterMargin`` of paired cases in clusters: the CR2 t-interval of mean(b − a) and
    the one-sided sign-flip test on the cluster sums of (b − a + margin)
    (``core.paired.significance.shifted_signflip_p``: exact up to 20 non-zero sums)."""
    a, b = checks.pair(a, b, min_n=2)
    layout = cluster_layout(clusters)
    checks.same_length(a=a, clusters=layout.codes)
    margin = checks.between("margin", margin, 0.0, math.inf)
    confidence = checks.confidence(confidence)
    resamples, seed = checks.resampling_iv(resamples, seed)
    d = b - a
    unit = bool(np.all((a >= 0) & (a <= 1) & (b >= 0) & (b <= 1)))
    diff = _interval(d, layout, confidence, False, (-1.0, 1.0) if unit else None, seed)
    test = shifted_signflip_p(cluster_sums(d + margin, layout), 0.0, alternative="greater",
                              resamples=resamples, seed=seed)
    alpha = significance_level(confidence)
    if diff.ci_low > -margin and test.p < alpha / 2:
        state = "holds"
    elif diff.ci_high < -margin:
        state = "fails"
    else:
        state = "unsure"
    return ClusterMargin(margin, diff.mean, diff.ci_low, diff.ci_high, test.p, state,
                         layout.n_clusters, confidence)
