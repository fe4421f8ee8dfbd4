"""In a real browser, as a projector (1280 x 720, presentation mode from the link): every section of every page
shows its first figure on the first screen, its settings and explanation folded away above it, the open section
scrolled up to the top of the window (``assert_figure_on_the_first_screen``, applied in the figure standard's walk
through every section, test_figure_standard.py); the title and the page's text larger than on a desktop."""

from __future__ import annotations

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.e2e.conftest import assert_no_exception, new_page, wait_idle, wait_settled
from tests.e2e.compact import CHARTS_DRAWN, GO_TO

PROJECTOR = (1280, 720)


def shown(page, url_path: str) -> None:
    before = page.evaluate("() => window.__labRuns.requested")
    if page.evaluate(GO_TO, url_path):
        wait_idle(page, timeout=90_000, after=before)
    page.wait_for_function(CHARTS_DRAWN, timeout=30_000)
    wait_settled(page)


# The first figure as the window shows it: its top and height, and how much of it is inside the window.
FIRST_FIGURE_SHOWN = """() => {
  const chart = document.querySelector('div.lab-chart');
  if (!chart) return null;
  const box = chart.getBoundingClientRect();
  return {top: box.top, height: box.height, shown: Math.max(0, Math.min(window.innerHeight, box.bottom) - Math.max(0, box.top))};
}"""
SHOWN_PX = 360  # of a figure taller than 600 px, at least this much (half the window) on the first screen


def assert_figure_on_the_first_screen(page, where: str) -> None:
    """The first figure starts on the first screen and shows 60 % of itself there, or ``SHOWN_PX`` of a tall one."""
    assert_no_exception(page)
    try:  # the open section scrolls into view once the page below it has come
        page.wait_for_function(
            f"""() => {{ const f = ({FIRST_FIGURE_SHOWN})();
            return f === null || f.shown >= Math.min(0.6 * f.height, {SHOWN_PX}); }}""",
            timeout=5_000,
        )
    except PlaywrightTimeout:
        pass
    figure = page.evaluate(FIRST_FIGURE_SHOWN)
    if figure is None:  # Home and Lessons draw no chart
        return
    assert 0 <= figure["top"] < PROJECTOR[1] - 120, f"{where}: the first figure starts at {figure['top']:.0f} px"
    assert figure["shown"] >= min(0.6 * figure["height"], SHOWN_PX), (
        f"{where}: {figure['shown']:.0f} px of the first figure's {figure['height']:.0f} on the first screen"
    )


def at_the_projectors_size(browser, url: str):
    """A new page at 1280 x 720 on ``url``, its charts drawn (and presentation mode marked, where the link asks)."""
    page = new_page(browser, viewport={"width": PROJECTOR[0], "height": PROJECTOR[1]})
    page.goto(url)
    wait_idle(page, timeout=90_000)
    page.wait_for_function(CHARTS_DRAWN, timeout=30_000)
    if "present=true" in url:
        page.wait_for_function("() => document.body.classList.contains('lab-presenting')")
    return page


TEXT_SIZES = """() => {
  const main = document.querySelector('[data-testid=stMain]');
  const size = (selector) => { const el = [...main.querySelectorAll(selector)].find((e) => e.checkVisibility());
    return el ? parseFloat(getComputedStyle(el).fontSize) : null; };
  return {title: size('h1'), prose: size('[data-testid=stMarkdown] p'), label: size('[data-testid=stWidgetLabel] p'),
          caption: size('[data-testid=stCaptionContainer] p'), folded: size('[data-testid=stExpander] summary p'),
          section: size('[data-testid=stButtonGroup] button p'), button: size('[data-testid^=stBaseButton] p'),
          value: size('[data-testid=stSliderThumbValue]')};
}"""


def test_presentation_mode_grows_the_pages_text_not_only_its_figures(browser, server_url):
    """On a projector the prose, the captions and the folded parts' names are 1.3 rem (20.8 px at the app's
    16 px), the controls' labels, the buttons and the sections' names 1.15 rem (18.4 px) and a slider's value
    1.05 rem (16.8 px), where a desktop has them at 16 px or less."""
    sizes = {}
    for query in ("", "&present=true"):
        page = at_the_projectors_size(browser, f"{server_url}/self_attention?section=Scores+and+softmax{query}")
        try:
            if query:  # the settings open, so that a control's label, a slider's value and the sections show
                page.locator("[data-testid=stExpander] summary").nth(1).click()
                page.wait_for_function(
                    f"() => Object.values(({TEXT_SIZES})()).every((size) => size !== null)", timeout=10_000
                )
            sizes[bool(query)] = page.evaluate(TEXT_SIZES)
        finally:
            page.context.close()
    plain, projected = sizes[False], sizes[True]
    assert all(plain[part] is not None and plain[part] <= 16 for part in ("prose", "caption", "folded")), sizes
    assert projected["title"] == pytest.approx(52) and projected["title"] > plain["title"], sizes  # 3.25 rem
    assert {part: projected[part] for part in ("prose", "caption", "folded")} == pytest.approx(
        {"prose": 20.8, "caption": 20.8, "folded": 20.8}
    ), sizes
    # a desktop's buttons, sections and slider values are 14-16 px (where the page shows one: the settings are open)
    assert all(plain[part] is None or plain[part] <= 16 for part in ("section", "button", "value")), sizes
    assert {part: projected[part] for part in ("label", "section", "button", "value")} == pytest.approx(
        {"label": 18.4, "section": 18.4, "button": 18.4, "value": 16.8}
    ), sizes


def test_presentation_mode_stays_on_through_a_quick_navigation_and_off_once_switched_off(browser, server_url):
    """A prepared link's presentation mode lasts through a click to another page made as soon as the first page is
    idle (that navigation's run came without the switch's URL key, and presentation mode was lost); switched off
    on a page, it stays off on the next."""
    page = new_page(browser, viewport={"width": PROJECTOR[0], "height": PROJECTOR[1]})
    try:
        page.goto(f"{server_url}/?present=true")
        wait_idle(page, timeout=90_000)
        shown(page, "experiments")
        assert page.evaluate("() => new URL(location.href).searchParams.get('present')") == "true"
        page.wait_for_function("() => document.querySelectorAll('div.lab-chart .main-svg').length >= 2", timeout=30_000)
        fonts = page.evaluate("() => [...document.querySelectorAll('div.lab-chart')].map((gd) => gd.layout.font.size)")
        assert fonts and all(size == 22.5 for size in fonts), fonts  # 15 px x 1.5: the figures as presented
        before = page.evaluate("() => window.__labRuns.requested")
        page.locator(".st-key-present label").first.click()
        wait_idle(page, after=before)
        assert page.evaluate("() => new URL(location.href).searchParams.get('present')") is None
        shown(page, "masks")
        assert page.evaluate("() => new URL(location.href).searchParams.get('present')") is None
        assert not page.evaluate("() => document.body.classList.contains('lab-presenting')")
    finally:
        page.context.close()


# The open section's first chart and the paragraph that explains it: their boxes, and the width of the page's column.
FIGURE_AND_TEXT = """(start) => {
  const main = document.querySelector('[class*=st-key-lab_figure_text_why_scale]').getBoundingClientRect(); // the page's width
  const chart = document.querySelector('[class*=st-key-lab_figure_text_why_scale] div.lab-chart').getBoundingClientRect();
  const text = [...document.querySelectorAll('[class*=st-key-lab_figure_text_why_scale] [data-testid=stMarkdown]')]
    .find((el) => el.innerText.startsWith(start)).getBoundingClientRect();
  return {main: main.width, chart: [chart.left, chart.top, chart.width, chart.bottom],
          text: [text.left, text.top]};
}"""


@pytest.mark.parametrize("present", [False, True], ids=["desktop", "projector"])
def test_a_figure_takes_the_pages_width_on_a_projector_with_its_explanation_under_it(browser, server_url, present):
    """Why scale at 1280 x 720: on a desktop the figure and its explanation side by side (3 : 2); in presentation
    mode, where every font grows, the figure across the page and the explanation under it."""
    page = at_the_projectors_size(browser, f"{server_url}/self_attention?section=Why+scale{'&present=true' * present}")
    try:
        explained = "For random queries and keys"
        page.wait_for_function(  # the explanation written and its figure drawn, both in the keyed container
            "(start) => [...document.querySelectorAll('[class*=st-key-lab_figure_text_why_scale] [data-testid=stMarkdown]')]"
            ".some((el) => el.innerText.startsWith(start))"
            " && !!document.querySelector('[class*=st-key-lab_figure_text_why_scale] div.lab-chart .main-svg')",
            arg=explained,
            timeout=15_000,
        )
        wait_settled(page)
        boxes = page.evaluate(FIGURE_AND_TEXT, explained)
    finally:
        page.context.close()
    (chart_left, chart_top, chart_width, chart_bottom), (text_left, text_top) = (
        boxes["chart"],
        boxes["text"],
    )
    if present:
        assert chart_width > 0.9 * boxes["main"] and text_top >= chart_bottom, boxes
    else:
        assert chart_width < 0.65 * boxes["main"] and text_left > chart_left + chart_width - 1, boxes
        assert abs(text_top - chart_top) < 150, boxes  # beside it, not under it
