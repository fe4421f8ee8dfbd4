"""A session in a class and the server's store of classes: what the classroom bar, the lesson questions and the
live class share (``ui.rooms.follow`` draws them). The session's place in its class is a ``ui.rooms.place.ClassPlace`` (a teacher's or a student's)."""

from __future__ import annotations

import os
import secrets
import time

import streamlit as st

from classroom.board import BOARD
from ui.cache import resource
from ui.streamlit_internals import session_alive, session_id, url_state_of_bound_controls

from .place import current_class, forget_place
from classroom.redis_store import RedisRooms
from classroom.routes import STUDENT_COOKIE, TEACHER_COOKIE, read_student_cookie, read_teacher_cookie
from .schema import CLASS_KEYS, PAGE_KEYS, ROOM, TEACH, general_key
from classroom.memory_store import MemoryRooms
from classroom.store import RoomStore, RoomsUnavailable
from classroom.watcher import RoomWatcher

STUDENT = "class_student"  # session state: this session's anonymous id in a class
NOTICE = "class_notice"  # session state: a message for the next run, (kind, text)
JOINS = "class_joins"  # session state: times of this session's attempts to join a class (or to take a seat)
JOINS_PER_MINUTE = 5
REDIS_URL = "ATTENTION_LAB_REDIS_URL"


@resource()
def room_store() -> RoomStore:
    """The server's rooms: in Redis when ATTENTION_LAB_REDIS_URL names one (classes shared by servers), else in
    this process's memory."""
    url = os.environ.get(REDIS_URL, "").strip()
    return RedisRooms(url) if url else MemoryRooms()


@resource()
def room_watcher() -> RoomWatcher:
    """The server's watcher of its students' rooms (``classroom.watcher``), running."""
    return RoomWatcher(room_store(), BOARD, session_alive).start()


def sent_cookie(name: str) -> str | None:
    """The cookie ``name`` (``classroom.routes``) this browser sent with the app's connection, if any."""
    value = st.context.cookies.get(name)
    return value if isinstance(value, str) else None


def kept_secret(code: str) -> str | None:
    """The secret of class ``code`` that this browser keeps for its teacher, or None (the store checks it)."""
    pair = read_teacher_cookie(sent_cookie(TEACHER_COOKIE))
    return pair[1] if pair is not None and pair[0] == code else None


def this_session() -> str:
    return session_id()


def student_id() -> str:
    """This session's anonymous id in a class (64 random bits as hex, kept for the session)."""
    return st.session_state.setdefault(STUDENT, secrets.token_hex(8))


def take_student_id(student: str) -> None:
    """This session is the student ``student`` from now on (a seat given on another device)."""
    st.session_state[STUDENT] = student


def take_kept_student_id(code: str) -> None:
    """Call as this session joins class ``code`` as a student: the id this browser keeps for that class
    (``ui.rooms.browser_keys``), if any, is this session's, so a reload is the same student."""
    pair = read_student_cookie(sent_cookie(STUDENT_COOKIE))
    if pair is not None and pair[0] == code:
        st.session_state[STUDENT] = pair[1]


def attempt_allowed() -> bool:
    """At most JOINS_PER_MINUTE attempts a minute per session to join a class or take a seat in one (a wrong code or
    seat counts)."""
    now = time.time()
    recent = [t for t in st.session_state.get(JOINS, []) if now - t < 60]
    if len(recent) >= JOINS_PER_MINUTE:
        st.session_state[JOINS] = recent
        return False
    st.session_state[JOINS] = [*recent, now]
    return True


def notice(kind: str, text: str) -> None:
    """A message (``st.<kind>``) for the next run of the page."""
    st.session_state[NOTICE] = (kind, text)


def take_notice() -> tuple[str, str] | None:
    return st.session_state.pop(NOTICE, None)


def gate(lesson_id: str, step: int) -> bool | None:
    """For the question of step ``step`` (0-based) of ``lesson_id``: None outside a class (or for its
    teacher); for a student, whether its answer shows: revealed by the teacher, or the student goes through the
    lesson at their own pace."""
    place = current_class()
    if place is None or place.is_teacher:
        return None
    return place.pacing == lesson_id or f"{lesson_id}/{step}" in place.revealed  # at their own pace: at once


def answer_kept(lesson_id: str) -> bool:
    """Whether a student's answers to ``lesson_id`` stand once given: at their own pace, where each answer is judged
    at once, the first one is what the teacher's board counts (no answering again after seeing the solution)."""
    place = current_class()
    return place is not None and not place.is_teacher and place.pacing == lesson_id


def send_answer(lesson_id: str, step: int, value) -> None:
    """A student's answer to the class's question (a choice's index or a number), kept by the room."""
    place = current_class()
    if place is None or place.is_teacher:
        return
    try:
        room_store().answer(place.code, f"{lesson_id}/{step}", student_id(), str(value))
    except RoomsUnavailable:
        notice("warning", "Your answer could not reach the class (its server cannot be reached); it is kept here.")


def shown_view(page_path: str) -> tuple[str, dict[str, list[str]]]:
    """The view this session shows: its page's URL path and URL state, without the class's own keys. A key
    a control stands for but the URL state lacks (a fragment's run took an older address) is taken from the
    control's value."""
    query = {key: st.query_params.get_all(key) for key in st.query_params if key not in CLASS_KEYS}
    page_keys = PAGE_KEYS.get(page_path, frozenset())
    missing = {
        key: value
        for key, value in url_state_of_bound_controls().items()
        if key not in query and general_key(key) in page_keys
    }
    return page_path, {**query, **missing}


def leave() -> None:
    """This session leaves its class: the URL drops the class's keys, and a student's session is no longer
    woken by the server's watcher."""
    place = current_class()
    if place is not None and not place.is_teacher:
        room_watcher().forget(this_session())
    forget_place()
    st.query_params.pop(ROOM, None)
    st.query_params.pop(TEACH, None)


def spaced(code: str) -> str:
    """A code as shown to read aloud: two groups of four."""
    return f"{code[:4]}-{code[4:]}"
