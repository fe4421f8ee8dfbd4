"""A server-wide cap on concurrent trainings, with a visible place in the queue.

Streamlit runs sessions as threads of one process, and the machine may have two cores:
more trainings at once would only slow every session down. A session that wants to
train registers a heartbeat before each chunk of steps; the first ``capacity``
sessions (in order of arrival) train, the others wait and see their place. A session
that stops asking (paused, finished, or its browser tab closed) drops out after
``timeout`` seconds, so a closed tab never holds a slot.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict

from ui.cache import resource

CAPACITY = 2
TIMEOUT = 3.0


class TrainingSlots:
    """Who may train now: ``admit(session)`` returns 0 when the session may train, else its place (1 = next)."""

    def __init__(self, capacity: int = CAPACITY, timeout: float = TIMEOUT):
        self.capacity, self.timeout = capacity, timeout
        self._lock = threading.Lock()
        self._seen: OrderedDict[str, float] = OrderedDict()  # session -> last heartbeat, in order of arrival

    def admit(self, session: str, now: float | None = None) -> int:
        now = time.monotonic() if now is None else now
        with self._lock:
            for stale in [s for s, t in self._seen.items() if now - t > self.timeout]:
                del self._seen[stale]
            self._seen[session] = now  # keeps its place if already queued
            place = list(self._seen).index(session)
            return 0 if place < self.capacity else place - self.capacity + 1

    def leave(self, session: str) -> None:
        with self._lock:
            self._seen.pop(session, None)

    def training(self) -> int:
        """How many sessions hold a slot now."""
        with self._lock:
            return min(len(self._seen), self.capacity)


@resource()
def training_slots() -> TrainingSlots:
    """The one queue of this server process."""
    return TrainingSlots()
