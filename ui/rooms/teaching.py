"""The teacher's side of a class: "Teach this class", the class's popover (join link, QR, "End the class"),
the view sent to the students after every run (``send_view``) and every ``TEACHER_SECONDS`` (``teacher_live``,
which also counts the students and draws the class's answers to a lesson's question, with "Reveal")."""

from __future__ import annotations

import streamlit as st

from ui.charts import chart
from lessons.catalogue import LESSONS
from lessons.answers import tally
from ui.screen import presenting
from ui.sharing import qr_png, view_link
from ui.streamlit_internals import fragment_run, session_id

from .drawing import begin_run, publish
from .membership import leave, notice as _notice, room_store, shown_view, spaced
from .page_text import page_text, writing
from .pace_board import pace_part
from .place import TeacherPlace, current_class, enter
from .schema import ROOM
from .browser_keys import keep_teacher_key
from classroom.store import RoomsUnavailable, checked_view

TEACHER_SECONDS = 0.5


def _teach(page_path: str) -> None:
    """on_click of "Teach this class": a new room showing this session's view."""
    try:
        code, secret = room_store().open(*shown_view(page_path))
    except RoomsUnavailable:
        _notice(
            "error",
            "The server that holds the classes cannot be reached, so no class was opened. Try again in a moment.",
        )
        return
    enter(TeacherPlace(code, secret))
    st.query_params[ROOM] = code


def _end() -> None:
    """on_click of "End the class"."""
    place = current_class()
    try:
        room_store().close(place.code, place.secret)
    except RoomsUnavailable:
        _notice(
            "warning",
            "The class was left, but the server that holds the classes could not be told: "
            "students see that it ended once it is reachable again, or after its idle time.",
        )
    leave()


def class_button(container, page_path: str) -> None:
    """In the classroom bar: "Teach this class", or for the teacher the class's popover (join link, its QR
    and "End the class"), or for a student the class's code."""
    place = current_class()
    if place is None:
        container.button(
            "Teach this class",
            icon=":material/groups:",
            key="teach_class",
            width="stretch",
            on_click=_teach,
            args=(page_path,),
            help="Open a class: students who scan its code or open its link follow this screen "
            "on their own devices, and answer the lessons' questions.",
        )
        return
    if not place.is_teacher:
        container.markdown(f"Class **{spaced(place.code)}**")
        return
    with container.popover(f"Class {spaced(place.code)}", icon=":material/groups:", width="stretch"):
        link = view_link("", {ROOM: place.code})
        st.caption(
            "Students scan the code or open the link, and follow this screen. This browser stays the teacher "
            "(a reload, another tab); the address shows only the class's code."
        )
        st.image(
            qr_png(link), width=260, output_format="PNG", alt="QR code of the class's join link, written out below"
        )
        st.code(link, language=None, wrap_lines=True)
        st.button(
            "End the class",
            icon=":material/logout:",
            key="end_class",
            on_click=_end,
            help="Students are told the class has ended and keep the view they have.",
        )


def _question_place(query: dict[str, list[str]]):
    """The lesson view a URL state names, as (question key, view), or None."""
    lesson_id, step = (query.get("lesson") or [""])[0], (query.get("step") or [""])[0]
    lesson = next((item for item in LESSONS if item.id == lesson_id), None)
    if lesson is None or not step.isdigit() or not 1 <= int(step) <= len(lesson.views):
        return None
    return f"{lesson_id}/{int(step) - 1}", lesson.views[int(step) - 1]


def _copy_allowed(query: dict[str, list[str]]) -> bool:
    """Whether a view's drawing may carry the copy of the teacher's page: not on a lesson's step, whose question
    each student answers on a page of its own (and whose answer the teacher's page may show)."""
    return _question_place(query) is None


def _reveal(question: str) -> None:
    place = current_class()
    try:
        room_store().reveal(place.code, place.secret, question)
    except RoomsUnavailable:
        _notice("warning", "The answer could not be revealed: the server that holds the classes cannot be reached.")


def _apart(students: int, pace: str) -> str:
    """What the students who do not follow this screen do: explore, or go through the lesson at their own pace."""
    if pace:
        return "at their own pace"
    return "explores on their own" if students == 1 else "explore on their own"


def _teacher_run(page_path: str) -> None:
    """Publish the view in the fragment's own runs (``restore`` the room if its store lost it), count the
    students and, on a lesson view, draw the class's answers with "Reveal the answer"."""
    place, store = current_class(), room_store()
    page, query = shown_view(page_path)
    if fragment_run():  # the fragment's own run: the page's URL state is whole (a full run: ``send_view``)
        publish(store, place.code, place.secret, page, query, presenting(), _copy_allowed(query))
    room = store.view(place.code)
    if room is None:
        if store.ended(place.code) or not store.restore(place.code, place.secret, page, query):
            leave()
            _notice("warning", "The class ended (it was closed, or idle too long).")
            st.rerun()
        return
    followers, explorers = store.followers(place.code), store.explorers(place.code)
    st.caption(
        f"Teaching class **{spaced(place.code)}** · {followers} "
        f"{'student follows' if followers == 1 else 'students follow'} this screen"
        + (f" · {explorers} {_apart(explorers, room.pace)}." if explorers else ".")
    )
    try:
        checked_view(page, query)
    except ValueError as error:  # not sent (``publish``): said here, in place of a traceback every half second
        st.warning(
            f"This view is too large to share with the class ({error}): the students keep the last view that "
            "went out. A shorter text in this page's settings fits.",
            icon=":material/block:",
        )
    asked = _question_place(query)
    if pace_part(store, place.code, place.secret, room, asked and query["lesson"][0]):
        return  # at its own pace: the board stands for the one question's chart
    if asked is None:
        return
    question, view = asked
    labels, counts, right = tally(view, list(store.answers(place.code, question).values()))
    revealed = question in room.revealed
    from viz.class_answers import class_answers_figure  # plotly only once a lesson is taught

    chart(class_answers_figure(labels, counts, right if revealed else None, followers), key="class_answers")
    if not revealed:
        st.button(
            "Reveal the answer to the class",
            icon=":material/visibility:",
            key="reveal_answer",
            on_click=_reveal,
            args=(question,),
        )


def start_drawing() -> None:
    """Call before the bars, in every full run: a teacher's run records what it draws (``ui.rooms.drawing``)."""
    place = current_class()
    begin_run(place is not None and place.is_teacher)


def page_begins() -> None:
    """Call just before the page runs: what it writes is the page's (``ui.rooms.page_text``), and so is what its
    fragments write after it, until the next full run."""
    page_text().begin_page(session_id())


def bars_write():
    """Around what is drawn after the page but is not the page's (the share popover)."""
    return writing(False)


def send_view(page_path: str) -> None:
    """After the page has run, in the teacher's session: the view goes out at once (the live part also sends
    it, for controls that rerun only their own part of the page)."""
    place, (page, query) = current_class(), shown_view(page_path)
    try:
        publish(room_store(), place.code, place.secret, page, query, presenting(), _copy_allowed(query))
    except RoomsUnavailable:
        pass  # said by the live part of the class


@st.fragment(run_every=TEACHER_SECONDS)
def teacher_live(page_path: str) -> None:
    """The teacher's class, live: every TEACHER_SECONDS the view goes out, the students are counted and,
    on a lesson's question, their answers drawn."""
    place = current_class()
    if place is None:
        return
    with writing(False):  # the class's counts and answers, or why there are none, are not the page's
        keep_teacher_key(place.code, place.secret)
        try:
            _teacher_run(page_path)
        except RoomsUnavailable:
            st.warning(
                "The server that holds the classes cannot be reached: this page works on its own, and "
                "the class resumes when it is back.",
                icon=":material/cloud_off:",
            )
