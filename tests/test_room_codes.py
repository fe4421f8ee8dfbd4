"""Classes (ui/rooms): class codes and what a link with a bad one says (the check of a teacher's view against its
page's controls, the class's answers and the URL schema: test_room_views.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.apptest_helpers import TIMEOUT
from ui.rooms.membership import room_store
from classroom.routes import TEACHER_COOKIE, teacher_cookie
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
    cookies = {TEACHER_COOKIE: teacher_cookie(code, secret)}
    monkeypatch.setattr("ui.rooms.membership.sent_cookie", cookies.get)


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
    assert (place.role, place.code, place.following) == ("student", code, True) and not hasattr(place, "secret")
    assert at.query_params["room"] == code and "teach" not in at.query_params


def test_a_browser_that_keeps_another_classs_secret_or_a_wrong_one_joins_as_a_student(monkeypatch):
    code, _ = room_store().open("multi_head", {})
    other, other_secret = room_store().open("multi_head", {})
    for kept in ((other, other_secret), (code, other_secret)):
        browser_keeps(monkeypatch, *kept)
        at = link({"room": code})
        assert told(at) == [] and at.session_state["class_room"].role == "student"
