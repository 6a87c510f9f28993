"""The verdict and the one call behind the golden-case page.

The difference is always B - A (new minus baseline), computed once in ``core.paired.stats``.
``decide`` says "better" only when the bootstrap CI of B - A (``core.paired.stats``) excludes 0 *and*
the matching exact test (``core.paired.significance``) has p < 1 - confidence *and*, when a
self-check on the user's own data warns (``core.paired.calibration``), its survival test agrees. ``compare_paired``
gives the rates, the paired bootstrap, the tests and that verdict for two aligned vectors.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from core import checks
from core.paired.calibration import Calibration, calibrate_comparison
from core.paired.intervals import is_resampled, wilson_bounds, z_of
from core.paired.significance import (PairedTest, cohens_dz, difference_test, mcnemar_exact,
                                      paired_ttest_p)
from core.paired.method_intervals import mean_intervals_of
from core.paired.difference import PairedData, bootstrap_difference, paired_data
from core.paired.intervals import check_interval, interval_warning
from core.paired.method_intervals import RateEstimate
from core.paired.resampling import BootstrapResult
from core.paired.stats import Verdict, alpha_of, is_binary, significance_level, verdict

REASONS = ("ci_includes_zero", "too_few_discordant", "too_few_nonzero", "test_disagrees",
           "fails_self_check", "withheld_self_check")


@dataclass(frozen=True)
class Decision:
    """The verdict and, when it is ``no_difference``, why (``reason``, one of ``REASONS``):

    - ``too_few_discordant`` / ``too_few_nonzero``: with m discordant pairs (binary) or m
      non-zero differences (scores) the exact test's smallest possible p, 2 (1/2)^m, is not
      below alpha: no data this small can show a difference;
    - ``ci_includes_zero``: the CI of B - A contains 0;
    - ``test_disagrees``: the CI excludes 0 but the exact test's p is not below alpha;
    - ``fails_self_check``: CI and test agree, but a self-check on the user's own data
      (``core.paired.calibration``) warns (``Calibration.warns``: the interval leaves out 0 in its
      null sets clearly more often than at the same n where it holds) and the test that holds its level there (``Calibration.survival_test``) gives
      p >= alpha;
    - ``withheld_self_check``: CI and test agree, but the self-check's figure reads at or
      above its stated level (``Calibration.withholds``: twice the promise, 10% at 95%): on
      data shaped like these, at this n, the interval cannot keep its promise, so the card
      says it cannot tell rather than "better" beside that figure (issue 36).
    """

    verdict: Verdict
    reason: str | None
    test: str
    p: float
    min_p: float
    nonzero: int
    alpha: float
    exact: bool
    survival_test: str | None = None   # set when a self-check's survival test decided
    survival_p: float | None = None
    self_check_rate: float | None = None   # the self-check's rate then (Calibration.shown)
    self_check_n: int | None = None        # the cases it was measured on (Calibration.n)

    def to_dict(self) -> dict:
        return {"verdict": self.verdict, "reason": self.reason, "test": self.test,
                "p": self.p, "min_p": self.min_p, "nonzero": self.nonzero,
                "alpha": self.alpha, "exact": self.exact, "survival_test": self.survival_test,
                "survival_p": self.survival_p, "self_check_rate": self.self_check_rate,
                "self_check_n": self.self_check_n}


def decide(ci_low: float, ci_high: float, test: PairedTest, confidence: float,
           calibration=None) -> Decision:
    """"Better" only when the CI of B - A excludes 0 AND the matching test (mid-p McNemar for
    binary outcomes, sign-flip randomization for scores) has p < alpha: the one rule,
    ``core.paired.stats.verdict`` with the test's p; this adds the reason (see ``Decision``) when it
    says ``no_difference``.

    ``calibration``: the comparison's self-checks (``core.paired.calibration.Calibration``), or a
    function returning them (called only when the rule above says "better", so a verdict of
    no difference never pays for them), or None. When their figure reads at or above the
    stated level (``Calibration.withholds``) "better" becomes ``no_difference`` with the
    reason ``withheld_self_check``; else when they warn and the survival test's p is not below alpha (``Calibration.survives``), with the reason
    ``fails_self_check``."""
    checks.instance("test", test, PairedTest)
    return _decide(ci_low, ci_high, test, significance_level(confidence), calibration)


def _decide(ci_low: float, ci_high: float, test: PairedTest, alpha: float,
            calibration) -> Decision:
    """``decide`` at the test level ``alpha`` of a checked confidence."""
    final = verdict(ci_low, ci_high, test.p, alpha=alpha)
    reason = None
    survival = (None, None, None, None)
    if final != "no_difference" and calibration is not None:
        cal = calibration() if callable(calibration) else calibration
        if cal is not None and cal.withholds:
            survival = (None, None, cal.shown, cal.n)
            final, reason = "no_difference", "withheld_self_check"
        elif cal is not None and cal.needs_survival:
            survival = (cal.survival_test, cal.survival_p, cal.shown, cal.n)
            if not cal.survives:
                final, reason = "no_difference", "fails_self_check"
    if final == "no_difference" and reason is None:
        if test.min_p >= alpha:
            reason = "too_few_discordant" if test.name == "mcnemar" else "too_few_nonzero"
        elif verdict(ci_low, ci_high) == "no_difference":
            reason = "ci_includes_zero"
        else:
            reason = "test_disagrees"
    return Decision(final, reason, test.name, test.p, test.min_p, test.nonzero, alpha,
                    test.exact, *survival)


def settle(bootstrap: BootstrapResult, test: PairedTest, data: PairedData, *,
           self_check: bool = True) -> tuple[Calibration | None, Decision]:
    """The self-check (``core.paired.calibration.calibrate_comparison``) and the decision
    (``decide``) of a paired comparison, computed once inside the call that builds it: the
    result keeps both as fields, so a page's ``st.cache_data`` pickles them with it and a rerun
    never recomputes them (``bench/bench_rerun.py``).

    ``self_check=False`` (a verdict only: per group, per subset size, per judged reading): the
    self-check runs only when the decision needs it (a "better", as ``decide`` does) and is kept
    when it ran, else None. The caller checked its arguments."""
    alpha = alpha_of(bootstrap.confidence)
    if self_check:
        calibration = calibrate_comparison(bootstrap, data)
        return calibration, _decide(bootstrap.ci_low, bootstrap.ci_high, test, alpha,
                                    calibration)
    ran = []

    def on_demand():
        ran.append(calibrate_comparison(bootstrap, data))
        return ran[-1]

    decision = _decide(bootstrap.ci_low, bootstrap.ci_high, test, alpha, on_demand)
    return (ran[-1] if ran else None), decision


# ----------------------------------------------------------------------------- one call
TIE_TOL = 1e-12   # |B - A| at or below this is a tie (float noise of equal scores)


@dataclass(frozen=True)
class PairedComparison:
    """The one result of a paired comparison of methods A and B on the same cases, B − A (new
    minus baseline), for every surface: a golden file, ranked lists, TREC runs
    (``compare_paired``) and the scifact retrievers (``core.retrieval.compare_retrievers``,
    which calls ``compare_paired`` with ``rates=False``). The decision and the self-check
    are fields, set once where it was made (``settle``); ``to_dict`` is the JSON
    ``difference`` block.

    ``rate_a``/``rate_b`` (each method's own interval), ``randomization_p`` (the exact McNemar
    p for 0/1), ``ttest_p``, ``cohens_dz`` are None when the caller asked for the verdict's
    test alone (``rates=False``); ``mcnemar_p`` is None for scores. ``case_ids`` name the
    cases (empty when compared from bare vectors), ``metric`` the measure compared (None for
    a golden file's outcomes), ``hits`` the Hit@10 overlap of two retrievers (scifact)."""

    a: str
    b: str
    binary: bool
    bootstrap: BootstrapResult
    test: PairedTest              # the test the verdict needs (mid-p McNemar / sign flip)
    data: PairedData = field(repr=False, compare=False)   # A's and B's values, checked once
    # How often the displayed interval leaves out 0 on null sets built from these very
    # differences (``calibrate_comparison``; None when the data are too large to repeat it or
    # it was not needed), and the decision: both computed where the comparison is (``settle``).
    calibration: Calibration | None = field(default=None, repr=False, compare=False)
    decision: Decision | None = None
    rate_a: RateEstimate | None = None
    rate_b: RateEstimate | None = None
    mcnemar_p: float | None = None
    randomization_p: float | None = None
    ttest_p: float | None = None
    cohens_dz: float | None = None
    case_ids: tuple[str, ...] = field(default=(), repr=False)
    metric: str | None = None
    hits: dict | None = None      # {"a_only", "b_only", "both", "neither"}: Hit@10 overlap

    @property
    def verdict(self) -> Verdict:
        """The decision's verdict."""
        return self.decision.verdict

    @property
    def interval_warning(self) -> str | None:
        """``"bca_small_n"`` when BCa is shown on fewer than 50 cases (``interval_warning``)."""
        return interval_warning(self.bootstrap.interval, self.n)

    @property
    def n(self) -> int:
        return self.data.n

    @property
    def table(self) -> tuple[int, int, int, int] | None:
        """(both, a_only, b_only, neither) of 0/1 outcomes, else None."""
        return self.data.table

    @property
    def a_values(self) -> np.ndarray:
        return self.data.a

    @property
    def b_values(self) -> np.ndarray:
        return self.data.b

    @property
    def diff(self) -> np.ndarray:
        """B - A per case (new minus baseline)."""
        return self.data.d

    @property
    def mean_a(self) -> float:
        return float(self.data.a.mean())

    @property
    def mean_b(self) -> float:
        return float(self.data.b.mean())

    @property
    def a_wins(self) -> int:
        return int(np.sum(self.diff < -TIE_TOL))

    @property
    def b_wins(self) -> int:
        return int(np.sum(self.diff > TIE_TOL))

    @property
    def ties(self) -> int:
        return self.n - self.a_wins - self.b_wins

    @property
    def discordance(self) -> float | None:
        """Share of cases where A and B disagree (binary only)."""
        if self.table is None:
            return None
        return (self.table[1] + self.table[2]) / self.n

    def to_dict(self) -> dict:
        """The JSON ``difference`` block: B - A (new minus baseline) with its CI (of B - A) and
        the tests."""
        bs = self.bootstrap
        return {"a": self.a, "b": self.b, "b_minus_a": bs.mean, "ci_low": bs.ci_low,
                "ci_high": bs.ci_high, "confidence": bs.confidence, "resamples": bs.resamples,
                "seed": bs.seed, **interval_provenance(bs),
                "mcnemar_midp": self.mcnemar_p,
                "mcnemar_exact": self.randomization_p if self.binary else None,
                "mcnemar_p": self.mcnemar_p,   # = mcnemar_midp; kept for one release (CHANGELOG)
                "randomization_p": self.randomization_p, "ttest_p": self.ttest_p,
                "discordance": self.discordance, "cohens_dz": self.cohens_dz,
                "table": (dict(zip(("both", "a_only", "b_only", "neither"), self.table))
                          if self.table else None),
                "degenerate": bs.degenerate,
                "distinct_resamples": bs.distinct,
                "randomization_exact": self.test.exact,
                "interval_warning": self.interval_warning,
                "calibration": None if self.calibration is None else self.calibration.to_dict(),
                "decision": self.decision.to_dict()}


def interval_provenance(bs: BootstrapResult) -> dict:
    """What produced the interval of B - A, for JSON: ``interval`` (its name),
    ``interval_resampled`` (``core.paired.intervals.resampled``: False for a closed form such as
    Tango's), ``interval_resamples`` (the bootstrap resamples the interval was read off;
    0 for a closed form, whose ``resamples`` drew only the chart's bootstrap distribution) and,
    for scores only (0/1 tables have no skew guard), ``interval_skew_guard`` (the skew guard
    of the interval of B - A moved an end, ``BootstrapResult.skew_guard``, issue 36), and
    ``interval_reaches_zero`` (true, present only then: the interval was widened to reach 0
    because too few cases differ for any exact test, ``BootstrapResult.reaches_zero``)."""
    used = is_resampled(bs.interval)
    out = {"interval": bs.interval, "interval_resampled": used,
           "interval_resamples": bs.resamples if used else 0}
    if bs.method == "resample":
        out["interval_skew_guard"] = bs.skew_guard
    if bs.reaches_zero:
        out["interval_reaches_zero"] = True
    return out


def rate_estimate(values, *, confidence: float = 0.95, resamples: int = 20_000,
                  seed: int = 0, binary: bool | None = None) -> RateEstimate:
    """A method's rate with a Wilson interval (binary) or its mean score with the calibrated
    t-interval (``core.paired.method_intervals.mean_intervals``, the same interval ``compare_paired`` gives)."""
    x = checks.values("values", values)
    resamples, confidence, seed = checks.bootstrap_iv(resamples, confidence, seed)
    if binary is None:
        binary = is_binary(x)
    if binary:
        k = int(x.sum())   # checked above: the Wilson bounds of wilson_interval, no check again
        lo, hi, _ = wilson_bounds(k, x.size, z_of(confidence))
        return RateEstimate(x.size, k / x.size, float(lo), float(hi), "wilson", k)
    return _score_rates(x[None, :], confidence, resamples, seed)[0]


def _score_rates(x: np.ndarray, confidence: float, resamples: int,
                 seed: int) -> list[RateEstimate]:
    """One ``RateEstimate`` per row of ``x`` (methods x cases) with ``mean_intervals``."""
    lo, hi, drawn = mean_intervals_of(x, confidence, resamples, seed)
    return [RateEstimate(x.shape[1], float(row.mean()), float(l), float(h), "calibrated_t",
                         resamples=drawn) for row, l, h in zip(x, lo, hi)]


def compare_paired(a, b, *, name_a: str = "A", name_b: str = "B", resamples: int = 20_000,
                   confidence: float = 0.95, seed: int = 0, interval: str = "auto",
                   self_check: bool = True, detail: bool = True, case_ids=(),
                   metric: str | None = None) -> PairedComparison:
    """Rates, the paired bootstrap of B - A with its CI, the paired tests and the verdict
    (``decide``), for two aligned vectors.

    The arguments are checked once, here (``core.paired.difference.paired_data`` finds the kind and the
    2x2 table in one pass); the helpers below trust them. Binary data when both vectors are
    0/1: Wilson intervals of the rates, the cell bootstrap, the mid-p McNemar test, and by
    default Tango's interval of B - A. Otherwise continuous: the paired bootstrap of B - A
    (``core.paired.difference.bootstrap_difference``, the same numbers as ``paired_bootstrap`` with this
    seed: one compiled pass gives each resample's mean and, for the default calibrated t, its
    SD), each method's mean with the calibrated t-interval (``core.paired.method_intervals.mean_intervals``), the
    sign-flip test, the paired t-test and Cohen's d_z. ``interval`` (one of
    ``core.paired.intervals.INTERVALS``) applies to the CI of B - A; the rates keep Wilson (0/1) and the
    calibrated t (scores). The self-check and the decision are computed here and kept as fields
    (``settle``; ``self_check=False`` when only the verdict is wanted). ``detail=False``: the
    verdict's test alone, without each method's interval, the exact McNemar p, the t-test and
    d_z (the scifact comparison shows the means and that one test). ``case_ids`` (one per
    case) and ``metric`` are kept in the result as given.
    """
    data = paired_data(a, b, min_n=2)
    resamples, confidence, seed = checks.bootstrap_iv(resamples, confidence, seed)
    interval = check_interval(interval)
    checks.instance("self_check", self_check, bool)
    checks.instance("detail", detail, bool)
    case_ids = tuple(case_ids)
    if case_ids and len(case_ids) != data.n:
        raise ValueError(f"case_ids has {len(case_ids)} ids for {data.n} cases")
    return compare_checked(data, name_a=name_a, name_b=name_b, resamples=resamples,
                           confidence=confidence, seed=seed, interval=interval,
                           self_check=self_check, detail=detail, case_ids=case_ids,
                           metric=metric)


def compare_checked(data: PairedData, *, name_a: str = "A", name_b: str = "B",
                    resamples: int, confidence: float, seed: int, interval: str,
                    self_check: bool = True, detail: bool = True, case_ids: tuple = (),
                    metric: str | None = None) -> PairedComparison:
    """``compare_paired`` of a checked ``PairedData`` (``paired_data(a, b, min_n=2)``) with
    resamples, confidence, seed and interval the caller checked (``checks.bootstrap_iv``,
    ``check_interval``) and ``case_ids`` a tuple of ``data.n`` ids or empty: the same result,
    nothing checked again (the per-group and per-reading comparisons of
    ``core.inputs.groups`` and ``core.inputs.judged``)."""
    bs = bootstrap_difference(data, resamples=resamples, confidence=confidence, seed=seed,
                              interval=interval)
    test = (difference_test(data) if data.binary else
            difference_test(data, resamples=resamples, seed=seed, alpha=alpha_of(confidence)))
    calibration, decision = settle(bs, test, data, self_check=self_check)
    out = dict(a=name_a, b=name_b, binary=data.binary, bootstrap=bs, test=test, data=data,
               calibration=calibration, decision=decision, case_ids=case_ids, metric=metric)
    if data.binary:
        out["mcnemar_p"] = test.p
    if not detail:
        return PairedComparison(**out)
    if data.binary:
        both, a_only, b_only, _ = data.table
        z = z_of(confidence)
        rates = []
        for k in (both + a_only, both + b_only):
            lo, hi, _ = wilson_bounds(k, data.n, z)
            rates.append(RateEstimate(data.n, k / data.n, float(lo), float(hi), "wilson", k))
        # the sign-flip randomization p of 0/1 differences is the exact McNemar p
        return PairedComparison(**out, rate_a=rates[0], rate_b=rates[1],
                                randomization_p=mcnemar_exact(a_only, b_only))
    rate_a, rate_b = _score_rates(np.vstack((data.a, data.b)), confidence, resamples, seed)
    return PairedComparison(**out, rate_a=rate_a, rate_b=rate_b, randomization_p=test.p,
                            ttest_p=paired_ttest_p(data.a, data.b),
                            cohens_dz=cohens_dz(data.a, data.b))
