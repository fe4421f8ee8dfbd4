"""The student's live part of a class, in the browser (``follower.js``): it waits on this server's board for the
teacher's next drawing and takes it in place, shows the drawing's copy of the teacher's page in place of its own,
or starts a run of this session where neither can show the teacher's view."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from ui.cache import resource

from classroom.figure_check import FIGURE_RULES

from .page_copy import BROWSER_ALLOW_LIST

KEY = "class_follower"
# While the panel shows the teacher's page (its copy, or its figures while the page opens it), the page below the
# student's strip is hidden (the strip sits in a layout wrapper of Streamlit's on some pages: its siblings too), and
# so is it, and the sidebar's controls, while the teacher has paused the class (the strip says "Eyes on the teacher": ui/rooms/pace.py). The copy
# is drawn as Streamlit draws a page: columns side by side (stacked on a
# phone), captions small and grey, alerts tinted, tables ruled and scrolled, expanders framed, a wide formula
# scrolled on its own, the text as large as the page's in presentation mode (ui/screen.py).
CSS = """
.st-key-class_follower p.lab-follow { margin: 0; font-size: 0.875rem; color: rgba(49, 51, 63, 0.75); }
body.lab-opening :is(.st-key-class_strip, [data-testid="stLayoutWrapper"]:has(> .st-key-class_strip)) ~ * {
  display: none !important; }
:is(.st-key-class_strip, [data-testid="stLayoutWrapper"]:has(> .st-key-class_strip)):has(.st-key-class_paused) ~ *,
body:has(.st-key-class_paused) [data-testid="stSidebarUserContent"] { display: none !important; }
.lab-teacher-screen { margin-top: 1rem; scroll-margin-top: 4.5rem; }  /* below Streamlit's header when scrolled to */
.lab-teacher-screen .lab-copy-row { display: flex; gap: 1rem; align-items: flex-start; }
.lab-teacher-screen .lab-copy-column { min-width: 0; }
@media (max-width: 640px) { .lab-teacher-screen .lab-copy-row { flex-direction: column; align-items: stretch; } }
.lab-teacher-screen .lab-copy-caption, .lab-teacher-screen .lab-copy-caption p {
  font-size: 0.875rem; color: rgba(17, 17, 17, 0.6); margin: 0 0 0.5rem; }  /* as the page's own: 4.9:1 */
.lab-teacher-screen .lab-copy-alert { padding: 0.75rem 1rem; border-radius: 0.5rem; margin-bottom: 1rem; }
.lab-teacher-screen .lab-copy-alert p { margin: 0; }
.lab-teacher-screen .lab-copy-info { background: rgba(28, 131, 225, 0.1); color: rgb(0, 66, 128); }
.lab-teacher-screen .lab-copy-warning { background: rgba(255, 227, 18, 0.1); color: rgb(146, 108, 5); }
.lab-teacher-screen .lab-copy-error { background: rgba(255, 43, 43, 0.09); color: rgb(125, 53, 59); }
.lab-teacher-screen .lab-copy-success { background: rgba(33, 195, 84, 0.1); color: rgb(23, 114, 51); }
.lab-teacher-screen .lab-copy-table { overflow: auto; max-height: 24rem; margin-bottom: 1rem; }
.lab-teacher-screen .lab-copy-table table { border-collapse: collapse; font-size: 0.875rem; }
.lab-teacher-screen .lab-copy-table th, .lab-teacher-screen .lab-copy-table td {
  border: 1px solid rgba(49, 51, 63, 0.1); padding: 0.25rem 0.5rem; text-align: right; }
.lab-teacher-screen .lab-copy-value { font-size: 2.25rem; }
.lab-teacher-screen details { border: 1px solid rgba(49, 51, 63, 0.2); border-radius: 0.5rem; padding: 0.5rem 1rem;
  margin-bottom: 1rem; }
.lab-teacher-screen code { font-size: 0.8em; background: rgba(151, 166, 195, 0.15); padding: 0.1em 0.25em;
  border-radius: 0.25rem; }
.lab-teacher-screen pre code { background: none; padding: 0; }
.lab-teacher-screen math[display="block"] { margin: 0.75rem 0; font-size: 1.25em; }
.lab-teacher-screen .math.block { overflow-x: auto; overflow-y: hidden; }
body.lab-presenting .lab-teacher-screen :is(p, li, summary) { font-size: 1.3rem; line-height: 1.45; }
"""


@resource()
def _component():
    """The component, once per process."""
    folder = Path(__file__).parent  # the figures' check first: follower.js calls it on every drawing
    js = "\n".join((folder / name).read_text(encoding="utf-8") for name in ("figure_check.js", "follower.js"))
    return st.components.v2.component("attention_lab_follower", js=js, css=CSS, isolate_styles=False)


def follower(data: dict) -> None:
    """Mount the student's live part with ``data``: the board's address (``url``) and what this run drew
    (``after``, ``version``, ``layout``, ``present``, ``status``), whether the student follows, the page's
    ``controls`` (URL keys) to hide while following, the ``settings`` shown, ``mode`` and the class ``code``;
    with them the copy's allow-list (``ui.rooms.page_copy``) and the figures' rules (``classroom.figure_check``),
    which the browser checks a drawing's copy and figures against.
    A change that needs a run of this session arrives as its trigger, which reruns the app."""
    _component()(
        key=KEY,
        data={**data, "allowed": BROWSER_ALLOW_LIST, "figureRules": FIGURE_RULES},
        on_sync_change=lambda: None,
        height="content",
    )
