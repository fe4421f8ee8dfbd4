"""A browser with no internet (a classroom may have none): every request of a browser context is routed through a
filter that lets requests to the local server through and records and aborts every other one (scripts, fonts,
styles, images, telemetry from a CDN or any other host). The figure standard's walks (test_figure_standard.py) run
behind it: every section of every page, at each screen's size, draws from the local server alone, Plotly,
Graphviz, KaTeX and the fonts included."""

from __future__ import annotations

from urllib.parse import urlsplit

# Every element has loaded its code (no skeleton: Plotly's, say), every Graphviz diagram holds its drawing, every font
# the text needs and every image has loaded (or failed): what the page needs from anywhere has been asked for.
EVERYTHING_LOADED = """() => document.querySelector('[data-testid=stSkeleton]') === null
  && [...document.querySelectorAll('[data-testid=stGraphVizChart]')].every((chart) => chart.querySelector('svg'))
  && document.fonts.status === 'loaded' && [...document.images].every((image) => image.complete)"""
GRAPHVIZ_DRAWN = "[data-testid=stGraphVizChart] svg"
LOCAL_HOSTS = {"127.0.0.1", "localhost"}
NOT_NETWORK = {"data", "blob"}  # inline content, nothing leaves the machine


def is_local(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme in NOT_NETWORK or parts.hostname in LOCAL_HOSTS


def block_the_internet(context) -> list[str]:
    """Route every request of ``context``: local ones go through, the others are aborted and their URLs (with
    their resource types) appended to the returned list."""
    attempted: list[str] = []

    def handle(route):
        if is_local(route.request.url):
            route.continue_()
        else:
            attempted.append(f"{route.request.resource_type} {route.request.url}")
            route.abort("internetdisconnected")

    context.route("**/*", handle)
    return attempted
