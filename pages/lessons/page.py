"""Lessons: prepared sequences of views for a class, each with what to notice and a question answered before
its answer shows. The Start here course comes first."""

import streamlit as st

from lessons.catalogue import LESSONS
from ui.presentation import explanation
from ui.lessons import TOPIC, view_query
from ui.pages_index import PAGE_SCRIPTS
from ui.quiz import answer_part
from ui.routing import require_navigation

require_navigation()


st.title("Lessons")
with explanation("How a lesson runs", inline_on_a_desktop=True):
    st.markdown(
        "Each lesson is a short sequence of prepared views: a page with its settings, what to notice, and one "
        "question for the class. First time here? **Start here** is a course in order, from tokens to a real "
        "pretrained model; the other lessons each take one topic. Open a step, and the page shows the lesson bar: "
        "**Next** and **Previous** walk through the lesson, one click per step. Each question is answered first, "
        "by a choice or a number, and then judged and explained; the answers stay in this browser session, never "
        "in a link. Switch on **Presentation mode** (at the top of every page) first, and the whole lesson runs "
        "on the projector; **Share this view** gives the students a QR code of the view on the screen."
    )

by_title = {lesson.title: lesson for lesson in LESSONS}
lesson = by_title[st.selectbox("lesson", list(by_title), key=TOPIC, bind="query-params")]
st.markdown(f"**{lesson.title}.** {lesson.summary}")
titles = [f"Step {number + 1}: {view.title}" for number, view in enumerate(lesson.views)]
# The steps as one list to pick from, and the chosen step's link, what to notice and question beside it: a change
# of lesson redraws one list and one step, not every step of a 32-step course.
# On a phone the two stack, the chosen step first (ui/screen.py's style for "lesson_steps").
steps, chosen = st.container(key="lesson_steps").columns([2, 3], border=True)
# In the URL (a class following the teacher sees the step the teacher picked); options change with the lesson.
step = steps.radio(
    "the lesson's steps",
    range(len(titles)),
    format_func=titles.__getitem__,
    key="at_step",
    bind="query-params",
    label_visibility="collapsed",
)
view = lesson.views[step]
with chosen:
    st.page_link(
        PAGE_SCRIPTS[view.page],
        label=f"**{titles[step]}**",
        icon=":material/play_circle:",
        query_params=view_query(lesson, step),
    )
    st.markdown(f"**Notice:** {view.notice}\n\n**Ask the class:** {view.question}")
    # The answer's input is built only when its expander is open.
    answer = st.expander(
        "Your answer", key=f"answer_{lesson.id}/{step}", on_change="rerun", icon=":material/edit:"
    )  # one label and icon: it stays open when the answer is judged
    if answer.open:
        with answer:
            answer_part(lesson.id, step, view, place="list")
