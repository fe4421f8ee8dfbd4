"""A page's own URL state: what of the address a page keeps when it opens (``keep_page_keys``), a page opened
with a whole view (``open_with_view``), and "Reset this page" (``reset_button``), which forgets the values of
the page's controls and opens the page again with an empty URL state.

The URL holds the open page's own keys (``ui.rooms.schema.PAGE_KEYS``: the keys its controls read) and the bars'
(presentation mode, a class, a lesson step), so a shared link, a published view and a teacher's address hold
only the page's own settings: a key of the same name on another page is another setting.

A control's value lives in session state under its key (its URL key, for a control bound to the URL). To put a
page's controls back to the URL's values or their defaults, exactly those keys are cleared (``control_keys``):
the page's URL keys and the keys of the controls its runs drew (``page_run``: the keys Streamlit saw during the
page's own script, so no list is kept by hand), but those of a control that belongs to the session rather than
the page (``kept_on_reset``: a model's upload). Everything else stays without a list of what to keep:
presentation mode, a model, a training run, a class, the answers of a class.
"""

from __future__ import annotations

import contextlib
from collections.abc import Collection, Iterable, Iterator

import streamlit as st

from ui.rooms.schema import CLASS_KEYS, LESSON_KEYS, PAGE_KEYS, general_key
from ui.screen import PRESENT
from ui import streamlit_internals

RESETTING = "resetting_page"  # session state: "Reset this page" was pressed; the next run opens it anew
LAST_PAGE, LAST_URL = "last_page", "last_url"  # session state: the last run's page and URL (keep_page_keys)
OPENED_WITH_VIEW = "opened_with_view"  # session state: the page a switch opened with a whole view
LESSON_KEY = "lesson"
BAR_KEYS = frozenset({PRESENT})  # URL keys every page lists for the bar's controls: not the page's own
DRAWN = "page_controls"  # session state: by page, the keys of the controls its runs drew (``page_run``)
KEPT_ON_RESET: set[str] = set()  # keys of controls a page draws that belong to the session (``kept_on_reset``)


def kept_on_reset(key: str) -> str:
    """``key``, named as the key of a control that a page draws but that belongs to the session, not the page
    (a model's upload): "Reset this page" and a navigation leave its value."""
    KEPT_ON_RESET.add(key)
    return key


@contextlib.contextmanager
def page_run(page_path: str) -> Iterator[None]:
    """Around the page's own script: the keys of the elements it draws are its controls' (``control_keys``),
    kept in session state by page, over every run, so a control drawn only under another's value is among them.
    Where Streamlit's record of a run's keys moved (``ui.streamlit_internals``), only the URL keys are known."""
    before = streamlit_internals.user_keys_this_run()
    try:
        yield
    finally:
        after = streamlit_internals.user_keys_this_run()
        if before is not None and after is not None:
            drawn = st.session_state.setdefault(DRAWN, {})
            drawn[page_path] = frozenset(drawn.get(page_path, ())) | (after - before - KEPT_ON_RESET)


def keep_page_keys(page_path: str) -> None:
    """The URL holds the open page's own keys and the bars' (presentation, class, lesson), never a key another
    page's control left behind. Keys that no control of the page reads (``ui.rooms.schema``) are dropped; so
    are, after a navigation from another page, the keys the browser carried along from that page with the
    values it had there (``remember_url``): a key of the same name on this page is another setting. A page
    opened with a view (a lesson's link, a class's view: ``open_with_view``) keeps it. After a navigation the
    last page's controls and this page's forget their values: a control here takes the URL's, or its default;
    presentation mode is kept as the last page had it."""
    own = PAGE_KEYS.get(page_path)
    last_page, last_url = st.session_state.get(LAST_PAGE), st.session_state.get(LAST_URL, {})
    if last_page is not None and last_page != page_path:
        forget_controls(last_page)
        forget_controls(page_path)  # and this page's: a value kept under one of its keys is another page's
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
            carried and last_url.get(key) == st.query_params.get_all(key)
        ):
            del st.query_params[key]


def remember_url(page_path: str) -> None:
    """Call after the page: its URL state, for the next run's ``keep_page_keys``."""
    st.session_state[LAST_PAGE] = page_path
    st.session_state[LAST_URL] = {key: st.query_params.get_all(key) for key in st.query_params}


def open_with_view(page_path: str) -> None:
    """Call before ``st.switch_page(..., query_params=view)``: the page keeps the view's keys."""
    st.session_state[OPENED_WITH_VIEW] = page_path


def control_keys(page_path: str, keys: Iterable[str], drawn: Collection[str] = ()) -> list[str]:
    """Those of ``keys`` (session-state keys) that hold a value of a control of the page ``page_path``: its URL
    keys (``PAGE_KEYS``, each number as ``#``) but the bar's, and ``drawn``, the keys of the controls its runs
    drew (``page_run``)."""
    own = PAGE_KEYS.get(page_path, frozenset()) - BAR_KEYS
    return [key for key in keys if (general_key(key) in own or key in drawn) and key not in KEPT_ON_RESET]


def forget_controls(page_path: str) -> None:
    """Drop the values of the controls of the page ``page_path`` from session state (``control_keys``): each
    then takes its value from the URL, or its default."""
    drawn = st.session_state.get(DRAWN, {}).get(page_path, ())
    for key in control_keys(page_path, list(st.session_state.keys()), drawn):
        del st.session_state[key]


def _reset_page(page_path: str) -> None:
    """on_click of "Reset this page": the page's controls forget their values; the next run opens the page
    again without its URL state (``reopen_after_reset``)."""
    forget_controls(page_path)
    st.session_state[RESETTING] = True


def reopen_after_reset(page) -> None:
    """Call first in a run: after "Reset this page", open ``page`` (a ``st.Page``) again with an empty URL state.
    Presentation mode stays in session state and returns to the URL."""
    if st.session_state.pop(RESETTING, False):
        st.switch_page(page, query_params={})


def reset_button(container, page_path: str) -> None:
    """The "Reset this page" button of the page ``page_path`` in ``container``."""
    container.button(
        "Reset this page",
        icon=":material/restart_alt:",
        key="reset_page",
        on_click=_reset_page,
        args=(page_path,),
        width="stretch",
        help="Every control of this page back to its default.",
    )
