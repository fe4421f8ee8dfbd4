"""A class under load: one teacher, many students following the teacher's view.

    python bench/classroom.py [--followers 60] [--changes 10] [--servers 1|2] [--idle 10] [--settle 1.5]
                              [--profile]

Against real `streamlit run app.py` servers: with ``--servers 2``, a ``redis-server`` and two app
servers given ``ATTENTION_LAB_REDIS_URL`` (the rooms shared through Redis), the teacher on server A and
the followers split evenly between A and B.

Every session is a websocket client speaking Streamlit's protocol (``bench/load.py``) that behaves as a
browser tab does (``Tab``): it keeps the URL's query string and the page the server last said
(``page_info_changed``, ``navigation``) and sends them with every rerun it asks for; it runs the timers
of the fragments the server asks for (``auto_rerun``: a rerun of that fragment every interval, all timers
cleared when a full run starts, ``stop_auto_rerun``), so a student's ``live`` fragment polls the room
every half second as in the browser. The teacher opens Multi-head attention and presses "Teach this
class"; each follower opens the join link ``/?room=CODE``. Then the teacher makes ``changes`` changes of
the heads slider (the slider's new value as the browser sends it), and two page changes in the middle
(to Masks and back, as a click in the navigation sends them: the page's bound URL keys kept).

Per change, from the teacher's input (the rerun request sent: the view is published by the teacher's
run, in ``after_page``, somewhere before that run's ``script_finished`` reaches the teacher, which a busy
server delays; so this counts the teacher's own run too, given apart) to each follower's
``script_finished`` of its first full run that shows the teacher's view: the teacher's page, and the heads
slider at the teacher's value (followers whose URL state then differs from the teacher's are counted
apart). "detect" is the time until the follower's URL changed (``page_info_changed``, or a
new page's run started: its poll opened the view), "redraw" the rest. Errors: a follower that did not
show the view within ``FOLLOW_TIMEOUT`` of the teacher's run, or that fell out of following though it did
nothing ("Exploring on my own"; it then presses "Follow again" before the next change, as a student
would), or missed the join; exceptions on a page and lost connections are counted too. A teacher's run
that does not finish within ``RUN_TIMEOUT`` ends the class (the server is overwhelmed).

The servers' CPU (``/proc/<pid>/stat`` utime + stime; with Redis, the redis-server's too) is read before
and after: ``idle`` seconds with every follower polling and nothing changing (and the teacher alone
before the followers join) give the cost of polling per second; each change's window (from the teacher's
request to every follower's redraw plus ``settle`` seconds) less the polling over that window is the
change's cost. One session rerunning Multi-head alone (10 reruns, before the class) gives the cost of a
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
import datetime
import functools
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.load import connected, memory_mb, p95, timed_rerun  # noqa: E402
from bench.train_load import cpu_seconds  # noqa: E402
from testing.redis_server import redis_running  # noqa: E402
from testing.server import AppServer, start  # noqa: E402

ROOM_KEYS = ("room", "teach")  # the class's own URL keys (ui/rooms/follow.py)
FIRST_PAGE, OTHER_PAGE = "multi_head", "masks"
SLIDER = "heads"
FOLLOW_TIMEOUT = 30.0  # s: a follower that has not shown the teacher's view by then counts as an error
RUN_TIMEOUT = 60.0  # s: the teacher's own run; past it the server is taken as overwhelmed and the class ends
JOIN_BATCH = 10  # followers opening the join link at once
SOLO_RERUNS = 10
REDIS_URL = "ATTENTION_LAB_REDIS_URL"


# --- a browser tab over the websocket ------------------------------------------------------------------------

@dataclass
class Finished:
    """A run's end as a tab saw it: when, how (ForwardMsg.ScriptFinishedStatus), the page and query string
    the tab held then and the heads slider's value that run drew (None if it drew none)."""

    at: float
    status: int
    page: str
    query: str
    slider: str | None


@dataclass
class Tab:
    """One browser tab, without the drawing: what it sends is what Streamlit's frontend would send."""

    socket: object
    query: str = ""
    page_hash: str = ""
    pages: dict[str, str] = field(default_factory=dict)  # url path -> page script hash (the navigation)
    timers: dict[str, tuple[float, asyncio.Task]] = field(default_factory=dict)  # fragment id -> (interval, task)
    widgets: dict[str, object] = field(default_factory=dict)  # label -> element proto, this full run
    bound: set[str] = field(default_factory=set)  # URL keys bound to the page's widgets (this full run)
    finished: list[Finished] = field(default_factory=list)
    url_changes: list[float] = field(default_factory=list)  # when the URL (query string or page) changed
    texts: list[str] = field(default_factory=list)  # markdown of the last run (the class's caption)
    chosen: dict[str, str] = field(default_factory=dict)  # widget id -> value this tab's user set
    following: bool = False  # the class's caption: "Following the teacher", not "Exploring on my own"
    fell_out: int = 0  # times the caption went from following to exploring
    full_runs: int = 0
    early_runs: int = 0
    fragment_runs: int = 0
    exceptions: int = 0
    closed: bool = False
    _slider: str | None = None
    _fragment_run: bool = False
    listener: asyncio.Task | None = None

    # what the tab sends
    def send_rerun(self, fragment: str = "", widgets=(), page_hash: str | None = None, query: str | None = None,
                   page_name: str = "", auto: bool = True) -> None:
        message = BackMsg()
        rerun = message.rerun_script
        rerun.query_string = self.query if query is None else query
        rerun.page_script_hash = self.page_hash if page_hash is None else page_hash
        rerun.page_name = page_name
        if fragment:
            rerun.fragment_id, rerun.is_auto_rerun = fragment, auto
        for widget in widgets:
            rerun.widget_states.widgets.add().CopyFrom(widget)
        asyncio.ensure_future(self._send(message.SerializeToString()))

    async def _send(self, data: bytes) -> None:
        with contextlib.suppress(websockets.ConnectionClosed):
            await self.socket.send(data)

    async def _tick(self, fragment: str, interval: float) -> None:
        """setInterval: a rerun of ``fragment`` every ``interval`` s, whatever the server is doing."""
        due = time.monotonic()
        while not self.closed:
            due += interval
            await asyncio.sleep(max(0.0, due - time.monotonic()))
            self.send_rerun(fragment=fragment)

    def _clear_timers(self, fragments=None) -> None:
        for fragment in list(self.timers) if fragments is None else fragments:
            entry = self.timers.pop(fragment, None)
            if entry:
                entry[1].cancel()

    # what the tab receives
    async def listen(self) -> None:
        try:
            while True:
                message = ForwardMsg()
                message.ParseFromString(await self.socket.recv())
                self._receive(message, time.monotonic())
        except websockets.ConnectionClosed:
            self.closed = True
            self._clear_timers()

    def _receive(self, message, now: float) -> None:
        kind = message.WhichOneof("type")
        if kind == "new_session":
            self._fragment_run = bool(message.metadata.run.fragment_ids)
            if not self._fragment_run:  # a full run: the frontend clears every timer, the run sets them again
                self._clear_timers()
                self.widgets, self.bound, self.texts, self._slider = {}, set(), [], None
            if message.new_session.page_script_hash and message.new_session.page_script_hash != self.page_hash:
                self.page_hash = message.new_session.page_script_hash
                self.url_changes.append(now)
        elif kind == "navigation":
            self.pages = {page.url_pathname: page.page_script_hash for page in message.navigation.app_pages}
            if message.navigation.page_script_hash != self.page_hash:
                self.page_hash = message.navigation.page_script_hash
                self.url_changes.append(now)
        elif kind == "page_info_changed":
            if message.page_info_changed.query_string != self.query:
                self.query = message.page_info_changed.query_string
                self.url_changes.append(now)
        elif kind == "auto_rerun":
            fragment, interval = message.auto_rerun.fragment_id, message.auto_rerun.interval
            if fragment and self.timers.get(fragment, (None,))[0] != interval:
                self._clear_timers([fragment])
                self.timers[fragment] = (interval, asyncio.ensure_future(self._tick(fragment, interval)))
        elif kind == "stop_auto_rerun":
            self._clear_timers(list(message.stop_auto_rerun.fragment_ids))
        elif kind == "delta" and message.delta.WhichOneof("type") == "new_element":
            self._element(message.delta.new_element)
        elif kind == "script_finished":
            status = message.script_finished
            if status == ForwardMsg.FINISHED_SUCCESSFULLY:
                self.full_runs += 1
            elif status == ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY:
                self.fragment_runs += 1
            elif status == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                self.early_runs += 1
            self.finished.append(Finished(now, status, self.page_hash, self.query, self._slider))

    def _element(self, element) -> None:
        kind = element.WhichOneof("type")
        if kind == "exception":
            self.exceptions += 1
            print(f"exception: {element.exception.message}", file=sys.stderr)
        elif kind in ("markdown", "alert"):
            text = getattr(element, kind).body
            self.texts.append(text)
            if text.startswith("Following the teacher"):
                self.following = True
            elif text.startswith("Exploring on my own"):
                self.fell_out += self.following
                self.following = False
        elif kind in ("button", "slider"):
            widget = getattr(element, kind)
            self.widgets[widget.label] = widget
            if kind == "slider" and widget.label == SLIDER:
                self._slider = select_slider_value(widget, self.chosen.get(widget.id))
            if getattr(widget, "query_param_key", ""):
                self.bound.add(widget.query_param_key)
        elif kind is not None:
            widget = getattr(element, kind)
            key = getattr(widget, "query_param_key", "")
            if key:
                self.bound.add(key)

    def last_full_run(self) -> Finished | None:
        return next((run for run in reversed(self.finished) if run.status == ForwardMsg.FINISHED_SUCCESSFULLY),
                    None)

    def follow_again(self) -> None:
        """Press "Follow again" (a button of the ``live`` fragment: a rerun of that fragment)."""
        button = self.widgets.get("Follow again")
        if button is not None and self.timers:
            self.send_rerun(fragment=next(iter(self.timers)), auto=False,
                            widgets=[widget_state(button, trigger_value=True)])

    async def wait_full_run(self, after: int, timeout: float = RUN_TIMEOUT) -> Finished:
        """The first full run to finish after ``after`` runs had finished."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and not self.closed:
            for run in self.finished[after:]:
                if run.status == ForwardMsg.FINISHED_SUCCESSFULLY:
                    return run
            await asyncio.sleep(0.01)
        raise TimeoutError("no full run finished in time" if not self.closed else "connection lost")


@contextlib.asynccontextmanager
async def opened(server: AppServer):
    """A tab connected to ``server`` and listening."""
    async with connected(server) as socket:
        socket.close_timeout = 2  # an overwhelmed server is not waited for, 120 times over, at the end
        tab = Tab(socket)
        tab.listener = asyncio.ensure_future(tab.listen())
        try:
            yield tab
        finally:
            tab.closed = True
            tab._clear_timers()
            tab.listener.cancel()


# --- the teacher ----------------------------------------------------------------------------------------------

def widget_state(widget, **value):
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    state = WidgetState(id=widget.id)
    for name, item in value.items():
        if isinstance(item, list):
            getattr(state, name).data.extend(item)
        else:
            setattr(state, name, item)
    return state


async def teacher_run(tab: Tab, **rerun) -> Finished:
    """One full run the teacher asks for (a control changed, a page clicked): its end is when the teacher's
    view was published (``after_page`` runs last)."""
    count = len(tab.finished)
    tab.send_rerun(**rerun)
    return await tab.wait_full_run(count)


async def open_class(tab: Tab) -> str:
    """Open Multi-head, press "Teach this class"; the class's code."""
    await teacher_run(tab, page_name=FIRST_PAGE, page_hash="", query="")
    await teacher_run(tab, widgets=[widget_state(tab.widgets["Teach this class"], trigger_value=True)])
    code = urllib.parse.parse_qs(tab.query).get("room", [None])[0]
    if not code:
        raise RuntimeError(f"no class opened: the teacher's query string is {tab.query!r}")
    return code


def select_slider_value(slider, chosen: str | None = None) -> str:
    """The option a select slider shows, as the frontend decides: the value the server sets (``set_value``),
    else the one the user chose, else the default."""
    if slider.set_value and slider.raw_value:
        return slider.raw_value[0]
    return chosen if chosen is not None else slider.options[int(slider.default[0])]


def with_bound_value(query: str, slider, value: str) -> str:
    """The query string once the browser wrote a bound slider's new value into it (the frontend's
    ``maybeSyncValueToUrl``: the key dropped when the value is the default)."""
    pairs = [(k, v) for k, v in urllib.parse.parse_qsl(query, keep_blank_values=True) if k != slider.query_param_key]
    if value != slider.options[int(slider.default[0])]:
        pairs.append((slider.query_param_key, value))
    return urllib.parse.urlencode(pairs)


async def change_heads(tab: Tab) -> str:
    """The heads slider moved to its next option (after the last, the first), as the browser sends it."""
    slider = tab.widgets[SLIDER]
    options, current = list(slider.options), select_slider_value(slider, tab.chosen.get(slider.id))
    value = options[(options.index(current) + 1) % len(options)]
    tab.query, tab.chosen[slider.id] = with_bound_value(tab.query, slider, value), value
    await teacher_run(tab, widgets=[widget_state(slider, string_array_value=[value])])
    return value


async def change_page(tab: Tab, url_path: str) -> None:
    """A click in the navigation: the new page's hash; the query string keeps the old page's bound keys
    (the frontend's ``filterParamsForPageChange``)."""
    query = urllib.parse.parse_qs(tab.query, keep_blank_values=True)
    kept = urllib.parse.urlencode([(k, v) for k, values in query.items() if k in tab.bound for v in values])
    await teacher_run(tab, page_hash=tab.pages[url_path], query=kept)


# --- the servers ----------------------------------------------------------------------------------------------

@dataclass
class Servers:
    apps: list[AppServer]
    redis_pid: int | None

    def pids(self) -> list[int]:
        return [app.pid for app in self.apps] + ([self.redis_pid] if self.redis_pid else [])

    def cpu(self) -> list[float]:
        return [cpu_seconds(pid) for pid in self.pids()]


@contextlib.contextmanager
def servers_running(count: int):
    options = {"server.enableXsrfProtection": "false"}
    with contextlib.ExitStack() as stack:
        env, redis_pid = None, None
        if count > 1:
            redis = stack.enter_context(redis_running())
            env, redis_pid = {REDIS_URL: redis.url}, redis.process.pid
        apps = [start("app.py", options=options, env=env) for _ in range(count)]
        for app in apps:
            stack.callback(app.stop)
        for app in apps:
            app.wait_healthy()
        yield Servers(apps, redis_pid)


# --- measuring ------------------------------------------------------------------------------------------------

@dataclass
class Change:
    kind: str
    latencies: list[float]  # s, teacher's publish -> follower's redraw, followers that made it
    detect: list[float]
    redraw: list[float]
    missing: int
    full_runs: list[int]  # per follower, in the window: runs to the end
    early_runs: list[int]  # per follower, in the window: runs ended early for a rerun (st.rerun, st.switch_page)
    cpu: float  # s, every server process, the whole window
    window: float  # s
    other_url: int  # followers whose URL state, on the teacher's view, is not the teacher's
    fell_out: int  # followers whose caption turned to "Exploring on my own" (they did nothing)
    teacher_failed: bool = False  # the teacher's own run did not finish within RUN_TIMEOUT
    teacher: float = float("nan")  # s, the teacher's input -> the teacher's own script_finished


def cpu_total(servers: Servers) -> float:
    return sum(servers.cpu())


def shown(tab: Tab) -> tuple[str, str | None]:
    """What a view is recognised by on screen: its page and the heads slider's value (both pages have one)."""
    run = tab.last_full_run()
    return (run.page, run.slider) if run else ("", None)


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


def reached(follower: Tab, since: int, target) -> Finished | None:
    """The follower's first full run after its ``since`` first runs that shows ``target``."""
    for run in follower.finished[since:]:
        if run.status == ForwardMsg.FINISHED_SUCCESSFULLY and (run.page, run.slider) == target:
            return run
    return None


async def one_change(kind: str, teacher: Tab, followers: list[Tab], servers: Servers, settle: float,
                     action) -> Change:
    """The teacher's change (``action``), timed to each follower's redraw; CPU over the change's window."""
    cpu_before, began = cpu_total(servers), time.monotonic()
    counts = [(f.full_runs, f.early_runs, f.fell_out) for f in followers]
    since = [len(f.finished) for f in followers]
    try:
        await action()
    except TimeoutError as error:  # the teacher's own run did not finish: every follower missed the change
        print(f"  the teacher's {kind} change: {error}", file=sys.stderr)
        return Change(kind, [], [], [], len(followers), [0] * len(followers), [0] * len(followers),
                      cpu_total(servers) - cpu_before, time.monotonic() - began, 0, 0, teacher_failed=True)
    published = teacher.last_full_run().at  # the teacher's browser has the new view
    target, url = shown(teacher), query_of(teacher.last_full_run())
    runs: dict[int, Finished] = {}
    deadline = published + FOLLOW_TIMEOUT  # a follower's poll can only find it once it is published
    while len(runs) < len(followers) and time.monotonic() < deadline:
        for index, follower in enumerate(followers):
            if index not in runs and (run := reached(follower, since[index], target)):
                runs[index] = run
        await asyncio.sleep(0.02)
    done = max([run.at for run in runs.values()] + [published])
    await asyncio.sleep(max(0.0, done + settle - time.monotonic()))
    window = time.monotonic() - began
    cpu = cpu_total(servers) - cpu_before
    latencies, detect, redraw = [], [], []
    for index, run in runs.items():
        latencies.append(run.at - began)
        changed = [t for t in followers[index].url_changes if began <= t <= run.at]
        if changed:
            detect.append(changed[0] - began)
            redraw.append(run.at - changed[0])
    return Change(kind, latencies, detect, redraw, len(followers) - len(runs),
                  [f.full_runs - before for f, (before, _, _) in zip(followers, counts)],
                  [f.early_runs - before for f, (_, before, _) in zip(followers, counts)],
                  cpu, window, sum(query_of(run) != url for run in runs.values()),
                  sum(f.fell_out - before for f, (_, _, before) in zip(followers, counts)), teacher=published - began)


async def cpu_rate(servers: Servers, seconds: float, tabs: list[Tab]) -> tuple[float, float]:
    """(server CPU s per s, runs per s over ``tabs``) over ``seconds`` of nothing changing. Every
    ``script_finished`` counts: a run whose messages were still queued when the next began is reported as
    ended early for a rerun (Streamlit's ForwardMsgQueue), and its elements are never sent."""
    cpu, runs, began = cpu_total(servers), sum(len(t.finished) for t in tabs), time.monotonic()
    await asyncio.sleep(seconds)
    took = time.monotonic() - began
    return (cpu_total(servers) - cpu) / took, (sum(len(t.finished) for t in tabs) - runs) / took


async def solo_rerun_cpu(servers: Servers) -> float:
    """CPU s of one rerun of Multi-head, one session alone (no class), median-free: total / reruns."""
    async with connected(servers.apps[0]) as socket:
        for _ in range(3):
            await timed_rerun(socket, FIRST_PAGE, "")  # warm
        before = servers.cpu()[0]
        for _ in range(SOLO_RERUNS):
            await timed_rerun(socket, FIRST_PAGE, "")
        return (servers.cpu()[0] - before) / SOLO_RERUNS


async def join(follower_servers: list[AppServer], code: str, stack: contextlib.AsyncExitStack) -> list[Tab]:
    followers = []
    for server in follower_servers:
        tab = await stack.enter_async_context(opened(server))
        tab.send_rerun(query=f"room={code}", page_hash="", page_name="")
        followers.append(tab)
        if len(followers) % JOIN_BATCH == 0:
            await asyncio.sleep(0.5)
    return followers


@dataclass
class Result:
    changes: list[Change]
    idle_teacher: float
    idle: float
    polls_per_second: float
    solo: float
    joined: float
    join_errors: int
    errors: int
    exceptions: int
    pressed: int  # "Follow again" pressed for followers that had fallen out
    lost: int
    peaks: list[float]
    bench_cpu: float


def change_plan(changes: int) -> list[str]:
    """``changes`` changes of the heads slider with two page changes (there and back) in the middle."""
    plan = ["heads"] * changes
    plan[changes // 2:changes // 2] = [OTHER_PAGE, FIRST_PAGE]
    return plan


async def classroom(servers: Servers, followers: int, changes: int, idle: float, settle: float,
                    profile: dict[str, Path] | None) -> Result:
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
        homes = [servers.apps[i * len(servers.apps) // followers] for i in range(followers)]
        began = time.monotonic()
        tabs = await join(homes, code, stack)
        ok = await settled(tabs, shown(teacher), timeout=max(FOLLOW_TIMEOUT, followers * 1.0))
        joined = time.monotonic() - began
        join_errors = 0 if ok else sum(shown(f) != shown(teacher) for f in tabs)
        print(f"  joined: {followers - join_errors}/{followers} in {joined:.1f} s", file=sys.stderr)
        await asyncio.sleep(2.0)  # every timer under way
        with profiled(servers, "idle", profile):
            idle_rate, polls = await cpu_rate(servers, idle, tabs)
        print(f"  idle: {idle_rate:.2f} CPU s per s, {polls:.0f} polls per s (teacher alone {idle_teacher:.3f})",
              file=sys.stderr)
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
            await asyncio.sleep(1.0)  # every poll back to its rhythm
            if kind == "heads":
                action = functools.partial(change_heads, teacher)
            else:
                action = functools.partial(change_page, teacher, kind)
            change = await one_change("heads" if kind == "heads" else f"page ({kind})", teacher, tabs, servers,
                                      settle, action)
            results.append(change)
            if change.teacher_failed:
                print("  the teacher's run did not finish: no more changes", file=sys.stderr)
                break
            print(f"  {change.kind}: {len(change.latencies)}/{len(tabs)}, p95 "
                  f"{p95(change.latencies) if change.latencies else float('nan'):.2f} s, fell out {change.fell_out}",
                  file=sys.stderr)
        recording.close()
        everyone = [teacher, *tabs]
        return Result(
            changes=results, idle_teacher=idle_teacher, idle=idle_rate, polls_per_second=polls, solo=solo,
            joined=joined, join_errors=join_errors,
            errors=sum(c.missing + c.fell_out for c in results) + join_errors,
            exceptions=sum(t.exceptions for t in everyone), pressed=pressed,
            lost=sum(t.closed for t in everyone),
            peaks=[memory_mb(app.pid, "VmHWM") for app in servers.apps],
            bench_cpu=cpu_seconds(os.getpid()))


# --- where the server's time goes (``--profile``) ---------------------------------------------------------------

PAGE_FRAME = re.compile(r"\((pages/)?[a-z_]+/page\.py:")  # a page's script, as py-spy names it
PARTS = (  # (name, test on a sampled stack); the first that matches takes the sample
    ("the class's live fragment (ui/rooms/follow.py, its st calls)", lambda s: "live (" in s and "follow.py" in s),
    ("the pages' own code (pages/*/page.py and below)", lambda s: PAGE_FRAME.search(s) is not None),
    ("app.py and a fragment's wrapping (its container)",
     lambda s: "code_to_exec" in s and "on_script_will_rerun" not in s),
    ("session state before a run (on_script_will_rerun)", lambda s: "on_script_will_rerun" in s),
    ("a run's other machinery (script thread)", lambda s: "_run_script_thread" in s),
    ("new_session message (theme, config, pages) per run", lambda s: "_create_new_session_message" in s),
    ("a rerun request: new ScriptRunner and thread", lambda s: "handle_backmsg" in s),
    ("other ForwardMsgs on the event loop", lambda s: "_handle_scriptrunner_event_on_event_loop" in s),
    ("the event loop: websockets and the rest", lambda s: "run_forever" in s or "_run_module_as_main" in s),
    ("the rest (websocket writes, stacks py-spy could not read)", lambda s: True),
)


@contextlib.contextmanager
def profiled(servers: Servers, name: str, profile: dict[str, Path] | None):
    """py-spy samples of the first app server while the block runs, only threads holding the GIL (the CPU the
    interpreter spends), into ``profile[name]``; nothing when ``profile`` is None."""
    if profile is None:
        yield
        return
    output = Path(tempfile.mkdtemp(prefix="classroom-")) / f"{name}.txt"
    process = subprocess.Popen(["py-spy", "record", "--pid", str(servers.apps[0].pid), "--gil", "--nonblocking",
                                "--rate", "100",
                                "--format", "raw", "--output", str(output)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield
    finally:
        process.send_signal(2)  # py-spy writes its samples on SIGINT
        process.wait(30)
        profile[name] = output


def print_profile(profile: dict[str, Path]) -> None:
    """The samples of each recording by part of the server, as shares."""
    shares = {}
    for name, output in profile.items():
        counts, total = dict.fromkeys(part for part, _ in PARTS), 0
        for line in output.read_text().splitlines() if output.exists() else []:
            stack, _, count = line.rpartition(" ")
            part = next(part for part, test in PARTS if test(stack))
            counts[part] = (counts[part] or 0) + int(count)
            total += int(count)
        shares[name] = (counts, total)
    names = list(shares)
    print("\n| where server A's interpreter time goes | " + " | ".join(f"{n} ({shares[n][1]} samples)" for n in names)
          + " |")
    print("|---|" + "---:|" * len(names))
    for part, _ in PARTS:
        print(f"| {part} | " + " | ".join(f"{(shares[n][0][part] or 0) / max(1, shares[n][1]):.0%}" for n in names)
              + " |")


# --- the report -----------------------------------------------------------------------------------------------

def ms(values: list[float], how) -> str:
    return f"{how(values) * 1000:.0f}" if values else "n/a"


def commit() -> str:
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                          text=True).stdout.strip()


def load_average() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def runs_cell(counts: list[int]) -> str:
    """Per-follower counts: their mean, and their range when they differ."""
    low, high = min(counts), max(counts)
    return f"{statistics.mean(counts):.2f}" + (f" ({low}-{high})" if low != high else "")


def report(result: Result, args, load_before: str) -> None:
    followers, changes = args.followers, result.changes
    polling = result.idle - result.idle_teacher  # the followers' share of the idle CPU
    extra = [c.cpu - result.idle * c.window for c in changes]  # a change's CPU less the polling meanwhile
    print(f"\n{datetime.date.today().isoformat()}, commit {commit()}: {args.servers} app server(s)"
          f"{' + Redis' if args.servers > 1 else ''}, {followers} followers, {len(changes)} changes of "
          f"{args.changes + 2} planned ({args.changes} of the heads slider, 2 of the page); load average "
          f"{load_before} before, "
          f"{load_average()} after.\n")
    print("| change | teacher's run (ms) | reached | median (ms) | p95 (ms) | max (ms) | detect p50 / p95 (ms) "
          "| redraw p50 / p95 (ms) "
          "| full runs per follower | ended early per follower | fell out | URL not the teacher's | window (s) "
          "| CPU (s) | CPU less polling (s) |")
    print("|---|---:|---:|---:|---:|---:|---|---|---|---|---:|---:|---:|---:|---:|")
    for index, (change, cost) in enumerate(zip(changes, extra), 1):
        kind = change.kind + (f" (the teacher's run took over {RUN_TIMEOUT:.0f} s)" if change.teacher_failed else "")
        print(f"| {index} {kind} | {change.teacher * 1000:.0f} | {len(change.latencies)}/{followers} "
              f"| {ms(change.latencies, statistics.median)} | {ms(change.latencies, p95)} "
              f"| {ms(change.latencies, max)} | {ms(change.detect, statistics.median)} / {ms(change.detect, p95)} "
              f"| {ms(change.redraw, statistics.median)} / {ms(change.redraw, p95)} | {runs_cell(change.full_runs)} "
              f"| {runs_cell(change.early_runs)} | {change.fell_out} | {change.other_url} | {change.window:.1f} "
              f"| {change.cpu:.2f} "
              f"| {cost:.2f} |")
    latencies = [x for c in changes for x in c.latencies]
    detect = [x for c in changes for x in c.detect]
    redraw = [x for c in changes for x in c.redraw]
    cost = statistics.median(extra)
    per_poll = polling / result.polls_per_second if result.polls_per_second else float("nan")
    print("\n| app servers | followers | changes | median (ms) | p95 (ms) | max (ms) | detect p95 (ms) "
          "| redraw p95 (ms) | errors | teacher's run, median (ms) | CPU idle: teacher alone / class (s per s) "
          "| polls per s | CPU per poll (ms) "
          "| CPU per change less polling (s) | per follower (ms) | one rerun alone (ms) | full runs per follower "
          "and change | peak RSS (MB) |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---|---|")
    print(f"| {args.servers} | {followers} | {len(changes)} | {ms(latencies, statistics.median)} "
          f"| {ms(latencies, p95)} | {ms(latencies, max)} | {ms(detect, p95)} | {ms(redraw, p95)} | {result.errors} "
          f"| {ms([c.teacher for c in changes if not c.teacher_failed], statistics.median)} "
          f"| {result.idle_teacher:.3f} / {result.idle:.2f} | {result.polls_per_second:.0f} | {per_poll * 1000:.1f} "
          f"| {cost:.2f} | {cost / followers * 1000:.0f} | {result.solo * 1000:.0f} "
          f"| {runs_cell([n for c in changes for n in c.full_runs])} "
          f"| {' / '.join(f'{peak:.0f}' for peak in result.peaks)} |")
    print(f"\nJoined: {followers - result.join_errors} of {followers} followers on the teacher's view "
          f"{result.joined:.1f} s after the first opened the link. Errors: followers that missed a change (not on "
          f"the teacher's view within {FOLLOW_TIMEOUT:.0f} s), that fell out of following though they did nothing "
          f"(\"Exploring on my own\"; they then pressed \"Follow again\" before the next change: "
          f"{result.pressed} presses) or that missed the join; exceptions {result.exceptions}, connections lost "
          f"{result.lost}. Polling: {polling:.2f} CPU s per s for {followers} followers, "
          f"{polling / followers * 1000:.1f} ms per s each, "
          f"{polling / followers / result.solo if result.solo else float('nan'):.2f} of a rerun alone. "
          f"The clients (this process) used {result.bench_cpu:.0f} CPU s.")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--followers", type=int, default=60)
    parser.add_argument("--changes", type=int, default=10, help="changes of the heads slider (and 2 page changes)")
    parser.add_argument("--servers", type=int, choices=(1, 2), default=1,
                        help="2: two app servers sharing Redis, the followers split evenly, the teacher on the first")
    parser.add_argument("--idle", type=float, default=10.0, help="s of polling measured with nothing changing")
    parser.add_argument("--settle", type=float, default=1.5,
                        help="s after the last follower's redraw, in a change's window")
    parser.add_argument("--profile", action="store_true",
                        help="sample the first server with py-spy (--gil) while idle and during the changes")
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
