"""Screenshot of a page in headless Chromium: python bench/screenshot.py URL OUT.png [width] [height]."""

import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from testing.server import CHROMIUM_ARGS, chromium_path


def main(url: str, out: str, width: int = 1400, height: int = 1000) -> None:
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": width, "height": height})
        page.goto(url)
        page.wait_for_selector("[data-testid=stApp][data-test-script-state=notRunning]", timeout=60_000)
        page.wait_for_timeout(2500)
        page.screenshot(path=out, full_page=True)
        browser.close()


if __name__ == "__main__":
    sizes = [int(arg) for arg in sys.argv[3:5]]
    main(sys.argv[1], sys.argv[2], *sizes)
