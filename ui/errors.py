"""What a user sees when a page fails. With the shipped config (``client.showErrorDetails = "none"`` in
.streamlit/config.toml) an error in a page is said in one short message that says what to do, and the
server's log keeps its traceback: no file paths or source lines reach a student's screen or the projector.
Any other setting of that option (the tests set "full") lets the error through, as Streamlit shows it.
Errors outside a page's run (a callback, the class's live part) get Streamlit's own redacted message."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator

import streamlit as st

_LOG = logging.getLogger("attention_lab.pages")
REDACTED = ("none", "type")  # the settings of client.showErrorDetails that keep tracebacks off the screen
MESSAGE = (
    "This page ran into an error with these settings. Change the last setting back, or press “Reset this "
    "page” above; if it happens again, reload the page. The details are in the server's log."
)


@contextlib.contextmanager
def said_shortly(page: str) -> Iterator[None]:
    """Around a page's run: an error in it is logged with its traceback and said in MESSAGE (see the module).
    Streamlit's own rerun and stop are not errors and go through."""
    try:
        yield
    except Exception:
        if str(st.get_option("client.showErrorDetails")) not in REDACTED:
            raise
        _LOG.exception("the page %s failed", page)
        st.error(MESSAGE, icon=":material/error:")
