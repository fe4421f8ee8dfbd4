"""In a real browser: plotly.js (4.8 MB) comes from the app's static folder, with the validators that
let a browser cache it (the server gzips it anew for every request that reaches it).

The app serves it from its static folder (``ui.plotly_in_place``), a route that sends Last-Modified
and an ETag and no Cache-Control: browsers then keep the file fresh for a tenth of its age (the
heuristic freshness of RFC 9111, section 4.2.2), here the age of the installed plotly package. Whether
a later page load takes it from the cache is the browser's choice, so it is measured
(docs/performance.md), not asserted: Chromium reused it in most runs, not in all.
"""

from __future__ import annotations

from email.utils import parsedate_to_datetime

from tests.e2e.conftest import wait_idle
from ui.plotly_in_place import PLOTLY_FOLDER, STATIC_NAME

DRAWN = "div.lab-chart .main-svg"


def test_plotly_js_comes_from_the_static_folder_with_validators(page, server_url):
    with page.expect_response(lambda response: "plotly" in response.url) as loading:
        page.goto(f"{server_url}/masks")
    wait_idle(page, timeout=60_000)
    page.wait_for_selector(DRAWN, timeout=30_000)
    response = loading.value
    headers = response.all_headers()
    installed = PLOTLY_FOLDER / "plotly.min.js"
    assert response.url == f"{server_url}/app/static/{STATIC_NAME}" and response.status == 200
    assert parsedate_to_datetime(headers["last-modified"]).timestamp() == int(installed.stat().st_mtime)
    assert headers["etag"] and not {"no-cache", "no-store"} & set(headers.get("cache-control", "").split(", "))
    assert response.body() == installed.read_bytes()  # the installed copy, as it is
