"""A class at its own pace, in both stores (MemoryRooms, and RedisRooms on a real redis-server): the teacher sets
the pace and pauses; each student's progress is kept, read back by that student and, all of it, by the teacher
alone. The records themselves (classroom/progress.py): their JSON, and the board's counts worked out by hand."""

from __future__ import annotations

import json
import time

import pytest

from classroom.memory_store import MemoryRooms
from classroom.progress import (
    MAX_NAME_CHARS,
    Progress,
    animal_name,
    clean_name,
    progress_text,
    read_progress,
    slowest_step,
)
from classroom.redis_store import RedisRooms
from classroom.store import CODE_ALPHABET, PRESENT_SECONDS, RoomStore, RoomView, normal_seat, seat_of
from tests.test_rooms import PAGE, QUERY


@pytest.fixture(params=["memory", "redis"])
def rooms(request) -> RoomStore:
    if request.param == "memory":
        return MemoryRooms()
    return RedisRooms(request.getfixturevalue("running_redis").url)


ANN = Progress("Ann", "heads").at(0, 100.0).at(1, 160.0).answering("heads/0", 150.0)


def test_the_pace_and_the_pause_take_the_teachers_secret_and_are_a_new_version(rooms):
    code, secret = rooms.open(PAGE, QUERY)
    assert not rooms.set_pace(code, "not the secret", "heads") and not rooms.set_paused(code, "nope", True)
    assert rooms.view(code) == RoomView(PAGE, QUERY, 1)
    assert rooms.set_pace(code, secret, "heads")
    assert rooms.view(code) == RoomView(PAGE, QUERY, 2, pace="heads")
    assert rooms.set_paused(code, secret, True)
    assert rooms.view(code) == RoomView(PAGE, QUERY, 3, pace="heads", paused=True)
    assert rooms.publish(code, secret, "home", {}) == 4  # the teacher goes on browsing: the pace and pause stay
    assert rooms.reveal(code, secret, "heads/0")
    assert rooms.view(code) == RoomView("home", {}, 5, frozenset({"heads/0"}), "heads", True)
    assert rooms.set_paused(code, secret, False) and rooms.set_pace(code, secret, "")
    assert rooms.view(code) == RoomView("home", {}, 7, frozenset({"heads/0"}))
    with pytest.raises(ValueError):
        rooms.set_pace(code, secret, "x" * 65)


def test_a_students_progress_is_their_own_and_the_class_is_the_teachers(rooms):
    code, secret = rooms.open(PAGE, QUERY)
    bob = Progress("Swift Otter", "heads").at(0, 100.0)
    assert rooms.report(code, "ann", ANN) and rooms.report(code, "bob", bob)
    assert rooms.own_progress(code, "ann") == ANN and rooms.own_progress(code, "bob") == bob
    assert rooms.own_progress(code, "carl") is None
    assert rooms.class_progress(code, "not the secret") is None  # names reach the teacher's session alone
    assert rooms.class_progress(code, secret) == {"ann": ANN, "bob": bob}
    moved = ANN.at(2, 200.0)
    assert rooms.report(code, "ann", moved) and rooms.class_progress(code, secret)["ann"] == moved
    assert rooms.close(code, secret)
    assert not rooms.report(code, "ann", ANN) and rooms.own_progress(code, "ann") is None


def test_a_student_is_in_the_class_while_seen_or_once_they_have_a_record(rooms):
    code, _ = rooms.open(PAGE, QUERY)
    assert not rooms.is_student(code, "ann") and not rooms.is_student("ABCDEFGH", "ann")
    rooms.seen(code, "ann", exploring=("bob",))
    rooms.report(code, "cy", ANN)
    assert rooms.is_student(code, "ann") and rooms.is_student(code, "bob") and rooms.is_student(code, "cy")
    assert not rooms.is_student(code, "dan")


def test_the_teacher_alone_reads_which_students_have_the_class_open_now(rooms):
    code, secret = rooms.open(PAGE, QUERY)
    rooms.seen(code, "ann", exploring=("bob",))  # following the teacher; at their own pace (or exploring)
    rooms.report(code, "cy", ANN)  # a record, but no page open
    assert rooms.connected(code, "not the secret") is None and rooms.connected("ABCDEFGH", secret) is None
    assert rooms.connected(code, secret) == {"ann", "bob"}
    long_ago = time.time() - PRESENT_SECONDS - 1
    if isinstance(rooms, MemoryRooms):
        rooms._rooms[code].explorers["bob"] = rooms._clock() - PRESENT_SECONDS - 1
    else:
        rooms._redis.hset(rooms._key(code, ":explorers"), mapping={"bob": long_ago, "eve": "not a time"})
    assert rooms.connected(code, secret) == {"ann"}


def test_a_seat_names_the_student_with_a_record_in_that_class_only(rooms):
    code, _ = rooms.open(PAGE, QUERY)
    other, _ = rooms.open(PAGE, QUERY)
    rooms.report(code, "0123456789abcdef", ANN)
    seat = seat_of(code, "0123456789abcdef")
    assert len(seat) == 6 and set(seat) <= set(CODE_ALPHABET) and seat != seat_of(other, "0123456789abcdef")
    assert rooms.student_of_seat(code, seat) == "0123456789abcdef"
    assert rooms.student_of_seat(other, seat) is None  # another class: another seat
    assert normal_seat(f" {seat[:3].lower()}-{seat[3:]} ") == seat and normal_seat("ABC-DE1") is None
    rooms.seen(code, "fedcba9876543210")  # in the class but with no record yet: no seat to take
    assert rooms.student_of_seat(code, seat_of(code, "fedcba9876543210")) is None


def test_a_record_that_cannot_be_read_is_left_out_of_the_board(rooms):
    code, secret = rooms.open(PAGE, QUERY)
    rooms.report(code, "ann", ANN)
    bad = json.dumps({"name": "Eve", "lesson": "heads", "step": "two"})
    if isinstance(rooms, MemoryRooms):
        rooms._rooms[code].progress["eve"] = bad
    else:
        assert isinstance(rooms, RedisRooms)
        rooms._redis.hset(rooms._key(code, ":progress"), "eve", bad)
    assert rooms.class_progress(code, secret) == {"ann": ANN}
    assert rooms.own_progress(code, "eve") is None


def test_progress_goes_to_json_and_back_and_keeps_first_times():
    assert ANN.arrived == {0: 100.0, 1: 160.0} and ANN.step == 1
    assert ANN.at(0, 300.0).arrived == {0: 100.0, 1: 160.0}  # back to step 1: its first arrival is kept
    assert ANN.answering("heads/0", 999.0).answered == {"heads/0": 150.0}
    assert read_progress(progress_text(ANN)) == ANN
    assert ANN.renamed("  Ann\n\tB\x00  ").name == "Ann B"
    assert len(clean_name("x" * 100)) == MAX_NAME_CHARS
    adjective, animal = animal_name().split(" ")
    assert adjective[0].isupper() and animal[0].isupper()


@pytest.mark.parametrize(
    "data",
    [
        [],
        {"name": "A", "lesson": "heads"} | {"step": -1},
        {"name": "A", "lesson": "heads", "step": True},
        {"name": 3, "lesson": "heads", "step": 0},
        {"name": "A", "lesson": "heads", "step": 0, "arrived": {"0": "soon"}},
        {"name": "A", "lesson": "heads", "step": 0, "arrived": {"x": 1.0}},
        {"name": "A", "lesson": "heads", "step": 0, "answered": {str(i): 1.0 for i in range(201)}},
    ],
)
def test_a_record_of_another_shape_is_refused(data):
    with pytest.raises(ValueError):
        read_progress(json.dumps(data))


def test_the_boards_counts_as_worked_out_by_hand():
    # Ann: 60 s on step 0 and 40 s on step 1; Bob: 20 s on step 0 and 100 s on step 1; Cy: still on step 0.
    ann = Progress("Ann", "heads").at(0, 0.0).at(1, 60.0).at(2, 100.0)
    bob = Progress("Bob", "heads").at(0, 10.0).at(1, 30.0).at(2, 130.0)
    cy = Progress("Cy", "heads").at(0, 5.0)
    # step 0: median(60, 20) = 40 s; step 1: median(40, 100) = 70 s, the slowest, from 2 students
    assert slowest_step([ann, bob, cy]) == (1, 70.0, 2)
    assert slowest_step([cy]) is None


def test_the_boards_lines_and_the_export_judge_each_answer_against_the_lesson():
    from classroom.paced_report import COLUMNS, answer_rows, csv_text, step_lines
    from lessons.catalogue import lesson_by_id

    lesson = lesson_by_id("heads")
    right = [view.ask.right for view in lesson.views]  # every step of "heads" asks for a choice
    records = {"a": Progress("=Ann", "heads").at(0, 0.0).at(1, 60.0), "b": Progress("Bob", "heads").at(0, 5.0)}
    answers = {"heads/0": {"a": str(right[0]), "b": str((right[0] + 1) % 3), "left": "0"}, "heads/1": {"a": "x"}}
    lines = step_lines(lesson, records, answers)
    # step 1: Ann right, Bob wrong (a student with no record is not counted); step 2: an answer that is no choice
    assert [(line.latest, line.answered, line.right) for line in lines] == [(1, 2, 1), (1, 0, 0), (0, 0, 0)]
    rows = answer_rows(lesson, records, answers)
    assert [(row["name"], row["step"], row["right"]) for row in rows] == [
        ("=Ann", 1, "yes"), ("=Ann", 2, ""), ("=Ann", 3, ""), ("Bob", 1, "no"), ("Bob", 2, ""), ("Bob", 3, "")
    ]  # fmt: skip
    assert rows[0]["answer"] == lesson.views[0].ask.options[right[0]] and rows[0]["latest step"] == 2
    text = csv_text(rows)
    assert text.splitlines()[0] == ",".join(COLUMNS)
    assert text.splitlines()[1].startswith("'=Ann,1,")  # a name a spreadsheet would run as a formula: quoted
    assert csv_text([{**rows[0], "answer": "-0.5 tokens"}]).splitlines()[1].count(",-0.5 tokens,") == 1  # a number
