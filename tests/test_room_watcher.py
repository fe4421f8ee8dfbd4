"""The server's watcher of its students' rooms (ui/rooms/watcher.py): a student's session is started once for
each change of its room, never while nothing changes; an explorer only for what is not the teacher's view;
views sent one after another wake them once they settle; students are marked present in one write a room
and forgotten once disconnected; a store that cannot be reached, a room missing from its store and a room
that ended each wake the students once."""

from __future__ import annotations

import pytest

from ui.rooms.store import PRESENT_SECONDS, MemoryRooms, RoomsUnavailable
from ui.rooms.watcher import HEARTBEAT_SECONDS, MISSING_RECHECK_SECONDS, RoomState, RoomWatcher, room_state

PAGE, QUERY = "multi_head", {"heads": ["4"]}
WHERE = ("page-hash", "heads=4&room=CODE")  # what a student's last run drew, as it is rerun


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Sessions:
    """The server's sessions as the watcher sees them: which are connected, and the runs it started."""

    def __init__(self, *connected: str):
        self.connected = set(connected)
        self.runs: list[str] = []

    def rerun(self, session_id: str, where: tuple[str, str]) -> bool:
        assert where == WHERE
        if session_id not in self.connected:
            return False
        self.runs.append(session_id)
        return True

    def alive(self, session_id: str) -> bool:
        return session_id in self.connected


class FlakyStore(MemoryRooms):
    """A store whose reads fail while ``down`` (a Redis that went away)."""

    down = False

    def view(self, code):
        if self.down:
            raise RoomsUnavailable("down")
        return super().view(code)

    def seen(self, code, *students):
        if self.down:
            raise RoomsUnavailable("down")
        super().seen(code, *students)


@pytest.fixture
def setup():
    store, clock = FlakyStore(), Clock()
    code, secret = store.open(PAGE, QUERY)
    sessions = Sessions("s1", "s2", "s3")
    watcher = RoomWatcher(store, sessions.rerun, sessions.alive, clock=clock,
                          runs_at_once=10)  # all at once here; the pacing has a test of its own, the last
    return store, clock, code, secret, sessions, watcher


def look(watcher) -> None:
    """Two looks of the watcher: a room's new state is acted on once it has held for two."""
    watcher.watch_once()
    watcher.watch_once()


def listen_all(watcher, store, code, clock, following=(True, True, True)):
    saw = room_state(store, code, clock())
    for index, follows in enumerate(following, start=1):
        watcher.listen(f"s{index}", code, WHERE, f"student{index}", follows, saw)


def test_nothing_changed_wakes_nobody(setup):
    store, clock, code, _, sessions, watcher = setup
    listen_all(watcher, store, code, clock)
    for _ in range(50):
        watcher.watch_once()
        clock.now += 0.1
    assert sessions.runs == []


def test_each_change_wakes_each_follower_once(setup):
    store, clock, code, secret, sessions, watcher = setup
    listen_all(watcher, store, code, clock)
    assert store.publish(code, secret, PAGE, {"heads": ["8"]}) == 2
    for _ in range(5):
        watcher.watch_once()
    assert sorted(sessions.runs) == ["s1", "s2", "s3"]
    store.publish(code, secret, "masks", {})
    watcher.watch_once()
    assert sorted(sessions.runs) == ["s1", "s2", "s3"]  # not yet: the state has been read once
    watcher.watch_once()
    assert sorted(sessions.runs) == ["s1", "s1", "s2", "s2", "s3", "s3"]


def test_views_sent_one_after_another_wake_the_students_once_they_settle(setup):
    store, clock, code, secret, sessions, watcher = setup
    listen_all(watcher, store, code, clock)
    for heads in ("1", "2", "8", "16"):  # a slider dragged through its values
        store.publish(code, secret, PAGE, {"heads": [heads]})
        watcher.watch_once()
    assert sessions.runs == []
    look(watcher)
    assert sorted(sessions.runs) == ["s1", "s2", "s3"]


def test_a_run_that_saw_the_change_already_is_not_woken_for_it(setup):
    store, clock, code, secret, sessions, watcher = setup
    store.publish(code, secret, PAGE, {"heads": ["2"]})
    listen_all(watcher, store, code, clock)  # their runs read version 2
    look(watcher)
    assert sessions.runs == []


def test_an_explorer_is_woken_by_a_reveal_and_the_end_not_by_the_teachers_views(setup):
    store, clock, code, secret, sessions, watcher = setup
    listen_all(watcher, store, code, clock, following=(True, False, False))
    store.publish(code, secret, PAGE, {"heads": ["8"]})
    look(watcher)
    assert sessions.runs == ["s1"]
    assert store.reveal(code, secret, "heads/0")
    look(watcher)
    assert sorted(sessions.runs) == ["s1", "s1", "s2", "s3"]
    assert store.close(code, secret)
    look(watcher)
    assert sorted(sessions.runs) == ["s1", "s1", "s1", "s2", "s2", "s3", "s3"]
    assert room_state(store, code, clock()) == RoomState("ended")


def test_a_store_that_goes_away_and_comes_back_wakes_each_student_twice(setup):
    store, clock, code, _, sessions, watcher = setup
    listen_all(watcher, store, code, clock)
    store.down = True
    for _ in range(3):
        watcher.watch_once()
    assert sorted(sessions.runs) == ["s1", "s2", "s3"]  # told it is unreachable, once
    store.down = False
    look(watcher)
    assert sorted(sessions.runs) == ["s1", "s1", "s2", "s2", "s3", "s3"]  # and that it is back


def test_a_missing_room_is_told_again_each_recheck_period(setup):
    store, clock, _, _, sessions, watcher = setup
    gone = "ABCDEFGH"  # no such room: as after a Redis restarted empty
    watcher.listen("s1", gone, WHERE, "student1", True, room_state(store, gone, clock()))
    look(watcher)
    assert sessions.runs == []
    clock.now += MISSING_RECHECK_SECONDS
    look(watcher)
    look(watcher)
    assert sessions.runs == ["s1"]


def test_students_are_marked_present_together_and_disconnected_ones_forgotten(setup):
    store, clock, code, secret, sessions, watcher = setup
    listen_all(watcher, store, code, clock)
    watcher.watch_once()
    assert store.followers(code) == 3
    sessions.connected.discard("s2")
    clock.now += HEARTBEAT_SECONDS
    watcher.watch_once()
    assert watcher.listening() == 2
    store.publish(code, secret, PAGE, {"heads": ["1"]})
    look(watcher)
    assert sorted(sessions.runs) == ["s1", "s3"]


def test_present_students_stay_counted_between_marks():
    assert HEARTBEAT_SECONDS * 2 <= PRESENT_SECONDS  # a mark missed once does not drop a student


def test_a_session_gone_when_woken_is_forgotten(setup):
    store, clock, code, secret, sessions, watcher = setup
    listen_all(watcher, store, code, clock)
    sessions.connected.discard("s3")
    store.publish(code, secret, PAGE, {"heads": ["1"]})
    look(watcher)
    assert watcher.listening() == 2 and sorted(sessions.runs) == ["s1", "s2"]


def test_the_thread_wakes_students_without_being_asked(setup):
    import threading

    store, clock, code, secret, _, _ = setup
    runs, woken = [], threading.Condition()

    def rerun(session_id: str, where) -> bool:
        with woken:
            runs.append(session_id)
            woken.notify_all()
        return True

    watcher = RoomWatcher(store, rerun, lambda session_id: True, clock=clock, runs_at_once=10)
    listen_all(watcher, store, code, clock)
    watcher.start()
    store.publish(code, secret, PAGE, {"heads": ["8"]})
    with woken:
        assert woken.wait_for(lambda: len(runs) == 3, timeout=5), runs
    assert sorted(runs) == ["s1", "s2", "s3"]


def test_woken_runs_go_a_few_at_a_time_each_back_when_its_session_says_what_it_drew():
    """Ten students woken by one change, three runs at a time: the test ends each run (its session tells the
    watcher what it drew) only once three are under way, so a fourth started early shows as four at once."""
    import threading

    store, clock = MemoryRooms(), Clock()
    code, secret = store.open(PAGE, QUERY)
    started, most, changed = [], [0], threading.Condition()
    ended: list[str] = []

    def rerun(session_id: str, where) -> bool:
        with changed:
            started.append(session_id)
            most[0] = max(most[0], len(started) - len(ended))
            changed.notify_all()
        return True

    watcher = RoomWatcher(store, rerun, lambda session_id: True, clock=clock, runs_at_once=3)
    saw = room_state(store, code, clock())
    for index in range(10):
        watcher.listen(f"s{index}", code, WHERE, f"s{index}", True, saw)
    store.publish(code, secret, PAGE, {"heads": ["8"]})
    watcher.watch_once()  # the first look at the new view; the second (below) wakes the students
    waking = threading.Thread(target=watcher.watch_once)
    waking.start()
    while len(ended) < 10:
        with changed:
            assert changed.wait_for(lambda: len(started) == min(10, len(ended) + 3), timeout=5), started
            session_id = started[len(ended)]
            ended.append(session_id)
        watcher.listen(session_id, code, WHERE, session_id, True, room_state(store, code, clock()))  # run back
    waking.join(timeout=5)
    assert not waking.is_alive()
    assert sorted(started) == [f"s{index}" for index in range(10)]  # each once
    assert most[0] == 3  # never more than three under way
    look(watcher)
    assert len(started) == 10  # their runs said they saw the change: nobody is woken again
