"""Three or more systems: every pair (or each against a baseline), adjusted for many tests.

For each pair (A, B) on the cases where both have a value: the paired percentile bootstrap
CI of mean(B - A), new minus baseline (Efron & Tibshirani 1993, ch. 13;
``core.paired.stats.paired_bootstrap``) and the two-sided paired randomization p-value
(``core.paired.significance.randomization_p``). With m pairs, the p-values are adjusted by Holm–Bonferroni (Holm 1979, "A simple sequentially rejective
multiple test procedure", Scand. J. Statist. 6:65-70): sort p_(1) <= ... <= p_(m), then

    p_holm_(i) = max_{j <= i} min(1, (m - j + 1) * p_(j)),

which controls the family-wise error rate at alpha = 1 - confidence (the chance of even one
false "better" among all pairs). ``correction="bh"`` adjusts by Benjamini–Hochberg instead
(Benjamini & Hochberg 1995, "Controlling the false discovery rate", J. R. Stat. Soc. B
57:289-300):

    p_bh_(i) = min_{j >= i} min(1, m p_(j) / j),

which controls the false discovery rate (the expected share of false ones among the pairs
called different) for independent or positively dependent tests; Otero, Parapar & Barreiro
(ECIR 2025) find BH with a paired test keeps its nominal error and has the most power when
many IR systems are compared. ``p_holm`` is always Holm's; ``p_adjusted`` is the chosen
correction's, and a pair is *significant* when p_adjusted < alpha; its verdict is then
``b_better`` or ``a_better`` by the
sign of the mean difference B - A, provided the pair's CI also excludes 0 on that side (as in
``core.paired.compare.decide``: a verdict never contradicts its own CI), else ``no_difference``.

That CI is adjusted to the level the verdicts are read at (issue 37: an unadjusted interval
that left out 0 stood beside a "no clear difference" read off the adjusted p). With m pairs
and alpha = 1 - confidence, each pair's interval (``adj_ci_low``, ``adj_ci_high``) is the
same interval of B - A at the per-pair level ``adjusted_confidence``:

* Holm: 1 - alpha / m, the Bonferroni intervals, which hold all together with probability
  >= 1 - alpha, the family-wise guarantee Holm's test gives (Holm 1979 has no interval of its
  own that is not degenerate; Strassburger & Bretz 2008, Stat. Med. 27:4914-4927);
* Benjamini–Hochberg: 1 - R alpha / m with R the number of pairs BH calls different (at
  least 1), the false-coverage-rate adjusted intervals of Benjamini & Yekutieli 2005
  ("False discovery rate-adjusted multiple confidence intervals for selected parameters",
  JASA 100:71-81): among the pairs called different, the expected share whose interval
  misses the truth is at most alpha.

A pair is then called different only when that adjusted interval also leaves out 0 on the
side of its mean, so a "no difference" never stands beside an interval that leaves out 0
without the adjusted test being the reason. ``ci_low``/``ci_high`` stay the pair's own
``confidence`` interval (JSON keys unchanged). The p-value is the paired exact test of
``core.paired.significance.paired_test`` (exact McNemar for 0/1 outcomes; sign-flip
randomization, exact
up to 20 non-zero differences).

Effect sizes: paired Cohen's d_z of B - A (``core.paired.significance.cohens_dz``) and B's
win/tie/loss counts (cases where B - A is above, at or below 0). Against a baseline, the
baseline is A of every pair and the other system B, so B - A reads "system minus baseline".
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field

import numpy as np

from core import checks
from core.errors import InputError
from core.paired.significance import cohens_dz, randomization_p_of
from core.paired.difference import bootstrap_difference, interval_of_difference, paired_data
from core.paired.intervals import check_interval

MODES = ("all", "baseline")
CORRECTIONS = ("holm", "bh")  # Holm: family-wise error; Benjamini–Hochberg: false discovery rate

# Cost before work. One pair costs a paired bootstrap plus a randomization test: about
# cases x resamples draws each, plus a fixed overhead (~15 ms at 40 cases, bench/bench_multi.py).
# MAX_PAIRS bounds the overhead, MAX_WORK (pairs x cases x resamples) the draws; together
# they keep a comparison of many systems to seconds of CPU and a few MB of memory.
MAX_PAIRS = 1_000
MAX_WORK = 10_000_000_000


@dataclass(frozen=True)
class Cost:
    """What comparing ``systems`` on ``cases`` with ``resamples`` costs in ``mode``:
    ``pairs`` compared and ``work`` = pairs x cases x resamples, against the limits."""

    systems: int
    cases: int
    resamples: int
    mode: str
    pairs: int
    work: int

    @property
    def fits(self) -> bool:
        return self.pairs <= MAX_PAIRS and self.work <= MAX_WORK

    def params(self) -> dict:
        """The numbers a refusal names (formatted for messages)."""
        return {"systems": f"{self.systems:,}", "pairs": f"{self.pairs:,}",
                "cases": f"{self.cases:,}", "resamples": f"{self.resamples:,}",
                "max_pairs": f"{MAX_PAIRS:,}", "work": f"{self.work:,}",
                "max_work": f"{MAX_WORK:,}"}


def score_table(scores) -> tuple[tuple[str, ...], tuple[str, ...], np.ndarray]:
    """The cases x systems table of ``core.paired.multi.compare_many`` and
    ``core.paired.best.best_set``, checked once at their door: a pandas DataFrame (index: case
    ids, one column per system) or its pandas-free form, an object with ``ids``, ``methods``
    and a numpy ``values`` array of cases x methods (``core.inputs.golden_cases.CaseScores``,
    which ``GoldenSet.cases`` gives: the CLI hands it over, so a comparison of three or more
    systems never imports pandas). Returns (the case ids and the system names as text, the
    values as a float array, NaN where a system has no value, in the memory layout the
    frame's ``to_numpy`` gives). Anything else raises ``ValueError`` naming ``scores``."""
    pd = sys.modules.get("pandas")  # a DataFrame exists only once pandas has been imported
    if pd is not None and isinstance(scores, pd.DataFrame):
        return (tuple(str(x) for x in scores.index), tuple(str(c) for c in scores.columns),
                scores.to_numpy(float))
    values = getattr(scores, "values", None)
    if (isinstance(values, np.ndarray) and values.ndim == 2 and hasattr(scores, "ids")
            and hasattr(scores, "methods") and values.shape == (len(scores.ids),
                                                               len(scores.methods))):
        # laid out as the object's frame would be (``CaseScores.matrix``): sums add in the
        # same order whichever form the caller handed over
        laid_out = scores.matrix() if hasattr(scores, "matrix") else values
        return (tuple(str(x) for x in scores.ids), tuple(str(c) for c in scores.methods),
                np.asarray(laid_out, dtype=float))
    raise ValueError("scores must be a pandas DataFrame or a CaseScores (cases x systems), "
                     f"got {type(scores).__name__} {scores!r:.60}")


def estimate_cost(systems: int, cases: int, resamples: int, mode: str = "all") -> Cost:
    """Pairs = k(k - 1)/2 for all pairs of k systems, k - 1 against a baseline;
    work = pairs x cases x resamples. Computed before any resampling."""
    checks.whole("systems", systems, lo=0)
    checks.whole("cases", cases, lo=0)
    checks.whole("resamples", resamples, lo=0)
    checks.choice("mode", mode, MODES)
    return cost_of(systems, cases, resamples, mode)


def cost_of(systems: int, cases: int, resamples: int, mode: str) -> Cost:
    """``estimate_cost``'s trusted twin: the same cost of numbers the caller checked
    (``compare_many``, ``core.paired.best.best_set``: validate once, at the door)."""
    pairs = systems * (systems - 1) // 2 if mode == "all" else max(systems - 1, 0)
    return Cost(systems, cases, resamples, mode, pairs, pairs * cases * resamples)


def plan_mode(systems: int, cases: int, resamples: int, mode: str = "all") -> tuple[str, Cost]:
    """The mode to run: ``mode`` when it fits the limits; all pairs that do not fit fall
    back to each system against the baseline when that fits. Returns (mode, its cost);
    the caller says so when the mode changed, and refuses when the cost still does not fit
    (``compare_many`` raises ``too_much_work``)."""
    cost = estimate_cost(systems, cases, resamples, mode)
    if not cost.fits and mode == "all":
        fallback = estimate_cost(systems, cases, resamples, "baseline")
        if fallback.fits:
            return "baseline", fallback
    return mode, cost


def holm(pvalues) -> np.ndarray:
    """Holm–Bonferroni adjusted p-values (Holm 1979), in the input order."""
    p = checks.probabilities("pvalues", pvalues)
    m = p.size
    order = np.argsort(p, kind="stable")
    stepped = np.minimum(1.0, (m - np.arange(m)) * p[order])
    adjusted = np.maximum.accumulate(stepped)
    out = np.empty(m)
    out[order] = adjusted
    return out


def bh(pvalues) -> np.ndarray:
    """Benjamini–Hochberg adjusted p-values (Benjamini & Hochberg 1995), in the input order:
    sort p_(1) <= ... <= p_(m); p_bh_(i) = min_{j >= i} min(1, m p_(j) / j) (statsmodels'
    ``multipletests(method="fdr_bh")``)."""
    p = checks.probabilities("pvalues", pvalues)
    m = p.size
    order = np.argsort(p, kind="stable")
    stepped = np.minimum(1.0, m * p[order] / np.arange(1, m + 1))
    adjusted = np.minimum.accumulate(stepped[::-1])[::-1]
    out = np.empty(m)
    out[order] = adjusted
    return out


ADJUST = {"holm": holm, "bh": bh}


@dataclass(frozen=True)
class PairResult:
    """One pair: ``mean`` = mean(B - A) with its bootstrap CI, raw, Holm-adjusted and
    ``correction``-adjusted p (``p_adjusted``, which the verdict reads), and verdict;
    ``wins``/``ties``/``losses`` count cases where B - A > 0, = 0, < 0."""

    a: str
    b: str
    n: int
    mean: float
    ci_low: float
    ci_high: float
    p: float
    p_holm: float
    significant: bool
    verdict: str
    cohens_dz: float | None
    wins: int
    ties: int
    losses: int
    mean_a: float
    mean_b: float
    p_adjusted: float | None = None  # None: Holm's (the default correction)
    adj_ci_low: float = float("nan")    # the CI at ManyComparison.adjusted_confidence
    adj_ci_high: float = float("nan")

    @property
    def p_adj(self) -> float:
        """The p-value the verdict reads: the chosen correction's."""
        return self.p_holm if self.p_adjusted is None else self.p_adjusted

    def to_dict(self) -> dict:
        return {"a": self.a, "b": self.b, "n": self.n, "b_minus_a": self.mean,
                "ci_low": self.ci_low, "ci_high": self.ci_high, "p": self.p,
                "p_holm": self.p_holm, "p_adjusted": self.p_adj, "significant": self.significant,
                "verdict": self.verdict, "cohens_dz": self.cohens_dz, "wins": self.wins,
                "ties": self.ties, "losses": self.losses, "mean_a": self.mean_a,
                "mean_b": self.mean_b, "ci_low_adjusted": self.adj_ci_low,
                "ci_high_adjusted": self.adj_ci_high}


@dataclass(frozen=True)
class ManyComparison:
    """All compared pairs of several systems on the same cases."""

    systems: tuple[str, ...]
    pairs: tuple[PairResult, ...]
    mode: str
    baseline: str | None
    confidence: float
    resamples: int
    seed: int
    excluded: dict = field(default_factory=dict)  # "a vs b" -> case ids left out (NaN)
    interval: str = "auto"
    correction: str = "holm"
    adjusted_confidence: float | None = None  # the level of adj_ci_low/high (module docstring)

    @property
    def alpha(self) -> float:
        return 1 - self.confidence

    def table(self):
        """One row per pair (sortable, a pandas DataFrame): means, difference B - A
        (``b_minus_a``) and its CI, p, Holm p, the chosen correction's p (``p_adjusted``),
        effect sizes."""
        import pandas as pd

        return pd.DataFrame([p.to_dict() for p in self.pairs],
                            columns=["a", "b", "n", "mean_a", "mean_b", "b_minus_a", "ci_low",
                                     "ci_high", "ci_low_adjusted", "ci_high_adjusted", "p",
                                     "p_holm", "p_adjusted", "significant", "verdict",
                                     "cohens_dz", "wins", "ties", "losses"])

    def matrix(self):
        """Long form for a heatmap (a pandas DataFrame): ``row``, ``col``, ``diff`` =
        mean(row - col), ``p_adjusted`` (the chosen correction's), ``significant``; both
        orientations of every compared pair."""
        import pandas as pd

        rows = []
        for p in self.pairs:
            rows.append({"row": p.b, "col": p.a, "diff": p.mean, "p_adjusted": p.p_adj,
                         "significant": p.significant})
            if self.mode == "all":  # the same pair read the other way round: A - B
                rows.append({"row": p.a, "col": p.b, "diff": -p.mean, "p_adjusted": p.p_adj,
                             "significant": p.significant})
        return pd.DataFrame(rows, columns=["row", "col", "diff", "p_adjusted", "significant"])

    def to_dict(self) -> dict:
        return {"mode": self.mode, "baseline": self.baseline, "adjustment": self.correction,
                "alpha": self.alpha, "confidence": self.confidence,
                "confidence_adjusted": self.adjusted_confidence,
                "resamples": self.resamples, "seed": self.seed, "interval": self.interval,
                "pairs": [p.to_dict() for p in self.pairs]}


def _pairs(systems, mode, baseline):
    if mode == "all":
        return [(systems[i], systems[j]) for i in range(len(systems))
                for j in range(i + 1, len(systems))]
    return [(baseline, s) for s in systems if s != baseline]  # B - A = system - baseline


def compare_many(scores, *, mode: str = "all", baseline: str | None = None,
                 resamples: int = 20_000, confidence: float = 0.95,
                 seed: int = 0, interval: str = "auto",
                 correction: str = "holm") -> ManyComparison:
    """Compare the columns of ``scores`` (cases x systems: a pandas DataFrame or the
    pandas-free ``CaseScores``, ``score_table``) pairwise or against
    ``baseline``.

    Per pair, cases where either value is NaN are left out (listed in ``excluded``); every
    pair uses the same ``seed``, so results are reproducible pair by pair. The cost
    (``estimate_cost``) is checked first: more than ``MAX_PAIRS`` pairs or ``MAX_WORK``
    draws raises ``InputError("too_much_work")`` before anything runs (``plan_mode`` picks
    a mode that fits). ``correction`` (``CORRECTIONS``): ``holm`` (family-wise error) or
    ``bh`` (false discovery rate) adjusts the p-values the verdicts read.
    """
    ids, systems, values = score_table(scores)
    checks.choice("mode", mode, MODES)
    checks.choice("correction", correction, CORRECTIONS)
    resamples, confidence, seed = checks.bootstrap_iv(resamples, confidence, seed)
    interval = check_interval(interval)
    if len(systems) < 2:
        raise InputError("need_two_methods", methods=", ".join(systems))
    if mode == "baseline":
        if baseline is None:
            baseline = systems[0]
        if baseline not in systems:
            raise InputError("unknown_method", method=baseline, methods=", ".join(systems))
    else:
        baseline = None
    cost = cost_of(len(systems), len(ids), resamples, mode)
    if not cost.fits:
        raise InputError("too_much_work", **cost.params())
    kept_pairs, excluded = [], {}
    for a, b in _pairs(systems, mode, baseline):
        av, bv = values[:, systems.index(a)], values[:, systems.index(b)]
        gaps = np.isnan(av) | np.isnan(bv)
        if gaps.any():
            excluded[f"{a} vs {b}"] = [c for c, gap in zip(ids, gaps) if gap]
        if len(av) - int(gaps.sum()) < 2:
            raise InputError("too_few_paired", count=len(av) - int(gaps.sum()), a=a, b=b)
        av, bv = np.ascontiguousarray(av[~gaps]), np.ascontiguousarray(bv[~gaps])
        kept_pairs.append((a, b, av, bv, paired_data(av, bv)))   # each pair checked once
    # checked above: the helpers below trust the pairs, the seed, the resamples, the level
    raw_p = [randomization_p_of(data, resamples, seed) for *_, data in kept_pairs]
    adjusted = holm(raw_p)
    chosen = ADJUST[correction](raw_p)
    alpha = 1 - confidence
    adj_conf = adjusted_confidence(confidence, len(raw_p), correction,
                                   int(np.sum(np.asarray(chosen) < alpha)))
    pairs = []
    for (a, b, av, bv, data), p, ph, pc in zip(kept_pairs, raw_p, adjusted, chosen):
        bs = bootstrap_difference(data, resamples=resamples, confidence=confidence, seed=seed,
                                  interval=interval)
        # the same interval at the verdicts' level, off the same resamples; then only
        # scalars are kept (each pair's distribution would hold pairs x resamples floats)
        adj_low, adj_high, _ = interval_of_difference(data, bs.distribution, adj_conf,
                                                      interval, seed)
        d = bv - av
        mean = bs.mean
        sig = bool(pc < alpha) and mean != 0
        ci_side = adj_low > 0 if mean > 0 else adj_high < 0
        verdict = (("b_better" if mean > 0 else "a_better") if sig and ci_side
                   else "no_difference")
        pairs.append(PairResult(a, b, len(av), mean, bs.ci_low, bs.ci_high, p, float(ph), sig,
                                verdict, cohens_dz(av, bv), int(np.sum(d > 0)),
                                int(np.sum(d == 0)), int(np.sum(d < 0)), float(av.mean()),
                                float(bv.mean()), float(pc), float(adj_low), float(adj_high)))
    return ManyComparison(systems, tuple(pairs), mode, baseline, confidence, resamples,
                          int(seed), excluded, interval, correction, adj_conf)


def adjusted_confidence(confidence: float, m: int, correction: str, selected: int) -> float:
    """The per-pair level of the intervals that go with the verdicts of ``m`` pairs (the
    caller checked the arguments; module docstring): Holm, 1 - alpha / m (Bonferroni);
    Benjamini–Hochberg, 1 - max(R, 1) alpha / m with R = ``selected``, the pairs BH calls
    different (Benjamini & Yekutieli 2005). One pair: ``confidence`` itself."""
    alpha = 1 - confidence
    share = 1 if correction == "holm" else max(selected, 1)
    return 1 - share * alpha / max(m, 1)


def disagreements(scores, a: str, b: str, top: int | None = None, text=None):
    """Cases where A and B differ (pandas DataFrames in and out: ``scores`` cases x methods,
    ``text`` the text columns), with ``difference`` = B - A, largest |B - A| first (ties
    in case order), with any text columns; ``top`` keeps the first rows."""
    import pandas as pd

    for name in (a, b):
        if name not in scores.columns:
            raise InputError("unknown_method", method=name, methods=", ".join(scores.columns))
    sub = scores[[a, b]].dropna()
    d = sub[b] - sub[a]
    df = pd.DataFrame({"case_id": sub.index.astype(str), a: sub[a].to_numpy(),
                       b: sub[b].to_numpy(), "difference": d.to_numpy()})
    df = df[df["difference"] != 0]
    df = df.sort_values("difference", key=np.abs, ascending=False, kind="stable")
    if text is not None and not text.empty:
        extra = text.reindex(df["case_id"]).reset_index(drop=True)
        df = pd.concat([df.reset_index(drop=True), extra], axis=1)
    df = df.reset_index(drop=True)
    return df if top is None else df.head(int(top))
