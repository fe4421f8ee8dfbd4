"""A class at its own pace, the teacher's side: pause and resume the class, send it through the lesson on screen at
its own pace and bring it back, and the board of where each student is (``pace_part``, in the teacher's live part).

The board shows how many students have each step open, the step that holds them longest, each step's answers
(counted and, off the projector, judged) and, on the teacher's own screen only, the students by name with the
export of their answers (CSV). In presentation mode the names and the judging of unrevealed answers are left out:
a projector shows the class what it may see.
"""

from __future__ import annotations

import streamlit as st

from classroom.paced_report import answer_rows, csv_text, step_lines
from classroom.progress import slowest_step
from classroom.store import RoomStore, RoomsUnavailable, RoomView
from lessons.answers import tally
from lessons.catalogue import Lesson, lesson_by_id
from ui.cache import cached_figure
from ui.charts import chart
from ui.screen import presenting
from ui.markdown_text import as_typed

from .membership import notice, room_store
from .place import current_class

ANSWERS_STEP = "class_board_step"  # the board's choice of step whose answers it draws


def _tell_class(change: str, value) -> None:
    """on_click of the pace's and the pause's buttons: the room's ``set_pace`` or ``set_paused`` with ``value``."""
    place = current_class()
    try:
        getattr(room_store(), change)(place.code, place.secret, value)
    except RoomsUnavailable:
        notice("warning", "The class could not be told: the server that holds the classes cannot be reached.")


BUTTONS = {  # key: the label, its icon, the room's change it makes and what it does
    "class_pause": (
        "Pause the class",
        ":material/pause:",
        "set_paused",
        "Every student's screen says “Eyes on the teacher”, their page and controls hidden.",
    ),
    "class_resume": ("Resume the class", ":material/play_arrow:", "set_paused", "Every student's page comes back."),
    "class_own_pace": (
        "Let the class go at its own pace",
        ":material/directions_walk:",
        "set_pace",
        "Each student goes through this lesson on their own device, from the step they reached; you see where each "
        "one is.",
    ),
    "class_bring_back": (
        "Bring everyone back",
        ":material/group:",
        "set_pace",
        "Every student follows this screen again; each one's step is kept.",
    ),
}


def _class_button(container, key: str, value) -> None:
    """One of ``BUTTONS``: its change made with ``value`` when pressed."""
    label, icon, change, does = BUTTONS[key]
    container.button(label, icon=icon, key=key, on_click=_tell_class, args=(change, value), help=does)


def _duration(seconds: float) -> str:
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s" if minutes else f"{rest} s"


def _lesson_records(store: RoomStore, code: str, secret: str, lesson: Lesson) -> tuple[dict, dict]:
    """The students' progress through ``lesson`` (student -> Progress) and its answers (question -> student ->
    answer), as the room holds them now."""
    records = store.class_progress(code, secret) or {}
    records = {student: record for student, record in records.items() if record.lesson == lesson.id}
    questions = [f"{lesson.id}/{step}" for step in range(len(lesson.views))]
    return records, {question: store.answers(code, question) for question in questions}


def _export(code: str, secret: str, lesson: Lesson) -> str:
    """The CSV of the class's answers as the room holds them now: made when "Export" is pressed, not every run."""
    return csv_text(answer_rows(lesson, *_lesson_records(room_store(), code, secret, lesson)))


def _board(store: RoomStore, code: str, secret: str, lesson: Lesson, room: RoomView) -> None:
    """Where each student is in ``lesson``, its answers and the export."""
    records, answers = _lesson_records(store, code, secret, lesson)
    questions = list(answers)
    lines = step_lines(lesson, records, answers)
    slowest = slowest_step(list(records.values()))
    here = (store.connected(code, secret) or set()) & set(records)  # whose page of the class is open now
    said = (
        f"**{lesson.title}**, at their own pace: {len(records)} {'student' if len(records) == 1 else 'students'}, "
        f"{len(here)} with the class open now."
    )
    if slowest is not None:
        step, seconds, counted = slowest
        said += (
            f" Slowest step so far: **step {step + 1}, {lesson.views[step].title}** (median {_duration(seconds)} from "
            f"arriving to moving on, over {counted} {'student' if counted == 1 else 'students'})."
        )
    st.markdown(said)
    labels = [f"{line.step} · {line.title}" for line in lines]
    from viz.class_progress import class_progress_figure  # plotly only once a class goes at its own pace

    at_steps = tuple(line.latest for line in lines)
    chart(cached_figure(class_progress_figure, tuple(labels), at_steps), key="class_progress")
    shown = not presenting()  # off the projector: the share right and the names
    pick = st.selectbox("Answers to step", range(len(lesson.views)), format_func=labels.__getitem__, key=ANSWERS_STEP)
    revealed = questions[pick] in room.revealed
    given, counts, right = tally(lesson.views[pick], list(answers[questions[pick]].values()))
    from viz.class_answers import class_answers_figure

    judged = right if shown or revealed else None
    judged = None if judged is None else tuple(judged)
    figure = cached_figure(class_answers_figure, tuple(given), tuple(counts), judged, len(records), "at their own pace")
    chart(figure, key="class_board_answers")
    if not shown:
        st.caption("Names and the share of right answers are left out in presentation mode.")
        return
    st.table(
        [
            {
                "step": line.step,
                "title": line.title,
                "latest of": line.latest,
                "answered": line.answered,
                "right": "" if line.share_right is None else f"{line.share_right:.0%}",
            }
            for line in lines
        ]
    )
    with st.expander(f"The students by name ({len(records)})", expanded=len(records) <= 30):
        st.table(
            sorted(
                (
                    {
                        "name": as_typed(record.name),
                        "latest step": record.step + 1,
                        "answered": len(record.answered),
                        "open now": "yes" if student in here else "no",
                    }
                    for student, record in records.items()
                ),
                key=lambda row: (row["latest step"], row["name"].lower()),
            )
        )
    st.download_button(
        "Export the answers (CSV)",
        lambda: _export(code, secret, lesson),
        file_name=f"class-{code}-{lesson.id}.csv",
        mime="text/csv",
        icon=":material/download:",
        key="class_board_export",
        on_click="ignore",
    )


def pace_part(store: RoomStore, code: str, secret: str, room: RoomView, lesson_on_screen: str | None) -> bool:
    """In the teacher's live part: "Pause the class" or "Resume the class", and "Let the class go at its own pace"
    (on a lesson's step: ``lesson_on_screen``) or, while it does, "Bring everyone back" and the board. Returns
    whether the class is at its own pace (the board then stands for the one question's chart)."""
    pause, pace = st.columns(2)
    if room.paused:
        _class_button(pause, "class_resume", False)
    else:
        _class_button(pause, "class_pause", True)
    if room.pace:
        _class_button(pace, "class_bring_back", "")
        lesson = lesson_by_id(room.pace)
        if lesson is None:  # named by another version of the app sharing the class's Redis
            st.caption(f"The class goes through a lesson this server does not know ({as_typed(room.pace)}).")
        else:
            _board(store, code, secret, lesson, room)
        return True
    if lesson_on_screen is not None:
        _class_button(pace, "class_own_pace", lesson_on_screen)
    return False
