"""The browser keeps a session's place in its class as a cookie: the teacher's secret, and a student's id. In a run of
a class's session, a small part of the page posts the class's code and the key to the app's route
(``classroom.routes``: ``POST _class/teacher``, ``POST _class/student``), once a page load, and the answer sets an
HttpOnly cookie. A reload, a second tab or a reconnection after a server restart sends it, and ``ui.rooms.follow``
makes that session the class's teacher again, or the same student (back at their own step of a lesson at the class's
own pace); the address bar, which a projector shows, never holds either. The part draws nothing.
"""

from __future__ import annotations

import streamlit as st

from ui.cache import resource

TEACHER_KEY = "class_teacher_key"
STUDENT_KEY = "class_student_key"
# Sent once per page load, route and key; sent again on the next run when the server could not take it.
JS = """
export default function ({ data }) {
  const kept = (window.__attentionLabClassKeys = window.__attentionLabClassKeys || new Set());
  const once = `${data.url} ${JSON.stringify(data.body)}`;
  if (kept.has(once)) return;
  kept.add(once);
  const backend = window.__streamlit && window.__streamlit.BACKEND_BASE_URL;
  const base = backend ? (backend.endsWith("/") ? backend : backend + "/") : document.baseURI;
  fetch(new URL(data.url, base), {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(data.body),
  }).then((answer) => { if (!answer.ok) kept.delete(once); }, () => kept.delete(once));
}
"""
CSS = f".st-key-{TEACHER_KEY}, .st-key-{STUDENT_KEY} {{ display: none; }}"


@resource()
def _component():
    """The component, once per process."""
    return st.components.v2.component("attention_lab_class_key", js=JS, css=CSS, isolate_styles=False)


def keep_teacher_key(code: str, secret: str) -> None:
    """In a teacher's run: the browser keeps class ``code``'s ``secret`` as a cookie (see the module)."""
    _component()(key=TEACHER_KEY, data={"url": "_class/teacher", "body": {"code": code, "secret": secret}})


def keep_student_key(code: str, student: str) -> None:
    """In a student's run: the browser keeps the student's id in class ``code`` as a cookie (see the module)."""
    _component()(key=STUDENT_KEY, data={"url": "_class/student", "body": {"code": code, "student": student}})
