"""In a real browser with no internet (a classroom may have none): every page draws from the local server alone.

Every request the browser makes is routed through a filter that lets requests to the local server
through and records and aborts every other one (scripts, fonts, styles, images, telemetry from a
CDN or any other host). Each page of the navigation is opened and its charts are waited for: Plotly,
Graphviz, KaTeX and the fonts must all come from the server itself.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from tests.e2e.conftest import assert_no_exception, wait_idle
from ui.pages_index import PAGES

LOCAL_HOSTS = {"127.0.0.1", "localhost"}
NOT_NETWORK = {"data", "blob"}  # inline content, nothing leaves the machine
LOADING = "[data-testid=stSkeleton]"  # an element whose code (Plotly's, say) the browser is still loading
CHARTS = {
    "div.lab-chart": ".main-svg",  # a chart (ui/plotly_in_place.js): the drawing inside it
    "[data-testid=stGraphVizChart]": "svg",
}
# Every font the page's text needs and every image it shows has loaded (or failed): their requests were made
EVERYTHING_LOADED = "() => document.fonts.status === 'loaded' && [...document.images].every(image => image.complete)"


def is_local(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme in NOT_NETWORK or parts.hostname in LOCAL_HOSTS


def block_the_internet(context) -> list[str]:
    """Route every request of ``context``: local ones go through, the others are aborted and
    their URLs appended to the returned list."""
    attempted: list[str] = []

    def handle(route):
        if is_local(route.request.url):
            route.continue_()
        else:
            attempted.append(f"{route.request.resource_type} {route.request.url}")
            route.abort("internetdisconnected")

    context.route("**/*", handle)
    return attempted


def wait_until_drawn(page, timeout: float = 60_000) -> dict[str, int]:
    """Wait until every element of the page has loaded its code and every chart holds its drawing;
    returns how many charts of each kind the page has."""
    page.wait_for_function(
        "([loading, charts]) => document.querySelector(loading) === null && "
        "Object.entries(charts).every(([chart, drawing]) => "
        "[...document.querySelectorAll(chart)].every(el => el.querySelector(drawing) !== null))",
        arg=[LOADING, CHARTS],
        timeout=timeout,
    )
    return {chart: page.locator(chart).count() for chart in CHARTS}


def test_every_page_draws_without_the_internet(page, server_url):
    attempted = block_the_internet(page.context)
    drawn = dict.fromkeys(CHARTS, 0)
    for info in PAGES:
        page.goto(server_url if info.is_home else f"{server_url}/{info.url_path}")
        wait_idle(page, timeout=60_000)
        for chart, count in wait_until_drawn(page).items():
            drawn[chart] += count
        page.wait_for_function(EVERYTHING_LOADED, timeout=30_000)  # a lazy font or image has asked by now
        assert_no_exception(page)
    assert not attempted, "requests outside the local server:\n" + "\n".join(sorted(set(attempted)))
    assert all(drawn.values()), drawn  # Plotly and Graphviz both drew, from the server alone
