"""In a real browser, on a phone (390 x 844, touch): a finger scrolls past a chart and taps it for its numbers,
controls are large enough for a finger, a link's presentation mode leaves the phone at its own size, the row of
sections is one row that scrolls; and on a wide screen each figure is drawn as it was built.

One touch context serves the phone's tests in turn (a session that has reported its screen keeps its compact
layout from page to page, as a student's phone does).
"""

from __future__ import annotations

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.e2e.compact import go_to, open_compact
from tests.e2e.conftest import RANDOM_MULTI_HEAD, new_page, wait_for_chart, wait_idle, wait_settled

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


@pytest.fixture(scope="module")
def phone(browser, server_url):
    """A phone's touch context with the app open and laid out for it, shared by the tests of this module."""
    page = new_page(browser, **PHONE)
    open_compact(page, server_url)
    yield page
    page.context.close()


def swipe(page, x: float, y: float, dy: float) -> None:
    """A finger put down at (x, y) and moved by dy px, in ten steps."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    for step in range(1, 11):
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y + dy * step / 10}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()


def test_a_finger_scrolls_past_a_chart_taps_it_for_its_numbers_and_reaches_every_control(phone):
    """On a touch screen a drag over a plot scrolls the page (it does not zoom), a tap on a cell shows its
    hover, slider thumbs are drawn 24 px in a row 40 px high and the buttons of a row of choices are at
    least 40 px."""
    page = phone
    go_to(page, "multi_head")
    scroll_top = "() => document.querySelector('[data-testid=stMain]').scrollTop"
    page.evaluate("() => document.querySelector('div.lab-chart').scrollIntoView({block: 'end'})")
    page.wait_for_function(f"() => ({scroll_top})() > 0")
    before = page.evaluate(scroll_top)
    box = page.locator("div.lab-chart .nsewdrag").first.bounding_box()
    # the middle of the part of the plot in the window (MiniLM's twelve heads make a plot several screens tall)
    shown = (max(box["y"], 0), min(box["y"] + box["height"], page.viewport_size["height"]))
    swipe(page, box["x"] + box["width"] / 2, (shown[0] + shown[1]) / 2, 150)
    page.wait_for_function(f"() => ({scroll_top})() < {before - 60}", timeout=5_000)

    # the middle of the first tile's first cell (data coordinates 0, 0), from the axes as drawn (a fixed offset
    # into the plot lands in the one-cell gap between tiles where the phone's layout makes cells small), scrolled
    # to the middle of the window, clear of the bar at its top
    first_cell = """() => {
          const plot = document.querySelector('div.lab-chart'), { xaxis, yaxis } = plot._fullLayout;
          const box = plot.getBoundingClientRect();
          return [box.left + xaxis._offset + xaxis.l2p(0), box.top + yaxis._offset + yaxis.l2p(0)];
        }"""
    to_middle = "(y) => document.querySelector('[data-testid=stMain]').scrollBy(0, y - window.innerHeight / 2)"
    hover = page.locator("div.lab-chart .hoverlayer .hovertext").first
    for attempt in range(3):  # as a reader taps again: a tap while a loaded machine still runs or lays out is lost
        wait_idle(page)
        wait_settled(page)  # the plot laid out for the phone: a tap during a relayout hovers nothing (weight NaN)
        page.evaluate(to_middle, page.evaluate(first_cell)[1])
        x, y = page.evaluate(first_cell)
        page.touchscreen.tap(x, y)
        try:
            hover.wait_for(timeout=5_000)
            break
        except PlaywrightTimeout:
            if attempt == 2:
                under = page.evaluate("([x, y]) => document.elementFromPoint(x, y)?.outerHTML.slice(0, 200)", [x, y])
                raise AssertionError(f"a tap at ({x:.0f}, {y:.0f}) on {under} showed no numbers") from None
    assert "query" in page.locator("div.lab-chart .hoverlayer .hovertext").first.text_content()

    sections = page.locator("[data-testid=stButtonGroup] button").evaluate_all(
        "els => els.map(el => el.getBoundingClientRect()).map(r => [r.width, r.height])"
    )
    assert sections and all(w >= 40 and h >= 40 for w, h in sections), sections
    page.get_by_text("Model, sentence and layer").click()
    thumbs = page.locator("[data-testid=stSlider] input[type=range]")
    thumbs.first.wait_for(state="attached")
    sizes = thumbs.evaluate_all(
        "els => els.map(el => [el.parentElement.parentElement, el.closest('[role=group]')])"
        ".map(([thumb, row]) => [thumb.getBoundingClientRect().width, row.getBoundingClientRect().height])"
    )
    assert sizes and all(thumb >= 24 and row >= 40 for thumb, row in sizes), sizes  # [thumb's width, its row's height]


def test_a_link_in_presentation_mode_leaves_a_phone_at_its_own_size(phone, server_url):
    """The teacher's link carries presentation mode; a phone opening it is switched back (figures at their
    own fonts, the switch off, the address without it), and its reader may still switch it on."""
    page = phone
    open_compact(page, f"{server_url}/multi_head?present=true")
    page.wait_for_function("() => !new URLSearchParams(location.search).has('present')", timeout=10_000)
    assert page.evaluate("() => document.querySelector('div.lab-chart').layout.font.size") == 15
    switch = page.locator("[data-testid=stSidebar] .st-key-present input")
    assert not switch.is_checked()
    page.locator("[data-testid=stSidebarCollapsedControl] button, [data-testid=stExpandSidebarButton]").first.click()
    before = page.evaluate("() => window.__labRuns.requested")
    page.locator("[data-testid=stSidebar] .st-key-present label").click()
    wait_idle(page, after=before)
    page.wait_for_function("() => document.querySelector('div.lab-chart')?.layout?.font.size > 15", timeout=10_000)
    # the address follows the run's widget state: it may arrive a moment after the figure is redrawn
    page.wait_for_function("() => new URLSearchParams(location.search).get('present') === 'true'", timeout=10_000)
    open_compact(page, server_url)  # a fresh session for the tests that share this page


# The row of sections as drawn: each button's top, whether the row scrolls in its own box, and where the open
# section lies against the row's visible part.
SECTION_ROW = """() => {
  const row = document.querySelector('.st-key-section [data-testid=stButtonGroup] > div:has(> button)');
  const box = row.getBoundingClientRect(), open = row.querySelector('button[aria-checked=true]').getBoundingClientRect();
  return {tops: [...row.querySelectorAll('button')].map((b) => Math.round(b.getBoundingClientRect().top)),
          scrolls: getComputedStyle(row).overflowX, wider: row.scrollWidth > row.clientWidth,
          openShown: open.left >= box.left - 1 && open.right <= box.right + 1};
}"""


def test_a_phones_row_of_sections_is_one_row_that_scrolls_to_the_open_one(phone, server_url):
    """Multi-head's eight sections on a phone: one row, wider than the screen, that scrolls in its own box; a link
    to the seventh section opens with it in view."""
    page = phone
    open_compact(page, f"{server_url}/multi_head?section=Compare")
    page.wait_for_function(f"() => ({SECTION_ROW})().openShown", timeout=10_000)
    row = page.evaluate(SECTION_ROW)
    assert len(row["tops"]) == 8 and len(set(row["tops"])) == 1, row
    assert row["scrolls"] == "auto" and row["wider"], row
    # its edges fade where more of it lies: the row scrolled to the seventh section has more on its left; at its
    # start, only on its right; at its end, only on its left
    row = "document.querySelector('.st-key-section [data-testid=stButtonGroup] > div:has(> button)')"
    page.wait_for_function(f"() => ['both', 'left'].includes({row}.dataset.more)", timeout=5_000)
    assert "linear-gradient" in page.evaluate(f"() => getComputedStyle({row}).maskImage")
    for scroll, more in (("0", "right"), (f"{row}.scrollWidth", "left")):
        page.evaluate(f"() => {{ {row}.scrollLeft = {scroll}; }}")
        page.wait_for_function(f"() => {row}.dataset.more === '{more}'", timeout=5_000)
    open_compact(page, server_url)  # a fresh session for the tests that share this page


# What of a figure's layout the fitting may change, as drawn and as built (the layout Plotly holds keeps
# its own autorange and type besides).
AS_BUILT = """() => [...document.querySelectorAll('div.lab-chart')].map((plot) => {
  const built = JSON.parse(plot.labSpec).layout, drawn = plot.layout;
  const parts = (layout) => JSON.stringify([layout.height, layout.margin, layout.title, layout.legend,
    layout.xaxis?.tickvals, layout.yaxis?.tickvals, layout.annotations, layout.shapes?.length, layout.meta]);
  return [parts(built) === parts(drawn), plot.data.map((trace) => trace.colorbar?.orientation ?? null)];
})"""


def test_a_wide_screen_gets_each_figure_as_it_was_built(browser, server_url):
    """At 1800 px, with the sidebar open, the figures that fit are drawn exactly as the server built them:
    four head tiles a row, every key labelled (turned keys a line apart), the colour bar beside the plot."""
    page = new_page(browser, viewport={"width": 1800, "height": 1000})
    try:
        page.goto(f"{server_url}/{RANDOM_MULTI_HEAD}")
        wait_idle(page)
        wait_for_chart(page, "4 heads", timeout=30_000)
        assert page.evaluate(AS_BUILT) == [[True, [None, None]]]
    finally:
        page.context.close()
