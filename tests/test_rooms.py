"""Classes (ui/rooms): both stores of rooms against the same rules (MemoryRooms, and RedisRooms on a real
redis-server), Redis taken away and given back, class codes, the check of a teacher's view against its page's
controls, the tally and chart of the class's answers, and that ui/rooms/url_schema.json is current."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from testing.installed import require
from testing.redis_server import PROGRAM as REDIS_SERVER, redis_running
from ui.lesson_catalogue import LESSONS, Choice, Number, Shipped, View
from ui.quiz import tally
from ui.rooms.redis_store import RedisRooms
from ui.rooms.schema import MAX_VALUE_CHARS, MAX_VALUES, SCHEMA_FILE, PAGE_KEYS, view_problem
from ui.rooms.store import (CODE_ALPHABET, CODE_LENGTH, ENDED_SECONDS, IDLE_SECONDS, MAX_ANSWER_CHARS,
                            MAX_VIEW_BYTES, PRESENT_SECONDS, MemoryRooms, RoomStore, RoomsUnavailable, RoomView,
                            new_code, normal_code)

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


@pytest.fixture(scope="module")
def redis_server():
    require(REDIS_SERVER)
    with redis_running() as server:
        yield server


def flush(url: str) -> None:
    import redis

    client = redis.Redis.from_url(url)
    try:
        client.flushall()
    finally:
        client.close()


@pytest.fixture
def running_redis(redis_server):
    """The module's Redis, running and empty; running again after the test whatever the test did to it."""
    redis_server.start()
    flush(redis_server.url)
    yield redis_server
    redis_server.start()


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
    assert rooms.view(code) == RoomView(PAGE, QUERY, 1, frozenset())
    assert rooms.is_teacher(code, secret) and not rooms.is_teacher(code, "another secret")
    assert rooms.publish(code, secret, "home", {}) == 2
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
        rooms.open("home", {"text": ["é" * (MAX_VIEW_BYTES // 6)]})  # fewer characters, but JSON writes é as \u00e9: 6 bytes
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


def test_two_redis_stores_share_their_rooms(running_redis):
    """Two app servers on one Redis: one class."""
    first, second = RedisRooms(running_redis.url), RedisRooms(running_redis.url)
    code, secret = first.open(PAGE, QUERY)
    assert second.view(code) == RoomView(PAGE, QUERY, 1)
    assert second.publish(code, secret, "home", {}) == 2
    second.seen(code, "ann")
    first.seen(code, "bob")
    assert first.answer(code, QUESTION, "ann", "1") and second.answer(code, QUESTION, "bob", "0")
    assert first.view(code) == RoomView("home", {}, 2) and first.followers(code) == 2
    assert first.answers(code, QUESTION) == second.answers(code, QUESTION) == {"ann": "1", "bob": "0"}
    assert first.close(code, secret) and second.ended(code) and second.view(code) is None


# --- Redis taken away -------------------------------------------------------------------------------------


def _operations(rooms: RedisRooms, code: str, secret: str) -> dict[str, Callable[[], object]]:
    return {
        "view": lambda: rooms.view(code),
        "publish": lambda: rooms.publish(code, secret, "home", {"present": ["true"]}),
        "seen": lambda: rooms.seen(code, "ann"),
        "open": lambda: rooms.open(PAGE, QUERY),
        "ended": lambda: rooms.ended(code),
        "is_teacher": lambda: rooms.is_teacher(code, secret),
        "reveal": lambda: rooms.reveal(code, secret, QUESTION),
        "followers": lambda: rooms.followers(code),
        "answer": lambda: rooms.answer(code, QUESTION, "ann", "1"),
        "answers": lambda: rooms.answers(code, QUESTION),
        "restore": lambda: rooms.restore(code, secret, PAGE, QUERY),
        "close": lambda: rooms.close(code, secret),
    }


def _assert_unavailable_quickly(rooms: RedisRooms, code: str, secret: str) -> None:
    for name, operation in _operations(rooms, code, secret).items():
        start = time.monotonic()
        with pytest.raises(RoomsUnavailable):
            operation()
        assert time.monotonic() - start < UNAVAILABLE_SECONDS, name


@pytest.mark.parametrize("how", ["stop", "kill"])
def test_redis_down_is_rooms_unavailable_within_a_second_and_up_again_works(running_redis, how):
    rooms = RedisRooms(running_redis.url)
    code, secret = rooms.open(PAGE, QUERY)
    getattr(running_redis, how)()
    _assert_unavailable_quickly(rooms, code, secret)
    running_redis.start()
    # the same store (its connections broken by the restart) works again; the restarted Redis is empty
    assert rooms.view(code) is None and not rooms.ended(code)
    assert rooms.restore(code, secret, PAGE, QUERY)
    assert rooms.publish(code, secret, "home", {}) == 2
    rooms.seen(code, "ann")
    assert rooms.followers(code) == 1


def test_redis_that_stops_answering_is_rooms_unavailable_within_a_second(running_redis):
    """A Redis that accepts no more (paused: as a stuck server or a lost network would) times out; when it
    answers again the rooms are still there."""
    rooms = RedisRooms(running_redis.url)
    code, secret = rooms.open(PAGE, QUERY)
    pid = running_redis.process.pid
    os.kill(pid, signal.SIGSTOP)
    try:
        for name in ("view", "publish", "seen"):
            start = time.monotonic()
            with pytest.raises(RoomsUnavailable):
                _operations(rooms, code, secret)[name]()
            assert time.monotonic() - start < UNAVAILABLE_SECONDS, name
    finally:
        os.kill(pid, signal.SIGCONT)
    view = rooms.view(code)
    assert view is not None and view.page in (PAGE, "home")  # the publish may have reached it before the pause
    assert rooms.is_teacher(code, secret)


# --- codes ------------------------------------------------------------------------------------------------


def test_the_alphabet_has_31_unconfusable_characters():
    assert len(CODE_ALPHABET) == len(set(CODE_ALPHABET)) == 31
    assert not set("0O1IL") & set(CODE_ALPHABET)
    assert all(c.isascii() and c.isalnum() and c == c.upper() for c in CODE_ALPHABET)
    assert set(CODE_ALPHABET) == set("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") - set("0O1IL")
    assert len(set(CODE_ALPHABET)) ** CODE_LENGTH == 31 ** 8 == 852_891_037_441


def test_new_codes_use_the_whole_alphabet():
    codes = [new_code() for _ in range(2_000)]
    assert all(len(code) == CODE_LENGTH and normal_code(code) == code for code in codes)
    assert set("".join(codes)) == set(CODE_ALPHABET)  # 16,000 draws: each character about 516 times
    assert len(set(codes)) == len(codes)


@pytest.mark.parametrize("typed", ["abcd-efgh", "ABCD-EFGH", "abcdefgh", "AbCd eFgH", " abcd - efgh ", "a-b-c-d-e-f-g-h"])
def test_normal_code_takes_a_code_in_any_case_with_spaces_and_dashes(typed):
    assert normal_code(typed) == "ABCDEFGH"


def test_normal_code_takes_every_code_as_read_aloud():
    for code in (new_code() for _ in range(200)):
        assert normal_code(f"{code[:4]}-{code[4:]}".lower()) == code
        assert normal_code(code.swapcase()) == code


@pytest.mark.parametrize("typed", ["", "abcd-efg", "abcdefghj", "ABCD-EFGH-J", "--------", "ABCDEFG_", "ABCDEFG!",
                                   "ABCDEFGÄ", "ABCDEFG\t", "ABCDEFG²"])
def test_normal_code_refuses_the_wrong_length_and_other_characters(typed):
    assert normal_code(typed) is None


@pytest.mark.parametrize("confusable", ["0", "O", "o", "1", "I", "i", "L", "l"])
def test_normal_code_refuses_confusable_characters(confusable):
    assert normal_code("ABCDEFG" + confusable) is None
    assert normal_code(confusable + "BCD-EFGH") is None


# --- a teacher's view checked against its page's controls -------------------------------------------------


def test_view_problem_refuses_an_unknown_page():
    for page in ("nope", "", "Multi_Head", "multi_head/", "../home", "pages/multi_head.py"):
        assert view_problem(page, {}) is not None, page
    assert view_problem("multi_head", {}) is None
    assert view_problem("home", {}) is None


def test_view_problem_refuses_a_key_no_control_of_the_page_reads():
    assert view_problem("multi_head", {"evil": ["1"]}) is not None
    assert view_problem("multi_head", {"heads": ["4"], "evil": ["1"]}) is not None
    assert view_problem("home", {"heads": ["4"]}) is not None  # a key of another page
    assert view_problem("multi_head", {"heads": ["4"], "text": ["a b c"]}) is None
    assert view_problem("home", {"lesson": ["heads"], "step": ["1"], "present": ["true"]}) is None  # every page


def test_view_problem_refuses_too_many_or_too_long_values():
    assert view_problem("multi_head", {"heads": ["1"] * MAX_VALUES}) is None
    assert view_problem("multi_head", {"heads": ["1"] * (MAX_VALUES + 1)}) is not None
    assert view_problem("multi_head", {"text": ["x" * MAX_VALUE_CHARS]}) is None
    assert view_problem("multi_head", {"text": ["x" * (MAX_VALUE_CHARS + 1)]}) is not None
    assert view_problem("multi_head", {"text": ["ok", "x" * (MAX_VALUE_CHARS + 1)]}) is not None


def test_view_problem_refuses_values_that_are_not_lists_of_text():
    assert view_problem("multi_head", {"heads": "4"}) is not None
    assert view_problem("multi_head", {"heads": [4]}) is not None
    assert view_problem("multi_head", {"heads": [None]}) is not None
    assert view_problem("multi_head", {"heads": {"a": "b"}}) is not None


def test_view_problem_takes_a_number_generalised_key():
    assert "ko_decoder#_self_attn" in PAGE_KEYS["experiments"]
    for key in ("ko_decoder0_self_attn", "ko_decoder7_self_attn", "ko_decoder12_self_attn"):
        assert view_problem("experiments", {key: ["true"]}) is None, key
    assert view_problem("experiments", {"ko_decoderX_self_attn": ["true"]}) is not None
    assert view_problem("masks", {"s3": ["1"]}) is None
    assert view_problem("multi_head", {"ko_decoder7_self_attn": ["true"]}) is not None  # not that page's


def _url_state(settings: dict) -> dict[str, list[str]]:
    """A lesson view's settings as the URL holds them: a shipped checkpoint by a label (any text), a tuple as
    a repeated key, anything else as text."""
    def values(value):
        if isinstance(value, Shipped):
            return [f"{value.name} (shipped) · 0123abcd"]
        if isinstance(value, tuple):
            return [str(v) for v in value]
        return [str(value)]
    return {key: values(value) for key, value in settings.items()}


def test_view_problem_takes_every_lesson_view():
    views = [(lesson, step, view) for lesson in LESSONS for step, view in enumerate(lesson.views)]
    assert len(views) > 20 and any(isinstance(v, Shipped) for *_, view in views for v in view.settings.values())
    for lesson, step, view in views:
        query = {**_url_state(view.settings), "lesson": [lesson.id], "step": [str(step + 1)], "present": ["true"]}
        assert view_problem(view.page, query) is None, (lesson.id, step, view_problem(view.page, query))


def test_the_schema_names_every_page_of_the_navigation():
    from ui.pages_index import PAGES

    assert set(PAGE_KEYS) == {page.url_path for page in PAGES}
    assert all("present" in keys for keys in PAGE_KEYS.values())


# --- the class's answers ----------------------------------------------------------------------------------


def _view(ask) -> View:
    return View("multi_head", {}, "t", "n", "q?", ask, "a")


def test_tally_of_a_choice_counts_each_option_by_index():
    view = _view(Choice(("first", "second", "third"), 1))
    given = ["0", "1", "1", "2", "1", "3", "10", "-1", "x", "", " 1", "1.0", "+1", "one"]
    assert tally(view, given) == (["first", "second", "third"], [1, 3, 1], [False, True, False])
    assert tally(view, []) == (["first", "second", "third"], [0, 0, 0], [False, True, False])


def test_tally_of_a_choice_leaves_out_digits_int_refuses():
    view = _view(Choice(("first", "second", "third"), 1))
    assert tally(view, ["1", "²"]) == (["first", "second", "third"], [0, 1, 0], [False, True, False])


def test_tally_of_a_number_sorts_the_values_and_judges_each_by_the_tolerance():
    view = _view(Number(2.5, tolerance=0.1, unit="nats"))
    given = ["2.5", "3", "2.45", "nan", "2.5", "inf", "-inf", "abc", "", "1e400", "2.61", " 2.4 ", "-1", "NaN",
             "2.6"]
    labels, counts, right = tally(view, given)
    assert labels == ["-1 nats", "2.4 nats", "2.45 nats", "2.5 nats", "2.6 nats", "2.61 nats", "3 nats"]
    assert counts == [1, 1, 1, 2, 1, 1, 1]
    assert right == [False, True, True, True, True, False, False]
    assert tally(view, ["nan", "x"]) == ([], [], [])


def test_tally_of_a_whole_number_shows_whole_numbers():
    view = _view(Number(6, unit="tokens back"))
    assert tally(view, ["7", "6", "1000", "6", "6.0"]) == (
        ["6 tokens back", "7 tokens back", "1,000 tokens back"], [3, 1, 1], [True, False, False])


def test_class_answers_figure_before_and_after_the_reveal():
    from viz.class_answers import ANSWER_COLOR, RIGHT_COLOR, class_answers_figure
    from viz.style import MASKED_COLOR

    answers, counts = ["second", "first", "third"], [3, 0, 5]
    before = class_answers_figure(answers, counts, None, 12)
    (bars,) = before.data
    assert list(bars.y) == answers and list(bars.x) == counts and bars.orientation == "h"
    assert before.layout.yaxis.autorange == "reversed"  # the first answer at the top
    assert list(bars.marker.color) == [ANSWER_COLOR] * 3 and ANSWER_COLOR != RIGHT_COLOR
    assert before.layout.title.text == "The class's answers: 8 of 12 students following"

    after = class_answers_figure(answers, counts, [False, True, False], 12)
    assert list(after.data[0].marker.color) == [MASKED_COLOR, RIGHT_COLOR, MASKED_COLOR]
    assert list(after.data[0].y) == answers
    assert after.layout.title.text == before.layout.title.text

    assert list(class_answers_figure(answers, counts, [True, False, True], 0).data[0].marker.color) == \
        [RIGHT_COLOR, MASKED_COLOR, RIGHT_COLOR]
    assert class_answers_figure(answers, counts, None, 0).layout.title.text == "The class's answers: 8"
    assert class_answers_figure([], [], None, 3).layout.title.text == "The class's answers: 0 of 3 students following"


# --- the schema file is current ---------------------------------------------------------------------------


@pytest.mark.slow
def test_url_schema_file_is_current():
    """Runs every page and section (about 100 s): ``python scripts/url_schema.py`` writes the file again."""
    spec = importlib.util.spec_from_file_location("url_schema_script", ROOT / "scripts" / "url_schema.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    assert Path(script.SCHEMA_FILE) == SCHEMA_FILE
    assert script.build_schema() == json.loads(SCHEMA_FILE.read_text()), \
        "ui/rooms/url_schema.json is not current: run python scripts/url_schema.py"
