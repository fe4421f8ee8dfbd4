"""A training session over the websocket alone, for ``bench/train_load.py``: it presses Train on the
training page, then sends the fragment's timer ticks as a browser tab's timer does, but draws nothing."""

from __future__ import annotations

import asyncio
import re
import time

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from testing.streamlit_client import new_element, received, rerun_message, widget_state

TARGET_TIMEOUT = 180_000  # ms a training session may take to reach its target, queue included
STEP = re.compile(r"step (\d+) of at most")
QUEUED = re.compile(r"number (\d+) in the queue")


class TimerDrivenTab:
    """A training session over the websocket alone: it presses Train, then sends the fragment's timer ticks
    at the interval the server asks for, as a browser tab's timer does, but draws nothing.

    Separates the server's share of the page's throughput from the browser's: here no Chromium
    competes with the server for the machine's cores. ``trace`` holds rows like a tab's trace.
    """

    def __init__(self, socket):
        self.socket = socket
        self.train_button: str | None = None
        self.page_hash, self.fragment, self.interval = "", "", 0.5
        self.idle = False  # a run has finished successfully since the last request
        self.place = 0  # the place in the queue the run under way has shown (0: none)
        self.trace: list[tuple[float, int, int, bool]] = []

    @property
    def reached(self) -> bool:
        return any(row[3] for row in self.trace)

    def request(self, train: bool = False, tick: bool = False) -> bytes:
        """A rerun of the training page; ``train``: with the Train button pressed; ``tick``: the fragment's timer."""
        pressed = [widget_state(self.train_button, trigger_value=True)] if train else []
        self.idle = False
        return rerun_message("train", page_hash=self.page_hash, widgets=pressed, fragment=self.fragment if tick else "")

    async def listen(self) -> None:
        """Read the server's messages for good: the button's id, the page, the timer, the step counter."""
        async for message in received(self.socket):
            kind = message.WhichOneof("type")
            if kind == "navigation":  # which page of app.py's navigation ran
                self.page_hash = message.navigation.page_script_hash
            elif kind == "auto_rerun":
                self.fragment, self.interval = message.auto_rerun.fragment_id, message.auto_rerun.interval
            elif kind == "script_finished":
                self.idle = self.idle or message.script_finished == ForwardMsg.FINISHED_SUCCESSFULLY
                self.place = 0
            elif (element := new_element(message)) is not None:
                self._read_element(element)

    def _read_element(self, element) -> None:
        kind = element.WhichOneof("type")
        if kind == "button" and element.button.label == "Train":
            self.train_button = element.button.id
        elif kind == "progress" and (match := STEP.search(element.progress.text)):
            self.trace.append((time.time(), int(match.group(1)), self.place, False))  # the queue is drawn first
        elif kind == "alert" and (match := QUEUED.search(element.alert.body)):
            self.place = int(match.group(1))
        elif kind == "alert" and "the target is reached" in element.alert.body and self.trace:
            self.trace.append((time.time(), self.trace[-1][1], 0, True))

    async def train_to_target(self) -> None:
        """Press Train, then send a timer tick every interval until the target is reached (or the time is up)."""
        await self.socket.send(self.request(train=True))
        deadline = time.time() + TARGET_TIMEOUT / 1000
        while not self.reached and time.time() < deadline:
            await asyncio.sleep(self.interval)
            if self.fragment and not self.reached:
                await self.socket.send(self.request(tick=True))
