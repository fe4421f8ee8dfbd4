"""Accessibility in Chromium (WCAG 2.2 AA; docs/accessibility.md): the keyboard's focus is always drawn, at least
2 px and 3:1 against the page; a reader who asks for reduced motion gets no animated transitions; every chart
says what it shows and opens onto its numbers; a disabled control's label keeps its contrast. axe-core's WCAG A
and AA rules run on every section of every page at three sizes in test_figure_standard.py."""

from __future__ import annotations

import collections
import csv

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.e2e.accessibility_check import violations_now
from tests.e2e.conftest import RANDOM_MULTI_HEAD, new_page, wait_idle
from ui.accessibility import FOCUS_COLOUR

STYLED = "() => getComputedStyle(document.body).getPropertyValue('--lab-accessible').trim() === '1'"
FOCUS_DRAWN = """colour => { const e = document.activeElement; const s = getComputedStyle(e);
  const [r, g, b] = [1, 3, 5].map(i => parseInt(colour.slice(i, i + 2), 16));
  return e !== document.body && s.outlineStyle !== "none" && parseFloat(s.outlineWidth) >= 2
    && s.outlineColor === `rgb(${r}, ${g}, ${b})`; }"""


@pytest.fixture(scope="module")
def axe():
    return Axe()


def test_the_keyboards_focus_is_drawn_at_least_2_px_and_3_to_1(page, server_url):
    page.goto(f"{server_url}/multi_head")
    wait_idle(page)
    page.wait_for_function(STYLED, timeout=30_000)
    seen = []
    for _ in range(6):
        page.keyboard.press("Tab")
        try:  # Streamlit's own transition on a link's focus ends in the outline
            page.wait_for_function(FOCUS_DRAWN, arg=FOCUS_COLOUR, timeout=5_000)
        except PlaywrightTimeout:
            pass  # the assertion below names what was drawn instead
        seen.append(
            page.evaluate(
                """() => { const e = document.activeElement; const s = getComputedStyle(e);
                return [e.tagName, s.outlineStyle, parseFloat(s.outlineWidth), s.outlineColor]; }"""
            )
        )
    r, g, b = (int(FOCUS_COLOUR[i : i + 2], 16) for i in (1, 3, 5))
    for tag, style, width, colour in seen:
        assert tag != "BODY" and style != "none" and width >= 2 and colour == f"rgb({r}, {g}, {b})", seen


def test_reduced_motion_turns_transitions_off(browser, server_url):
    page = new_page(browser, reduced_motion="reduce")
    try:
        page.goto(f"{server_url}/multi_head")
        wait_idle(page)
        page.wait_for_function(STYLED, timeout=30_000)
        longest = page.evaluate(
            """() => Math.max(...[...document.querySelectorAll('*')].map(e => {
                 const s = getComputedStyle(e);
                 return Math.max(...s.transitionDuration.split(',').map(parseFloat),
                                 ...s.animationDuration.split(',').map(parseFloat)); }))"""
        )
        assert longest <= 0.001  # seconds
    finally:
        page.context.close()


# every drawn chart: a figure whose text alternative begins with its title (ui/chart_description.js)
CHARTS_NAMED = """() => { const plots = [...document.querySelectorAll('.lab-chart')].filter(p => p.layout);
  return plots.length > 0 && plots.every(p => p.getAttribute('role') === 'figure'
    && (p.getAttribute('aria-label') || '').startsWith('Chart: '));
}"""
LABELS = """() => [...document.querySelectorAll('.lab-chart')].filter(p => p.layout).map(p =>
  [p.layout.title && p.layout.title.text, p.getAttribute('aria-label')])"""


def test_every_chart_says_what_it_shows_to_a_screen_reader(page, server_url):
    page.goto(f"{server_url}/multi_head?section=Mean+and+rollout")
    wait_idle(page)
    page.wait_for_function(CHARTS_NAMED, timeout=30_000)
    labels = page.evaluate(LABELS)
    assert len(labels) == 2
    for title, label in labels:
        plain = " ".join(title.replace("<br>", " ").replace("&amp;", "&").split())  # a long title wraps in lines
        assert (
            label.startswith(f"Chart: {plain}. a grid of ") and " cells from " in label and "the largest at " in label
        )


def test_a_disabled_controls_label_keeps_its_contrast(page, server_url, axe):
    """A one-layer model's "layer" slider is disabled; its label reads 7:1 (Streamlit's own: 2.6:1)."""
    page.goto(f"{server_url}/self_attention?layers=1")
    wait_idle(page)
    page.wait_for_function(STYLED, timeout=30_000)
    label = page.locator('label[data-testid="stWidgetLabel"][disabled]').filter(has_text="layer").first
    assert label.evaluate("e => getComputedStyle(e).color") == "rgb(89, 89, 89)"
    result = axe.run(
        page,
        context='label[data-testid="stWidgetLabel"]',
        options={"runOnly": {"type": "rule", "values": ["color-contrast"]}},
    )
    assert result.response["violations"] == []


def test_show_the_numbers_opens_by_keyboard_as_tables_per_head_and_a_csv(page, server_url, axe):
    """Under Multi-head's grid, "Show the numbers" (Enter on its summary) holds one table per head, queries by keys
    named by the tokens, each row summing to 1 as attention does, and the same numbers as CSV."""
    page.goto(f"{server_url}/{RANDOM_MULTI_HEAD}")
    wait_idle(page)
    page.wait_for_function(CHARTS_NAMED, timeout=30_000)
    box = page.locator("details.lab-numbers").first
    box.locator("summary").focus()
    page.keyboard.press("Enter")
    box.locator("table").first.wait_for(timeout=10_000)
    captions = box.locator("caption").all_inner_texts()
    assert [c.rsplit(" · ", 1)[1] for c in captions] == ["head 1", "head 2", "head 3", "head 4"]
    rows = box.locator("table").first.evaluate(
        "t => [...t.tBodies[0].rows].map(r => [r.cells[0].textContent, ...[...r.cells].slice(1).map(c => c.textContent)])"
    )
    keys = box.locator("table").first.evaluate("t => [...t.tHead.rows[0].cells].slice(1).map(c => c.textContent)")
    assert keys[:3] == ["The", "animal", "didn't"] and [r[0] for r in rows] == keys  # self-attention: same tokens
    for row in rows:
        assert abs(sum(float(v) for v in row[1:]) - 1) < 2e-3, row  # four significant digits each
    result = axe.run(
        page,
        context="details.lab-numbers",
        options={"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21aa", "wcag22aa"]}},
    )
    assert result.response["violations"] == []
    with page.expect_download() as download:
        box.locator("a.lab-numbers-csv").click()
    assert download.value.suggested_filename.endswith(".csv")
    with open(download.value.path(), newline="", encoding="utf-8") as file:
        lines = list(csv.reader(file))
    assert lines[0] == ["table", "row", "column", "value"] and len(lines) == 1 + 4 * len(keys) * len(keys)
    sums = collections.defaultdict(float)
    for table, query, _, value in lines[1:]:
        sums[(table, query)] += float(value)
    assert len(sums) == 4 * len(keys) and all(abs(total - 1) < 1e-5 for total in sums.values())


def test_a_chart_that_draws_no_values_of_its_own_says_so_under_show_the_numbers(page, server_url):
    """The Vision page's sequence of patches is a picture of the digit's pixels (no value to hover): its box says
    there are no numbers rather than offer an empty table and a CSV of none."""
    page.goto(f"{server_url}/vision?section=Patches")
    wait_idle(page)
    page.wait_for_function(CHARTS_NAMED, timeout=30_000)
    chart = page.locator("div.lab-chart.js-plotly-plot", has_text="The sequence the encoder reads")
    box = chart.locator("xpath=..").locator("details.lab-numbers")
    box.locator("summary").click()
    box.get_by_text("This chart draws no values of its own").wait_for(timeout=10_000)
    assert box.locator("a.lab-numbers-csv, table").count() == 0


def test_the_wcag_check_reports_each_violation_on_a_page_that_has_them(page):
    """The check every section goes through (``accessibility_violations``) names a missing text alternative and
    faint text (2.3:1), and finds nothing on the same page without them; axe-core, loaded once into a document,
    reads it as it stands at each check (faint text added in place is found)."""
    page.set_content(
        '<html lang="en"><head><title>t</title></head><body><main><h1>A page</h1>'
        '<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">'
        '<p style="color: #aaaaaa; background: #ffffff">faint words</p></main></body></html>'
    )
    assert {v["kind"] for v in violations_now(page)} == {"WCAG image-alt", "WCAG color-contrast"}
    page.set_content(
        '<html lang="en"><head><title>t</title></head><body><main><h1>A page</h1>'
        '<img alt="a dot" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">'
        '<p style="color: #595959; background: #ffffff">clear words</p></main></body></html>'
    )
    assert violations_now(page) == []
    page.evaluate("() => document.querySelector('p').style.color = '#aaaaaa'")
    assert {v["kind"] for v in violations_now(page)} == {"WCAG color-contrast"}
