"""The server's watcher of its students' rooms (classroom/watcher.py) keeps this server's board current: a
room's changed state goes to the board once, nothing while nothing changes; a view whose drawing a teacher on
another server made is brought from the store; students are marked present in one write a room, following
and exploring apart, and forgotten once disconnected; a store that cannot be reached and a room missing from
its store are each told."""

from __future__ import annotations

import json
import threading

import pytest

from classroom.board import Board
from classroom.memory_store import MemoryRooms
from classroom.store import PRESENT_SECONDS, RoomsUnavailable
from classroom.watcher import HEARTBEAT_SECONDS, MISSING_RECHECK_SECONDS, RoomState, RoomWatcher, room_state

PAGE, QUERY = "multi_head", {"heads": ["4"]}


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class FlakyStore(MemoryRooms):
    """A store whose reads fail while ``down`` (a Redis that went away)."""

    down = False

    def view(self, code):
        if self.down:
            raise RoomsUnavailable("down")
        return super().view(code)

    def seen(self, code, *students, exploring=()):
        if self.down:
            raise RoomsUnavailable("down")
        super().seen(code, *students, exploring=exploring)


def drawing(version: int, layout: str = "L") -> dict[str, str]:
    return {
        "plain": json.dumps(
            {
                "version": version,
                "layout": layout,
                "page": PAGE,
                "query": QUERY,
                "settings": [],
                "present": False,
                "charts": {},
            }
        )
    }


@pytest.fixture
def setup():
    store, clock, board, connected = FlakyStore(), Clock(), Board(), {"s1", "s2", "s3"}
    code, secret = store.open(PAGE, QUERY)
    token = store.view_token(code)
    watcher = RoomWatcher(store, board, lambda session: session in connected, clock=clock)
    watcher.listen("s1", code, token, "student-1", True)
    watcher.listen("s2", code, token, "student-2", True)
    watcher.listen("s3", code, token, "student-3", False)
    return store, clock, board, watcher, code, secret, token, connected


def status(board: Board, token: str) -> dict:
    entry = board._entries[token]
    return json.loads(entry.status)


def test_a_room_state_goes_to_the_board_once_and_not_again_while_nothing_changes(setup):
    store, clock, board, watcher, code, secret, token, _ = setup
    watcher.watch_once()
    first = board.sequence(token)
    assert status(board, token) == {
        "kind": "view",
        "revealed": [],
        "recheck": 0,
        "version": 1,
        "pace": "",
        "paused": False,
    }
    for _ in range(5):
        clock.now += 0.1
        watcher.watch_once()
    assert board.sequence(token) == first  # nobody is told of nothing


def test_a_reveal_a_pace_a_pause_and_the_end_of_the_class_are_told(setup):
    store, clock, board, watcher, code, secret, token, _ = setup
    watcher.watch_once()
    store.reveal(code, secret, "heads/0")
    watcher.watch_once()
    assert status(board, token)["revealed"] == ["heads/0"]
    store.set_pace(code, secret, "heads")
    watcher.watch_once()
    assert status(board, token)["pace"] == "heads"
    before = board.sequence(token)
    store.set_paused(code, secret, True)
    watcher.watch_once()
    assert status(board, token)["paused"] is True and board.sequence(token) > before
    store.close(code, secret)
    watcher.watch_once()
    assert status(board, token)["kind"] == "ended"


def test_a_drawing_made_on_another_server_is_brought_from_the_store_once(setup):
    store, clock, board, watcher, code, secret, token, _ = setup
    version = store.publish(code, secret, PAGE, {"heads": ["8"]})
    assert store.publish_drawing(code, secret, version, drawing(version, "L8"))
    watcher.watch_once()
    assert board.drawn(token) == (version, "L8")
    served = json.loads(board.latest(token, "plain")[1])
    assert served["drawing"]["version"] == version and served["status"]["kind"] == "view"
    before = board.sequence(token)
    watcher.watch_once()
    assert board.sequence(token) == before


def test_a_drawing_of_an_older_view_is_never_served_over_a_newer_one(setup):
    store, clock, board, watcher, code, secret, token, _ = setup
    board.put(token, {"plain": drawing(5)["plain"].encode()}, 5, "L")
    board.put(token, {"plain": drawing(3)["plain"].encode()}, 3, "L")
    assert board.drawn(token) == (5, "L")


def test_a_drawing_of_another_version_than_the_rooms_is_refused_by_the_store(setup):
    store, clock, board, watcher, code, secret, token, _ = setup
    version = store.publish(code, secret, PAGE, {"heads": ["8"]})
    assert not store.publish_drawing(code, secret, version - 1, drawing(version - 1))
    assert not store.publish_drawing(code, "not the secret", version, drawing(version))
    with pytest.raises(ValueError):
        store.publish_drawing(code, secret, version, {"other": "{}"})
    assert store.drawing(code) is None


def test_a_store_that_goes_away_and_comes_back_is_told_both_ways(setup):
    store, clock, board, watcher, code, secret, token, _ = setup
    watcher.watch_once()
    store.down = True
    watcher.watch_once()
    assert status(board, token)["kind"] == "unavailable"
    store.down = False
    watcher.watch_once()
    assert status(board, token)["kind"] == "view"


def test_a_missing_room_is_told_again_each_recheck_period():
    store, clock, board = MemoryRooms(), Clock(), Board()
    watcher = RoomWatcher(store, board, lambda session: True, clock=clock)
    watcher.listen("s1", "ABCDEFGH", "0" * 32, "student-1", True)
    watcher.watch_once()
    first = board.sequence("0" * 32)
    clock.now += MISSING_RECHECK_SECONDS / 2
    watcher.watch_once()
    assert board.sequence("0" * 32) == first
    clock.now += MISSING_RECHECK_SECONDS
    watcher.watch_once()
    assert board.sequence("0" * 32) == first + 1


def test_students_are_marked_present_following_and_exploring_apart_and_gone_ones_forgotten(setup):
    store, clock, board, watcher, code, secret, token, connected = setup
    watcher.watch_once()
    assert (store.followers(code), store.explorers(code)) == (2, 1)
    connected.discard("s2")
    clock.now += HEARTBEAT_SECONDS
    watcher.watch_once()
    assert watcher.listening() == 2
    watcher.listen("s1", code, token, "student-1", False)  # student 1 explores now
    clock.now += HEARTBEAT_SECONDS
    watcher.watch_once()
    assert store.explorers(code) == 2 and store.followers(code) <= 1


def test_present_students_stay_counted_between_marks():
    assert HEARTBEAT_SECONDS < PRESENT_SECONDS


def test_the_thread_tells_the_board_without_being_asked(setup):
    store, clock, board, watcher, code, secret, token, _ = setup
    told = threading.Event()
    original = board.set_status

    def set_status(token_, text):
        told.set()
        return original(token_, text)

    board.set_status = set_status
    watcher.start()
    assert told.wait(5)


def test_the_state_a_run_saw_is_the_rooms():
    store, clock = MemoryRooms(), Clock()
    code, secret = store.open(PAGE, QUERY)
    assert room_state(store, code, clock()) == RoomState("view", 1)


def test_a_drawing_that_cannot_be_read_is_not_served(setup):
    store, clock, board, watcher, code, secret, token, _ = setup
    version = store.publish(code, secret, PAGE, {"heads": ["8"]})
    assert store.publish_drawing(code, secret, version, {"plain": "{not json"})
    watcher.watch_once()
    assert board.drawn(token) == (0, "") and board.latest(token, "plain") is None
    assert status(board, token)["kind"] == "view"  # the students' pages are told; each opens the view itself
