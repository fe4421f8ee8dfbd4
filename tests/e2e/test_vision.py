"""In a real browser: the Vision Transformer page.

Drawing (``/vision?section=Draw+a+digit&source=draw``): a blank canvas says so; strokes drawn with the mouse
(desktop) or a finger (a phone, Chrome's touch events through CDP) are each sent to the server, which answers
with the 8 x 8 image the model reads and a bar chart of the 10 digits' probabilities; another stroke changes
the bars, **Clear** brings the blank message back, and a clearly written 1 is read as a 1. A finger on the
canvas draws and does not scroll the page (the canvas has ``touch-action: none``). Every section, and a class
following its teacher's drawing: test_vision_sections.py.
"""

from __future__ import annotations

import math
import re


from tests.e2e.conftest import (
    IDLE,
    RUNS_DONE,
    assert_no_exception,
    new_page,
    open_section,
    requested_runs,
    wait_for_chart,
    wait_idle,
    wait_settled,
)

DRAW_URL = "/vision?section=Draw+a+digit&source=draw"
CANVAS = "canvas.lab-draw"
PREDICTION = "Prediction for your drawing"
SEEN = "What the model reads"
BLANK = "The canvas is blank: draw a digit on it."  # what a canvas never drawn on, or cleared, shows
RUN_TIMEOUT = 90_000  # ms: a script run on a busy 2-core machine, a first one loading the model
CHART_TIMEOUT = 60_000

# Strokes as points in the canvas's own fractions (0, 0 top left .. 1, 1 bottom right).
VERTICAL_ONE = [(0.5, 0.15), (0.5, 0.85)]  # a "1" as one straight vertical stroke
FLAGGED_ONE = [(0.39, 0.27), (0.5, 0.15), (0.5, 0.85)]  # a "1" with its flag, in one stroke
TOP_BAR = [(0.25, 0.15), (0.5, 0.15)]  # a bar to the left of the vertical's top

# The prediction chart as drawn: its title, the bars' digits and values (from Plotly's full data: a numpy array
# travels as {bdata, dtype}, which Plotly has decoded there) and the texts drawn over the bars; null before it is.
PREDICTION_BARS = """(start) => {
  const plot = [...document.querySelectorAll('div.lab-chart')]
    .find((p) => (p.layout?.title?.text || '').startsWith(start));
  const bars = plot?._fullData?.[0];
  if (!bars || !plot.querySelector('.main-svg')) return null;
  return {title: plot.layout.title.text, x: Array.from(bars.x).map(String), y: Array.from(bars.y),
          texts: [...plot.querySelectorAll('.bartext')].map((t) => t.textContent.trim())};
}"""
# The 8 x 8 grey levels of the "What the model reads" chart (its image trace), null before it is drawn.
SEEN_PIXELS = """(start) => {
  const plot = [...document.querySelectorAll('div.lab-chart')]
    .find((p) => (p.layout?.title?.text || '').startsWith(start));
  const image = plot?._fullData?.[0];
  if (!image || !plot.querySelector('.main-svg') || !image.z) return null;
  return Array.from(image.z, (row) => Array.from(row));
}"""
# The dark pixels the canvas shows.
CANVAS_INK = f"""() => {{
  const board = document.querySelector('{CANVAS}');
  const pixels = board.getContext('2d').getImageData(0, 0, board.width, board.height).data;
  let dark = 0;
  for (let i = 0; i < pixels.length; i += 4) if (pixels[i] < 128) dark += 1;
  return dark;
}}"""
# The strokes the canvas holds (canvas.js keeps them on the element).
STROKES = f"() => document.querySelector('{CANVAS}').strokes?.length ?? 0"
SCROLL = "() => [document.querySelector('[data-testid=stMain]').scrollTop, document.scrollingElement.scrollTop]"
# The page laid out for a compact window (tests/e2e/compact.py): the classroom bar in the sidebar, no run pending.
COMPACT_LAID_OUT = f"""() => document.querySelector('[data-testid=stSidebar] .st-key-present') !== null
    && document.querySelector('{IDLE}') !== null && window.__labRuns.answered === window.__labRuns.requested"""
# Every chart element drawn (the screen watcher draws nothing) and at least one of them.
CHARTS_DRAWN = """() => {
  const charts = [...document.querySelectorAll('div.lab-chart')];
  return charts.length > 0 && charts.every((plot) => plot.querySelector('.main-svg'));
}"""
DRAWN_TITLES = (
    "() => [...document.querySelectorAll('div.lab-chart')].filter((p) => p.querySelector('.main-svg'))"
    ".map((p) => (p.layout?.title?.text || '').replace(/<br>/g, ' '))"  # a wrapped title's lines, read as one
)

# Each section of the page, a part of the title of a chart it draws (for the default held-out digit 8, a 3, and the
# shipped model's 2 x 2 patches) and how many charts it draws.
SECTIONS = {
    "Draw a digit": ("Prediction for held-out digit 8", 2),
    "Patches": ("The sequence the encoder reads", 2),
    "Attention on the image": ("attention over the patches", 1),
    "Position embeddings": ("Cosine similarity of each patch", 1),
    "Attention distance": ("looks the most locally", 1),
    "Patch filters": ("of the patch filters", 1),
    "Knock out": ("knocked out", 3),
}


def open_drawing(page, server_url: str) -> None:
    """Open the drawing view and wait until its canvas is mounted and the page is idle."""
    page.goto(server_url + DRAW_URL)
    wait_idle(page, timeout=RUN_TIMEOUT)
    page.locator(CANVAS).wait_for(timeout=CHART_TIMEOUT)
    # a run asked for while the canvas mounted (the screen's size, say) could replace it under a stroke:
    # every run the page has asked for by now is over, and the page is still
    page.wait_for_function(RUNS_DONE, arg=[IDLE, 0], timeout=RUN_TIMEOUT)
    wait_settled(page)
    assert_no_exception(page)


def canvas_points(page, points, steps: int):
    """``points`` (canvas fractions) as window coordinates, ``steps`` small moves between each two of them."""
    canvas = page.locator(CANVAS)
    canvas.scroll_into_view_if_needed()
    box = canvas.bounding_box()
    corners = [(box["x"] + fx * box["width"], box["y"] + fy * box["height"]) for fx, fy in points]
    path = [corners[0]]
    for (x0, y0), (x1, y1) in zip(corners, corners[1:]):
        path += [(x0 + (x1 - x0) * i / steps, y0 + (y1 - y0) * i / steps) for i in range(1, steps + 1)]
    return path


def mouse_stroke(page, points, steps: int = 15) -> None:
    """Draw one stroke through ``points`` (canvas fractions) with the mouse, and wait for the run it sends."""
    before = requested_runs(page)
    path = canvas_points(page, points, steps)
    page.mouse.move(*path[0])
    page.mouse.down()
    for x, y in path[1:]:
        page.mouse.move(x, y)
    page.mouse.up()
    wait_idle(page, timeout=RUN_TIMEOUT, after=before)


def touch_stroke(page, points, steps: int = 15) -> None:
    """Draw one stroke through ``points`` (canvas fractions) with a finger (Chrome's touch events, as
    test_touch.py swipes), without waiting for anything."""
    path = canvas_points(page, points, steps)
    cdp = page.context.new_cdp_session(page)
    try:
        x, y = path[0]
        cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
        for x, y in path[1:]:
            cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]})
        cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    finally:
        cdp.detach()


def prediction(page, previous: dict | None = None) -> dict:
    """The prediction chart's bars once drawn (and, given ``previous``, once they differ from those)."""
    page.wait_for_function(
        """([start, previous]) => { const bars = (%s)(start);
             return bars && (previous === null || JSON.stringify(bars.y) !== JSON.stringify(previous.y)); }"""
        % PREDICTION_BARS,
        arg=[PREDICTION, previous],
        timeout=CHART_TIMEOUT,
    )
    return page.evaluate(PREDICTION_BARS, PREDICTION)


def assert_a_prediction(bars: dict) -> int:
    """Ten bars, digits 0 to 9, probabilities summing to 1, each bar's drawn text its value; the title names the
    tallest bar and its percentage. Returns the predicted digit."""
    assert bars["x"] == [str(d) for d in range(10)], bars
    assert all(0.0 <= p <= 1.0 for p in bars["y"]), bars
    assert math.isclose(sum(bars["y"]), 1.0, abs_tol=1e-4), bars
    assert bars["texts"] == [f"{p:.2f}" for p in bars["y"]], bars
    best = max(range(10), key=lambda d: bars["y"][d])
    match = re.fullmatch(rf"{PREDICTION}: (\d) \((\d+)%\)", bars["title"])
    assert match, bars["title"]
    assert int(match.group(1)) == best, bars
    assert int(match.group(2)) == round(100 * bars["y"][best]), bars
    return best


def probabilities(bars: dict) -> str:
    return ", ".join(f"{d}: {p:.3f}" for d, p in enumerate(bars["y"]))


def assert_blank(page, message: str = BLANK) -> None:
    """The page says the canvas is blank (``message``), and shows no prediction."""
    page.locator("[data-testid=stAlert]", has_text=message).wait_for(timeout=CHART_TIMEOUT)
    assert page.evaluate(PREDICTION_BARS, PREDICTION) is None
    assert_no_exception(page)


def test_a_mouse_draws_a_digit_and_the_model_reads_it(page, server_url):
    open_drawing(page, server_url)
    assert_blank(page)
    assert page.evaluate(STROKES) == 0

    mouse_stroke(page, VERTICAL_ONE)
    wait_for_chart(page, PREDICTION, timeout=CHART_TIMEOUT)
    wait_for_chart(page, SEEN, timeout=CHART_TIMEOUT)
    first = prediction(page)
    assert_a_prediction(first)  # an 8, as it is (see test_a_plain_vertical_stroke_is_read_as_a_1)
    seen = page.evaluate(SEEN_PIXELS, SEEN)
    assert len(seen) == 8 and all(len(row) == 8 for row in seen), seen
    assert max(max(row) for row in seen) > 0.2, seen  # the stroke's ink reached the 8 x 8 image
    assert page.locator("[data-testid=stAlert]", has_text=BLANK).count() == 0
    assert page.evaluate(STROKES) == 1
    assert_no_exception(page)

    mouse_stroke(page, TOP_BAR)  # a second stroke: a 7, more or less
    second = prediction(page, previous=first)
    assert_a_prediction(second)
    assert second["y"] != first["y"]
    assert page.evaluate(STROKES) == 2
    assert_no_exception(page)

    before = requested_runs(page)
    page.locator("button.lab-draw-clear").click()
    wait_idle(page, timeout=RUN_TIMEOUT, after=before)
    assert page.evaluate(STROKES) == 0
    assert_blank(page)
    assert page.locator("div.lab-chart").count() == 0  # neither chart is left

    mouse_stroke(page, FLAGGED_ONE)
    bars = prediction(page)
    assert assert_a_prediction(bars) == 1, probabilities(bars)
    assert bars["y"][1] > 0.5, probabilities(bars)
    assert_no_exception(page)


def test_a_plain_vertical_stroke_is_read_as_a_1(page, server_url):
    """The pen is as thick, against the digit's height, as the data set's strokes: a plain stroke is a 1."""
    open_drawing(page, server_url)
    mouse_stroke(page, VERTICAL_ONE)
    bars = prediction(page)
    assert assert_a_prediction(bars) == 1, probabilities(bars)

    # Away to another section and back: the canvas is mounted anew with the drawing, which is still read.
    for section in ("Patches", "Draw a digit"):
        before = requested_runs(page)
        open_section(page, section)
        wait_idle(page, timeout=RUN_TIMEOUT, after=before)
    assert prediction(page)["y"] == bars["y"]
    assert page.evaluate(CANVAS_INK) > 500  # the kept drawing is painted on the new canvas
    assert_no_exception(page)


def test_a_drawing_travels_in_its_link(browser, server_url):
    """After a stroke the address holds the image's code (``pixels``: each of the 64 pixels the model reads as a
    level 0-g); that link, opened in another tab, draws the same image, prediction and an inked canvas."""
    page = new_page(browser)
    other = new_page(browser)
    try:
        open_drawing(page, server_url)
        mouse_stroke(page, VERTICAL_ONE)
        bars = prediction(page)
        seen = page.evaluate(SEEN_PIXELS, SEEN)
        code = "".join("0123456789abcdefg"[round(16 * v)] for row in seen for v in row)
        page.wait_for_function(
            "(code) => new URL(location.href).searchParams.get('pixels') === code", arg=code, timeout=CHART_TIMEOUT
        )
        other.goto(page.url)
        wait_idle(other, timeout=RUN_TIMEOUT)
        assert prediction(other)["y"] == bars["y"]
        assert other.evaluate(SEEN_PIXELS, SEEN) == seen
        assert other.evaluate(CANVAS_INK) > 500  # the linked image painted on the canvas, pixel by pixel
        assert_no_exception(other)
    finally:
        page.context.close()
        other.context.close()


def test_a_finger_draws_on_a_phone_without_scrolling_the_page(browser, server_url):
    page = new_page(browser, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    try:
        open_drawing(page, server_url)
        page.wait_for_function(COMPACT_LAID_OUT, timeout=CHART_TIMEOUT)
        assert_blank(page)
        page.evaluate(f"() => document.querySelector('{CANVAS}').scrollIntoView({{block: 'center'}})")
        wait_settled(page)
        assert page.locator(CANVAS).evaluate("(el) => getComputedStyle(el).touchAction") == "none"
        scrolled = page.evaluate(SCROLL)
        before = requested_runs(page)
        touch_stroke(page, [(0.5, 0.85), (0.5, 0.15)])  # a finger moving up would scroll the page down
        touch_stroke(page, [(0.55, 0.15), (0.55, 0.85)])  # and one moving down would scroll it up
        assert page.evaluate(SCROLL) == scrolled, "the page scrolled while a finger drew on the canvas"
        wait_idle(page, timeout=RUN_TIMEOUT, after=before)
        assert page.evaluate(STROKES) == 2
        assert_a_prediction(prediction(page))
        wait_for_chart(page, SEEN, timeout=CHART_TIMEOUT)
        assert_no_exception(page)

        # The same gesture just beside the canvas scrolls the page: the canvas, not the page, kept the finger.
        page.evaluate(f"() => document.querySelector('{CANVAS}').scrollIntoView({{block: 'center'}})")
        wait_settled(page)
        box = page.locator(CANVAS).bounding_box()
        beside = (box["width"] + 0.5 * (390 - box["x"] - box["width"])) / box["width"]
        assert box["x"] + box["width"] < 390 - 30, box  # room beside the 280 px canvas
        scrolled = page.evaluate(SCROLL)
        touch_stroke(page, [(beside, 0.85), (beside, 0.15)])
        page.wait_for_function(
            f"(before) => JSON.stringify(({SCROLL})()) !== JSON.stringify(before)", arg=scrolled, timeout=10_000
        )
        assert page.evaluate(STROKES) == 2
    finally:
        page.context.close()
