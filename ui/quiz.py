"""Predict, then reveal: a lesson's question is answered (a choice or a number) and judged before its answer shows.

The answers given stay in this session (``st.session_state[ANSWERS]``, which arriving at a lesson step and
"reset this page" keep); the URL carries none of them. Until a view's question is answered, its answer is
not sent to the browser at all.
"""

from __future__ import annotations

import streamlit as st

from lessons.catalogue import Choice, View
from .rooms.membership import answer_kept, gate, send_answer

ANSWERS = "lesson_answers"  # session state: {"<lesson id>/<step>": an option's index or a number}


def answer_key(lesson_id: str, step: int) -> str:
    """Where the answer to step ``step`` (0-based) of lesson ``lesson_id`` is kept."""
    return f"{lesson_id}/{step}"


def given_answer(lesson_id: str, step: int):
    """The answer this session gave to that step's question, or None."""
    return st.session_state.get(ANSWERS, {}).get(answer_key(lesson_id, step))


def _record(key: str, widget: str) -> None:
    """on_click of "Check": keep the input's value as the answer (an empty input answers nothing); in a
    class, it also goes to the teacher's chart of the class's answers."""
    value = st.session_state.get(widget)
    if value is not None:
        st.session_state[ANSWERS] = {**st.session_state.get(ANSWERS, {}), key: value}
        lesson_id, step = key.rsplit("/", 1)
        send_answer(lesson_id, int(step), value)


def _forget(key: str) -> None:
    """on_click of "Answer again"."""
    st.session_state[ANSWERS] = {k: v for k, v in st.session_state.get(ANSWERS, {}).items() if k != key}


def _answer_input(view: View, widget: str) -> None:
    """The choices as radio buttons, or a number box (whole numbers when the answer is one)."""
    ask = view.ask
    if isinstance(ask, Choice):
        st.radio("Your answer", range(len(ask.options)), index=None, format_func=ask.options.__getitem__, key=widget)
        return
    label = f"Your answer ({ask.unit})" if ask.unit else "Your answer"
    if ask.whole:
        st.number_input(label, value=None, step=1, format="%d", key=widget)
    else:
        st.number_input(label, value=None, step=0.01, format="%.4f", key=widget)


def question(lesson_id: str, step: int, view: View, place: str = "bar") -> None:
    """The question of step ``step`` (0-based), then its answer part (``answer_part``)."""
    st.markdown(f"**Ask the class:** {view.question}")
    answer_part(lesson_id, step, view, place)


def answer_part(lesson_id: str, step: int, view: View, place: str) -> None:
    """Unanswered: the question's input and "Check"; answered: right or wrong, the answer and "Answer again".
    ``place`` tells apart two drawings of one question on a page."""
    key = answer_key(lesson_id, step)
    given = given_answer(lesson_id, step)
    if given is None:
        widget = f"quiz_{place}_{key}"
        with st.form(f"quiz_form_{place}_{key}", border=False, enter_to_submit=False):
            _answer_input(view, widget)
            st.form_submit_button("Check", icon=":material/done:", on_click=_record, args=(key, widget))
        return
    if gate(lesson_id, step) is False:
        st.info(
            f"Your answer, {view.ask.shown(given)}, is in. The answer shows when the teacher reveals it to the class.",
            icon=":material/hourglass_top:",
        )
        return
    ask = view.ask
    if ask.is_right(given):
        st.success(f"Right: {ask.shown(given)}.", icon=":material/check_circle:")
    else:
        st.error(f"Not quite: you answered {ask.shown(given)}.", icon=":material/cancel:")
    st.markdown(f"**Answer: {ask.solution}.** {view.answer}")
    if answer_kept(lesson_id):
        st.caption("At your own pace in a class, your first answer is the one your teacher sees.")
        return
    st.button("Answer again", key=f"quiz_again_{place}_{key}", on_click=_forget, args=(key,), icon=":material/replay:")
