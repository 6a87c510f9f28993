"""Gold labels on a few cases, cheap labels on many: prediction-powered inference (issue 34).

A method's score computed with gold labels is ``gold`` on n cases; the same score computed with
cheap labels (crowd, a heuristic, an LLM judge) is ``cheap_gold`` on those n cases and
``cheap_rest`` on M further cases that have no gold label (N = n + M cheap-labelled cases in
all). PPI++ (Angelopoulos, Duchi & Zrnic 2023, "PPI++: Efficient Prediction-Powered
Inference", arXiv 2311.01453; PPI: Angelopoulos, Bates, Fannjiang, Jordan & Zrnic, *Science*
382, 2023) estimates the gold mean as

    theta(lam) = lam * mean(cheap_rest) + mean(gold - lam * cheap_gold),

unbiased for every fixed lam whatever the cheap labels' bias, because the second term
measures the bias on the gold cases and takes it back out. lam in [0, 1] is tuned for power
(``ppi_lambda``, ``ppi_py``'s rule): lam = 0 is the gold-only mean, lam = 1 plain PPI. For a
paired comparison the same estimator is applied to the per-case difference B − A (gold B − A
and cheap B − A), so a cheap-label bias that differs between the two systems is measured and
removed too.

Assumption the user must meet (stated on the card): the gold cases are a random sample of the
cheap-labelled cases. Only the figures are computed here; the commands and views read them.

Intervals (``PPI_METHODS``):

* ``"z"`` -- ``ppi_py.ppi_mean_ci`` (version 0.2.3) exactly: SDs with ddof 0 and the normal
  quantile. Its reference, used in the tests (equal to 1e-9);
* ``"t"`` -- the small-sample version, the default (on 0/1 outcomes it is the Jeffreys
  MOVER 2 interval, below): SDs with ddof 1 (ddof 2 for the rectifier
  gold - lam cheap when lam > 0 was tuned on the same n cases: one more parameter estimated,
  as a regression residual loses one per slope) and Student's t with the Welch-Satterthwaite
  degrees of freedom of the two variance terms, df = (a + b)^2 / (a^2 / (M - 1) + b^2 / (n -
  k)), a = lam^2 s_rest^2 / M, b = SS_rect / (n - k) / n, k = 2 (1 when lam is 0 or fixed).
  With lam = 0 it is the gold-only t-interval (on scores). Chosen by
  ``bench/ppi.py`` (``docs/cheap_labels.md``) over the z-interval (89-93% at 20-30 gold
  cases) and a studentized bootstrap with lam re-tuned per resample (96-98%, often wider
  than gold-only).

Whole-valued data other than 0/1 outcomes (counts; until issue 34's rerun, 0/1 outcomes too,
which now get the MOVER interval below) add ``PSEUDO`` = 1 pseudo disagreement to the
rectifier's sum of squares: half a case at its mean + lam and half at - lam, so SS becomes SS +
lam^2 over n + 1 - 1 degrees of freedom. With 20-50 gold cases and cheap labels that agree on
90-95% of cases, the gold sample often holds no disagreement at all and the plain variance
leaves the cheap labels' error out (coverage 74-91%); the pseudo case is Agresti & Coull's
(1998) "add a few" for the disagreement rate, chosen by ``bench/ppi.py`` over 0 and 2 (method
"t" only: "z" stays ``ppi_py``'s). At lam = 0 it adds nothing; the estimate never changes.
Beside it, ``PLUS`` = 1: the sum of squares of Agresti & Coull's two added successes and two
added failures (four cases at the mean +/- 1/2; for B − A, Agresti & Min's (2005) half case in
each discordant cell, one case at +/- 1), which agree under both labels, so the rectifier gets
plus * (1 - lam)^2 and the gold-only interval plus (variance only, n and the estimate
unchanged). Without it a 0/1 t-interval at 20 gold cases covers 91.5-95% (the discrete rate's
variance moves with its estimate).

The tuned lam is itself estimated: theta = mean(gold) - lam (mean(cheap_gold) -
mean(cheap_rest)) moves with it by the distance of the gold cases' cheap mean from the others'.
Method "t" adds that term as the regression estimator in double sampling does (Cochran 1977,
*Sampling Techniques*, 3rd ed., Sec. 12.6; the slope variance of a least-squares line):
s_e^2 (xbar_n - xbar_rest)^2 / S_xx, s_e^2 = SS_rect / (n - 2), S_xx the cheap values' sum of
squares about their mean on the n gold cases. Without it, scores at 20-50 gold cases covered
93.5-94% where the gold-only t-interval held 95% (``bench/ppi.py``, docs/cheap_labels.md).

The matching test (``PPIEstimate.p_value``) is the same statistic, theta / se against the same
t (or normal) distribution, so the interval excludes 0 exactly when p < 1 - confidence.

0/1 outcomes, the default since issue 34's rerun (``MOVER_KINDS``; ``bench/ppi_binary_mover.py``,
``docs/cheap_labels_binary.md`` section 4): method "t" on a method's 0/1 mean (every value 0 or
1) or on B − A of 0/1 outcomes (``ppi_difference``: every value -1, 0 or 1) gives the interval
**Jeffreys MOVER 2** instead of the pseudo-case t above. The same estimate is split by lam,

    theta = lam * p_rest + (1 - lam) * p_gold + lam * d,

p_rest the mean of the M cheap-only values, p_gold the gold mean and d = mean(gold -
cheap_gold), the disagreements' net rate. Each part gets a score interval at its own quantile:
p_rest Wilson's (a mean) or Tango's paired interval (B − A: the +1 and -1 cases as its
discordant pairs) at the normal z; p_gold the same at q = Student's t(n - 1) quantile in place
of z; d as the difference of the rates of + and - units (kp, km: the positive and negative
parts of gold - cheap_gold summed), Jeffreys intervals of each (Beta(k + 1/2, n - k + 1/2)
quantiles at the tail Phi(-q), 0 at k = 0 and 1 at k = n; Brown, Cai & DasGupta 2001,
*Statistical Science* 16:101) combined as a multinomial difference (correlation
-sqrt(pp pm / ((1 - pp)(1 - pm))); with kp + km > n, on kp + km units rescaled). The parts are
combined by MOVER for a linear combination (Zou & Donner 2008, *Statistics in Medicine*
27:1693; Newcombe 1998):

    L = theta - sqrt(sum_i l_i^2 + 2 r l_2 l_3),  U = theta + sqrt(sum_i u_i^2 + 2 r u_2 u_3),

l_i = c_i (est_i - low_i), u_i = c_i (high_i - est_i), c = (lam, 1 - lam, lam), r the sample
correlation of gold and gold - cheap_gold on the gold cases (0 when one is constant); the
cheap-only part is independent of the gold cases (disjoint random cases). On 432 cells (the
bench grid and the shared-error design, 4,000 sets each) it has 2 cells under 94% and 62 over
96.5% where the pseudo-case t had 8 and 97, at the same widest width against gold-only (-0.6%).
At lam = 0 it is Wilson's (Tango's) interval of the gold cases at Student's quantile.

A MOVER interval has no single standard error (``se`` and ``df`` are NaN): its test is the
interval inverted. ``p_value`` is the largest 1 - c at which the interval at confidence c still
holds 0 (bisection on log(1 - c), anchored at the reported confidence, so the interval excludes
0 exactly when p < 1 - confidence; p below ``P_FLOOR`` is given as ``P_FLOOR``), ``p_above``
the same for one end, and ``effective_n`` = n (W_0 / PPI width)^2, W_0 the width of the same
rule at lam = 0 (Wilson's or Tango's interval of the gold cases at Student's quantile: the
gold-only interval of this rule, as se at lam = 0 is for the t rule). W_0 is also the
gold-only interval shown beside it (``gold_only_low`` / ``gold_only_high``, the gold-only
verdict), so at lam = 0 the two are the same interval. Against the t-interval with ``PLUS``,
uncorrelated cheap labels would look "worth" up to 1.5 times the gold cases at n = 20 (that
interval is about 19% wider than Wilson's there) and the card would show a PPI interval
narrower than the gold-only one while saying the cheap labels do not help.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from core import checks
from core.paired.difference import tango_limits
from core.paired.intervals import P_FLOOR, inverted_p, wilson_bounds, z_of, z_two_sided
from core.paired.skew_intervals import t_quantile

PPI_METHODS = ("t", "z")
MIN_GOLD = 3           # a variance with ddof 1 and a correlation need a few gold cases
LAMBDA_NONE = 0.05     # lam below this: the cheap labels do not help (the card says so) ...
MIN_GAIN = 1.05        # ... nor when they are worth fewer than 5% more gold cases
PSEUDO = 1.0           # pseudo disagreements added on 0/1 data (module docstring)
PLUS = 1.0             # pseudo agreeing cases' sum of squares on 0/1 data (module docstring)
MOVER_KINDS = ("mean", "difference")   # the 0/1 Jeffreys MOVER 2 interval (module docstring)
TEST_NAMES = {"t": "ppi++ t-test", "z": "ppi++ z-test", "mover": "ppi++ inverted mover interval"}


@dataclass(frozen=True)
class PPIEstimate:
    """One prediction-powered mean (a method's score, or the paired B − A) with its interval,
    and the gold-only figures beside it (the same formula at lam = 0)."""

    estimate: float
    ci_low: float
    ci_high: float
    se: float
    df: float
    p_value: float
    lam: float
    correlation: float | None
    n_gold: int
    n_cheap: int
    effective_n: float
    gold_only_estimate: float
    gold_only_low: float
    gold_only_high: float
    method: str
    confidence: float
    mover: tuple = ()   # 0/1 Jeffreys MOVER 2: (kind, n, m, lam, counts...) to redo its interval

    @property
    def interval_name(self) -> str:
        """The JSON's name of the interval: ``ppi++_t``, ``ppi++_z`` or ``ppi++_mover_t``."""
        return "ppi++_mover_t" if self.mover else f"ppi++_{self.method}"

    @property
    def test_name(self) -> str:
        """The matching test's name (``TEST_NAMES``)."""
        return TEST_NAMES["mover" if self.mover else self.method]

    def interval_at(self, confidence: float) -> tuple[float, float]:
        """The interval at another ``confidence`` (the caller checked it): the same rule, the
        same data (for the MOVER interval, its stored counts)."""
        if self.mover:
            low, high = mover_limits(self.mover, self.estimate, confidence)
            return float(low[0]), float(high[0])
        q = (z_of(confidence) if math.isinf(self.df)
             else float(t_quantile(0.5 + confidence / 2, self.df)))
        return self.estimate - q * self.se, self.estimate + q * self.se

    @property
    def helps(self) -> bool:
        """False when lam is about 0 (below ``LAMBDA_NONE``) or the cheap labels are worth
        fewer than 5% more gold cases (``MIN_GAIN``): the figures are then practically the
        gold-only ones, and the card says so."""
        return self.lam >= LAMBDA_NONE and self.effective_n >= MIN_GAIN * self.n_gold

    @property
    def width_ratio(self) -> float:
        """PPI width over gold-only width (1 when both are 0)."""
        gold = self.gold_only_high - self.gold_only_low
        return 1.0 if gold == 0 else (self.ci_high - self.ci_low) / gold

    def inverted(self, excluded, excluded_here: bool) -> float:
        """The test of the MOVER interval by inversion (module docstring): the largest 1 - c
        at which ``excluded(low, high)`` is False for ``interval_at(c)``, anchored at this
        estimate's confidence, where ``excluded_here`` is the reported interval's answer
        (``core.paired.intervals.inverted_p``): so p < 1 - confidence exactly when the
        reported interval excludes; ``P_FLOOR`` at the least."""
        return inverted_p(self.interval_at, excluded, confidence=self.confidence,
                          excluded_here=excluded_here, floor=P_FLOOR)

    def p_above(self, limit: float) -> float:
        """One-sided p of the test that the mean is above ``limit`` (the same statistic and
        distribution as the interval: (estimate - limit) / se against t(df), or the normal for
        "z"): below (1 - confidence) / 2 exactly when ``ci_low`` > ``limit``. A non-inferiority
        test at margin delta is ``p_above(-delta)``. The MOVER interval (0/1): the interval
        inverted, (1 - c) / 2 at the confidence c whose lower end is ``limit`` (1 minus that of
        the upper end when the estimate is below ``limit``)."""
        if self.mover:
            if self.estimate == limit:
                return 0.5
            if self.estimate > limit:
                return 0.5 * self.inverted(lambda lo, hi: lo > limit, self.ci_low > limit)
            return 1 - 0.5 * self.inverted(lambda lo, hi: hi < limit, self.ci_high < limit)
        if self.se == 0 or not math.isfinite(self.se):
            return 0.0 if self.estimate > limit else 1.0
        z = (self.estimate - limit) / self.se
        if math.isinf(self.df):
            return 0.5 * math.erfc(z / math.sqrt(2))
        from scipy.special import stdtr   # lazy: only a decision with cheap labels asks
        return float(stdtr(self.df, -z))

    def to_dict(self) -> dict:
        """The ``ppi`` block of the JSON (issue 34)."""
        return {"lambda": self.lam, "correlation": self.correlation, "n_gold": self.n_gold,
                "n_cheap": self.n_cheap, "effective_n": self.effective_n,
                "interval": self.interval_name, "p_value": self.p_value,
                "gold_only": {"estimate": self.gold_only_estimate,
                              "ci_low": self.gold_only_low, "ci_high": self.gold_only_high}}


# ----------------------------------------------------------------------------- row kernels
def ppi_lambda_rows(gold: np.ndarray, cheap_gold: np.ndarray,
                    cheap_rest: np.ndarray) -> np.ndarray:
    """PPI++'s power-tuning lam of each row (S sets: gold and cheap_gold (S, n), cheap_rest
    (S, M); the caller checked them): ``ppi_py``'s ``_calc_lam_glm`` for a mean,

        lam = cov(Y, Yhat) / ((1 + n / M) var(Yhat, cheap_rest)),

    the covariance over the n gold cases with ddof 0, the variance over all n + M cheap values
    with ddof 1, clipped to [0, 1] (0 when the cheap values do not vary). It minimises the
    estimated variance lam^2 var/M + var(Y - lam Yhat)/n (Angelopoulos, Duchi & Zrnic 2023,
    Example 6.1)."""
    n, m = gold.shape[1], cheap_rest.shape[1]
    cov = np.mean((gold - gold.mean(1, keepdims=True))
                  * (cheap_gold - cheap_gold.mean(1, keepdims=True)), axis=1)
    var = np.var(np.concatenate([cheap_gold, cheap_rest], axis=1), axis=1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = cov / ((1 + n / m) * var)
    return np.clip(np.where(var > 0, lam, 0.0), 0.0, 1.0)


def jeffreys_bounds(k, n, tail: float):
    """Jeffreys interval of a proportion k / n (Brown, Cai & DasGupta 2001): the Beta(k + 1/2,
    n - k + 1/2) quantiles at ``tail`` and 1 - ``tail``, the lower end 0 at k = 0 and the upper
    1 at k = n. Numbers or arrays (the caller checked 0 <= k <= n, 0 < tail < 1/2)."""
    from scipy.special import betaincinv
    k, n = np.asarray(k, float), np.asarray(n, float)
    a, b = k + 0.5, n - k + 0.5
    return (np.where(k > 0, betaincinv(a, b, tail), 0.0),
            np.where(k < n, betaincinv(a, b, 1 - tail), 1.0))


def _unit_difference(kp, km, n, q):
    """d = (kp - km) / n as the difference of two multinomial rates, Jeffreys intervals at the
    tail Phi(-q) combined by MOVER with their correlation -sqrt(pp pm / ((1 - pp)(1 - pm)));
    on kp + km units (rescaled) when they exceed n. Returns the distances from d down to its
    lower end and up to its upper end."""
    tail = 0.5 * math.erfc(q / math.sqrt(2))
    units = np.maximum(n, kp + km)
    pp, pm = kp / units, km / units
    lp, up = jeffreys_bounds(kp, units, tail)
    lm, um = jeffreys_bounds(km, units, tail)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = -np.sqrt(pp * pm / ((1 - pp) * (1 - pm)))
    r = np.where(np.isfinite(r), r, 0.0)
    down_p, up_m, up_p, down_m = pp - lp, um - pm, up - pp, pm - lm
    scale = units / n
    return (np.sqrt(np.maximum(down_p ** 2 + up_m ** 2 - 2 * r * down_p * up_m, 0.0)) * scale,
            np.sqrt(np.maximum(up_p ** 2 + down_m ** 2 - 2 * r * up_p * down_m, 0.0)) * scale)


def mover_counts_rows(gold: np.ndarray, cheap_gold: np.ndarray,
                      cheap_rest: np.ndarray) -> np.ndarray:
    """What the 0/1 MOVER interval reads of each row (the caller checked the arrays, 0/1 or
    -1/0/1 values): (S, 7) columns: the positive and negative parts of cheap_rest summed, the
    same of gold, the same of gold - cheap_gold (kp, km), and the sample correlation r of gold
    and gold - cheap_gold (0 when one is constant)."""
    rect = gold - cheap_gold
    cols = [np.sum(f(v), axis=1) for v in (cheap_rest, gold, rect)
            for f in (lambda x: np.maximum(x, 0.0), lambda x: np.maximum(-x, 0.0))]
    gc, rc = gold - gold.mean(1, keepdims=True), rect - rect.mean(1, keepdims=True)
    den = np.sqrt(np.sum(gc * gc, axis=1) * np.sum(rc * rc, axis=1))
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(den > 0, np.sum(gc * rc, axis=1) / den, 0.0)
    return np.stack([*cols, r], axis=1).astype(float)


def mover_limits(mover: tuple, estimate, confidence: float, *,
                 disagreement_quantile: str = "t"):
    """The Jeffreys MOVER 2 interval (module docstring) at ``confidence`` (checked by the
    caller) around ``estimate``: ``mover`` = (kind, n, m, lam, rp, rm, gp, gm, kp, km, r), kind
    in ``MOVER_KINDS``, the counts of ``mover_counts_rows`` (numbers for one set, arrays for
    rows). ``disagreement_quantile`` "z" puts the disagreements' Jeffreys intervals at the
    normal tail instead of Student's (``bench/ppi_binary_tails.py`` only: rejected, 12 of 288
    grid cells under 94%, ``docs/cheap_labels_binary.md`` section 5). Returns (low, high)."""
    if disagreement_quantile not in ("t", "z"):
        raise ValueError(f'disagreement_quantile must be "t" or "z", not '
                         f'{disagreement_quantile!r}')
    kind, n, m, lam, rp, rm, gp, gm, kp, km, r = mover
    z, q = z_of(confidence), float(t_quantile(0.5 + confidence / 2, n - 1))
    qd = z if disagreement_quantile == "z" else q
    if kind == "mean":
        e1, e2 = rp / m, gp / n
        (lo1, hi1, _), (lo2, hi2, _) = wilson_bounds(rp, m, z), wilson_bounds(gp, n, q)
    else:
        e1, e2 = (rp - rm) / m, (gp - gm) / n
        lo1, hi1 = tango_limits(rp, rm, np.full(np.shape(rp), float(m)), z)
        lo2, hi2 = tango_limits(gp, gm, np.full(np.shape(gp), float(n)), q)
    d3, u3 = _unit_difference(kp, km, n, qd)
    l1, u1, l3, u3 = lam * (e1 - lo1), lam * (hi1 - e1), lam * d3, lam * u3
    l2, u2 = (1 - lam) * (e2 - lo2), (1 - lam) * (hi2 - e2)
    low = estimate - np.sqrt(np.maximum(l1 ** 2 + l2 ** 2 + l3 ** 2 + 2 * r * l2 * l3, 0.0))
    high = estimate + np.sqrt(np.maximum(u1 ** 2 + u2 ** 2 + u3 ** 2 + 2 * r * u2 * u3, 0.0))
    return np.atleast_1d(low), np.atleast_1d(high)


def ppi_rows(gold: np.ndarray, cheap_gold: np.ndarray, cheap_rest: np.ndarray, *,
             confidence: float, method: str = "t", lam=None, pseudo: float = 0.0,
             plus: float = 0.0, mover: str | None = None) -> dict:
    """PPI++ of each row (the formulas of the module docstring; the caller checked the
    arrays: gold, cheap_gold (S, n), cheap_rest (S, M), n >= 2, M >= 2). ``lam`` None tunes it
    per row (``ppi_lambda_rows``), else a number or an (S,) array. Returns arrays keyed
    estimate, se, df, low, high, lam, gold_se, gold_df, gold_low, gold_high. ``pseudo``: the
    pseudo disagreements added to the rectifier's sum of squares (``PSEUDO`` for 0/1 data,
    0 for scores; the module docstring); ``plus``: the pseudo agreeing cases (``PLUS`` for 0/1
    data), added to the rectifier's and the gold-only sum of squares as plus * (1 - lam)^2.
    Method "t" with a tuned lam > 0 adds the variance of the tuned lam (the regression
    estimator's slope term, module docstring). ``mover`` ("mean" or "difference", 0/1 data):
    low and high are the Jeffreys MOVER 2 interval's instead (``mover_limits``), se and df
    NaN, ``mover_counts`` holds what it read, and w0_low, w0_high are the same rule at lam = 0
    (W_0: Wilson's or Tango's interval of the gold cases at Student's quantile), the gold-only
    interval ``ppi_mean`` / ``ppi_difference`` show (gold_low, gold_high stay the t-interval
    with ``plus``, the benches' "gold-only t"). The bench calls
    this directly on thousands of simulated sets; ``ppi_mean`` / ``ppi_difference`` are the
    checked entries."""
    n, m = gold.shape[1], cheap_rest.shape[1]
    tuned = lam is None
    lam = (ppi_lambda_rows(gold, cheap_gold, cheap_rest) if tuned
           else np.broadcast_to(np.asarray(lam, float), gold.shape[:1]))
    rect = gold - lam[:, None] * cheap_gold
    est = lam * cheap_rest.mean(1) + rect.mean(1)
    ddof = 1 if method == "t" else 0
    a = lam ** 2 * np.var(cheap_rest, axis=1, ddof=ddof) / m
    # "t": a lam tuned on these n cases costs the rectifier one more degree of freedom (as a
    # regression residual's); pseudo disagreements (``PSEUDO``: ``pseudo`` cases at the
    # rectifier's mean +/- lam, half each) join its sum of squares; the estimate is unchanged
    rect_ddof = ddof + (tuned & (lam > 0)) if method == "t" else np.zeros(lam.shape)
    ss = np.var(rect, axis=1, ddof=0) * n + pseudo * lam ** 2 + plus * (1 - lam) ** 2
    b = ss / (n + pseudo * (lam > 0) - rect_ddof) / n     # at lam = 0: the gold-only variance
    if method == "t" and tuned:
        # the tuned lam's own variance times the estimate's slope in lam, theta = mean(gold)
        # - lam (mean(cheap_gold) - mean(cheap_rest)): the regression estimator's term
        # s_e^2 (xbar_n - xbar_rest)^2 / S_xx (module docstring)
        sxx = np.sum((cheap_gold - cheap_gold.mean(1, keepdims=True)) ** 2, axis=1)
        slope = (cheap_gold.mean(1) - cheap_rest.mean(1)) ** 2
        with np.errstate(divide="ignore", invalid="ignore"):
            extra = np.where((lam > 0) & (sxx > 0), ss / (n + pseudo - 2) / sxx * slope, 0.0)
        b = b + extra
    se = np.sqrt(a + b)
    gold_ss = np.var(gold, axis=1, ddof=0) * n + plus
    gold_se = np.sqrt(gold_ss / (n - ddof)) / math.sqrt(n)
    alpha = 1 - confidence
    if method == "t":
        with np.errstate(divide="ignore", invalid="ignore"):
            df = (a + b) ** 2 / (a ** 2 / (m - 1) + b ** 2 / (n - rect_ddof))
        df = np.where(np.isfinite(df) & (df > 0), df, n - 1.0)
        q = np.asarray(t_quantile(1 - alpha / 2, df), float)
        gold_df = np.full(gold.shape[0], n - 1.0)
        gold_q = float(t_quantile(1 - alpha / 2, n - 1))
    else:
        df = np.full(gold.shape[0], math.inf)
        gold_df = df
        q = gold_q = z_two_sided(confidence)
    gold_mean = gold.mean(1)
    out = {"estimate": est, "se": se, "df": df, "low": est - q * se, "high": est + q * se,
           "lam": np.asarray(lam, float), "gold_estimate": gold_mean, "gold_se": gold_se,
           "gold_df": gold_df, "gold_low": gold_mean - gold_q * gold_se,
           "gold_high": gold_mean + gold_q * gold_se}
    if mover is not None:
        counts = mover_counts_rows(gold, cheap_gold, cheap_rest)
        out["low"], out["high"] = mover_limits((mover, n, m, out["lam"], *counts.T), est,
                                               confidence)
        # the same rule at lam = 0 (W_0, module docstring): the checked entries' gold-only
        out["w0_low"], out["w0_high"] = mover_limits(
            (mover, n, m, np.zeros(est.shape), *counts.T), gold_mean, confidence)
        out["se"] = out["df"] = np.full(est.shape, np.nan)
        out["mover_counts"] = counts
    return out


# ----------------------------------------------------------------------------- checked entries
def _ppi_iv(gold, cheap_gold, cheap_rest, confidence, method):
    gold = checks.values("gold", gold, min_n=MIN_GOLD)
    cheap_gold = checks.values("cheap_gold", cheap_gold, min_n=MIN_GOLD)
    cheap_rest = checks.values("cheap_rest", cheap_rest, min_n=2)
    checks.same_length(gold=gold, cheap_gold=cheap_gold)
    return (gold, cheap_gold, cheap_rest, checks.confidence(confidence),
            checks.choice("method", method, PPI_METHODS))


def _p_value(est: float, se: float, df: float) -> float:
    if se == 0 or not math.isfinite(se):
        return 1.0 if est == 0 else 0.0
    z = abs(est) / se
    if math.isinf(df):
        return min(1.0, math.erfc(z / math.sqrt(2)))
    from scipy.special import stdtr
    return float(min(1.0, 2 * stdtr(df, -z)))


def _correlation(x: np.ndarray, y: np.ndarray) -> float | None:
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return None
    return float(np.corrcoef(x, y)[0, 1])


def whole_valued(*arrays) -> bool:
    """True when every value of every array is a whole number (0/1 outcomes and their
    differences): the data on which ``ppi_rows`` adds ``PSEUDO`` disagreements."""
    return all(bool(np.all(a == np.round(a))) for a in arrays)


def _rule(gold, cheap_gold, cheap_rest, method: str, paired: bool) -> str | None:
    """The interval rule of method "t" on these values: a ``MOVER_KINDS`` kind on 0/1 data
    (a mean: every value 0 or 1; B − A: every value -1, 0 or 1), "pseudo" on other
    whole-valued data (the pseudo cases of the module docstring), None otherwise."""
    if method != "t" or not whole_valued(gold, cheap_gold, cheap_rest):
        return None
    values = np.concatenate([gold, cheap_gold, cheap_rest])
    if paired and np.all(np.abs(values) <= 1):
        return "difference"
    return "mean" if not paired and np.all((values == 0) | (values == 1)) else "pseudo"


def _estimate(gold, cheap_gold, cheap_rest, confidence, method, lam,
              paired: bool = False) -> PPIEstimate:
    rule = _rule(gold, cheap_gold, cheap_rest, method, paired)
    kind = rule if rule in MOVER_KINDS else None
    r = ppi_rows(gold[None], cheap_gold[None], cheap_rest[None], confidence=confidence,
                 method=method, lam=lam, pseudo=PSEUDO if rule == "pseudo" else 0.0,
                 plus=0.0 if rule is None else PLUS, mover=kind)
    est, se, df = float(r["estimate"][0]), float(r["se"][0]), float(r["df"][0])
    low, high = float(r["low"][0]), float(r["high"][0])
    n, lam_ = int(gold.size), float(r["lam"][0])
    gold_se = float(r["gold_se"][0])
    gold_low, gold_high = float(r["gold_low"][0]), float(r["gold_high"][0])
    mover = ()
    if kind is None:
        eff = n if se == 0 or gold_se == 0 else n * gold_se ** 2 / se ** 2
    else:
        # the interval from the stored counts (the same path as ``interval_at``); gold-only
        # and the gain from the same rule at lam = 0, W_0 (a MOVER interval has no single
        # standard error; module docstring)
        mover = (kind, n, int(cheap_rest.size), lam_,
                 *(float(c) for c in r["mover_counts"][0]))
        lo, hi = mover_limits(mover, est, confidence)
        low, high = float(lo[0]), float(hi[0])
        lo0, hi0 = mover_limits((*mover[:3], 0.0, *mover[4:]), float(gold.mean()), confidence)
        gold_low, gold_high = float(lo0[0]), float(hi0[0])    # shown as gold-only: W_0
        width, width0 = high - low, gold_high - gold_low
        eff = n if width <= 0 or width0 <= 0 else n * (width0 / width) ** 2
    e = PPIEstimate(
        estimate=est, ci_low=low, ci_high=high, se=se, df=df,
        p_value=_p_value(est, se, df) if not mover else math.nan, lam=lam_,
        correlation=_correlation(gold, cheap_gold), n_gold=n,
        n_cheap=int(gold.size + cheap_rest.size), effective_n=float(eff),
        gold_only_estimate=float(r["gold_estimate"][0]), gold_only_low=gold_low,
        gold_only_high=gold_high, method=method, confidence=confidence, mover=mover)
    if not mover:
        return e
    return replace(e, p_value=e.inverted(lambda lo, hi: lo > 0 or hi < 0,
                                         low > 0 or high < 0))


def ppi_mean(gold, cheap_gold, cheap_rest, *, confidence: float = 0.95, method: str = "t",
             lam: float | None = None) -> PPIEstimate:
    """One method's prediction-powered mean: ``gold`` (its scores with gold labels on n
    cases), ``cheap_gold`` (with cheap labels on the same n cases, same order) and
    ``cheap_rest`` (with cheap labels on the M other cases). PPI++ with the power-tuned lam
    (``lam`` None) or a fixed one; interval ``method`` "t" (the small-sample default) or "z"
    (``ppi_py.ppi_mean_ci``); "t" on 0/1 outcomes is the Jeffreys MOVER 2 interval (module
    docstring). ``effective_n`` = n * se_gold^2 / se_ppi^2: the number of gold cases a
    gold-only mean would need for the same standard error ("worth about N gold cases"; for
    the MOVER interval n (W_0 / PPI width)^2, W_0 its width at lam = 0)."""
    gold, cheap_gold, cheap_rest, confidence, method = _ppi_iv(
        gold, cheap_gold, cheap_rest, confidence, method)
    if lam is not None:
        lam = checks.between("lam", lam, 0.0, 1.0)
    return _estimate(gold, cheap_gold, cheap_rest, confidence, method, lam)


def ppi_difference(gold_a, gold_b, cheap_gold_a, cheap_gold_b, cheap_rest_a, cheap_rest_b, *,
                   confidence: float = 0.95, method: str = "t") -> PPIEstimate:
    """The prediction-powered B − A: PPI++ (``ppi_mean``) of the per-case difference, gold
    B − A on the n gold cases against cheap B − A on the same cases and on the M others. A
    bias of the cheap labels that differs between A and B is a bias of the cheap difference,
    and the rectifier (gold − lam cheap on the gold cases) removes it. 0/1 outcomes (every
    difference -1, 0 or 1), method "t": the Jeffreys MOVER 2 interval with Tango's parts
    (module docstring)."""
    ga, gb = checks.pair(gold_a, gold_b, min_n=MIN_GOLD)
    ca, cb = checks.pair(cheap_gold_a, cheap_gold_b, min_n=MIN_GOLD)
    ra, rb = checks.pair(cheap_rest_a, cheap_rest_b, min_n=2)
    gold, cheap_gold, cheap_rest, confidence, method = _ppi_iv(
        gb - ga, cb - ca, rb - ra, confidence, method)
    return _estimate(gold, cheap_gold, cheap_rest, confidence, method, None, paired=True)


def gold_cases_needed(gold_only_n, n_cheap, correlation) -> int:
    """Gold cases that, with ``n_cheap`` cheap-labelled cases without gold labels at gold–cheap
    correlation rho, give the standard error ``gold_only_n`` gold cases give alone. With the
    optimal lam, PPI++'s variance is (sigma^2 / n) (1 - rho^2 M / (M + n)) (Angelopoulos,
    Duchi & Zrnic 2023, Sec. 6), so n solves n (M + n) = n0 (M + n - rho^2 M):

        n = [-(M - n0) + sqrt((M - n0)^2 + 4 n0 M (1 - rho^2))] / 2,

    rounded up; never more than n0, never fewer than ``MIN_GOLD``."""
    n0 = checks.whole("gold_only_n", gold_only_n, lo=1)
    m = checks.whole("n_cheap", n_cheap, lo=0)
    rho = checks.between("correlation", correlation, -1.0, 1.0)
    if m == 0:
        return n0
    n = (-(m - n0) + math.sqrt((m - n0) ** 2 + 4 * n0 * m * (1 - rho ** 2))) / 2
    return int(min(n0, max(MIN_GOLD, math.ceil(n - 1e-9))))
