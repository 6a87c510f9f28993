"""Sample-size planner: widgets -> core.planning.sample_size -> draw. Nothing computed here.

Starting values come from the link that opened the page (``?design=paired&disc=20&diff=3&n=31``:
discordance in %, difference B − A in %p, ``sigma`` the SD of per-case differences, ``cdiff``
in points, ``n`` the cases you have, plus ``confidence``, ``alpha``, ``power``, ``target``),
else from the golden set loaded on the comparison page (session keys ``golden_comparison`` /
``golden_set``) via ``core.planning.sample_size.defaults_from``. The card on top answers "how many
cases to tell A and B apart" for the design the data call for (``design``), or, in the
non-inferiority mode (``?mode=noninferiority&margin=<%p or points>&assumed=<true B − A>``,
the link of an inconclusive "switch" or margin verdict), "how many cases show that B is not
worse than A by more than the margin" (``core.planning.noninferiority``).
"""
import pandas as pd
import streamlit as st

from core.errors import InputError
from core.i18n import t
from core.paired import CONFIDENCE_LEVELS, gold_cases_needed, plan_clusters, sequential_plan
from core.planning import (defaults_from, discordant_count, half_width_curve,
                           noninferiority_power_curve, plan_noninferiority, plan_paired, plan_rate,
                           plan_scores, power_curve, shape_of)
from core.views import VerdictCard
from core.views import plan_lines
from core.views import fmt_p, level as fmt_level, pct
from core.views import half_width_chart, power_chart
from core.views import plan_line
from pages._ui import (PRESENT_CHART_HEIGHT, Section, draw_chart, end_of_presentation, glossary,
                       current_lang, esc, how_to_read, inputs_box, keep_in_url, page_setup,
                       presenting,
                       report_downloads, show_card, show_error, tr, tr_md, url_index, url_number,
                       url_value)

from pages._sequential import sequential_toggle, url_flag

page_setup()
ALPHAS = (0.01, 0.05, 0.10)
DESIGNS = ("paired", "continuous")
MODES = ("difference", "noninferiority")


def _n(x: int) -> str:
    return f"{x:,}"


def _p1(share: float) -> str:
    """A share as unsigned %p / points with one decimal: 0.0213 -> '2.1'."""
    return f"{100 * abs(share):.1f}"


st.title(tr("sample_size.title"))
st.caption(tr("sample_size.question"))
head = st.container()   # the answer card (and, presenting, its chart): first on the page
guide = st.container()  # "How to read this", collapsed
inputs = inputs_box("sample_size")

comp = st.session_state.get("golden_comparison")
gset = st.session_state.get("golden_set")
dflt = defaults_from(comp, None if comp is not None else gset)

def _url_values() -> dict:
    """The planner's values in the address (None where absent or out of range)."""
    return {"rate": url_number("rate", 0.1, 99.9, None, float),
            "disc": url_number("disc", 0.1, 100.0, None, float),
            "diff": url_number("diff", -100.0, 100.0, None, float),
            "sigma": url_number("sigma", 0.001, 2.0, None, float),
            "cdiff": url_number("cdiff", 0.1, 100.0, None, float),
            "n": url_number("n", 1, 100_000_000, None),
            "design": url_value("design"),
            "mode": url_value("mode"),
            "margin": url_number("margin", 0.1, 50.0, None, float),
            "assumed": url_number("assumed", -50.0, 50.0, None, float)}


# A link (the "next step" of a "cannot tell" card) carries the data's own values; the values
# this page wrote into the address itself (its echo) are not a new link.
from_url = _url_values()
link = (any(v is not None for v in from_url.values())
        and from_url != st.session_state.get("sample_size_url_written"))

# Widgets keep their values across reruns; reset the data-driven ones when the data change
# or a new link arrives.
signature = (dflt.source, dflt.name, dflt.a, dflt.b, dflt.current_n)
st.session_state.setdefault("sample_size_mode", "difference")
if link and from_url["mode"] in MODES:
    st.session_state["sample_size_mode"] = from_url["mode"]
if link or st.session_state.get("sample_size_signature") != signature:
    def _start(param, value):
        return value if not link or from_url[param] is None else from_url[param]
    st.session_state["sample_size_link"] = ({k: from_url[k] for k in ("n", "design")}
                                            if link else {})
    st.session_state["sample_size_signature"] = signature
    st.session_state["sample_size_rate"] = _start("rate", round(100 * dflt.rate, 1))
    st.session_state["sample_size_discordance"] = _start("disc",
                                                         round(100 * dflt.discordance, 1))
    st.session_state["sample_size_diff"] = _start("diff", round(100 * dflt.diff, 1))
    st.session_state["sample_size_sigma"] = _start("sigma", round(dflt.sigma, 3))
    st.session_state["sample_size_cdiff"] = _start("cdiff", round(100 * dflt.cdiff, 1))
    st.session_state["sample_size_margin"] = _start("margin", 2.0)
    st.session_state["sample_size_assumed"] = _start("assumed", 0.0)

opened = st.session_state["sample_size_link"]
cur_n = opened["n"] if opened.get("n") is not None else dflt.current_n
design = opened.get("design")
if design not in DESIGNS:
    design = "continuous" if dflt.binary is False else "paired"

kind = tr("sample_size.kind_binary" if dflt.binary else "sample_size.kind_continuous")
if opened:
    inputs.info(tr("sample_size.source_link"), icon="🔗")
elif dflt.source == "comparison":
    inputs.info(tr_md("sample_size.source_loaded", source=dflt.name, a=dflt.a, b=dflt.b,
               n=dflt.current_n, kind=kind), icon="ℹ️")
elif dflt.source == "golden_set":
    inputs.info(tr_md("sample_size.source_set_only", source=dflt.name, n=dflt.current_n, a=dflt.a),
            icon="ℹ️")
else:
    inputs.info(tr("sample_size.source_none"), icon="ℹ️")


def _origin(from_data: bool) -> str:
    return tr("sample_size.from_data" if from_data else "sample_size.from_default")


with st.sidebar:
    st.subheader(tr("common.settings"))
    confidence = st.selectbox(tr("common.confidence"), CONFIDENCE_LEVELS,
                              index=url_index("confidence", CONFIDENCE_LEVELS, 1,
                                              lambda c: f"{100 * c:g}"),
                              format_func=fmt_level, key="sample_size_confidence")
    alpha = st.selectbox(tr("sample_size.alpha"), ALPHAS,
                         index=url_index("alpha", ALPHAS, 1, lambda a: f"{a:g}"),
                         format_func=lambda a: f"{a:g}", key="sample_size_alpha")
    power = st.slider(tr("sample_size.power"), 50, 99, url_number("power", 50, 99, 80),
                      step=1, format="%d%%", key="sample_size_power") / 100

mode_names = {m: tr(f"sample_size.mode_{m}") for m in MODES}
mode = inputs.radio(tr("sample_size.mode"), MODES, key="sample_size_mode", horizontal=True,
                    format_func=mode_names.get,
                    help=tr("sample_size.mode_help"))
if mode == "noninferiority":
    m1, m2 = inputs.columns(2)
    margin_pp = m1.number_input(tr("sample_size.margin"), 0.1, 50.0, step=0.5, format="%.1f",
                                key="sample_size_margin", help=tr("sample_size.margin_help"))
    assumed_pp = m2.number_input(tr("sample_size.assumed"), -50.0, 50.0, step=0.5,
                                 format="%.1f", key="sample_size_assumed",
                                 help=tr("sample_size.assumed_help"))
else:
    margin_pp = st.session_state["sample_size_margin"]
    assumed_pp = st.session_state["sample_size_assumed"]

target_pp = inputs.slider(tr("sample_size.target"), 0.5, 15.0,
                          url_number("target", 0.5, 15.0, 5.0, float), step=0.5,
                          format="±%.1f",
                          help=tr("sample_size.target_help") + "\n\n" + glossary("half_width", "pp"),
                          key="sample_size_target")
target = target_pp / 100
level = fmt_level(confidence)

rp = pp_ = cp = rate_chart = None
tab_single, tab_paired, tab_cont = inputs.tabs([tr("sample_size.tab_single"),
                                            tr("sample_size.tab_paired"),
                                            tr("sample_size.tab_continuous")])

# ----------------------------------------------------------------------------- one method
with tab_single:
    rate_pct = st.number_input(tr("sample_size.rate"), 0.1, 99.9, step=0.1, format="%.1f",
                               key="sample_size_rate")
    st.caption(tr("sample_size.rate_source", value=pct(dflt.rate),
                  source=_origin(dflt.rate_from_data)))
    try:
        rp = plan_rate(rate_pct / 100, target, confidence, current_n=cur_n)
    except InputError as exc:
        show_error(exc)
    else:
        c1, c2, c3 = st.columns(3)
        c1.metric(tr("sample_size.n_wilson"), _n(rp.n_wilson),
                  help=tr("sample_size.n_wilson_help") + "\n\n" + glossary("wilson"))
        c2.metric(tr("sample_size.n_normal"), _n(rp.n_normal), help=tr("sample_size.n_normal_help"))
        c3.metric(tr("sample_size.resolution"),
                  tr("sample_size.resolution_value", step=f"{100 * rp.resolution:.2g}"))
        st.caption(tr("sample_size.which_to_use", wilson=_n(rp.n_wilson),
                      normal=_n(rp.n_normal)))
        if rp.current_n is None:
            st.caption(tr("sample_size.no_current"))
        elif rp.current_half_width <= target:
            st.success(tr("sample_size.current_rate_ok", n=int(rp.current_n),
                          hw=_p1(rp.current_half_width), target=f"{target_pp:g}"))
        else:
            st.warning(tr("sample_size.current_rate", n=int(rp.current_n),
                          hw=_p1(rp.current_half_width), target=f"{target_pp:g}",
                          need=_n(rp.n_wilson), times=f"{rp.n_wilson / rp.current_n:.1f}"))
        n_max = 4 * max(rp.n_wilson, cur_n or 1, 100)
        rate_chart = half_width_chart(
            half_width_curve(rp.rate, confidence, n_max=n_max), target=target, current_n=cur_n,
            planned_n=rp.n_wilson, title=tr("sample_size.chart_title", rate=pct(rp.rate)),
            x_title=tr("sample_size.axis_n"), y_title=tr("sample_size.axis_hw"),
            target_label=tr("sample_size.mark_target"),
            current_label=tr("sample_size.mark_current", n=cur_n),
            planned_label=tr("sample_size.mark_planned", n=_n(rp.n_wilson)))
        if not presenting():  # the presentation view shows the answer's chart only
            draw_chart(rate_chart)

# ----------------------------------------------------------------------------- paired binary
with tab_paired:
    p1, p2 = st.columns(2)
    disc_pct = p1.number_input(tr("sample_size.discordance"), 0.1, 100.0, step=0.1,
                               format="%.1f", key="sample_size_discordance")
    diff_pp = p2.number_input(tr("sample_size.diff"), -100.0, 100.0, step=0.1, format="%.1f",
                              help=tr("sample_size.diff_help"), key="sample_size_diff")
    st.caption(tr("sample_size.discordance_source", disc=pct(dflt.discordance),
                  diff=f"{100 * dflt.diff:+.1f} %p", source=_origin(dflt.paired_from_data)))
    try:
        pp_ = plan_paired(disc_pct / 100, diff_pp / 100, target, confidence=confidence,
                          alpha=alpha, power=power, current_n=cur_n)
    except InputError as exc:
        show_error(exc)
    else:
        c1, c2 = st.columns(2)
        c1.metric(tr("sample_size.n_paired_ci", target=f"{target_pp:g}"), _n(pp_.n_ci),
                  help=glossary("half_width", "discordant"))
        if pp_.n_power is None:
            c2.caption(tr("sample_size.n_paired_power_none"))
        else:
            c2.metric(tr("sample_size.n_paired_power", diff=f"{_p1(pp_.diff)} %p",
                         power=pct(power, 0)), _n(pp_.n_power),
                      help=glossary("mcnemar", "discordant"))
        if cur_n is not None:
            if pp_.current_power is None:
                st.write(tr("sample_size.paired_current_ci", n=int(cur_n),
                            hw=_p1(pp_.current_half_width)))
            else:
                st.write(tr("sample_size.paired_current", n=int(cur_n),
                            hw=_p1(pp_.current_half_width), diff=f"{_p1(pp_.diff)} %p",
                            power=pct(pp_.current_power, 0)))
            ms = pp_.min_significant
            m = discordant_count(cur_n, pp_.discordance)
            if ms is None:
                st.warning(tr("sample_size.min_sig_none", n=int(cur_n), m=int(m),
                              alpha=f"{alpha:g}"))
            else:
                st.warning(tr("sample_size.min_sig", n=int(cur_n), m=int(ms.discordant),
                              diff=f"{_p1(ms.diff)} %p", a=int(ms.a_only), b=int(ms.b_only),
                              alpha=f"{alpha:g}", p=fmt_p(ms.p_value)))
        else:
            st.caption(tr("sample_size.no_current"))
        st.caption(tr("sample_size.paired_method"))

# ----------------------------------------------------------------------------- continuous
@st.cache_data(show_spinner=False, max_entries=32)
def _plan_scores(sigma, target, **kw):
    return plan_scores(sigma, target, **kw)


with tab_cont:
    if dflt.binary:
        st.caption(tr("sample_size.continuous_note"))
    q1, q2 = st.columns(2)
    sigma = q1.number_input(tr("sample_size.sigma"), 0.001, 2.0, step=0.01, format="%.3f",
                            help=tr("sample_size.sigma_help"), key="sample_size_sigma")
    cdiff_pt = q2.number_input(tr("sample_size.cdiff"), 0.1, 100.0, step=0.1, format="%.1f",
                               key="sample_size_cdiff")
    st.caption(tr("sample_size.sigma_source", sigma=f"{dflt.sigma:.3f}",
                  diff=f"{100 * dflt.cdiff:.1f}", source=_origin(dflt.sigma_from_data)))
    try:
        cp = _plan_scores(sigma, target, diff=cdiff_pt / 100, confidence=confidence,
                          alpha=alpha, power=power,
                          current_n=cur_n if cur_n and cur_n >= 2 else None,
                          d=None if dflt.binary else shape_of(comp))
    except InputError as exc:
        show_error(exc)
    else:
        c1, c2 = st.columns(2)
        c1.metric(tr("sample_size.n_continuous_ci", target=f"{target_pp:g}"), _n(cp.n_ci),
                  help=glossary("half_width"))
        c2.metric(tr("sample_size.n_continuous_power", diff=_p1(cp.diff), power=pct(power, 0)),
                  _n(cp.n_power), help=glossary("ttest", "cohens_dz"))
        if cp.current_n is not None:
            st.write(tr("sample_size.continuous_current", n=int(cp.current_n),
                        hw=_p1(cp.current_half_width), diff=_p1(cp.diff),
                        power=pct(cp.current_power, 0)))
        else:
            st.caption(tr("sample_size.no_current"))
        cal = cp.calibrated
        wider = f"{cal.percent_wider:.0f}"
        if cal.factor.source == "data":
            st.caption(tr("sample_size.shape_data", k=_n(cal.factor.n_data),
                          skew=f"{cal.factor.skewness:.2f}", pct=wider, n=_n(cal.n_ci),
                          n_t=_n(cal.n_t)))
        else:
            st.caption(tr("sample_size.shape_normal", pct=wider, n=_n(cal.n_ci),
                          n_t=_n(cal.n_t)))
        st.caption(tr("sample_size.continuous_method"))

# ----------------------------------------------------------------------------- the answer
looks_again = sequential_toggle("sample_size", inputs)   # issue 33: the sequential plan below
keep_in_url(design=design, seq=url_flag(looks_again), disc=st.session_state["sample_size_discordance"],
            diff=st.session_state["sample_size_diff"], sigma=st.session_state["sample_size_sigma"],
            cdiff=st.session_state["sample_size_cdiff"], n=cur_n,
            confidence=f"{100 * confidence:g}", alpha=f"{alpha:g}", power=round(100 * power),
            target=f"{target_pp:g}", mode=mode if mode != "difference" else None,
            margin=f"{margin_pp:g}" if mode != "difference" else None,
            assumed=f"{assumed_pp:g}" if mode != "difference" else None)
st.session_state["sample_size_url_written"] = _url_values()


def _noninferiority_plan():
    """The non-inferiority plan for ``design`` (Nam 1997 / one-sided paired t), or None with
    the error shown under the inputs."""
    try:
        spread = ({"discordance": st.session_state["sample_size_discordance"] / 100}
                  if design == "paired" else {"sigma": st.session_state["sample_size_sigma"]})
        return plan_noninferiority(margin_pp / 100, diff=assumed_pp / 100, alpha=alpha,
                                   power=power, current_n=cur_n if cur_n and cur_n >= 2
                                   else None, **spread)
    except InputError as exc:
        with inputs:
            show_error(exc)
        return None


nip = _noninferiority_plan() if mode == "noninferiority" else None


def _noninferiority_card():
    """The card answering "how many cases show that B is not worse than A by more than the
    margin?" and the power curve behind it."""
    if nip is None:
        return None, None
    unit = (lambda x: f"{x:g} %p") if design == "paired" else \
        (lambda x: tr("sample_size.card_points", diff=f"{x:g}"))
    design_name = tr("sample_size.tab_paired" if design == "paired"
                     else "sample_size.tab_continuous")
    spread = (tr("sample_size.card_disc", disc=pct(nip.discordance)) if design == "paired"
              else tr("sample_size.card_sigma", sigma=f"{nip.sigma:.3f}"))
    need = nip.n_needed
    sentence = tr("sample_size.card_ni_paired" if design == "paired"
                  else "sample_size.card_ni_continuous", count=_n(need),
                  margin=unit(margin_pp), assumed=unit(assumed_pp), power=pct(power, 0),
                  alpha=f"{alpha / 2:g}", spread=spread)
    reason = ("" if nip.current_power is None else
              tr("sample_size.card_ni_now", count=_n(cur_n), power=pct(nip.current_power, 0)))
    card = VerdictCard(
        tone="better" if cur_n is not None and cur_n >= need else "neutral",
        label=tr("sample_size.card_label_ni", design=design_name, margin=unit(margin_pp)),
        value=tr("sample_size.card_value", count=_n(need)),
        interval="" if cur_n is None else tr("sample_size.card_have", count=_n(cur_n)),
        sentence=sentence, reason=reason)
    n_max = 4 * max(need, cur_n or 1, 10)
    spread_kw = ({"discordance": nip.discordance} if design == "paired"
                 else {"sigma": nip.sigma})
    curve = noninferiority_power_curve(diff=nip.diff, margin=nip.margin, alpha=alpha,
                                       n_max=n_max, **spread_kw)
    chart = power_chart(curve, target=power, current_n=cur_n, planned_n=need,
                        title=tr("sample_size.power_chart_title_ni", design=design_name),
                        x_title=tr("sample_size.axis_n"), y_title=tr("sample_size.axis_power"),
                        target_label=tr("sample_size.mark_power", power=pct(power, 0)),
                        current_label=tr("sample_size.mark_current", n=cur_n),
                        planned_label=tr("sample_size.mark_planned", n=_n(need)))
    return card, chart


def _answer_card():
    """The card answering "how many cases to tell A and B apart?" for ``design``: the test's
    n when a difference is given (McNemar power, Connor 1987; paired t power, Sakai 2016),
    else the n for the target interval of B − A; and the power chart behind it."""
    plan = pp_ if design == "paired" else cp
    if plan is None:
        return None, None
    design_name = tr("sample_size.tab_paired" if design == "paired"
                     else "sample_size.tab_continuous")
    if design == "paired":
        diff_text, spread = f"{_p1(plan.diff)} %p", tr("sample_size.card_disc",
                                                      disc=pct(plan.discordance))
    else:
        diff_text, spread = tr("sample_size.card_points", diff=_p1(plan.diff)), \
            tr("sample_size.card_sigma", sigma=f"{plan.sigma:.3f}")
    if plan.n_power is not None:
        need = plan.n_power
        sentence = tr("sample_size.card_power_paired" if design == "paired"
                      else "sample_size.card_power_continuous", count=_n(need), diff=diff_text,
                      power=pct(power, 0), alpha=f"{alpha:g}", spread=spread)
    else:
        need = plan.n_ci
        sentence = tr("sample_size.card_ci", count=_n(need), target=f"{target_pp:g}",
                      level=level, spread=spread)
    reason = ""
    if cur_n is not None:
        if plan.n_power is not None and plan.current_power is not None:
            reason = tr("sample_size.card_now_power", count=_n(cur_n),
                        power=pct(plan.current_power, 0))
        elif plan.current_half_width is not None:
            reason = tr("sample_size.card_now_ci", count=_n(cur_n),
                        hw=_p1(plan.current_half_width))
    card = VerdictCard(
        tone="better" if cur_n is not None and cur_n >= need else "neutral",
        label=tr("sample_size.card_label", design=design_name),
        value=tr("sample_size.card_value", count=_n(need)),
        interval="" if cur_n is None else tr("sample_size.card_have", count=_n(cur_n)),
        sentence=sentence, reason=reason)
    chart = None
    if plan.n_power is not None:
        n_max = 4 * max(need, cur_n or 1, 10)
        curve = (power_curve(diff=plan.diff, discordance=plan.discordance, alpha=alpha,
                             n_max=n_max) if design == "paired" else
                 power_curve(diff=plan.diff, sigma=plan.sigma, alpha=alpha, n_max=n_max))
        chart = power_chart(curve, target=power, current_n=cur_n, planned_n=need,
                            title=tr("sample_size.power_chart_title", design=design_name),
                            x_title=tr("sample_size.axis_n"), y_title=tr("sample_size.axis_power"),
                            target_label=tr("sample_size.mark_power", power=pct(power, 0)),
                            current_label=tr("sample_size.mark_current", n=cur_n),
                            planned_label=tr("sample_size.mark_planned", n=_n(need)))
    return card, chart


answer, answer_chart = (_noninferiority_card() if mode == "noninferiority"
                        else _answer_card())
with head:
    if answer is not None:
        show_card(answer)
    if presenting() and answer_chart is not None:
        draw_chart(answer_chart, present_height=PRESENT_CHART_HEIGHT)
end_of_presentation()
with guide:
    how_to_read("sample_size.how_to_read")

# ----------------------------------------------------------------------------- report
plan_rows = []
if rp is not None:
    plan_rows += [(tr("sample_size.tab_single"), tr("sample_size.n_wilson"), rp.n_wilson),
                  (tr("sample_size.tab_single"), tr("sample_size.n_normal"), rp.n_normal)]
if pp_ is not None:
    plan_rows.append((tr("sample_size.tab_paired"),
                      tr("sample_size.n_paired_ci", target=f"{target_pp:g}"), pp_.n_ci))
    if pp_.n_power is not None:
        plan_rows.append((tr("sample_size.tab_paired"),
                          tr("sample_size.n_paired_power", diff=f"{_p1(pp_.diff)} %p",
                             power=pct(power, 0)), pp_.n_power))
if cp is not None:
    plan_rows += [(tr("sample_size.tab_continuous"),
                   tr("sample_size.n_continuous_ci", target=f"{target_pp:g}"), cp.n_ci),
                  (tr("sample_size.tab_continuous"),
                   tr("sample_size.n_continuous_power", diff=_p1(cp.diff), power=pct(power, 0)),
                   cp.n_power)]
if nip is not None:
    plan_rows.append((tr("sample_size.tab_paired" if design == "paired"
                         else "sample_size.tab_continuous"),
                      tr("sample_size.n_noninferiority", margin=f"{margin_pp:g}",
                         power=pct(power, 0)), nip.n_needed))
# ----------------------------------------------------------------------------- clusters
# issue 32: documents x questions x runs; the golden page's measured ICC and size prefilled
measured = st.session_state.get("golden_clusters") or {}
st.subheader(tr("clusters.plan_title"))
if measured:
    st.caption(tr_md("clusters.plan_measured", clusters=measured["n_clusters"],
                  icc=f"{measured['icc']:.2f}", m=f"{measured['mean_size']:.1f}"))
k1, k2, k3, k4 = st.columns(4)
icc_in = k1.number_input(tr("clusters.plan_icc"), 0.0, 1.0,
                         float(round(measured.get("icc", 0.0), 2)), 0.05,
                         key="sample_size_icc", help=tr("clusters.plan_icc_help"))
size_in = int(k2.number_input(tr("clusters.plan_size"), 1, 500,
                              int(round(measured.get("mean_size", 1))), key="sample_size_m"))
runs_in = int(k3.number_input(tr("clusters.plan_runs"), 1, 50, 1, key="sample_size_runs"))
share_in = k4.number_input(tr("clusters.plan_share"), 0.0, 1.0, 0.0, 0.05,
                           key="sample_size_run_share", help=tr("clusters.plan_share_help"))
cluster_block = None
if plan_rows and (icc_in > 0 or size_in > 1 or runs_in > 1 or share_in > 0):
    cluster_block = {"icc": icc_in, "cluster_size": size_in, "runs": runs_in,
                     "run_share": share_in,
                     "plans": {q: plan_clusters(int(n_), icc=icc_in, cluster_size=size_in,
                                                runs=runs_in, run_share=share_in).to_dict()
                               for _, q, n_ in plan_rows if n_ is not None}}
    for line in plan_lines(cluster_block, current_lang()):
        st.caption(esc(line))
else:
    st.caption(tr("clusters.plan_off"))

# ----------------------------------------------------------------------------- looks, cheap labels
@st.cache_data(show_spinner=False, max_entries=16)
def _sequential_plan(diff, confidence, power, discordance=None, sigma=None):
    return sequential_plan(diff, confidence=confidence, power=power, discordance=discordance,
                           sigma=sigma).to_dict()


# issue 33: the expected cases of a sequential verdict beside the fixed-n answer of the design
plan = pp_ if design == "paired" else cp
design_label = tr("sample_size.tab_paired" if design == "paired" else "sample_size.tab_continuous")
seq_block, seq_lines = None, []
if looks_again:
    st.subheader(tr("sample_size.seq_title"), help=tr("sequential.toggle_help"))
    if plan is None or plan.n_power is None or plan.diff <= 0:
        st.caption(tr("sample_size.seq_needs_diff", design=design_label))
    else:
        spread = ({"discordance": plan.discordance} if design == "paired"
                  else {"sigma": plan.sigma})
        try:
            seq_block = {**_sequential_plan(plan.diff, confidence, power, **spread),
                         "fixed_n": plan.n_power}
        except ValueError as exc:   # e.g. a difference larger than the discordance allows
            st.warning(esc(str(exc)), icon="⚠️")
        else:
            diff_text = (f"{_p1(plan.diff)} %p" if design == "paired"
                         else tr("sample_size.card_points", diff=_p1(plan.diff)))
            seq_lines = [tr("sample_size.seq_fixed", n=_n(plan.n_power), power=pct(power, 0),
                            diff=diff_text), plan_line(seq_block, current_lang()).strip()]
            for line in seq_lines:
                st.caption(esc(line))

# issue 34: with N cheap-labelled cases at correlation rho, the gold cases each answer needs
st.subheader(tr("sample_size.cheap_title"), help=tr("sample_size.cheap_help"))
ch1, ch2 = st.columns(2)
n_cheap = int(ch1.number_input(tr("sample_size.cheap_n"), 0, 10_000_000, 0, step=100,
                               key="sample_size_cheap"))
rho = float(ch2.number_input(tr("sample_size.cheap_rho"), -1.0, 1.0, 0.8, 0.05,
                             key="sample_size_rho"))
cheap_block, cheap_lines = None, []
if n_cheap > 0 and plan_rows:
    gold_only = {q: int(n_) for _, q, n_ in plan_rows if n_ is not None}
    cheap_block = {"n_cheap": n_cheap, "correlation": rho, "gold_only": gold_only,
                   "gold_needed": {q: gold_cases_needed(n0, n_cheap, rho)
                                   for q, n0 in gold_only.items()}}
    cheap_lines = [t("cheap.plan_line", current_lang(), key=q, n_cheap=f"{n_cheap:,}",
                     rho=f"{rho:g}", n=f"{n:,}", n0=f"{gold_only[q]:,}")
                   for q, n in cheap_block["gold_needed"].items()]
    for line in cheap_lines:
        st.caption(esc(line))
else:
    st.caption(tr("sample_size.cheap_off"))

st.subheader(tr("sample_size.report_title"))
plan_table = pd.DataFrame(plan_rows, columns=[tr("sample_size.col_design"),
                                              tr("sample_size.col_question"),
                                              tr("sample_size.col_n")])
if answer_chart is not None:
    st.subheader(tr("sample_size.power_chart_title_ni" if nip is not None
                    else "sample_size.power_chart_title", design=tr(
                        "sample_size.tab_paired" if design == "paired"
                        else "sample_size.tab_continuous")))
    draw_chart(answer_chart)
sections = [Section(tr("sample_size.report_plan"), tr("sample_size.report_text",
                                                      level=level, alpha=f"{alpha:g}",
                                                      power=pct(power, 0)),
                    table=plan_table)]
if rate_chart is not None:
    sections.append(Section(tr("sample_size.chart_title", rate=pct(rp.rate)), chart=rate_chart))
summary = {"defaults": dflt.__dict__, "rate": None if rp is None else rp.to_dict(),
           "paired": None if pp_ is None else pp_.to_dict(),
           "continuous": None if cp is None else cp.to_dict(),
           "noninferiority": None if nip is None else nip.to_dict()}
if cluster_block is not None:
    summary["clusters"] = cluster_block
if seq_block is not None:
    summary["sequential"] = seq_block
    sections.append(Section(tr("sample_size.seq_title"), "\n".join(seq_lines)))
if cheap_block is not None:
    summary["cheap"] = cheap_block
    sections.append(Section(tr("sample_size.cheap_title"), "\n".join(cheap_lines)))
params = {"confidence": fmt_level(confidence), "alpha": alpha, "power": f"{power:.0%}",
          "target_half_width": f"{target_pp:g} %p"}
source = st.session_state.get("golden_source")
if dflt.source != "none" and isinstance(source, dict):
    params["golden_set"] = f"{source.get('name')} (sha256 {source.get('sha256', '')[:12]})"
report_downloads("sample_size", tr("sample_size.title"), sections, inputs={}, params=params,
                 per_case=None, summary=summary, card=answer)
