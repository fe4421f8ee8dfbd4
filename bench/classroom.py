"""A class under load: one teacher, many students following the teacher's view.

    python bench/classroom.py [--followers 60] [--changes 10] [--servers 1|2] [--idle 10] [--settle 1.5]
                              [--profile]

Against real `streamlit run app.py` servers: with ``--servers 2``, a ``redis-server`` and two app
servers given ``ATTENTION_LAB_REDIS_URL`` (the rooms shared through Redis), the teacher on server A and
the followers split evenly between A and B.

Every session is a websocket client speaking Streamlit's protocol (``testing/streamlit_client.py``) that
behaves as a browser tab does (``bench/classroom_tab.py``): the URL and page the server last gave it go with every
rerun it asks for, the teacher's live fragment runs on its timer, and a follower's runs are the ones its
server starts when the class changes (``classroom/watcher.py``). The teacher opens Multi-head attention and presses "Teach this
class"; each follower opens the join link ``/?room=CODE``. Then the teacher makes ``changes`` changes of
the heads slider (the slider's new value as the browser sends it), and two page changes in the middle
(to Masks and back, as a click in the navigation sends them: the page's bound URL keys kept).

Per change, from the teacher's input (the rerun request sent: the view is published by the teacher's
run, in ``after_page``, somewhere before that run's ``script_finished`` reaches the teacher, which a busy
server delays; so this counts the teacher's own run too, given apart) to each follower's
``script_finished`` of its first full run that shows the teacher's view: the teacher's page, and the heads
slider at the teacher's value (followers whose URL state then differs from the teacher's are counted
apart). "detect" is the time until the follower's URL changed (``page_info_changed``, or a
new page's run started), "redraw" the rest. Errors: a follower that did not
show the view within ``FOLLOW_TIMEOUT`` of the teacher's run, or that fell out of following though it did
nothing ("Exploring on my own"; it then presses "Follow again" before the next change, as a student
would), or missed the join; exceptions on a page and lost connections are counted too. A teacher's run
that does not finish within ``RUN_TIMEOUT`` ends the class (the server is overwhelmed).

The servers' CPU (``/proc/<pid>/stat`` utime + stime; with Redis, the redis-server's too) is read before
and after: ``idle`` seconds with every follower joined and nothing changing (and the teacher alone
before the followers join) give the idle cost per second; each change's window (from the teacher's
request to every follower's redraw plus ``settle`` seconds) less the idle cost over that window is the
change's cost, given per follower and in reruns of Multi-head alone. One session rerunning Multi-head alone (10 reruns, before the class) gives the cost of a
single rerun to compare with. Full runs, and runs "ended early for a rerun" (a run whose messages were
still queued when the session's next run began: Streamlit drops them unsent), are counted per follower.
Peak memory is the kernel's VmHWM of each server at the end. Prints Markdown tables with the date, the
commit and the load average (other jobs share the machine). ``--profile``: py-spy (``pip install
py-spy``) samples server A while idle and during the changes, only threads holding the GIL, and a table
says which part of the server the interpreter's time went to.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import os
import shutil
import sys
import time
import urllib.parse
from pathlib import Path


ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.classroom_report import (  # noqa: E402
    FOLLOW_TIMEOUT,
    Change,
    Result,
    print_profile,
    profiled,
    report,
)
from bench.classroom_tab import (  # noqa: E402
    FIRST_PAGE,
    OTHER_PAGE,
    SLIDER,
    Finished,
    Tab,
    change_heads,
    panel_shown,
    reached,
    change_page,
    open_class,
    opened,
    teacher_run,
)
from bench.classroom_servers import Servers, cpu_rate, cpu_total, servers_running, solo_rerun_cpu  # noqa: E402
from bench.classroom_viewer import follow_board  # noqa: E402
from bench.load import p95  # noqa: E402
from bench.processes import cpu_seconds, load_average, memory_mb  # noqa: E402
from testing.server import AppServer  # noqa: E402

ROOM_KEYS = ("room", "teach")  # the class's own URL keys (ui/rooms/membership.py)
JOIN_BATCH = 10  # followers opening the join link at once


# --- measuring ------------------------------------------------------------------------------------------------


def shown(tab: Tab) -> tuple[str, str | None]:
    """What a view is recognised by on screen: its page and the heads slider's value (both pages have one),
    from the tab's last full run or a drawing taken in place since."""
    return tab.shown()


def query_of(run: Finished) -> dict[str, list[str]]:
    query = urllib.parse.parse_qs(run.query, keep_blank_values=True)
    return {key: value for key, value in query.items() if key not in ROOM_KEYS}


async def settled(followers: list[Tab], target, timeout: float = FOLLOW_TIMEOUT) -> bool:
    """Wait until every follower's last full run shows ``target`` (``shown``)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if all(shown(f) == target for f in followers):
            return True
        await asyncio.sleep(0.05)
    return False


async def one_change(kind: str, teacher: Tab, followers: list[Tab], servers: Servers, settle: float, action) -> Change:
    """The teacher's change (``action``), timed to each follower's redraw; CPU over the change's window."""
    cpu_before, began = cpu_total(servers), time.monotonic()
    counts = [(f.full_runs, f.early_runs, f.fell_out) for f in followers]
    since = [(len(f.finished), len(f.views), len(f.panels)) for f in followers]
    try:
        await action()
    except TimeoutError as error:  # the teacher's own run did not finish: every follower missed the change
        print(f"  the teacher's {kind} change: {error}", file=sys.stderr)
        return Change(
            kind,
            [],
            [],
            [],
            len(followers),
            0,
            [0] * len(followers),
            [0] * len(followers),
            cpu_total(servers) - cpu_before,
            time.monotonic() - began,
            0,
            0,
            teacher_failed=True,
        )
    published = teacher.last_full_run().at  # the teacher's browser has the new view
    target, url = shown(teacher), query_of(teacher.last_full_run())
    runs: dict[int, tuple[float, bool]] = {}
    deadline = published + FOLLOW_TIMEOUT  # a follower can only be told once it is published
    while len(runs) < len(followers) and time.monotonic() < deadline:
        for index, follower in enumerate(followers):
            if index not in runs and (run := reached(follower, since[index], target)):
                runs[index] = run
        await asyncio.sleep(0.02)
    done = max([at for at, _ in runs.values()] + [published])
    await asyncio.sleep(max(0.0, done + settle - time.monotonic()))
    window = time.monotonic() - began
    cpu = cpu_total(servers) - cpu_before
    latencies, detect, redraw = [], [], []
    panels = [
        at - began
        for index, follower in enumerate(followers)
        if (at := panel_shown(follower, since[index][2], target)) is not None
    ]
    for index, (at, _in_place) in runs.items():
        latencies.append(at - began)
        changed = [t for t in followers[index].url_changes if began <= t <= at]
        if changed:
            detect.append(changed[0] - began)
            redraw.append(at - changed[0])
    return Change(
        kind,
        latencies,
        detect,
        redraw,
        len(followers) - len(runs),
        sum(in_place for _, in_place in runs.values()),
        [f.full_runs - before for f, (before, _, _) in zip(followers, counts)],
        [f.early_runs - before for f, (_, before, _) in zip(followers, counts)],
        cpu,
        window,
        sum(
            query_of(follower.last_full_run()) != url
            for index, follower in enumerate(followers)
            if index in runs and not runs[index][1]
        ),
        sum(f.fell_out - before for f, (_, _, before) in zip(followers, counts)),
        teacher=published - began,
        panels=panels,
    )


async def join(follower_servers: list[AppServer], code: str, stack: contextlib.AsyncExitStack) -> list[Tab]:
    followers = []
    for server in follower_servers:
        tab = await stack.enter_async_context(opened(server))
        viewer = asyncio.ensure_future(follow_board(tab, server.url))
        stack.callback(viewer.cancel)
        tab.send_rerun(query=f"room={code}", page_hash="", page_name="")
        followers.append(tab)
        if len(followers) % JOIN_BATCH == 0:
            await asyncio.sleep(0.5)
    return followers


def change_plan(changes: int) -> list[str]:
    """``changes`` changes of the heads slider with two page changes (there and back) in the middle."""
    plan = ["heads"] * changes
    plan[changes // 2 : changes // 2] = [OTHER_PAGE, FIRST_PAGE]
    return plan


async def classroom(
    servers: Servers, followers: int, changes: int, idle: float, settle: float, profile: dict[str, Path] | None
) -> Result:
    solo = await solo_rerun_cpu(servers)
    for app in servers.apps:  # every view the class will see, on every server: models and caches built
        async with opened(app) as warm:
            await teacher_run(warm, page_name=FIRST_PAGE, page_hash="", query="")
            for _ in range(len(warm.widgets[SLIDER].options)):
                await change_heads(warm)
            await change_page(warm, OTHER_PAGE)
    async with contextlib.AsyncExitStack() as stack:
        teacher = await stack.enter_async_context(opened(servers.apps[0]))
        code = await open_class(teacher)
        idle_teacher, _ = await cpu_rate(servers, min(idle, 5.0), [teacher])
        alone = []  # the teacher's own runs with no follower: the same changes of the heads slider
        for _ in range(changes):
            began = time.monotonic()
            await change_heads(teacher)
            alone.append(teacher.last_full_run().at - began)
            await asyncio.sleep(0.3)
        homes = [servers.apps[i * len(servers.apps) // followers] for i in range(followers)]
        began = time.monotonic()
        tabs = await join(homes, code, stack)
        ok = await settled(tabs, shown(teacher), timeout=max(FOLLOW_TIMEOUT, followers * 1.0))
        joined = time.monotonic() - began
        join_errors = 0 if ok else sum(shown(f) != shown(teacher) for f in tabs)
        print(f"  joined: {followers - join_errors}/{followers} in {joined:.1f} s", file=sys.stderr)
        await asyncio.sleep(2.0)  # the joins' runs are over
        with profiled(servers, "idle", profile):
            idle_rate, idle_runs = await cpu_rate(servers, idle, tabs)
        print(
            f"  idle: {idle_rate:.2f} CPU s per s, {idle_runs:.1f} followers' runs per s (teacher alone "
            f"{idle_teacher:.3f})",
            file=sys.stderr,
        )
        results, pressed = [], 0
        recording = contextlib.ExitStack()
        recording.enter_context(profiled(servers, "changes", profile))
        for kind in change_plan(changes):
            # a follower that fell out of following since (a student would see it) presses "Follow again"
            for tab in tabs:
                if not tab.following:
                    tab.follow_again()
                    pressed += 1
            await settled(tabs, shown(teacher))
            await asyncio.sleep(1.0)  # the last change's runs are over
            if kind == "heads":
                action = functools.partial(change_heads, teacher)
            else:
                action = functools.partial(change_page, teacher, kind)
            change = await one_change(
                "heads" if kind == "heads" else f"page ({kind})", teacher, tabs, servers, settle, action
            )
            results.append(change)
            if change.teacher_failed:
                print("  the teacher's run did not finish: no more changes", file=sys.stderr)
                break
            print(
                f"  {change.kind}: {len(change.latencies)}/{len(tabs)}, p95 "
                f"{p95(change.latencies) if change.latencies else float('nan'):.2f} s, fell out {change.fell_out}",
                file=sys.stderr,
            )
        recording.close()
        everyone = [teacher, *tabs]
        return Result(
            changes=results,
            idle_teacher=idle_teacher,
            teacher_alone=alone,
            idle=idle_rate,
            idle_runs_per_second=idle_runs,
            solo=solo,
            joined=joined,
            join_errors=join_errors,
            errors=sum(c.missing + c.fell_out for c in results) + join_errors,
            exceptions=sum(t.exceptions for t in everyone),
            pressed=pressed,
            lost=sum(t.closed for t in everyone),
            peaks=[memory_mb(app.pid, "VmHWM") for app in servers.apps],
            bench_cpu=cpu_seconds(os.getpid()),
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--followers", type=int, default=60)
    parser.add_argument("--changes", type=int, default=10, help="changes of the heads slider (and 2 page changes)")
    parser.add_argument(
        "--servers",
        type=int,
        choices=(1, 2, 3),
        default=1,
        help="2 or 3: app servers sharing Redis, the followers split evenly, the teacher on the first",
    )
    parser.add_argument("--idle", type=float, default=10.0, help="s measured with nothing changing")
    parser.add_argument(
        "--settle", type=float, default=1.5, help="s after the last follower's redraw, in a change's window"
    )
    parser.add_argument(
        "--profile",
        action="store_true",
        help="sample the first server with py-spy (--gil) while idle and during the changes",
    )
    args = parser.parse_args()
    if args.profile and not shutil.which("py-spy"):
        raise SystemExit("--profile needs py-spy (pip install py-spy)")
    load_before = load_average()
    with servers_running(args.servers) as servers:
        profile = {} if args.profile else None
        result = asyncio.run(classroom(servers, args.followers, args.changes, args.idle, args.settle, profile))
    report(result, args, load_before)
    if profile:
        print_profile(profile)


if __name__ == "__main__":
    main()
