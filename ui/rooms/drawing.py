"""What a teacher's run drew, as a *drawing* its students' browsers show without a run of their own.

Every chart of a teacher's run is kept by name (``ui.charts.keep_sent_charts``) as the JSON it was sent as: in
the teacher's mode, and in presentation mode also plain (a phone that follows keeps its own size). A full run
starts a new record (``begin_run``); a fragment's run replaces the charts it draws.
After the run the view goes out (``publish``): the room's view (page and URL state) to its store, then the
drawing for each mode, to the store (which carries it to other servers) and to this server's board
(``classroom.board``), which answers the students' browsers at once.

A drawing is JSON: ``version`` (the room view's), ``page``, ``query`` (the teacher's URL state), ``settings``
(what the student's strip shows), ``present``, ``layout`` (a digest of what a student's page must hold to take
this drawing in place: the page, its section, lesson step and model, its charts' names in order and the
digest of everything else its page wrote: ``ui.rooms.page_text``), ``whole`` (whether ``copy`` holds all the
page shows), ``charts`` (name -> Plotly figure) and ``copy`` (the page as HTML, its charts as empty places named
for them: ``ui.rooms.page_copy``). A student's browser that shows another layout shows the copy in place of its
page, with the teacher's figures in it; where the copy is not whole, it starts a run of its own.
"""

from __future__ import annotations

import hashlib
import json

import streamlit as st

from classroom.board import BOARD
from classroom.store import MAX_DRAWING_CHARS

from ui.charts import keep_sent_charts, sent_charts
from ui.plotly_in_place import COMPONENT_NAME
from ui.streamlit_internals import session_id

from .page_copy import page_copy
from .page_text import page_text

LAYOUT_KEYS = ("section", "lesson", "step", "model")  # URL keys whose change changes what a page holds
QUIET_KEYS = frozenset(
    {"present", "lesson", "step", "section", "pixels"}
)  # not shown among the teacher's settings (pixels: an image as 64 characters)
MAX_SETTING_CHARS = 60
TEACHER_ONLY = frozenset(
    {"chart:class_answers", "chart:class_progress", "chart:class_board_answers"}
)  # the class's answers and its board (ui/rooms/pace_board.py), drawn for the teacher alone
SENT = "class_drawing_sent"  # session state: (code, digest) of the last drawing sent


def begin_run(teaching: bool) -> None:
    """Call at the start of every full run: the teacher's record (charts, and the page's text:
    ``ui.rooms.page_text``) starts empty; other sessions keep none."""
    kept = sent_charts() is not None
    keep_sent_charts(teaching)
    if teaching:
        page_text().start(session_id())
    elif kept:
        page_text().stop(session_id())


def layout_of(page: str, query: dict[str, list[str]], names: list[str], text: str = "") -> str:
    """What a page holds, as ``"<parts>|<text>"``: a digest of the page, the URL values that change its parts
    and its charts in order, then the digest of what it wrote besides (``ui.rooms.page_text``). A student's
    page with the same parts takes the figures in place; where the text differs, it also runs again."""
    parts = [page, *(f"{key}={query.get(key, [''])}" for key in LAYOUT_KEYS), *names]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16] + "|" + text


def settings_of(query: dict[str, list[str]]) -> list[list[str]]:
    """The teacher's settings as the student's strip shows them: each URL key but the page's place, with its
    value(s) cut to MAX_SETTING_CHARS."""
    shown = []
    for key, values in sorted(query.items()):
        if key not in QUIET_KEYS:
            text = ", ".join(values)
            shown.append([key, text if len(text) <= MAX_SETTING_CHARS else text[: MAX_SETTING_CHARS - 1] + "…"])
    return shown


def compose(
    version: int,
    page: str,
    query: dict[str, list[str]],
    present: bool,
    charts: dict[str, dict[str, bytes]],
    layout: str,
    copy: str = "",
    whole: bool = False,
) -> dict[str, str]:
    """The drawing of each mode the charts were sent in, as JSON text; a figure's JSON is put in as it is. The
    page's ``copy`` comes after the charts, ``whole`` before them (what a student's browser compares first)."""
    head = {
        "version": version,
        "page": page,
        "query": query,
        "settings": settings_of(query),
        "present": present,
        "layout": layout,
        "whole": whole,
    }
    modes = {mode for sent in charts.values() for mode in sent} or {"present" if present else "plain"}
    drawings = {}
    for mode in modes:
        figures = b",".join(
            json.dumps(name).encode() + b":" + sent[mode] for name, sent in charts.items() if mode in sent
        )
        text = (
            json.dumps(head)[:-1].encode() + b',"charts":{' + figures + b'},"copy":' + json.dumps(copy).encode() + b"}"
        )
        drawings[mode] = text.decode("utf-8")
    return drawings


def publish(
    store, code: str, secret: str, page: str, query: dict[str, list[str]], present: bool, with_copy: bool = True
) -> int | None:
    """The teacher's view goes out: the room's view to ``store``, then this run's drawing to the store and to
    this server's board, with the copy of the page where ``with_copy`` (else none, and not whole: the students'
    pages run). Returns the view's version (None: not the room's teacher, or a view too large to go out,
    ``classroom.store.checked_view``)."""
    try:
        version = store.publish(code, secret, page, query)
    except ValueError:  # a view larger than a room carries (a long pasted text): the teacher's page says so
        return None
    sent = sent_charts()
    if version is None or sent is None:
        return version
    charts = {name: modes for name, modes in sent.items() if name not in TEACHER_ONLY}
    record, session = page_text(), session_id()
    layout = layout_of(page, query, list(charts), record.digest(session))
    copy, whole = page_copy(record.elements(session), COMPONENT_NAME) if with_copy and record.watching else ("", False)
    # a mode whose figures are too large to send is left out: its students' pages draw the view themselves
    drawings = {
        mode: text
        for mode, text in compose(version, page, query, present, charts, layout, copy, whole).items()
        if len(text) <= MAX_DRAWING_CHARS
    }
    if not drawings:
        return version
    digest = hashlib.sha256("".join(drawings[mode] for mode in sorted(drawings)).encode()).hexdigest()
    if st.session_state.get(SENT) == (code, digest):
        return version  # the same drawing went out already: the students are not woken for nothing
    token = store.view_token(code)
    if token is not None and store.publish_drawing(code, secret, version, drawings):
        BOARD.put(token, {mode: text.encode("utf-8") for mode, text in drawings.items()}, version, layout)
        st.session_state[SENT] = (code, digest)
    return version
