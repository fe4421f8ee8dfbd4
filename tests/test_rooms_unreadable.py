"""A class whose stored fields cannot be read (another version of the app wrote them, or a hand did), on a real
redis-server: that class is unavailable, logged once with its code, and a student joining it gets a notice; the
server's watcher goes on with every other class, whose changes still reach the board within a pass."""

from __future__ import annotations

import json
import logging

import pytest
import redis

from classroom.board import Board
from classroom.redis_store import RedisRooms
from classroom.store import RoomsUnavailable, RoomUnreadable, RoomView, read_view
from classroom.watcher import RoomWatcher
from tests.apptest_helpers import APP, TIMEOUT
from testing.processes import wait_until
from tests.test_rooms import PAGE, QUERY
from ui.rooms.membership import room_store

CORRUPTIONS = {
    "version not a number": {"version": "x"},
    "version in other digits": {"version": "²"},
    "view not an object": {"view": json.dumps(["multi_head"])},
    "query not key -> list": {"view": json.dumps({"page": PAGE, "query": {"heads": 4}})},
    "view not JSON": {"view": "{"},
    "revealed not a list": {"revealed": json.dumps({"a": 1})},
}


def corrupt(url: str, code: str, fields: dict[str, str]) -> None:
    client = redis.Redis.from_url(url)
    try:
        key = next(k for k in client.scan_iter(f"*{code}") if not k.endswith(b":ended"))
        client.hset(key, mapping=fields)
    finally:
        client.close()


@pytest.mark.parametrize("fields", CORRUPTIONS.values(), ids=CORRUPTIONS)
def test_a_room_that_cannot_be_read_is_unreadable_and_the_next_room_is_read(running_redis, fields):
    rooms = RedisRooms(running_redis.url)
    bad, _ = rooms.open(PAGE, QUERY)
    good, _ = rooms.open(PAGE, QUERY)
    corrupt(running_redis.url, bad, fields)
    with pytest.raises(RoomUnreadable, match=f"class {bad}'s stored state cannot be read"):
        rooms.view(bad)
    assert issubclass(RoomUnreadable, RoomsUnavailable)  # every caller already handles an unavailable class
    assert rooms.view(good) == RoomView(PAGE, QUERY, 1)


def test_a_stored_view_is_read_only_in_its_own_shape():
    assert read_view(json.dumps({"page": PAGE, "query": QUERY}), "3", '["a/0"]') == RoomView(
        PAGE, QUERY, 3, frozenset({"a/0"})
    )
    for text, version, revealed in (
        (json.dumps({"page": 1, "query": {}}), "1", "[]"),
        (json.dumps({"page": PAGE, "query": {"k": ["1", 2]}}), "1", "[]"),
        (json.dumps({"page": PAGE, "query": {}}), "-1", "[]"),
        (json.dumps({"page": PAGE, "query": {}}), None, "[]"),
        (json.dumps({"page": PAGE, "query": {}}), "1", "[1]"),
    ):
        with pytest.raises(ValueError):
            read_view(text, version, revealed)


def board_status(board: Board, token: str) -> dict:
    """The class state the board holds for ``token`` ({} before the watcher's first pass)."""
    entry = board._entries.get(token)
    return json.loads(entry.status) if entry is not None and entry.status else {}


def test_the_watcher_goes_on_with_the_other_classes_and_logs_the_bad_one_once(running_redis, caplog):
    rooms, board = RedisRooms(running_redis.url), Board()
    bad, _ = rooms.open(PAGE, QUERY)
    good, secret = rooms.open(PAGE, QUERY)
    watcher = RoomWatcher(rooms, board, lambda session: True)
    watcher.listen("s1", bad, rooms.view_token(bad), "student-1", True)
    watcher.listen("s2", good, rooms.view_token(good), "student-2", True)
    corrupt(running_redis.url, bad, {"version": "x"})
    caplog.set_level(logging.WARNING)
    watcher.start()
    good_token = rooms.view_token(good)
    for version in (2, 3):
        assert rooms.publish(good, secret, "home", {"present": ["true"] if version == 3 else ["false"]}) == version
        wait_until(
            lambda version=version: board_status(board, good_token).get("version") == version,
            3,
            f"the good class's version {version} to reach the board",
        )
    assert board_status(board, rooms.view_token(bad))["kind"] == "unavailable"
    logged = [r for r in caplog.records if bad in r.getMessage()]
    assert len(logged) == 1 and "cannot be read" in logged[0].getMessage()


@pytest.fixture
def app_on_redis(running_redis, monkeypatch):
    """The app's rooms on this redis-server: the server's store is made once per process, so it is made again
    here and forgotten after, whatever an earlier test made."""
    monkeypatch.setenv("ATTENTION_LAB_REDIS_URL", running_redis.url)
    room_store.clear()
    yield running_redis
    room_store.clear()


def test_a_student_joining_a_class_that_cannot_be_read_gets_a_notice(app_on_redis):
    from streamlit.testing.v1 import AppTest

    rooms = RedisRooms(app_on_redis.url)
    bad, _ = rooms.open(PAGE, QUERY)
    corrupt(app_on_redis.url, bad, {"view": "{"})
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params["room"] = bad
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert any(f"Class {bad}'s stored state cannot be read" in w.value for w in at.warning)
    assert "room" not in at.query_params
