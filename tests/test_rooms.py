"""Classes (ui/rooms): both stores of rooms against the same rules (MemoryRooms, and RedisRooms on a real
redis-server). Redis taken away and given back: tests/test_rooms_redis.py; codes, views and answers:
tests/test_room_codes.py."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from classroom.memory_store import MemoryRooms
from classroom.redis_store import RedisRooms
from classroom.store import (
    CODE_ALPHABET,
    CODE_LENGTH,
    ENDED_SECONDS,
    IDLE_SECONDS,
    MAX_ANSWER_CHARS,
    MAX_VIEW_BYTES,
    PRESENT_SECONDS,
    RoomStore,
    RoomView,
    new_code,
    normal_code,
)


ROOT = Path(__file__).resolve().parent.parent
PAGE, QUERY = "multi_head", {"heads": ["4"], "text": ["the cat sat"]}
QUESTION = "heads/0"
UNAVAILABLE_SECONDS = 2.0  # RedisRooms times out after 0.5 s: "about a second" at most


class FakeClock:
    """A clock for MemoryRooms that moves only when told."""

    def __init__(self, now: float = 1_000_000.0):
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class Case:
    """A store of rooms, and how it loses every room without ending any (Redis restarted without
    persistence; in memory, a teacher not seen for IDLE_SECONDS)."""

    rooms: RoomStore
    lose: Callable[[], None]


@pytest.fixture(params=["memory", "redis"])
def case(request) -> Case:
    if request.param == "memory":
        clock = FakeClock()
        return Case(MemoryRooms(clock=clock), lambda: clock.advance(IDLE_SECONDS + 1))
    server = request.getfixturevalue("running_redis")

    def restart():
        server.stop()
        server.start()

    return Case(RedisRooms(server.url), restart)


# --- both stores ------------------------------------------------------------------------------------------


def test_open_gives_a_code_from_the_alphabet_and_the_teachers_secret(case):
    rooms = case.rooms
    code, secret = rooms.open(PAGE, QUERY)
    other_code, other_secret = rooms.open(PAGE, QUERY)
    assert len(code) == CODE_LENGTH == 8 and set(code) <= set(CODE_ALPHABET)
    assert normal_code(code) == code
    assert isinstance(secret, str) and len(secret) >= 22  # 128 random bits, URL-safe base64
    assert (other_code, other_secret) != (code, secret) and other_code != code and other_secret != secret
    assert rooms.is_teacher(code, secret) and rooms.is_teacher(other_code, other_secret)
    assert not rooms.is_teacher(code, other_secret) and not rooms.is_teacher(code, "")
    assert not rooms.ended(code)


def test_a_new_room_shows_the_page_and_query_given_at_version_1(case):
    rooms = case.rooms
    code, _ = rooms.open(PAGE, QUERY)
    assert rooms.view(code) == RoomView(PAGE, QUERY, 1, frozenset())
    home, _ = rooms.open("home", {})
    assert rooms.view(home) == RoomView("home", {}, 1, frozenset())
    unknown = next(c for c in iter(new_code, None) if c not in (code, home))
    assert rooms.view(unknown) is None and not rooms.ended(unknown)


def test_publish_bumps_the_version_only_when_the_view_changes(case):
    rooms = case.rooms
    code, secret = rooms.open(PAGE, QUERY)
    assert rooms.publish(code, secret, PAGE, QUERY) == 1
    assert rooms.publish(code, secret, PAGE, {"text": ["the cat sat"], "heads": ["4"]}) == 1  # same, other order
    changed = {"heads": ["2"], "text": ["the cat sat"]}
    assert rooms.publish(code, secret, PAGE, changed) == 2
    assert rooms.view(code) == RoomView(PAGE, changed, 2)
    assert rooms.publish(code, secret, PAGE, changed) == 2
    assert rooms.publish(code, secret, "self_attention", changed) == 3  # another page, same state
    assert rooms.publish(code, secret, "self_attention", {**changed, "heads": ["2", "3"]}) == 4
    assert rooms.view(code) == RoomView("self_attention", {**changed, "heads": ["2", "3"]}, 4)


def test_a_rooms_view_is_its_own_not_the_callers_dict(case):
    """Changing the dict a view was opened or published with, or one read from the store, changes no room."""
    rooms = case.rooms
    query = {"heads": ["4"], "text": ["the cat sat"]}
    code, secret = rooms.open(PAGE, query)
    query["heads"].append("5")
    query["evil"] = ["1"]
    assert rooms.view(code) == RoomView(PAGE, QUERY, 1)
    published = {"heads": ["2"]}
    assert rooms.publish(code, secret, PAGE, published) == 2
    published["heads"][0] = "3"
    assert rooms.publish(code, secret, PAGE, published) == 3  # a change the store had not seen
    read = rooms.view(code)
    read.query["heads"].append("6")
    assert rooms.view(code) == RoomView(PAGE, {"heads": ["3"]}, 3)


def test_a_wrong_secret_is_refused_and_changes_nothing(case):
    rooms = case.rooms
    code, secret = rooms.open(PAGE, QUERY)
    other_code, other_secret = rooms.open("home", {})
    for wrong in ("", "x" * 22, other_secret, secret[:-1], secret + "x", secret.upper()):
        assert rooms.publish(code, wrong, "home", {"present": ["true"]}) is None
        assert rooms.reveal(code, wrong, QUESTION) is False
        assert rooms.close(code, wrong) is False
        assert not rooms.is_teacher(code, wrong)
    assert rooms.view(code) == RoomView(PAGE, QUERY, 1, frozenset())
    assert not rooms.ended(code)
    assert rooms.view(other_code) == RoomView("home", {}, 1)
    # a secret does not work on a code that is no room
    unknown = next(c for c in iter(new_code, None) if c not in (code, other_code))
    assert rooms.publish(unknown, secret, PAGE, QUERY) is None
    assert rooms.reveal(unknown, secret, QUESTION) is False
    assert rooms.close(unknown, secret) is False
    assert rooms.view(unknown) is None and not rooms.ended(unknown)


def test_reveal_adds_the_question_and_bumps_the_version(case):
    rooms = case.rooms
    code, secret = rooms.open(PAGE, QUERY)
    assert rooms.reveal(code, secret, QUESTION) is True
    assert rooms.view(code) == RoomView(PAGE, QUERY, 2, frozenset({QUESTION}))
    assert rooms.reveal(code, secret, "heads/1") is True
    assert rooms.view(code) == RoomView(PAGE, QUERY, 3, frozenset({QUESTION, "heads/1"}))
    # publishing keeps what was revealed
    assert rooms.publish(code, secret, "home", {}) == 4
    assert rooms.view(code).revealed == {QUESTION, "heads/1"}


def test_answers_are_kept_per_student_until_the_answer_is_revealed(case):
    rooms = case.rooms
    code, secret = rooms.open(PAGE, QUERY)
    assert rooms.answers(code, QUESTION) == {}
    assert rooms.answer(code, QUESTION, "ann", "0") is True
    assert rooms.answer(code, QUESTION, "bob", "1") is True
    assert rooms.answer(code, QUESTION, "ann", "2") is True  # ann changed her mind
    assert rooms.answer(code, "heads/1", "ann", "7") is True
    assert rooms.answer(code, QUESTION, "cat", "9" * (MAX_ANSWER_CHARS + 10)) is True
    assert rooms.answers(code, QUESTION) == {"ann": "2", "bob": "1", "cat": "9" * MAX_ANSWER_CHARS}
    assert rooms.answers(code, "heads/1") == {"ann": "7"}
    assert rooms.view(code).version == 1  # answers are not the teacher's view

    assert rooms.reveal(code, secret, QUESTION)
    assert rooms.answer(code, QUESTION, "dan", "0") is False
    assert rooms.answer(code, QUESTION, "ann", "0") is False
    assert rooms.answers(code, QUESTION) == {"ann": "2", "bob": "1", "cat": "9" * MAX_ANSWER_CHARS}
    assert rooms.answer(code, "heads/1", "bob", "5") is True  # another question is still open
    assert rooms.answers(code, "heads/1") == {"ann": "7", "bob": "5"}

    unknown = next(c for c in iter(new_code, None) if c != code)
    assert rooms.answer(unknown, QUESTION, "ann", "0") is False
    assert rooms.answers(unknown, QUESTION) == {}


def test_followers_counts_the_students_seen_lately(case):
    rooms = case.rooms
    code, _ = rooms.open(PAGE, QUERY)
    other, _ = rooms.open(PAGE, QUERY)
    assert rooms.followers(code) == 0
    for student in ("ann", "bob", "ann", "cat", "bob"):
        rooms.seen(code, student)
    rooms.seen(other, "dan")
    assert rooms.followers(code) == 3
    assert rooms.followers(other) == 1


def test_memory_followers_forget_students_not_seen_for_present_seconds():
    clock = FakeClock()
    rooms = MemoryRooms(clock=clock)
    code, _ = rooms.open(PAGE, QUERY)
    rooms.seen(code, "ann")
    rooms.seen(code, "bob")
    clock.advance(PRESENT_SECONDS - 1)
    rooms.seen(code, "cat")
    assert rooms.followers(code) == 3
    clock.advance(1)  # ann and bob: exactly PRESENT_SECONDS ago, still present
    assert rooms.followers(code) == 3
    clock.advance(0.5)
    assert rooms.followers(code) == 1  # only cat
    rooms.seen(code, "ann")  # ann is back
    assert rooms.followers(code) == 2
    clock.advance(PRESENT_SECONDS + 0.5)
    assert rooms.followers(code) == 0


def test_close_ends_the_room_and_it_cannot_be_restored(case):
    rooms = case.rooms
    code, secret = rooms.open(PAGE, QUERY)
    other, other_secret = rooms.open(PAGE, QUERY)
    rooms.answer(code, QUESTION, "ann", "1")
    rooms.seen(code, "ann")
    assert rooms.close(code, secret) is True
    assert rooms.view(code) is None and rooms.ended(code)
    assert rooms.answers(code, QUESTION) == {}
    assert rooms.publish(code, secret, PAGE, QUERY) is None
    assert rooms.reveal(code, secret, QUESTION) is False
    assert rooms.answer(code, QUESTION, "bob", "0") is False
    assert not rooms.is_teacher(code, secret)
    assert rooms.close(code, secret) is False
    assert rooms.restore(code, secret, PAGE, QUERY) is False
    assert rooms.view(code) is None and rooms.ended(code)
    # the other class goes on
    assert rooms.view(other) == RoomView(PAGE, QUERY, 1) and not rooms.ended(other)
    assert rooms.publish(other, other_secret, "home", {}) == 2


def test_restore_recreates_a_lost_room_with_its_code_and_secret(case):
    rooms = case.rooms
    code, secret = rooms.open(PAGE, QUERY)
    assert rooms.publish(code, secret, "home", {}) == 2
    assert rooms.reveal(code, secret, QUESTION)
    # a live room is not restored over, with its secret or another
    assert rooms.restore(code, secret, "home", {"present": ["true"]}) is False
    assert rooms.restore(code, "another secret", "home", {"present": ["true"]}) is False
    assert rooms.view(code) == RoomView("home", {}, 3, frozenset({QUESTION}))

    case.lose()
    assert rooms.view(code) is None and not rooms.ended(code)
    assert rooms.publish(code, secret, "home", {}) is None  # the teacher's session finds it lost

    assert rooms.restore(code, secret, PAGE, QUERY) is True
    restored = rooms.view(code)
    assert (restored.page, restored.query, restored.revealed) == (PAGE, QUERY, frozenset())
    assert restored.version > 3  # past every version it had: the boards and browsers take only newer views
    assert rooms.is_teacher(code, secret) and not rooms.is_teacher(code, "another secret")
    assert rooms.publish(code, secret, "home", {}) == restored.version + 1
    assert rooms.publish(code, "another secret", PAGE, QUERY) is None
    assert rooms.restore(code, secret, PAGE, QUERY) is False  # now it exists again
    assert rooms.answer(code, QUESTION, "ann", "1") and rooms.answers(code, QUESTION) == {"ann": "1"}
    assert rooms.close(code, secret) and rooms.ended(code)


def _query_of_bytes(size: int) -> dict[str, list[str]]:
    """A query whose view on ``home`` is exactly ``size`` bytes as the stores measure it."""
    overhead = len(json.dumps({"page": "home", "query": {"text": [""]}}, sort_keys=True).encode())
    return {"text": ["x" * (size - overhead)]}


def test_a_view_larger_than_max_view_bytes_is_a_value_error(case):
    rooms = case.rooms
    largest, too_large = _query_of_bytes(MAX_VIEW_BYTES), _query_of_bytes(MAX_VIEW_BYTES + 1)
    with pytest.raises(ValueError, match="larger than"):
        rooms.open("home", too_large)
    with pytest.raises(ValueError):
        rooms.open(
            "home", {"text": ["é" * (MAX_VIEW_BYTES // 6)]}
        )  # fewer characters, but JSON writes é as \u00e9: 6 bytes
    code, secret = rooms.open("home", largest)
    assert rooms.view(code) == RoomView("home", largest, 1)
    with pytest.raises(ValueError):
        rooms.publish(code, secret, "home", too_large)
    assert rooms.view(code) == RoomView("home", largest, 1)
    case.lose()
    with pytest.raises(ValueError):
        rooms.restore(code, secret, "home", too_large)
    assert rooms.view(code) is None


def test_memory_room_ends_when_its_teacher_is_not_seen_for_idle_seconds():
    clock = FakeClock()
    rooms = MemoryRooms(clock=clock)
    code, secret = rooms.open(PAGE, QUERY)
    for _ in range(3):  # the teacher's publishing keeps it open
        clock.advance(IDLE_SECONDS - 1)
        assert rooms.publish(code, secret, PAGE, QUERY) == 1
    for _ in range(3):  # and so does the teacher's session checking it is the teacher
        clock.advance(IDLE_SECONDS - 1)
        assert rooms.is_teacher(code, secret)
    for _ in range(IDLE_SECONDS // 60):  # students seen, answering and reading do not
        clock.advance(60)
        rooms.seen(code, "ann")
        rooms.answer(code, QUESTION, "ann", "1")
        assert rooms.view(code) is not None
    assert rooms.followers(code) == 1
    clock.advance(1)
    assert rooms.view(code) is None
    assert not rooms.ended(code)  # idle, not closed: its teacher's session may restore it
    assert rooms.followers(code) == 0 and rooms.answers(code, QUESTION) == {}
    assert rooms.publish(code, secret, PAGE, QUERY) is None


def test_memory_ended_marker_lasts_ended_seconds():
    clock = FakeClock()
    rooms = MemoryRooms(clock=clock)
    code, secret = rooms.open(PAGE, QUERY)
    rooms.close(code, secret)
    clock.advance(ENDED_SECONDS - 1)
    assert rooms.ended(code)
    clock.advance(1)
    assert not rooms.ended(code)
