"""In a real browser: plotly.js (4.8 MB) is fetched once, then a reload or a new tab takes it from the
browser's cache instead of the server (a classroom reloads often, and the server gzips it anew for
every request).

The app serves it from its static folder (``ui.plotly_in_place``), a route that sends Last-Modified
and an ETag and no Cache-Control: browsers then keep the file fresh for a tenth of its age (the
heuristic freshness of RFC 9111, section 4.2.2), here the age of the installed plotly package.
"""

from __future__ import annotations

import time
from email.utils import parsedate_to_datetime

from tests.e2e.conftest import wait_idle
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
                         "headers": {name.lower(): value for name, value in response["headers"].items()}})

    session.on("Network.responseReceived", record)
    return seen


def test_a_reload_and_a_new_tab_take_plotly_js_from_the_browsers_cache(page, server_url):
    installed = PLOTLY_FOLDER / "plotly.min.js"
    assert time.time() - installed.stat().st_mtime > 3600, \
        "plotly was installed less than an hour ago: the cache would keep its copy fresh for under 6 minutes"
    responses = plotly_js_responses(page)
    page.goto(f"{server_url}/masks")
    wait_idle(page, timeout=60_000)
    page.wait_for_selector(DRAWN, timeout=30_000)
    page.reload()
    wait_idle(page, timeout=60_000)
    page.wait_for_selector(DRAWN, timeout=30_000)
    tab = page.context.new_page()
    from_tab = plotly_js_responses(tab)
    tab.goto(f"{server_url}/positional_encoding")
    wait_idle(tab, timeout=60_000)
    tab.wait_for_selector(DRAWN, timeout=30_000)

    assert [response["cached"] for response in responses] == [False, True]  # fetched once, then reused
    assert [response["cached"] for response in from_tab] == [True]
    first = responses[0]["headers"]
    assert parsedate_to_datetime(first["last-modified"]).timestamp() == int(installed.stat().st_mtime)
    assert first["etag"] and "no-cache" not in first.get("cache-control", "")
