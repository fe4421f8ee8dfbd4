"""Where a class (a "room") lives: in this server's memory, or in Redis when several servers share classes.

A room is a teacher's view (a page and its URL state, with a version that counts the teacher's changes),
the questions the teacher has revealed, the students seen lately and their answers. Both stores keep the
same records and offer the same operations (``RoomStore``); nothing here knows Streamlit.

Who may do what is decided here, not by the caller: every operation that changes what the class sees
(publish, reveal, close) takes the teacher's secret and is refused without it. The store keeps only the
secret's SHA-256, never the secret.

Codes and secrets:

- a room's code is ``CODE_LENGTH`` characters from ``CODE_ALPHABET`` (31 letters and digits, none that a
  reader confuses: no 0/O, 1/I/L), drawn by ``secrets``: 31^8 = 8.5e11 codes, 39.6 bits. Joining is
  limited to ``ui.rooms.follow.JOINS_PER_MINUTE`` attempts a session, so a guesser who opens sessions
  one after another still needs, with a thousand classes open, about 8.5e8 attempts for one hit;
- the teacher's secret is 128 random bits (``secrets.token_urlsafe(16)``).

A room ends when its teacher closes it, or when its teacher has not been seen for ``IDLE_SECONDS``.
A closed room leaves a marker for ``ENDED_SECONDS``, so its students are told it ended rather than that
it is unknown. A Redis that cannot be reached raises ``RoomsUnavailable``; a Redis that lost its data
(restarted without persistence) is refilled by the teacher's session (``restore``).
"""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
import secrets
import threading
import time
from dataclasses import dataclass, field

CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 8
IDLE_SECONDS = 30 * 60
ENDED_SECONDS = 60 * 60
PRESENT_SECONDS = 5.0  # a student seen within this many seconds is following now
MAX_VIEW_BYTES = 16_000  # a teacher's view (page + URL state) as JSON
MAX_ANSWER_CHARS = 64
MAX_DRAWING_CHARS = 8_000_000  # the figures of one page as drawn (ui.rooms.drawing), for one mode
DRAWING_MODES = ("plain", "present", "compact")


class RoomsUnavailable(RuntimeError):
    """The store that holds the classes cannot be reached (Redis down): each page works on its own."""


class RoomUnreadable(RoomsUnavailable):
    """One class's stored fields cannot be read (written by another version of the app, or by hand): that class
    is unavailable, as if its store could not be reached, and every other class goes on."""


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def new_secret() -> str:
    return secrets.token_urlsafe(16)


def secret_digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def view_token(digest: str) -> str:
    """The address of a class's drawn view (``classroom.routes``): 128 bits derived from the teacher's secret's
    digest, which only a server holding the class knows; nothing of it follows from the class's code."""
    return hashlib.sha256(f"view:{digest}".encode()).hexdigest()[:32]


def normal_code(text: str) -> str | None:
    """A code as typed or linked (any case, spaces or dashes) in its stored form, or None if it cannot be one."""
    code = "".join(c for c in str(text).upper() if c not in " -")
    if len(code) != CODE_LENGTH or any(c not in CODE_ALPHABET for c in code):
        return None
    return code


@dataclass(frozen=True)
class RoomView:
    """What a room's students see: the teacher's page (its URL path), its URL state (key -> values, as a
    shared link holds it) and the teacher's change count; the questions revealed ("<lesson>/<step>")."""

    page: str
    query: dict[str, list[str]]
    version: int
    revealed: frozenset[str] = frozenset()


@dataclass
class _MemoryRoom:
    digest: str
    view: RoomView
    teacher_seen: float
    students: dict[str, float] = field(default_factory=dict)
    explorers: dict[str, float] = field(default_factory=dict)
    drawing: tuple[int, dict[str, str]] | None = None
    answers: dict[str, dict[str, str]] = field(default_factory=dict)


def read_view(text: str, version, revealed: str) -> RoomView:
    """A room's view from its stored fields: the view's JSON (a page name and its URL state, key -> list of
    values), the version (ASCII digits) and the revealed questions (a JSON list of names). ValueError when any
    is of another type or shape."""
    view = json.loads(text)
    shown = json.loads(revealed)
    if not isinstance(view, dict) or not isinstance(view.get("page"), str) or not isinstance(view.get("query"), dict):
        raise ValueError("a view is a JSON object with a page name and its URL state")
    query = view["query"]
    if not all(isinstance(values, list) and all(isinstance(v, str) for v in values) for values in query.values()):
        raise ValueError("a view's URL state maps each key to a list of texts")
    if not isinstance(shown, list) or not all(isinstance(name, str) for name in shown):
        raise ValueError("the revealed questions are a JSON list of names")
    if not str(version).isascii() or not str(version).isdigit():
        raise ValueError(f"a room's version is a count, not {str(version)[:20]!r}")
    return RoomView(view["page"], query, int(version), frozenset(shown))


def checked_view(page: str, query: dict[str, list[str]]) -> str:
    """The view as JSON, refused when larger than MAX_VIEW_BYTES."""
    text = json.dumps({"page": page, "query": query}, sort_keys=True)
    if len(text.encode()) > MAX_VIEW_BYTES:
        raise ValueError(f"a view of {len(text.encode())} bytes is larger than the {MAX_VIEW_BYTES} a room carries")
    return text


def checked_drawings(drawings: dict[str, str]) -> None:
    """Refuse drawings of an unknown mode or larger than MAX_DRAWING_CHARS."""
    for mode, text in drawings.items():
        if mode not in DRAWING_MODES or not isinstance(text, str) or len(text) > MAX_DRAWING_CHARS:
            raise ValueError(f"a drawing is one of {DRAWING_MODES}, as text of at most {MAX_DRAWING_CHARS} characters")


def _own_query(page: str, query: dict[str, list[str]]) -> dict[str, list[str]]:
    """The checked query as a room keeps it: a copy of its own, as read back from JSON (what Redis keeps), so
    that no caller's dict or list (a session's URL state) is shared with the room or its other readers."""
    return json.loads(checked_view(page, query))["query"]


class RoomStore:
    """The operations on rooms; ``MemoryRooms`` and ``RedisRooms`` keep them."""

    def open(self, page: str, query: dict[str, list[str]]) -> tuple[str, str]:
        """A new room showing ``page`` with ``query``: returns (code, the teacher's secret)."""
        secret = new_secret()
        for _ in range(8):
            code = new_code()
            if self._create(code, secret_digest(secret), page, query):
                return code, secret
        raise RuntimeError("no free room code after 8 draws")

    def restore(self, code: str, secret: str, page: str, query: dict[str, list[str]]) -> bool:
        """Make the room exist again after its store lost it; False if the code is taken or was closed.

        Its version starts past every version it had before (``restored_version``): the servers' boards and the
        students' browsers take only views newer than the last they saw, and a restored room that counted from 1
        again would go unseen until it passed its old count."""
        if self.ended(code):
            return False
        return self._create(code, secret_digest(secret), page, query, restored_version())

    # implemented by each store
    def _create(self, code: str, digest: str, page: str, query: dict[str, list[str]], version: int = 1) -> bool: ...
    def view(self, code: str) -> RoomView | None: ...
    def ended(self, code: str) -> bool: ...
    def is_teacher(self, code: str, secret: str) -> bool: ...
    def publish(self, code: str, secret: str, page: str, query: dict[str, list[str]]) -> int | None: ...
    def reveal(self, code: str, secret: str, question: str) -> bool: ...
    def close(self, code: str, secret: str) -> bool: ...
    def seen(self, code: str, *students: str, exploring: tuple[str, ...] = ()) -> None: ...
    def followers(self, code: str) -> int: ...
    def explorers(self, code: str) -> int: ...
    def view_token(self, code: str) -> str | None: ...
    def publish_drawing(self, code: str, secret: str, version: int, drawings: dict[str, str]) -> bool: ...
    def drawing(self, code: str) -> tuple[int, dict[str, str]] | None: ...
    def answer(self, code: str, question: str, student: str, value: str) -> bool: ...
    def answers(self, code: str, question: str) -> dict[str, str]: ...


def restored_version(clock=time.time) -> int:
    """The first version of a room made again after its store lost it: the time in milliseconds, past any count of
    changes a class makes from 1 (a change a second would need 50 years to reach it) and past earlier restores."""
    return int(clock() * 1000)


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
            return RoomView(room.view.page, copy.deepcopy(room.view.query), room.view.version, room.view.revealed)

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
                room.view = RoomView(page, query, room.view.version + 1, room.view.revealed)
            return room.view.version

    def reveal(self, code, secret, question):
        with self._lock:
            room = self._teacher(code, secret)
            if room is None:
                return False
            view = room.view
            room.view = RoomView(view.page, view.query, view.version + 1, view.revealed | {question})
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
