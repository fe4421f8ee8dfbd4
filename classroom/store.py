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
  limited to ``ui.rooms.membership.JOINS_PER_MINUTE`` attempts a session, so a guesser who opens sessions
  one after another still needs, with a thousand classes open, about 8.5e8 attempts for one hit;
- the teacher's secret is 128 random bits (``secrets.token_urlsafe(16)``).

A room ends when its teacher closes it, or when its teacher has not been seen for ``IDLE_SECONDS``.
A closed room leaves a marker for ``ENDED_SECONDS``, so its students are told it ended rather than that
it is unknown. A Redis that cannot be reached raises ``RoomsUnavailable``; a Redis that lost its data
(restarted without persistence) is refilled by the teacher's session (``restore``).
"""

from __future__ import annotations

import functools
import hashlib
import json
import secrets
import time
from dataclasses import dataclass

from .progress import Progress, read_progress

CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 8
IDLE_SECONDS = 30 * 60
ENDED_SECONDS = 60 * 60
PRESENT_SECONDS = 5.0  # a student seen within this many seconds is following now
MAX_VIEW_BYTES = 16_000  # a teacher's view (page + URL state) as JSON
MAX_ANSWER_CHARS = 64
MAX_LESSON_CHARS = 64  # a lesson's id, as a room's pace
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
    shared link holds it) and the teacher's change count; the questions revealed ("<lesson>/<step>"); ``pace``,
    the lesson the class goes through at its own pace ("": everyone follows the teacher), and ``paused``
    ("Eyes on the teacher": no student's page is shown)."""

    page: str
    query: dict[str, list[str]]
    version: int
    revealed: frozenset[str] = frozenset()
    pace: str = ""
    paused: bool = False


def read_view(text: str, version, revealed: str, pace: str = "", paused: str = "0") -> RoomView:
    """A room's view from its stored fields: the view's JSON (a page name and its URL state, key -> list of
    values), the version (ASCII digits), the revealed questions (a JSON list of names), the lesson taken at its own
    pace (a name, "" for none) and whether the class is paused ("1" or "0"). ValueError when any is of another
    type or shape."""
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
    if not isinstance(pace, str) or len(pace) > MAX_LESSON_CHARS or paused not in ("0", "1"):
        raise ValueError("a room's pace is a lesson's name, and paused is 0 or 1")
    return RoomView(view["page"], query, int(version), frozenset(shown), pace, paused == "1")


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


SEAT_LENGTH = 6


def seat_of(code: str, student: str) -> str:
    """A student's seat in class ``code``: SEAT_LENGTH characters of CODE_ALPHABET (29.7 bits) derived from their id,
    which they give on another device to go on there as the same student (``student_of_seat``)."""
    number = int.from_bytes(hashlib.sha256(f"seat:{code}:{student}".encode()).digest()[:8], "big")
    seat = ""
    for _ in range(SEAT_LENGTH):
        number, index = divmod(number, len(CODE_ALPHABET))
        seat += CODE_ALPHABET[index]
    return seat


def normal_seat(text: str) -> str | None:
    """A seat as typed (any case, spaces or dashes) in its stored form, or None if it cannot be one."""
    seat = "".join(c for c in str(text).upper() if c not in " -")
    return seat if len(seat) == SEAT_LENGTH and all(c in CODE_ALPHABET for c in seat) else None


def checked_pace(lesson: str) -> str:
    """A lesson's id as a room's pace, refused when longer than MAX_LESSON_CHARS."""
    if not isinstance(lesson, str) or len(lesson) > MAX_LESSON_CHARS:
        raise ValueError(f"a lesson's id has at most {MAX_LESSON_CHARS} characters")
    return lesson


@functools.lru_cache(maxsize=4096)
def _read_once(text: str) -> Progress | None:
    """A record read (``read_progress``), or None; each text once (the teacher's board reads every student's record
    twice a second, and most have not changed). Its Progress is shared: nothing changes one in place."""
    try:
        return read_progress(text)
    except (ValueError, TypeError):
        return None


def readable_progress(records: dict[str, str]) -> dict[str, Progress]:
    """The students' records (student -> JSON) that can be read, by student; the others are left out."""
    read = {student: _read_once(text) if isinstance(text, str) else None for student, text in records.items()}
    return {student: record for student, record in read.items() if record is not None}


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
    # a class at its own pace (``classroom.progress``)
    def set_pace(self, code: str, secret: str, lesson: str) -> bool:
        """The class goes through ``lesson`` at its own pace ("": everyone follows the teacher again)."""

    def set_paused(self, code: str, secret: str, paused: bool) -> bool:
        """Pause the class ("Eyes on the teacher") or resume it."""

    def report(self, code: str, student: str, progress: Progress) -> bool:
        """A student's progress through the lesson, kept by the room; False when the room is gone."""

    def own_progress(self, code: str, student: str) -> Progress | None:
        """The progress the room keeps for ``student`` (a session's own id), or None."""

    def is_student(self, code: str, student: str) -> bool:
        """Whether ``student`` is in the class now (seen within PRESENT_SECONDS) or has a progress record in it."""

    def student_of_seat(self, code: str, seat: str) -> str | None:
        """The student with a progress record in the class whose seat (``seat_of``) is ``seat``, or None."""

    def class_progress(self, code: str, secret: str) -> dict[str, Progress] | None:
        """Every student's progress, by student id, for the teacher alone (None without the secret); a record
        that cannot be read is left out."""

    def connected(self, code: str, secret: str) -> set[str] | None:
        """The students whose page is open in the class now (seen within PRESENT_SECONDS, following the teacher or
        not), by student id, for the teacher alone (None without the secret)."""


def seconds_since(written: str, now: float) -> float:
    """Seconds from a presence time a store holds (as text) to ``now``; infinite for one that is not a time (written
    by hand), which is no sign of the student."""
    try:
        return now - float(written)
    except ValueError:
        return float("inf")


def restored_version(clock=time.time) -> int:
    """The first version of a room made again after its store lost it: the time in milliseconds, past any count of
    changes a class makes from 1 (a change a second would need 50 years to reach it) and past earlier restores."""
    return int(clock() * 1000)
