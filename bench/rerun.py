"""Server-side rerun time and chart bytes per page, at default settings.

    python bench/rerun.py [--runs 15] [--param model="all-MiniLM-L6-v2 (pretrained, encoder-only (BERT-style))"]
    python bench/rerun.py --edit text --page pretrained     (every rerun after a text change)

For each page in the navigation: one warm-up run (models and caches built),
then ``runs`` reruns timed end to end through AppTest (app.py + the page script,
the same code path as a widget change). With ``--edit KEY`` each timed rerun follows a
new value of the text box KEY (its text with one word changed, so no cache holds the
result): the rerun after a text change. Chart bytes are the Plotly JSON a run
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

from tests.apptest_helpers import chart_elements, chart_json  # noqa: E402
from ui.pages_index import PAGES  # noqa: E402


def _text_box(at: AppTest, key: str):
    """The text input or text area whose key is ``key``."""
    for box in (*at.text_input, *at.text_area):
        if box.key == key:
            return box
    raise KeyError(f"no text box with key {key!r} on this page")


def measure(path: str, runs: int, params: dict[str, str], edit: str | None = None) -> tuple[float, float, int, int]:
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
    original = _text_box(at, edit).value if edit else ""
    for run in range(runs):
        if edit:
            words = original.split() or ["word"]
            words[run % len(words)] = f"edit{run}"
            _text_box(at, edit).set_value(" ".join(words))
        start = time.perf_counter()
        at.run()
        times.append((time.perf_counter() - start) * 1000)
    charts = chart_elements(at)
    chart_bytes = sum(len(chart_json(el)) for el in charts)
    return statistics.median(times), max(times), chart_bytes, len(charts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument(
        "--param",
        action="append",
        default=[],
        help="a URL parameter key=value for every page (pages without it ignore it)",
    )
    parser.add_argument("--edit", default=None, help="key of a text box to change before every timed rerun")
    parser.add_argument("--page", action="append", default=[], help="only these pages (url path), e.g. pretrained")
    args = parser.parse_args()
    params = dict(item.split("=", 1) for item in args.param)
    pages = [page for page in PAGES if not args.page or page.url_path in args.page]
    print("| page | median rerun (ms) | max rerun (ms) | charts | chart data (KB) |")
    print("|---|---:|---:|---:|---:|")
    for page in pages:
        median, worst, size, count = measure(page.path, args.runs, params, args.edit)
        print(f"| {page.title} | {median:.0f} | {worst:.0f} | {count} | {size / 1024:.0f} |")


if __name__ == "__main__":
    main()
