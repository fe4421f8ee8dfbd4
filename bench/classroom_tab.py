"""A browser tab of ``bench/classroom.py`` over Streamlit's websocket (``Tab``), and what the teacher's tab does
in it: open a class, move the heads slider, change page. What a tab sends is what Streamlit's frontend
would send: the URL's query string and the page the server last said (``page_info_changed``,
``navigation``, a run's ``new_session``) with every rerun it asks for, and a rerun of each fragment the
server gives a timer (``auto_rerun``: every interval, all timers cleared when a full run starts,
``stop_auto_rerun``): the teacher's ``teacher_live`` fragment. A student's tab also waits on its server's
board for the teacher's drawings (``bench/classroom_viewer.py``, as ``ui/rooms/follower.js`` does), takes
them in place (``views``) and asks for a run of its own where the page must change."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import time
import urllib.parse
from dataclasses import dataclass, field

import websockets
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from testing.server import AppServer
from lessons.model_labels import RANDOM
from testing.streamlit_client import connect, new_element, received, rerun_message, widget_state

FIRST_PAGE, OTHER_PAGE = "multi_head", "masks"
FIRST_QUERY = urllib.parse.urlencode({"model": RANDOM})  # Multi-head's random stack, whose heads the teacher moves
SLIDER = "heads"
RUN_TIMEOUT = 60.0  # s: the teacher's own run; past it the server is taken as overwhelmed and the class ends


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
    follower: dict | None = None  # the data of the student's live part, as the last full run drew it
    views: list[tuple[float, str, str | None]] = field(default_factory=list)  # (when, page, slider): in place
    panels: list[tuple[float, str]] = field(default_factory=list)  # (when, page): the teacher's figures shown
    _slider: str | None = None
    _fragment_run: bool = False
    listener: asyncio.Task | None = None

    # what the tab sends
    def send_rerun(
        self,
        fragment: str = "",
        widgets=(),
        page_hash: str | None = None,
        query: str | None = None,
        page_name: str = "",
        auto: bool = True,
    ) -> None:
        message = rerun_message(
            page_name,
            self.query if query is None else query,
            self.page_hash if page_hash is None else page_hash,
            widgets,
            fragment,
            auto,
        )
        asyncio.ensure_future(self._send(message))

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
            async for message in received(self.socket):
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
                self.chosen = {}  # another page: the frontend forgets the values its user set
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
        elif (element := new_element(message)) is not None:
            self._element(element)
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
        elif kind == "bidi_component" and element.bidi_component.component_name == "attention_lab_follower":
            self.follower = json.loads(element.bidi_component.json)
        elif kind is not None:
            widget = getattr(element, kind)
            key = getattr(widget, "query_param_key", "")
            if key:
                self.bound.add(key)

    def take_in_place(self, drawing: dict, now: float) -> None:
        """A drawing taken in place (no run): the page stays, the heads slider shows the teacher's value."""
        slider = self.widgets.get(SLIDER)
        default = slider.options[int(slider.default[0])] if slider is not None else None
        self.views.append((now, self.page_hash, (drawing["query"].get(SLIDER) or [default])[0]))
        self.url_changes.append(now)

    def show_copy(self, drawing: dict, now: float) -> None:
        """The teacher's whole page shown in place of the tab's own (its copy and figures, no run): the teacher's
        page, with the heads value the teacher's URL holds (else the slider's default, the same on every page)."""
        self.panels.append((now, self.pages.get(drawing["page"], drawing["page"])))
        slider = self.widgets.get(SLIDER)
        default = slider.options[int(slider.default[0])] if slider is not None else None
        page = self.pages.get(drawing["page"], drawing["page"])
        self.views.append((now, page, (drawing["query"].get(SLIDER) or [default])[0]))
        self.url_changes.append(now)

    def show_panel(self, drawing: dict, now: float) -> None:
        """The teacher's figures shown above the page while its own run opens the teacher's page."""
        self.panels.append((now, self.pages.get(drawing["page"], drawing["page"])))

    def shown(self) -> tuple[str, str | None]:
        """What the tab shows: its last full run's page and slider, or a drawing taken in place since."""
        run = self.last_full_run()
        if self.views and (run is None or self.views[-1][0] > run.at):
            return self.views[-1][1:]
        return (run.page, run.slider) if run else ("", None)

    def last_full_run(self) -> Finished | None:
        return next((run for run in reversed(self.finished) if run.status == ForwardMsg.FINISHED_SUCCESSFULLY), None)

    def follow_again(self) -> None:
        """Press "Follow again" (a button of the page: a full rerun)."""
        button = self.widgets.get("Follow again")
        if button is not None:
            self.send_rerun(widgets=[widget_state(button.id, trigger_value=True)])

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
async def opened(server: AppServer, kind: type[Tab] = Tab):
    """A tab (of ``kind``) connected to ``server`` and listening."""
    async with connect(server.stream) as socket:
        socket.close_timeout = 2  # an overwhelmed server is not waited for, 120 times over, at the end
        tab = kind(socket)
        tab.listener = asyncio.ensure_future(tab.listen())
        try:
            yield tab
        finally:
            tab.closed = True
            tab._clear_timers()
            tab.listener.cancel()


# --- the teacher ----------------------------------------------------------------------------------------------


async def teacher_run(tab: Tab, **rerun) -> Finished:
    """One full run the teacher asks for (a control, a page): it ends once ``after_page`` published the view."""
    count = len(tab.finished)
    tab.send_rerun(**rerun)
    return await tab.wait_full_run(count)


async def open_class(tab: Tab) -> str:
    """Open Multi-head, press "Teach this class"; the class's code."""
    await teacher_run(tab, page_name=FIRST_PAGE, page_hash="", query=FIRST_QUERY)
    await teacher_run(tab, widgets=[widget_state(tab.widgets["Teach this class"].id, trigger_value=True)])
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


def next_heads(tab: Tab):
    """The heads slider's next option (after the last, the first) as a browser sends it and sets its URL; the value."""
    slider = tab.widgets[SLIDER]
    options, current = list(slider.options), select_slider_value(slider, tab.chosen.get(slider.id))
    value = options[(options.index(current) + 1) % len(options)]
    tab.query, tab.chosen[slider.id] = with_bound_value(tab.query, slider, value), value
    return widget_state(slider.id, string_array_value=[value]), value


async def change_heads(tab: Tab) -> str:
    """The heads slider moved to its next option, as the browser sends it for the teacher (a full run)."""
    change, value = next_heads(tab)
    await teacher_run(tab, widgets=[change])
    return value


async def change_page(tab: Tab, url_path: str) -> None:
    """A click in the navigation: the new page's hash; the query string keeps the old page's bound keys
    (the frontend's ``filterParamsForPageChange``)."""
    query = urllib.parse.parse_qs(tab.query, keep_blank_values=True)
    kept = urllib.parse.urlencode([(k, v) for k, values in query.items() if k in tab.bound for v in values])
    await teacher_run(tab, page_hash=tab.pages[url_path], query=kept)


def panel_shown(follower: Tab, since: int, target) -> float | None:
    """When the follower first showed the teacher's figures of ``target``'s page in its panel after ``since``."""
    return next((at for at, page in follower.panels[since:] if page == target[0]), None)


def reached(follower: Tab, since: tuple[int, int, int], target) -> tuple[float, bool] | None:
    """When the follower first showed ``target`` after its ``since`` (runs, views taken in place), and whether
    it took it in place (True) or by a full run of its own (False)."""
    runs, views, _ = since
    for at, page, slider in follower.views[views:]:
        if (page, slider) == target:
            return at, True
    for run in follower.finished[runs:]:
        if run.status == ForwardMsg.FINISHED_SUCCESSFULLY and (run.page, run.slider) == target:
            return run.at, False
    return None
