"""Server-side rerun time and chart bytes per page, at default settings.

    python bench/rerun.py [--runs 15] [--param model="all-MiniLM-L6-v2 (pretrained, encoder-only (BERT-style))"]

For each page in the navigation: one warm-up run (models and caches built),
then ``runs`` reruns timed end to end through AppTest (app.py + the page script,
the same code path as a widget change). Chart bytes are the Plotly JSON a run
sends (the specs of all plotly charts on the page). Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from streamlit.testing.v1 import AppTest  # noqa: E402

from ui.pages_index import PAGES  # noqa: E402


def measure(path: str, runs: int, params: dict[str, str]) -> tuple[float, float, int, int]:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    if path != "pages/home/page.py":
        at.switch_page(path)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    if at.exception:
        raise RuntimeError(f"{path}: {at.exception[0].value}")
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        at.run()
        times.append((time.perf_counter() - start) * 1000)
    charts = at.get("plotly_chart")
    chart_bytes = sum(len(el.proto.spec.encode()) for el in charts)
    return statistics.median(times), max(times), chart_bytes, len(charts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--param", action="append", default=[],
                        help="a URL parameter key=value for every page (pages without it ignore it)")
    args = parser.parse_args()
    params = dict(item.split("=", 1) for item in args.param)
    print("| page | median rerun (ms) | max rerun (ms) | charts | chart data (KB) |")
    print("|---|---:|---:|---:|---:|")
    for page in PAGES:
        median, worst, size, count = measure(page.path, args.runs, params)
        print(f"| {page.title} | {median:.0f} | {worst:.0f} | {count} | {size / 1024:.0f} |")


if __name__ == "__main__":
    main()
