"""Students on the other pages while some train: websocket sessions rerunning their own pages, in a thread."""

from __future__ import annotations

import asyncio
import random
import threading
import time

from bench.load import Run, page_name, timed_rerun
from testing.server import AppServer
from testing.streamlit_client import connect
from ui.pages_index import PAGES


class BackgroundClass:
    """``sessions`` websocket sessions, each rerunning its own page (not the training page) until stopped.

    Runs in a thread with its own event loop; ``runs`` holds (wall-clock start, Run) pairs.
    """

    def __init__(self, server: AppServer, sessions: int, think: float):
        self.server, self.sessions, self.think = server, sessions, think
        self.pages = [page_name(info) for info in PAGES if info.url_path != "train"]
        self.runs: list[tuple[float, Run]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=lambda: asyncio.run(self._all()), daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def between(self, start: float, end: float) -> list[Run]:
        return [run for started, run in self.runs if start <= started <= end]

    async def _all(self) -> None:
        rng = random.Random(0)
        await asyncio.gather(*(self._student(self.pages[i % len(self.pages)], rng) for i in range(self.sessions)))

    async def _student(self, page: str, rng: random.Random) -> None:
        async with connect(self.server.stream) as socket:
            await timed_rerun(socket, page, "")  # opening the page: not counted
            while not self._stop.is_set():
                await asyncio.sleep(rng.uniform(0, 2 * self.think))
                started = time.time()
                self.runs.append((started, await timed_rerun(socket, page, "")))
