"""A class at its own pace in the app's own runs (AppTest): the teacher's buttons set the room's pace and pause; the
board counts the students at each step, names the slowest step and lists the students by name, except in
presentation mode; a student's run opens the lesson at their own step, reports it, and a student whose browser
keeps their id (a reload) is back at their step with their name and answers. Browsers: tests/e2e/test_class_paced.py."""

from __future__ import annotations

import json

from classroom.progress import Progress
from classroom.routes import STUDENT_COOKIE
from classroom.store import seat_of
from tests.apptest_helpers import assert_no_exception
from tests.test_class_follow import first, query_of, session, teach
from ui.rooms.membership import room_store

LESSON_STEP = {"lesson": "heads", "step": "1"}


def _names_on_screen(at) -> str:
    """Every text the run drew outside the page's own charts: markdown, captions and tables."""
    tables = " ".join(str(table.value.to_dict()) for table in at.table)
    return " ".join([*(m.value for m in at.markdown), *(c.value for c in at.caption), tables])


def _export(at) -> list:
    return [button for button in at.get("download_button") if button.key == "class_board_export"]


def _teacher_at_own_pace(query: dict[str, str] | None = None):
    teacher = session({**LESSON_STEP, **(query or {})}, page="multi_head")
    code, secret = teach(teacher)
    teacher.button(key="class_own_pace").click().run()
    assert_no_exception(teacher)
    assert room_store().view(code).pace == "heads"
    return teacher, code, secret


def test_the_board_counts_names_and_times_the_students_and_hides_names_in_presentation_mode():
    teacher, code, secret = _teacher_at_own_pace()
    store = room_store()
    ann = Progress("Ann Lovelace", "heads").at(0, 1000.0).at(1, 1090.0).answering("heads/0", 1050.0)
    bob = Progress("Quiet Otter", "heads").at(0, 1000.0).at(1, 1030.0).at(2, 1100.0)
    store.report(code, "aaaa", ann)
    store.report(code, "bbbb", bob)
    store.answer(code, "heads/0", "aaaa", "0")
    store.seen(code, exploring=("bbbb", "cccc"))  # Bob's page is open; Ann's is not; cccc has no record yet
    teacher.run()
    said = _names_on_screen(teacher)
    assert "2 students, 1 with the class open now" in said
    names = teacher.table[-1].value
    assert dict(zip(names["name"], names["open now"])) == {"Ann Lovelace": "no", "Quiet Otter": "yes"}
    # step 1: median(90, 30) = 60 s; step 2: 70 s (Bob alone): the slowest so far
    assert (
        "Slowest step so far: **step 2, Eight heads** (median 1 min 10 s from arriving to moving on, over 1 student)"
        in said
    )
    assert "Ann Lovelace" in said and "Quiet Otter" in said
    assert [button.proto.label for button in _export(teacher)] == ["Export the answers (CSV)"]
    # the board is the teacher's alone: none of its charts is in the drawing the class's browsers receive
    drawn = [json.loads(text)["charts"] for text in room_store().drawing(code)[1].values()]
    assert drawn and all(charts for charts in drawn)  # the page's own charts go out
    assert not [name for charts in drawn for name in charts if name.startswith("chart:class_")]

    presenting, code, _ = _teacher_at_own_pace({"present": "true"})
    store.report(code, "aaaa", ann)
    presenting.run()
    said = _names_on_screen(presenting)
    assert "Ann Lovelace" not in said and not presenting.table and not _export(presenting)
    assert "Names and the share of right answers are left out in presentation mode." in said


def test_a_student_opens_the_lesson_at_their_own_step_reports_it_and_a_reload_comes_back_to_it(monkeypatch):
    teacher, code, secret = _teacher_at_own_pace()
    student = session({"room": code})
    assert_no_exception(student)
    assert query_of(student)["lesson"] == ["heads"] and first(student, "step") == "1"
    own_id = student.session_state["class_student"]
    record = room_store().own_progress(code, own_id)
    assert record.lesson == "heads" and record.step == 0 and record.name == student.session_state["class_name"]

    # the same browser, later: its cookie names the student; they were at step 3 and had answered step 2
    room_store().report(code, own_id, Progress("Ada", "heads").at(0, 1.0).at(2, 2.0).answering("heads/1", 3.0))
    room_store().answer(code, "heads/1", own_id, "1")
    cookies = {STUDENT_COOKIE: f"{code}.{own_id}"}
    monkeypatch.setattr("ui.rooms.membership.sent_cookie", cookies.get)
    again = session({"room": code})
    assert_no_exception(again)
    assert first(again, "step") == "3" and again.session_state["class_name"] == "Ada"
    assert again.session_state["lesson_answers"] == {"heads/1": 1}

    # another device, the same join link: the seat the student's popover shows brings them to the same step
    monkeypatch.undo()  # that browser sends no cookie
    device = session({"room": code})
    assert first(device, "step") == "1"  # a new student, at the lesson's first step
    device.text_input(key="class_seat_input").input(seat_of(code, own_id).lower()).run()
    assert_no_exception(device)
    assert first(device, "step") == "3" and device.session_state["class_student"] == own_id
    assert device.session_state["class_name"] == "Ada" and device.session_state["lesson_answers"] == {"heads/1": 1}
    wrong = session({"room": code})
    wrong.text_input(key="class_seat_input").input("ZZZ-ZZZ").run()
    assert "No student of this class has the seat" in " ".join(w.value for w in wrong.warning)
    assert wrong.session_state["class_student"] != own_id

    assert room_store().set_paused(code, secret, True)
    again.run()
    assert "Eyes on the teacher" in " ".join(m.value for m in again.markdown)
    assert room_store().set_pace(code, secret, "")  # brought back: the student follows the teacher's screen
    again.run()
    assert first(again, "step") == "1" and again.session_state["class_room"].following


def test_the_progress_chart_draws_the_students_at_each_step_first_step_on_top():
    from viz.class_progress import class_progress_figure

    spec = class_progress_figure(["1 · One head", "2 · Eight heads"], [3, 1]).to_plotly_json()
    bars = spec["data"][0]
    assert list(bars["x"]) == [3, 1] and list(bars["y"]) == ["1 · One head", "2 · Eight heads"]
    assert list(bars["text"]) == ["3", "1"] and spec["layout"]["yaxis"]["autorange"] == "reversed"
    assert spec["layout"]["title"]["text"] == "Where the class is: the latest step of 4 students"
