"""Classes (ui/rooms): class codes and what a link with a bad one says, the check of a teacher's view against its
page's controls, the tally and chart of the class's answers, and that ui/rooms/url_schema.json is current."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.apptest_helpers import TIMEOUT
from lessons.catalogue import LESSONS, Choice, Number, Shipped, View
from lessons.answers import tally
from ui.rooms.schema import MAX_VALUE_CHARS, MAX_VALUES, SCHEMA_FILE, PAGE_KEYS, view_problem
from ui.rooms.membership import room_store
from classroom.routes import teacher_cookie
from classroom.store import CODE_ALPHABET, CODE_LENGTH, RoomsUnavailable, new_code, normal_code


ROOT = Path(__file__).resolve().parent.parent


# --- codes ------------------------------------------------------------------------------------------------


def test_the_alphabet_has_31_unconfusable_characters():
    assert len(CODE_ALPHABET) == len(set(CODE_ALPHABET)) == 31
    assert not set("0O1IL") & set(CODE_ALPHABET)
    assert all(c.isascii() and c.isalnum() and c == c.upper() for c in CODE_ALPHABET)
    assert set(CODE_ALPHABET) == set("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") - set("0O1IL")
    assert len(set(CODE_ALPHABET)) ** CODE_LENGTH == 31**8 == 852_891_037_441


def test_new_codes_use_the_whole_alphabet():
    codes = [new_code() for _ in range(2_000)]
    assert all(len(code) == CODE_LENGTH and normal_code(code) == code for code in codes)
    assert set("".join(codes)) == set(CODE_ALPHABET)  # 16,000 draws: each character about 516 times
    assert len(set(codes)) == len(codes)


@pytest.mark.parametrize(
    "typed", ["abcd-efgh", "ABCD-EFGH", "abcdefgh", "AbCd eFgH", " abcd - efgh ", "a-b-c-d-e-f-g-h"]
)
def test_normal_code_takes_a_code_in_any_case_with_spaces_and_dashes(typed):
    assert normal_code(typed) == "ABCDEFGH"


def test_normal_code_takes_every_code_as_read_aloud():
    for code in (new_code() for _ in range(200)):
        assert normal_code(f"{code[:4]}-{code[4:]}".lower()) == code
        assert normal_code(code.swapcase()) == code


# --- a link with a code: what the session is told -------------------------------------------------------

NOT_A_CODE = "“{}” is not a class code: a code has 8 letters and digits, none of them 0, 1, I, L or O. You are on the app on your own."
NO_CLASS = "There is no class {} now: it has ended, or the code is mistyped. You are on the app on your own."
TOO_MANY = "Too many attempts to join a class in a minute: wait a minute, then open the link again."
UNREACHABLE = (
    "The server that holds the classes cannot be reached just now, so the class could not be joined. "
    "The app works on its own; open the link again in a moment."
)
SECRET_IN_LINK = (
    "A link no longer makes its holder the teacher (the teacher's own browser keeps that): "
    "you follow this class as a student."
)


def browser_keeps(monkeypatch, code: str, secret: str) -> None:
    """The session's browser sends the teacher's cookie of class ``code`` (AppTest sends no cookies)."""
    monkeypatch.setattr("ui.rooms.membership.teacher_cookie", lambda: teacher_cookie(code, secret))


def _joining():
    """A page that only joins by link (app.py's first step) and says the class's message, as app.py does."""
    import streamlit as st

    from ui.rooms.follow import join_from_link
    from ui.rooms.membership import take_notice

    join_from_link()
    said = take_notice()
    if said:
        getattr(st, said[0])(said[1])


def link(query: dict[str, str], at: AppTest | None = None) -> AppTest:
    """Open a link with ``query`` in a new session, or again in ``at``'s."""
    at = at or AppTest.from_function(_joining, default_timeout=TIMEOUT)
    for key, value in query.items():
        at.query_params[key] = value
    return at.run()


def told(at: AppTest) -> list[str]:
    assert not at.exception and not at.error and not at.info, [e.value for e in at.exception]
    return [warning.value for warning in at.warning]


def on_its_own(at: AppTest) -> bool:
    """The session is in no class, and its URL holds neither the class's code nor a teacher's secret."""
    return "class_room" not in at.session_state and not {"room", "teach"} & set(at.query_params)


def unknown_code() -> str:
    return next(code for code in iter(new_code, None) if room_store().view(code) is None)


@pytest.mark.parametrize(
    "typed",
    [
        "",
        "abcd-efg",
        "abcdefghj",
        "ABCD-EFGH-J",
        "--------",
        "ABCDEFG_",
        "ABCDEFG!",
        "ABCDEFGÄ",
        "ABCDEFG\t",
        "ABCDEFG²",
    ],
)
def test_the_wrong_length_and_other_characters_are_not_a_code(typed):
    assert normal_code(typed) is None
    at = link({"room": typed, "teach": "secret"})
    assert told(at) == [NOT_A_CODE.format(typed)] and on_its_own(at)


@pytest.mark.parametrize("confusable", ["0", "O", "o", "1", "I", "i", "L", "l"])
def test_confusable_characters_are_not_a_code(confusable):
    for typed in ("ABCDEFG" + confusable, confusable + "BCD-EFGH"):
        assert normal_code(typed) is None
        at = link({"room": typed})
        assert told(at) == [NOT_A_CODE.format(typed)] and on_its_own(at)


def test_a_long_text_is_echoed_by_its_first_20_characters():
    at = link({"room": "ABCD-EFGH-JKMN-PQRS-TUVW"})
    assert told(at) == [NOT_A_CODE.format("ABCD-EFGH-JKMN-PQRS-")] and on_its_own(at)


def test_a_code_of_no_class_and_a_closed_class_is_no_class_now_named_as_read_aloud():
    code = unknown_code()
    at = link({"room": f"{code[:4]}-{code[4:]}".lower()})
    assert told(at) == [NO_CLASS.format(code)] and on_its_own(at)
    closed, secret = room_store().open("multi_head", {})
    assert room_store().close(closed, secret)
    at = link({"room": closed, "teach": secret})
    assert told(at) == [NO_CLASS.format(closed)] and on_its_own(at)


def test_the_sixth_attempt_of_a_minute_is_too_many_even_for_an_open_class(monkeypatch):
    """Five attempts a minute a session: a code of no class counts; a text that is no code is refused first."""
    at = None
    for _ in range(5):
        code = unknown_code()
        at = link({"room": code}, at)
        assert told(at) == [NO_CLASS.format(code)]
    at = link({"room": "ABCDEFG0"}, at)
    assert told(at) == [NOT_A_CODE.format("ABCDEFG0")]
    code, secret = room_store().open("multi_head", {})
    browser_keeps(monkeypatch, code, secret)
    at = link({"room": code}, at)
    assert told(at) == [TOO_MANY] and on_its_own(at)
    place = link({"room": code}).session_state["class_room"]
    assert (place.role, place.code, place.secret) == ("teacher", code, secret)


def test_a_store_that_cannot_be_reached_is_said_and_the_session_stays_on_its_own(monkeypatch):
    class Unreachable:
        def view(self, code):
            raise RoomsUnavailable("down")

    monkeypatch.setattr("ui.rooms.follow.room_store", Unreachable)
    at = link({"room": unknown_code()})
    assert told(at) == [UNREACHABLE] and on_its_own(at)


def test_the_browser_that_keeps_a_classs_secret_is_its_teacher_and_the_address_never_holds_it(monkeypatch):
    code, secret = room_store().open("multi_head", {})
    browser_keeps(monkeypatch, code, secret)
    at = link({"room": code})  # a reload, or a second tab: a new session of the same browser
    place = at.session_state["class_room"]
    assert told(at) == [] and (place.role, place.code, place.secret) == ("teacher", code, secret)
    assert dict(at.query_params) == {"room": code}


def test_a_secret_in_a_link_never_makes_a_teacher_even_the_right_one():
    """An address seen on the projector before the secret left it (``&teach=``) joins as a student."""
    code, secret = room_store().open("multi_head", {})
    at = link({"room": code, "teach": secret})
    assert told(at) == [SECRET_IN_LINK]
    place = at.session_state["class_room"]
    assert (place.role, place.code, place.following, place.secret) == ("student", code, True, None)
    assert at.query_params["room"] == code and "teach" not in at.query_params


def test_a_browser_that_keeps_another_classs_secret_or_a_wrong_one_joins_as_a_student(monkeypatch):
    code, _ = room_store().open("multi_head", {})
    other, other_secret = room_store().open("multi_head", {})
    for kept in ((other, other_secret), (code, other_secret)):
        browser_keeps(monkeypatch, *kept)
        at = link({"room": code})
        assert told(at) == [] and at.session_state["class_room"].role == "student"


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
