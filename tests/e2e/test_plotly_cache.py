"""In a real browser: plotly.js (4.8 MB) is fetched once; a new tab, or another full page load such as
a shared link opened, takes it from the browser's cache instead of the server (the server gzips it
anew for every request that reaches it).

The app serves it from its static folder (``ui.plotly_in_place``), a route that sends Last-Modified
and an ETag and no Cache-Control: browsers then keep the file fresh for a tenth of its age (the
heuristic freshness of RFC 9111, section 4.2.2), here the age of the installed plotly package. A
reload is not checked: Chromium may revalidate what a reloading page asks for while it loads, and this
route answers a revalidation with the whole file (in 3 of 11 runs of the browser tests, a reload fetched it).
"""

from __future__ import annotations

import contextlib
import time
from email.utils import parsedate_to_datetime
from pathlib import Path

from tests.e2e.conftest import CHROMIUM_ARGS, _chromium_path, wait_idle
from ui.plotly_in_place import PLOTLY_FOLDER, STATIC_NAME

DRAWN = "div.lab-chart .main-svg"


def plotly_js_responses(page) -> list[dict]:
    """Every response that brings plotly.js to ``page`` from now on: its headers and whether the
    browser's own cache answered it."""
    seen: list[dict] = []
    session = page.context.new_cdp_session(page)
    session.send("Network.enable")

    def record(event):
        response = event["response"]
        if response["url"].endswith(f"/{STATIC_NAME}"):
            seen.append({"cached": response.get("fromDiskCache", False) or response.get("fromMemoryCache", False),
                         "status": response["status"], "at": time.time(),
                         "headers": {name.lower(): value for name, value in response["headers"].items()}})

    session.on("Network.responseReceived", record)
    return seen


@contextlib.contextmanager
def browser_with_a_profile(browser, folder: Path):
    """A browser context with its profile, HTTP cache included, on disk in ``folder``, as a student's
    browser has (a test's usual context is off the record and keeps its cache in memory only)."""
    context = browser.browser_type.launch_persistent_context(
        folder, executable_path=_chromium_path(), headless=True, args=CHROMIUM_ARGS,
        viewport={"width": 1400, "height": 1000})
    try:
        yield context
    finally:
        context.close()


def open_page(page, url: str) -> None:
    page.goto(url)
    wait_idle(page, timeout=60_000)
    page.wait_for_selector(DRAWN, timeout=30_000)


def test_a_second_page_load_and_a_new_tab_take_plotly_js_from_the_browsers_cache(browser, server_url, tmp_path):
    installed = PLOTLY_FOLDER / "plotly.min.js"
    assert time.time() - installed.stat().st_mtime > 3600, \
        "plotly was installed less than an hour ago: the cache would keep its copy fresh for under 6 minutes"
    with browser_with_a_profile(browser, tmp_path / "profile") as context:
        page = context.new_page()
        responses = plotly_js_responses(page)
        open_page(page, f"{server_url}/masks")
        open_page(page, f"{server_url}/multi_head")  # a full page load, as from a shared link
        tab = context.new_page()
        from_tab = plotly_js_responses(tab)
        open_page(tab, f"{server_url}/positional_encoding")

    assert [response["cached"] for response in responses] == [False, True], responses  # fetched once, then reused
    assert [response["cached"] for response in from_tab] == [True], from_tab
    first = responses[0]["headers"]
    assert parsedate_to_datetime(first["last-modified"]).timestamp() == int(installed.stat().st_mtime)
    assert first["etag"] and "no-cache" not in first.get("cache-control", "")
