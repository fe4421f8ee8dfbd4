"""The student's live part of a class, in the browser (``follower.js``): it waits on this server's board for the
teacher's next drawing and takes it in place, or starts a run of this session where the page must change."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from ui.cache import resource

KEY = "class_follower"
# While the page opens the teacher's other page (the teacher's figures are in the panel), the page below the
# student's strip is the old one: hidden until the run that opens the new one has drawn it.
CSS = """
.st-key-class_follower p.lab-follow { margin: 0; font-size: 0.875rem; color: rgba(49, 51, 63, 0.75); }
body.lab-opening .st-key-class_strip ~ * { display: none !important; }
"""


@resource()
def _component():
    """The component, once per process."""
    js = (Path(__file__).parent / "follower.js").read_text(encoding="utf-8")
    return st.components.v2.component("attention_lab_follower", js=js, css=CSS, isolate_styles=False)


def follower(data: dict) -> None:
    """Mount the student's live part with ``data``: the board's address (``url``) and what this run drew
    (``after``, ``version``, ``layout``, ``present``, ``status``), whether the student follows, the page's
    ``controls`` (URL keys) to hide while following, the ``settings`` shown, ``mode`` and the class ``code``.
    A change that needs a run of this session arrives as its trigger, which reruns the app."""
    _component()(key=KEY, data=data, on_sync_change=lambda: None, height="content")
