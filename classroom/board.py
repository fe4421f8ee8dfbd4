"""The board: each class's latest drawn view on this server, handed to the students' browsers without a run of
any page script.

A teacher's run draws its page; what it drew (the figures by name, the settings, the page and what makes its
layout) is a *drawing*: JSON text, one for each way a figure is sent (``"plain"``, ``"present"`` for
presentation mode, ``"compact"`` for a compact window). The board keeps, for each class's *view token*, the latest drawing of each mode with a
sequence number that grows with every change of the class as this server sees it (a new drawing, an answer
revealed, the class ended or its store gone). A student's browser asks for "anything after number n"
(``wait_after``): answered at once when the board has something newer, otherwise when it comes, or after a
while with nothing (the browser asks again). A student who waits costs a pending request, no CPU.

Thread-safe: drawings are put by the teacher's script thread or the server's watcher thread, and the waiting
happens on the web server's event loop (``bind_loop``), woken with ``call_soon_threadsafe``.
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass, field

MODES = ("plain", "present", "compact")
FALLBACK = ("plain", "compact", "present")  # served, in this order, for a mode a drawing does not have
LAYOUTS_KEPT = 32
WAKE_AFTER_SECONDS = 0.05  # the teacher's own run sends its messages first: its redraw does not wait for the class
WAKE_BATCH = 25  # waiters answered at once; the next batch after WAKE_BATCH_SECONDS, so that every session's
WAKE_BATCH_SECONDS = 0.01  # messages (the teacher's next change among them) go out between the batches
MAX_DRAWING_BYTES = 8_000_000  # one mode's drawing: the figures of one page, float32 arrays in base64


@dataclass
class _Entry:
    sequence: int = 0
    drawings: dict[str, bytes] = field(default_factory=dict)  # mode -> JSON text of the drawing
    version: int = 0  # the room view's version the drawings show
    layout: str = ""  # their layout's digest (ui.rooms.drawing.layout_of)
    layouts: dict[int, str] = field(default_factory=dict)  # the last LAYOUTS_KEPT versions' layouts
    status: bytes = b"null"  # JSON text: the class's state as this server's watcher last saw it
    bodies: dict[str, bytes] = field(default_factory=dict)  # mode -> what is served: status and drawing
    waiters: list = field(default_factory=list)  # asyncio futures on the bound loop

    def compose(self) -> None:
        self.bodies = {
            mode: b'{"status":' + self.status + b',"drawing":' + text + b"}" for mode, text in self.drawings.items()
        }


class Board:
    """Latest drawings by view token. ``put`` replaces a token's drawings and wakes its waiters; ``wait_after``
    returns ``(sequence, drawing)`` once the token's sequence passes ``after``, or ``None`` on time-out."""

    def __init__(self):
        self._entries: dict[str, _Entry] = {}
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping = False

    def bind_loop(self, loop: asyncio.AbstractEventLoop) -> None:
        """The event loop the waiting requests run on (the first request binds it)."""
        with self._lock:
            self._loop = loop

    def put(self, token: str, drawings: dict[str, bytes], version: int, layout: str) -> int:
        """The class ``token`` now shows ``drawings`` (mode -> JSON text, each at most MAX_DRAWING_BYTES) of the
        room view's ``version``, with that ``layout``: a new sequence number, returned; its waiters are answered.
        A drawing older than the one the board has is ignored (returns the current number)."""
        too_big = [mode for mode, text in drawings.items() if len(text) > MAX_DRAWING_BYTES]
        if too_big or not drawings or any(mode not in MODES for mode in drawings):
            raise ValueError(f"a drawing must be one of {MODES} and at most {MAX_DRAWING_BYTES} bytes")
        return self._change(token, drawings=(dict(drawings), version, layout))

    def layout_at(self, token: str, version: int) -> str | None:
        """The layout of the token's drawing of the room view's ``version``, if the board had it lately."""
        with self._lock:
            entry = self._entries.get(token)
            return None if entry is None else entry.layouts.get(version)

    def drawn(self, token: str) -> tuple[int, str]:
        """The room view's version the token's drawings show and their layout ((0, "") before any)."""
        with self._lock:
            entry = self._entries.get(token)
            return (0, "") if entry is None else (entry.version, entry.layout)

    def set_status(self, token: str, status: bytes) -> int:
        """The class's state (JSON text) changed: a new sequence number for the token's waiters."""
        return self._change(token, status=status)

    def _change(self, token: str, drawings: tuple | None = None, status: bytes | None = None) -> int:
        with self._lock:
            entry = self._entries.setdefault(token, _Entry())
            if drawings is not None and drawings[1] < entry.version:
                return entry.sequence
            entry.sequence += 1
            if drawings is not None:
                entry.drawings, entry.version, entry.layout = drawings
                entry.layouts[entry.version] = entry.layout
                for old in sorted(entry.layouts)[:-LAYOUTS_KEPT]:
                    del entry.layouts[old]
            if status is not None:
                entry.status = status
            entry.compose()
            sequence, waiters, entry.waiters = entry.sequence, entry.waiters, []
            loop = self._loop
        if waiters and loop is not None:
            loop.call_soon_threadsafe(_answer_in_batches, loop, waiters)
        return sequence

    def sequence(self, token: str) -> int:
        with self._lock:
            entry = self._entries.get(token)
            return 0 if entry is None else entry.sequence

    def latest(self, token: str, mode: str) -> tuple[int, bytes] | None:
        """The token's sequence number and what is served for ``mode``, ``{"status": ..., "drawing": ...}``; where
        the drawing has no ``mode``, the plain one, else the first of ``FALLBACK`` it has; None before its first
        drawing."""
        with self._lock:
            entry = self._entries.get(token)
            if entry is None or not entry.bodies:
                return None
            if mode in entry.bodies:
                return entry.sequence, entry.bodies[mode]
            kept = [entry.bodies[kind] for kind in FALLBACK if kind in entry.bodies]
            return entry.sequence, kept[0] if kept else next(iter(entry.bodies.values()))

    def forget(self, token: str) -> None:
        with self._lock:
            entry = self._entries.pop(token, None)
            loop = self._loop
        if entry is not None and entry.waiters and loop is not None:
            loop.call_soon_threadsafe(_answer, entry.waiters)

    def stop(self) -> None:
        """The server stops: every waiting request is answered now with nothing new (a 204: the browser asks again,
        of the next server), and none waits from now on (its graceful stop waits for every answer in flight, and a
        browser may ask again on a connection still open). Call it on the bound loop."""
        with self._lock:
            self._stopping = True
            waiters = [waiter for entry in self._entries.values() for waiter in entry.waiters]
            for entry in self._entries.values():
                entry.waiters = []
        _answer(waiters)

    def tokens(self) -> list[str]:
        with self._lock:
            return list(self._entries)

    async def wait_after(self, token: str, after: int, mode: str, timeout: float) -> tuple[int, bytes] | None:
        """Wait (on the bound loop) until the token's sequence is past ``after``; then its drawing for ``mode``.
        None after ``timeout`` seconds with nothing newer, when the token is unknown, or at once with nothing newer
        once the server stops (``stop``)."""
        loop = asyncio.get_running_loop()
        with self._lock:
            entry = self._entries.get(token)
            if entry is None:
                return None
            if entry.sequence <= after:
                if self._stopping:
                    return None
                waiter = loop.create_future()
                entry.waiters.append(waiter)
            else:
                waiter = None
        if waiter is not None:
            try:
                await asyncio.wait_for(waiter, timeout)
            except asyncio.TimeoutError:
                with self._lock:
                    if waiter in entry.waiters:
                        entry.waiters.remove(waiter)
                return None
        found = self.latest(token, mode)
        return found if found is not None and found[0] > after else None

    def waiting(self, token: str) -> int:
        """How many requests wait on ``token`` now."""
        with self._lock:
            entry = self._entries.get(token)
            return 0 if entry is None else len(entry.waiters)


def _answer(waiters) -> None:
    for waiter in waiters:
        if not waiter.done():
            waiter.set_result(None)


def _answer_in_batches(loop: asyncio.AbstractEventLoop, waiters: list) -> None:
    """Answer ``waiters`` WAKE_AFTER_SECONDS from now, WAKE_BATCH at a time, WAKE_BATCH_SECONDS apart."""
    for start in range(0, len(waiters), WAKE_BATCH):
        delay = WAKE_AFTER_SECONDS + WAKE_BATCH_SECONDS * (start // WAKE_BATCH)
        loop.call_later(delay, _answer, waiters[start : start + WAKE_BATCH])


BOARD = Board()  # this server process's board
