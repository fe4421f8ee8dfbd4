"""What a browser redraw costs by parts, as multiples of the floor: controls, then each changed chart.

    python bench/anatomy.py [--nudges 10] [--runs 2]

``bench/anatomy_page.py`` (no model, no computation) is served beside the floor page
(``bench/floor_page.py``) and opened with growing parts: its slider alone with a chart drawn the app's
way, then the Self-attention page's controls, then 1, 2 and 3 changed 12 x 16 heatmaps, and the 3 as
panels of one figure. Its slider and the floor's are nudged in turn, timed as ``bench/browser.py``
times a control. Prints Markdown: one row per part, the ratio of medians in each run.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.browser import (  # noqa: E402
    FIRST_CHART,
    FLOOR_SCRIPT,
    SETTLED,
    Floor,
    change_control,
    new_watched_page,
    stop_on_sigterm,
)
from bench.controls import Control  # noqa: E402
from testing.server import CHROMIUM_ARGS, chromium_path, start  # noqa: E402

PARTS = (  # label, URL query
    ("slider, 1 chart drawn in place", "charts=1"),
    ("slider and the Self-attention page's controls, no chart", "controls=1&charts=0"),
    ("... and 1 changed chart", "controls=1&charts=1"),
    ("... and 2 changed charts", "controls=1&charts=2"),
    ("... and 3 changed charts", "controls=1&charts=3"),
    ("... and the 3 as panels of one figure", "controls=1&charts=3&panels=1"),
)


def part_ratio(browser, url: str, floor: Floor, nudges: int) -> float:
    """The median redraw of the page at ``url`` (its slider nudged) over the median of the floor's, in turn."""
    page = new_watched_page(browser)
    page.goto(url)
    page.wait_for_function(FIRST_CHART, timeout=60_000)
    page.wait_for_function(SETTLED, timeout=60_000)
    slider = Control("stSlider", "slider", "floor", 0)
    redraws, floors = [], []
    for nudge in range(nudges):
        redraws.append(change_control(page, slider, nudge))
        floors.append(floor.nudge())
    page.context.close()
    return statistics.median(t for t in redraws if t) / statistics.median(t for t in floors if t)


def main() -> None:
    stop_on_sigterm()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nudges", type=int, default=10)
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    servers = [start(FLOOR_SCRIPT), start("bench/anatomy_page.py")]
    try:
        floor_port, port = (server.wait_healthy().port for server in servers)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS)
            floor = Floor(browser, f"http://127.0.0.1:{floor_port}/")
            ratios: dict[str, list[float]] = {label: [] for label, _ in PARTS}
            for _ in range(args.runs):  # every part once per run, so a slow minute touches every part
                for label, query in PARTS:
                    ratios[label].append(part_ratio(browser, f"http://127.0.0.1:{port}/?{query}", floor, args.nudges))
            browser.close()
    finally:
        for server in servers:
            server.stop()
    print("| page part | ratio to the floor, each run |")
    print("|---|---:|")
    for label, values in ratios.items():
        print(f"| {label} | {' / '.join(f'{value:.2f}' for value in values)} |")


if __name__ == "__main__":
    main()
