"""The Vision page's canvas drawn on with the keyboard alone (WCAG 2.1.1): Tab reaches the board, the arrows move
the pen by one cell of the 32 x 32 grid, Space puts it down and lifts it, and the stroke is read as a pointer's is."""

from __future__ import annotations

from tests.e2e.conftest import requested_runs, wait_idle
from tests.e2e.test_vision import (
    CANVAS,
    RUN_TIMEOUT,
    STROKES,
    assert_a_prediction,
    assert_blank,
    open_drawing,
    prediction,
    probabilities,
)

STATUS = "p.lab-draw-status"


def press(page, key: str, times: int = 1) -> None:
    for _ in range(times):
        page.keyboard.press(key)


def test_the_keyboard_alone_draws_a_one_that_the_model_reads(page, server_url):
    open_drawing(page, server_url)
    assert_blank(page)
    board = page.locator(CANVAS)
    page.locator("button.lab-draw-clear").focus()
    page.keyboard.press("Shift+Tab")  # the board is in the tab order, just before Clear
    assert page.evaluate("() => document.activeElement.classList.contains('lab-draw')")
    assert board.get_attribute("aria-describedby") == page.locator(STATUS).get_attribute("id")
    assert page.locator(STATUS).inner_text().startswith("Pen up at column 17 of 32, row 17 of 32.")

    press(page, "ArrowUp", 12)  # to the top of a 1, as VERTICAL_ONE's mouse stroke starts (row 5 of 32)
    page.keyboard.press("Space")
    assert page.locator(STATUS).inner_text().startswith("Pen down at column 17 of 32, row 5 of 32.")
    press(page, "ArrowDown", 5)  # with Shift, four cells a press: 20 cells down, to row 25
    press(page, "Shift+ArrowDown")
    assert page.evaluate(STROKES) == 1 and page.locator(STATUS).inner_text().startswith(
        "Pen down at column 17 of 32, row 14"
    )
    before = requested_runs(page)
    press(page, "Shift+ArrowDown", 3)
    page.keyboard.press("Space")  # the pen lifts: the stroke is sent, as a mouse's is when its button comes up
    wait_idle(page, timeout=RUN_TIMEOUT, after=before)
    assert page.locator(STATUS).inner_text().startswith("Pen up at column 17 of 32, row 26 of 32.")
    bars = prediction(page)
    assert assert_a_prediction(bars) == 1, probabilities(bars)

    page.keyboard.press("Tab")  # on to Clear; leaving the board with the pen up sends nothing
    assert page.evaluate("() => document.activeElement.classList.contains('lab-draw-clear')")
    before = requested_runs(page)
    page.keyboard.press("Enter")
    wait_idle(page, timeout=RUN_TIMEOUT, after=before)
    assert_blank(page)
    assert page.evaluate(STROKES) == 0
