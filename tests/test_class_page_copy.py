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


def test_a_lesson_step_goes_out_without_a_copy_even_once_the_teacher_has_answered():
    """A lesson's step holds a question each student answers on a page of its own: its drawing carries no copy
    of the teacher's page (not whole: the students' pages run), so the answer the teacher's page shows once
    the teacher has answered reaches no student before it is revealed."""
    teacher = session({"lesson": "heads", "step": "1"}, page="multi_head")
    code, _ = teach(teacher)
    drawing = json.loads(room_store().drawing(code)[1]["plain"])
    assert drawing["whole"] is False and drawing["copy"] == ""
    answer = next(radio for radio in teacher.radio if radio.label == "Your answer")
    answer.set_value(answer.options[0])  # a form's input: sent with its "Check"
    next(button for button in teacher.button if button.label == "Check").click().run()
    assert any(text.value.startswith("**Answer:") for text in teacher.markdown)  # the teacher's page shows it
    for mode, text in room_store().drawing(code)[1].items():
        assert "Answer:" not in text, mode
        assert json.loads(text)["copy"] == ""


def test_the_copy_knows_every_element_and_block_type_streamlit_has():
    """Every type a page can write is one the copy holds, leaves out or knows it cannot hold: a Streamlit that
    adds one fails here by name (and, until it is listed, a page that shows one runs for the student)."""
    from streamlit.proto.Block_pb2 import Block
    from streamlit.proto.Element_pb2 import Element

    from ui.rooms.page_copy import known

    elements = [field.name for field in Element.DESCRIPTOR.oneofs_by_name["type"].fields]
    blocks = [f"block:{field.name}" for field in Block.DESCRIPTOR.oneofs_by_name["type"].fields]
    assert [kind for kind in elements + blocks if not known(kind)] == []


def test_a_type_the_copy_does_not_know_is_logged_by_name_once_and_the_copy_is_not_whole(caplog):
    from types import SimpleNamespace

    from ui.rooms.page_copy import page_copy

    root = SimpleNamespace(kind="block:vertical", digest="", delta=None)
    new = SimpleNamespace(kind="hologram", digest="", delta=SimpleNamespace(new_element=None))
    caplog.set_level("WARNING", logger="ui.rooms.page_copy")
    for _ in range(2):
        body, whole = page_copy({(0,): root, (0, 0): new}, "chart")
        assert whole is False and "hologram" not in body
    assert [r.getMessage() for r in caplog.records].count(
        "the page copy does not know the element type 'hologram': a page that shows one runs for the student"
    ) == 1


def test_a_component_the_copy_does_not_know_makes_it_not_whole_and_the_apps_own_are_left_out():
    from types import SimpleNamespace

    from ui.rooms.page_copy import LEFT_OUT_COMPONENTS, page_copy

    def component(name: str):
        view = SimpleNamespace(bidi_component=SimpleNamespace(component_name=name, bytes=b"x"))
        return SimpleNamespace(kind="bidi_component", digest="", delta=SimpleNamespace(new_element=view))

    root = SimpleNamespace(kind="block:vertical", digest="", delta=None)
    assert page_copy({(0,): root, (0, 0): component("someone_elses_map")}, "chart")[1] is False
    for name in LEFT_OUT_COMPONENTS:  # nothing drawn, or an input: left out as controls are, the copy whole
        assert page_copy({(0,): root, (0, 0): component(name)}, "chart") == ("", True)
