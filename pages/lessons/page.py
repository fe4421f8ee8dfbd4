"""Lessons: prepared sequences of views for a class, each with what to notice and a question answered before
its answer shows. The Start here course comes first."""

import streamlit as st

from ui.classroom import explanation
from ui.lessons import LESSONS, TOPIC, view_query
from ui.pages_index import PAGES
from ui.quiz import answer_part
from ui.routing import require_navigation

require_navigation()

SCRIPTS = {page.url_path: page.path for page in PAGES}
STEP_DETAILS = "What to notice, the question, your answer"

st.title("Lessons")
with explanation("How a lesson runs"):
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
for step, view in enumerate(lesson.views):
    st.page_link(SCRIPTS[view.page], label=f"**Step {step + 1}: {view.title}**", icon=":material/play_circle:",
                 query_params=view_query(lesson, step))
    # What to notice, the question and the answer's input are built only when the step's expander is open: a
    # lesson of 31 steps sends 31 links and 31 closed expanders when the lesson or the presentation mode changes.
    more = st.expander(STEP_DETAILS, key=f"answer_{lesson.id}/{step}", on_change="rerun",
                       icon=":material/quiz:")  # one label and icon: it stays open when the answer is judged
    if more.open:
        with more:
            st.markdown(f"**Notice:** {view.notice}\n\n**Ask the class:** {view.question}")
            answer_part(lesson.id, step, view, place="list")
