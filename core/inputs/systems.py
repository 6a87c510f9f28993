"""Several systems on the same cases, in one call: A vs B (``compare_golden``, paired by case id)
with what else was asked (clusters, the margin, no harm, cheap labels, the sequence, groups,
Judged@k), and with three or more systems the tied-for-best set (``core.paired.best_set``) and
every pair adjusted by Holm or Benjamini–Hochberg (``core.paired.compare_many``), cost before
work (``core.paired.plan_mode``). ``compare_systems`` is what ``python -m core compare`` and the
systems page both call (issue 31: the page one hop from core); ``SystemsComparison.to_dict`` /
``compare_summary`` is the one JSON summary (``compare --json``, the page's report).

B − A everywhere (A the baseline, B the new one)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.errors import InputError
from core.inputs.clusters import (Clustered, cluster_hint, clusters_of, compare_in_clusters,
                                  load_lists_clustered, names_clusters, runs_block, split_table)
from core.inputs.golden import Excluded, GoldenSet, from_cells
from core.inputs.golden_cases import CASE_ID_NAMES
from core.inputs.groups import by_group
from core.inputs.tables import read_cells
from core.paired import PairedComparison, compare_paired, resolution


def _default_pair(gs: GoldenSet) -> tuple[str, str]:
    """The first two methods in file order."""
    if len(gs.methods) < 2:
        raise InputError("need_two_methods", file=gs.source, methods=", ".join(gs.methods))
    return gs.methods[0], gs.methods[1]


@dataclass(frozen=True)
class GoldenComparison:
    """A and B compared on their paired cases, with what was excluded and the case lists."""

    golden: GoldenSet
    comparison: PairedComparison      # its case_ids, a_values, b_values: the paired cases
    excluded: Excluded

    @property
    def case_ids(self) -> tuple[str, ...]:
        return self.comparison.case_ids

    @property
    def a_values(self) -> np.ndarray:
        return self.comparison.a_values

    @property
    def b_values(self) -> np.ndarray:
        return self.comparison.b_values

    @property
    def n_cases(self) -> int:
        return self.comparison.n

    def discordant(self) -> pd.DataFrame:
        """Cases where A and B differ, with the file's text columns and ``difference`` = B - A
        (new minus baseline): B ahead first (binary: B right / A wrong), then A ahead (A right
        / B wrong), each by the size of the gap."""
        d = self.b_values - self.a_values
        import pandas as pd

        mask = d != 0
        df = pd.DataFrame({"case_id": np.asarray(self.case_ids)[mask],
                           self.comparison.a: self.a_values[mask],
                           self.comparison.b: self.b_values[mask],
                           "difference": d[mask]})
        if not self.golden.text.empty:
            extra = self.golden.text.reindex(df["case_id"]).reset_index(drop=True)
            df = pd.concat([df.reset_index(drop=True), extra], axis=1)
        return df.sort_values("difference", ascending=False, kind="stable")

    def to_dict(self) -> dict:
        c = self.comparison
        return {
            "source": self.golden.source,
            "sheet": self.golden.sheet,         # the worksheet read from a workbook, else None
            "n_cases": self.n_cases,
            "binary": c.binary,
            "methods": {c.a: c.rate_a.to_dict(), c.b: c.rate_b.to_dict()},
            "difference": c.to_dict(),
            "resolution": resolution(self.n_cases),
            "excluded": self.excluded.to_dict(),
            # ids that only became equal under Unicode NFC (typed as NFD elsewhere): rows
            "unicode_merged": {k: list(v) for k, v in self.golden.unicode_merged.items()},
            # columns with no value in any row: not compared (a method left blank everywhere)
            "empty_columns": list(self.golden.empty_columns),
            "encoding": self.golden.encoding or None,
            "verdict": c.verdict,
        }


def compare_golden(gs: GoldenSet, a: str | None = None, b: str | None = None, *,
                   resamples: int = 20_000, confidence: float = 0.95,
                   seed: int = 0, interval: str = "auto") -> GoldenComparison:
    """Pair A and B by case id, drop (and report) incomplete cases, and compare them."""
    if a is None and b is None:
        a, b = _default_pair(gs)
    elif a is None or b is None:
        given = a if a is not None else b
        others = [m for m in gs.methods if m != given]
        if not others:
            raise InputError("need_two_methods", file=gs.source, methods=", ".join(gs.methods))
        a, b = (given, others[0]) if a is not None else (others[0], given)
    ids, av, bv, excluded = gs.paired_values(a, b)
    if len(ids) < 2:
        raise InputError("too_few_paired", file=gs.source, count=len(ids), a=a, b=b)
    comp = compare_paired(av, bv, name_a=a, name_b=b, resamples=resamples,
                          confidence=confidence, seed=seed, interval=interval, case_ids=ids)
    return GoldenComparison(gs, comp, excluded)


@dataclass(frozen=True)
class Systems:
    """What ``compare_systems`` compares: the golden set (cases x systems), the format's own
    JSON block (``extra``: ``format``, ``measure``, the metrics, ...) and, for Judged@k,
    the scored lists or runs (``kind`` "lists" with ``key``, or "trec"; None for a golden
    file or lists matched by text), and ``runs`` (``core.inputs.clusters.RunTable``) of a lists
    file with repeated runs."""

    golden: GoldenSet
    extra: dict
    kind: str | None = None
    scored: object = None
    key: str | None = None
    runs: object = None


def golden_systems(gs: GoldenSet) -> Systems:
    """A golden-case file's systems (no format block, no judged pool)."""
    return Systems(gs, {})


def lists_systems(scores, key: str) -> Systems:
    """The systems of scored retrieval lists (``core.inputs.score_lists``) on metric ``key``:
    the lists' JSON block (measure, k, match, every metric's means, the cases without a
    reference and the empty lists); Judged@k only when the lists hold ids and have no repeated
    runs (the bounds would read each case's first run only); the runs of the metric."""
    ls = scores.lists
    extra = {"format": "lists", "measure": key, "k": scores.k, "match": ls.kind,
             "metrics": scores.to_dict(), "undefined": scores.undefined(),
             "no_reference": list(ls.no_reference),
             "empty_lists": {m: list(v) for m, v in ls.empty_cells.items()}}
    return Systems(scores.golden(key), extra,
                   "lists" if ls.kind == "ids" and not ls.runs else None, scores, key,
                   None if scores.runs is None else scores.runs[key])


def load_clustered(data: bytes, file: str = "upload", *, cluster: str | None = None) -> Clustered:
    """A golden-case file read once (``read_cells``) into its ``GoldenSet``
    (``core.inputs.golden.from_cells``) with its clusters and runs. Only when the header names
    a cluster or run column, or ``cluster`` asks for one (``names_clusters``), are they taken
    out (``core.inputs.clusters.split_table``); a plain file goes from the reader to the golden
    set and never through the cluster room. One call for the CLI's golden ``compare`` and
    ``decide`` and the golden page."""
    table = read_cells(data, file, required=(CASE_ID_NAMES,))
    if not names_clusters(table, cluster):
        return Clustered(from_cells(table))
    rest, labels, col, runs = split_table(table, cluster)
    return Clustered(from_cells(rest), labels, col, None, runs)


def read_lists_systems(data: bytes, file: str = "upload", *, metric: str = "ndcg",
                       k: int = 10, kind: str = "auto",
                       cluster: str | None = None) -> tuple[Systems, Clustered]:
    """A retrieval-list file read (``load_lists_clustered``: its cluster and run columns taken
    out), scored at ``k`` (``score_lists``) and compared on ``metric``@``k``
    (``lists_systems``); with the ``Clustered`` its cluster column gives (labels may be
    None). One call for the CLI's ``--format lists`` and the systems page."""
    from core.inputs.lists import metric_key, score_lists  # lazy: the list metrics' rooms

    ls, labels, column = load_lists_clustered(data, file, kind=kind, cluster=cluster)
    systems = lists_systems(score_lists(ls, k), metric_key(metric, k))
    return systems, Clustered(systems.golden, labels, column)


def read_trec_systems(qrels: bytes, qrels_file: str, runs, measure: str = "nDCG@10",
                      cheap_qrels: str | None = None) -> Systems:
    """TREC runs (``runs``: (file name, bytes) pairs, ``read_run``) scored under the qrels
    (``read_qrels``, ``score_runs``) on one ``measure`` (``trec_systems``): one call for the
    systems page (the CLI reads the runs once for gold and cheap qrels alike)."""
    from core.inputs.trec import read_qrels, read_run, score_runs  # lazy: the TREC rooms

    ts = score_runs([read_run(b, n) for n, b in runs], read_qrels(qrels, qrels_file),
                    [measure], qrels_file=qrels_file)
    return trec_systems(ts, qrels_file, cheap_qrels)


def trec_systems(ts, qrels_file: str, cheap_qrels: str | None = None) -> Systems:
    """The systems of scored TREC runs (``core.inputs.score_runs``, one measure): the TREC
    JSON block (measure, qrels, runs, the measure's means, missing/unjudged queries)."""
    key = ts.measures[0]
    extra = {"format": "trec", "measure": key, "qrels": qrels_file,
             "runs": {r.name: r.file for r in ts.runs},
             "metrics": {key: ts.to_dict()[key]}, "queries": ts.report()}
    if cheap_qrels is not None:
        extra["cheap_qrels"] = cheap_qrels
    return Systems(ts.golden(key), extra, "trec", ts, key)


@dataclass(frozen=True)
class SystemsComparison:
    """Everything ``compare_systems`` computed, kept so a page rerun computes nothing again:
    ``result`` (A vs B, ``GoldenComparison``), ``clustered`` (B − A with clusters as the unit)
    and ``cluster_labels`` (each compared case's cluster), ``runs`` (a long file's repeated
    runs block), ``hint`` (ids that look clustered, when no cluster was given), ``margin``
    (``MarginResult``) and ``cluster_margin``, ``harm``, ``cheap`` (``CheapComparison``),
    ``many`` (``MultiComparison``; ``many_fallback`` the cost of the mode asked for when it
    did not fit and fewer pairs ran; ``many_cost`` the cost of the mode run), ``best``
    (``BestSet``; ``best_cost`` the cost of all pairs it needs), ``seq``/``arrival`` (the
    confidence sequence), ``groups``, ``judged``, ``plan`` (the card's next step,
    ``core.planning.card_next_step``, when asked)."""

    systems: Systems
    result: GoldenComparison
    clusters: Clustered | None = None
    clustered: object = None
    cluster_labels: tuple | None = None
    runs: dict | None = None
    hint: dict | None = None
    margin: object = None
    cluster_margin: object = None
    harm: object = None
    cheap: object = None
    many: object = None
    many_cost: object = None
    many_fallback: object = None
    best: object = None
    best_cost: object = None
    seq: object = None
    arrival: object = None
    groups: object = None
    judged: object = None
    plan: object = None

    def to_dict(self, *, harm=None, seq=None, arrival=None) -> dict:
        """The one JSON summary (``compare_summary``); ``harm`` (a page's No harm section,
        computed apart with its own inputs) and ``seq``/``arrival`` (the golden page's
        sequence, read with the file's arrival column) stand in for the stored ones when
        given."""
        cl = self.clusters
        return compare_summary(
            self.result, extra=self.systems.extra, clustered=self.clustered,
            cluster_column=None if cl is None else cl.column,
            cluster_file=None if cl is None else cl.file, runs=self.runs,
            seq=self.seq if seq is None else seq,
            arrival=self.arrival if seq is None else arrival, margin=self.margin, harm=self.harm if harm is None else harm,
            cheap=self.cheap, best=self.best, groups=self.groups, judged=self.judged,
            many=self.many, cluster_margin=self.cluster_margin)


def compare_systems(systems: Systems, a: str | None = None, b: str | None = None, *,
                    resamples: int = 20_000, confidence: float = 0.95, seed: int = 0,
                    interval: str = "auto", baseline: str | None = None,
                    correction: str = "holm", best_method: str = "mcb", margin=None,
                    harm: tuple | None = None, clusters: Clustered | None = None,
                    cheap: GoldenSet | None = None, sequential: bool = False, arrival=None,
                    groups: dict | None = None, group_file: str | None = None,
                    judged_k: int = 10, next_step: bool = False) -> SystemsComparison:
    """A vs B of ``systems`` and, with three or more, the best set and all pairs (module
    docstring). ``a``/``b`` default to the file's first two methods (with ``baseline`` and
    neither given: A = the baseline, B the first other); ``margin`` (text or number, read by
    ``margin_answer``), ``harm`` ((δ or None, α): ``core.paired.no_harm``), ``clusters`` (a
    ``Clustered`` whose labels make the cluster the unit, issue 32), ``cheap`` (the cheap
    labels' golden set, issue 34; refused with clusters), ``sequential`` (the confidence
    sequence in ``arrival``'s order, else file order, issue 33), ``groups``/``group_file``
    (a side file's labels; default the set's own group column), ``judged_k`` (Judged@k's k),
    ``next_step`` (plan the card's "cannot tell" next step: the pages' card).
    Every statistic is computed here, once: the result holds them all."""
    gs = systems.golden
    stat = dict(resamples=resamples, confidence=confidence, seed=seed)
    if baseline is not None and a is None and b is None and len(gs.methods) >= 2:
        others = [m for m in gs.methods if m != baseline]
        a, b = baseline, (others[0] if others else None)  # B - A = other - baseline
    result = compare_golden(gs, a, b, interval=interval, **stat)
    c = result.comparison
    run_table = systems.runs if clusters is None or clusters.runs is None else clusters.runs
    runs = None if run_table is None else runs_block(run_table, result)
    clustered = labels = source = None
    if clusters is not None and clusters.labels is not None:
        source = clusters.file or result.golden.source
        clustered = compare_in_clusters(result, clusters.labels, source, **stat)
        labels = tuple(clusters_of(result.case_ids, clusters.labels, source))
    hint = cluster_hint(result.case_ids) if clustered is None else None
    answer = None
    if margin is not None:
        from core.inputs.margin_text import margin_answer  # lazy: the margin's rooms, when asked
        answer = margin_answer(c, margin)
    cmargin = None
    if clustered is not None and answer is not None:   # the margin with clusters as the unit
        from core.paired import cluster_margin  # lazy: clusters only
        cmargin = cluster_margin(result.a_values, result.b_values, list(labels),
                                 answer.margin, **stat)
    no_harm_ = None
    if harm is not None:
        from core.paired import no_harm  # lazy: only with harm asked
        no_harm_ = no_harm(result.a_values, result.b_values, delta=harm[0], alpha=harm[1],
                           clusters=None if labels is None else list(labels), **stat)
    ppi = None
    if cheap is not None:
        if clustered is not None:
            raise ValueError("cheap labels treat cases as independent: --cheap / --cheap-qrels "
                             "cannot be combined with clusters yet")
        from core.inputs.cheap import compare_cheap  # lazy: the PPI rooms, only with cheap labels
        ppi = compare_cheap(result, cheap, confidence=confidence)
    many = many_cost = fallback = best = best_cost = None
    if len(gs.methods) >= 3:
        # lazy: the many-systems rooms, only with three or more systems
        from core.paired import best_set, compare_many, estimate_cost, plan_mode

        wanted = "baseline" if baseline else "all"
        n_cases = len(gs.cases.ids)
        mode, many_cost = plan_mode(len(gs.methods), n_cases, resamples, wanted)
        if mode != wanted:   # all pairs would not fit the limits: fewer pairs, said so
            fallback = estimate_cost(len(gs.methods), n_cases, resamples, wanted)
        if many_cost.fits:   # else the caller says so (the CLI refuses: too_much_work)
            many = compare_many(gs.cases, mode=mode, baseline=baseline,
                                correction=correction, interval=interval, **stat)
        best_cost = estimate_cost(len(gs.methods), n_cases, resamples, "all")
        if best_cost.fits:   # cost before work: the ranking needs every pair
            best = best_set(gs.cases, method=best_method, **stat,
                            clusters=None if clustered is None else clusters_of(
                                [str(i) for i in gs.cases.ids], clusters.labels, source))
    seq = None
    if sequential:
        from core.paired import sequential_compare  # lazy: only in the sequential mode
        ids = list(result.case_ids)
        order = arrival.order(ids) if arrival is not None else list(range(len(ids)))
        seq = sequential_compare(result.a_values[order], result.b_values[order], confidence,
                                 seed=seed)
    by_groups = by_group(result, groups, group_file, clusters=None if clustered is None
                         else clusters.labels, interval=interval, **stat)
    judged = None
    if systems.kind == "lists":
        from core.inputs.judged import lists_bounds  # lazy: pandas, only with a judged pool
        judged = lists_bounds(systems.scored, systems.key, c.a, c.b, k=judged_k,
                              interval=interval, **stat)
    elif systems.kind == "trec":
        from core.inputs.judged import trec_bounds  # lazy: pandas, only with a judged pool
        judged = trec_bounds(systems.scored, c.a, c.b, k=judged_k, interval=interval, **stat)
    plan = None
    if next_step:
        from core.planning import card_next_step  # lazy: the planner, for a page's card only
        plan = card_next_step(c, answer)
    return SystemsComparison(systems, result, clusters, clustered, labels, runs, hint, answer,
                             cmargin, no_harm_, ppi, many, many_cost, fallback, best, best_cost,
                             seq, arrival, by_groups, judged, plan)


def compare_summary(result, *, extra: dict | None = None, clustered=None,
                    cluster_column: str | None = None, cluster_file: str | None = None,
                    runs: dict | None = None, seq=None, arrival=None, margin=None, harm=None,
                    cheap=None, best=None, groups=None, judged=None, many=None,
                    cluster_margin=None) -> dict:
    """The one JSON summary of A vs B on a golden set (``GoldenComparison.to_dict``: the
    golden-case contract) with the blocks of what else was asked, in this order: ``extra``
    (the lists/TREC figures), the verdict with clusters as the unit (``clustered``, a
    ``core.paired.ClusterComparison``; the independent-cases one kept as
    ``verdict_independent_cases``), ``runs`` (a long file's repeated runs,
    ``core.inputs.runs_block``), ``clusters`` (``clustered`` with the column or side file
    naming the clusters), ``sequential``
    (``seq`` in the order ``arrival`` gives, else file order; without clusters its verdict,
    the one valid at every look, with the fixed-n one kept as ``verdict_fixed_n``), ``margin``,
    ``harm`` (with ``cluster_margin``, a ``core.paired.clusters.ClusterMargin``, ``margin`` is
    that one and the independent-cases answer ``margin_independent_cases``), the cheap labels' figures (``CheapComparison.apply``), ``best_set``,
    ``groups``/``groups_test``, ``judged``, ``multiple``/``pairs``. What ``python -m core
    compare --json`` prints and the golden and systems pages' reports carry (issue 31: built
    once)."""
    out = result.to_dict()
    out.update(extra or {})
    if clustered is not None:   # the verdict with clusters as the unit
        out["verdict_independent_cases"] = out["verdict"]
        out["verdict"] = clustered.verdict
    if runs is not None:
        out["runs"] = runs
    if clustered is not None:
        out["clusters"] = {"column": cluster_column, "file": cluster_file, **clustered.to_dict()}
    if seq is not None:
        from core.paired import sequential_block  # lazy: the sequential mode
        out["sequential"] = sequential_block(seq, arrival)
        if clustered is None:   # the verdict valid at every look
            out["verdict_fixed_n"] = out["verdict"]
            out["verdict"] = seq.last.verdict
    if cluster_margin is not None:   # the margin with clusters as the unit (issue 32)
        out["margin_independent_cases"] = margin.to_dict()
        out["margin"] = {"unit": "clusters", **cluster_margin.to_dict()}
    elif margin is not None:
        out["margin"] = margin.to_dict()
    if harm is not None:
        out["harm"] = harm.to_dict()
    if cheap is not None:
        cheap.apply(out)
    if best is not None:
        out["best_set"] = best.to_dict()
    if groups is not None:
        g = groups.to_dict()
        out["groups"] = g.pop("groups")
        out["groups_test"] = g
    if judged is not None:
        out["judged"] = judged.to_dict()
    if many is not None:
        out["multiple"] = {k: v for k, v in many.to_dict().items() if k != "pairs"}
        out["pairs"] = [{k: p[k] for k in ("a", "b", "b_minus_a", "ci_low", "ci_high", "p",
                                           "p_holm", "p_adjusted", "verdict", "n",
                                           "cohens_dz")}
                        for p in many.to_dict()["pairs"]]
    return out
