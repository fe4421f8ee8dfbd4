"""The classroom bar: one row above every page with the presentation switch (``ui.presentation``), "Share this
view" (``ui.sharing``), "Reset this page" (``ui.page_url``) and a place for the class (``ui.rooms``). On a
compact screen (``ui.screen``) they sit in the sidebar instead, so that the page's figure comes first."""

from __future__ import annotations

import streamlit as st

from ui.screen import compact, watch_screen

from .page_url import reopen_after_reset, reset_button
from .presentation import presentation_switch
from .sharing import share_popover


def classroom_bar(page):
    """Draw the bar for ``page`` (a ``st.Page``). Returns the share popover while it is open (else None), for
    ``ui.sharing.share_view`` to fill once the page has run, and the class's place (for
    ``ui.rooms.teaching.class_button``). After "Reset this page" it opens ``page`` again with an empty URL state."""
    reopen_after_reset(page)
    watch_screen()
    # Both of the bar's places are made on every screen, the unused one empty (ui.screen: a control keeps its place).
    if compact():
        st.empty()
        left = middle = right = teach = st.sidebar.container()
    else:
        st.sidebar.empty()
        left, teach, middle, right = st.columns([2, 1, 1, 1], vertical_alignment="center")
    presentation_switch(left)
    share = share_popover(middle)
    reset_button(right, page.url_path)
    return share, teach
