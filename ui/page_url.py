"""A page's own URL state: what of the address a page keeps when it opens (``keep_page_keys``), a page opened
with a whole view (``open_with_view``), and "Reset this page" (``reset_button``), which forgets the controls'
values and opens the page again with an empty URL state.

The URL holds the open page's own keys (``ui.rooms.schema.PAGE_KEYS``: the keys its controls read) and the bars'
(presentation mode, a class, a lesson step), so a shared link, a published view and a teacher's address hold
only the page's own settings: a key of the same name on another page is another setting.
"""

from __future__ import annotations

import streamlit as st

from ui.charts import SENT as CHARTS_SENT
from ui.rooms.membership import SESSION_KEYS as CLASS_STATE
from ui.rooms.schema import CLASS_KEYS, LESSON_KEYS, PAGE_KEYS, general_key
from ui.screen import COMPACT, KEY as SCREEN_KEY, PRESENT

from .presentation import SIDEBAR_AT_START, SWITCHED

RESETTING = "resetting_page"  # session state: "Reset this page" was pressed; the next run opens it anew
LAST_PAGE, LAST_URL = "last_page", "last_url"  # session state: the last run's page and URL (keep_page_keys)
OPENED_WITH_VIEW = "opened_with_view"  # session state: the page a switch opened with a whole view
LESSON_KEY = "lesson"
# Session state that is not a control: "reset this page" keeps it (models, uploads, a training run).
KEPT_STATE = frozenset({PRESENT, SWITCHED, SIDEBAR_AT_START, COMPACT, SCREEN_KEY, "session_id", "uploaded_checkpoints",
                        "trainer", "running", "playing", "chunk_lock", "lesson_step_shown", "lesson_answers",
                        LAST_PAGE, LAST_URL, OPENED_WITH_VIEW, CHARTS_SENT, *CLASS_STATE})


def keep_page_keys(page_path: str) -> None:
    """The URL holds the open page's own keys and the bars' (presentation, class, lesson), never a key another
    page's control left behind. Keys that no control of the page reads (``ui.rooms.schema``) are dropped; so
    are, after a navigation from another page, the keys the browser carried along from that page with the
    values it had there (``remember_url``): a key of the same name on this page is another setting. A page
    opened with a view (a lesson's link, a class's view: ``open_with_view``) keeps it. After a navigation the
    last page's controls forget their values: a control of the same key here takes the URL's, or its default;
    presentation mode is kept as the last page had it."""
    own = PAGE_KEYS.get(page_path)
    last_page, last_url = st.session_state.get(LAST_PAGE), st.session_state.get(LAST_URL, {})
    if last_page is not None and last_page != page_path:
        forget_controls()
    opened_with_view = st.session_state.pop(OPENED_WITH_VIEW, None) == page_path or LESSON_KEY in st.query_params
    if own is None:
        return
    carried = last_page is not None and last_page != page_path and not opened_with_view
    if carried and last_url.get(PRESENT) == ["true"] and PRESENT not in st.query_params:
        # a navigation soon after the first page opened can arrive without the bound switch's key: presentation
        # mode stays as the last page had it (switched off there, its URL had no key)
        st.query_params[PRESENT] = "true"
        st.session_state[PRESENT] = True
    for key in list(st.query_params):
        if key in CLASS_KEYS or key == PRESENT:
            continue
        if (key not in LESSON_KEYS and general_key(key) not in own) or (
                carried and last_url.get(key) == st.query_params.get_all(key)):
            del st.query_params[key]


def remember_url(page_path: str) -> None:
    """Call after the page: its URL state, for the next run's ``keep_page_keys``."""
    st.session_state[LAST_PAGE] = page_path
    st.session_state[LAST_URL] = {key: st.query_params.get_all(key) for key in st.query_params}


def open_with_view(page_path: str) -> None:
    """Call before ``st.switch_page(..., query_params=view)``: the page keeps the view's keys."""
    st.session_state[OPENED_WITH_VIEW] = page_path


def forget_controls() -> None:
    """Drop every control's value from session state (not presentation mode, models or a training
    run): each control then takes its value from the URL, or its default."""
    for key in list(st.session_state.keys()):
        if key not in KEPT_STATE:
            del st.session_state[key]


def _reset_page() -> None:
    """on_click of "Reset this page": forget every control's value; the next run opens the page again without
    its URL state (``reopen_after_reset``)."""
    forget_controls()
    st.session_state[RESETTING] = True


def reopen_after_reset(page) -> None:
    """Call first in a run: after "Reset this page", open ``page`` (a ``st.Page``) again with an empty URL state.
    Presentation mode stays in session state and returns to the URL."""
    if st.session_state.pop(RESETTING, False):
        st.switch_page(page, query_params={})


def reset_button(container) -> None:
    """The "Reset this page" button in ``container``."""
    container.button("Reset this page", icon=":material/restart_alt:", key="reset_page", on_click=_reset_page,
                     width="stretch", help="Every control of this page back to its default.")
