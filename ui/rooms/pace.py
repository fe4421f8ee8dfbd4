"""A class at its own pace, the student's side: when the teacher lets the class go through a lesson at its own pace,
each student's page opens the lesson at the step they reached (``start_own_pace``), they walk its steps with the
lesson bar and answer its questions, and every run reports where they are (``report_progress``) for the teacher's
board (``ui.rooms.pace_board``). A student gives a nickname or keeps a generated animal name (``name_popover``); the
name goes to the room for the teacher's board alone. When the teacher pauses the class, the page is held
(``paused_screen``): "Eyes on the teacher", and the page and its controls are hidden until the teacher resumes.

A student's own answers show whether they are right as soon as they are given while at their own pace (each works
on their own), and the first one stands (``membership.answer_kept``); nobody sees another's answer or name (the
board's charts are the teacher's alone: ``drawing.TEACHER_ONLY``). The progress is the room's (``classroom.progress``), so a
student whose session starts again with the same id (``ui.rooms.membership.student_id``: a reload, kept in a cookie;
another device, by the seat their first one shows) comes back to their step with their answers.
"""

from __future__ import annotations

import contextlib
import time

import streamlit as st

from classroom.paced_report import stored_answer
from classroom.progress import MAX_NAME_CHARS, Progress, animal_name
from classroom.store import RoomsUnavailable, normal_seat, seat_of
from lessons.catalogue import Lesson, lesson_by_id
from ui.lessons import current_place, view_query
from ui.page_url import forget_controls, open_with_view
from ui.pages_index import PAGE_SCRIPTS
from ui.quiz import ANSWERS, answer_key, given_answer
from ui.streamlit_internals import release_url_bindings
from ui.markdown_text import as_typed

from .membership import attempt_allowed, notice, room_store, student_id, take_student_id
from .place import StudentPlace, current_class
from .schema import ROOM

PROGRESS = "class_progress"  # session state: this student's Progress as last reported
NAME = "class_name"  # session state: the name the teacher's board shows for this student
NAME_INPUT = "class_name_input"
SEAT_INPUT = "class_seat_input"


def own_name() -> str:
    """The name this student goes by on the teacher's board: the one given, else a generated animal name."""
    return st.session_state.setdefault(NAME, animal_name())


def _own_record(code: str, lesson_id: str) -> Progress | None:
    """This student's progress through ``lesson_id`` as the room keeps it (a session started again finds it)."""
    with contextlib.suppress(RoomsUnavailable):
        record = room_store().own_progress(code, student_id())
        if record is not None and record.lesson == lesson_id:
            return record
    return None


def _restore_answers(code: str, lesson: Lesson, record: Progress) -> None:
    """The answers this student gave to the lesson's questions, from the room, into this session (``ui.quiz``)."""
    kept = dict(st.session_state.get(ANSWERS, {}))
    for step, view in enumerate(lesson.views):
        question = answer_key(lesson.id, step)
        if question not in record.answered or question in kept:
            continue
        with contextlib.suppress(RoomsUnavailable):
            given = room_store().answers(code, question).get(student_id())
            if given is not None:
                value = stored_answer(view, given)
                if value is not None:
                    kept[question] = value
    st.session_state[ANSWERS] = kept


def start_own_pace(lesson_id: str, place: StudentPlace, page_path: str) -> None:
    """Call before the page's controls, in the run that sees the class go through ``lesson_id`` at its own pace:
    the student stops following and their page opens the lesson at the step they reached (the first, at first),
    with the answers they gave."""
    place.own_pace(lesson_id)
    lesson = lesson_by_id(lesson_id)
    if lesson is None:
        notice("warning", "The teacher's lesson is not one this app knows: you stay on this page on your own.")
        return
    record = _own_record(place.code, lesson_id)
    if record is not None and record.step >= len(lesson.views):
        record = None  # a record of a longer lesson of that name (another version of the app): started again
    if record is not None:
        st.session_state[NAME] = record.name
        st.session_state[PROGRESS] = record
        _restore_answers(place.code, lesson, record)
    open_step(lesson, 0 if record is None else record.step, place.code, page_path)


def open_step(lesson: Lesson, step: int, code: str, page_path: str) -> None:
    """Open step ``step`` (0-based) of ``lesson`` in this run, in the class ``code``, as the lesson's own link does."""
    view = lesson.views[step]
    for page in {page_path, view.page}:
        forget_controls(page)
    release_url_bindings()  # the URL state is set whole, so the controls let go of their keys first
    open_with_view(view.page)
    st.switch_page(PAGE_SCRIPTS[view.page], query_params={**view_query(lesson, step), ROOM: code})


def report_progress(place: StudentPlace) -> None:
    """Call after the page has run, in a student's run at their own pace: the step open now and the questions
    answered go to the room when they changed (one write, not one a run)."""
    here = current_place()
    if here is None or here.lesson.id != place.pacing:
        return
    now = time.time()
    before = st.session_state.get(PROGRESS)
    if before is None or before.lesson != place.pacing:
        before = Progress(own_name(), place.pacing)
    record = before.renamed(own_name()).at(here.step, now)
    for step in range(len(here.lesson.views)):
        if given_answer(here.lesson.id, step) is not None:
            record = record.answering(answer_key(here.lesson.id, step), now)
    if record == st.session_state.get(PROGRESS):
        return
    try:
        room_store().report(place.code, student_id(), record)
    except RoomsUnavailable:
        return  # reported by a later run once the class's server is back
    st.session_state[PROGRESS] = record


def _rename() -> None:
    """on_change of the name input: an empty input goes back to a generated name."""
    given = st.session_state.get(NAME_INPUT, "").strip()
    st.session_state[NAME] = given or animal_name()


def _take_seat() -> None:
    """on_change of the seat input: this session becomes the student of that seat in the class (their id, name, step
    and answers), as the same student on another device; a wrong seat is said, and counts as an attempt."""
    place, typed = current_class(), st.session_state.get(SEAT_INPUT, "")
    seat = normal_seat(typed)
    if place is None or place.is_teacher or not typed.strip():
        return
    if not attempt_allowed():
        notice("warning", "Too many tries in a minute: wait a minute, then give the seat again.")
        return
    try:
        student = room_store().student_of_seat(place.code, seat) if seat else None
    except RoomsUnavailable:
        notice("warning", "The class's server cannot be reached just now: give the seat again in a moment.")
        return
    if student is None:
        notice(
            "warning", f"No student of this class has the seat “{typed.strip()[:12]}”: check it on your other device."
        )
        return
    take_student_id(student)
    for key in (NAME, PROGRESS, ANSWERS):
        st.session_state.pop(key, None)
    place.own_pace_again()


def name_popover(code: str) -> None:
    """The student's name for the teacher's board and their seat (to go on from another device), in a popover of the
    strip."""
    with st.popover(f"Your name: {as_typed(own_name())}", icon=":material/badge:"):
        st.caption(
            "Only your teacher sees this name, on their own screen: never the projector, never other students. "
            "Leave it empty for a generated one."
        )
        st.text_input("Your name for the teacher", max_chars=MAX_NAME_CHARS, key=NAME_INPUT, on_change=_rename)
        seat = seat_of(code, student_id())
        st.caption(
            f"Your seat: **{seat[:3]}-{seat[3:]}**. On another device, open the class's link and give your seat there "
            "to go on where you are, with your answers."
        )
        st.text_input("Go on from another device: its seat", max_chars=12, key=SEAT_INPUT, on_change=_take_seat)


def own_pace_strip(place: StudentPlace) -> None:
    """The strip of a student at their own pace: the lesson, their name, and a way back to their step from
    another page."""
    lesson = lesson_by_id(place.pacing)
    title = lesson.title if lesson is not None else place.pacing
    st.caption(f"At your own pace · lesson **{title}**. Your teacher sees where you are.")
    name_popover(place.code)
    here = current_place()
    record = st.session_state.get(PROGRESS)
    if lesson is not None and (here is None or here.lesson.id != lesson.id):
        step = record.step if record is not None and record.lesson == lesson.id else 0
        step = step if step < len(lesson.views) else 0
        st.page_link(
            PAGE_SCRIPTS[lesson.views[step].page],
            label=f"Back to the lesson, step {step + 1}",
            icon=":material/school:",
            query_params={**view_query(lesson, step), ROOM: place.code},
        )


PAUSED = "class_paused"  # the strip's part that says the class is paused: the page below it is hidden (follower.py)


def paused_screen() -> None:
    """In a paused student's strip: "Eyes on the teacher". The page below runs as ever (its controls keep their values)
    but is hidden, and its controls with it, until the teacher resumes."""
    with st.container(key=PAUSED):
        st.markdown("## Eyes on the teacher")
        st.markdown("Your teacher has paused the class: your page comes back when they resume.")
