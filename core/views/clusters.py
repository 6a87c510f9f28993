"""How a comparison in clusters (``core.paired.clusters.ClusterComparison``) and repeated runs
(``core.inputs.clusters.runs_block``) read: the CLI's lines, the verdict sentence, the runs
line and the one-line suggestion when ids look clustered. Nothing is computed here; user names
stay plain text (pages escape them)."""
from __future__ import annotations

from core.i18n import t
from core.paired import ClusterComparison, significance_level
from core.views import format as fmt

VERDICT_KEYS = {"b_better": "clusters.verdict_b_better", "a_better": "clusters.verdict_a_better",
                "no_difference": "clusters.verdict_no_difference"}


def cluster_verdict(cc: ClusterComparison, a: str, b: str, lang: str = "en") -> str:
    """The verdict sentence with clusters as the unit."""
    return t(VERDICT_KEYS[cc.verdict], lang, a=a, b=b)


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
    if test.exact:
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
    lines.append(cluster_verdict(cc, a, b, lang))
    return lines


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
