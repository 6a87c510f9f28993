"""One decision from quality and speed: "can we switch from A to B?" (issue 23, item 2).

Two conditions, each read off a two-sided interval at the same confidence 1 - alpha (so each
is a one-sided test at level alpha/2):

* **quality** (``core.margin.margin_decision``): B is not worse than A by more than the margin
  delta, i.e. the margin verdict is ``non_inferior`` or ``equivalent`` (the lower bound of
  B - A lies above -delta and the matching score or sign-flip test rejects). It *fails* when
  the verdict is ``inferior`` (the upper bound lies below -delta) and is *unsure* otherwise;
* **speed** (``core.latency.compare_latency``): B takes at most ``max_slowdown`` times A's
  time, read on the geometric mean of the per-query ratios B/A and its t-interval on the log
  ratios: it *holds* when the upper bound is at most ``max_slowdown`` (the one-sided t-test
  of H0: ratio >= max_slowdown rejects at alpha/2: the interval is that test inverted), it
  *fails* when the lower bound is above it, and is *unsure* otherwise.

The decision is ``switch`` (exit code 0) when both hold, ``stay`` (1, "do not switch") when
either fails, and ``inconclusive`` (3) otherwise. Switching needs both one-sided tests to
reject, an intersection-union test (Berger 1982, "Multiparameter hypothesis testing and
acceptance sampling", *Technometrics* 24:295-300): the chance of switching when B is in fact
worse by more than delta *or* slower than allowed stays at most alpha/2, with no correction
for testing two conditions.

``Condition.gap`` says by how much a condition misses its limit (0 when it holds): for
quality, how far the bound read lies below -delta (the lower bound when unsure, the upper
bound when it fails); for speed, how far the bound read lies above ``max_slowdown`` (the
upper bound when unsure, the lower bound when it fails). An inconclusive quality condition
carries the next step: the cases needed for 80% power to show non-inferiority at delta
with the data's own discordance or SD (``core.sample_size_margin.cases_needed_noninferiority``).

``decide_switch`` works on comparisons already made; ``decide_files`` reads a golden-case file
(or a retrieval-list CSV, scored per case as on the systems page) and a timing log, checks that both name A and B, and
compares them with the same settings. Pages and the CLI call ``decide_files``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from core import checks
from core.errors import InputError
from core.golden import GoldenComparison, compare_golden, load_golden
from core.latency import LatencyComparison, compare_latency
from core.latency_log import load_timings
from core.latency_resample import DEFAULT_QUANTILE_RESAMPLES
from core.margin import MarginResult, margin_decision, parse_margin
from core.sample_size_margin import MarginCasesNeeded, cases_needed_noninferiority

DECISIONS = ("switch", "stay", "inconclusive")
EXIT_CODES = {"switch": 0, "stay": 1, "inconclusive": 3}
STATES = ("holds", "fails", "unsure")
DEFAULT_MAX_SLOWDOWN = 1.10


@dataclass(frozen=True)
class Condition:
    """One condition of the switch: ``state`` holds / fails / unsure; ``bound`` the interval
    end that decides it (quality: a bound of B - A; speed: a bound of the ratio B/A);
    ``limit`` what it is held against (-delta; ``max_slowdown``); ``gap`` >= 0 how far the
    bound misses the limit (0 when it holds); ``reason`` why a speed condition the interval
    alone would settle is unsure (``SPEED_DOUBTS``), else empty."""

    name: str
    state: str
    bound: float
    limit: float
    gap: float
    reason: str = ""

    @property
    def holds(self) -> bool:
        return self.state == "holds"

    def to_dict(self) -> dict:
        return {"name": self.name, "state": self.state, "holds": self.holds,
                "bound": self.bound, "limit": self.limit, "gap": self.gap,
                "reason": self.reason or None}


@dataclass(frozen=True)
class SwitchDecision:
    """Switch from A (the baseline) to B? See the module docstring."""

    a: str
    b: str
    margin: float
    max_slowdown: float
    confidence: float
    kind: str                      # "rate" (0/1 outcomes) or "score"
    quality: MarginResult
    quality_condition: Condition
    speed_condition: Condition
    ratio: float                   # geometric mean of the per-query ratios B/A
    ratio_low: float
    ratio_high: float
    n_cases: int
    n_queries: int
    decision: str
    next_step: MarginCasesNeeded | None   # quality unsure: cases needed to show it
    quality_source: str = ""
    latency_source: str = ""
    latency_warnings: tuple = ()   # the timing log's fairness warnings (core.latency_fairness)

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.decision]

    @property
    def failing(self) -> tuple[Condition, ...]:
        """The conditions that fail, else those that are unsure, else none."""
        conds = (self.quality_condition, self.speed_condition)
        fails = tuple(c for c in conds if c.state == "fails")
        return fails or tuple(c for c in conds if c.state == "unsure")

    def to_dict(self) -> dict:
        return {"a": self.a, "b": self.b, "decision": self.decision,
                "exit_code": self.exit_code, "margin": self.margin,
                "max_slowdown": self.max_slowdown, "confidence": self.confidence,
                "kind": self.kind,
                "conditions": {"quality": self.quality_condition.to_dict(),
                               "speed": self.speed_condition.to_dict()},
                "quality": self.quality.to_dict(),
                "speed": {"geo_mean_ratio": self.ratio, "ci_low": self.ratio_low,
                          "ci_high": self.ratio_high, "n_queries": self.n_queries},
                "n_cases": self.n_cases,
                "next_step": None if self.next_step is None else {
                    **self.next_step.to_dict(), "url_params": self.next_step.url_params()},
                "sources": {"quality": self.quality_source, "latency": self.latency_source},
                "latency_warnings": [w.to_dict() for w in self.latency_warnings]}


def quality_condition(m: MarginResult) -> Condition:
    """The quality condition from the margin verdict (``core.margin``): holds for
    non_inferior / equivalent, fails for inferior (gap = -delta - upper bound), else unsure
    (gap = -delta - lower bound)."""
    limit = -m.margin
    if m.verdict in ("non_inferior", "equivalent"):
        return Condition("quality", "holds", m.ci_low, limit, 0.0)
    if m.verdict == "inferior":
        return Condition("quality", "fails", m.ci_high, limit, max(limit - m.ci_high, 0.0))
    return Condition("quality", "unsure", m.ci_low, limit, max(limit - m.ci_low, 0.0))


def speed_condition(ci_low: float, ci_high: float, max_slowdown: float) -> Condition:
    """The speed condition from the interval [ci_low, ci_high] of the ratio B/A: holds when
    ci_high <= max_slowdown, fails when ci_low > max_slowdown (gap = ci_low - max), else
    unsure (gap = ci_high - max)."""
    if ci_high <= max_slowdown:
        return Condition("speed", "holds", ci_high, max_slowdown, 0.0)
    if ci_low > max_slowdown:
        return Condition("speed", "fails", ci_low, max_slowdown, ci_low - max_slowdown)
    return Condition("speed", "unsure", ci_high, max_slowdown, ci_high - max_slowdown)


# why the log cannot back a speed verdict its interval would give
SPEED_DOUBTS = ("units_unclear", "order_fixed")


def speed_doubt(latency: LatencyComparison, cond: Condition) -> Condition:
    """The speed condition with what the log's own checks say (``core.latency``): while a
    unit suspicion stands (``latency.verdict == "units_unclear"``) no speed verdict is given;
    when one method always ran second within a query (``latency.pair.fixed``) the order is
    confounded with the method, so a verdict the order could have produced is withheld
    (B second and holding, or A second and failing); the verdict against the order's pull
    stands. Either way the state becomes ``unsure`` with ``reason`` set."""
    if latency.verdict == "units_unclear":
        return Condition("speed", "unsure", cond.bound, cond.limit, cond.gap, "units_unclear")
    pair = latency.pair
    if pair is not None and pair.fixed and cond.state != "unsure":
        favours_b = pair.second == latency.b
        if (cond.state == "holds") == favours_b:
            return Condition("speed", "unsure", cond.bound, cond.limit, cond.gap, "order_fixed")
    return cond


def combine(quality: Condition, speed: Condition) -> str:
    """``switch`` when both hold, ``stay`` when either fails, else ``inconclusive``."""
    if quality.state == "fails" or speed.state == "fails":
        return "stay"
    if quality.holds and speed.holds:
        return "switch"
    return "inconclusive"


def decide_switch(quality: GoldenComparison, latency: LatencyComparison, margin: float, *,
                  max_slowdown: float = DEFAULT_MAX_SLOWDOWN,
                  power: float = 0.8) -> SwitchDecision:
    """The decision for a quality comparison (``core.golden.compare_golden``) and a latency
    comparison (``core.latency.compare_latency``) of the same A and B at the same confidence,
    with the margin delta (0.02 = 2 %p for 0/1 outcomes; score units for scores) and the
    largest slowdown allowed (B/A, e.g. 1.10). ``power`` is that of the next step's plan."""
    quality = checks.instance("quality", quality, GoldenComparison,
                              "a GoldenComparison from core.golden.compare_golden")
    latency = checks.instance("latency", latency, LatencyComparison,
                              "a LatencyComparison from core.latency.compare_latency")
    max_slowdown = checks.positive("max_slowdown", max_slowdown)
    c = quality.comparison
    if (c.a, c.b) != (latency.a, latency.b):
        raise ValueError(f"quality compares {c.a!r} -> {c.b!r} but latency {latency.a!r} -> "
                         f"{latency.b!r}; compare the same A and B")
    if not math.isclose(c.bootstrap.confidence, latency.ratio.confidence, abs_tol=1e-12):
        raise ValueError("quality and latency were compared at different confidence levels")
    m = margin_decision(quality, margin)
    q = quality_condition(m)
    r = latency.ratio
    s = speed_doubt(latency, speed_condition(r.geo_ci_low, r.geo_ci_high, max_slowdown))
    next_step = None
    if q.state == "unsure" and m.margin > 0:
        next_step = cases_needed_noninferiority(quality.a_values, quality.b_values, m.margin,
                                                confidence=m.confidence, power=power)
    return SwitchDecision(c.a, c.b, m.margin, max_slowdown, m.confidence, m.kind, m, q, s,
                          r.geo_mean_ratio, r.geo_ci_low, r.geo_ci_high, quality.n_cases,
                          r.n_queries, combine(q, s), next_step, quality.golden.source,
                          latency.source, tuple(latency.warnings))


def pick_pair(quality_methods, latency_methods, a: str | None, b: str | None, *,
              quality_file: str, latency_file: str) -> tuple[str, str]:
    """A and B: ``a``/``b`` when given, else the first two methods of the quality file (its
    column order). Both must be in both files: a name missing from one raises
    ``InputError("switch_method_missing")`` naming the method, both files and what each
    holds."""
    quality_methods, latency_methods = list(quality_methods), list(latency_methods)
    if a is None or b is None:
        rest = [m for m in quality_methods if m not in (a, b)]
        if len(quality_methods) < 2:
            raise InputError("need_two_methods", file=quality_file,
                             methods=", ".join(quality_methods))
        if a is None and b is None:
            a, b = quality_methods[0], quality_methods[1]
        elif a is None:
            a = rest[0]
        else:
            b = rest[0]
    if a == b:
        raise InputError("same_method", file=quality_file, method=a)
    for name in (a, b):
        for file, methods in ((quality_file, quality_methods), (latency_file, latency_methods)):
            if name not in methods:
                raise InputError("switch_method_missing", file=file, method=name,
                                 quality=quality_file, latency=latency_file,
                                 quality_methods=", ".join(quality_methods),
                                 latency_methods=", ".join(latency_methods))
    return a, b


QUALITY_FORMATS = ("golden", "lists")


def load_quality(data: bytes, file: str, *, quality_format: str = "golden",
                 measure: str | None = None, k: int = 10):
    """The quality file as a ``core.golden.GoldenSet``: a golden-case table (``golden``:
    case_id, then one column per method) or a retrieval-list CSV (``lists``: case_id, query,
    gold_ids, then one column of ranked ids per method, scored by ``measure`` at ``k``,
    default nDCG@10, as ``compare --format lists`` and the systems page do)."""
    quality_format = checks.choice("quality_format", quality_format, QUALITY_FORMATS)
    if quality_format == "golden":
        return load_golden(data, file=file)
    from core.lists import load_lists, metric_key, parse_metric, score_lists
    name, k = parse_metric(measure or "ndcg", k)
    return score_lists(load_lists(data, file=file), k).golden(metric_key(name, k))


def decide_files(quality_data: bytes, quality_file: str, latency_data: bytes,
                 latency_file: str, *, margin: float | str,
                 max_slowdown: float = DEFAULT_MAX_SLOWDOWN, a: str | None = None,
                 b: str | None = None, confidence: float = 0.95, resamples: int = 20_000,
                 seed: int = 0, interval: str = "auto", drop_warmup: int = 0,
                 quantile_resamples: int = DEFAULT_QUANTILE_RESAMPLES,
                 quality_format: str = "golden", measure: str | None = None,
                 k: int = 10) -> SwitchDecision:
    """Read the quality file (``load_quality``: a golden-case table, or retrieval lists with
    ``quality_format="lists"``) and a timing log, pick A and B (``pick_pair``), compare both
    with the same confidence, resamples and seed, and decide (``decide_switch``). A ``margin`` given as text (the CLI's, a URL's) is read by
    ``core.margin.parse_margin`` once the outcomes are known to be 0/1 or scores."""
    gs = load_quality(quality_data, quality_file, quality_format=quality_format,
                      measure=measure, k=k)
    log = load_timings(latency_data, file=latency_file)
    a, b = pick_pair(gs.methods, log.methods, a, b, quality_file=quality_file,
                     latency_file=latency_file)
    quality = compare_golden(gs, a, b, resamples=resamples, confidence=confidence, seed=seed,
                             interval=interval)
    latency = compare_latency(log, a, b, resamples=resamples,
                              quantile_resamples=quantile_resamples, confidence=confidence,
                              seed=seed, drop_warmup=drop_warmup)
    if isinstance(margin, str):
        margin = parse_margin(margin, binary=quality.comparison.binary)
    return decide_switch(quality, latency, margin, max_slowdown=max_slowdown)
