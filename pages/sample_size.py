"""Sample-size planner: widgets -> core.sample_size -> draw. Nothing computed here.

Starting values come from the golden set loaded on the comparison page (session keys
``golden_comparison`` / ``golden_set``) via ``core.sample_size.defaults_from``.
"""
import pandas as pd
import streamlit as st

from core.errors import InputError
from core.sample_size import (defaults_from, discordant_count, half_width_curve,
                              plan_continuous, plan_paired, plan_rate)
from core.stats import CONFIDENCE_LEVELS
from core.views.format import fmt_p, level as fmt_level, pct
from core.views.sample_size import half_width_chart
from pages._ui import (Section, draw_chart, glossary, how_to_read, page_setup, report_downloads,
                       show_error, tr, tr_md)

page_setup()
ALPHAS = (0.01, 0.05, 0.10)


def _n(x: int) -> str:
    return f"{x:,}"


def _p1(share: float) -> str:
    """A share as unsigned %p / points with one decimal: 0.0213 -> '2.1'."""
    return f"{100 * abs(share):.1f}"


st.title(tr("sample_size.title"))
st.caption(tr("sample_size.subtitle"))

comp = st.session_state.get("golden_comparison")
gset = st.session_state.get("golden_set")
dflt = defaults_from(comp, None if comp is not None else gset)

# Widgets keep their values across reruns; reset the data-driven ones when the data change.
signature = (dflt.source, dflt.name, dflt.a, dflt.b, dflt.current_n)
if st.session_state.get("sample_size_signature") != signature:
    st.session_state["sample_size_signature"] = signature
    st.session_state["sample_size_rate"] = round(100 * dflt.rate, 1)
    st.session_state["sample_size_discordance"] = round(100 * dflt.discordance, 1)
    st.session_state["sample_size_diff"] = round(100 * dflt.diff, 1)
    st.session_state["sample_size_sigma"] = round(dflt.sigma, 3)
    st.session_state["sample_size_cdiff"] = round(100 * dflt.cdiff, 1)

kind = tr("sample_size.kind_binary" if dflt.binary else "sample_size.kind_continuous")
if dflt.source == "comparison":
    st.info(tr_md("sample_size.source_loaded", source=dflt.name, a=dflt.a, b=dflt.b,
               n=dflt.current_n, kind=kind), icon="ℹ️")
elif dflt.source == "golden_set":
    st.info(tr_md("sample_size.source_set_only", source=dflt.name, n=dflt.current_n, a=dflt.a),
            icon="ℹ️")
else:
    st.info(tr("sample_size.source_none"), icon="ℹ️")


def _origin(from_data: bool) -> str:
    return tr("sample_size.from_data" if from_data else "sample_size.from_default")


with st.sidebar:
    st.subheader(tr("common.settings"))
    confidence = st.selectbox(tr("common.confidence"), CONFIDENCE_LEVELS, index=1,
                              format_func=fmt_level, key="sample_size_confidence")
    alpha = st.selectbox(tr("sample_size.alpha"), ALPHAS, index=1, format_func=lambda a: f"{a:g}",
                         key="sample_size_alpha")
    power = st.slider(tr("sample_size.power"), 50, 99, 80, step=1, format="%d%%",
                      key="sample_size_power") / 100

target_pp = st.slider(tr("sample_size.target"), 0.5, 15.0, 5.0, step=0.5, format="±%.1f",
                      help=tr("sample_size.target_help") + "\n\n" + glossary("half_width", "pp"),
                      key="sample_size_target")
target = target_pp / 100
cur_n = dflt.current_n
level = fmt_level(confidence)

rp = pp_ = cp = rate_chart = None
tab_single, tab_paired, tab_cont = st.tabs([tr("sample_size.tab_single"),
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
        cp = plan_continuous(sigma, target, diff=cdiff_pt / 100, confidence=confidence,
                             alpha=alpha, power=power,
                             current_n=cur_n if cur_n and cur_n >= 2 else None)
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
        st.caption(tr("sample_size.continuous_method"))

# ----------------------------------------------------------------------------- report
st.subheader(tr("sample_size.report_title"))
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
plan_table = pd.DataFrame(plan_rows, columns=[tr("sample_size.col_design"),
                                              tr("sample_size.col_question"),
                                              tr("sample_size.col_n")])
sections = [Section(tr("sample_size.report_plan"), tr("sample_size.report_text",
                                                      level=level, alpha=f"{alpha:g}",
                                                      power=pct(power, 0)),
                    table=plan_table)]
if rate_chart is not None:
    sections.append(Section(tr("sample_size.chart_title", rate=pct(rp.rate)), chart=rate_chart))
summary = {"defaults": dflt.__dict__, "rate": None if rp is None else rp.to_dict(),
           "paired": None if pp_ is None else pp_.to_dict(),
           "continuous": None if cp is None else cp.to_dict()}
params = {"confidence": fmt_level(confidence), "alpha": alpha, "power": f"{power:.0%}",
          "target_half_width": f"{target_pp:g} %p"}
source = st.session_state.get("golden_source")
if dflt.source != "none" and isinstance(source, dict):
    params["golden_set"] = f"{source.get('name')} (sha256 {source.get('sha256', '')[:12]})"
report_downloads("sample_size", tr("sample_size.title"), sections, inputs={}, params=params,
                 per_case=None, summary=summary)

how_to_read("sample_size.how_to_read")
