"""What the latency page, its report and ``python -m core latency`` show (``core.latency.compare``):
the verdict sentences, the CLI text and the charts (altair specs; nothing is computed here
but binning).

Every chart is aggregated before plotting: distributions are binned on a log axis, the
per-query ratios are thinned to at most ``MAX_POINTS`` evenly spaced order statistics, and the
run-index chart has one point per run index and method.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from core.i18n import t
from core.latency import (LatencyComparison, MethodLatency, P95_CI_MIN_QUERIES, P95_CI_MIN_TIMINGS,
                          P95_CI_WORST_COVER, RatioEstimate, fmt_ms)
from core.paired import significance_level
from core.views.charts import TIMES_LABEL, log_domain, log_ticks, wrap_title
from core.views.format import level as fmt_level, p_text, pct, ratio as fmt_ratio, ratio_digits
from core.views.palette import HIGHLIGHT, PRIMARY, REFERENCE, TONES

if TYPE_CHECKING:  # altair is imported by the chart builders only: the CLI text needs none
    import altair as alt

MAX_POINTS = 400
METHOD_COLOURS = (PRIMARY, HIGHLIGHT)


def _colour_scale(names) -> alt.Scale:
    import altair as alt
    names = list(names)
    return alt.Scale(domain=names, range=list(METHOD_COLOURS[:len(names)]))


def latency_bins(distributions: dict, bins: int = 40) -> pd.DataFrame:
    """Shared log-spaced bins over every method's latencies: ``method``, ``start``, ``end``,
    ``mid`` (geometric centre, ms), ``count`` and ``share`` (of that method's timings)."""
    if not distributions or bins < 1:
        raise ValueError("distributions must be a non-empty dict and bins >= 1")
    arrays = {m: np.asarray(v, dtype=float) for m, v in distributions.items()}
    allv = np.concatenate(list(arrays.values()))
    if allv.size == 0 or np.any(allv <= 0):
        raise ValueError("latencies must be non-empty and above 0")
    lo, hi = np.log10(allv.min()), np.log10(allv.max())
    if hi - lo < 1e-9:
        lo, hi = lo - 0.05, hi + 0.05
    edges = np.logspace(lo, hi, bins + 1)
    edges[0], edges[-1] = min(edges[0], allv.min()), max(edges[-1], allv.max())  # 10**log10(x)
    # can round below x, and np.histogram would then drop the largest timing
    rows = []
    for m, v in arrays.items():
        counts, _ = np.histogram(v, bins=edges)
        rows.append(pd.DataFrame({"method": m, "start": edges[:-1], "end": edges[1:],
                                  "mid": np.sqrt(edges[:-1] * edges[1:]), "count": counts,
                                  "share": counts / max(v.size, 1)}))
    return pd.concat(rows, ignore_index=True)


def distribution_chart(distributions: dict, *, title: str = "", x_title: str = "latency (ms)",
                       y_title: str = "share of timings", bins: int = 40) -> alt.Chart:
    """Per-method histograms (shares) on a shared log-scaled latency axis, as step lines."""
    import altair as alt
    df = latency_bins(distributions, bins)
    return alt.Chart(df).mark_line(interpolate="step", strokeWidth=2, point=False).encode(
        x=alt.X("mid:Q", title=x_title, scale=alt.Scale(type="log")),
        y=alt.Y("share:Q", title=y_title, axis=alt.Axis(format="%")),
        color=alt.Color("method:N", title=None, scale=_colour_scale(distributions)),
        tooltip=["method:N", alt.Tooltip("start:Q", format=".3g"),
                 alt.Tooltip("end:Q", format=".3g"), "count:Q",
                 alt.Tooltip("share:Q", format=".1%")],
    ).properties(title=wrap_title(title), height=260)


def thin_sorted(values, max_points: int = MAX_POINTS) -> pd.DataFrame:
    """Sorted values with their rank share ((i + 0.5) / n); above ``max_points`` values, the
    evenly spaced order statistics only (a quantile plot of the same shape)."""
    x = np.sort(np.asarray(values, dtype=float))
    n = x.size
    if n == 0:
        raise ValueError("values must not be empty")
    idx = np.arange(n) if n <= max_points else \
        np.unique(np.round(np.linspace(0, n - 1, max_points)).astype(int))
    return pd.DataFrame({"rank": (idx + 0.5) / n, "value": x[idx]})


def ratio_chart(ratios, *, title: str = "", x_title: str = "queries, sorted",
                y_title: str = "ratio B/A", faster_label: str = "B faster",
                slower_label: str = "B slower") -> alt.LayerChart:
    """Per-query ratios B/A, sorted, on a log axis with the line of no difference at 1;
    points below 1 (B faster) in the 'better' tone, above in the 'worse' tone. The axis
    spans the ratios and 1 (``core.views.charts.log_domain``), not whole decades, with
    ticks labelled "1×" through ``log_ticks``."""
    import altair as alt
    df = thin_sorted(ratios)
    lo, hi = log_domain(df["value"])
    df["side"] = np.where(df["value"] < 1, faster_label, slower_label)
    colours = alt.Scale(domain=[faster_label, slower_label],
                        range=[TONES["better"][0], TONES["worse"][0]])
    dots = alt.Chart(df).mark_circle(size=28, opacity=0.85).encode(
        x=alt.X("rank:Q", title=x_title, axis=alt.Axis(format="%")),
        y=alt.Y("value:Q", title=y_title,
                scale=alt.Scale(type="log", domain=[lo, hi], nice=False),
                axis=alt.Axis(values=log_ticks(lo, hi), labelExpr=TIMES_LABEL)),
        color=alt.Color("side:N", title=None, scale=colours),
        tooltip=[alt.Tooltip("value:Q", format=".3f", title=y_title)])
    one = alt.Chart(pd.DataFrame({"y": [1.0]})).mark_rule(
        color=REFERENCE, strokeWidth=2, strokeDash=[4, 3]).encode(y="y:Q")
    return alt.layer(dots, one).properties(title=wrap_title(title), height=260)


def runs_chart(warmups, *, k: int = 0, title: str = "", x_title: str = "run index",
               y_title: str = "geometric mean latency (ms)",
               mark_label: str = "warm-up ends") -> alt.LayerChart:
    """Geometric mean latency at each run index per method (``WarmupCheck.profile``), log
    axis, with a rule after run ``k`` when warm-up was found."""
    import altair as alt
    rows = [{"method": w.method, "run": i + 1, "ms": v, "queries": c}
            for w in warmups for i, (v, c) in enumerate(zip(w.profile, w.counts))]
    df = pd.DataFrame(rows, columns=["method", "run", "ms", "queries"])
    names = [w.method for w in warmups]
    line = alt.Chart(df).mark_line(point=True, strokeWidth=2).encode(
        x=alt.X("run:O", title=x_title, axis=alt.Axis(labelAngle=0)),
        y=alt.Y("ms:Q", title=y_title, scale=alt.Scale(type="log")),
        color=alt.Color("method:N", title=None, scale=_colour_scale(names)),
        tooltip=["method:N", "run:O", alt.Tooltip("ms:Q", format=".3g"), "queries:Q"])
    layers = [line]
    if k > 0 and len(df):
        mark = pd.DataFrame({"run": [k], "label": [mark_label]})
        layers.append(alt.Chart(mark).mark_rule(color=REFERENCE, strokeDash=[4, 3],
                                                strokeWidth=2).encode(x="run:O"))
        layers.append(alt.Chart(mark).mark_text(align="left", dx=4, dy=-90,
                                                color=REFERENCE).encode(x="run:O",
                                                                        text="label:N"))
    return alt.layer(*layers).properties(title=wrap_title(title), height=260)



# ----------------------------------------------------------------------------- sentences and CLI text
SPEED_KEYS = {"b_faster": "latency.speed_b_faster", "a_faster": "latency.speed_b_slower",
              "no_difference": "latency.speed_none"}




def ratio_strings(ratio: RatioEstimate) -> tuple[str, str, str]:
    """The geometric-mean ratio and its CI bounds, printed with ``ratio_digits``."""
    d = ratio_digits(ratio.geo_mean_ratio, ratio.geo_ci_low, ratio.geo_ci_high)
    return (fmt_ratio(ratio.geo_mean_ratio, d), fmt_ratio(ratio.geo_ci_low, d),
            fmt_ratio(ratio.geo_ci_high, d))


def speed_headline(ratio: RatioEstimate, *, a: str, b: str, lang: str = "en") -> str:
    """The verdict card's sentence, always read as B against A: 'B takes 0.69× the time of A:
    B is faster.' / '… B is slower.' / '… these 40 queries cannot tell which is faster.' The
    number is the geometric mean of the per-query ratios B/A (``RatioEstimate.geo_mean_ratio``);
    the verdict is ``core.latency.compare.speed_verdict``'s."""
    return t(SPEED_KEYS[ratio.verdict], lang, a=a, b=b, ratio=ratio_strings(ratio)[0],
             n=ratio.n_queries)


def speed_sentence(ratio: RatioEstimate, *, a: str, b: str, lang: str = "en") -> str:
    """``speed_headline`` with its evidence: the CI of the geometric-mean ratio B/A and the
    randomization p ('… B is faster. (95% CI [0.61, 0.78] …; randomization p < 0.001.)'),
    and on 'cannot tell' the reason (``cannot_tell_reason``)."""
    _, lo, hi = ratio_strings(ratio)
    text = t("latency.speed_detail", lang, sentence=speed_headline(ratio, a=a, b=b, lang=lang),
             level=fmt_level(ratio.confidence), lo=lo, hi=hi, a=a, b=b,
             p=p_text(ratio.randomization_p))
    reason = cannot_tell_reason(ratio, lang)
    return f"{text} {reason}" if reason else text


def cannot_tell_reason(ratio: RatioEstimate, lang: str = "en") -> str:
    """Why the verdict is 'cannot tell' ('' otherwise): the smallest p the sign-flip test
    could give with this many queries is not below alpha ('with 3 queries the smallest
    possible p is 0.25'), or which of the two conditions of ``speed_verdict`` failed."""
    if ratio.verdict != "no_difference":
        return ""
    alpha = significance_level(ratio.confidence)
    _, lo, hi = ratio_strings(ratio)
    params = {"n": ratio.n_queries, "alpha": f"{alpha:g}", "lo": lo, "hi": hi,
              "p": p_text(ratio.randomization_p), "min_p": f"{ratio.min_p:.3g}",
              "m": ratio.nonzero}
    excludes = ratio.geo_ci_high < 1 or ratio.geo_ci_low > 1
    small_p = ratio.randomization_p < alpha
    if ratio.min_p >= alpha:
        key = "latency.reason_min_p" if ratio.nonzero >= ratio.n_queries else \
            "latency.reason_min_p_ties"
    elif excludes and not small_p:
        key = "latency.reason_p"
    elif small_p and not excludes:
        key = "latency.reason_ci"
    else:
        key = "latency.reason_both"
    return t(key, lang, **params)


def caveat_line(warnings, lang: str = "en") -> str:
    """Every fairness warning in a few words on one line, for under the verdict card
    ("Read with care: warm-up in bm25 (...); cache hits: 22% of bm25, ..."), or "" when
    there is none. The presentation view hides the warnings' own boxes; this line stays."""
    items = [w.short(lang) for w in warnings]
    return t("latency.caveats", lang, items="; ".join(items)) if items else ""


def units_sentence(res: LatencyComparison, lang: str = "en") -> str:
    """The refusal when the units are in doubt (``LatencyComparison.scale``): no speed
    verdict, and how to state the units."""
    columns = "; ".join(p.column for p in res.scale)
    return t("latency.speed_units", lang, a=res.a, b=res.b, columns=columns)


def verdict_sentence(res: LatencyComparison, lang: str = "en") -> str:
    """The comparison's verdict as one text: the unit refusal, else ``speed_sentence``."""
    if res.verdict == "units_unclear":
        return units_sentence(res, lang)
    return speed_sentence(res.ratio, a=res.a, b=res.b, lang=lang)


def alternative_sentence(alt: RatioEstimate, *, a: str, b: str, lang: str = "en") -> str:
    """'If the first k runs are dropped: …' or 'Keeping every run: …'."""
    key = "latency.alternative_kept" if alt.drop_warmup == 0 else "latency.alternative_dropped"
    return t(key, lang, count=alt.drop_warmup, sentence=speed_sentence(alt, a=a, b=b, lang=lang))


def median_ratio_string(ratio: RatioEstimate) -> str:
    """The ratio of the medians of all timings B/A, printed with ``ratio_digits`` against its
    CI (the page's third tile and the ratios line)."""
    return fmt_ratio(ratio.median_ratio, ratio_digits(ratio.median_ratio, ratio.ci_low,
                                                      ratio.ci_high))


def ratios_line(res: LatencyComparison, lang: str = "en") -> str:
    """The one answer and the page's other ratios, each named for what it is (issue 37): 'The
    answer: a typical query takes 1.46× (geometric mean of per-query ratios B/A); ratio of
    the medians of all timings: 1.36×; with the first 2 runs of every query left out
    (warm-up): 2.01×'. The answer is the card's number (``RatioEstimate.geo_mean_ratio``,
    the verdict's); the others are printed as the tile and the info box print them. The
    warm-up reading only when ``core.latency.compare_latency`` computed an alternative."""
    r = res.ratio
    parts = [t("latency.ratios_headline", lang, ratio=ratio_strings(r)[0], a=res.a, b=res.b),
             t("latency.ratios_median", lang, ratio=median_ratio_string(r))]
    alt = res.alternative
    if alt is not None:
        key = "latency.ratios_kept" if alt.drop_warmup == 0 else "latency.ratios_dropped"
        parts.append(t(key, lang, count=alt.drop_warmup, ratio=ratio_strings(alt)[0]))
    return "; ".join(parts)


def p95_ci_text(m: MethodLatency) -> str:
    """A method's p95 interval as ``[lo, hi]`` in ms, or "—" where it is withheld."""
    if m.p95_ci is None:
        return "—"
    return f"[{fmt_ms(m.p95_ci[0])}, {fmt_ms(m.p95_ci[1])}]"


def p95_withheld_sentence(res: LatencyComparison, lang: str = "en") -> str | None:
    """Why the p95 intervals are withheld, said once for both methods (None when both have
    one): ``core.latency.p95.p95_ci_withheld``'s rule, the fewest queries or timings of a withheld
    method, and the bench figure behind the rule."""
    withheld = [m for m in (res.method_a, res.method_b) if m.p95_ci_withheld is not None]
    if not withheld:
        return None
    few_queries = [m for m in withheld if m.p95_ci_withheld == "few_queries"]
    if few_queries:
        key, n = "few_queries", min(m.n_queries for m in few_queries)
    else:
        key, n = "few_timings", min(m.n_runs for m in withheld)
    return t(f"latency.p95_ci_withheld_{key}", lang, queries=f"{P95_CI_MIN_QUERIES:,}",
             timings=f"{P95_CI_MIN_TIMINGS:,}", n=f"{n:,}", worst=pct(P95_CI_WORST_COVER, 0))


def comparison_text(res: LatencyComparison, lang: str = "en") -> str:
    """The CLI's readable summary."""
    r = res.ratio
    level = fmt_level(r.confidence)
    enc = " (read as CP949/EUC-KR)" if res.encoding == "cp949" else ""
    lines = [f"{res.source}{enc}: {r.n_queries} paired queries" +
             (f", runs 1 to {r.drop_warmup} of every query dropped" if r.drop_warmup else "")]
    if res.units:
        lines[0] += "; units " + ", ".join(f"{m}={u}" for m, u in res.units.items())
    if res.not_compared:
        names = ", ".join(res.not_compared)
        lines.append(f"  {names} {'is' if len(res.not_compared) == 1 else 'are'} in the log and "
                     "not compared; pick with --a/--b")
    for m in (res.method_a, res.method_b):
        p95_ci = "" if m.p95_ci is None else " " + p95_ci_text(m)
        lines.append(f"  {m.name}: median {fmt_ms(m.median)} ms [{fmt_ms(m.median_ci[0])}, "
                     f"{fmt_ms(m.median_ci[1])}], p95 {fmt_ms(m.p95)} ms{p95_ci}  "
                     f"({m.n_queries} queries, {m.n_runs} timings)")
    withheld = p95_withheld_sentence(res, lang)
    if withheld is not None:
        lines.append("  " + withheld)
    d = max(3, ratio_digits(r.median_ratio, r.ci_low, r.ci_high))
    lines.append(f"  ratio of medians {res.b}/{res.a}: {fmt_ratio(r.median_ratio, d)} {level} "
                 f"CI [{fmt_ratio(r.ci_low, d)}, {fmt_ratio(r.ci_high, d)}]")
    d = max(3, ratio_digits(r.geo_mean_ratio, r.geo_ci_low, r.geo_ci_high))
    lines.append(f"  geometric mean of per-query ratios: {fmt_ratio(r.geo_mean_ratio, d)} "
                 f"{level} CI [{fmt_ratio(r.geo_ci_low, d)}, {fmt_ratio(r.geo_ci_high, d)}]; "
                 f"randomization {p_text(r.randomization_p)}  ({r.resamples:,} resamples, "
                 f"seed {r.seed})")
    for w in res.warnings:
        lines.append("  ! " + w.message(lang))
    lines.append(verdict_sentence(res, lang))
    if res.alternative is not None and res.verdict != "units_unclear":
        lines.append(alternative_sentence(res.alternative, a=res.a, b=res.b, lang=lang))
    return "\n".join(lines)
