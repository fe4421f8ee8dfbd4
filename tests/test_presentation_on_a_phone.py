"""Presentation mode and the window's size (ui/presentation.py): a link's presentation mode is switched off on a
compact window and back on once the window is wide again, unless the reader switched it meanwhile."""

from __future__ import annotations

from tests.apptest_helpers import assert_no_exception, run_page
from ui.presentation import SWITCHED
from ui.screen import COMPACT, PRESENT

PAGE = "pages/masks/page.py"


def resized(at, compact: bool):
    at.session_state[COMPACT] = compact
    at.run()
    assert_no_exception(at)
    return at


def presenting_from_a_link():
    """The page as a link with present=true opens it: presentation mode on, not switched by the reader."""
    at = run_page(PAGE)
    at.session_state[PRESENT] = True
    at.run()
    assert at.session_state[PRESENT] is True and SWITCHED not in at.session_state
    return at


def test_a_window_made_narrow_then_wide_again_presents_again():
    at = presenting_from_a_link()
    assert resized(at, True).session_state[PRESENT] is False  # a phone's size: its own fonts
    assert at.query_params.get(PRESENT) != "true"
    assert resized(at, False).session_state[PRESENT] is True  # wide again: the projector's link holds
    assert at.query_params.get(PRESENT) == "true"
    assert resized(at, False).session_state[PRESENT] is True


def test_a_reader_who_switched_it_on_a_narrow_window_keeps_their_choice():
    at = presenting_from_a_link()
    resized(at, True)
    at.toggle(key=PRESENT).set_value(True).run()  # the reader switches it on, then off, on the narrow window
    assert at.session_state[SWITCHED] is True and at.session_state[PRESENT] is True
    at.toggle(key=PRESENT).set_value(False).run()
    assert resized(at, False).session_state[PRESENT] is False  # wide again: their choice stands


def test_a_phone_that_opened_a_plain_link_is_not_switched_on_when_wide():
    at = run_page(PAGE)
    resized(at, True)
    assert resized(at, False).session_state[PRESENT] is False
