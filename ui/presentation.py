"""Presentation mode: for the projector. It is one URL parameter, ``present=true`` (``ui.screen.PRESENT``,
read by ``ui.screen.presenting``), so a prepared link carries it: figures get larger fonts (``ui.charts``), so
does the page's text (``ui.screen``), and a page opened in it starts with the sidebar closed (``sidebar_at_start``).
It never changes a number. A page's explanation (``explanation``) is folded on every screen, presenting or not.

A compact screen (a phone) keeps its own size: presentation mode that came with a link is switched off there,
unless its reader switched it on (``SWITCHED``). A window that was compact for a while (a laptop's window made
narrow, then wide again on the projector) gets it back once it is wide, unless its reader switched it meanwhile
(``HELD``).
"""

from __future__ import annotations

from contextlib import AbstractContextManager

import streamlit as st

from ui.screen import PRESENT, compact, presenting

SWITCHED = "present_switched"  # session state: this reader switched presentation mode themselves
HELD = "present_held"  # session state: presentation mode a compact window switched off, back once it is wide
SIDEBAR_AT_START = "sidebar_at_start"  # session state: the sidebar's state when the session opened


def sidebar_at_start() -> str:
    """The sidebar's opening state, read once per session from the link: one with present=true opens with the
    sidebar closed. Switching presentation mode later leaves the sidebar where it is: sliding it away would widen
    the page after the figures were drawn, and every figure would be laid out a second time."""
    return st.session_state.setdefault(SIDEBAR_AT_START, "collapsed" if presenting() else "auto")


def explanation(label: str = "What this page shows", inline_on_a_desktop: bool = False) -> AbstractContextManager:
    """Where a page's explanation goes: a closed expander, so that the page's figure is on the first screen of
    every screen (``ui.screen``). A page without figures (Lessons) may keep it
    ``inline_on_a_desktop``, folding it only while presenting and on a compact screen."""
    inline = inline_on_a_desktop and not (presenting() or compact())
    return st.container() if inline else st.expander(label, expanded=False)


def _switched() -> None:
    st.session_state[SWITCHED] = True


def presentation_switch(container) -> None:
    """The switch, bound to the URL, in ``container``. Call once a run, before the page: on a compact screen,
    presentation mode that came with a link is switched off first (it is the projector's), and switched on again
    when the window is wide once more."""
    if compact() and presenting() and not st.session_state.get(SWITCHED):
        st.session_state[PRESENT] = False
        st.session_state[HELD] = True
    elif not compact() and st.session_state.pop(HELD, False) and not st.session_state.get(SWITCHED):
        st.session_state[PRESENT] = True
    container.toggle(
        "Presentation mode",
        key=PRESENT,
        bind="query-params",
        on_change=_switched,
        help="For the projector: larger figures' fonts and text, the open section scrolled to the top, the sidebar "
        "closed. "
        "The numbers do not change. It is part of the link, so a prepared link can carry it.",
    )
