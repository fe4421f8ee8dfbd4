"""Every control bound to the URL keeps its place in the page's layout when the layout changes under a running
session: the screen reports compact (a phone, a tablet turned), or presentation mode is switched on.

Where a run moves such a control (another delta path), the browser removes its old copy only after drawing the
new one, and removing the old copy drops the control's link to its URL key (Streamlit 1.67): the address stops
following the control, and a shared link or a class's view loses its value. ``ui/screen.py`` makes every place in
every layout; this checks each page, in its first view and each of its sections. The presentation switch moves
between the classroom bar's two places (the bar's row, the sidebar), which every layout makes.
"""

from __future__ import annotations

import pytest

from tests.apptest_helpers import assert_no_exception, run_page
from ui.pages_index import PAGES
from ui.screen import COMPACT, PRESENT
from ui.streamlit_internals import bound_url_keys

BAR_PLACES = {("main", 1), ("sidebar", 0)}  # the classroom bar's row and its place on a compact screen


def node_places(at) -> dict[tuple, object]:
    """Every element and block of the last run by its place: ("main" or "sidebar", index, index, ...)."""
    found = {}

    def walk(node, place):
        found[place] = node
        for index, child in getattr(node, "children", {}).items():
            walk(child, (*place, index))

    walk(at.main, ("main",))
    walk(at.sidebar, ("sidebar",))
    return found


def control_places(at) -> dict[str, tuple]:
    """The place of every control of the last run bound to a URL key, by its key."""
    keys = bound_url_keys(at)
    return {node.key: place for place, node in node_places(at).items() if getattr(node, "key", None) in keys}


def moved(before: dict[str, tuple], after: dict[str, tuple]) -> dict[str, tuple]:
    """Controls in both runs at different places (the presentation switch aside): key -> (before, after)."""
    return {
        key: (before[key], after[key]) for key in before.keys() & after.keys() - {PRESENT} if before[key] != after[key]
    }


def in_layout(at, layout: str) -> dict[str, tuple]:
    """Run again in ``layout`` ("compact" or "present", as the screen or the switch would set it), read the places,
    and return to the plain layout."""
    key = COMPACT if layout == "compact" else PRESENT
    at.session_state[key] = True
    at.run()
    assert_no_exception(at)
    assert BAR_PLACES <= node_places(at).keys(), "both places of the classroom bar are made"
    places = control_places(at)
    at.session_state[key] = False
    return places


def sections(at) -> list[str]:
    return next((list(group.options) for group in at.get("button_group") if group.key == "section"), [])


@pytest.mark.parametrize("page", PAGES, ids=[p.title for p in PAGES])
def test_no_control_bound_to_the_url_moves_when_the_layout_changes(page):
    at = run_page(page.path)
    assert_no_exception(at)
    views = sections(at) or [None]
    for section in views:
        if section is not None:
            next(group for group in at.get("button_group") if group.key == "section").set_value(section)
        at.run()
        assert_no_exception(at)
        assert BAR_PLACES <= node_places(at).keys(), "both places of the classroom bar are made"
        plain = control_places(at)
        assert plain, "the page has controls bound to the URL"
        for layout in ("compact", "present"):
            assert moved(plain, in_layout(at, layout)) == {}, (section, layout)


def test_a_control_that_moves_is_found():
    """The check itself: a control drawn one place lower in the compact layout is reported, with both places."""
    before = {"layer": ("main", 4, 1, 0), PRESENT: ("main", 1, 0, 0)}
    after = {"layer": ("main", 4, 2, 0), PRESENT: ("sidebar", 0, 0)}
    assert moved(before, after) == {"layer": (("main", 4, 1, 0), ("main", 4, 2, 0))}
