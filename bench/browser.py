"""Browser-side timings against a real `streamlit run app.py`, in headless Chromium, as multiples of a floor.

    python bench/browser.py [--changes 4] [--navigations 3] [--pages masks positional_encoding]
                            [--controls optimiser seed]

A browser rerun can never beat a bare Streamlit page with one slider and one small
heatmap (``bench/floor_page.py``, served by its own ``streamlit run`` beside the app):
that is the floor. On each page's default tab, every visible, enabled control (slider, select
slider, selectbox, radio, segmented control or pills, toggle or checkbox, multiselect,
number input) is changed ``--changes`` times, there and back, and each change is
followed by a nudge of the floor page's slider in the same browser, so both are timed
under the same load. A redraw is timed inside the page, from the input event to the
last ``script_finished`` message of the rerun on the websocket, processed by the page,
plus two painted frames (the charts of the finished run are on screen).

Navigation: after its controls, each page is reached ``--navigations`` times from the
sidebar (a click on its link after a visit to another page; plotly.js stays loaded), each
followed by the same on the floor app (its second page, then back to the floor page), and
then as many times by a full page load of its address (a shared link opened, plotly.js in
the browser's cache), each followed by a full load of the floor page. The server's models
are built by then. A navigation is timed from the click (the load's start) to the moment
the page is idle after its last script run with every chart drawn (a Plotly plot for each
chart element, the app's drawn in place and the floor's ``st.plotly_chart`` alike; an SVG for
each Graphviz chart).

Prints Markdown: one row per page and control (median redraw divided by the median of
that page's interleaved floor nudges, and the median in ms), then one row per page:
the time to its first chart (from the server answering its health check for the first
page, from navigation for the others; "no chart" for a page without one), the floor, the
median and worst ratio over its controls, and its median navigation and load over the
floor's in between. ``--controls`` times only the controls of those labels (``--navigations 0`` then skips
the navigations and loads too): a quick look at a few controls, under the same rules.
"""

from __future__ import annotations

import argparse
import signal
import sys
import time
from pathlib import Path

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import sync_playwright
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.browser_report import PRESENTATION_LABEL, PageResult, print_budget, print_controls, print_summary  # noqa: E402
from bench.controls import CHANGES, CONTROLS_JS, Change, Control  # noqa: E402
from testing.websocket import WEBSOCKET_JS  # noqa: E402
from testing.server import CHROMIUM_ARGS, IDLE, chromium_path, start  # noqa: E402
from ui.pages_index import PAGES  # noqa: E402

FLOOR_SCRIPT = "bench/floor_page.py"
SCRIPT_FINISHED_FIELD = ForwardMsg.DESCRIPTOR.fields_by_name["script_finished"].number
QUIET_MS = 200  # a rerun is over when no further script_finished came for this long
CHANGE_TIMEOUT_MS = 15_000

# Installed in every page before Streamlit loads. It marks the first input event after
# ``arm()``, watches the websocket for ForwardMsg frames carrying ``script_finished``
# (a top-level protobuf field scan), and for each waits until the page shows the run
# as finished and then two animation frames, recording when that paint happened.
WATCHER_JS = (ROOT / "bench" / "redraw_watcher.js").read_text() % {
    "field": SCRIPT_FINISHED_FIELD,
    "idle": IDLE,
    "websocket": WEBSOCKET_JS,
}

# Resolves when the armed change has been redrawn and nothing else arrived for QUIET_MS.
REDRAWN = (
    "() => { const b = window.__redraw; return b.start !== null && b.paints > 0 && b.paints === b.finishes"
    f" && performance.now() - b.lastPaint > {QUIET_MS} && document.querySelector({IDLE!r}) !== null; }}"
)

CHART = ".js-plotly-plot, [data-testid=stGraphVizChart] svg"
# Resolves once a chart is drawn, or once a run has finished and the page then stayed idle for 5 s
# without one (a page with no chart).
FIRST_CHART = (
    f"() => document.querySelector({CHART!r}) !== null || (window.__redraw.runs > 0"
    f" && document.querySelector({IDLE!r}) !== null && performance.now() - window.__redraw.lastRun > 5000)"
)
# Resolves once the page is idle and no run has finished for 1 s: every control of the page is drawn.
SETTLED = (
    f"() => window.__redraw.runs > 0 && document.querySelector({IDLE!r}) !== null"
    " && performance.now() - window.__redraw.lastRun > 1000"
)

# Resolves once the page has loaded: idle, every chart drawn, and no run finished for 1 s.
LOADED = (
    f"() => window.__redraw.readyAt !== null && window.__redraw.runs > window.__redraw.loadRuns"
    f" && document.querySelector({IDLE!r}) !== null"
    " && performance.now() - Math.max(window.__redraw.lastRun, window.__redraw.readyAt) > 1000"
)
SIDEBAR_LINK = "[data-testid=stSidebarNav] a:has-text({title!r})"


def timed_load(page, url: str) -> float:
    """Milliseconds from the start of a full page load of ``url`` to the page idle with every chart drawn."""
    page.goto(url)
    page.wait_for_function(LOADED, timeout=60_000)
    return page.evaluate("() => window.__redraw.loaded()")


def timed_navigation(page, away: str, title: str) -> float:
    """Milliseconds from a click on the sidebar's link to page ``title`` (after a visit to page ``away``) to
    that page idle with every chart drawn: a navigation inside the app, which keeps plotly.js loaded."""
    for name in (away, title):
        page.evaluate("() => { window.__redraw.watchLoad(); window.__redraw.arm(); }")
        page.locator(SIDEBAR_LINK.format(title=name)).first.click()
        page.wait_for_function(LOADED, timeout=60_000)
    return page.evaluate("() => window.__redraw.loaded() - window.__redraw.start")


def timed_change(page, act: Change) -> float | None:
    """Milliseconds from the input event ``act`` makes to its rerun's charts painted (None: no rerun)."""
    page.evaluate("() => window.__redraw.arm()")
    act()
    try:
        page.wait_for_function(REDRAWN, timeout=CHANGE_TIMEOUT_MS)
    except PlaywrightTimeout:
        return None
    finally:
        page.evaluate("() => { window.__redraw.armed = false; }")
    return page.evaluate("() => window.__redraw.lastPaint - window.__redraw.start")


def change_control(page, control: Control, nudge: int) -> float | None:
    """Change ``control`` once (nudge ``nudge``) and time its redraw; None if it could not be changed
    (gone from the page, disabled, nothing else to pick, or no rerun followed)."""
    page.wait_for_selector(IDLE)
    widget = control.locate(page)
    if widget is None:
        return None
    try:
        act = CHANGES[control.kind](page, widget, control, nudge)
        elapsed = None if act is None else timed_change(page, act)
    except PlaywrightError as error:  # e.g. a dropdown that did not open
        print(f"<!-- {control.label} ({control.kind}): not changed: {str(error).splitlines()[0]} -->", file=sys.stderr)
        elapsed = None
    if control.kind in ("select", "multiselect"):
        page.keyboard.press("Escape")  # a dropdown left open would cover the page
    return elapsed


class Floor:
    """The floor page in its own browser context: one slider nudged right and left in turn."""

    def __init__(self, browser, url: str):
        self.url = url
        self.page = new_watched_page(browser)
        self.page.goto(url)
        self.page.wait_for_selector(IDLE, timeout=60_000)
        self.page.locator(".js-plotly-plot").first.wait_for(timeout=60_000)
        self.control = Control("stSlider", "slider", "floor", 0)
        self.nudges = 0

    def nudge(self) -> float | None:
        """Nudge the floor's slider once (right, then left); its redraw time in ms."""
        elapsed = change_control(self.page, self.control, self.nudges)
        self.nudges += 1
        return elapsed

    def load(self) -> float:
        """Load the floor page afresh; its load time in ms (see ``timed_load``)."""
        return timed_load(self.page, self.url)

    def navigate(self) -> float:
        """Go to the floor app's other page and back to the floor page; the way back in ms."""
        return timed_navigation(self.page, "elsewhere", "floor")


def new_watched_page(browser):
    """A page in a fresh browser context, with the redraw watcher installed before any script runs."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.add_init_script(WATCHER_JS)
    return context.new_page()


def steady_controls(page, every_ms: int = 1000, reads: int = 20) -> list[dict]:
    """The page's controls (``CONTROLS_JS``) once two reads ``every_ms`` apart find the same ones: a page that
    loads a model after its first run (Generate, on a busy machine) shows its controls only then."""
    found = page.evaluate(CONTROLS_JS)
    for _ in range(reads):
        page.wait_for_timeout(every_ms)
        again = page.evaluate(CONTROLS_JS)
        if again == found:
            break
        found = again
    return found


def time_controls(
    page, floor: Floor, changes: int, labels: list[str] | None = None
) -> tuple[dict[str, list[float]], list[float]]:
    """Change every visible, enabled control (or only those labelled as in ``labels``) ``changes`` times, each
    followed by a floor nudge; timings by control."""
    # Presentation mode last: it folds settings away, and a control it hid could not be changed after it.
    controls = sorted(
        (Control(**found) for found in steady_controls(page) if not labels or found["label"] in labels),
        key=lambda control: control.label == PRESENTATION_LABEL,
    )
    by_control: dict[str, list[float]] = {}
    floor_times: list[float] = []
    for control in controls:
        name = f"{control.label or control.testid} ({control.kind})"
        for nudge in range(changes):
            elapsed = change_control(page, control, nudge)
            if elapsed is not None:
                by_control.setdefault(name, []).append(elapsed)
            floor_elapsed = floor.nudge()
            if floor_elapsed is not None:
                floor_times.append(floor_elapsed)
    return by_control, floor_times


def url_path(path: str) -> str:
    """A page's address from its script, ``pages/<name>/page.py`` -> ``<name>`` (Home: the root)."""
    name = Path(path).parent.name
    return "" if name == "home" else name


def stop_on_sigterm() -> None:
    """Turn SIGTERM (e.g. from ``timeout``) into SystemExit, so that the servers started here are stopped."""
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))


def main() -> None:
    stop_on_sigterm()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--changes", type=int, default=4, help="changes per control (there and back: even)")
    parser.add_argument(
        "--navigations",
        type=int,
        default=3,
        help="in-app navigations to each page and full loads of it (and as many of the floor's)",
    )
    parser.add_argument("--pages", nargs="*", help="page addresses to time (default: every page)")
    parser.add_argument("--controls", nargs="*", help="the labels of the controls to time (default: every control)")
    args = parser.parse_args()
    args.changes += args.changes % 2  # there and back: every control ends where it started
    pages = [
        info
        for info in PAGES
        if not args.pages or url_path(info.path) in args.pages or (url_path(info.path) == "" and "home" in args.pages)
    ]
    servers = []
    results: list[PageResult] = []
    try:
        servers = [start(FLOOR_SCRIPT), start("app.py")]
        floor_port, port = (server.wait_healthy().port for server in servers)
        started = time.perf_counter()
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS)
            page = new_watched_page(browser)
            floor = None
            print("| page | control (kind) | ratio to floor | median (ms) | changes |")
            print("|---|---|---:|---:|---:|", flush=True)
            for i, info in enumerate(pages):
                if i:
                    started = time.perf_counter()
                page.goto(f"http://127.0.0.1:{port}/{url_path(info.path)}")
                page.wait_for_function(FIRST_CHART, timeout=60_000)
                charted = page.locator(CHART).count() > 0
                first = time.perf_counter() - started if charted else None
                page.wait_for_function(SETTLED, timeout=60_000)
                floor = floor or Floor(browser, f"http://127.0.0.1:{floor_port}/")
                by_control, floor_times = time_controls(page, floor, args.changes, args.controls)
                result = PageResult(info.title, first, by_control, floor_times)
                away = PAGES[1].title if info is PAGES[0] else PAGES[0].title
                for _ in range(args.navigations):
                    result.navigations.append(timed_navigation(page, away, info.title))
                    result.floor_navigations.append(floor.navigate())
                for _ in range(args.navigations):
                    result.loads.append(timed_load(page, f"http://127.0.0.1:{port}/{url_path(info.path)}"))
                    result.floor_loads.append(floor.load())
                results.append(result)
                if floor_times:
                    print_controls(result)
            print_summary(results)
            print_budget(results)
            browser.close()
    finally:
        for server in servers:
            server.stop()


if __name__ == "__main__":
    main()
