"""``testing.apptest.opened_at`` (the tests' ``run_page``, the URL schema's runs) opens a page on an AppTest's first
run, as its link does, by a private name of AppTest's: each page opened that way, the home page too, runs as the
page that ``switch_page`` reaches after a run of the home page, with the same elements."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from testing.apptest import opened_at
from tests.apptest_helpers import APP, TIMEOUT, URL_PATHS, assert_no_exception
from ui.pages_index import PAGES


def _elements(at: AppTest) -> list[tuple[str, str]]:
    """What the run drew: each element's type and, for a text, its text."""
    return [(node.type, str(getattr(node, "value", ""))[:80]) for node in at.main if node.type != "bidi_component"]


@pytest.fixture(scope="module")
def home() -> list[tuple[str, str]]:
    return _elements(AppTest.from_file(APP, default_timeout=TIMEOUT).run())


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.url_path)
def test_a_page_opened_at_its_address_runs_as_the_page_switch_page_reaches(page, home):
    opened = opened_at(APP, URL_PATHS[page.path], TIMEOUT).run()
    switched = AppTest.from_file(APP, default_timeout=TIMEOUT)
    switched.run()
    switched.switch_page(page.path).run()
    assert_no_exception(opened)
    assert _elements(opened) == _elements(switched)
    assert (_elements(opened) == home) == page.is_home
