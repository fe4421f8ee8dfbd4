"""Rooms in this server process's memory (``MemoryRooms``): the default, for one server (Community Cloud).
``classroom.store`` has the records and the rules, ``classroom.redis_store`` the rooms several servers share."""

from __future__ import annotations

import hmac
import threading
import time
from dataclasses import dataclass, field, replace

from .progress import progress_text
from .store import (
    ENDED_SECONDS,
    IDLE_SECONDS,
    MAX_ANSWER_CHARS,
    PRESENT_SECONDS,
    RoomStore,
    RoomView,
    _own_query,
    checked_drawings,
    checked_pace,
    readable_progress,
    seat_of,
    secret_digest,
    view_token,
)


@dataclass
class _MemoryRoom:
    digest: str
    view: RoomView
    teacher_seen: float
    students: dict[str, float] = field(default_factory=dict)
    explorers: dict[str, float] = field(default_factory=dict)
    drawing: tuple[int, dict[str, str]] | None = None
    answers: dict[str, dict[str, str]] = field(default_factory=dict)
    progress: dict[str, str] = field(default_factory=dict)  # student -> their record as JSON


class MemoryRooms(RoomStore):
    """Rooms in this server process's memory: the default, for one server (Community Cloud)."""

    def __init__(self, clock=time.time):
        self._rooms: dict[str, _MemoryRoom] = {}
        self._ended: dict[str, float] = {}
        self._lock = threading.Lock()
        self._clock = clock

    def _live(self, code: str) -> _MemoryRoom | None:
        """The room if it exists and its teacher was seen within IDLE_SECONDS (else it ends now). Hold the lock."""
        room = self._rooms.get(code)
        if room is not None and self._clock() - room.teacher_seen > IDLE_SECONDS:
            del self._rooms[code]
            room = None
        return room

    def _teacher(self, code: str, secret: str) -> _MemoryRoom | None:
        room = self._live(code)
        if room is None or not hmac.compare_digest(room.digest, secret_digest(secret)):
            return None
        room.teacher_seen = self._clock()
        return room

    def _create(self, code, digest, page, query, version=1):
        query = _own_query(page, query)
        with self._lock:
            if self._live(code) is not None:
                return False
            self._rooms[code] = _MemoryRoom(digest, RoomView(page, query, version), self._clock())
            return True

    def view(self, code):
        with self._lock:
            room = self._live(code)
            if room is None:
                return None
            return replace(room.view, query={key: list(values) for key, values in room.view.query.items()})

    def ended(self, code):
        with self._lock:
            closed = self._ended.get(code)
            return closed is not None and self._clock() - closed < ENDED_SECONDS

    def is_teacher(self, code, secret):
        with self._lock:
            return self._teacher(code, secret) is not None

    def publish(self, code, secret, page, query):
        query = _own_query(page, query)
        with self._lock:
            room = self._teacher(code, secret)
            if room is None:
                return None
            if (room.view.page, room.view.query) != (page, query):
                room.view = replace(room.view, page=page, query=query, version=room.view.version + 1)
            return room.view.version

    def reveal(self, code, secret, question):
        with self._lock:
            room = self._teacher(code, secret)
            if room is None:
                return False
            room.view = replace(room.view, version=room.view.version + 1, revealed=room.view.revealed | {question})
            return True

    def close(self, code, secret):
        with self._lock:
            if self._teacher(code, secret) is None:
                return False
            del self._rooms[code]
            self._ended[code] = self._clock()
            return True

    def seen(self, code, *students, exploring=()):
        with self._lock:
            room = self._live(code)
            if room is not None:
                now = self._clock()
                for marked, other in ((students, room.explorers), (exploring, room.students)):
                    for student in marked:
                        other.pop(student, None)  # one student is in one of the two
                room.students.update(dict.fromkeys(students, now))
                room.explorers.update(dict.fromkeys(exploring, now))
                for group in (room.students, room.explorers):
                    for other, last in list(group.items()):
                        if now - last > PRESENT_SECONDS:
                            del group[other]

    def _present(self, code, group: str) -> int:
        with self._lock:
            room = self._live(code)
            if room is None:
                return 0
            now = self._clock()
            return sum(now - last <= PRESENT_SECONDS for last in getattr(room, group).values())

    def followers(self, code):
        return self._present(code, "students")

    def explorers(self, code):
        return self._present(code, "explorers")

    def view_token(self, code):
        with self._lock:
            room = self._live(code)
            return None if room is None else view_token(room.digest)

    def publish_drawing(self, code, secret, version, drawings):
        checked_drawings(drawings)
        with self._lock:
            room = self._teacher(code, secret)
            if room is None or version != room.view.version:
                return False
            room.drawing = (version, dict(drawings))
            return True

    def drawing(self, code):
        with self._lock:
            room = self._live(code)
            return None if room is None or room.drawing is None else (room.drawing[0], dict(room.drawing[1]))

    def answer(self, code, question, student, value):
        with self._lock:
            room = self._live(code)
            if room is None or question in room.view.revealed:
                return False
            room.answers.setdefault(question, {})[student] = str(value)[:MAX_ANSWER_CHARS]
            return True

    def answers(self, code, question):
        with self._lock:
            room = self._live(code)
            return {} if room is None else dict(room.answers.get(question, {}))

    def _change(self, code: str, secret: str, **fields) -> bool:
        """The teacher changes the room's view (``pace``, ``paused``): a new version, which the students' pages see."""
        with self._lock:
            room = self._teacher(code, secret)
            if room is None:
                return False
            room.view = replace(room.view, version=room.view.version + 1, **fields)
            return True

    def set_pace(self, code, secret, lesson):
        return self._change(code, secret, pace=checked_pace(lesson))

    def set_paused(self, code, secret, paused):
        return self._change(code, secret, paused=bool(paused))

    def report(self, code, student, progress):
        text = progress_text(progress)
        with self._lock:
            room = self._live(code)
            if room is None:
                return False
            room.progress[student] = text
            return True

    def own_progress(self, code, student):
        with self._lock:
            room = self._live(code)
            text = None if room is None else room.progress.get(student)
        return None if text is None else readable_progress({student: text}).get(student)

    def is_student(self, code, student):
        with self._lock:
            room = self._live(code)
            if room is None:
                return False
            last = max(room.students.get(student, float("-inf")), room.explorers.get(student, float("-inf")))
            return self._clock() - last <= PRESENT_SECONDS or student in room.progress

    def student_of_seat(self, code, seat):
        with self._lock:
            room = self._live(code)
            students = [] if room is None else list(room.progress)
        return next((student for student in students if seat_of(code, student) == seat), None)

    def class_progress(self, code, secret):
        with self._lock:
            room = self._teacher(code, secret)
            if room is None:
                return None
            records = dict(room.progress)
        return readable_progress(records)

    def connected(self, code, secret):
        with self._lock:
            room = self._teacher(code, secret)
            if room is None:
                return None
            now = self._clock()
            seen = (*room.students.items(), *room.explorers.items())
            return {student for student, last in seen if now - last <= PRESENT_SECONDS}
