"""What a teacher's page wrote besides its charts, as one digest: a student's browser takes a drawing in place
only where the teacher's page wrote the same (``ui.rooms.drawing``'s layout), and runs its own page otherwise,
so no sentence, table or number on a student's screen is older than the figures beside it.

Every element a run sends passes here (``ui.streamlit_internals.watch_elements``); for a teaching session,
while its page is writing (``writing``), each text-like element is kept by its place on the page (its delta
path) with the hash of its content. A full run starts the record anew; a fragment's run replaces what it
writes at the same places. The bars around the page (the class's counts, the share popover) are not the
page's: they are written while ``writing`` is off.
"""

from __future__ import annotations

import hashlib
import threading
from contextlib import contextmanager

from ui.cache import resource
from ui.streamlit_internals import session_id, watch_elements

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


class PageText:
    """The text-like elements each teaching session's page wrote, by place: session -> delta path -> hash."""

    def __init__(self):
        self._records: dict[str, dict[tuple[int, ...], str]] = {}
        self._writing: dict[str, bool] = {}
        self._lock = threading.Lock()

    def start(self, session: str) -> None:
        """A teaching session's full run begins: nothing written yet, and not writing."""
        with self._lock:
            self._records[session], self._writing[session] = {}, False

    def stop(self, session: str) -> None:
        with self._lock:
            self._records.pop(session, None)
            self._writing.pop(session, None)

    def set_writing(self, session: str, on: bool) -> bool:
        """Whether the session's page is writing now; returns what it was."""
        with self._lock:
            before = self._writing.get(session, False)
            if session in self._records:
                self._writing[session] = on
            return before

    def seen(self, session: str, path: tuple[int, ...], kind: str, digest: str) -> None:
        """An element a run sent (``watch_elements``'s callback)."""
        if kind not in TEXT_KINDS or not path or path[0] != MAIN:
            return
        with self._lock:
            record = self._records.get(session)
            if record is not None and self._writing.get(session):
                record[path] = digest

    def digest(self, session: str) -> str:
        """One digest of everything the session's page wrote, by place."""
        with self._lock:
            items = sorted(self._records.get(session, {}).items())
        return hashlib.sha256(repr(items).encode()).hexdigest()[:16]


@resource()
def page_text() -> PageText:
    """The server's record, watching every run's elements from its first use on."""
    record = PageText()
    watch_elements(record.seen)
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
