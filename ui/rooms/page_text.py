"""What a teacher's page wrote, element by element: a student's browser takes a drawing's figures in place only
where the teacher's page wrote the same besides them (the ``digest`` in ``ui.rooms.drawing``'s layout), and
otherwise shows the teacher's whole page as its copy (``elements``, turned into HTML by ``ui.rooms.page_copy``),
so no sentence, table or number on a student's screen is older than the figures beside it.

Every element and block a run sends passes here (``ui.streamlit_internals.watch_elements``); for a teaching
session, while its page is writing (``writing``), each is kept by its place on the page (its delta path) with
its kind, the hash of its content and the message itself. A full run starts the record anew; a fragment's run
replaces what it writes at the same places. The bars around the page (the class's counts, the share popover)
are not the page's: they are written while ``writing`` is off.
"""

from __future__ import annotations

import hashlib
import threading
from contextlib import contextmanager
from dataclasses import dataclass

from streamlit.proto.Delta_pb2 import Delta

from ui.cache import resource
from ui.streamlit_internals import session_alive, session_id, watch_elements

TEXT_KINDS = frozenset(
    {
        "alert",
        "code",
        "dataframe",
        "exception",
        "graphviz_chart",
        "heading",
        "imgs",
        "json",
        "markdown",
        "metric",
        "progress",
        "table",
        "text",
        "vega_lite_chart",
    }
)
MAIN = 0  # the first part of a delta path: the page's main area (1 is the sidebar)


@dataclass(frozen=True)
class Written:
    """One element or block a page wrote: its kind (an element's type, or ``block:<type>``), the hash of its
    message and its ``Delta`` message (read only)."""

    kind: str
    digest: str
    delta: object


class PageText:
    """What each teaching session's page wrote, by place: session -> delta path -> ``Written``. ``watching`` is
    False where Streamlit gives no element to watch (then a drawing's copy is never whole)."""

    def __init__(self):
        self._records: dict[str, dict[tuple[int, ...], Written]] = {}
        self._writing: dict[str, bool] = {}
        self._first: dict[str, int | None] = {}  # the page's first place in the main area, once it writes
        self._lock = threading.Lock()
        self.watching = False

    def start(self, session: str) -> None:
        """A teaching session's full run begins: nothing written yet, and not writing. The records of sessions
        whose browser has gone are let go."""
        with self._lock:
            for gone in [other for other in self._records if other != session and not session_alive(other)]:
                self._forget(gone)
            self._records[session], self._writing[session], self._first[session] = {}, False, None

    def stop(self, session: str) -> None:
        with self._lock:
            self._forget(session)

    def _forget(self, session: str) -> None:
        for kept in (self._records, self._writing, self._first):
            kept.pop(session, None)

    def begin_page(self, session: str) -> None:
        """The page starts writing: its first element's place in the main area marks where it begins. What a
        fragment of the bars above it writes later (the teacher's live part) is not the page's."""
        with self._lock:
            if session in self._records:
                self._writing[session], self._first[session] = True, None

    def set_writing(self, session: str, on: bool) -> bool:
        """Whether the session's page is writing now; returns what it was."""
        with self._lock:
            before = self._writing.get(session, False)
            if session in self._records:
                self._writing[session] = on
            return before

    def seen(self, session: str, path: tuple[int, ...], delta, digest: str) -> None:
        """An element or block a run sent (``watch_elements``'s callback). A block sent again at a place the
        record holds (a fragment's rerun) forgets what was below it: the fragment writes it anew."""
        if len(path) < 2 or path[0] != MAIN or session not in self._records:
            return
        if delta.WhichOneof("type") == "add_block":
            kind = "block:" + (delta.add_block.WhichOneof("type") or "vertical")
        else:
            kind = delta.new_element.WhichOneof("type")
        with self._lock:
            record = self._records.get(session)
            if record is None or not self._writing.get(session):
                return
            first = self._first.get(session)
            if first is None:
                self._first[session] = path[1]
            elif path[1] < first:
                return
            if kind.startswith("block:") and path in record:
                depth = len(path)
                for below in [kept for kept in record if len(kept) > depth and kept[:depth] == path]:
                    del record[below]
            if kind == "bidi_component":  # only its name is read: the figure itself is not kept
                delta = light_component(delta)
            record[path] = Written(kind, digest, delta)

    def digest(self, session: str) -> str:
        """One digest of the text-like elements the session's page wrote (``TEXT_KINDS``), by place."""
        with self._lock:
            items = sorted(
                (path, written.digest)
                for path, written in self._records.get(session, {}).items()
                if written.kind in TEXT_KINDS
            )
        return hashlib.sha256(repr(items).encode()).hexdigest()[:16]

    def elements(self, session: str) -> dict[tuple[int, ...], Written]:
        """Everything the session's page wrote since its last full run began, by place."""
        with self._lock:
            return dict(self._records.get(session, {}))


def light_component(delta):
    """A component's element with only its name and the first line of its data (a chart's name)."""
    component = delta.new_element.bidi_component
    light = Delta()
    light.new_element.bidi_component.component_name = component.component_name
    light.new_element.bidi_component.bytes = component.bytes.split(b"\n", 1)[0]
    return light


_current: PageText | None = None  # the record the process's one watch writes to


def _seen(session: str, path: tuple[int, ...], delta, digest: str) -> None:
    if _current is not None:
        _current.seen(session, path, delta, digest)


@resource()
def page_text() -> PageText:
    """The server's record, watching every run's elements from its first use on."""
    global _current
    record = PageText()
    record.watching = watch_elements(_seen)
    _current = record
    return record


@contextmanager
def writing(on: bool):
    """While inside: this session's page is writing (True) or not (False); then as it was."""
    record, session = page_text(), session_id()
    before = record.set_writing(session, on)
    try:
        yield
    finally:
        record.set_writing(session, before)
