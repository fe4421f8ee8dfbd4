"""Turns: students' runs that open the teacher's new page go one after another on a server.

When the teacher changes what a page holds (another page, section or lesson step), each student's browser
starts a run of its own, all within a moment. Runs at once share one interpreter with the event loop that
sends every session's messages, and all their redraws then arrive after the last run; one at a time, they
arrive one after another. A run takes a turn before it opens the view (``take``) and gives it back when it
has drawn the page (``give_back``); a turn not given back within ``hold_seconds`` (a run that ended early) is
taken from it. Turns are handed out in the order they were asked for.
"""

from __future__ import annotations

import threading
import time
from collections import deque


class Turns:
    def __init__(self, at_once: int = 1, hold_seconds: float = 5.0, clock=time.monotonic):
        self._at_once, self._hold_seconds, self._clock = at_once, hold_seconds, clock
        self._holders: dict[str, float] = {}  # who -> when the turn is taken from them
        self._queue: deque[str] = deque()
        self._changed = threading.Condition()

    def _expire(self) -> None:
        now = self._clock()
        for who, deadline in list(self._holders.items()):
            if now >= deadline:
                del self._holders[who]

    def take(self, who: str, wait_seconds: float = 30.0) -> bool:
        """Wait for ``who``'s turn (at once if ``who`` holds one already); False if none came in ``wait_seconds``."""
        with self._changed:
            if who in self._holders:
                self._holders[who] = self._clock() + self._hold_seconds
                return True
            self._queue.append(who)
            give_up = time.monotonic() + wait_seconds
            try:
                while True:
                    self._expire()
                    if self._queue[0] == who and len(self._holders) < self._at_once:
                        self._holders[who] = self._clock() + self._hold_seconds
                        return True
                    left = give_up - time.monotonic()
                    if left <= 0:
                        return False
                    self._changed.wait(min(left, 0.05))
            finally:
                self._queue.remove(who)
                self._changed.notify_all()

    def give_back(self, who: str) -> None:
        with self._changed:
            if self._holders.pop(who, None) is not None:
                self._changed.notify_all()

    def holding(self) -> int:
        with self._changed:
            self._expire()
            return len(self._holders)
