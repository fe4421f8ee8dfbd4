"""Students are told of their class's changes instead of asking for them.

One thread a server (``RoomWatcher``) reads, every ``WATCH_SECONDS``, the rooms that this server's students
are in: one read a room, however many students. When a room's state differs from what a student's last run
saw, and has held for two reads (so the teacher's own run has finished first, and a slider dragged
through values is one change), it starts a run of that student's session (``rerun_session``: the run a
widget's change would start, on the page and URL its last run drew), and that run opens the teacher's
view before the page draws (``ui.rooms.follow.follow_teacher``). The runs go one after another
(``RUNS_AT_ONCE``). A student who does nothing costs the server nothing between the teacher's changes
and one run for each change. The thread also marks the students present (one write a room every
``HEARTBEAT_SECONDS``), so the teacher's count of students needs no run of theirs either.

A room's state, as a student's run and the thread both see it (``RoomState``): its view's version and its
revealed questions; or that it is missing from its store (a Redis restarted empty: the teacher's session
refills it; told again every ``MISSING_RECHECK_SECONDS`` so that a class whose teacher never comes back
ends for its students), that it ended, or that its store cannot be reached. A student exploring on their
own is not woken by the teacher's views, only by the rest.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Callable

from .store import RoomStore, RoomsUnavailable, RoomView

WATCH_SECONDS = 0.1
HEARTBEAT_SECONDS = 2.0  # below store.PRESENT_SECONDS: a student stays counted between two marks
MISSING_RECHECK_SECONDS = 10.0
RUNS_AT_ONCE = 1  # students' runs one after another: runs at once share the interpreter with the server's event
# loop, which sends every session's messages; 4 at once, 20 students' redraws all arrived after the last run
RUN_WAIT_SECONDS = 5.0  # a woken student's run not back by then no longer holds up the next one


@dataclass(frozen=True)
class RoomState:
    """What a run of a student saw of its room: ``kind`` is "view", "missing", "ended" or "unavailable";
    ``version`` the view's (for "missing": the recheck period it was seen in); ``revealed`` the questions."""

    kind: str
    version: int = 0
    revealed: frozenset[str] = frozenset()

    def for_explorer(self) -> RoomState:
        """The part that matters to a student exploring on their own: not the teacher's view."""
        return RoomState(self.kind, 0, self.revealed) if self.kind == "view" else self


def read_room(store: RoomStore, code: str, now: float) -> tuple[RoomState, RoomView | None]:
    """The room's state now, and its view when it has one (``now``: a monotonic clock, for the "missing"
    recheck period)."""
    try:
        view = store.view(code)
        if view is not None:
            return RoomState("view", view.version, view.revealed), view
        if store.ended(code):
            return RoomState("ended"), None
    except RoomsUnavailable:
        return RoomState("unavailable"), None
    return RoomState("missing", int(now // MISSING_RECHECK_SECONDS)), None


def room_state(store: RoomStore, code: str, now: float) -> RoomState:
    return read_room(store, code, now)[0]


@dataclass
class _Student:
    code: str
    where: tuple[str, str]  # the page (its script hash) and URL query string the session's last run drew
    student: str
    following: bool
    saw: RoomState


class RoomWatcher:
    """The students of this server, by session, and the thread that wakes them when their room changes.

    ``rerun(session_id, where) -> bool`` starts a run of a session on the page and with the URL query string
    ``where`` (False: the session is gone);
    ``alive(session_id) -> bool`` says whether it is still connected. Woken students' runs go
    ``runs_at_once`` at a time: a run is back when its session tells ``listen`` what it drew.
    """

    def __init__(self, store: RoomStore, rerun: Callable[[str, tuple[str, str]], bool], alive: Callable[[str], bool],
                 clock: Callable[[], float] = time.monotonic, runs_at_once: int = RUNS_AT_ONCE):
        self._store, self._rerun, self._alive, self._clock = store, rerun, alive, clock
        self._runs_at_once = runs_at_once
        self._students: dict[str, _Student] = {}
        self._lock = threading.Lock()
        self._listened = threading.Condition(self._lock)
        self._last_heartbeat = float("-inf")
        self._looked: dict[str, RoomState] = {}  # each room's state at the last look
        self._thread: threading.Thread | None = None

    def listen(self, session_id: str, code: str, where: tuple[str, str], student: str, following: bool,
               saw: RoomState) -> None:
        """A student's run has drawn, for class ``code``, what ``saw`` says, on the page and with the URL
        query string ``where``."""
        with self._lock:
            self._students[session_id] = _Student(code, where, student, following, saw)
            self._listened.notify_all()

    def forget(self, session_id: str) -> None:
        with self._lock:
            self._students.pop(session_id, None)

    def listening(self) -> int:
        with self._lock:
            return len(self._students)

    def start(self) -> RoomWatcher:
        if self._thread is None:
            self._thread = threading.Thread(target=self._watch, name="attention-lab-class-watcher", daemon=True)
            self._thread.start()
        return self

    def _watch(self) -> None:
        while True:
            time.sleep(WATCH_SECONDS)
            try:
                self.watch_once()
            except Exception:  # noqa: BLE001 - the thread outlives any one room's trouble; the next tick retries
                time.sleep(WATCH_SECONDS)

    def watch_once(self) -> None:
        """One look at every room with students here: wake the students whose room changed since their run,
        once its state has held for two looks (the teacher's run that sent it has finished and been drawn;
        a slider dragged through values wakes them once); every HEARTBEAT_SECONDS mark the connected
        students present and forget the rest."""
        now = self._clock()
        heartbeat = now - self._last_heartbeat >= HEARTBEAT_SECONDS
        if heartbeat:
            self._last_heartbeat = now
        looked: dict[str, RoomState] = {}
        due: list[tuple[str, _Student]] = []
        with self._lock:
            rooms: dict[str, list[tuple[str, _Student]]] = {}
            for session_id, student in self._students.items():
                rooms.setdefault(student.code, []).append((session_id, student))
        for code, students in rooms.items():
            state, before = room_state(self._store, code, now), self._looked.get(code)
            looked[code] = state
            for session_id, student in students if state == before else ():
                seen = (state, student.saw) if student.following else (state.for_explorer(),
                                                                       student.saw.for_explorer())
                if seen[0] != seen[1]:
                    student.saw = state  # one wake a change: the run it starts says what it saw
                    due.append((session_id, student))
            if heartbeat:
                self._mark_present(code, students)
        self._looked = looked
        self._wake(due)

    def _wake(self, due: list[tuple[str, _Student]]) -> None:
        """Start the runs of ``due`` students, ``runs_at_once`` under way at a time; returns once the last
        has started."""
        waiting, running = list(reversed(due)), {}  # session id -> (its record when woken, deadline)
        while waiting:
            while waiting and len(running) < self._runs_at_once:
                session_id, student = waiting.pop()
                if self._rerun(session_id, student.where):
                    running[session_id] = (student, time.monotonic() + RUN_WAIT_SECONDS)
                else:
                    self.forget(session_id)
            with self._lock:
                if waiting and len(running) >= self._runs_at_once:
                    self._listened.wait(0.05)
                now = time.monotonic()
                running = {session_id: (student, deadline) for session_id, (student, deadline) in running.items()
                           if self._students.get(session_id) is student and now < deadline}

    def _mark_present(self, code: str, students: list[tuple[str, _Student]]) -> None:
        present = []
        for session_id, student in students:
            if self._alive(session_id):
                present.append(student.student)
            else:
                self.forget(session_id)
        if present:
            try:
                self._store.seen(code, *present)
            except RoomsUnavailable:
                pass  # the students are told by their own runs' state
