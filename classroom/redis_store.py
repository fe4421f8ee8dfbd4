"""Rooms in Redis (``classroom.store`` has the records, the rules and the in-memory store), shared by every
app server that reads the same Redis: one class followed across several servers."""

from __future__ import annotations

import hmac
import json
import logging
import time

from .progress import progress_text
from .store import (
    ENDED_SECONDS,
    IDLE_SECONDS,
    MAX_ANSWER_CHARS,
    PRESENT_SECONDS,
    RoomStore,
    RoomsUnavailable,
    RoomUnreadable,
    checked_drawings,
    checked_pace,
    checked_view,
    read_view,
    readable_progress,
    seat_of,
    seconds_since,
    secret_digest,
    view_token,
)

_LOG = logging.getLogger(__name__)
_UNREADABLE_LOGGED: set[str] = set()  # the classes logged as unreadable, once each


class RedisRooms(RoomStore):
    """Rooms in Redis, shared by every server that reads the same ``url``: one hash a room (its secret's
    digest, view, version, revealed questions, pace and pause), one hash of students' last-seen times, one hash of
    answers a question and one of the students' progress; every key expires IDLE_SECONDS after the teacher was last seen.

    Connection problems become ``RoomsUnavailable`` after short timeouts, so a page never hangs on them.
    """

    PREFIX = "attention-lab:room:"

    def __init__(self, url: str, timeout: float = 0.5):
        import redis  # only a server that shares classes needs the client

        self._errors = (redis.exceptions.RedisError, OSError)
        self._redis = redis.Redis.from_url(
            url, socket_timeout=timeout, socket_connect_timeout=timeout, decode_responses=True, health_check_interval=5
        )

    def _key(self, code: str, part: str = "") -> str:
        return f"{self.PREFIX}{code}{part}"

    def _keys(self, r, code: str) -> list[str]:
        """Every key of a live room: the room, its students, its list of questions and their answers."""
        questions = r.smembers(self._key(code, ":questions"))
        return [
            self._key(code),
            self._key(code, ":students"),
            self._key(code, ":explorers"),
            self._key(code, ":drawing"),
            self._key(code, ":questions"),
            self._key(code, ":progress"),
            *(self._key(code, f":answers:{q}") for q in questions),
        ]

    def _call(self, action):
        try:
            return action(self._redis)
        except self._errors as error:
            raise RoomsUnavailable(
                f"the Redis that holds the classes cannot be reached ({type(error).__name__})"
            ) from error

    def _teacher(self, code: str, secret: str) -> bool:
        """True if ``secret`` is the room's; then the room's keys live IDLE_SECONDS longer."""

        def check(r):
            digest = r.hget(self._key(code), "digest")
            if digest is None or not hmac.compare_digest(digest, secret_digest(secret)):
                return False
            with r.pipeline() as pipe:
                for key in self._keys(r, code):
                    pipe.expire(key, IDLE_SECONDS)
                pipe.execute()
            return True

        return self._call(check)

    def _create(self, code, digest, page, query, version=1):
        text = checked_view(page, query)

        def create(r):
            created = r.hsetnx(self._key(code), "digest", digest)
            if created:
                r.hset(self._key(code), mapping={"view": text, "version": version, "revealed": "[]"})
                r.expire(self._key(code), IDLE_SECONDS)
            return bool(created)

        return self._call(create)

    def view(self, code):
        fields = self._call(lambda r: r.hgetall(self._key(code)))
        if not fields or "view" not in fields:
            return None
        try:
            return read_view(
                fields["view"],
                fields.get("version"),
                fields.get("revealed", "[]"),
                fields.get("pace", ""),
                fields.get("paused", "0"),
            )
        except (ValueError, TypeError) as error:
            if code not in _UNREADABLE_LOGGED:
                _UNREADABLE_LOGGED.add(code)
                _LOG.warning("class %s: its stored fields cannot be read (%s); it is left out", code, error)
            raise RoomUnreadable(f"class {code}'s stored state cannot be read") from error

    def ended(self, code):
        return bool(self._call(lambda r: r.exists(self._key(code, ":ended"))))

    def is_teacher(self, code, secret):
        return self._teacher(code, secret)

    def publish(self, code, secret, page, query):
        text = checked_view(page, query)
        if not self._teacher(code, secret):
            return None

        def write(r):
            key = self._key(code)
            if r.hget(key, "view") != text:
                with r.pipeline() as pipe:
                    pipe.hset(key, "view", text)
                    pipe.hincrby(key, "version", 1)
                    pipe.execute()
            return int(r.hget(key, "version"))

        return self._call(write)

    def reveal(self, code, secret, question):
        if not self._teacher(code, secret):
            return False

        def write(r):
            key = self._key(code)
            revealed = set(json.loads(r.hget(key, "revealed") or "[]")) | {question}
            with r.pipeline() as pipe:
                pipe.hset(key, "revealed", json.dumps(sorted(revealed)))
                pipe.hincrby(key, "version", 1)
                pipe.execute()
            return True

        return self._call(write)

    def close(self, code, secret):
        if not self._teacher(code, secret):
            return False

        def end(r):
            r.delete(*self._keys(r, code))
            r.set(self._key(code, ":ended"), 1, ex=ENDED_SECONDS)
            return True

        return self._call(end)

    def seen(self, code, *students, exploring=()):
        if not students and not exploring:
            return

        def mark(r):
            now = time.time()
            with r.pipeline() as pipe:
                for group, marked, other in (
                    (":students", students, ":explorers"),
                    (":explorers", exploring, ":students"),
                ):
                    if marked:
                        pipe.hset(self._key(code, group), mapping=dict.fromkeys(marked, now))
                        pipe.expire(self._key(code, group), IDLE_SECONDS)
                        pipe.hdel(self._key(code, other), *marked)  # one student is in one of the two
                pipe.execute()

        self._call(mark)

    def _present(self, code, group):
        def count(r):
            key, now = self._key(code, group), time.time()
            stale = [s for s, last in r.hgetall(key).items() if seconds_since(last, now) > PRESENT_SECONDS]
            if stale:
                r.hdel(key, *stale)
            return r.hlen(key)

        return self._call(count)

    def followers(self, code):
        return self._present(code, ":students")

    def explorers(self, code):
        return self._present(code, ":explorers")

    def view_token(self, code):
        digest = self._call(lambda r: r.hget(self._key(code), "digest"))
        return None if digest is None else view_token(digest)

    def publish_drawing(self, code, secret, version, drawings):
        checked_drawings(drawings)
        if not self._teacher(code, secret):
            return False

        def write(r):
            if int(r.hget(self._key(code), "version") or 0) != version:
                return False
            key = self._key(code, ":drawing")
            with r.pipeline() as pipe:
                pipe.delete(key)
                pipe.hset(key, mapping={"version": version, **drawings})
                pipe.expire(key, IDLE_SECONDS)
                pipe.execute()
            return True

        return self._call(write)

    def drawing(self, code):
        fields = self._call(lambda r: r.hgetall(self._key(code, ":drawing")))
        if not fields or not str(fields.get("version", "")).isdigit():
            return None
        return int(fields.pop("version")), fields

    def answer(self, code, question, student, value):
        view = self.view(code)
        if view is None or question in view.revealed:
            return False

        def write(r):
            key = self._key(code, f":answers:{question}")
            with r.pipeline() as pipe:
                pipe.hset(key, student, str(value)[:MAX_ANSWER_CHARS])
                pipe.expire(key, IDLE_SECONDS)
                pipe.sadd(self._key(code, ":questions"), question)
                pipe.expire(self._key(code, ":questions"), IDLE_SECONDS)
                pipe.execute()
            return True

        return self._call(write)

    def answers(self, code, question):
        return self._call(lambda r: r.hgetall(self._key(code, f":answers:{question}")))

    def _change(self, code: str, secret: str, fields: dict[str, str]) -> bool:
        """The teacher changes the room's view (``pace``, ``paused``): a new version, which the students' pages see."""
        if not self._teacher(code, secret):
            return False

        def write(r):
            with r.pipeline() as pipe:
                pipe.hset(self._key(code), mapping=fields)
                pipe.hincrby(self._key(code), "version", 1)
                pipe.execute()
            return True

        return self._call(write)

    def set_pace(self, code, secret, lesson):
        return self._change(code, secret, {"pace": checked_pace(lesson)})

    def set_paused(self, code, secret, paused):
        return self._change(code, secret, {"paused": "1" if paused else "0"})

    def report(self, code, student, progress):
        text = progress_text(progress)

        def write(r):
            if not r.exists(self._key(code)):
                return False
            with r.pipeline() as pipe:
                pipe.hset(self._key(code, ":progress"), student, text)
                pipe.expire(self._key(code, ":progress"), IDLE_SECONDS)
                pipe.execute()
            return True

        return self._call(write)

    def own_progress(self, code, student):
        text = self._call(lambda r: r.hget(self._key(code, ":progress"), student))
        return None if text is None else readable_progress({student: text}).get(student)

    def is_student(self, code, student):
        def check(r):
            with r.pipeline() as pipe:
                pipe.hget(self._key(code, ":students"), student)
                pipe.hget(self._key(code, ":explorers"), student)
                pipe.hexists(self._key(code, ":progress"), student)
                following, exploring, recorded = pipe.execute()
            now, times = time.time(), [value for value in (following, exploring) if value is not None]
            seen = min((seconds_since(written, now) for written in times), default=float("inf"))
            return seen <= PRESENT_SECONDS or bool(recorded)

        return self._call(check)

    def student_of_seat(self, code, seat):
        students = self._call(lambda r: r.hkeys(self._key(code, ":progress")))
        return next((student for student in students if seat_of(code, student) == seat), None)

    def class_progress(self, code, secret):
        if not self._teacher(code, secret):
            return None
        return readable_progress(self._call(lambda r: r.hgetall(self._key(code, ":progress"))))

    def connected(self, code, secret):
        if not self._teacher(code, secret):
            return None

        def read(r):
            with r.pipeline() as pipe:
                pipe.hgetall(self._key(code, ":students"))
                pipe.hgetall(self._key(code, ":explorers"))
                groups = pipe.execute()
            now = time.time()
            seen = (item for group in groups for item in group.items())
            return {student for student, last in seen if seconds_since(last, now) <= PRESENT_SECONDS}

        return self._call(read)
