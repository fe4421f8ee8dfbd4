"""A class on screen, the student's side: joining by link, following the teacher's view, "explore on my own"
and "follow again" (the teacher's side is ``ui.rooms.teaching``).

A session is in at most one class (``st.session_state[CLASS]``), as its teacher (it holds the secret) or
as a student. The URL says so too: ``?room=CODE`` joins a class on any page, and the teacher's own link
adds ``&teach=SECRET``; the "Share this view" link carries neither.

A student's session does not ask whether the teacher moved: the server's watcher (``ui.rooms.watcher``)
starts a run of it when its room changes, and that run opens the teacher's view before the page draws
(``follow_teacher``: the same page's controls take the view's URL state in that one run; another page is
opened with ``st.switch_page``). "Explore on my own" stops following and keeps the view; "Follow again"
opens the teacher's view again. The teacher's view is checked against the page's controls
(``ui.rooms.schema``) before a student opens it. The teacher's own session runs a fragment every
``TEACHER_SECONDS`` (``teacher_live``): it sends the view (also for controls that rerun only their part of
the page), counts the students and draws the class's answers.
"""

from __future__ import annotations

import contextlib
import time

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from ui.classroom import forget_controls
from ui.pages_index import PAGES

from .membership import (CLASS, JOINS, ROOM, TEACH, current_class, leave, notice as _notice, room_store,
                         room_watcher, spaced, student_id as _student_id, take_notice, this_session)
from .schema import view_problem
from .store import RoomsUnavailable, RoomView, normal_code
from .teaching import send_view, teacher_live
from .watcher import RoomState, read_room

JOINS_PER_MINUTE = 5
MISSING_GRACE_SECONDS = 30.0  # a room gone from a restarted store is waited for this long (its teacher refills it)
PAGE_PATHS = {page.url_path: page.path for page in PAGES}


def _join_allowed() -> bool:
    """At most JOINS_PER_MINUTE attempts a minute per session (a wrong code counts)."""
    now = time.time()
    recent = [t for t in st.session_state.get(JOINS, []) if now - t < 60]
    if len(recent) >= JOINS_PER_MINUTE:
        st.session_state[JOINS] = recent
        return False
    st.session_state[JOINS] = [*recent, now]
    return True


def join_from_link() -> None:
    """Call before the page's controls: a link's ``?room=CODE`` (with ``&teach=SECRET`` for the teacher) puts
    this session in that class; an unknown or ended class, or too many attempts, is said and the session
    stays on the app on its own. The URL keeps the class's keys while the session is in it."""
    linked = st.query_params.get(ROOM)
    here = current_class()
    if linked is None:
        if here:  # a link or a page without the class's keys: put them back (a reload stays in the class)
            st.query_params[ROOM] = here["code"]
            if here.get("secret"):
                st.query_params[TEACH] = here["secret"]
        return
    code = normal_code(linked)
    if here and code == here["code"]:
        if here.get("secret"):
            st.query_params[TEACH] = here["secret"]
        return
    secret = st.query_params.get(TEACH)
    st.query_params.pop(TEACH, None)
    if code is None:
        st.query_params.pop(ROOM, None)
        _notice("warning", f"“{linked[:20]}” is not a class code: a code has 8 letters and digits. "
                           "You are on the app on your own.")
        return
    if not _join_allowed():
        st.query_params.pop(ROOM, None)
        _notice("warning", "Too many attempts to join a class in a minute: wait a minute, then open the link again.")
        return
    try:
        store = room_store()
        view = store.view(code)
        teacher = secret is not None and view is not None and store.is_teacher(code, secret)
    except RoomsUnavailable:
        st.query_params.pop(ROOM, None)
        _notice("warning", "The server that holds the classes cannot be reached just now, so the class could not "
                           "be joined. The app works on its own; open the link again in a moment.")
        return
    if view is None:
        st.query_params.pop(ROOM, None)
        _notice("warning", f"There is no class {code} now: it has ended, or the code is mistyped. "
                           "You are on the app on your own.")
        return
    st.query_params[ROOM] = code
    if teacher:
        st.session_state[CLASS] = {"code": code, "secret": secret}
        st.query_params[TEACH] = secret
    else:
        st.session_state[CLASS] = {"code": code, "following": True, "applied": 0}
        with contextlib.suppress(RoomsUnavailable):  # counted at once; the server's watcher keeps marking it present
            store.seen(code, _student_id())
        if secret is not None:
            _notice("warning", "That teacher's link does not belong to this class: you follow it as a student.")


def _set_following(following: bool) -> None:
    here = current_class()
    if here:
        st.session_state[CLASS] = {**here, "following": following, "applied": 0 if following else here["applied"]}


def follow_teacher(page_path: str) -> None:
    """Call before the page's controls, in a student's run: read the room; when the teacher's view changed
    and the student follows, open it (``_open``); a class that ended is left and said. What the run saw
    is kept (``here["saw"]``) for the server's watcher."""
    here = current_class()
    if not here or here.get("secret"):
        return
    saw, view = read_room(room_store(), here["code"], time.monotonic())
    if saw.kind == "ended" or (saw.kind == "missing" and time.time() - here.setdefault("missing_since", time.time())
                               > MISSING_GRACE_SECONDS):
        leave()
        _notice("info", "The class has ended. You keep the view you have.")
        return
    here["saw"] = saw
    if saw.kind != "view":
        return
    here.pop("missing_since", None)
    here["revealed"] = saw.revealed
    if here["following"] and view.version != here["applied"]:
        _open(view, here, page_path)


def _student_strip() -> None:
    """Say whom the student follows, with "Explore on my own" or "Follow again"."""
    here = current_class()
    saw: RoomState = here.get("saw", RoomState("missing"))
    if saw.kind == "unavailable":
        st.warning("The server that holds the classes cannot be reached: this page works on its own, and "
                   "the class resumes when it is back.", icon=":material/cloud_off:")
    elif saw.kind == "missing":
        st.caption(f"Class **{spaced(here['code'])}**: waiting for the teacher's screen…")
    elif not here["following"]:
        st.caption(f"Exploring on my own · class **{spaced(here['code'])}**.")
        st.button("Follow again", icon=":material/sync:", key="follow_again", on_click=_set_following, args=(True,))
    else:
        st.caption(f"Following the teacher · class **{spaced(here['code'])}**.")
        st.button("Explore on my own", icon=":material/explore:", key="explore", on_click=_set_following,
                  args=(False,))


def _open(view: RoomView, here: dict, page_path: str) -> None:
    """Open the teacher's view in this run, before the page draws: its page with its URL state and the
    class's code; the controls forget their values so that the URL's win. A view that does not fit its
    page is not opened."""
    problem = view_problem(view.page, view.query)
    here["applied"] = view.version
    if problem is not None:
        _notice("warning", f"The teacher's view could not be shown here: {problem}.")
        return
    forget_controls()
    query = {**view.query, ROOM: here["code"]}
    _release_url_state()  # the URL state is set whole, so the controls let go of their keys first
    if view.page != page_path:
        st.switch_page(PAGE_PATHS[view.page], query_params=query)
    st.query_params.from_dict(query)  # the same page: this run draws it with the view's settings
    with get_script_run_ctx().session_state.query_params() as params:
        params.set_initial_query_params_from_current()  # controls without a value take the URL's


def _release_url_state() -> None:
    """Let go of the URL keys this page's controls are bound to, so that ``st.switch_page`` may set them (it
    refuses a bound key, which only the same page has: Streamlit internals, tests/test_streamlit_internals.py).
    The controls bind them again as the page runs."""
    with get_script_run_ctx().session_state.query_params() as params:
        for binding in list(params._bindings_by_param.values()):
            params.unbind_widget(binding.widget_id)


def after_page(page_path: str) -> None:
    """Call after the page has run: the teacher's view goes out; a student's session tells the server's
    watcher what this run drew (the room's state, its page and URL), for the run it starts on a change."""
    here = current_class()
    if not here:
        return
    if here.get("secret"):
        send_view(page_path)
        return
    ctx = get_script_run_ctx()
    room_watcher().listen(this_session(), here["code"], (ctx.page_script_hash, ctx.query_string), _student_id(),
                          here["following"], here.get("saw", RoomState("missing")))


def class_strip(page_path: str) -> None:
    """Below the classroom bar: the last class message, and the class while in one: the teacher's live
    part (``teacher_live``), or whom the student follows."""
    notice = take_notice()
    if notice:
        getattr(st, notice[0])(notice[1])
    here = current_class()
    if here and here.get("secret"):
        teacher_live(page_path)
    elif here:
        _student_strip()
