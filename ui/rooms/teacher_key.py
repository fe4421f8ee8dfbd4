"""The teacher's browser keeps the class's secret: in the teacher's runs, a small part of the page posts the
class's code and secret to the app's route (``classroom.routes``, ``POST _class/teacher``), once a page load,
and the answer sets an HttpOnly cookie. A reload, a second tab or a reconnection after a server restart sends
it, and ``ui.rooms.follow`` makes that session the class's teacher again; the address bar, which a projector
shows, never holds the secret. The part draws nothing.
"""

from __future__ import annotations

import streamlit as st

from ui.cache import resource

KEY = "class_teacher_key"
# Sent once per page load and class; sent again on the next run when the server could not take it.
JS = """
export default function ({ data }) {
  const kept = (window.__attentionLabTeacherKey = window.__attentionLabTeacherKey || new Set());
  if (kept.has(data.code)) return;
  kept.add(data.code);
  const backend = window.__streamlit && window.__streamlit.BACKEND_BASE_URL;
  const base = backend ? (backend.endsWith("/") ? backend : backend + "/") : document.baseURI;
  fetch(new URL(data.url, base), {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ code: data.code, secret: data.secret }),
  }).then((answer) => { if (!answer.ok) kept.delete(data.code); }, () => kept.delete(data.code));
}
"""
CSS = f".st-key-{KEY} {{ display: none; }}"


@resource()
def _component():
    """The component, once per process."""
    return st.components.v2.component("attention_lab_teacher_key", js=JS, css=CSS, isolate_styles=False)


def keep_teacher_key(code: str, secret: str) -> None:
    """In a teacher's run: the browser keeps class ``code``'s ``secret`` as a cookie (see the module)."""
    _component()(key=KEY, data={"url": "_class/teacher", "code": code, "secret": secret})
