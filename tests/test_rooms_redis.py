"""Classes (ui/rooms) on a real redis-server: two stores share their rooms, and Redis stopped, killed or
paused is ``RoomsUnavailable`` within a second and works again once it is back."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable

import pytest
import redis

from testing.processes import wait_until
from classroom.redis_store import RedisRooms
from classroom.store import RoomsUnavailable, RoomView

from tests.test_rooms import QUERY, PAGE, QUESTION, UNAVAILABLE_SECONDS


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
    restored = rooms.view(code).version
    assert restored > 1 and rooms.publish(code, secret, "home", {}) == restored + 1  # past the versions it had
    rooms.seen(code, "ann")
    assert rooms.followers(code) == 1


def test_redis_that_stops_answering_is_rooms_unavailable_within_a_second_and_then_does_what_reached_it(running_redis):
    """A Redis that accepts no more (paused: as a stuck server or a lost network would) times out. Each store's
    connection is open before the pause, so each operation's command reaches Redis, which carries it out when it
    answers again: the publish's first command reads the teacher's secret, so nothing of the publish is written;
    a student's mark is only a write, so it lands."""
    teacher, student, reader = (RedisRooms(f"{running_redis.url}?client_name=paused") for _ in range(3))
    code, secret = teacher.open(PAGE, QUERY)
    assert student.followers(code) == 0 and reader.view(code) == RoomView(PAGE, QUERY, 1)
    checker = redis.Redis.from_url(running_redis.url, decode_responses=True)

    def paused_connections() -> int:
        return sum(client["name"] == "paused" for client in checker.client_list())

    assert paused_connections() == 3  # one open connection a store
    pid = running_redis.process.pid
    os.kill(pid, signal.SIGSTOP)
    try:
        for name, operation in (
            ("seen", lambda: student.seen(code, "ann")),
            ("publish", lambda: teacher.publish(code, secret, "home", {})),
            ("view", lambda: reader.view(code)),
        ):
            start = time.monotonic()
            with pytest.raises(RoomsUnavailable):
                operation()
            assert time.monotonic() - start < UNAVAILABLE_SECONDS, name
    finally:
        os.kill(pid, signal.SIGCONT)
    try:
        # the stores closed their timed-out connections: Redis drops each after it has read what it sent
        wait_until(
            lambda: paused_connections() == 0,
            10,
            "Redis to drop the connections made while paused",
            process=running_redis.process,
        )
        assert checker.hkeys(f"{RedisRooms.PREFIX}{code}:students") == ["ann"]  # the marks, read with no clock
    finally:
        checker.close()
    assert reader.view(code) == RoomView(PAGE, QUERY, 1) and teacher.is_teacher(code, secret)
