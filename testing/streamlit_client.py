"""A client of Streamlit's websocket protocol, speaking it as a browser tab does but drawing nothing: for the
benchmarks and tests that drive app servers without a browser (bench/load.py, bench/train_session.py,
bench/classroom_tab.py, tests/test_testing_servers_infra.py).

A tab opens the server's stream (``/_stcore/stream``, subprotocol ``streamlit``: ``connect``, or
``connect_blocking`` where no event loop is free), asks for runs with a ``BackMsg.rerun_script``
(``rerun_message``: the page, the URL's query string, widget values, a fragment's timer tick) and reads
``ForwardMsg``s (``received``, ``new_element``) until the run's ``script_finished`` (``read_run``).
(testing/websocket.py is the JavaScript that watches the same frames inside a real browser.)
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Iterable

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState
from websockets.sync.client import connect as connect_sync

SUBPROTOCOL = "streamlit"  # what Streamlit's frontend asks for when it opens the stream
OPEN_SECONDS = 60.0  # a busy server may take long to accept a session


# --- the connection -------------------------------------------------------------------------------------------


def connect(stream: str, headers: dict[str, str] | None = None, open_timeout: float = OPEN_SECONDS):
    """A session on the websocket ``stream`` (``async with connect(server.stream) as socket``), opened as a
    browser tab opens it, with the HTTP ``headers`` given (a cookie, say); no limit on a frame's size, since
    one run's charts can take megabytes."""
    return websockets.connect(
        stream, subprotocols=[SUBPROTOCOL], additional_headers=headers, max_size=None, open_timeout=open_timeout
    )


def connect_blocking(stream: str, headers: dict[str, str] | None = None, open_timeout: float = OPEN_SECONDS):
    """``connect`` for a caller without an event loop of its own (Playwright's sync API may hold the thread's):
    ``with connect_blocking(stream) as socket``."""
    return connect_sync(
        stream, subprotocols=[SUBPROTOCOL], additional_headers=headers, max_size=None, open_timeout=open_timeout
    )


# --- what a tab sends -----------------------------------------------------------------------------------------


def widget_state(widget_id: str, **value) -> WidgetState:
    """A widget's value as the frontend reports it with a rerun: ``trigger_value=True`` (a button pressed),
    ``string_array_value=["4"]`` (a select slider's option), ...; a list fills the field's ``data``."""
    state = WidgetState(id=widget_id)
    for name, item in value.items():
        if isinstance(item, list):
            getattr(state, name).data.extend(item)
        else:
            setattr(state, name, item)
    return state


def rerun_message(
    page: str = "",
    query: str = "",
    page_hash: str = "",
    widgets: Iterable[WidgetState] = (),
    fragment: str = "",
    auto: bool = True,
) -> bytes:
    """A serialized ``BackMsg`` asking for a run: of the page with url path ``page`` ("" for the default page)
    or with script hash ``page_hash``, under the URL's ``query`` string, with the values ``widgets`` (see
    ``widget_state``). With ``fragment``, only that fragment runs (``auto``: as its timer asks, a
    ``run_every`` tick). Fields left empty are not sent, as the frontend does not send them."""
    message = BackMsg()
    rerun = message.rerun_script
    rerun.SetInParent()  # a run of the default page with nothing else set is still a request
    rerun.query_string, rerun.page_script_hash, rerun.page_name = query, page_hash, page
    if fragment:
        rerun.fragment_id, rerun.is_auto_rerun = fragment, auto
    for widget in widgets:
        rerun.widget_states.widgets.add().CopyFrom(widget)
    return message.SerializeToString()


# --- what a tab receives --------------------------------------------------------------------------------------


def forward_message(data: bytes) -> ForwardMsg:
    """One frame the server sent, parsed."""
    message = ForwardMsg()
    message.ParseFromString(data)
    return message


async def received(socket) -> AsyncIterator[ForwardMsg]:
    """Every message the server sends on ``socket``, as it comes, for good (``websockets.ConnectionClosed``
    once the connection is gone)."""
    while True:
        yield forward_message(await socket.recv())


def new_element(message: ForwardMsg):
    """The element (``Element`` proto: markdown, a button, a chart, an exception, ...) that ``message`` adds to
    the page, or None when it adds none."""
    if message.WhichOneof("type") == "delta" and message.delta.WhichOneof("type") == "new_element":
        return message.delta.new_element
    return None


def run_end(message: ForwardMsg) -> int | None:
    """The status (``ForwardMsg.ScriptFinishedStatus``) of the run ``message`` ends, or None if it ends none.
    A run cut short for a rerun (``st.rerun``, a newer request: FINISHED_EARLY_FOR_RERUN) is no end: the run
    that follows it is."""
    if message.WhichOneof("type") != "script_finished":
        return None
    return None if message.script_finished == ForwardMsg.FINISHED_EARLY_FOR_RERUN else message.script_finished


def _take(message: ForwardMsg, seen: Callable | None) -> int | None:
    """Hand ``message``'s new element to ``seen``; the run's end status, if it is one."""
    element = new_element(message)
    if element is not None and seen is not None:
        seen(element)
    return run_end(message)


async def read_run(socket, seen: Callable | None = None) -> int:
    """Read the server's messages until the run under way ends (``run_end``); every element it draws goes to
    ``seen(element)`` as it comes. Returns the run's status."""
    while True:
        status = _take(forward_message(await socket.recv()), seen)
        if status is not None:
            return status


def read_run_blocking(socket, seen: Callable | None = None, seconds: float = 60.0) -> int:
    """``read_run`` on a ``connect_blocking`` session; TimeoutError if the run has not ended ``seconds`` later."""
    deadline = time.monotonic() + seconds
    while True:
        status = _take(forward_message(socket.recv(timeout=max(deadline - time.monotonic(), 0.001))), seen)
        if status is not None:
            return status
