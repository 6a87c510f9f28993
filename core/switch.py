"""One decision from quality and speed: "can we switch from A to B?" (issue 23, item 2).

Two conditions, each read off a two-sided interval at the same confidence 1 - alpha (so each
is a one-sided test at level alpha/2):

* **quality** (``core.paired.margin.margin_decision``): B is not worse than A by more than the margin
  delta, i.e. the margin verdict is ``non_inferior`` or ``equivalent`` (the lower bound of
  B - A lies above -delta and the matching score or sign-flip test rejects). It *fails* when
  the verdict is ``inferior`` (the upper bound lies below -delta) and is *unsure* otherwise;
* **speed** (``core.latency.compare.compare_latency``): B takes at most ``max_slowdown`` times A's
  time, read on the geometric mean of the per-query ratios B/A and its t-interval on the log
  ratios: it *holds* when the upper bound is at most ``max_slowdown`` (the one-sided t-test
  of H0: ratio >= max_slowdown rejects at alpha/2: the interval is that test inverted), it
  *fails* when the lower bound is above it, and is *unsure* otherwise.

* **harm** (only with ``max_harm``, issue 35; ``core.paired.harm``): B hurts at most
  ``max_harm`` of the cases by more than delta_h (the hurt share, its Wilson interval at the
  same confidence): it *holds* when the interval's upper end is at or below ``max_harm``, it
  *fails* when its lower end is above it, and is *unsure* otherwise (bound and gap on the
  share's scale).

The decision is ``switch`` (exit code 0) when every condition holds, ``stay`` (1, "do not switch") when
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
with the data's own discordance or SD (``core.planning.noninferiority.cases_needed_noninferiority``).
An unsure speed condition (its interval alone: not a unit or order doubt) carries one too:
the queries the latency page's plan (``core.latency.plan.LatencyPlan.retarget``) needs for the
interval's upper end to reach ``max_slowdown`` at the observed ratio, i.e. a half-width of
log(max_slowdown / ratio) on the log ratios (none when the ratio is at or above the limit:
more queries would not show it).

``decide_switch`` works on comparisons already made: the quality one is a golden-case
comparison (``core.inputs.systems.compare_golden``) or a retriever comparison
(``core.retrieval.scifact.compare_retrievers``); both go through ``core.paired.margin.margin_decision``.
``decide_files`` reads the quality as a golden-case file, a retrieval-list CSV or TREC runs
with qrels (scored per case or query as on the systems page) and a timing log, checks that
both name A and B, and compares them with the same settings; ``decide_retrievers`` does the
same from the per-query tables of BM25 / dense / hybrid on a BEIR collection
(``core.retrieval.scifact.evaluate``: the scifact page's and ``python -m core scifact``'s). Pages and
the CLI call these two.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from core import checks
from core.errors import InputError
from core.inputs import (GoldenComparison, compare_golden, load_arriving, load_golden,
                         parse_margin)
from core.latency import (DEFAULT_QUANTILE_RESAMPLES, LatencyComparison, LatencyPlan,
                          compare_latency, load_timings)
from core.paired import (Harm, MarginResult, PairedComparison, margin_decision, no_harm,
                         sequential_compare)
from core.planning import MarginCasesNeeded, cases_needed_noninferiority

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
class SpeedNextStep:
    """The next step of an unsure speed condition: ``n_needed`` queries (at the log's runs
    per query; ``n_double_runs`` with twice the runs) for the upper end of the time ratio's
    interval to reach ``max_slowdown`` if the ratio stays at the observed ``ratio``; None
    when ``ratio >= max_slowdown`` (no number of queries would show it). ``plan`` is the
    latency plan retargeted to the half-width needed (``target`` = max_slowdown / ratio - 1)."""

    n_needed: int | None
    n_double_runs: int | None
    n_have: int
    ratio: float
    max_slowdown: float
    plan: LatencyPlan | None

    def to_dict(self) -> dict:
        return {"n_needed": self.n_needed, "n_double_runs": self.n_double_runs,
                "n_have": self.n_have, "ratio": self.ratio, "max_slowdown": self.max_slowdown,
                "plan": None if self.plan is None else self.plan.to_dict()}


def speed_next_step(latency: LatencyComparison, cond: Condition, max_slowdown: float
                    ) -> SpeedNextStep | None:
    """The queries needed to settle an unsure speed condition (see ``SpeedNextStep``): None
    when the condition holds or fails, when a unit or order doubt withholds it (more
    queries would not lift that) or when the log has too few queries to plan
    (``latency.plan`` is None)."""
    if cond.state != "unsure" or cond.reason or latency.plan is None:
        return None
    r = latency.ratio
    if r.geo_mean_ratio >= max_slowdown:
        return SpeedNextStep(None, None, r.n_queries, r.geo_mean_ratio, max_slowdown, None)
    plan = latency.plan.retarget(max_slowdown / r.geo_mean_ratio - 1, r.confidence)
    return SpeedNextStep(plan.n_queries, plan.n_queries_double_runs, r.n_queries,
                         r.geo_mean_ratio, max_slowdown, plan)


QUALITY_SOURCES = ("sequential", "ppi", "ppi_mover")   # QualityFigures.source


@dataclass(frozen=True)
class QualityFigures:
    """B − A as the quality condition read it when that is not the fixed-n margin interval
    (``SwitchDecision.quality``): the confidence sequence's last look (``source``
    "sequential", no p: its ends decide alone) or the prediction-powered interval ("ppi",
    with its one-sided non-inferiority p; "ppi_mover" on 0/1 outcomes, whose p inverts the
    Jeffreys MOVER interval, ``core.paired.ppi``). The card's and the CLI's sentences quote these."""

    source: str
    mean: float
    ci_low: float
    ci_high: float
    p: float | None = None


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
    latency_warnings: tuple = ()   # the timing log's fairness warnings (core.latency.fairness)
    next_step_speed: SpeedNextStep | None = None   # speed unsure: queries needed to show it
    max_harm: float | None = None   # the third condition (issue 35), only when asked for
    harm: Harm | None = None
    harm_condition: Condition | None = None
    # the sequential mode (issue 33, ``decide_sequential``): the confidence sequence of B − A,
    # the order its cases were read in, and the quality condition the fixed-n interval gave
    sequential: object = None
    arrival: object = None
    fixed_quality_condition: Condition | None = None
    # the figures the quality condition was read off (sequential, cheap labels), else None
    quality_used: QualityFigures | None = None

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.decision]

    @property
    def conditions(self) -> tuple[Condition, ...]:
        """quality, speed and, with ``max_harm``, harm."""
        return (self.quality_condition, self.speed_condition) + \
            (() if self.harm_condition is None else (self.harm_condition,))

    @property
    def failing(self) -> tuple[Condition, ...]:
        """The conditions that fail, else those that are unsure, else none."""
        conds = self.conditions
        fails = tuple(c for c in conds if c.state == "fails")
        return fails or tuple(c for c in conds if c.state == "unsure")

    def to_dict(self) -> dict:
        out = self._dict()
        if self.harm_condition is not None:  # only with --max-harm: outputs without it unchanged
            out["max_harm"] = self.max_harm
            out["conditions"]["harm"] = self.harm_condition.to_dict()
            out["harm"] = self.harm.to_dict()
        return out

    def _dict(self) -> dict:
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
                "next_step_speed": None if self.next_step_speed is None
                else self.next_step_speed.to_dict(),
                "sources": {"quality": self.quality_source, "latency": self.latency_source},
                "latency_warnings": [w.to_dict() for w in self.latency_warnings],
                **({} if self.sequential is None else {"sequential": self.sequential_dict()})}

    def sequential_dict(self) -> dict:
        """The JSON ``sequential`` block: the sequence, the order of the cases and the quality
        condition the fixed-n interval would have given."""
        from core.paired import sequential_block  # lazy: the sequential mode
        return {**sequential_block(self.sequential, self.arrival),
                "quality_fixed_n": self.fixed_quality_condition.to_dict()}


def quality_condition(m: MarginResult) -> Condition:
    """The quality condition from the margin verdict (``core.paired.margin``): holds for
    non_inferior / equivalent, fails for inferior (gap = -delta - upper bound), else unsure
    (gap = -delta - lower bound)."""
    limit = -m.margin
    if m.verdict in ("non_inferior", "equivalent"):
        return Condition("quality", "holds", m.ci_low, limit, 0.0)
    if m.verdict == "inferior":
        return Condition("quality", "fails", m.ci_high, limit, max(limit - m.ci_high, 0.0))
    return Condition("quality", "unsure", m.ci_low, limit, max(limit - m.ci_low, 0.0))


def sequential_condition(seq, margin: float) -> Condition:
    """The quality condition read off the confidence sequence of B − A at its last look
    (``core.paired.sequential``): holds when its lower end is above -delta, fails when its
    upper end is below -delta, else unsure. The hedged sequence keeps each side's error at or
    below alpha/2 at every n (Waudby-Smith & Ramdas 2024), the one-sided level of the margin
    verdict, however often the gate ran before."""
    limit = -margin
    last = seq.last
    if last.ci_low > limit:
        return Condition("quality", "holds", last.ci_low, limit, 0.0)
    if last.ci_high < limit:
        return Condition("quality", "fails", last.ci_high, limit, limit - last.ci_high)
    return Condition("quality", "unsure", last.ci_low, limit, max(limit - last.ci_low, 0.0))


def decide_sequential(dec: SwitchDecision, quality, arrival=None) -> SwitchDecision:
    """The same decision with its quality condition read off the confidence sequence of B − A
    (``sequential_condition``; the cases in ``arrival`` order, ``core.inputs.arrival``, else
    as compared): safe for a CI gate that runs on every merge with no state kept between
    runs. The speed condition is unchanged."""
    c = quality.comparison if isinstance(quality, GoldenComparison) else quality
    ids = c.case_ids or None
    order = (arrival.order(ids) if arrival is not None and ids is not None
             else list(range(c.n)))
    seq = sequential_compare(np.asarray(c.a_values, float)[order],
                             np.asarray(c.b_values, float)[order], c.bootstrap.confidence)
    q = sequential_condition(seq, dec.margin)
    last = seq.last
    return dataclasses.replace(dec, quality_condition=q, decision=combine(q, *dec.conditions[1:]),
                               sequential=seq, arrival=arrival,
                               fixed_quality_condition=dec.quality_condition,
                               quality_used=QualityFigures("sequential", last.b_minus_a,
                                                           last.ci_low, last.ci_high))


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
    """The speed condition with what the log's own checks say (``core.latency.compare``): while a
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


def harm_condition(h: Harm, max_harm: float) -> Condition:
    """The harm condition from the hurt share's Wilson interval [low, high]: holds when
    high <= ``max_harm``, fails when low > ``max_harm`` (gap = low - max), else unsure
    (gap = high - max)."""
    low, high = h.hurt_ci
    if high <= max_harm:
        return Condition("harm", "holds", high, max_harm, 0.0)
    if low > max_harm:
        return Condition("harm", "fails", low, max_harm, low - max_harm)
    return Condition("harm", "unsure", high, max_harm, high - max_harm)


def combine(quality: Condition, speed: Condition, *more: Condition) -> str:
    """``switch`` when every condition holds, ``stay`` when any fails, else
    ``inconclusive``."""
    conds = (quality, speed, *more)
    if any(c.state == "fails" for c in conds):
        return "stay"
    if all(c.holds for c in conds):
        return "switch"
    return "inconclusive"


def decide_switch(quality: GoldenComparison | PairedComparison,
                  latency: LatencyComparison, margin: float, *,
                  max_slowdown: float = DEFAULT_MAX_SLOWDOWN, power: float = 0.8,
                  quality_source: str | None = None, max_harm: float | None = None,
                  harm_delta: float | None = None, alpha: float = 2) -> SwitchDecision:
    """The decision for a quality comparison (``core.inputs.systems.compare_golden`` or
    ``core.retrieval.scifact.compare_retrievers``) and a latency comparison
    (``core.latency.compare.compare_latency``) of the same A and B at the same confidence, with the
    margin delta (0.02 = 2 %p for 0/1 outcomes; score units for scores) and the largest
    slowdown allowed (B/A, e.g. 1.10). ``power`` is that of the quality next step's plan;
    ``quality_source`` names the quality data (default: the golden file, or the metric).
    ``max_harm`` (a share in (0, 1)) adds the harm condition: the hurt share of B - A below
    -``harm_delta`` (default: any loss for 0/1 outcomes, 0.05 for scores), with TRisk at
    ``alpha`` reported beside it (``core.paired.harm``)."""
    quality = checks.instance("quality", quality, (GoldenComparison, PairedComparison),
                              "a GoldenComparison (core.inputs.systems.compare_golden) or a "
                              "PairedComparison (core.retrieval.scifact.compare_retrievers)")
    latency = checks.instance("latency", latency, LatencyComparison,
                              "a LatencyComparison from core.latency.compare.compare_latency")
    max_slowdown = checks.max_slowdown(max_slowdown)
    if max_harm is not None:
        max_harm = checks.share("max_harm", max_harm)
    if isinstance(quality, GoldenComparison):
        source, quality = quality.golden.source, quality.comparison
    else:
        source = quality.metric
    a, b, confidence = quality.a, quality.b, quality.bootstrap.confidence
    if (a, b) != (latency.a, latency.b):
        raise ValueError(f"quality compares {a!r} -> {b!r} but latency {latency.a!r} -> "
                         f"{latency.b!r}; compare the same A and B")
    if not math.isclose(confidence, latency.ratio.confidence, abs_tol=1e-12):
        raise ValueError("quality and latency were compared at different confidence levels")
    m = margin_decision(quality, margin)
    q = quality_condition(m)
    r = latency.ratio
    s = speed_doubt(latency, speed_condition(r.geo_ci_low, r.geo_ci_high, max_slowdown))
    next_step = None
    if q.state == "unsure" and m.margin > 0:
        next_step = cases_needed_noninferiority(quality.a_values, quality.b_values, m.margin,
                                                confidence=m.confidence, power=power)
    harm = h = None
    if max_harm is not None:
        harm = no_harm(quality.a_values, quality.b_values, delta=harm_delta, alpha=alpha,
                       confidence=confidence, resamples=quality.bootstrap.resamples,
                       seed=quality.bootstrap.seed)
        h = harm_condition(harm, max_harm)
    return SwitchDecision(a, b, m.margin, max_slowdown, m.confidence, m.kind, m, q, s,
                          r.geo_mean_ratio, r.geo_ci_low, r.geo_ci_high, m.n,
                          r.n_queries, combine(q, s, *(() if h is None else (h,))), next_step,
                          quality_source or source, latency.source, tuple(latency.warnings),
                          speed_next_step(latency, s, max_slowdown), max_harm, harm, h)


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


QUALITY_FORMATS = ("golden", "lists", "trec")


def load_quality(data: bytes, file: str, *, quality_format: str = "golden",
                 measure: str | None = None, k: int = 10, runs=()):
    """The quality data as a ``core.inputs.golden.GoldenSet``: a golden-case table (``golden``:
    case_id, then one column per method), a retrieval-list CSV (``lists``: case_id, query,
    gold_ids, then one column of ranked ids per method, scored by ``measure`` at ``k``,
    default nDCG@10, as ``compare --format lists`` and the systems page do) or TREC runs
    (``trec``: ``data``/``file`` are the qrels, ``runs`` the (file name, bytes) of each run,
    one method per run named after its file, scored per query by ``measure``, an ir_measures
    or registry name, default nDCG@10, as ``compare --format trec`` does)."""
    quality_format = checks.choice("quality_format", quality_format, QUALITY_FORMATS)
    if quality_format == "golden":
        return load_golden(data, file=file)
    if quality_format == "trec":
        from core.inputs import read_qrels, read_run, score_runs  # lazy: ir_measures
        if not runs:
            raise InputError("switch.err_need_runs", file=file)
        ts = score_runs([read_run(d, n) for n, d in runs], read_qrels(data, file),
                        [measure or "nDCG@10"], qrels_file=file)
        return ts.golden(ts.measures[0])
    from core.inputs import load_lists, metric_key, parse_metric, score_lists  # lazy: pandas
    name, k = parse_metric(measure or "ndcg", k)
    return score_lists(load_lists(data, file=file), k).golden(metric_key(name, k))


def decide_files(quality_data: bytes, quality_file: str, latency_data: bytes,
                 latency_file: str, *, margin: float | str,
                 max_slowdown: float = DEFAULT_MAX_SLOWDOWN, a: str | None = None,
                 b: str | None = None, confidence: float = 0.95, resamples: int = 20_000,
                 seed: int = 0, interval: str = "auto", drop_warmup: int = 0,
                 quantile_resamples: int = DEFAULT_QUANTILE_RESAMPLES,
                 quality_format: str = "golden", measure: str | None = None,
                 k: int = 10, runs=(), max_harm: float | None = None,
                 harm_delta: float | None = None, alpha: float = 2,
                 sequential: bool = False) -> SwitchDecision:
    """Read the quality data (``load_quality``: a golden-case table, retrieval lists with
    ``quality_format="lists"``, or TREC ``runs`` with ``quality_data`` the qrels and
    ``quality_format="trec"``) and a timing log, pick A and B (``pick_pair``), compare both
    with the same confidence, resamples and seed, and decide (``decide_switch``). A
    ``margin`` given as text (the CLI's, a URL's) is read by ``core.inputs.margin_text.parse_margin``
    once the outcomes are known to be 0/1 or scores. With ``sequential`` the quality condition
    is read off the confidence sequence (``decide_sequential``; a golden table's date/added
    column gives the order of its cases, ``core.inputs.arrival``)."""
    checks.max_slowdown(max_slowdown)  # before the work: a limit that cannot fail is refused
    arrival = None
    if sequential and quality_format == "golden":
        clustered, arrival = load_arriving(quality_data, quality_file)
        gs = clustered.golden
    else:
        gs = load_quality(quality_data, quality_file, quality_format=quality_format,
                          measure=measure, k=k, runs=runs)
    log = load_timings(latency_data, file=latency_file)
    named = quality_file if quality_format != "trec" else \
        ", ".join([quality_file, *(n for n, _ in runs)])
    a, b = pick_pair(gs.methods, log.methods, a, b, quality_file=named,
                     latency_file=latency_file)
    quality = compare_golden(gs, a, b, resamples=resamples, confidence=confidence, seed=seed,
                             interval=interval)
    latency = compare_latency(log, a, b, resamples=resamples,
                              quantile_resamples=quantile_resamples, confidence=confidence,
                              seed=seed, drop_warmup=drop_warmup)
    if isinstance(margin, str):
        margin = parse_margin(margin, binary=quality.comparison.binary)
    dec = decide_switch(quality, latency, margin, max_slowdown=max_slowdown,
                        max_harm=max_harm, harm_delta=harm_delta, alpha=alpha)
    return decide_sequential(dec, quality, arrival) if sequential else dec


def retriever_methods(tables: dict, metric: str) -> tuple[list[str], dict[str, bool]]:
    """(retrievers in ``tables``, {retriever: its per-query ``metric`` values are all 0 or
    1}): what the Switch? page needs before deciding (the margin's unit)."""
    return list(tables), {n: bool(np.isin(t[metric].to_numpy(float), (0.0, 1.0)).all())
                          for n, t in tables.items()}


def decide_retrievers(tables: dict, latency_data: bytes, latency_file: str, *,
                      margin: float | str, metric: str = "ndcg@10", queries=None,
                      collection: str = "scifact",
                      max_slowdown: float = DEFAULT_MAX_SLOWDOWN, a: str | None = None,
                      b: str | None = None, confidence: float = 0.95,
                      resamples: int = 20_000, seed: int = 0, interval: str = "auto",
                      drop_warmup: int = 0,
                      quantile_resamples: int = DEFAULT_QUANTILE_RESAMPLES,
                      max_harm: float | None = None, harm_delta: float | None = None,
                      alpha: float = 2, sequential: bool = False) -> SwitchDecision:
    """The decision with the quality of retrievers on a BEIR collection: ``tables`` are the
    per-query tables of BM25 / dense / hybrid (``core.retrieval.scifact.evaluate``), compared on
    ``metric`` over ``queries`` (default all judged) by ``core.retrieval.scifact.compare_retrievers``,
    the comparison the scifact page and ``python -m core scifact`` show. A and B as in
    ``pick_pair`` (default the first two retrievers of ``tables``); the timing log must
    name them bm25 / dense / hybrid."""
    from core.retrieval import compare_retrievers  # lazy: the retrieval wing, only for scifact
    checks.max_slowdown(max_slowdown)
    log = load_timings(latency_data, file=latency_file)
    a, b = pick_pair(list(tables), log.methods, a, b, quality_file=collection,
                     latency_file=latency_file)
    quality = compare_retrievers(tables, a, b, metric, queries=queries, resamples=resamples,
                                 confidence=confidence, seed=seed, interval=interval)
    latency = compare_latency(log, a, b, resamples=resamples,
                              quantile_resamples=quantile_resamples, confidence=confidence,
                              seed=seed, drop_warmup=drop_warmup)
    if isinstance(margin, str):
        margin = parse_margin(margin, binary=quality.data.binary)
    dec = decide_switch(quality, latency, margin, max_slowdown=max_slowdown,
                        quality_source=f"{collection} [{quality.metric}]",
                        max_harm=max_harm, harm_delta=harm_delta, alpha=alpha)
    return decide_sequential(dec, quality) if sequential else dec
