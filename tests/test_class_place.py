"""A session's place in a class (``ui.rooms.place``): one record per role, and the transitions the class's modules
make, through the student's place's methods only."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

from classroom.watcher import RoomState
from ui.rooms.place import STUDENT, TEACHER, StudentPlace, TeacherPlace

ROOT = Path(__file__).resolve().parent.parent


def test_a_teacher_holds_the_secret_and_a_student_joins_following_with_no_view_opened():
    teacher = TeacherPlace("ABCDEFGH", "secret")
    student = StudentPlace("ABCDEFGH", "token")
    assert teacher.role == TEACHER and teacher.is_teacher and teacher.secret == "secret"
    assert student.role == STUDENT and not student.is_teacher and not hasattr(student, "secret")
    assert student.following and student.applied == 0 and student.token == "token"
    assert student.saw == RoomState("missing") and student.revealed == frozenset()
    with pytest.raises(dataclasses.FrozenInstanceError):
        teacher.secret = "another"  # the teacher's place does not change while the class lasts


def test_a_students_run_reads_the_board_before_the_room():
    place = StudentPlace("ABCDEFGH", None)
    place.read_board("token", 12)
    assert (place.token, place.after) == ("token", 12)


def test_a_follower_opens_each_new_view_once():
    place = StudentPlace("ABCDEFGH", "token")
    assert place.due(3)
    place.opened(3)
    assert not place.due(3) and place.due(4)


def test_explore_and_follow_again_each_open_the_latest_view_once():
    place = StudentPlace("ABCDEFGH", "token")
    place.opened(3)
    place.explore()
    assert not place.following and place.due(3)  # the latest view, whatever its version
    place.opened(3)
    assert not place.due(3) and not place.due(4)  # an explorer's page stays as it is
    place.follow()
    assert place.following and place.due(4)
    place.opened(4)
    assert not place.due(4) and place.due(5)


def test_a_view_seen_ends_a_time_missing_and_brings_the_questions_revealed():
    place = StudentPlace("ABCDEFGH", "token")
    place.seen(RoomState("missing", 7))
    assert place.missing_for(100.0) == 0.0 and place.missing_for(130.5) == 30.5
    place.seen(RoomState("view", 2, frozenset({"lesson/0"})), teacher_present=True)
    assert place.missing_since is None and place.revealed == {"lesson/0"} and place.teacher_present
    place.seen(RoomState("unavailable"))  # what the last view said is kept while the store cannot be reached
    assert place.saw.kind == "unavailable" and place.revealed == {"lesson/0"} and place.teacher_present


def test_no_module_sets_a_places_field_but_the_place_itself():
    fields = {field.name for record in (StudentPlace, TeacherPlace) for field in dataclasses.fields(record)}
    outside = []
    for path in [*ROOT.glob("*.py"), *(ROOT / "ui").rglob("*.py"), *(ROOT / "pages").rglob("*.py")]:
        if path == ROOT / "ui" / "rooms" / "place.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = getattr(node, "targets", None) or [getattr(node, "target", None)]
            for target in targets:
                elements = target.elts if isinstance(target, ast.Tuple) else [target]
                outside += [
                    f"{path.relative_to(ROOT)}:{node.lineno} sets .{element.attr}"
                    for element in elements
                    if isinstance(element, ast.Attribute)
                    and element.attr in fields
                    and isinstance(element.value, ast.Name)
                    and "place" in element.value.id
                ]
    assert not outside, outside
