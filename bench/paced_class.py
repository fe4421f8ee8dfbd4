"""A class at its own pace under load: one teacher, many students each going through a lesson on their own.

    python bench/paced_class.py [--students 200] [--every 15] [--seconds 60] [--servers 1|3] [--late 10]

Against real ``streamlit run app.py`` servers (with ``--servers 3``, a ``redis-server`` and three app servers given
``ATTENTION_LAB_REDIS_URL``: the teacher on the first, the students spread over all). Every session is a websocket
tab speaking Streamlit's protocol as a browser does (``bench/classroom_tab.py``). The teacher opens the lesson "One
head or many heads" at its first step (Multi-head attention, the random stack), presses "Teach this class" and "Let
the class go at its own pace"; the teacher's live part (the board) then runs on its 0.5-s timer throughout.

1. **Alone.** One student joins (``/?room=CODE``: the app opens the lesson at their step) and makes ``SOLO_ACTIONS``
   actions one after another: the next or previous step (a click on the lesson bar's link: the step's query
   string sent with the page: a full run) and the heads slider moved (the slider's new value, as the browser sends
   it for a widget inside a fragment: a run of that fragment, the page's settings and open section). Each action
   is timed from the rerun sent to its run's ``script_finished``.
2. **The class.** The other students join, ``JOIN_BATCH`` at a time. Then for ``seconds`` each student makes the
   same actions, one every ``every`` seconds (the first at a random moment of the first period), timed the same
   way; ``late`` more students join during that time, spread over it.
3. **The board.** The teacher's board counts the students at their own pace ("... at their own pace: N students"):
   for each late student, the time from the end of its first run on the lesson (which reports its step to the
   room) to the first board the teacher's tab receives that counts it.

Prints a Markdown table: the actions' p95 (and median) alone and in the class, their ratio (the budget: at most
1.5), the board's delay (p95, max; the budget: 2 s), the actions that failed, and the servers' peak memory.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import re
import statistics
import sys
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: E402

from bench.classroom_report import commit  # noqa: E402
from bench.classroom_servers import servers_running  # noqa: E402
from bench.classroom_tab import SLIDER, Tab, next_heads, opened, teacher_run  # noqa: E402
from bench.load import p95  # noqa: E402
from bench.processes import cpu_seconds, load_average, memory_mb  # noqa: E402
from lessons.catalogue import lesson_by_id  # noqa: E402
from lessons.model_labels import RANDOM  # noqa: E402
from testing.streamlit_client import new_element, widget_state  # noqa: E402

LESSON = lesson_by_id("heads")
PAGE = LESSON.views[0].page  # every step of the lesson is on Multi-head attention
SOLO_ACTIONS = 20
WARM_ACTIONS = 6  # the first actions fill the caches of the steps' views: not timed
JOIN_BATCH = 10
ACTION_TIMEOUT = 60.0
BOARD_COUNT = re.compile(r"at their own pace: (\d+) student")


def step_query(step: int, code: str) -> str:
    """The query string of the lesson bar's link to ``step`` (0-based), in class ``code``."""
    view = LESSON.views[step]
    settings = {key: str(value) for key, value in view.settings.items()}
    return urllib.parse.urlencode({**settings, "lesson": LESSON.id, "step": str(step + 1), "room": code})


@dataclass
class BoardTab(Tab):
    """The teacher's tab, which also keeps when each board it received counted how many students."""

    boards: list[tuple[float, int]] = field(default_factory=list)

    def _element(self, element) -> None:
        super()._element(element)
        if element.WhichOneof("type") == "markdown":
            found = BOARD_COUNT.search(element.markdown.body)
            if found:
                self.boards.append((time.monotonic(), int(found.group(1))))


@dataclass
class StudentTab(Tab):
    """A student's tab, which also keeps the fragment that drew each slider: a browser asks for a run of that
    fragment alone when the slider moves."""

    fragment_of: dict[str, str] = field(default_factory=dict)  # slider label -> fragment id

    def _receive(self, message, now: float) -> None:
        super()._receive(message, now)
        element = new_element(message)
        if element is not None and element.WhichOneof("type") == "slider":
            self.fragment_of[element.slider.label] = message.delta.fragment_id

    async def move_heads(self) -> None:
        """The heads slider moved, as Chromium sends it: a run of the fragment that drew it; returns at its end."""
        change, _ = next_heads(self)
        count = len(self.finished)
        self.send_rerun(widgets=[change], fragment=self.fragment_of[SLIDER], auto=False)
        await first_run(self, count, lambda run: run.status == ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY)


@dataclass
class Student:
    tab: StudentTab
    code: str
    step: int = 0
    forward: bool = True
    actions: list[tuple[str, float]] = field(default_factory=list)  # (kind, seconds)
    failed: int = 0

    async def act(self, kind: str) -> None:
        """One action, timed: "step" (the lesson bar's next or previous link) or "control" (the heads slider)."""
        began = time.monotonic()
        try:
            if kind == "step":
                if not 0 <= self.step + (1 if self.forward else -1) < len(LESSON.views):
                    self.forward = not self.forward
                self.step += 1 if self.forward else -1
                await teacher_run(self.tab, query=step_query(self.step, self.code), page_hash=self.tab.page_hash)
            else:
                await self.tab.move_heads()
        except (TimeoutError, KeyError):
            self.failed += 1
            return
        self.actions.append((kind, time.monotonic() - began))


async def first_run(tab: Tab, after: int, wanted) -> float:
    """When the first run that finished after ``after`` runs and is ``wanted`` (a test of its ``Finished``) ended;
    a TimeoutError past ``ACTION_TIMEOUT``."""
    deadline = time.monotonic() + ACTION_TIMEOUT
    while time.monotonic() < deadline:
        found = next((run for run in tab.finished[after:] if wanted(run)), None)
        if found is not None:
            return found.at
        await asyncio.sleep(0.02)
    raise TimeoutError("the run asked for did not finish in time")


async def join(tab: Tab, code: str) -> float:
    """Open the join link and wait for the run that shows the lesson's step; returns when that run finished."""
    count = len(tab.finished)
    tab.send_rerun(page_name="", page_hash="", query=f"room={code}")
    return await first_run(
        tab, count, lambda run: run.status == ForwardMsg.FINISHED_SUCCESSFULLY and "lesson=heads" in run.query
    )


async def paced_class(args) -> dict:
    with servers_running(args.servers) as servers:
        apps = servers.apps
        async with opened(apps[0], BoardTab) as teacher:
            query = urllib.parse.urlencode({"model": RANDOM, "lesson": LESSON.id, "step": "1"})
            await teacher_run(teacher, page_name=PAGE, page_hash="", query=query)
            await teacher_run(
                teacher, widgets=[widget_state(teacher.widgets["Teach this class"].id, trigger_value=True)]
            )
            code = urllib.parse.parse_qs(teacher.query)["room"][0]
            button = teacher.widgets["Let the class go at its own pace"]
            await teacher_run(teacher, widgets=[widget_state(button.id, trigger_value=True)])
            return await _measure(args, apps, teacher, code)


async def _measure(args, apps, teacher: BoardTab, code: str) -> dict:
    stack, students = [], []
    try:
        first = await _open(apps[0], stack)
        await join(first, code)
        solo = Student(first, code)
        for n in range(WARM_ACTIONS + SOLO_ACTIONS):
            if n == WARM_ACTIONS:
                solo.actions = []
            await solo.act("step" if n % 2 == 0 else "control")
        students.append(solo)
        for start in range(1, args.students, JOIN_BATCH):
            tabs = [
                await _open(apps[n % len(apps)], stack) for n in range(start, min(start + JOIN_BATCH, args.students))
            ]
            await asyncio.gather(*(join(tab, code) for tab in tabs))
            students += [Student(tab, code) for tab in tabs]
        alone = [seconds for _, seconds in solo.actions]
        solo.actions = []
        board_delays: list[float] = []
        runs_before = sum(student.tab.full_runs + student.tab.early_runs for student in students)
        cpu_before = sum(cpu_seconds(app.pid) for app in apps)
        began = time.monotonic()
        await asyncio.gather(
            *(_walk(student, args, began) for student in students),
            _late(args, apps, stack, code, teacher, len(students), board_delays, began),
        )
        cpu = (sum(cpu_seconds(app.pid) for app in apps) - cpu_before) / (time.monotonic() - began)
        loaded = [seconds for student in students for _, seconds in student.actions]
        runs = sum(student.tab.full_runs + student.tab.early_runs for student in students)
        peak = [memory_mb(app.pid, "VmHWM") for app in apps]
        return {
            "alone": alone,
            "loaded": loaded,
            "failed": sum(student.failed for student in students),
            "board": board_delays,
            "peak": peak,
            "cpu": cpu,
            "runs per action": (runs - runs_before) / max(1, len(loaded)),
            "exceptions": sum(student.tab.exceptions for student in students) + teacher.exceptions,
        }
    finally:
        for context in reversed(stack):
            await context.__aexit__(None, None, None)


async def _open(app, stack: list) -> StudentTab:
    context = opened(app, StudentTab)
    tab = await context.__aenter__()
    stack.append(context)
    return tab


async def _walk(student: Student, args, began: float) -> None:
    """A student's actions, one every ``every`` seconds from a random moment of the first period."""
    due = began + random.uniform(0, args.every)
    n = 0
    while due < began + args.seconds:
        await asyncio.sleep(max(0.0, due - time.monotonic()))
        await student.act("step" if n % 2 == 0 else "control")
        n += 1
        due += args.every


async def _late(args, apps, stack, code, teacher: BoardTab, joined: int, delays: list[float], began: float) -> None:
    """``late`` students joining through the class's time; each one's delay to the teacher's board counting it."""
    for n in range(args.late):
        await asyncio.sleep(max(0.0, began + (n + 0.5) * args.seconds / max(args.late, 1) - time.monotonic()))
        tab = await _open(apps[n % len(apps)], stack)
        reported = await join(tab, code)
        expected = joined + n + 1
        deadline = time.monotonic() + ACTION_TIMEOUT
        while time.monotonic() < deadline:
            shown = next((at for at, count in teacher.boards if at >= reported and count >= expected), None)
            if shown is not None:
                delays.append(shown - reported)
                break
            await asyncio.sleep(0.02)


def report(result: dict, args, load_before: str) -> None:
    alone, loaded, board = result["alone"], result["loaded"], result["board"]
    ratio = p95(loaded) / p95(alone) if loaded and alone else float("nan")
    print(
        f"\n{time.strftime('%Y-%m-%d')} · commit {commit()} · load average before {load_before}, after {load_average()}"
    )
    print(f"\n{args.students} students (+{args.late} late) on {args.servers} server(s), one action each every "
          f"{args.every:g} s for {args.seconds:g} s\n")  # fmt: skip
    print("| | actions | median (ms) | p95 (ms) |")
    print("|---|---|---|---|")
    print(f"| one student alone | {len(alone)} | {statistics.median(alone) * 1000:.0f} | {p95(alone) * 1000:.0f} |")
    if loaded:
        print(f"| in the class | {len(loaded)} | {statistics.median(loaded) * 1000:.0f} | {p95(loaded) * 1000:.0f} |")
    print(f"\np95 in the class / alone: **{ratio:.2f}** (budget 1.5)")
    if board:
        print(f"the board counts a new student ({len(board)} of {args.late}): p95 {p95(board):.2f} s, "
              f"max {max(board):.2f} s (budget 2 s)")  # fmt: skip
    print(f"servers' CPU while the students act: {result['cpu']:.2f} s per s (one interpreter each)")
    print(f"full runs per action: {result['runs per action']:.2f} · failed actions: {result['failed']} · exceptions: {result['exceptions']} · "
          f"servers' peak memory: {', '.join(f'{mb:.0f} MB' for mb in result['peak'])}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=200)
    parser.add_argument("--every", type=float, default=15.0)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--servers", type=int, default=1)
    parser.add_argument("--late", type=int, default=10)
    args = parser.parse_args()
    load_before = load_average()
    report(asyncio.run(paced_class(args)), args, load_before)


if __name__ == "__main__":
    main()
