"""Browser-side timings against a real `streamlit run app.py`, in headless Chromium.

    python bench/browser.py [--changes 9]

Prints, per page: the time from the server answering its health check (first
page) or from navigation (later pages) to the first chart drawn, and the median
and worst time from a slider key press to the rerun finishing with its charts
redrawn, over every slider on the page (each nudged right and left in turn).
Markdown table; ``--detail`` adds a row per slider.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import sync_playwright
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.e2e.conftest import CHROMIUM_ARGS, IDLE, _chromium_path, _free_port  # noqa: E402
from ui.pages_index import PAGES  # noqa: E402

# Resolves after the browser has painted twice: the charts of the finished run are on screen.
AFTER_PAINT = "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"


class RunWatcher:
    """Counts the script_finished messages the server sends to the page (its websocket)."""

    def __init__(self, page):
        self.finished = 0
        page.on("websocket", lambda socket: socket.on("framereceived", self._on_frame))

    def _on_frame(self, payload) -> None:
        if isinstance(payload, bytes):
            message = ForwardMsg()
            message.ParseFromString(payload)
            if message.WhichOneof("type") == "script_finished":
                self.finished += 1


def url_path(path: str) -> str:
    """A page's address from its script, ``pages/<name>/page.py`` -> ``<name>`` (Home: the root)."""
    name = Path(path).parent.name
    return "" if name == "home" else name


def time_changes(page, watcher: RunWatcher, changes: int) -> dict[str, list[float]]:
    """Nudge every slider on the page right and left in turn; timings by slider label.

    A nudge that changes nothing (a slider already at its end) sends no rerun
    and is not timed.
    """
    sliders = page.locator("[data-testid=stSlider]")
    timings: dict[str, list[float]] = {}
    for index in range(sliders.count()):
        widget = sliders.nth(index)
        label = widget.locator("label").first.inner_text().strip() or f"slider {index}"
        handle = widget.locator("input[type=range]")
        for i in range(changes):
            page.wait_for_selector(IDLE)
            before = watcher.finished
            handle.focus()
            start = time.perf_counter()
            page.keyboard.press("ArrowRight" if i % 2 == 0 else "ArrowLeft")
            while watcher.finished == before and time.perf_counter() - start < 5:
                page.wait_for_timeout(2)
            if watcher.finished == before:
                continue
            page.evaluate(AFTER_PAINT)
            timings.setdefault(label, []).append((time.perf_counter() - start) * 1000)
    return timings


def wait_healthy(port: int) -> None:
    for _ in range(600):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("the server did not start")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--changes", type=int, default=4, help="nudges per slider")
    parser.add_argument("--detail", action="store_true", help="one row per slider as well")
    args = parser.parse_args()
    port = _free_port()
    server = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
                               "--server.headless", "true"], cwd=ROOT, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    wait_healthy(port)
    started = time.perf_counter()
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=_chromium_path(), headless=True, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            watcher = RunWatcher(page)
            print("| page | first chart (s) | sliders | slider change -> redrawn, median (ms) | max (ms) |")
            print("|---|---:|---:|---:|---:|")
            for i, info in enumerate(PAGES):
                if i:
                    started = time.perf_counter()
                page.goto(f"http://127.0.0.1:{port}/{url_path(info.path)}")
                page.wait_for_selector(IDLE, timeout=60_000)
                has_chart = page.locator(".js-plotly-plot, [data-testid=stGraphVizChart] svg")
                has_chart.first.wait_for(timeout=60_000)
                first = time.perf_counter() - started
                by_slider = time_changes(page, watcher, args.changes)
                timings = [t for values in by_slider.values() for t in values]
                median = f"{statistics.median(timings):.0f}" if timings else "n/a"
                worst = f"{max(timings):.0f}" if timings else "n/a"
                print(f"| {info.title} | {first:.2f} | {len(by_slider)} | {median} | {worst} |")
                if args.detail:
                    for label, values in by_slider.items():
                        print(f"|   {label} | | | {statistics.median(values):.0f} | {max(values):.0f} |")
            browser.close()
    finally:
        server.terminate()


if __name__ == "__main__":
    main()
