"""The all-heads overview at its design size: 6 layers x 8 heads x 64 tokens, or the pretrained model's 6 x 12.

    python bench/overview.py [--section SECTION]
    python bench/overview.py --pretrained 128     (all-MiniLM-L6-v2's 72 heads on 128 WordPiece tokens)

Opens the Multi-head attention page through a shared link with those settings
in headless Chromium and reports the chart data of the overview figure, the
time from navigation to the overview drawn on screen (median of 5 loads; the
model and caches are warm after the first; this includes loading the whole app
in the browser), and the time from a text edit (one word changed, Enter) to the
new overview drawn (median of 5 edits, each a text no cache has seen: the model
runs and the figure is built, sent and drawn). ``--section`` names the page's section
holding the overview.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import urlencode

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from testing.server import CHROMIUM_ARGS, IDLE, chromium_path, running  # noqa: E402
from lessons.model_labels import RANDOM  # noqa: E402

TEXT = " ".join(f"w{i}" for i in range(64))
# Resolves after the browser has painted twice: the charts of the finished run are on screen.
AFTER_PAINT = "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"


def edit_text(page, text: str) -> None:
    """Type ``text`` into the page's first text box and submit it (Enter; Ctrl+Enter in a text area)."""
    box = page.locator("[data-testid=stTextArea] textarea, [data-testid=stTextInput] input").first
    box.fill(text)
    box.press("Control+Enter" if box.evaluate("el => el.tagName") == "TEXTAREA" else "Enter")


TITLE = "6 layers × 8 heads"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--section", default=None)
    parser.add_argument("--pretrained", type=int, default=0, help="tokens for the pretrained-model page's overview")
    args = parser.parse_args()
    page_path, title, label = "multi_head", TITLE, "6 layers × 8 heads × 64 tokens"
    params = {"model": RANDOM, "layers": 6, "heads": 8, "text": TEXT}
    if args.section:
        params["section"] = args.section
    if args.pretrained:
        words = "the cat sat on a mat and looked at every dog in town".split()
        text = " ".join(words[i % len(words)] for i in range(args.pretrained - 2))  # + [CLS], [SEP]
        page_path, title = "pretrained", "6 layers × 12 heads"
        label = f"6 layers × 12 heads × {args.pretrained} tokens (pretrained)"
        params = {"section": "All heads", "text": text, "cap": 512}
    with running("app.py") as server:
        url = f"{server.url}/{page_path}?{urlencode(params)}"
        sizes, timings = [], []
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1400})
            page.on(
                "websocket",
                lambda socket: socket.on(
                    "framereceived", lambda payload: sizes.append(len(payload)) if title.encode() in payload else None
                ),
            )
            for _ in range(6):
                start = time.perf_counter()
                page.goto(url)
                page.locator(".js-plotly-plot", has_text=title).first.wait_for(timeout=60_000)
                page.wait_for_selector(IDLE, timeout=60_000)
                page.evaluate(AFTER_PAINT)
                timings.append(time.perf_counter() - start)
            edits = []
            words = params["text"].split()
            for i in range(5):
                sent = len(sizes)
                changed = " ".join(f"edit{i}" if j == 3 else word for j, word in enumerate(words))
                start = time.perf_counter()
                edit_text(page, changed)
                deadline = time.time() + 60
                while len(sizes) == sent and time.time() < deadline:  # the new figure has arrived
                    page.wait_for_timeout(5)
                page.wait_for_selector(IDLE, timeout=60_000)
                page.evaluate(AFTER_PAINT)
                edits.append(time.perf_counter() - start)
            browser.close()
        print(
            "| overview | message (KB) | navigation -> drawn, median of 5 warm loads (s) | text edit -> redrawn, "
            "median of 5 (s) |"
        )
        print("|---|---:|---:|---:|")
        print(
            f"| {label} | {max(sizes) / 1024:.0f} | {statistics.median(timings[1:]):.2f} | "
            f"{statistics.median(edits):.2f} |"
        )


if __name__ == "__main__":
    main()
