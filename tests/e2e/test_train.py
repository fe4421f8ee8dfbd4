"""In a real browser: Train makes the step counter advance and the loss chart grow; Pause stops it;
Play steps through the snapshots by itself."""

import re
import time

from tests.e2e.conftest import DRAWN_TITLES, assert_no_exception, choose, wait_for_chart, wait_idle

STEP = re.compile(r"step (\d+) of at most")


def current_step(page) -> int:
    text = page.locator("[data-testid=stProgress]").first.inner_text()
    match = STEP.search(text)
    return int(match.group(1)) if match else -1


def test_train_advances_and_pause_stops(page, server_url):
    page.goto(f"{server_url}/train?layers=1")  # one layer never learns induction: it trains until paused
    wait_idle(page, timeout=60_000)
    assert current_step(page) == 0
    page.locator("[data-testid=stButton] button", has_text="Train").first.click()
    wait_for_chart(page, "induction · 1 layers", timeout=30_000)
    page.wait_for_function("() => /step ([1-9]\\d*) of at most/.test(document.body.innerText)", timeout=30_000)
    first = current_step(page)
    page.wait_for_function(
        "n => { const m = /step (\\d+) of at most/.exec(document.body.innerText); return m && Number(m[1]) > n; }",
        arg=first,
        timeout=10_000,
    )  # moves on its own
    points = page.locator(".js-plotly-plot").count()  # the loss and head-score charts, and the probe
    page.locator("[data-testid=stButton] button", has_text="Pause").first.click()
    page.wait_for_function(
        "() => document.querySelector('.st-key-pause button')?.disabled === true"
        " && document.querySelector('.st-key-step button')?.disabled === false",
        timeout=15_000,
    )
    wait_idle(page)
    stopped = current_step(page)
    assert stopped > first and points >= 2
    page.locator(".st-key-step button").first.click()  # ten steps, then stop: exactly ten if nothing else trains
    page.wait_for_function(f"() => /step {stopped + 10} of at most/.test(document.body.innerText)", timeout=30_000)
    wait_idle(page)
    stopped += 10
    assert current_step(page) == stopped
    assert_no_exception(page)
    page.locator(".st-key-play button").first.click()  # from the first snapshot to the last, by itself
    page.wait_for_selector(
        ".js-plotly-plot .gtitle:has-text('Step 0 · the probe input')", state="attached", timeout=10_000
    )  # shown for one frame only: it may be redrawing already
    page.locator(".st-key-play button").first.wait_for(timeout=30_000)  # back to Play at the last snapshot
    wait_idle(page)
    titles = page.evaluate(DRAWN_TITLES)  # a long title wraps: its lines read with a space between them
    last = f"Step {stopped // 20 * 20} · the probe input"  # a snapshot every 20 steps
    probes = [t for t in titles if "the probe input" in t]
    assert len(probes) == 1 and probes[0].startswith(last), titles  # the scrubber's: the live view draws none now
    assert_no_exception(page)


def test_the_digits_vit_trains_live_to_its_target_within_thirty_seconds(page, server_url):
    """The digits task with its recommended settings: Train runs until the held-out accuracy reaches 95 %,
    [CLS]'s attention over the digit redrawn at each snapshot; Play steps through them."""
    page.goto(f"{server_url}/train")
    wait_idle(page, timeout=60_000)
    choose(page, page.locator(".st-key-task input[role=combobox]"), "digits")  # in the page's folded settings
    wait_for_chart(page, "attention over a held-out digit", timeout=60_000)
    wait_idle(page, timeout=60_000)
    started = time.monotonic()
    page.locator("[data-testid=stButton] button", has_text="Train").first.click()
    page.locator("[data-testid=stAlert]", has_text="the target is reached").wait_for(timeout=60_000)
    seconds = time.monotonic() - started
    assert seconds <= 30, seconds
    wait_idle(page, timeout=60_000)
    accuracy = page.locator("[data-testid=stMetric]", has_text="held-out accuracy").inner_text()
    assert float(re.search(r"([\d.]+)%", accuracy).group(1)) >= 95.0, accuracy
    titles = page.evaluate(DRAWN_TITLES)  # a long title wraps: its lines read with a space between them
    assert any(t.startswith("Step ") and "[CLS]'s attention over a held-out digit (a 3)" in t for t in titles), titles
    assert_no_exception(page)
