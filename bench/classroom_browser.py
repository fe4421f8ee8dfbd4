"""A class in real browsers, across two servers sharing Redis: the bench of ``bench/classroom.py`` confirmed.

    python bench/classroom_browser.py [--students 8] [--changes 8]

Two `streamlit run app.py` servers given one ``redis-server``; the teacher in Chromium on server A opens
Multi-head attention and presses "Teach this class"; ``students`` Chromium tabs (each in a context of its own)
open the join link, half on server A and half on server B. The teacher moves the heads slider ``changes``
times (up to its next option and back, in turn), then opens Masks and Positional encoding; for each change the time
from the key press (or the click on the page's link) to the moment each student's page shows the teacher's new chart
is measured in the student's own page (a ``requestAnimationFrame`` after a chart with the new title was drawn: the
heads map taken in place, the other page's copy), and so is the teacher's own redraw. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from bench.classroom_report import commit  # noqa: E402
from bench.processes import load_average  # noqa: E402
from bench.load import p95  # noqa: E402
from testing.redis_server import redis_running  # noqa: E402
from testing.server import CHROMIUM_ARGS, chromium_path, start  # noqa: E402
from lessons.model_labels import RANDOM  # noqa: E402

# the random stack, whose heads the teacher moves (the page opens on a pretrained model)
RANDOM_MULTI_HEAD = "multi_head?" + urllib.parse.urlencode({"model": RANDOM})

HEADS = ("1", "2", "4", "8", "16")  # the heads slider's options at d_model 64
PAGE_CHANGES = (("Masks", "Causal mask for"), ("Positional encoding", "PE against position"))  # link, chart title
TITLE = "() => [...document.querySelectorAll('.js-plotly-plot .gtitle')].map(e => e.textContent).join('|')"
# In the student's page: resolves with performance.now() once a chart title holds the text (then one frame).
SEEN = """text => new Promise(resolve => {
  const check = () => [...document.querySelectorAll('.js-plotly-plot .gtitle')].some(e => e.textContent.includes(text));
  const done = () => requestAnimationFrame(() => resolve(performance.timeOrigin + performance.now()));
  if (check()) return done();
  const observer = new MutationObserver(() => { if (check()) { observer.disconnect(); done(); } });
  observer.observe(document.body, { subtree: true, childList: true, characterData: true });
})"""


def heads_slider(page):
    label = page.locator("[data-testid=stWidgetLabel]", has_text=re.compile("^heads"))
    return page.locator("[data-testid=stSlider]").filter(has=label).locator("input[type=range]").first


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=8)
    parser.add_argument("--changes", type=int, default=8)
    args = parser.parse_args()
    load_before = load_average()
    with redis_running() as redis, sync_playwright() as playwright:
        servers = [start("app.py", env={"ATTENTION_LAB_REDIS_URL": redis.url}) for _ in range(2)]
        try:
            for server in servers:
                server.wait_healthy()
            browser = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
            for server in servers:  # every server builds the model once before the class
                warm = browser.new_page()
                warm.goto(f"{server.url}/{RANDOM_MULTI_HEAD}")
                warm.wait_for_selector(".js-plotly-plot .gtitle", timeout=90_000)
                warm.close()
            teacher = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
            teacher.goto(f"{servers[0].url}/{RANDOM_MULTI_HEAD}")
            teacher.wait_for_selector(".js-plotly-plot .gtitle", timeout=60_000)
            teacher.get_by_role("button", name="Teach this class").click()
            teacher.wait_for_function("() => new URLSearchParams(location.search).has('teach')", timeout=30_000)
            code = teacher.evaluate("() => new URLSearchParams(location.search).get('room')")
            students = []
            for index in range(args.students):
                page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
                page.goto(f"{servers[index % 2].url}/?room={code}")
                page.wait_for_function("() => location.pathname.endsWith('/multi_head')", timeout=60_000)
                page.wait_for_selector(".js-plotly-plot .gtitle", timeout=60_000)
                students.append(page)
            rows, current = [], "4"

            def timed(label: str, text: str, act) -> None:
                for page in (teacher, *students):  # each page starts watching for the new title
                    page.evaluate(f"text => {{ window.__labSeen = ({SEEN})(text); }}", text)
                pressed = teacher.evaluate("() => performance.timeOrigin + performance.now()")
                act()
                teacher_ms = teacher.evaluate("() => window.__labSeen") - pressed
                seen = [student.evaluate("() => window.__labSeen") - pressed for student in students]
                rows.append((label, teacher_ms, seen))
                print(f"  {label}: teacher {teacher_ms:.0f} ms, students p95 {p95(seen):.0f} ms", file=sys.stderr)
                teacher.wait_for_timeout(1000)

            for change in range(args.changes):
                up = change % 2 == 0  # 4 -> 8 -> 4 -> 8 ...
                target = HEADS[HEADS.index(current) + (1 if up else -1)]
                key = "ArrowRight" if up else "ArrowLeft"
                timed(f"{target} heads", f"{target} heads", lambda key=key: heads_slider(teacher).press(key))
                current = target
            for link, title in PAGE_CHANGES:
                timed(f"page: {link}", title, lambda link=link: teacher.get_by_role("link", name=link).first.click())
            browser.close()
        finally:
            for server in servers:
                server.stop()
    everyone = [ms for _, _, seen in rows for ms in seen]
    print(
        f"\n{time.strftime('%Y-%m-%d')}, commit {commit()}: real Chromium, 2 app servers + Redis, "
        f"{args.students} students (half on each server, phone-sized), {args.changes} changes of the heads slider "
        f"and {len(PAGE_CHANGES)} of the page; "
        f"load average {load_before} before, {load_average()} after.\n"
    )
    print("| change | teacher's own redraw (ms) | students median (ms) | p95 (ms) | max (ms) |")
    print("|---|---:|---:|---:|---:|")
    for target, teacher_ms, seen in rows:
        print(f"| {target} | {teacher_ms:.0f} | {statistics.median(seen):.0f} | {p95(seen):.0f} | {max(seen):.0f} |")
    print(
        f"| all | {statistics.median([t for _, t, _ in rows]):.0f} | {statistics.median(everyone):.0f} "
        f"| {p95(everyone):.0f} | {max(everyone):.0f} |"
    )


if __name__ == "__main__":
    main()
