"""Make every page run through app.py's navigation, even on a server's very first request.

A folder named ``pages/`` next to the main script also switches on Streamlit's
older file-based multipage mode. Until some session has called ``st.navigation``,
a deep link such as ``/multi_head`` on a freshly started server runs that page
file on its own: no page config, no sections, file names in the sidebar. The
first page run in that state switches the mode off and reruns, so the link
resolves through app.py like any other.

The pages themselves live in folders (``pages/multi_head/page.py``), which the
older mode does not see; so each page also has a file ``pages/<name>.py`` at its
address that only calls ``require_navigation()``. Without it, that first request
would show Streamlit's "page not found" dialog before app.py takes over.
"""

from __future__ import annotations

import streamlit as st

from ui.streamlit_internals import leave_pages_directory_mode


def require_navigation() -> None:
    """Call first in every page script: reruns once if app.py's navigation was bypassed."""
    if leave_pages_directory_mode():
        st.rerun()
