"""A class on screen: "Teach this class", the join link and its QR, students following the teacher's view,
"explore on my own" and "follow again", and the class's answers to a lesson's question.

A session is in at most one class (``st.session_state[CLASS]``), as its teacher (it holds the secret) or
as a student. The URL says so too: ``?room=CODE`` joins a class on any page, and the teacher's own link
adds ``&teach=SECRET``; the "Share this view" link carries neither.

Following is a fragment that runs every ``POLL_SECONDS`` (``live``): a teacher's run publishes the view
it shows (the page and its URL state) when it changed and counts the students; a student's run reads the
room and, when the teacher's view changed, opens it (``st.switch_page`` with the view's URL state: one
run of the page, no reload of the browser). "Explore on my own" stops following and keeps the view;
"Follow again" opens the teacher's view again. The teacher's view is checked against the page's controls (``ui.rooms.schema``) before a
student opens it.
"""

from __future__ import annotations

import time

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from ui.classroom import chart, forget_controls, qr_png, view_link
from ui.lesson_catalogue import LESSONS
from ui.pages_index import PAGES
from ui.quiz import tally

from .membership import (CLASS, JOINS, current_class, is_teacher, notice as _notice, room_store,
                         student_id as _student_id, take_notice)
from .schema import view_problem
from .store import RoomsUnavailable, RoomView, normal_code

ROOM, TEACH = "room", "teach"  # URL keys
POLL_SECONDS = 0.5
JOINS_PER_MINUTE = 5
MISSING_GRACE_SECONDS = 30.0  # a room gone from a restarted store is waited for this long (its teacher refills it)
PAGE_PATHS = {page.url_path: page.path for page in PAGES}


def shown_view(page_path: str) -> tuple[str, dict[str, list[str]]]:
    """The view this session shows: its page's URL path and URL state, without the class's own keys."""
    query = {key: st.query_params.get_all(key) for key in st.query_params if key not in (ROOM, TEACH)}
    return page_path, query


def _leave() -> None:
    st.session_state.pop(CLASS, None)
    st.query_params.pop(ROOM, None)
    st.query_params.pop(TEACH, None)


def _join_allowed() -> bool:
    """At most JOINS_PER_MINUTE attempts a minute per session (a wrong code counts)."""
    now = time.time()
    recent = [t for t in st.session_state.get(JOINS, []) if now - t < 60]
    if len(recent) >= JOINS_PER_MINUTE:
        st.session_state[JOINS] = recent
        return False
    st.session_state[JOINS] = [*recent, now]
    return True


def join_from_link() -> None:
    """Call before the page's controls: a link's ``?room=CODE`` (with ``&teach=SECRET`` for the teacher) puts
    this session in that class; an unknown or ended class, or too many attempts, is said and the session
    stays on the app on its own. The URL keeps the class's keys while the session is in it."""
    linked = st.query_params.get(ROOM)
    here = current_class()
    if linked is None:
        if here:  # a link or a page without the class's keys: put them back (a reload stays in the class)
            st.query_params[ROOM] = here["code"]
            if here.get("secret"):
                st.query_params[TEACH] = here["secret"]
        return
    code = normal_code(linked)
    if here and code == here["code"]:
        if here.get("secret"):
            st.query_params[TEACH] = here["secret"]
        return
    secret = st.query_params.get(TEACH)
    st.query_params.pop(TEACH, None)
    if code is None:
        st.query_params.pop(ROOM, None)
        _notice("warning", f"“{linked[:20]}” is not a class code: a code has 8 letters and digits. "
                           "You are on the app on your own.")
        return
    if not _join_allowed():
        st.query_params.pop(ROOM, None)
        _notice("warning", "Too many attempts to join a class in a minute: wait a minute, then open the link again.")
        return
    try:
        store = room_store()
        view = store.view(code)
        teacher = secret is not None and view is not None and store.is_teacher(code, secret)
    except RoomsUnavailable:
        st.query_params.pop(ROOM, None)
        _notice("warning", "The server that holds the classes cannot be reached just now, so the class could not "
                           "be joined. The app works on its own; open the link again in a moment.")
        return
    if view is None:
        st.query_params.pop(ROOM, None)
        _notice("warning", f"There is no class {code} now: it has ended, or the code is mistyped. "
                           "You are on the app on your own.")
        return
    st.query_params[ROOM] = code
    if teacher:
        st.session_state[CLASS] = {"code": code, "secret": secret, "published": None}
        st.query_params[TEACH] = secret
    else:
        st.session_state[CLASS] = {"code": code, "following": True, "applied": 0}
        if secret is not None:
            _notice("warning", "That teacher's link does not belong to this class: you follow it as a student.")


def _teach(page_path: str) -> None:
    """on_click of "Teach this class": a new room showing this session's view."""
    try:
        code, secret = room_store().open(*shown_view(page_path))
    except RoomsUnavailable:
        _notice("error", "The server that holds the classes cannot be reached, so no class was opened. "
                         "Try again in a moment.")
        return
    st.session_state[CLASS] = {"code": code, "secret": secret, "published": None}
    st.query_params[ROOM] = code
    st.query_params[TEACH] = secret


def _end() -> None:
    """on_click of "End the class"."""
    here = current_class()
    try:
        room_store().close(here["code"], here["secret"])
    except RoomsUnavailable:
        _notice("warning", "The class was left, but the server that holds the classes could not be told: "
                           "students see that it ended once it is reachable again, or after its idle time.")
    _leave()


def _set_following(following: bool) -> None:
    here = current_class()
    if here:
        st.session_state[CLASS] = {**here, "following": following, "applied": 0 if following else here["applied"]}


def spaced(code: str) -> str:
    """A code as shown to read aloud: two groups of four."""
    return f"{code[:4]}-{code[4:]}"


def class_button(container, page_path: str) -> None:
    """In the classroom bar: "Teach this class", or for the teacher the class's popover (join link, its QR
    and "End the class"), or for a student the class's code."""
    here = current_class()
    if not here:
        container.button("Teach this class", icon=":material/groups:", key="teach_class", width="stretch",
                         on_click=_teach, args=(page_path,),
                         help="Open a class: students who scan its code or open its link follow this screen "
                              "on their own devices, and answer the lessons' questions.")
        return
    if not here.get("secret"):
        container.markdown(f"Class **{spaced(here['code'])}**")
        return
    with container.popover(f"Class {spaced(here['code'])}", icon=":material/groups:", width="stretch"):
        link = view_link("", {ROOM: here["code"]})
        st.caption("Students scan the code or open the link, and follow this screen.")
        st.image(qr_png(link), width=260, output_format="PNG")
        st.code(link, language=None, wrap_lines=True)
        st.button("End the class", icon=":material/logout:", key="end_class", on_click=_end,
                  help="Students are told the class has ended and keep the view they have.")


def _question_place(query: dict[str, list[str]]):
    """The lesson view a URL state names, as (question key, view), or None."""
    lesson_id, step = (query.get("lesson") or [""])[0], (query.get("step") or [""])[0]
    lesson = next((item for item in LESSONS if item.id == lesson_id), None)
    if lesson is None or not step.isdigit() or not 1 <= int(step) <= len(lesson.views):
        return None
    return f"{lesson_id}/{int(step) - 1}", lesson.views[int(step) - 1]


def _reveal(question: str) -> None:
    here = current_class()
    try:
        room_store().reveal(here["code"], here["secret"], question)
    except RoomsUnavailable:
        _notice("warning", "The answer could not be revealed: the server that holds the classes cannot be reached.")


def _teacher_run(page_path: str) -> None:
    """Publish the view when it changed (``restore`` the room if its store lost it), count the students and,
    on a lesson view, draw the class's answers with "Reveal the answer"."""
    here, store = current_class(), room_store()
    page, query = shown_view(page_path)
    version = store.publish(here["code"], here["secret"], page, query)
    if version is None:
        if store.ended(here["code"]) or not store.restore(here["code"], here["secret"], page, query):
            _leave()
            _notice("warning", "The class ended (it was closed, or idle too long).")
            st.rerun()
        return
    followers = store.followers(here["code"])
    st.caption(f"Teaching class **{spaced(here['code'])}** · {followers} "
               f"{'student follows' if followers == 1 else 'students follow'} this screen.")
    place = _question_place(query)
    if place is None:
        return
    question, view = place
    labels, counts, right = tally(view, list(store.answers(here["code"], question).values()))
    revealed = question in store.view(here["code"]).revealed
    from viz.class_answers import class_answers_figure  # plotly only once a lesson is taught

    chart(class_answers_figure(labels, counts, right if revealed else None, followers), key="class_answers")
    if not revealed:
        st.button("Reveal the answer to the class", icon=":material/visibility:", key="reveal_answer",
                  on_click=_reveal, args=(question,))


def _student_run(page_path: str) -> None:
    """Say whom the student follows; open the teacher's view when it changed (checked against the page's
    controls first); notice a view the student changed (then exploring)."""
    here, store = current_class(), room_store()
    store.seen(here["code"], _student_id())
    view = store.view(here["code"])
    if view is None:
        if store.ended(here["code"]) or time.time() - here.setdefault("missing_since", time.time()) \
                > MISSING_GRACE_SECONDS:
            _leave()
            _notice("info", "The class has ended. You keep the view you have.")
            st.rerun()
        st.caption(f"Class **{spaced(here['code'])}**: waiting for the teacher's screen…")
        return
    here.pop("missing_since", None)
    revealed_before = here.get("revealed", frozenset())
    here["revealed"] = view.revealed
    if not here["following"]:
        st.caption(f"Exploring on my own · class **{spaced(here['code'])}**.")
        st.button("Follow again", icon=":material/sync:", key="follow_again", on_click=_set_following, args=(True,))
        return
    st.caption(f"Following the teacher · class **{spaced(here['code'])}**.")
    st.button("Explore on my own", icon=":material/explore:", key="explore", on_click=_set_following, args=(False,))
    if view.version != here["applied"]:
        _open(view, here, page_path)
    elif view.revealed != revealed_before:
        st.rerun()  # the teacher revealed an answer: the lesson bar shows it


def after_page(page_path: str) -> None:
    """Call after the page has run: a teacher's view goes out at once (the live part also sends it, for
    controls that rerun only their own part of the page)."""
    here = current_class()
    if not here or not here.get("secret"):
        return
    try:
        room_store().publish(here["code"], here["secret"], *shown_view(page_path))
    except RoomsUnavailable:
        pass  # said by the live part of the class


def _open(view: RoomView, here: dict, page_path: str) -> None:
    """Open the teacher's view: its page with its URL state and the class's code (one run of the app); the
    controls forget their values so that the URL's win. A view that does not fit its page is not opened."""
    problem = view_problem(view.page, view.query)
    here["applied"] = view.version
    if problem is not None:
        st.warning(f"The teacher's view could not be shown here: {problem}.")
        return
    forget_controls()
    query = {**view.query, ROOM: here["code"]}
    _release_url_state()  # the URL state is set whole, so the controls let go of their keys first
    if view.page != page_path:
        st.switch_page(PAGE_PATHS[view.page], query_params=query)
    st.query_params.from_dict(query)  # the same page: a rerun redraws its figures in place; a switch would
    st.rerun()  # build the page anew


def _release_url_state() -> None:
    """Let go of the URL keys this page's controls are bound to, so that ``st.switch_page`` may set them (it
    refuses a bound key, which only the same page has: Streamlit internals, tests/test_streamlit_internals.py).
    The controls bind them again as the page runs."""
    with get_script_run_ctx().session_state.query_params() as params:
        for binding in list(params._bindings_by_param.values()):
            params.unbind_widget(binding.widget_id)


@st.fragment(run_every=POLL_SECONDS)
def live(page_path: str) -> None:
    """The class, live: every POLL_SECONDS, the teacher's view goes out and the students' comes in."""
    if not current_class():
        return
    try:
        (_teacher_run if is_teacher() else _student_run)(page_path)
    except RoomsUnavailable:
        st.warning("The server that holds the classes cannot be reached: this page works on its own, and "
                   "the class resumes when it is back.", icon=":material/cloud_off:")


def class_strip(page_path: str) -> None:
    """Below the classroom bar: the last class message, and the class live (``live``) while in one."""
    notice = take_notice()
    if notice:
        getattr(st, notice[0])(notice[1])
    if current_class():
        live(page_path)
