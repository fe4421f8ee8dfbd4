"""One real `streamlit run app.py` server and one headless Chromium for all browser tests.

Every test here carries the ``e2e`` marker (``pytest -m "not e2e"`` leaves them out). Pages are opened
with ``new_page`` (the ``page`` fixture does), which counts the page's script runs as its websocket
carries them, so that ``wait_idle`` can wait until every run the page asked for has finished.
"""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path
from urllib.parse import urlencode

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from testing.server import CHROMIUM_ARGS, IDLE, chromium_path, running
from testing.websocket import WEBSOCKET_JS
from lessons.model_labels import RANDOM

HERE = Path(__file__).resolve().parent
# Multi-head attention opens on a pretrained model; a test of its mechanics, or of a flow through the page that
# changes the random stack's settings, opens it on the random model
RANDOM_MULTI_HEAD = "multi_head?" + urlencode({"model": RANDOM})

_FINISHED = ForwardMsg.DESCRIPTOR.fields_by_name["script_finished"]
# Installed before the page's own scripts: every rerun the page sends (BackMsg.rerun_script) and every
# run the server reports finished (ForwardMsg.script_finished, not counting a run cut short by a newer
# request) is counted; ``answered`` is how many requests had been sent when the last run finished.
RUN_WATCHER = """
(() => {
  const RERUN = %(rerun)d, FINISHED = %(finished)d, CUT_SHORT = %(cut_short)d;
  const runs = window.__labRuns = {requested: 0, answered: 0};
%(websocket)s
  tapWebSockets((bytes) => {
    const status = topField(bytes, FINISHED);
    if (status !== undefined && status !== CUT_SHORT) runs.answered = runs.requested;
  }, (bytes) => {
    if (topField(bytes, RERUN) !== undefined) runs.requested += 1;
  });
})();
""" % {
    "rerun": BackMsg.DESCRIPTOR.fields_by_name["rerun_script"].number,
    "finished": _FINISHED.number,
    "cut_short": _FINISHED.enum_type.values_by_name["FINISHED_EARLY_FOR_RERUN"].number,
    "websocket": WEBSOCKET_JS,
}
RUNS_DONE = (
    "([idle, before]) => { const runs = window.__labRuns; return runs.requested > before"
    " && runs.answered === runs.requested && document.querySelector(idle) !== null; }"
)
# True once no finite animation runs and no plot waits to be resized, three frames in a row
SETTLED = """() => {
  const busy = document.getAnimations().some((animation) => animation.playState !== "finished"
      && animation.playState !== "idle" && animation.effect?.getTiming().iterations !== Infinity)
    || [...document.querySelectorAll("div.lab-chart")].some((plot) => plot._resolveResize);
  window.__labCalmFrames = busy ? 0 : (window.__labCalmFrames || 0) + 1;
  return window.__labCalmFrames >= 3;
}"""


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    """Mark every test in this folder ``e2e`` (before ``-m`` selects)."""
    for item in items:
        if HERE in Path(item.path).parents:
            item.add_marker(pytest.mark.e2e)


def _unavailable(reason: str):
    if os.environ.get("CI"):
        pytest.fail(f"browser tests must run in CI: {reason}")
    pytest.skip(reason)


@contextlib.contextmanager
def streamlit_server(port: int | None = None, base_path: str = ""):
    """A fresh `streamlit run app.py` on ``port`` (default: a free local port), under the URL path
    ``base_path`` (as a host such as Community Cloud may serve it); yields its URL.

    Giving the port of a server that has just stopped restarts the app at the same address.
    """
    with running("app.py", port, base_path) as server:
        yield server.url


@pytest.fixture(scope="session")
def server_url():
    with streamlit_server() as url:
        yield url


@pytest.fixture(scope="session")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("playwright is not installed")
    with sync_playwright() as playwright:
        try:
            browser = playwright.chromium.launch(executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS)
        except Exception as error:  # no browser on this machine
            _unavailable(f"no Chromium could be launched: {error}")
        yield browser
        browser.close()


def new_page(browser, **options):
    """A page in a browser context of its own (``options`` go to ``new_context``), its script runs counted."""
    context = browser.new_context(**{"viewport": {"width": 1400, "height": 1000}, **options})
    context.add_init_script(RUN_WATCHER)
    return context.new_page()


@pytest.fixture
def page(browser):
    page = new_page(browser)
    yield page
    page.context.close()


def requested_runs(page) -> int:
    """How many script runs the page has asked its server for since it was loaded."""
    count = page.evaluate("() => window.__labRuns?.requested")
    if count is None:
        raise AssertionError("the page was not opened with new_page(), so its script runs are not counted")
    return count


def wait_idle(page, timeout: float = 90_000, after: int = 0) -> None:
    """Wait until the page has asked for more than ``after`` script runs (see ``requested_runs``), every run
    it asked for has finished and the page shows it idle.

    A widget that sends its change only later (a text box on Enter, say) is waited for by its effect
    (``wait_for_chart``), or by ``after``.
    """
    requested_runs(page)
    page.wait_for_function(RUNS_DONE, arg=[IDLE, after], timeout=timeout)


def wait_settled(page, timeout: float = 10_000) -> None:
    """Wait until the page's animations (the sidebar sliding, say) have ended and no plot waits to be resized."""
    page.evaluate("() => { window.__labCalmFrames = 0; }")
    page.wait_for_function(SETTLED, timeout=timeout, polling="raf")


def assert_no_exception(page) -> None:
    assert page.locator("[data-testid=stException]").count() == 0, page.locator(
        "[data-testid=stException]"
    ).first.inner_text()


# The drawn titles' text, a title of several lines (the browser wraps a long one) read with a space between them
DRAWN_TITLES = """() => [...document.querySelectorAll('.js-plotly-plot .gtitle')].map((title) => {
  const lines = [...title.querySelectorAll('tspan.line')];
  return (lines.length ? lines.map((line) => line.textContent).join(' ') : title.textContent).replace(/\\s+/g, ' ');
})"""


def wait_for_chart(page, title: str, timeout: float = 15_000) -> None:
    """Wait until a Plotly chart whose title contains ``title`` is drawn (on one line or across lines)."""
    page.wait_for_function(
        f"(title) => ({DRAWN_TITLES})().some((text) => text.includes(title))", arg=title, timeout=timeout
    )


# The summary of the closed expander that holds an element (a page's settings fold on every screen), or null
FOLDED_AROUND = """(element) => {
  const folded = element.closest('details:not([open])');
  return folded ? folded.querySelector(':scope > summary') : null;
}"""


def unfold(element) -> None:
    """Open the closed expander that holds ``element`` (a locator), as a reader clicks its summary; nothing when
    the element is not folded away."""
    summary = element.evaluate_handle(FOLDED_AROUND).as_element()
    if summary is not None:
        summary.click()
        element.wait_for(state="visible")


def open_options(page, combobox) -> None:
    """Open the list of the select box whose input is ``combobox`` (a locator), as a reader does: open the
    folded settings around it, click it, and press the down arrow when the click only moved the focus (a click
    while its expander still opens, or while the page reruns, opens no list)."""
    unfold(combobox)
    combobox.click()
    listed = page.get_by_role("option").first
    try:
        listed.wait_for(timeout=3_000)
    except PlaywrightTimeout:
        combobox.focus()
        page.keyboard.press("ArrowDown")
        listed.wait_for(timeout=10_000)


def choose(page, combobox, option: str | re.Pattern) -> None:
    """Pick ``option`` (its whole name, or a pattern) in the select box whose input is ``combobox``."""
    open_options(page, combobox)
    page.get_by_role("option", name=option, exact=True).click()


def nudge_slider(page, label: str, key: str = "ArrowRight"):
    """Focus the slider whose label starts with ``label`` and press an arrow key; returns the slider handle.
    (Starts with: "heads" is the heads slider, not "layer (for the heads, ...)".)"""
    label_starts = page.locator("[data-testid=stWidgetLabel]", has_text=re.compile("^" + re.escape(label)))
    slider = page.locator("[data-testid=stSlider]").filter(has=label_starts).locator("input[type=range]").first
    unfold(slider)
    slider.focus()
    slider.press(key)
    return slider


def open_section(page, name: str) -> None:
    """Click the section ``name`` in the row of a page's sections (a segmented control)."""
    page.locator("[data-testid=stButtonGroup] button").filter(
        has_text=re.compile(rf"^\s*{re.escape(name)}\s*$")
    ).first.click()
