"""Training on the page: its throughput against a bare loop, and four sessions training while a class reruns.

    python bench/train_load.py [--trainers 4] [--others 10] [--think 2] [--repeats 3] [--skip-throughput]
                               [--timer-driven]

Against a real `streamlit run app.py`, with the training driven the way a student
drives it: a headless Chromium tab per training session (the page trains from an
``st.fragment(run_every=...)`` that runs only while its tab is open), each pressing
Train on the default task (induction). Each tab records, with the wall clock, every
change of its step counter, its place in the queue and the "Done at step N: the
target is reached." message. Prints Markdown tables:

1. throughput: optimiser steps per second of one session alone on the page (from the
   step counter's first move to the target) against ``Trainer(default_setup("induction"))``
   trained in a bare loop in this process (one torch thread, like the server), median of
   ``repeats`` runs (Reset, then Train again: the same seed gives the same run). The page
   is measured twice: in Chromium, and driven over the websocket by a client that sends
   the fragment's timer ticks as the browser does but draws nothing; on a 2-core machine
   the browser's drawing takes CPU from the server, which a student's own computer would not;
2. ``trainers`` sessions press Train at once while ``others`` websocket sessions rerun the
   other pages (each its own page, a random 0..2*think s pause before each rerun): per
   training session the highest place in the queue it was shown, how often and how long
   it was queued, when its counter first moved, the time to the target and the steps; the
   other sessions' reruns before and during the training; the CPU the server and the
   browser used meanwhile. ``--timer-driven``: the training sessions tick over the
   websocket instead of in Chromium tabs.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.background_class import BackgroundClass  # noqa: E402
from bench.load import app_server, rerun_summary  # noqa: E402
from bench.processes import cpu_seconds, descendants_cpu_seconds, load_average  # noqa: E402
from bench.train_session import TARGET_TIMEOUT, TimerDrivenTab  # noqa: E402
from testing.server import CHROMIUM_ARGS, IDLE, AppServer, chromium_path  # noqa: E402
from testing.streamlit_client import connect  # noqa: E402


# Installed in a training tab: appends [wall ms, step, place in the queue (0 = not queued), target reached]
# to window.trace whenever one of them changes. textContent (no layout) keeps it cheap.
TRACE = (ROOT / "bench" / "training_trace.js").read_text()


# --- the bare loop --------------------------------------------------------------------------------------------


def bare_loop_rate() -> float:
    """Optimiser steps per second of the default induction trainer run to its target in a plain loop.

    Chunks of 5 steps, like the page; the trainer's own held-out evaluations and snapshots
    are included, as they are on the page.
    """
    import torch

    from transformer import Trainer, default_setup

    torch.set_num_threads(1)
    trainer = Trainer(default_setup("induction"))
    start = time.perf_counter()
    while not trainer.done:
        trainer.train(5)
    return trainer.step / (time.perf_counter() - start)


# --- one training tab -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TrainingRun:
    """What one training tab showed, times in s from its Train click."""

    first_step_at: float  # the counter first moved
    first_step: int
    done_at: float  # "the target is reached" appeared (nan if it never did)
    final_step: int
    place: int  # highest place in the queue it was shown (0: never queued)
    queued_seconds: float  # how long, in all, it showed a place in the queue
    queued_spells: int  # how many times it went into the queue

    @property
    def rate(self) -> float:
        """Steps per second from the counter's first move to the target."""
        return (self.final_step - self.first_step) / (self.done_at - self.first_step_at)


def open_training_tab(browser, server: AppServer):
    """A new browser context on the training page (default settings), idle, with the trace recorder."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    tab = context.new_page()
    tab.goto(f"{server.url}/train")
    tab.wait_for_selector(IDLE, timeout=120_000)
    tab.wait_for_selector("[data-testid=stProgress]", timeout=60_000)
    tab.evaluate(TRACE)
    return tab


def press(tab, key: str) -> float:
    """Click the media button with widget key ``key`` (train, pause, reset); the wall-clock time of the click, s."""
    button = tab.locator(f".st-key-{key} button").first
    button.wait_for(timeout=30_000)
    clicked = time.time()
    button.click()
    return clicked


def wait_reached(tab, timeout: float = TARGET_TIMEOUT) -> None:
    tab.wait_for_function("() => window.trace.some(row => row[3])", timeout=timeout, polling=100)


def summarise(rows: list[tuple[float, int, int, bool]], clicked: float) -> TrainingRun:
    """A training run from its trace: rows of (wall-clock s, step, place in the queue, target reached)."""
    rows = [(t - clicked, step, place, reached) for t, step, place, reached in rows if t >= clicked - 0.05]
    moved = [(t, step) for t, step, _, _ in rows if step > 0] or [(float("nan"), 0)]
    done = [t for t, _, _, reached in rows if reached] or [float("nan")]
    places = [place for _, _, place, _ in rows]
    spells = [(start, end) for (start, _, place, _), (end, *_) in zip(rows, rows[1:]) if place]
    return TrainingRun(
        first_step_at=moved[0][0],
        first_step=moved[0][1],
        done_at=done[0],
        final_step=max(step for _, step in moved),
        place=max(places, default=0),
        queued_seconds=sum(end - start for start, end in spells),
        queued_spells=sum(1 for before, now in zip([0] + places, places) if now and not before),
    )


def read_run(tab, clicked: float) -> TrainingRun:
    """The browser tab's trace since ``clicked``, summarised."""
    return summarise([(t / 1000, step, place, done) for t, step, place, done in tab.evaluate("window.trace")], clicked)


def reset_trace(tab) -> None:
    tab.evaluate("window.trace.length = 0")


def in_own_thread(coroutine):
    """Run a coroutine to its end in a thread of its own (Playwright's sync API holds this thread's event loop)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


async def timer_driven_runs(server: AppServer, count: int = 1) -> list[TrainingRun]:
    """``count`` sessions open the training page over the websocket, press Train together and tick until each
    reaches the target."""
    async with contextlib.AsyncExitStack() as stack:
        tabs = [TimerDrivenTab(await stack.enter_async_context(connect(server.stream))) for _ in range(count)]
        listening = [asyncio.create_task(tab.listen()) for tab in tabs]
        for tab in tabs:
            await tab.socket.send(tab.request())
        while not all(tab.train_button and tab.idle for tab in tabs):
            await asyncio.sleep(0.05)
        clicked = time.time()
        await asyncio.gather(*(tab.train_to_target() for tab in tabs))
        for task in listening:
            task.cancel()
    return [summarise(tab.trace, clicked) for tab in tabs]


# --- the two measurements -------------------------------------------------------------------------------------


def throughput(browser, server: AppServer, repeats: int) -> None:
    """One session alone on the page, in Chromium and without a browser, against the bare loop: Markdown table."""
    bare = [bare_loop_rate()]
    tab = open_training_tab(browser, server)
    in_browser, timer_driven = [], []
    for index in range(repeats):
        if index:
            press(tab, "reset")
            tab.wait_for_function(
                "() => /step 0 of at most/.test(document.querySelector('[data-testid=stProgress]').textContent)",
                timeout=30_000,
            )
            tab.wait_for_selector(IDLE, timeout=30_000)
            reset_trace(tab)
        clicked = press(tab, "train")
        wait_reached(tab)
        in_browser.append(read_run(tab, clicked))
        bare.append(bare_loop_rate())
        timer_driven += in_own_thread(timer_driven_runs(server))
        bare.append(bare_loop_rate())
    tab.context.close()
    bare_rate = statistics.median(bare)
    print(
        "| induction, default settings | steps to target | Train -> target (s) | steps/s (median) | "
        "ratio to the bare loop |"
    )
    print("|---|---:|---:|---:|---:|")
    print(
        f"| bare loop in the bench process ({len(bare)} runs) | {in_browser[0].final_step} | "
        f"{in_browser[0].final_step / bare_rate:.1f} | {bare_rate:.0f} | 1 |"
    )
    for label, runs in (
        ("on the page in Chromium, one session alone", in_browser),
        ("on the page, timer ticks over the websocket (no browser drawing)", timer_driven),
    ):
        rate = statistics.median(run.rate for run in runs)
        print(
            f"| {label} ({repeats} runs) | {runs[0].final_step} | "
            f"{statistics.median(run.done_at for run in runs):.1f} | {rate:.0f} | {rate / bare_rate:.2f} |"
        )
    print(flush=True)


def train_in_browser_tabs(tabs) -> list[TrainingRun]:
    """Press Train in every tab, one right after the other, and wait until each has reached the target."""
    clicks = [press(tab, "train") for tab in tabs]
    for tab in tabs:
        wait_reached(tab)
    return [read_run(tab, clicked) for tab, clicked in zip(tabs, clicks)]


def trainers_at_once(browser, server: AppServer, trainers: int, others: int, think: float) -> None:
    """``trainers`` sessions press Train at once while ``others`` sessions rerun the other pages: Markdown tables.

    The training sessions are Chromium tabs, or (``browser`` None) timer-driven websocket sessions.
    """
    tabs = [open_training_tab(browser, server) for _ in range(trainers)] if browser else []
    crowd = BackgroundClass(server, others, think)
    crowd.start()
    time.sleep(max(5.0, 4 * think))  # the class under way before anyone trains
    server_cpu, browser_cpu, started = cpu_seconds(server.pid), descendants_cpu_seconds(server.pid), time.time()
    runs = train_in_browser_tabs(tabs) if browser else in_own_thread(timer_driven_runs(server, trainers))
    finished = time.time()
    server_cpu = (cpu_seconds(server.pid) - server_cpu) / (finished - started)
    browser_cpu = (descendants_cpu_seconds(server.pid) - browser_cpu) / (finished - started)
    crowd.stop()
    for tab in tabs:
        tab.context.close()
    print(f"{trainers} training sessions ({'Chromium tabs' if browser else 'timer ticks over the websocket'}):\n")
    print(
        "| training session | highest place in the queue | times queued | queued in all (s) | first step shown (s) "
        "| Train -> target (s) | steps | reached |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---|")
    for number, run in enumerate(runs, 1):
        print(
            f"| {number} | {run.place or '-'} | {run.queued_spells} | {run.queued_seconds:.1f} | "
            f"{run.first_step_at:.1f} | {run.done_at:.1f} | {run.final_step} | "
            f"{'yes' if run.done_at == run.done_at else 'no'} |"
        )
    print(f"\n{others} other sessions, each rerunning one of the other pages (pause 0-{2 * think:g} s):\n")
    print("| other sessions | reruns | median (ms) | p95 (ms) | errors |")
    print("|---|---:|---:|---:|---:|")
    print(
        f"| before Train ({started - crowd.runs[0][0] if crowd.runs else 0:.0f} s) | "
        f"{rerun_summary(crowd.between(0, started))} |"
    )
    print(f"| while training ({finished - started:.0f} s) | {rerun_summary(crowd.between(started, finished))} |")
    print(
        f"\nCPU while training (cores of the machine's 2): server {server_cpu:.2f}, Chromium and Playwright "
        f"{browser_cpu:.2f}; load average at the end {load_average().split()[0]}."
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trainers", type=int, default=4, help="sessions pressing Train at once")
    parser.add_argument("--others", type=int, default=10, help="websocket sessions rerunning the other pages")
    parser.add_argument("--think", type=float, default=2.0, help="mean pause before their reruns, s")
    parser.add_argument("--repeats", type=int, default=3, help="runs of the throughput measurement")
    parser.add_argument("--skip-throughput", action="store_true")
    parser.add_argument(
        "--timer-driven",
        action="store_true",
        help="the sessions training at once tick over the websocket, with no browser drawing",
    )
    args = parser.parse_args()
    with app_server() as server, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS)
        if not args.skip_throughput:
            throughput(browser, server, args.repeats)
        trainers_at_once(None if args.timer_driven else browser, server, args.trainers, args.others, args.think)
        browser.close()


if __name__ == "__main__":
    main()
