"""How a comparison in clusters (``core.paired.clusters.ClusterComparison``) and repeated runs
(``core.inputs.clusters.runs_block``) read: the CLI's lines, the verdict sentence, the runs
line and the one-line suggestion when ids look clustered. Nothing is computed here; user names
stay plain text (pages escape them)."""
from __future__ import annotations

from core.i18n import t
from core.paired import ClusterComparison, significance_level
from core.views import format as fmt
from core.views.cards import VerdictCard, paired_card

VERDICT_KEYS = {"b_better": "clusters.verdict_b_better", "a_better": "clusters.verdict_a_better",
                "no_difference": "clusters.verdict_no_difference"}


def cluster_verdict(cc: ClusterComparison, a: str, b: str, lang: str = "en") -> str:
    """The verdict sentence with clusters as the unit."""
    return t(VERDICT_KEYS[cc.verdict], lang, a=a, b=b)


def cluster_card(cc: ClusterComparison, a: str, b: str, source: str, binary: bool,
                 lang: str = "en") -> VerdictCard:
    """The verdict card with clusters as the unit: B − A and its CR2 interval, the verdict,
    the clusters in one line (ICC, design effect, effective n, one cluster's share) and, with
    fewer than 10 clusters or a test that cannot reach alpha, the plain warning."""
    kind = fmt.kind_of(binary)
    s = cc.summary
    d = cc.difference
    share = fmt.pp(cc.resolution).lstrip("+") if binary else f"{100 * cc.resolution:.1f}%"
    reason = " ".join([t("clusters.cli_head", lang, source=source, clusters=s.n_clusters,
                         mean_size=f"{s.mean_size:.1f}", min_size=s.min_size,
                         max_size=s.max_size),
                       t("clusters.cli_icc", lang, icc=f"{s.icc:.2f}",
                         deff=f"{s.design_effect:.2f}", n=s.n, eff=f"{s.effective_n:.1f}"),
                       t("clusters.cli_resolution", lang, share=share)])
    warn = []
    if s.few:
        warn.append(t("clusters.cli_few", lang, clusters=s.n_clusters))
    if cc.test.min_p >= significance_level(cc.confidence):
        warn.append(t("clusters.cli_cannot", lang, nonzero=cc.test.nonzero,
                      clusters=s.n_clusters, alpha=f"{significance_level(cc.confidence):g}"))
    warn += self_check_lines(cc, lang)[1:]
    return paired_card(cc.verdict, a=a, b=b, mean=d.mean, ci_low=d.ci_low, ci_high=d.ci_high,
                       confidence=cc.confidence, kind=kind,
                       sentence=cluster_verdict(cc, a, b, lang),
                       ci_label=t("clusters.ci_label", lang), reason=reason,
                       warning=" ".join(warn))


def self_check_lines(cc: ClusterComparison, lang: str = "en") -> list[str]:
    """The clustered self-check (``core.paired.cluster_check.ClusterSelfCheck``): its figure,
    then the warning and the withheld verdict when they apply (the card shows these two); the
    old sentence when it was not run."""
    sc = cc.self_check
    if sc is None:
        return [t("clusters.self_check", lang)]
    promise = fmt.pct(sc.promise)
    out = [t("clusters.self_check_measured", lang, sets=f"{sc.sets:,}",
             rate=fmt.pct(sc.null_rejection), mc=fmt.pct(sc.mc_se), promise=promise)]
    if sc.warns:
        out.append(t("clusters.self_check_warn", lang, clusters=sc.nonzero,
                     p=fmt.p_text(sc.survival_p), promise=promise))
    if sc.reason == "withheld_self_check":
        out.append(t("clusters.self_check_withheld", lang, rate=fmt.pct(sc.null_rejection)))
    elif sc.reason == "fails_self_check":
        out.append(t("clusters.self_check_failed", lang, p=fmt.p_text(sc.survival_p)))
    return out


def cluster_lines(cc: ClusterComparison, a: str, b: str, source: str, binary: bool,
                  lang: str = "en") -> list[str]:
    """The cluster block: what the clusters are, ICC / design effect / effective n, each
    method's and B − A's interval, the tests, the resolution in clusters, the few-clusters
    warning and the verdict."""
    kind = fmt.kind_of(binary)
    s = cc.summary
    level = fmt.level(cc.confidence)
    lines = [t("clusters.cli_head", lang, source=source, clusters=s.n_clusters,
               mean_size=f"{s.mean_size:.1f}", min_size=s.min_size, max_size=s.max_size),
             t("clusters.cli_icc", lang, icc=f"{s.icc:.2f}", deff=f"{s.design_effect:.2f}",
               n=s.n, eff=f"{s.effective_n:.1f}")]
    for name, est in ((a, cc.a), (b, cc.b)):
        lines.append(t("clusters.cli_method", lang, name=name, value=fmt.value(est.mean, kind),
                       level=level, lo=fmt.value(est.ci_low, kind),
                       hi=fmt.value(est.ci_high, kind)))
    d = cc.difference
    lines.append(t("clusters.cli_diff", lang, a=a, b=b, diff=fmt.diff(d.mean, kind),
                   level=level, df=f"{d.df:.1f}", lo=fmt.diff(d.ci_low, kind),
                   hi=fmt.diff(d.ci_high, kind)))
    test = cc.test
    if test.exact and test.mid_p:   # 0/1 outcomes: ties at the data's |sum| count half
        lines.append(t("clusters.cli_test_midp", lang, p=fmt.p_text(test.p),
                       patterns=f"{2 ** test.nonzero:,}"))
    elif test.exact:
        lines.append(t("clusters.cli_test_exact", lang, p=fmt.p_text(test.p),
                       patterns=f"{2 ** test.nonzero:,}"))
    else:
        lines.append(t("clusters.cli_test_mc", lang, p=fmt.p_text(test.p),
                       resamples=f"{test.resamples:,}"))
    if cc.mcnemar_x2 is not None:
        lines.append(t("clusters.cli_mcnemar", lang, x2=f"{cc.mcnemar_x2:.2f}",
                       p=fmt.p_text(cc.mcnemar_p)))
    share = fmt.pp(cc.resolution).lstrip("+") if binary else f"{100 * cc.resolution:.1f}%"
    lines.append(t("clusters.cli_resolution", lang, share=share))
    alpha = significance_level(cc.confidence)
    if s.few:
        lines.append(t("clusters.cli_few", lang, clusters=s.n_clusters))
    if test.min_p >= alpha:
        lines.append(t("clusters.cli_cannot", lang, nonzero=test.nonzero,
                       clusters=s.n_clusters, alpha=f"{alpha:g}"))
    lines += self_check_lines(cc, lang)
    lines.append(cluster_verdict(cc, a, b, lang))
    return lines


MARGIN_KEYS = {"holds": "clusters.margin_holds", "unsure": "clusters.margin_unsure",
               "fails": "clusters.margin_fails"}


def margin_line(cm, a: str, b: str, binary: bool, lang: str = "en") -> str:
    """The margin's answer with clusters as the unit (``core.paired.clusters.ClusterMargin``)."""
    kind = fmt.kind_of(binary)
    return t(MARGIN_KEYS[cm.state], lang, a=a, b=b, clusters=cm.n_clusters,
             lo=fmt.diff(cm.ci_low, kind), hi=fmt.diff(cm.ci_high, kind),
             limit=fmt.diff(-cm.margin, kind))


def harm_unit_line(harm, lang: str = "en") -> str:
    """The line saying the no-harm figures take the clusters as the unit."""
    return t("clusters.harm_unit", lang, clusters=harm.n_clusters)


def runs_lines(block: dict, lang: str = "en") -> list[str]:
    """The repeated-runs line (and the unequal-runs line) of ``runs_block``'s dict."""
    lines = [t("clusters.cli_runs", lang, column=block["column"], k=f"{block['k']:.3g}",
               k_min=block["k_min"], k_max=block["k_max"],
               share=fmt.pct(block["within_share"], 0), flips=block["sign_flips"],
               n=block["n_cases"])]
    if not block["equal_k"]:
        lines.append(t("clusters.cli_runs_unequal", lang, count=block["n_unequal"],
                       k_max=block["k_max"], examples=", ".join(block["unequal_cases"])))
    return lines


def hint_line(hint: dict, lang: str = "en") -> str:
    """The one-line suggestion of ``core.inputs.clusters.cluster_hint``."""
    return t("clusters.hint", lang, sources=hint["sources"], example=hint["example"])


BEST_KEYS = {"clusters": "clusters.plan_best_clusters",
             "per_cluster": "clusters.plan_best_per_cluster", "runs": "clusters.plan_best_runs"}


def plan_lines(block: dict, lang: str = "en") -> list[str]:
    """The planner's design lines: each n as documents x questions x runs, and what doubling
    each part buys (``core.paired.clusters.plan_clusters``)."""
    lines = [t("clusters.plan_head", lang, icc=f"{block['icc']:g}", m=block["cluster_size"],
               k=block["runs"], w=fmt.pct(block["run_share"], 0))]
    first = None
    for key, p in block["plans"].items():
        first = first or p
        lines.append(t("clusters.plan_line", lang, key=key, n=p["n_independent"],
                       factor=f"{p['factor']:.2f}", cases=p["n_cases"],
                       clusters=p["n_clusters"], m=p["cluster_size"], k=p["runs"]))
    if first is not None:
        d = first["doubling"]
        lines.append(t("clusters.plan_doubling", lang,
                       clusters=fmt.pct(1 - d["clusters"], 0),
                       per_cluster=fmt.pct(1 - d["per_cluster"], 0),
                       runs=fmt.pct(1 - d["runs"], 0)))
        lines.append(t(BEST_KEYS[first["best"]], lang))
    return lines
