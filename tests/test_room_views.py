"""Classes (ui/rooms): the check of a teacher's view against its page's controls, that ui/rooms/url_schema.json is
current, and the tally and chart of the class's answers."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from lessons.answers import tally
from lessons.catalogue import LESSONS, Choice, Number, Shipped, View
from ui.rooms.schema import MAX_VALUE_CHARS, MAX_VALUES, PAGE_KEYS, SCHEMA_FILE, view_problem

ROOT = Path(__file__).resolve().parent.parent


# --- a teacher's view checked against its page's controls -------------------------------------------------


def refused(page, query, says: str) -> None:
    """``query`` on ``page`` is refused, and the problem named is ``says``."""
    problem = view_problem(page, query)
    assert problem is not None and says in problem, (page, query, problem)


def test_view_problem_refuses_an_unknown_page():
    for page in ("nope", "", "Multi_Head", "multi_head/", "../home", "pages/multi_head.py"):
        refused(page, {}, f"there is no page “{page}”")
    assert view_problem("multi_head", {}) is None
    assert view_problem("home", {}) is None


def test_view_problem_refuses_a_key_no_control_of_the_page_reads():
    refused("multi_head", {"evil": ["1"]}, "the page multi_head has no control “evil”")
    refused("multi_head", {"heads": ["4"], "evil": ["1"]}, "has no control “evil”")
    refused("home", {"heads": ["4"]}, "the page home has no control “heads”")  # a key of another page
    assert view_problem("multi_head", {"heads": ["4"], "text": ["a b c"]}) is None
    assert view_problem("home", {"lesson": ["heads"], "step": ["1"], "present": ["true"]}) is None  # every page


def test_view_problem_refuses_too_many_or_too_long_values():
    assert view_problem("multi_head", {"heads": ["1"] * MAX_VALUES}) is None
    refused("multi_head", {"heads": ["1"] * (MAX_VALUES + 1)}, f"“heads” holds {MAX_VALUES + 1} values")
    assert view_problem("multi_head", {"text": ["x" * MAX_VALUE_CHARS]}) is None
    too_long = f"a value of “text” is not text of at most {MAX_VALUE_CHARS} characters"
    refused("multi_head", {"text": ["x" * (MAX_VALUE_CHARS + 1)]}, too_long)
    refused("multi_head", {"text": ["ok", "x" * (MAX_VALUE_CHARS + 1)]}, too_long)


def test_view_problem_refuses_values_that_are_not_lists_of_text():
    refused("multi_head", {"heads": "4"}, "“heads” holds no list of values")
    refused("multi_head", {"heads": {"a": "b"}}, "“heads” holds no list of values")
    for value in (4, None):
        refused("multi_head", {"heads": [value]}, "a value of “heads” is not text")


def test_view_problem_takes_a_number_generalised_key():
    assert "ko_decoder#_self_attn" in PAGE_KEYS["experiments"]
    for key in ("ko_decoder0_self_attn", "ko_decoder7_self_attn", "ko_decoder12_self_attn"):
        assert view_problem("experiments", {key: ["true"]}) is None, key
    refused("experiments", {"ko_decoderX_self_attn": ["true"]}, "has no control “ko_decoderX_self_attn”")
    assert view_problem("masks", {"s3": ["1"]}) is None
    refused(
        "multi_head", {"ko_decoder7_self_attn": ["true"]}, "has no control “ko_decoder7_self_attn”"
    )  # not that page's


def _url_state(settings: dict) -> dict[str, list[str]]:
    """A lesson view's settings as the URL holds them: a shipped checkpoint by a label (any text), a tuple as
    a repeated key, anything else as text."""

    def values(value):
        if isinstance(value, Shipped):
            return [f"{value.name} (shipped) · 0123abcd"]
        if isinstance(value, tuple):
            return [str(v) for v in value]
        return [str(value)]

    return {key: values(value) for key, value in settings.items()}


def test_view_problem_takes_every_lesson_view():
    views = [(lesson, step, view) for lesson in LESSONS for step, view in enumerate(lesson.views)]
    assert len(views) > 20 and any(isinstance(v, Shipped) for *_, view in views for v in view.settings.values())
    for lesson, step, view in views:
        query = {**_url_state(view.settings), "lesson": [lesson.id], "step": [str(step + 1)], "present": ["true"]}
        assert view_problem(view.page, query) is None, (lesson.id, step, view_problem(view.page, query))


def test_the_schema_names_every_page_of_the_navigation():
    from ui.pages_index import PAGES

    assert set(PAGE_KEYS) == {page.url_path for page in PAGES}
    assert all("present" in keys for keys in PAGE_KEYS.values())


# --- the class's answers ----------------------------------------------------------------------------------


def _view(ask) -> View:
    return View("multi_head", {}, "t", "n", "q?", ask, "a")


def test_tally_of_a_choice_counts_each_option_by_index():
    view = _view(Choice(("first", "second", "third"), 1))
    given = ["0", "1", "1", "2", "1", "3", "10", "-1", "x", "", " 1", "1.0", "+1", "one"]
    assert tally(view, given) == (["first", "second", "third"], [1, 3, 1], [False, True, False])
    assert tally(view, []) == (["first", "second", "third"], [0, 0, 0], [False, True, False])


def test_tally_of_a_choice_leaves_out_digits_int_refuses():
    view = _view(Choice(("first", "second", "third"), 1))
    assert tally(view, ["1", "²"]) == (["first", "second", "third"], [0, 1, 0], [False, True, False])


def test_tally_of_a_number_sorts_the_values_and_judges_each_by_the_tolerance():
    view = _view(Number(2.5, tolerance=0.1, unit="nats"))
    given = ["2.5", "3", "2.45", "nan", "2.5", "inf", "-inf", "abc", "", "1e400", "2.61", " 2.4 ", "-1", "NaN", "2.6"]
    labels, counts, right = tally(view, given)
    assert labels == ["-1 nats", "2.4 nats", "2.45 nats", "2.5 nats", "2.6 nats", "2.61 nats", "3 nats"]
    assert counts == [1, 1, 1, 2, 1, 1, 1]
    assert right == [False, True, True, True, True, False, False]
    assert tally(view, ["nan", "x"]) == ([], [], [])


def test_tally_of_a_whole_number_shows_whole_numbers():
    view = _view(Number(6, unit="tokens back"))
    assert tally(view, ["7", "6", "1000", "6", "6.0"]) == (
        ["6 tokens back", "7 tokens back", "1,000 tokens back"],
        [3, 1, 1],
        [True, False, False],
    )


def test_class_answers_figure_before_and_after_the_reveal():
    from viz.class_answers import ANSWER_COLOR, RIGHT_COLOR, class_answers_figure
    from viz.style import OTHER_COLOR

    answers, counts = ["second", "first", "third"], [3, 0, 5]
    before = class_answers_figure(answers, counts, None, 12)
    (bars,) = before.data
    assert list(bars.y) == answers and list(bars.x) == counts and bars.orientation == "h"
    assert before.layout.yaxis.autorange == "reversed"  # the first answer at the top
    assert list(bars.marker.color) == [ANSWER_COLOR] * 3 and ANSWER_COLOR != RIGHT_COLOR
    assert before.layout.title.text == "The class's answers: 8 of 12 students following"

    after = class_answers_figure(answers, counts, [False, True, False], 12)
    assert list(after.data[0].marker.color) == [OTHER_COLOR, RIGHT_COLOR, OTHER_COLOR]
    assert list(after.data[0].y) == answers
    assert after.layout.title.text == before.layout.title.text

    assert list(class_answers_figure(answers, counts, [True, False, True], 0).data[0].marker.color) == [
        RIGHT_COLOR,
        OTHER_COLOR,
        RIGHT_COLOR,
    ]
    assert class_answers_figure(answers, counts, None, 0).layout.title.text == "The class's answers: 8"
    assert class_answers_figure([], [], None, 3).layout.title.text == "The class's answers: 0 of 3 students following"


# --- the schema file is current ---------------------------------------------------------------------------


@pytest.mark.slow
def test_url_schema_file_is_current():
    """Runs every page and section (about 100 s): ``python scripts/url_schema.py`` writes the file again."""
    spec = importlib.util.spec_from_file_location("url_schema_script", ROOT / "scripts" / "url_schema.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    assert Path(script.SCHEMA_FILE) == SCHEMA_FILE
    assert script.build_schema() == json.loads(SCHEMA_FILE.read_text()), (
        "ui/rooms/url_schema.json is not current: run python scripts/url_schema.py"
    )
