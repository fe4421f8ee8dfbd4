"""This session's place in a class: a ``TeacherPlace`` or a ``StudentPlace`` (one record per role, ``ClassPlace``
either), kept in session state while the session is in a class (``current_class``).

The teacher's place holds the class's secret (publishing, revealing and ending take it). A student's place holds
what its runs need from one run to the next: whether it follows the teacher or explores on its own, which of the
teacher's views its page opened last, what its last run saw of the room, and the board's address of the class's
drawings. ``ui.rooms.follow`` (joining, following), ``ui.rooms.teaching`` (the teacher's side) and
``ui.rooms.membership`` (answers, leaving) change it only through its methods. It lives in the session
alone: nothing of it is sent or stored elsewhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

import streamlit as st

from classroom.watcher import RoomState

CLASS = "class_room"  # session state: this session's ClassPlace, while it is in a class
Role = Literal["teacher", "student"]
TEACHER: Role = "teacher"
STUDENT: Role = "student"


@dataclass(frozen=True)
class TeacherPlace:
    """The teacher's place in the class ``code``: its ``secret``, which publishing, revealing and ending take.
    It does not change while the class lasts."""

    code: str
    secret: str
    role: ClassVar[Role] = TEACHER
    is_teacher: ClassVar[bool] = True


@dataclass
class StudentPlace:
    """A student's place in the class ``code``, changed only through its methods (a test reads every module for an
    assignment to a place's field elsewhere).

    ``token``, the class's view token (the board serves its drawings under it; None until the store gives it);
    ``following`` (False: exploring on their own); ``applied``, the version of the teacher's view the page opened
    last (0: none); ``open_latest``, the next run opens the teacher's latest view whatever its version; ``after``,
    the board's sequence number read before the room in this run (the browser waits for a drawing numbered past
    it); ``saw``, what the last run saw of the room; ``missing_since``, when a run first saw the room missing from
    its store (``time.time()``; None while it is there); ``revealed``, the questions the teacher revealed, and
    ``teacher_present``, whether the teacher's view is in presentation mode, both as of the last view seen;
    ``pacing``, the lesson this student goes through at their own pace ("": none).
    A student who has just joined follows, with no view of the teacher's opened yet."""

    code: str
    token: str | None = None
    following: bool = True
    applied: int = 0
    open_latest: bool = False
    after: int = 0
    saw: RoomState = RoomState("missing")
    missing_since: float | None = None
    revealed: frozenset[str] = frozenset()
    teacher_present: bool = False
    pacing: str = ""
    role: ClassVar[Role] = STUDENT
    is_teacher: ClassVar[bool] = False

    def read_board(self, token: str | None, after: int) -> None:
        """This run's reading of the board, before the room: the class's view token (``token``, kept once the
        store gave it) and the board's sequence number under it (``after``)."""
        self.token, self.after = token, after

    def follow(self) -> None:
        """ "Follow again" (or the teacher brings the class back from its own pace): the next run opens the teacher's
        latest view, and every later one."""
        self.pacing = ""
        self._open_latest(following=True)

    def own_pace(self, lesson: str) -> None:
        """The class goes through ``lesson`` at its own pace: the teacher's views are not opened until it is
        brought back (``follow``)."""
        self.following, self.pacing, self.open_latest = False, lesson, False

    def explore(self) -> None:
        """ "Explore on my own": the next run opens the teacher's latest view (the page's controls may be older
        than the figures the browser took in place); later views are not opened."""
        self._open_latest(following=False)

    def own_pace_again(self) -> None:
        """The next run opens this student's own step again, as when the class was sent to its own pace (a seat taken
        from another device: the step is that student's)."""
        self.pacing = ""

    def _open_latest(self, following: bool) -> None:
        self.following, self.applied, self.open_latest = following, 0, True

    def missing_for(self, now: float) -> float:
        """Seconds since a run first saw the room missing from its store (this run, at ``now``, at the latest)."""
        if self.missing_since is None:
            self.missing_since = now
        return now - self.missing_since

    def seen(self, saw: RoomState, teacher_present: bool = False) -> None:
        """What this run saw of the room. A view ends a time missing and brings the questions revealed and
        whether the teacher presents (``teacher_present``)."""
        self.saw = saw
        if saw.kind == "view":
            self.missing_since = None
            self.revealed, self.teacher_present = saw.revealed, teacher_present

    def due(self, version: int) -> bool:
        """Whether this run opens the teacher's view of ``version``: asked for once (``follow``, ``explore``), or
        following and not opened yet. The one-time request is used up."""
        asked, self.open_latest = self.open_latest, False
        return asked or (self.following and version != self.applied)

    def opened(self, version: int) -> None:
        """The page opened (or tried to open) the teacher's view of ``version``: it is not opened again."""
        self.applied = version


ClassPlace = TeacherPlace | StudentPlace  # a session's place in its class, one record per role


def current_class() -> ClassPlace | None:
    """This session's place in a class, or None outside one."""
    return st.session_state.get(CLASS)


def enter(place: ClassPlace) -> None:
    """This session takes ``place`` (a class opened or joined), instead of any other."""
    st.session_state[CLASS] = place


def forget_place() -> None:
    """This session is in no class any more (``ui.rooms.membership.leave`` also tells the URL and the watcher)."""
    st.session_state.pop(CLASS, None)
