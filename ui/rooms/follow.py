"""A class on screen, the student's side: joining by link, following the teacher's view, "explore on my own" and
"follow again" (the teacher's side is ``ui.rooms.teaching``).

A session is in at most one class (its place: ``ui.rooms.place.ClassPlace``, a teacher's or a student's), as its
teacher (it holds the secret) or as a student. The URL says so too: ``?room=CODE`` joins a class on any page; the
teacher's secret is kept in the teacher's session and in a cookie of the teacher's browser (``classroom.routes``,
set by ``ui.rooms.browser_keys``), never in an address; the "Share this view" link carries no class at all.

A student's page does not run for the teacher's changes: the teacher's run publishes what it drew
(``ui.rooms.drawing``), and the student's browser (``ui.rooms.follower``) takes each new drawing in place, the
figures redrawn and the teacher's settings shown while the page's own controls are hidden, or, for another page,
section or model, shows the drawing's copy of the teacher's page (``ui.rooms.page_copy``) in place of its own. Where
the copy cannot do (a lesson's step, whose question is the student's own; a page the copy cannot hold; presentation
mode; a question revealed; the class ended), the browser starts a run of its session, and that run opens the
teacher's view before the page draws (``follow_teacher``: the same page's controls take the view's URL state in that
one run; another page is opened with ``st.switch_page``); those runs take turns on the server (``classroom.turns``).
"Explore on my own" stops following, from the teacher's latest view; "Follow again" opens the teacher's view again.
The teacher's view is checked against the page's controls (``ui.rooms.schema``) before a student opens it. The
teacher's own session runs a fragment every ``TEACHER_SECONDS`` (``teacher_live``): it sends the view (also for
controls that rerun only their part of the page), counts the students and draws the class's answers.
"""

from __future__ import annotations

import contextlib
import time

import streamlit as st

from classroom.board import BOARD
from classroom.turns import Turns
from ui.page_url import forget_controls, open_with_view
from ui.pages_index import PAGE_SCRIPTS
from ui.screen import PRESENT, compact, presenting
from ui.streamlit_internals import release_url_bindings, seed_controls_from_url

from .drawing import settings_of
from .browser_keys import keep_student_key
from .follower import follower
from .membership import (
    attempt_allowed,
    kept_secret,
    leave,
    notice as _notice,
    room_store,
    room_watcher,
    spaced,
    student_id as _student_id,
    take_kept_student_id,
    take_notice,
    this_session,
)
from .place import StudentPlace, TeacherPlace, current_class, enter
from .schema import CLASS_KEYS, PAGE_KEYS, ROOM, TEACH, view_problem
from classroom.store import CODE_ALPHABET, CODE_LENGTH, RoomsUnavailable, RoomUnreadable, RoomView, normal_code
from .pace import own_pace_strip, paused_screen, report_progress, start_own_pace
from .teaching import send_view, teacher_live
from classroom.watcher import read_room

MISSING_GRACE_SECONDS = 30.0  # a room gone from a restarted store is waited for this long (its teacher refills it)
TURNS = Turns()  # this server's students' runs that open a new view, one after another
STRIP = "class_strip"  # the student's strip (ui/rooms/follower.js hides what follows it while a page opens)
UNHIDDEN = frozenset({"section", "present", "img"})  # controls shown while following (the sections, the bars')


_READ_ALIKE = sorted(set("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ") - set(CODE_ALPHABET))
CODE_RULE = (
    f"a code has {CODE_LENGTH} letters and digits, none of them "
    f"{', '.join(_READ_ALIKE[:-1])} or {_READ_ALIKE[-1]}."
)  # the characters left out as read alike


def join_from_link() -> None:
    """Call before the page's controls: a link's ``?room=CODE`` puts this session in that class, as its teacher
    when this browser keeps the class's secret (``kept_secret``), else as a student; an unknown or ended class,
    or too many attempts, is said and the session stays on the app on its own. The URL keeps the class's code
    while the session is in it, and never a secret: a ``teach=`` an old link holds is dropped."""
    linked = st.query_params.get(ROOM)
    linked_secret = st.query_params.get(TEACH)
    st.query_params.pop(TEACH, None)
    place = current_class()
    if linked is None:
        if place is not None:  # a link or a page without the class's code: put it back (a reload stays in the class)
            st.query_params[ROOM] = place.code
        return
    code = normal_code(linked)
    if place is not None and code == place.code:
        return
    if code is None:
        st.query_params.pop(ROOM, None)
        _notice("warning", f"“{linked[:20]}” is not a class code: {CODE_RULE} You are on the app on your own.")
        return
    if not attempt_allowed():
        st.query_params.pop(ROOM, None)
        _notice("warning", "Too many attempts to join a class in a minute: wait a minute, then open the link again.")
        return
    try:
        store = room_store()
        view = store.view(code)
        secret = kept_secret(code)
        teacher = secret is not None and view is not None and store.is_teacher(code, secret)
    except RoomUnreadable:
        st.query_params.pop(ROOM, None)
        _notice(
            "warning",
            f"Class {code}'s stored state cannot be read (another version of the app may have written it), so "
            "it could not be joined. You are on the app on your own; the teacher can start a new class.",
        )
        return
    except RoomsUnavailable:
        st.query_params.pop(ROOM, None)
        _notice(
            "warning",
            "The server that holds the classes cannot be reached just now, so the class could not "
            "be joined. The app works on its own; open the link again in a moment.",
        )
        return
    if view is None:
        st.query_params.pop(ROOM, None)
        _notice(
            "warning",
            f"There is no class {code} now: it has ended, or the code is mistyped. You are on the app on your own.",
        )
        return
    st.query_params[ROOM] = code
    if teacher:
        enter(TeacherPlace(code, secret))
    else:
        take_kept_student_id(code)
        enter(StudentPlace(code, store.view_token(code)))
        with contextlib.suppress(RoomsUnavailable):  # counted at once; the server's watcher keeps marking it present
            store.seen(code, _student_id())
        if linked_secret is not None:
            _notice(
                "warning",
                "A link no longer makes its holder the teacher (the teacher's own browser keeps that): "
                "you follow this class as a student.",
            )


def _follow() -> None:
    """on_click of "Follow again"."""
    place = current_class()
    if place is not None:
        place.follow()


def _explore() -> None:
    """on_click of "Explore on my own"."""
    place = current_class()
    if place is not None:
        place.explore()


def follow_teacher(page_path: str) -> None:
    """Call before the page's controls, in a student's run: read the room; when the teacher's view changed
    and the student follows, open it (``_open``); a class that ended is left and said. What the run saw
    is kept (``StudentPlace.seen``) for the strip and the student's browser."""
    place = current_class()
    if place is None or place.is_teacher:
        return
    token = place.token
    if not token:
        with contextlib.suppress(RoomsUnavailable):
            token = room_store().view_token(place.code)
    place.read_board(token, BOARD.sequence(token) if token else 0)  # read before the room
    saw, view = read_room(room_store(), place.code, time.monotonic())
    if saw.kind == "ended" or (saw.kind == "missing" and place.missing_for(time.time()) > MISSING_GRACE_SECONDS):
        leave()
        _notice("info", "The class has ended. You keep the view you have.")
        return
    place.seen(saw, teacher_present=view is not None and view.query.get(PRESENT) == ["true"])
    if view is None:
        return
    if view.pace != place.pacing:  # the class was sent to its own pace, or brought back to the teacher
        if view.pace:
            start_own_pace(view.pace, place, page_path)
            return
        place.follow()
    if place.due(view.version):
        _open(view, place, page_path)


def _student_strip(place: StudentPlace, page_path: str) -> None:
    """Say whom the student follows, with "Explore on my own" or "Follow again"."""
    saw = place.saw
    if saw.kind == "unavailable":
        st.warning(
            "The server that holds the classes cannot be reached: this page works on its own, and "
            "the class resumes when it is back.",
            icon=":material/cloud_off:",
        )
    elif saw.kind == "missing":
        st.caption(f"Class **{spaced(place.code)}**: waiting for the teacher's screen…")
    elif saw.paused:
        paused_screen()
    elif place.pacing:
        own_pace_strip(place)
    elif not place.following:
        st.caption(f"Exploring on my own · class **{spaced(place.code)}**.")
        st.button("Follow again", icon=":material/sync:", key="follow_again", on_click=_follow)
    else:
        st.caption(f"Following the teacher · class **{spaced(place.code)}**.")
        st.button("Explore on my own", icon=":material/explore:", key="explore", on_click=_explore)
    keep_student_key(place.code, _student_id())
    if place.token:
        _live_part(place, page_path)


def _live_part(place: StudentPlace, page_path: str) -> None:
    """The student's live part in the browser (``ui.rooms.follower``), told what this run drew."""
    saw = place.saw
    mode = "present" if presenting() else "compact" if compact() else "plain"
    follower(
        {
            "url": f"_class/{place.token}",
            "code": place.code,
            "mode": mode,
            "after": place.after,
            "version": place.applied,
            "layout": BOARD.layout_at(place.token, place.applied),
            "present": place.teacher_present,
            "followPresent": not compact(),
            "status": saw.status(),
            "following": place.following and saw.kind == "view" and not saw.paused,
            "controls": sorted(PAGE_KEYS.get(page_path, frozenset()) - UNHIDDEN),
            "settings": settings_of(
                {key: st.query_params.get_all(key) for key in st.query_params if key not in CLASS_KEYS}
            ),
        }
    )


def _open(view: RoomView, place: StudentPlace, page_path: str) -> None:
    """Open the teacher's view in this run, before the page draws: its page with its URL state and the
    class's code; the controls forget their values (presentation mode too) so that the URL's win. A view that
    does not fit its page is not opened. The run takes its turn first (``TURNS``), given back after the page."""
    problem = view_problem(view.page, view.query)
    place.opened(view.version)
    if problem is not None:
        _notice("warning", f"The teacher's view could not be shown here: {problem}.")
        return
    TURNS.take(this_session())
    for page in {page_path, view.page}:  # the controls of the page shown, and of the view's (a visit before)
        forget_controls(page)
    st.session_state.pop(PRESENT, None)  # presentation mode is the teacher's too (a phone keeps its own size)
    query = {**view.query, ROOM: place.code}
    release_url_bindings()  # the URL state is set whole, so the controls let go of their keys first
    if view.page != page_path:
        open_with_view(view.page)
        st.switch_page(PAGE_SCRIPTS[view.page], query_params=query)
    st.query_params.from_dict(query)  # the same page: this run draws it with the view's settings
    seed_controls_from_url()  # controls without a value take the URL's


def after_page(page_path: str) -> None:
    """Call after the page has run: the teacher's view goes out; a student's run gives its turn back and tells
    the server's watcher that the student is in the class (following or not), whose board it keeps current."""
    place = current_class()
    if place is None:
        return
    if place.is_teacher:
        send_view(page_path)
        return
    TURNS.give_back(this_session())
    if place.pacing:
        report_progress(place)
    if place.token:
        room_watcher().listen(this_session(), place.code, place.token, _student_id(), place.following)


def class_strip(page_path: str) -> None:
    """Below the classroom bar: the last class message, and the class while in one: the teacher's live
    part (``teacher_live``), or whom the student follows."""
    notice = take_notice()
    if notice:
        getattr(st, notice[0])(notice[1])
    place = current_class()
    if place is not None and place.is_teacher:
        teacher_live(page_path)
    elif place is not None:
        with st.container(key=STRIP):  # the page below it is hidden while the student's browser opens another
            _student_strip(place, page_path)
