"""Label agreement: can cheaper labels stand in for the gold labels? (issue 6)

A second label source (a crowd, a heuristic, an LLM run elsewhere) is judged against gold
labels at the four levels of Thomas, Spielman, Craswell & Mitra, "Large Language Models can
Accurately Predict Searcher Preferences", SIGIR 2024:

1. Document labels: the confusion matrix; Cohen's kappa (Cohen 1960) on the graded labels
   (``kappa``, equal to ``sklearn.metrics.cohen_kappa_score``) and on binary labels (1 and 2
   merged into "relevant"; ``kappa_binary``); weighted kappa on the graded labels (Cohen
   1968); mean absolute error with labels scaled to [0, 1].
2. Document preference: pairwise accuracy over same-query document pairs whose gold labels
   differ.
3. Query ordering (needs a run): a per-query metric under gold vs other labels; queries
   ordered worst first; agreement by rank-biased overlap (Webber, Moffat & Zobel 2010:
   RBO_ext, and the rescaled prefix RBO@k; ``core.agreement.rank_similarity``) and Kendall's tau-b.
4. System ordering (needs >= 3 runs): systems ordered by mean metric; RBO, tau, top 3.

Levels 1-2 carry percentile bootstrap CIs that resample *queries* (the clusters of the data;
Efron & Tibshirani 1993, ch. 13; pairs of one query are not independent), computed from
per-query confusion matrices so a resample is one matrix product. Several sources are ranked
by kappa, and the split-half check of Thomas et al. §4.4 asks how often the source that is
best on a random half of the pairs also beats a baseline source on the other half.
Everything random is seeded (keyword ``seed``; same seed -> same output).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from core import checks
from core.agreement.cheap_pairs import CheapPairs, cheap_pairs
from core.agreement.conclusions import ConclusionAgreement, conclusion_agreement
from core.agreement.files import LabelSet, MISSING
from core.agreement.labels import (LEVELS, WEIGHTS, Weights, binarize, binary_kappa, cohen_kappa,
                                   confusion, kappa_band, kappa_from_confusion, mae_from_confusion,
                                   pairwise_accuracy, preference_counts, weight_matrix)
from core.agreement.orderings import (BOTTOM_N, QUERY_P, QueryOrdering, RunCoverage, SYSTEM_P,
                                      SystemOrdering, TOP_N, qrels_for, query_ordering,
                                      run_coverage, system_ordering)
from core.agreement.rank_similarity import RBOResult, kendall_tau, rbo, tie_groups
from core.agreement.sources import (DEFAULT_RESAMPLES, DEFAULT_SPLITS, Estimate, SourceAgreement,
                                    SplitHalf, disagreements, query_weights, rank_sources,
                                    source_agreement, split_half)
from core.errors import InputError
from core.inputs import Run, parse_measure

# one import for the page, the CLI and the tests: the split modules' names, re-exported
__all__ = ["AgreementReport", "BOTTOM_N", "DEFAULT_RESAMPLES", "DEFAULT_SPLITS", "Estimate",
           "LEVELS", "METRICS", "QUERY_P", "QueryOrdering", "RBOResult", "RunCoverage",
           "SYSTEM_P", "SourceAgreement", "SplitHalf", "SystemOrdering", "TOP_N", "WEIGHTS",
           "Weights", "analyse", "binarize", "binary_kappa", "cohen_kappa", "confusion",
           "disagreements", "kappa_band", "kappa_from_confusion", "kendall_tau",
           "mae_from_confusion", "pairwise_accuracy", "preference_counts", "qrels_for",
           "query_ordering", "query_weights", "rank_sources", "rbo", "run_coverage",
           "source_agreement", "split_half", "system_ordering", "tie_groups", "weight_matrix"]

METRICS: tuple[str, ...] = ("ndcg@10", "p@10", "ap@100")


# ----------------------------------------------------------------------------- one call
@dataclass(frozen=True)
class AgreementReport:
    """All four levels for one chosen source, every source ranked, and the split-half check."""

    labels: LabelSet = field(repr=False)
    main: SourceAgreement
    ranking: list
    split: SplitHalf | None
    measure: str
    coverage: list
    queries: list             # QueryOrdering per run (the chosen source vs gold)
    query_run: str | None
    systems: SystemOrdering | None
    conclusions: ConclusionAgreement | None = None   # asked for: every pair's two verdicts
    cheap: CheapPairs | None = None   # with conclusions: every pair prediction-powered

    def query(self) -> QueryOrdering | None:
        return next((q for q in self.queries if q.run == self.query_run), None)

    def to_dict(self) -> dict:
        m = self.main.to_dict()
        out = {"file": self.labels.source, "source": self.main.name,
               "gold": self.labels.gold_name, "n_pairs": m["n_pairs"],
               "n_queries": m["n_queries"], "labels": self.labels.summary(),
               "encoding": self.labels.encoding}
        out.update({k: m[k] for k in m if k not in ("source", "gold", "n_pairs", "n_queries")})
        out["sources"] = [{"source": r.name, "n_pairs": r.n_pairs, "kappa": r.kappa.value,
                           "kappa_ci": [r.kappa.ci_low, r.kappa.ci_high],
                           "kappa_binary": r.kappa_binary.value,
                           "kappa_binary_ci": [r.kappa_binary.ci_low, r.kappa_binary.ci_high],
                           "weighted_kappa": r.weighted_kappa.value,
                           "mae": r.mae.value, "pairwise_accuracy": r.pairwise_accuracy.value}
                          for r in self.ranking]
        out["split_half"] = self.split.to_dict() if self.split else None
        out["measure"] = self.measure
        q = self.query()
        out["query_run"] = self.query_run
        out["query_rbo"] = q.rbo.ext if q else None
        out["query_rbo_prefix"] = q.rbo.normalized if q else None
        out["query_tau"] = q.tau if q else None
        out["query_ordering"] = [x.to_dict() for x in self.queries]
        s = self.systems
        out["system_rbo"] = s.rbo.ext if s else None
        out["system_rbo_prefix"] = s.rbo.normalized if s else None
        out["system_tau"] = s.tau if s else None
        out["system_ordering"] = s.to_dict() if s else None
        out["runs"] = [c.to_dict() for c in self.coverage]
        if self.conclusions is not None:   # only when asked for: other outputs unchanged
            out["conclusion_agreement"] = self.conclusions.to_dict()
        if self.cheap is not None:
            out["prediction_powered"] = self.cheap.to_dict()
        return out


def analyse(labels: LabelSet, *, source: str | None = None, runs: Sequence[Run] = (),
            measure: str = "ndcg@10", weights: str = "linear",
            resamples: int = DEFAULT_RESAMPLES, confidence: float = 0.95, seed: int = 0,
            baseline: str | None = None, splits: int = DEFAULT_SPLITS,
            query_run: str | None = None, query_p: float = QUERY_P,
            system_p: float = SYSTEM_P, conclusions: bool = False) -> AgreementReport:
    """The four levels for ``source`` (default: the first), every source ranked by kappa, the
    split-half check (when there are >= 2 sources) and, with runs, levels 3 and 4.

    Levels 3-4 use the pairs gold and ``source`` both labelled, so both label sets judge the
    same documents; a retrieved document without a label counts as not relevant
    (``RunCoverage.unlabelled`` says how many, within the metric's cutoff). With
    ``conclusions`` and >= 2 runs, every pair of runs is compared under gold and under
    ``source`` (``core.agreement.conclusions``: do the verdicts agree?), and prediction-powered
    with gold labels on the gold queries and ``source``'s on the others
    (``core.agreement.cheap_pairs``; issue 34).
    """
    source = labels.names[0] if source is None else source
    m = parse_measure(measure)
    kw = dict(weights=weights, resamples=resamples, confidence=confidence, seed=seed)
    ranking = rank_sources(labels, **kw)
    main = next((r for r in ranking if r.name == source), None)
    if main is None:
        raise InputError("agreement.err_unknown_source", file=labels.source, name=source,
                         names=", ".join(labels.names))
    split = (split_half(labels, baseline, splits=splits, seed=seed)
             if len(labels.names) >= 2 else None)
    coverage, queries, systems = [], [], None
    runs = list(runs)
    if runs:
        names = checks.distinct("runs", [r.name for r in runs])
        both = (labels.gold != MISSING) & (labels.sources[source] != MISSING)
        gq = qrels_for(labels, labels.gold_name, both)
        oq = qrels_for(labels, source, both)
        for run in runs:
            coverage.append(run_coverage(run, gq, m))
            queries.append(query_ordering(run, gq, oq, m, p=query_p))
        if query_run is None:
            query_run = runs[0].name
        else:
            checks.choice("query_run", query_run, names)
        if len(runs) >= 3:
            systems = system_ordering(queries, p=system_p)
    else:
        query_run = None
    agreed = cheap = None
    if checks.instance("conclusions", conclusions, bool) and len(queries) >= 2:
        agreed = conclusion_agreement({q.run: q.scores for q in queries}, source=source,
                                      measure=str(m), resamples=resamples,
                                      confidence=confidence, seed=seed)
        cheap = cheap_pairs(labels, runs, source=source, measure=str(m), resamples=resamples,
                            confidence=confidence, seed=seed)
    return AgreementReport(labels, main, ranking, split, str(m), coverage, queries, query_run,
                           systems, agreed, cheap)
