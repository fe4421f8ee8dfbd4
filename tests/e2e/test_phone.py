"""In a real browser, as a phone (390 x 844, touch) and a tablet held upright (768 x 1024): every page of the
navigation, and every section of each, reads without scrolling sideways, no two labels of a figure lie on each
other, no text of a figure is cut at its edge, lies under its toolbar or (a tick label) over a plot, a legend
under a plot stays next to it, a table's toolbar covers nothing, the first figure starts on the first screen,
and formulas scroll inside their own box (a finger's scrolls and taps: test_touch.py).

The phone's walk through every section is the figure standard's (test_figure_standard.py applies
``assert_reads_well`` on its phone, so the sections are opened once a screen); this module walks the tablet.

One browser context per screen size serves every page in turn (a session that has reported its screen
keeps its compact layout from page to page, as a student's phone does).
"""

from __future__ import annotations

import pytest

from tests.e2e.compact import CHARTS_DRAWN, SECTIONS, go_to, open_compact
from tests.e2e.conftest import assert_no_exception, new_page, wait_idle, wait_settled
from ui.pages_index import PAGES
from ui.screen import PHONE_PX

PHONE, TABLET = (390, 844), (768, 1024)
SCREENS = {"phone": PHONE, "tablet": TABLET}

# Sideways: how far the page itself scrolls, and every element that sticks out past the window's right edge
# without a box of its own that scrolls it (a formula, a table or a code block scrolls inside its box).
SIDEWAYS = """() => {
  const main = document.querySelector('[data-testid=stMain]'), width = window.innerWidth;
  const scrolls = [document.scrollingElement, main].map((el) => el.scrollWidth - el.clientWidth);
  const inScrollingBox = (el) => {
    for (let box = el.parentElement; box && box !== main; box = box.parentElement) {
      const overflow = getComputedStyle(box).overflowX;
      if (overflow === 'auto' || overflow === 'scroll') return true;
      if (overflow === 'hidden' && box.getBoundingClientRect().right <= width + 1) return true;
    }
    return false;
  };
  const out = [...main.querySelectorAll('*')].filter((el) => {
    const box = el.getBoundingClientRect();
    return box.width > 0 && box.height > 0 && box.right > width + 1 && !inScrollingBox(el);
  }).map((el) => (el.getAttribute('data-testid') || el.tagName) + ': ' + (el.textContent || '').slice(0, 40));
  return {scroll: Math.max(...scrolls), out: out.slice(0, 5)};
}"""

# The texts of a figure as the browser draws them, for the checks below (JavaScript declarations): ``selector``
# finds tick labels, the title, panel and column names (annotations), axis and colour-bar titles and legend
# entries; ``shown(text)`` says whether a text is drawn; ``corners(text)`` is the rectangle a text is drawn in,
# turned with it, in the window's coordinates: its font's ascent and descent, more than the ink, so 18 % of its
# height at the top and at the bottom and 1 px at each end do not count; ``apart(p, q)`` says whether two such
# four-cornered shapes do not meet (an edge of one of them separates them).
FIGURE_TEXT_BOXES = """  const selector = 'g[class$=tick] > text, g[class$=tick2] > text, .annotation-text, .gtitle, '
    + '.g-xtitle text, .g-ytitle text, [class$=title] > text, .legendtext, .cbtitle text';
  const shown = (text) => text.textContent.trim() && text.getAttribute('opacity') !== '0'
    && getComputedStyle(text).display !== 'none' && getComputedStyle(text).visibility !== 'hidden';
  const corners = (text) => {
    const box = text.getBBox(), m = text.getScreenCTM();
    if (!m || !box.width || !box.height) return null;
    const sx = 1, sy = 0.18 * box.height;
    return [[box.x + sx, box.y + sy], [box.x + box.width - sx, box.y + sy],
            [box.x + box.width - sx, box.y + box.height - sy], [box.x + sx, box.y + box.height - sy]]
      .map(([x, y]) => [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f]);
  };
  const apart = (p, q) => [p, q].some((poly) => poly.some((start, i) => {
    const end = poly[(i + 1) % 4], nx = end[1] - start[1], ny = start[0] - end[0];
    const along = (points) => points.map(([x, y]) => x * nx + y * ny);
    const a = along(p), b = along(q);
    return Math.max(...a) <= Math.min(...b) || Math.max(...b) <= Math.min(...a);
  }));"""

# Pairs of texts of one figure (FIGURE_TEXT_BOXES) that lie on each other.
OVERLAPS = (
    """() => {
"""
    + FIGURE_TEXT_BOXES
    + """
  return [...document.querySelectorAll('div.lab-chart')].map((plot) => {
    const texts = [...new Set(plot.querySelectorAll(selector))].filter(shown)
      .map((text) => [text.textContent, corners(text)]).filter(([, box]) => box);
    const pairs = [];
    texts.forEach(([a, p], i) => texts.slice(i + 1)
      .forEach(([b, q]) => { if (!apart(p, q)) pairs.push(a + ' | ' + b); }));
    return {title: plot.layout?.title?.text, pairs};
  }).filter((plot) => plot.pairs.length);
}"""
)

# The first chart's top, from the top of the page (scrolled to the top).
FIRST_CHART_TOP = """() => {
  const main = document.querySelector('[data-testid=stMain]');
  const chart = document.querySelector('div.lab-chart');
  return chart ? chart.getBoundingClientRect().top + main.scrollTop : null;
}"""

# Formulas shown: each fits its box or scrolls inside it, and its box ends inside the window.
FORMULAS = """() => [...document.querySelectorAll('.katex-display')].filter((el) => el.offsetParent !== null)
  .map((el) => ({right: el.getBoundingClientRect().right, wide: el.scrollWidth > el.clientWidth + 1,
                 overflow: getComputedStyle(el).overflowX, text: el.textContent.slice(0, 40),
                 share: parseFloat(getComputedStyle(el.querySelector('.katex')).fontSize)
                        / parseFloat(getComputedStyle(el).fontSize) / 1.21}))"""
FORMULA_FLOOR = 0.7  # ui/screen.js: on a phone a formula is set smaller to fit, down to this share of its size

# What else goes wrong with a figure's texts, each as the browser draws it (the rectangle of FIGURE_TEXT_BOXES, turned
# with its text): cut, a text past the figure's left or right edge (a title or a panel name wider than the
# figure); under its toolbar, a text that meets the toolbar's box where the toolbar is shown (always, on a touch
# screen); on a plot, a tick label over a plot area (a panel's labels over its neighbour's cells); and the
# legend's gap, from the lowest part of the figure above a legend under its plots to the legend, in px.
FIGURE_TEXTS = (
    """() => {
"""
    + FIGURE_TEXT_BOXES
    + """
  const rectangle = (r, inset = 0) => [[r.left + inset, r.top + inset], [r.right - inset, r.top + inset],
                                       [r.right - inset, r.bottom - inset], [r.left + inset, r.bottom - inset]];
  return [...document.querySelectorAll('div.lab-chart')].map((plot) => {
    const svg = plot.querySelector('.main-svg').getBoundingClientRect();
    const texts = [...new Set(plot.querySelectorAll(selector))].filter(shown);
    const drawn = texts.map((text) => [text, text.textContent, corners(text)]).filter(([, , c]) => c);
    const cut = texts.map((text) => [text.textContent, text.getBoundingClientRect()])
      .filter(([, box]) => box.width && (box.left < svg.left - 1 || box.right > svg.right + 1))
      .map(([text, box]) => `${text} [${Math.round(box.left - svg.left)}, ${Math.round(box.right - svg.left)}] of ${Math.round(svg.width)}`);
    const bar = plot.querySelector('.modebar');
    const barBox = bar && getComputedStyle(bar).opacity !== '0' ? bar.getBoundingClientRect() : null;
    const underToolbar = barBox && barBox.width
      ? drawn.filter(([, , c]) => !apart(c, rectangle(barBox))).map(([, text]) => text) : [];
    const areas = [...plot.querySelectorAll('.nsewdrag')].map((el) => el.getBoundingClientRect()).filter((r) => r.width);
    const onPlot = drawn.filter(([text, , c]) => text.matches('g[class$=tick] > text, g[class$=tick2] > text')
      && areas.some((area) => !apart(c, rectangle(area, 2)))).map(([, text]) => text);
    const legend = plot.querySelector('.legend .bg');
    let legendGap = null;
    if (legend && areas.length) {
      const box = legend.getBoundingClientRect(), lowest = Math.max(...areas.map((area) => area.bottom));
      if (box.height && box.top >= lowest - 1) {
        const above = [...areas, ...texts.filter((t) => !t.closest('.legend')).map((t) => t.getBoundingClientRect())]
          .filter((r) => r.height && r.bottom <= box.top + 2);
        legendGap = Math.round(box.top - Math.max(...above.map((r) => r.bottom)));
      }
    }
    return {title: plot.layout?.title?.text, cut, underToolbar, onPlot, legendGap};
  });
}"""
)
LEGEND_GAP_PX = 40

# The element toolbars shown (a touch screen always shows a table's, above it) that cover another element shown.
TOOLBARS_OVER = """() => {
  const elements = [...document.querySelectorAll('[data-testid=stMain] [data-testid=stElementContainer]')];
  return [...document.querySelectorAll('[data-testid=stMain] [data-testid=stElementToolbar]')]
    .filter((bar) => getComputedStyle(bar).opacity !== '0' && bar.getBoundingClientRect().width)
    .flatMap((bar) => {
      const box = bar.getBoundingClientRect(), own = bar.closest('[data-testid=stElementContainer]');
      return elements.filter((el) => el.checkVisibility() && !el.contains(own) && !own.contains(el))
        .filter((el) => {
          const r = el.getBoundingClientRect();
          return Math.min(box.right, r.right) - Math.max(box.left, r.left) > 1
            && Math.min(box.bottom, r.bottom) - Math.max(box.top, r.top) > 1;
        }).map((el) => (el.textContent || el.firstElementChild?.getAttribute('data-testid') || '').slice(0, 40));
    });
}"""


@pytest.fixture(scope="module", params=["tablet"])  # the phone: in test_figure_standard.py's walk
def screen(request, browser, server_url):
    """A touch browser context of one size (its name, its page) with the app open and laid out for it,
    shared by the tests of this module."""
    width, height = SCREENS[request.param]
    page = new_page(browser, viewport={"width": width, "height": height}, is_mobile=True, has_touch=True)
    open_compact(page, server_url)
    yield request.param, page
    page.context.close()


def assert_reads_well(page, screen: str) -> None:
    """The page as shown reads on ``screen``: no exception, no sideways scroll, every figure's texts apart, inside
    it, clear of its toolbar and (tick labels) off its plots, a legend next to its plot, no table's toolbar over
    another element, the first figure on the first screen, formulas in their boxes."""
    width, height = SCREENS[screen]
    assert_no_exception(page)
    sideways = page.evaluate(SIDEWAYS)
    assert sideways["scroll"] <= 0 and not sideways["out"], sideways
    assert page.evaluate(OVERLAPS) == []
    figures = page.evaluate(FIGURE_TEXTS)
    assert [(f["title"], f["cut"]) for f in figures if f["cut"]] == [], "texts cut at the figure's edge"
    assert [(f["title"], f["underToolbar"]) for f in figures if f["underToolbar"]] == [], "texts under the toolbar"
    assert [(f["title"], f["onPlot"]) for f in figures if f["onPlot"]] == [], "tick labels over a plot"
    assert [(f["title"], f["legendGap"]) for f in figures if (f["legendGap"] or 0) > LEGEND_GAP_PX] == [], (
        "a legend far under its plot"
    )
    assert page.evaluate(TOOLBARS_OVER) == [], "a table's toolbar over another element"
    top = page.evaluate(FIRST_CHART_TOP)
    if top is not None:  # Home and Lessons draw no chart
        assert top < height - 60, f"the first figure starts at {top:.0f} px, below the first screen"
    for formula in page.evaluate(FORMULAS):
        assert formula["right"] <= width + 1, formula
        assert not formula["wide"] or formula["overflow"] in ("auto", "scroll"), formula
        if width <= PHONE_PX:  # a phone: a formula fits its box, or is set as small as it goes and scrolls
            assert not formula["wide"] or formula["share"] <= FORMULA_FLOOR + 0.005, formula


@pytest.mark.parametrize("info", PAGES, ids=[info.url_path for info in PAGES])
def test_every_page_reads_on_a_tablet(screen, info):
    name, page = screen
    go_to(page, info.url_path)
    assert_reads_well(page, name)


def open_section_at(page, index: int) -> None:
    """Click the ``index``-th button of the page's row of sections and wait until it has run and drawn."""
    before = page.evaluate("() => window.__labRuns.requested")
    page.locator(SECTIONS).nth(index).click()
    wait_idle(page, after=before)
    page.wait_for_function(CHARTS_DRAWN, timeout=30_000)
    wait_settled(page)


@pytest.mark.parametrize("info", PAGES, ids=[info.url_path for info in PAGES])
def test_every_section_reads_on_a_tablet(screen, info):
    """Each section of the page's row, opened in turn as a student does (the first is the page's own test), reads
    as well; the page is left on its first section."""
    name, page = screen
    go_to(page, info.url_path)
    sections = page.locator(SECTIONS).evaluate_all("buttons => buttons.map((b) => b.innerText.trim())")
    for index, section in enumerate(sections[1:], start=1):
        open_section_at(page, index)
        try:
            assert_reads_well(page, name)
        except AssertionError as error:
            raise AssertionError(f"{info.url_path}, section {section!r}: {error}") from error
    if len(sections) > 1:
        open_section_at(page, 0)
