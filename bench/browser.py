"""Browser-side timings against a real `streamlit run app.py`, in headless Chromium.

    python bench/browser.py [--changes 9]

Prints, per page: the time from the server answering its health check (first
page) or from navigation (later pages) to the first chart drawn, and the median time from a slider key press to the rerun
finishing with its charts redrawn (the first slider on the page, nudged right
and left in turn). Markdown table.
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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.e2e.conftest import CHROMIUM_ARGS, IDLE, _chromium_path, _free_port  # noqa: E402
from ui.pages_index import PAGES  # noqa: E402

# Record when each script run finishes, in the page's clock.
WATCH_RUNS = """() => {
  window.__finished = [];
  const app = document.querySelector('[data-testid=stApp]');
  new MutationObserver(() => {
    if (app.getAttribute('data-test-script-state') === 'notRunning') {
      requestAnimationFrame(() => window.__finished.push(performance.now()));
    }
  }).observe(app, {attributes: true, attributeFilter: ['data-test-script-state']});
}"""


def url_path(path: str) -> str:
    name = Path(path).stem
    return "" if name == "home" else name


def time_changes(page, changes: int) -> list[float]:
    sliders = page.locator("[data-testid=stSlider] input[type=range]")
    if sliders.count() == 0:
        return []
    page.evaluate(WATCH_RUNS)
    slider, timings = sliders.first, []
    for i in range(changes):
        before = page.evaluate("window.__finished.length")
        slider.focus()
        start = page.evaluate("performance.now()")
        page.keyboard.press("ArrowRight" if i % 2 == 0 else "ArrowLeft")
        page.wait_for_function(f"window.__finished.length > {before}", timeout=30_000)
        timings.append(page.evaluate("window.__finished[window.__finished.length - 1]") - start)
        page.wait_for_selector(IDLE)
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
    parser.add_argument("--changes", type=int, default=9)
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
            print("| page | first chart (s) | slider change -> redrawn, median (ms) | max (ms) |")
            print("|---|---:|---:|---:|")
            for i, info in enumerate(PAGES):
                if i:
                    started = time.perf_counter()
                page.goto(f"http://127.0.0.1:{port}/{url_path(info.path)}")
                page.wait_for_selector(IDLE, timeout=60_000)
                has_chart = page.locator(".js-plotly-plot, [data-testid=stGraphVizChart] svg")
                has_chart.first.wait_for(timeout=60_000)
                first = time.perf_counter() - started
                timings = time_changes(page, args.changes)
                median = f"{statistics.median(timings):.0f}" if timings else "n/a"
                worst = f"{max(timings):.0f}" if timings else "n/a"
                print(f"| {info.title} | {first:.2f} | {median} | {worst} |")
            browser.close()
    finally:
        server.terminate()


if __name__ == "__main__":
    main()
