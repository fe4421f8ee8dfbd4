"""The all-heads overview at its design size: 6 layers x 8 heads x 64 tokens.

    python bench/overview.py [--section SECTION]

Opens the Multi-head attention page through a shared link with those settings
in headless Chromium and reports the chart data of the overview figure and the
time from navigation to the overview drawn on screen (median of 5 loads; the
model and caches are warm after the first). ``--section`` names the page's tab
holding the overview, if the page has tabs.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlencode

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.browser import AFTER_PAINT, wait_healthy  # noqa: E402
from tests.e2e.conftest import CHROMIUM_ARGS, IDLE, _chromium_path, _free_port  # noqa: E402

TEXT = " ".join(f"w{i}" for i in range(64))
TITLE = "6 layers × 8 heads"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--section", default=None)
    args = parser.parse_args()
    params = {"layers": 6, "heads": 8, "text": TEXT}
    if args.section:
        params["section"] = args.section
    port = _free_port()
    server = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port)],
                              cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_healthy(port)
        url = f"http://127.0.0.1:{port}/multi_head?{urlencode(params)}"
        sizes, timings = [], []
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=_chromium_path(), headless=True, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1400})
            page.on("websocket", lambda socket: socket.on(
                "framereceived", lambda payload: sizes.append(len(payload)) if TITLE.encode() in payload else None))
            for _ in range(6):
                start = time.perf_counter()
                page.goto(url)
                page.locator(".js-plotly-plot", has_text=TITLE).first.wait_for(timeout=60_000)
                page.wait_for_selector(IDLE, timeout=60_000)
                page.evaluate(AFTER_PAINT)
                timings.append(time.perf_counter() - start)
            browser.close()
        print("| overview | message (KB) | navigation -> drawn, median of 5 warm loads (s) |")
        print("|---|---:|---:|")
        print(f"| 6 layers × 8 heads × 64 tokens | {max(sizes) / 1024:.0f} | {statistics.median(timings[1:]):.2f} |")
    finally:
        server.terminate()


if __name__ == "__main__":
    main()
