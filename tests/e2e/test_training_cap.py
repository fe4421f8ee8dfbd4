"""In a real browser: at most two sessions train at once; a third waits, sees its place, and starts by itself
when a training pauses or its tab is closed."""

import pytest

from pages.train.slots import CAPACITY, TIMEOUT
from tests.e2e.conftest import assert_no_exception, new_page, wait_idle

# One layer never forms an induction head, so these runs train until paused (4000 steps at most).
ENDLESS_RUN = "/train?layers=1&steps=4000"
STEP_AFTER = """n => {
  const bar = document.querySelector('[data-testid=stProgress]');
  const match = bar && /step (\\d+) of at most/.exec(bar.textContent);
  return match !== null && +match[1] > n;
}"""
QUEUED_FIRST = "[data-testid=stAlert]:has-text('number 1 in the queue')"


def current_step(tab) -> int:
    text = tab.locator("[data-testid=stProgress]").first.text_content()
    return int(text.split("step ", 1)[1].split(" ", 1)[0])


def wait_step_after(tab, step: int, timeout: float = 15_000) -> int:
    """Wait until the tab's step counter passes ``step``; the new count."""
    tab.wait_for_function(STEP_AFTER, arg=step, timeout=timeout, polling=100)
    return current_step(tab)


def press(tab, key: str) -> None:
    """Click the media button with widget key ``key`` (train, pause)."""
    tab.locator(f".st-key-{key} button").first.click()


@pytest.fixture
def tabs(browser, server_url):
    """Three sessions on the training page, each in a browser context of its own."""
    opened = [new_page(browser) for _ in range(CAPACITY + 1)]
    for tab in opened:
        tab.goto(server_url + ENDLESS_RUN)
    for tab in opened:
        wait_idle(tab, timeout=60_000)
        tab.wait_for_selector("[data-testid=stProgress]", timeout=30_000)
    yield opened
    for tab in opened:
        tab.context.close()


def test_third_training_queues_and_starts_when_a_slot_frees(tabs):
    assert CAPACITY == 2
    first, second, third = tabs
    press(first, "train")
    wait_step_after(first, 0)
    press(second, "train")
    wait_step_after(second, 0)
    press(third, "train")
    third.wait_for_selector(QUEUED_FIRST, timeout=15_000)
    assert current_step(third) == 0
    for tab in (first, second):  # both still train while the third waits
        wait_step_after(tab, current_step(tab))
    assert current_step(third) == 0

    press(first, "pause")  # gives its slot up at once: the third starts on its next tick
    wait_idle(first)
    paused_at = current_step(first)
    wait_step_after(third, 0, timeout=10_000)
    third.wait_for_selector(QUEUED_FIRST, state="detached", timeout=5_000)
    assert current_step(first) == paused_at

    press(first, "train")  # the second and the third hold the slots now
    first.wait_for_selector(QUEUED_FIRST, timeout=15_000)
    queued_at = current_step(first)
    assert queued_at == paused_at

    second.context.close()  # the tab goes away: its training stops, and its slot frees within TIMEOUT
    wait_step_after(first, queued_at, timeout=(TIMEOUT + 10) * 1000)
    first.wait_for_selector(QUEUED_FIRST, state="detached", timeout=5_000)
    wait_step_after(third, current_step(third))  # the third goes on meanwhile
    for tab in (first, third):
        assert_no_exception(tab)
