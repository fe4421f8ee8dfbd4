"""Every chart of the app: ``chart`` draws a figure in place (``ui.plotly_in_place``), as presentation mode
wants it, and keeps what it sent where a run asks for that (a teacher's run: ``ui.rooms.drawing``).

The record of sent charts lives here, not in ``ui.rooms``, so that drawing a chart needs nothing of a class:
``ui.rooms`` opens the record at the start of a teacher's full run (``keep_sent_charts``) and reads it after
the page (``sent_charts``).
"""

from __future__ import annotations

import inspect
import json

import plotly.graph_objects as go
import streamlit as st

from ui.cache import SharedFigure
from ui.plotly_in_place import call_site, figure_json, plotly_in_place
from ui.screen import compact, presenting
from viz.compact import sent_spec

SENT = "charts_sent"  # session state: the charts this run sent, by name (mode -> figure JSON), while kept


def chart(
    fig: go.Figure | SharedFigure, container=st, key: str | None = None, width="stretch", config: dict | None = None
):
    """Draw ``fig`` in ``container``, updated in place on later runs (``ui.plotly_in_place``); in
    presentation mode every font 1.5x and the figure taller; in presentation mode and in a compact window
    (``ui.screen.compact``) the colour bars under the plots (``viz.compact``).
    ``config``: Plotly's plot configuration. A figure from the figure cache (``ui.cache.cached_figure``)
    is serialised once for each way it is sent; any other figure on every run.

    Drawn as sent: every figure carries the project's own template (``viz.style.LAB_TEMPLATE``),
    and no chart theme rewrites it in the browser. While the run keeps its sent charts (``keep_sent_charts``)
    the chart is kept by name in every way a student's screen may want it: plain, compact, and presented when
    presentation mode is on (a phone that follows a projector keeps its own size)."""
    present, small = presenting(), compact()

    def serialised(as_presented: bool, as_compact: bool) -> bytes:
        def made(figure: go.Figure) -> bytes:
            return figure_json(sent_spec(figure.to_dict(), as_presented, as_compact), config)

        how = (as_presented, as_compact, json.dumps(config, sort_keys=True))
        return fig.json(how, made) if isinstance(fig, SharedFigure) else made(fig)

    data = serialised(present, small)

    def drawn(name: str) -> None:
        sent = st.session_state.get(SENT)
        if sent is not None:
            sent.pop(name, None)  # a chart drawn again (a fragment's run) moves to its new place
            ways = {
                "plain": (False, False),
                "compact": (False, True),
                **({"present": (True, False)} if present else {}),
            }
            sent[name] = {mode: data if way == (present, small) else serialised(*way) for mode, way in ways.items()}

    return plotly_in_place(
        data,
        call_site(inspect.currentframe().f_back),
        container,
        key,
        width,
        drawn=drawn if SENT in st.session_state else None,
    )


def keep_sent_charts(keep: bool) -> None:
    """Call at the start of a full run: from here on the run keeps every chart it sends (``keep``), the record
    starting empty, or keeps none. A fragment's run adds to the record of the last full run."""
    if keep:
        st.session_state[SENT] = {}
    else:
        st.session_state.pop(SENT, None)


def sent_charts() -> dict[str, dict[str, bytes]] | None:
    """The charts sent since the record began, in the order drawn: name -> mode ("plain", "compact", "present") -> figure
    JSON; None while no record is kept."""
    return st.session_state.get(SENT)
