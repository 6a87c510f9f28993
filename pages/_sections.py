"""Detail sections several pages share, drawn below the card: B − A per query group
(``core.inputs.groups``) and missing labels (``core.inputs.judged``). Each draws itself and returns the
report's sections; user text (method names, group labels) only through the escaping helpers
of ``pages._ui``."""
from __future__ import annotations

import streamlit as st

from core.serialize import to_csv_bytes
from core.views import (cluster_note, forest_chart, group_table, interaction_parts,
                               interaction_sentence, intro_params, judged_table, verdict_params)
from core.views import Section
from pages._ui import current_lang, draw_chart, esc, show_table, tr, tr_md


def show_groups(gc, hint_key: str = "groups.hint") -> list[Section]:
    """The per-group table, its forest chart and the interaction test of a
    ``core.inputs.groups.GroupComparison``; with ``gc`` None, a one-line hint (``hint_key``) on how
    to add groups. Returns the report's sections."""
    if gc is None:
        st.caption(tr(hint_key))
        return []
    lang = current_lang()
    title = (tr("groups.title_column", column=gc.column) if gc.column
             else tr("groups.title"))
    if gc.column:
        st.subheader(tr_md("groups.title_column", column=gc.column))
    else:
        st.subheader(tr("groups.title"))
    if gc.ungrouped:
        st.warning(tr_md("groups.ungrouped", count=len(gc.ungrouped),
                         ids=", ".join(gc.ungrouped[:20])), icon="⚠️")
    if gc.unmatched:
        st.warning(tr_md("groups.unmatched", count=len(gc.unmatched),
                         ids=", ".join(gc.unmatched[:20])), icon="⚠️")
    if not gc.groups:  # no compared case has a label (ids that do not match?)
        return []
    st.caption(tr_md("groups.intro", **intro_params(gc)))
    table = group_table(gc, lang)
    show_table(table)
    chart = forest_chart(gc, title=tr("groups.col_diff", a=gc.a, b=gc.b),
                         x_title=tr("groups.col_diff", a=gc.a, b=gc.b))
    draw_chart(chart)
    note = cluster_note(gc, lang)   # clusters as the unit (issue 32)
    if note is not None:
        st.caption(esc(note))
    parts = [tr("groups.intro", **intro_params(gc))] + ([] if note is None else [note])
    if gc.clusters != "crossed":   # crossed clusters: no interaction test (the note says why)
        key, params = interaction_parts(gc, lang)
        st.markdown(tr_md(key, **params))
        parts.append(interaction_sentence(gc, lang))
    text = "\n".join(parts)
    return [Section(title, text, table=table, chart=chart)]


def show_judged(jb, page: str, kind: str, names: dict | None = None,
                title_key: str = "judged.title") -> list[Section]:
    """Judged@k of every method, its metric with unjudged documents non-relevant and
    relevant, the verdict under both readings (a warning when they differ) and the CSV of
    the pooled unjudged documents (download key ``<page>_unjudged_csv``); ``names`` maps
    method ids to the names shown, ``title_key`` the heading. Returns the report's sections."""
    lang = current_lang()
    st.subheader(tr(title_key, k=int(jb.k)))
    st.caption(tr("judged.intro", k=int(jb.k)))
    table = judged_table(jb, lang, kind, names)
    show_table(table)
    params = verdict_params(jb, lang, kind, names)
    st.markdown(tr_md("judged.verdicts", **params))
    if jb.differ:
        st.warning(tr("judged.differ"), icon="⚠️")
    else:
        st.caption(tr("judged.same"))
    queries = int(jb.pool["query_id"].nunique())
    if len(jb.pool):
        st.caption(tr("judged.pool_caption", k=int(jb.k), count=f"{len(jb.pool):,}",
                      queries=f"{queries:,}"))
        st.download_button(tr("judged.pool_download"), to_csv_bytes(jb.pool),
                           file_name=f"noisefloor_{page}_unjudged.csv", mime="text/csv",
                           key=f"{page}_unjudged_csv", on_click="ignore")
    else:
        st.caption(tr("judged.pool_empty", k=int(jb.k)))
    text = "\n".join([tr("judged.verdicts", **params),
                      tr("judged.differ" if jb.differ else "judged.same")])
    return [Section(tr(title_key, k=int(jb.k)), text, table=table)]
