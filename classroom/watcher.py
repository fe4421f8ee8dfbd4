"""Each server's watcher of its students' classes: it keeps this server's board (``classroom.board``) current.

One thread a server (``RoomWatcher``) reads, every ``WATCH_SECONDS``, the rooms that this server's students
are in: one read a room, however many students. When a room's state changes (a new view, a question revealed,
the class ended, missing from its store or the store unreachable), it tells the board: the new state, and a
view's drawing that the board does not have yet (made by a teacher on another server, carried by the store).
The students' browsers, which wait on the board, then take the new drawing in place, or start a run of their
own where the page must change (``ui.rooms.follower``). No student's run is started from here, and a student
who does nothing costs nothing. The thread also marks the students present (one write a room every
``HEARTBEAT_SECONDS``), following or exploring, so the teacher's counts need no run of theirs either.

A room's state (``RoomState``): its view's version and its revealed questions; or that it is missing from its
store (a Redis restarted empty: the teacher's session refills it; numbered by ``MISSING_RECHECK_SECONDS`` so
that a student's page looks again now and then, and a class whose teacher never comes back ends), that it
ended, or that its store cannot be reached.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from dataclasses import dataclass
from typing import Callable

from .board import Board
from .figure_check import figure_problem

from .store import RoomStore, RoomsUnavailable, RoomView

_LOG = logging.getLogger(__name__)

WATCH_SECONDS = 0.1
HEARTBEAT_SECONDS = 2.0  # below store.PRESENT_SECONDS: a student stays counted between two marks
MISSING_RECHECK_SECONDS = 10.0


@dataclass(frozen=True)
class RoomState:
    """What a run of a student saw of its room: ``kind`` is "view", "missing", "ended" or "unavailable";
    ``version`` the view's (for "missing": the recheck period it was seen in); ``revealed`` the questions;
    ``pace`` and ``paused``, the lesson the class takes at its own pace and whether the teacher paused it."""

    kind: str
    version: int = 0
    revealed: frozenset[str] = frozenset()
    pace: str = ""
    paused: bool = False

    def status(self) -> dict:
        """What a student's browser compares with what its run saw (``kind``, ``revealed``, ``recheck``, ``pace``,
        ``paused``), and the
        view's ``version``: a view whose drawing does not come is opened by the student's own run."""
        return {
            "kind": self.kind,
            "revealed": sorted(self.revealed),
            "pace": self.pace,
            "paused": self.paused,
            "recheck": self.version if self.kind == "missing" else 0,
            "version": self.version if self.kind == "view" else 0,
        }


def read_room(store: RoomStore, code: str, now: float) -> tuple[RoomState, RoomView | None]:
    """The room's state now, and its view when it has one (``now``: a monotonic clock, for the "missing"
    recheck period)."""
    try:
        view = store.view(code)
        if view is not None:
            return RoomState("view", view.version, view.revealed, view.pace, view.paused), view
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
    token: str
    student: str
    following: bool


class RoomWatcher:
    """The students of this server, by session, and the thread that keeps the board current for their rooms.

    ``alive(session_id) -> bool`` says whether a session is still connected (a gone one is forgotten)."""

    def __init__(
        self, store: RoomStore, board: Board, alive: Callable[[str], bool], clock: Callable[[], float] = time.monotonic
    ):
        self._store, self._board, self._alive, self._clock = store, board, alive, clock
        self._students: dict[str, _Student] = {}
        self._lock = threading.Lock()
        self._last_heartbeat = float("-inf")
        self._looked: dict[str, RoomState] = {}  # each room's state at the last look
        self._failed: set[str] = set()  # the rooms whose failure is logged (once each)
        self._refused: dict[str, int] = {}  # room -> the version of its drawing refused (not fetched again)
        self._thread: threading.Thread | None = None

    def listen(self, session_id: str, code: str, token: str, student: str, following: bool) -> None:
        """A student's run has drawn a page of class ``code`` (view token ``token``), following or not."""
        with self._lock:
            self._students[session_id] = _Student(code, token, student, following)

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
            except Exception:
                _LOG.exception("the class watcher's pass failed; it goes on")
                time.sleep(WATCH_SECONDS)

    def watch_once(self) -> None:
        """One look at every room with students here: tell the board of a changed state and bring it a view's
        drawing it lacks; every HEARTBEAT_SECONDS mark the connected students present and forget the rest."""
        now = self._clock()
        heartbeat = now - self._last_heartbeat >= HEARTBEAT_SECONDS
        if heartbeat:
            self._last_heartbeat = now
        with self._lock:
            rooms: dict[str, list[tuple[str, _Student]]] = {}
            for session_id, student in self._students.items():
                rooms.setdefault(student.code, []).append((session_id, student))
        looked = {}
        for code, students in rooms.items():
            try:  # each room on its own: one that fails is logged, and the others go on
                looked[code] = self._watch_room(code, students, now, heartbeat)
            except Exception:
                if code not in self._failed:
                    self._failed.add(code)
                    _LOG.exception("class %s could not be watched; the other classes go on", code)
        self._looked = looked

    def _watch_room(self, code: str, students: list[tuple[str, _Student]], now: float, heartbeat: bool) -> RoomState:
        state, token = room_state(self._store, code, now), students[0][1].token
        if state.kind == "view" and self._board.drawn(token)[0] < state.version != self._refused.get(code):
            self._fetch_drawing(code, token)
        if state != self._looked.get(code):
            self._board.set_status(token, json.dumps(state.status()).encode())
        if heartbeat:
            self._mark_present(code, students)
        return state

    def _fetch_drawing(self, code: str, token: str) -> None:
        """Put the store's drawing of the room on the board (a teacher on another server made it)."""
        try:
            found = self._store.drawing(code)
        except RoomsUnavailable:
            return
        if found is None or found[0] <= self._board.drawn(token)[0] or found[0] == self._refused.get(code):
            return  # nothing newer, or the drawing refused already (a newer view's drawing is not stored yet)
        version, drawings = found
        try:
            read = [json.loads(text) for text in drawings.values()]
            layout = read[0]["layout"]
            problem = next((p for drawing in read for p in map(figure_problem, drawing["charts"].values()) if p), None)
        except (ValueError, KeyError, TypeError, IndexError, AttributeError):
            layout, problem = None, "it cannot be read"
        if problem is not None:  # not served: the students keep the view they have
            self._refused[code] = version
            _LOG.warning("class %s: its drawing of view %d is not served: %s", code, version, problem)
            return
        self._board.put(token, {mode: text.encode("utf-8") for mode, text in drawings.items()}, version, str(layout))

    def _mark_present(self, code: str, students: list[tuple[str, _Student]]) -> None:
        following, exploring = [], []
        for session_id, student in students:
            if self._alive(session_id):
                (following if student.following else exploring).append(student.student)
            else:
                self.forget(session_id)
        if following or exploring:
            try:
                self._store.seen(code, *following, exploring=tuple(exploring))
            except RoomsUnavailable:
                pass  # the students' pages are told by the board's state
