"""Resident memory of a real `streamlit run app.py` after a browser has opened every page.

    python bench/memory.py

Prints the server's RSS (MB) after start-up and after each page's first run at
default settings (models and caches built), as a Markdown table.
"""

from __future__ import annotations

import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.browser import url_path  # noqa: E402
from bench.processes import memory_mb  # noqa: E402
from testing.server import CHROMIUM_ARGS, IDLE, chromium_path, running  # noqa: E402
from ui.pages_index import PAGES  # noqa: E402


def main() -> None:
    with running("app.py") as server:
        print("| after | server RSS (MB) |")
        print("|---|---:|")
        print(f"| start-up | {memory_mb(server.pid):.0f} |")
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            for info in PAGES:
                page.goto(f"{server.url}/{url_path(info.path)}")
                page.wait_for_selector(IDLE, timeout=60_000)
                page.wait_for_timeout(1000)
                print(f"| {info.title} | {memory_mb(server.pid):.0f} |")
            browser.close()


if __name__ == "__main__":
    main()
