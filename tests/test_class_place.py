"""A session's place in a class (``ui.rooms.place.ClassPlace``): the transitions the class's modules make."""

from __future__ import annotations

from ui.rooms.place import STUDENT, TEACHER, ClassPlace
from classroom.watcher import RoomState


def test_a_teacher_holds_the_secret_and_a_student_joins_following_with_no_view_opened():
    teacher = ClassPlace.for_teacher("ABCDEFGH", "secret")
    student = ClassPlace.for_student("ABCDEFGH", "token")
    assert teacher.role == TEACHER and teacher.is_teacher and teacher.secret == "secret"
    assert student.role == STUDENT and not student.is_teacher and student.secret is None
    assert student.following and student.applied == 0 and student.token == "token"
    assert student.saw == RoomState("missing") and student.revealed == frozenset()


def test_a_follower_opens_each_new_view_once():
    place = ClassPlace.for_student("ABCDEFGH", "token")
    assert place.due(3)
    place.opened(3)
    assert not place.due(3) and place.due(4)


def test_explore_and_follow_again_each_open_the_latest_view_once():
    place = ClassPlace.for_student("ABCDEFGH", "token")
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
    place = ClassPlace.for_student("ABCDEFGH", "token")
    place.seen(RoomState("missing", 7))
    assert place.missing_for(100.0) == 0.0 and place.missing_for(130.5) == 30.5
    place.seen(RoomState("view", 2, frozenset({"lesson/0"})), teacher_present=True)
    assert place.missing_since is None and place.revealed == {"lesson/0"} and place.teacher_present
    place.seen(RoomState("unavailable"))  # what the last view said is kept while the store cannot be reached
    assert place.saw.kind == "unavailable" and place.revealed == {"lesson/0"} and place.teacher_present
