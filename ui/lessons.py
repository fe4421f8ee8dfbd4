"""Lessons: ordered sequences of prepared views, and the bar that walks a class through one.

A view is a page and its URL state (the same query parameters a shared link carries), with what
to notice, a question for the class (answered by a choice or a number before its answer shows,
``ui.quiz``) and its answer. A lesson's views open through links of the
form ``/<page>?<settings>&lesson=<id>&step=<n>``; every page then shows the lesson bar (previous,
the lesson's place, next), so a teacher runs a lesson with one click per step.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import streamlit as st

from .page_url import forget_controls
from lessons.catalogue import Lesson, Shipped, View, lesson_by_id
from .quiz import question

LESSON, STEP = "lesson", "step"
SHOWN = "lesson_step_shown"  # session state: the lesson step this session last opened
STEP_VIEW = "lesson_step_view"  # session state: (step, the URL state of its controls as the step opened them)
BACK_TO_STEP = "lesson_step_back_asked"  # session state: "Back to this step's view" was pressed
SHOWN_AGAIN = "lesson_step_shown_again"  # session state: this run opens the step's link again
NOT_THE_VIEW = ("present",)  # URL keys that change how a view is shown, not what it shows
TOPIC = "topic"  # the Lessons page's choice of lesson (by its title)


@dataclass(frozen=True)
class Place:
    """Where a URL is in a lesson: the lesson, the step (0-based) and that step's view."""

    lesson: Lesson
    step: int
    view: View = field(repr=False)


def view_query(lesson: Lesson, step: int) -> dict[str, str]:
    """The URL state of a lesson's view: its settings, the lesson, the step (1-based) and, if on,
    presentation mode (so a lesson run on the projector stays on it)."""
    query = {key: _url_value(value) for key, value in lesson.views[step].settings.items()}
    query.update({LESSON: lesson.id, STEP: str(step + 1)})
    present = st.session_state.get("present", st.query_params.get("present"))
    if str(present).lower() == "true":
        query["present"] = "true"
    return query


def _url_value(value) -> str | list[str]:
    """A setting as the URL holds it: a shipped checkpoint by its picker label, several choices (a tuple,
    e.g. the heads a row of toggles knocks out) as a repeated key, anything else as text."""
    if isinstance(value, tuple):
        return [str(v) for v in value]
    if isinstance(value, Shipped):
        from .model_picker import shipped_label  # loads torch: only for views of a trained model

        return shipped_label(value.name)
    return str(value)


def current_place() -> Place | None:
    """The lesson step the URL names, or None (no lesson, an unknown one, or a step out of range)."""
    lesson = lesson_by_id(st.query_params.get(LESSON, ""))
    try:
        step = int(st.query_params.get(STEP, "")) - 1
    except ValueError:
        return None
    if lesson is None or not 0 <= step < len(lesson.views):
        return None
    return Place(lesson, step, lesson.views[step])


def arrive(page_path: str) -> None:
    """Call before any control is drawn. On arriving at a lesson step (a link, Next or Previous) on the page
    ``page_path``, its controls forget their values, so that the view is exactly its link's settings and
    defaults (a control keeps its value from run to run, which would otherwise win)."""
    place = current_place()
    here = None if place is None else f"{place.lesson.id}/{place.step}"
    if here is not None and st.session_state.get(SHOWN) != here:
        forget_controls(page_path)
        st.session_state.pop(STEP_VIEW, None)
    st.session_state[SHOWN] = here


def _controls_state() -> dict[str, list[str]]:
    """The URL state the page's controls stand for now (their values, not the address), presentation mode aside."""
    from .streamlit_internals import url_state_of_bound_controls

    return {key: value for key, value in url_state_of_bound_controls().items() if key not in NOT_THE_VIEW}


def record_step_view() -> None:
    """Call after the page has run: on the run that opened a lesson step, remember the URL state its controls
    then stood for, the step's own view (``view_moved`` compares later runs with it)."""
    here = st.session_state.get(SHOWN)
    if here is not None and st.session_state.get(STEP_VIEW, (None,))[0] != here:
        st.session_state[STEP_VIEW] = (here, _controls_state())


def _back_to_step(page_path: str) -> None:
    """on_click of "Back to this step's view": the page's controls forget their values; the next run opens the
    step's link again (``lesson_bar``)."""
    forget_controls(page_path)
    st.session_state[BACK_TO_STEP] = True


def view_moved() -> bool:
    """True when a control of the lesson step's page has moved since the step opened (the view on the screen is
    no longer the step's, so what the step says to notice may not hold)."""
    if st.session_state.pop(SHOWN_AGAIN, False):  # the step's link opened again: its controls take its values
        return False
    here, opened = st.session_state.get(STEP_VIEW, (None, None))
    return here is not None and here == st.session_state.get(SHOWN) and _controls_state() != opened


def lesson_bar(page_paths: dict[str, str]) -> None:
    """On any page opened from a lesson: the lesson's place, what to notice, the question (answered before
    its answer shows), and links to the previous and the next view. ``page_paths``: url path -> script."""
    place = current_place()
    if place is None:
        return
    lesson, step, view = place.lesson, place.step, place.view
    if st.session_state.pop(BACK_TO_STEP, False):  # "Back to this step's view": the step's link, opened again
        from .streamlit_internals import release_url_bindings

        release_url_bindings()  # the URL state is set whole, so the controls let go of their keys first
        st.session_state[SHOWN_AGAIN] = True
        st.switch_page(page_paths[view.page], query_params=view_query(lesson, step))
    # A link to the page already open runs it with the new settings but leaves the address bar as it
    # was; writing a parameter sends the whole URL state back to the browser.
    st.query_params[STEP] = str(step + 1)
    with st.container(border=True):
        back, middle, forward = st.columns([1, 4, 1], vertical_alignment="center")
        middle.markdown(f"**Lesson: {lesson.title}** · step {step + 1} of {len(lesson.views)} · {view.title}")
        if step > 0:
            previous = lesson.views[step - 1]
            back.page_link(
                page_paths[previous.page],
                label="Previous",
                icon=":material/arrow_back:",
                query_params=view_query(lesson, step - 1),
            )
        if step + 1 < len(lesson.views):
            following = lesson.views[step + 1]
            forward.page_link(
                page_paths[following.page],
                label="Next",
                icon=":material/arrow_forward:",
                query_params=view_query(lesson, step + 1),
            )
        else:
            forward.page_link(
                page_paths["lessons"], label="All lessons", icon=":material/school:", query_params={TOPIC: lesson.title}
            )
        if view_moved():
            st.markdown(f"**Notice, at this step's settings** (a control has moved since): {view.notice}")
            st.button(
                "Back to this step's view",
                icon=":material/undo:",
                key="lesson_step_back",
                on_click=_back_to_step,
                args=(view.page,),
            )
        else:
            st.markdown(f"**Notice:** {view.notice}")
        question(lesson.id, step, view)
