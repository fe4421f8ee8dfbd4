"""The copy of the teacher's page a following student is shown instead of a run of its own (``ui.rooms.page_copy``),
checked on the real pages in AppTest: every sentence, heading, caption and formula's words the teacher's page
shows are in its copy, every chart has its place there in the page's order, no control and nothing of the bars
around the page is, and the copy is whole on every page but the one that draws a graph."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

import pytest

from tests.apptest_helpers import chart_elements, chart_name
from tests.test_class_follow import session, teach
from ui.pages_index import PAGES
from ui.rooms.drawing import TEACHER_ONLY
from ui.rooms.membership import room_store

TEXT = (
    "Markdown",
    "Caption",
    "Latex",
    "Title",
    "Header",
    "Subheader",
    "Heading",
    "Info",
    "Warning",
    "Error",
    "Success",
)
NOT_WHOLE = {"home": "its map of the course is a graph (graphviz), which the copy does not draw"}


class Copy(HTMLParser):
    """The copy's text and its charts' places, in order."""

    def __init__(self, markup: str):
        super().__init__()
        self.text: list[str] = []
        self.charts: list[str] = []
        self.feed(markup)

    def handle_starttag(self, tag, attrs):
        if "data-chart" in dict(attrs):
            self.charts.append(dict(attrs)["data-chart"])

    def handle_data(self, data):
        self.text.append(data)


def words(markdown: str) -> list[str]:
    """The words of a Markdown text outside its formulas, links' targets and code."""
    text = re.sub(r"\$\$.*?\$\$|\$[^$]*\$|\]\([^)]*\)|`[^`]*`", " ", markdown, flags=re.S)
    return re.findall(r"[A-Za-z]{4,}", text)


def page_texts(node, inside_page: bool = False) -> list[str]:
    """The text elements of the page below the bars (the title onward), popovers left out."""
    found = []
    for child in node.children.values():
        kind = type(child).__name__
        if getattr(child, "type", None) == "popover":
            continue
        if kind == "Title":
            inside_page = True
        if kind in TEXT and inside_page:
            found.append(child.value)
        if hasattr(child, "children"):
            found += page_texts(child, inside_page)
    return found


@pytest.mark.parametrize("page", [page.url_path or "home" for page in PAGES])
def test_the_copy_of_every_page_holds_its_text_and_its_charts_in_order(page):
    teacher = session(page=None if page == "home" else page)
    code, _ = teach(teacher)
    drawing = json.loads(room_store().drawing(code)[1]["plain"])
    assert drawing["whole"] is (page not in NOT_WHOLE), NOT_WHOLE.get(page)
    copy = Copy(drawing["copy"])
    shown = set(re.findall(r"[A-Za-z]{4,}", " ".join(copy.text)))
    texts = page_texts(teacher.main)
    assert texts, "the page writes text"
    for text in texts:
        missing = [word for word in words(text) if word not in shown]
        assert not missing, (text[:80], missing)
    charts = [chart_name(el) for el in chart_elements(teacher) if chart_name(el) not in TEACHER_ONLY]
    assert copy.charts == charts
    assert set(copy.charts) <= set(drawing["charts"])
    for bar_text in ("Teaching class", code):  # the class bar's caption
        assert bar_text not in drawing["copy"]


def test_a_lesson_step_is_in_the_copy_and_a_step_with_a_question_makes_the_student_page_run():
    """The lesson's bar is the page's: its text is in the copy; its question is a form the student fills in, so
    that view's copy is not whole (the student's page runs and shows the question's own controls)."""
    teacher = session({"lesson": "heads", "step": "1"}, page="multi_head")
    code, _ = teach(teacher)
    drawing = json.loads(room_store().drawing(code)[1]["plain"])
    assert teacher.radio(key=next(r.key for r in teacher.radio if r.label == "Your answer")) is not None
    assert drawing["whole"] is False
    shown = set(re.findall(r"[A-Za-z]{4,}", " ".join(Copy(drawing["copy"]).text)))
    lesson_texts = [el.value for el in teacher.markdown if "step" in el.value.lower() or "?" in el.value]
    assert lesson_texts
    for text in lesson_texts:
        assert set(words(text)) <= shown, text[:80]
