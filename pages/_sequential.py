"""The 'I look at this set more than once' toggle (issue 33) shared by the golden, systems,
Switch? and scifact pages: the checkbox (kept in the URL as ``?seq=1``) and the block that
draws a confidence sequence (``core.views.sequential``: its lines and the chart of the
sequence narrowing beside the fixed-n interval). Nothing is computed here."""
from __future__ import annotations

import streamlit as st

from core.views import sequence_chart, sequential_lines
from pages._ui import draw_chart, esc, tr, url_value


def sequential_toggle(page: str, box=None) -> bool:
    """The checkbox in the inputs ``box``, first value from ``?seq=1``."""
    where = box if box is not None else st
    return bool(where.checkbox(tr("sequential.toggle"), value=url_value("seq") == "1",
                               key=f"{page}_sequential", help=tr("sequential.toggle_help")))


def url_flag(on: bool) -> str | None:
    """What ``keep_in_url`` writes for the toggle: '1' when on, nothing when off."""
    return "1" if on else None


def show_sequential(seq, a: str, b: str, lang: str, arrival=None, *,
                    queries: bool = False) -> None:
    """The sequence's lines (user names escaped) and its chart in a bordered box, then the
    caption that the fixed-n card below holds for one look only."""
    with st.container(border=True):
        for line in sequential_lines(seq, a, b, arrival, lang, queries=queries):
            st.markdown(esc(line.strip()))
        draw_chart(sequence_chart(seq, lang))
    st.caption(tr("sequential.cli_fixed_below"))


def range_warning(box=None) -> None:
    """Values outside [0, 1]: the sequence is not available, the fixed-n card stays."""
    (box if box is not None else st).warning(tr("sequential.err_range"), icon="⚠️")
