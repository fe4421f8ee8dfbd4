"""The keyboard alone (WCAG 2.1.1, 2.1.2, 2.4.3, 2.4.7): Tab walks a page of each kind in the order it reads, every
stop visible and drawn with the focus ring, nothing holds the focus, and the controls it reaches work (a slider
moves with the arrows, a section opens from the row of sections, a chart's toolbar and its numbers are reached)."""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import pytest

from tests.e2e.conftest import RANDOM_MULTI_HEAD, new_page, requested_runs, wait_for_chart, wait_idle
from ui.accessibility import FOCUS_COLOUR

# The element that has the focus: what it is, its name, whether it is in the main part of the page, its box on
# screen and its outline.
FOCUSED = """() => { const e = document.activeElement; const s = getComputedStyle(e); const r = e.getBoundingClientRect();
  window.__labStops = window.__labStops || new Map();
  if (!window.__labStops.has(e)) window.__labStops.set(e, window.__labStops.size + 1);
  return { id: window.__labStops.get(e), tag: e.tagName, role: e.getAttribute('role') || '', type: e.getAttribute('type') || '',
    name: (e.getAttribute('aria-label') || e.textContent || '').trim().slice(0, 60),
    main: !!e.closest('[data-testid=stMain]'), sidebar: !!e.closest('[data-testid=stSidebar]'),
    chart: !!e.closest('.modebar, details.lab-numbers'), inView: r.width > 0 && r.height > 0,
    outline: [s.outlineStyle, parseFloat(s.outlineWidth), s.outlineColor] }; }"""
RING = ["solid", 3.0, "rgb({}, {}, {})".format(*(int(FOCUS_COLOUR[i : i + 2], 16) for i in (1, 3, 5)))]
STOPS = 90  # enough to pass the sidebar, the bar above the page, the controls and reach the first chart


def walk(page, stops: int = STOPS) -> list[dict]:
    """Press Tab ``stops`` times from the top of the page; what had the focus after each press."""
    page.locator("body").focus()
    seen = []
    for _ in range(stops):
        page.keyboard.press("Tab")
        seen.append(page.evaluate(FOCUSED))
    return seen


@pytest.mark.parametrize("path", ["self_attention", "multi_head", "train", "vision"])
def test_tab_walks_the_page_in_reading_order_with_the_focus_always_drawn(browser, server_url, path):
    page = new_page(browser, viewport={"width": 1280, "height": 800})
    try:
        page.goto(f"{server_url}/{path}")
        wait_idle(page)
        page.wait_for_selector(".js-plotly-plot", timeout=60_000)
        seen = walk(page)
        stops = [s for s in seen if s["tag"] != "BODY"]
        assert len(stops) >= len(seen) - 2, seen  # the focus is not lost (once, past the end, it may wrap)
        for stop in stops:
            assert stop["inView"] and stop["outline"] == RING, stop  # each stop shown, with the 3 px ring
        sides = [("sidebar" if s["sidebar"] else "main" if s["main"] else "other") for s in stops]
        first_main = sides.index("main")
        assert "sidebar" in sides[:first_main]  # the navigation first, as it reads, then the page
        assert any(s["chart"] for s in stops), stops  # a chart's toolbar or its numbers are reached
        ids = [s["id"] for s in stops]
        again = next((i for i, id_ in enumerate(ids) if id_ in ids[:i]), None)
        # no trap: no element has the focus twice before the walk has passed them all and begun again at the top
        assert again is None or ids[again] == ids[0], [(s["tag"], s["name"]) for s in stops]
    finally:
        page.context.close()


# The focus on the closed expander that holds the page's settings (its summary names the model)
FOLDED_SETTINGS = """() => { const at = document.activeElement;
  return at.tagName === 'SUMMARY' && !at.parentElement.open && at.textContent.includes('Model'); }"""


def test_the_keyboard_moves_a_slider_and_opens_a_section(page, server_url):
    page.goto(f"{server_url}/{RANDOM_MULTI_HEAD}")
    wait_idle(page)
    wait_for_chart(page, "Layer 1 · 4 heads", timeout=60_000)
    page.locator("body").focus()
    for _ in range(STOPS):  # Tab to the folded settings, open them (Enter), on to the heads slider
        page.keyboard.press("Tab")
        if page.evaluate(FOLDED_SETTINGS):
            page.keyboard.press("Enter")
        if page.evaluate(
            "() => document.activeElement.matches('.st-key-heads input[type=range], .st-key-heads [role=slider]')"
        ):
            break
    else:
        pytest.fail("Tab never reached the heads slider")
    before = requested_runs(page)
    page.keyboard.press("ArrowRight")  # 4 -> 8 heads
    wait_idle(page, after=before)
    wait_for_chart(page, "Layer 1 · 8 heads", timeout=30_000)
    assert parse_qs(urlparse(page.url).query)["heads"] == ["8"]
    for _ in range(STOPS):  # on to the row of sections
        page.keyboard.press("Tab")
        if page.evaluate("() => !!document.activeElement.closest('.st-key-section')"):
            break
    else:
        pytest.fail("Tab never reached the row of sections")
    # a group of radio buttons (WAI-ARIA's pattern): Tab enters at the chosen one, an arrow moves to the next
    before = requested_runs(page)
    page.keyboard.press("ArrowRight")
    second = page.evaluate("() => document.activeElement.textContent.trim()")
    if page.evaluate("() => document.activeElement.getAttribute('aria-checked')") != "true":
        page.keyboard.press("Space")  # moved to, not yet chosen
    wait_idle(page, after=before)
    assert parse_qs(urlparse(page.url).query).get("section") == [second]
