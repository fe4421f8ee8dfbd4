"""Opening the app in a compact window (a phone, a tablet) and moving between its pages as a reader does, for the
browser tests of phones, the projector and the figure standard."""

from __future__ import annotations

from tests.e2e.conftest import IDLE, wait_idle, wait_settled

# The page once the browser's report of a compact window has been answered: the classroom bar sits in the
# sidebar and no script run is pending.
COMPACT_LAID_OUT = f"""() => document.querySelector('[data-testid=stSidebar] .st-key-present') !== null
    && document.querySelector('{IDLE}') !== null && window.__labRuns.answered === window.__labRuns.requested"""
# Every chart element holds a drawn plot (the screen watcher, in .st-key-screen, and presentation mode's scroll to the
# open section, in .st-key-show_section, draw nothing).
CHARTS_DRAWN = """() => [...document.querySelectorAll('.stBidiComponent')]
    .filter((element) => !element.closest('.st-key-screen, .st-key-show_section'))
    .every((element) => element.querySelector('div.lab-chart .main-svg'))"""

# Click the sidebar's link to a page (by the last part of its address, "home" for the root) unless it is
# the page shown; true when it clicked.
GO_TO = """(name) => {
  const last = (href) => new URL(href).pathname.split('/').filter(Boolean).pop() || 'home';
  if (last(location.href) === name) return false;
  [...document.querySelectorAll('[data-testid=stSidebarNav] a')].find((a) => last(a.href) === name).click();
  return true;
}"""

# The row of a page's sections (a segmented control).
SECTIONS = ".st-key-section [data-testid=stButtonGroup] button"


def open_compact(page, url: str) -> None:
    """Open ``url`` and wait until it is laid out for the compact window and its charts are drawn."""
    page.goto(url)
    wait_idle(page, timeout=90_000)
    page.wait_for_function(COMPACT_LAID_OUT, timeout=60_000)
    page.wait_for_function(CHARTS_DRAWN, timeout=30_000)
    wait_settled(page)


def go_to(page, url_path: str) -> None:
    """Move to another page by its link in the (closed) sidebar, in the same session, as a reader does, and
    wait until it has run and its charts are drawn."""
    before = page.evaluate("() => window.__labRuns.requested")
    if page.evaluate(GO_TO, url_path):
        wait_idle(page, timeout=90_000, after=before)
    page.wait_for_function(CHARTS_DRAWN, timeout=30_000)
    wait_settled(page)
