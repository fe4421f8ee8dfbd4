"""For the classroom: presentation mode, the "share this view" link with its QR code, and "reset this page".

Presentation mode is one URL parameter, ``present=true``, so a prepared link carries it: figures
get larger fonts (``chart``), each page's explanation folds into a closed expander
(``explanation``) and a page opened in it starts with the sidebar closed (``app.py``). It never
changes a number.
"""

from __future__ import annotations

import inspect
import io
import json
from contextlib import AbstractContextManager
from urllib.parse import urlencode, urlsplit

import plotly.graph_objects as go
import segno
import streamlit as st

from ui.cache import SharedFigure, computation
from ui.plotly_in_place import call_site, figure_json, plotly_in_place
from ui.rooms.drawing import record_chart, recording
from ui.rooms.membership import SESSION_KEYS as CLASS_STATE
from ui.rooms.schema import LESSON_KEYS, PAGE_KEYS, general_key
from ui.screen import COMPACT, KEY as SCREEN_KEY, PRESENT, compact, presenting, watch_screen
from viz.compact import sent_spec

SWITCHED = "present_switched"  # session state: this reader switched presentation mode themselves
RESETTING = "resetting_page"
SIDEBAR_AT_START = "sidebar_at_start"  # the sidebar's state when the session opened (app.py)
LAST_PAGE, LAST_URL = "last_page", "last_url"  # session state: the last run's page and URL (keep_page_keys)
OPENED_WITH_VIEW = "opened_with_view"  # session state: the page a switch opened with a whole view
LESSON_KEY = "lesson"
LOCAL_ADDRESS = "http://localhost:8501"
# Session state that is not a control: "reset this page" keeps it (models, uploads, a training run).
KEPT_STATE = frozenset({PRESENT, SWITCHED, SIDEBAR_AT_START, COMPACT, SCREEN_KEY, "session_id", "uploaded_checkpoints",
                        "trainer", "running", "playing", "chunk_lock", "lesson_step_shown", "lesson_answers",
                        LAST_PAGE, LAST_URL, OPENED_WITH_VIEW, *CLASS_STATE})
CLASS_KEYS = ("room", "teach")  # URL keys of a class (ui.rooms): a shared view carries neither


def chart(fig: go.Figure | SharedFigure, container=st, key: str | None = None, width="stretch",
          config: dict | None = None):
    """Draw ``fig`` in ``container``, updated in place on later runs (``ui.plotly_in_place``); in
    presentation mode every font 1.5x and the figure taller; in a compact window (``ui.screen.compact``) the colour
    bars under the plots (``viz.compact``).
    ``config``: Plotly's plot configuration. A figure from the figure cache (``ui.cache.cached_figure``)
    is serialised once for each way it is sent; any other figure on every run.

    Drawn as sent: every figure carries the project's own template (``viz.style.LAB_TEMPLATE``),
    and no chart theme rewrites it in the browser."""
    present, small = presenting(), compact()

    def serialised(as_presented: bool, as_compact: bool) -> bytes:
        def made(figure: go.Figure) -> bytes:
            return figure_json(sent_spec(figure.to_dict(), as_presented, as_compact), config)
        how = (as_presented, as_compact, json.dumps(config, sort_keys=True))
        return fig.json(how, made) if isinstance(fig, SharedFigure) else made(fig)

    data = serialised(present, small)

    def drawn(name: str) -> None:  # a teacher's chart goes into the class's drawing (ui.rooms.drawing)
        ways = {"plain": (False, False), "compact": (False, True), **({"present": (True, False)} if present else {})}
        record_chart(name, {mode: data if way == (present, small) else serialised(*way) for mode, way in ways.items()})

    return plotly_in_place(data, call_site(inspect.currentframe().f_back), container, key, width,
                           drawn=drawn if recording() else None)


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


def explanation(label: str = "What this page shows") -> AbstractContextManager:
    """Where a page's explanation goes: shown inline, or in a closed expander while presenting and on a
    compact screen (``ui.screen``), where the figure comes first."""
    return st.expander(label, expanded=False) if presenting() or compact() else st.container()


def view_link(url_path: str, query: dict[str, str | list[str]]) -> str:
    """The address of a view: the server the browser used, the page's path and its URL state (a list is
    a repeated key, as a multi-choice control keeps it)."""
    browser_url = getattr(st.context, "url", None) or LOCAL_ADDRESS
    parts = urlsplit(browser_url)
    base = f"{parts.scheme or 'http'}://{parts.netloc or 'localhost:8501'}"
    path = "/" + url_path.strip("/")
    return base + path + (f"?{urlencode(query, doseq=True)}" if query else "")


@computation
def qr_png(link: str, scale: int = 8) -> bytes:
    """A QR code of ``link`` as PNG bytes (error correction M, a 4-module quiet zone)."""
    code = segno.make(link, error="m", micro=False)
    out = io.BytesIO()
    code.save(out, kind="png", scale=scale, border=4)
    return out.getvalue()


def forget_controls() -> None:
    """Drop every control's value from session state (not presentation mode, models or a training
    run): each control then takes its value from the URL, or its default."""
    for key in list(st.session_state.keys()):
        if key not in KEPT_STATE:
            del st.session_state[key]


def _reset_page() -> None:
    """on_click of "reset this page": forget every control's value; the page is then opened again
    without its URL state (``classroom_bar``)."""
    forget_controls()
    st.session_state[RESETTING] = True


def _switched() -> None:
    st.session_state[SWITCHED] = True


def classroom_bar(page):
    """One row above every page: the presentation switch, "share this view", "reset this page" and a place
    for the class (``ui.rooms.follow.class_button``); on a
    compact screen (``ui.screen``) the three sit in the sidebar instead, so that the page's figure comes
    first, and presentation mode that came with a link is switched off (it is the projector's: a phone
    keeps its own size unless its reader switches it on).

    Returns the share popover while it is open (else None), and the class's place. ``share_view`` fills the
    popover once the page has run, so that the link holds the URL state of every control the page has drawn.
    After "reset this page" it opens ``page`` (a ``st.Page``) again with an empty URL state.
    """
    if st.session_state.pop(RESETTING, False):
        st.switch_page(page, query_params={})  # presentation mode stays in session state and returns to the URL
    watch_screen()
    if compact():
        if presenting() and not st.session_state.get(SWITCHED):
            st.session_state[PRESENT] = False
        left = middle = right = teach = st.sidebar.container()
    else:
        left, teach, middle, right = st.columns([2, 1, 1, 1], vertical_alignment="center")
    left.toggle("Presentation mode", key=PRESENT, bind="query-params", on_change=_switched,
                help="For the projector: larger figure fonts, explanations folded away, the sidebar closed. "
                     "The numbers do not change. It is part of the link, so a prepared link can carry it.")
    share = middle.popover("Share this view", icon=":material/qr_code_2:", width="stretch", key="share",
                           on_change="rerun")
    right.button("Reset this page", icon=":material/restart_alt:", key="reset_page", on_click=_reset_page,
                 width="stretch", help="Every control of this page back to its default.")
    return (share if share.open else None), teach


def share_view(share, url_path: str) -> None:
    """The current view's link and its QR code, in the open share popover."""
    if share is None:
        return
    link = view_link(url_path, {key: st.query_params.get_all(key) for key in st.query_params if key not in CLASS_KEYS})
    with share:
        st.caption("Students scan the code or open the link, and see exactly this view.")
        st.image(qr_png(link), width=260, output_format="PNG")  # lossless: JPEG would blur the modules
        st.code(link, language=None, wrap_lines=True)
