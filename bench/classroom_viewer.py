"""The student's live part of ``bench/classroom.py``, as ``ui/rooms/follower.js`` behaves in a browser: it waits on
its server's board (``GET _class/<token>?after=N``, one keep-alive connection) and takes each new drawing in
place where its page wrote the same, shows the drawing's copy of the teacher's page where it is whole, or
asks for a run of its session where the page must change (presentation mode, a changed state of the class, a
copy that is not whole), once a change, showing the teacher's figures meanwhile (another page's run a moment
later, as the browser's). What a tab shows after a drawing taken in place or shown as the copy is recorded as
the follower's view (``Tab.views``), with when it arrived."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
import urllib.parse

RETRY_SECONDS = 1.0
OPEN_AFTER_SECONDS = (0.3, 1.0)  # follower.js's OPEN_AFTER_MS: another page's own run starts within this


class BoardClient:
    """HTTP/1.1 GETs over one kept-alive connection to an app server."""

    def __init__(self, host: str, port: int):
        self.host, self.port = host, port
        self._reader = self._writer = None

    async def get(self, path: str) -> tuple[int, dict[str, str], bytes]:
        if self._writer is None:
            self._reader, self._writer = await asyncio.open_connection(self.host, self.port, limit=2**24)
        self._writer.write(f"GET {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n\r\n".encode())
        await self._writer.drain()
        status_line = await self._reader.readline()
        if not status_line:
            await self.close()
            raise ConnectionError("the server closed the connection")
        status = int(status_line.split()[1])
        headers = {}
        while (line := await self._reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode().partition(":")
            headers[name.strip().lower()] = value.strip()
        body = await self._reader.readexactly(int(headers.get("content-length", "0")))
        return status, headers, body

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            with contextlib.suppress(Exception):
                await self._writer.wait_closed()
        self._reader = self._writer = None


def heading(body: bytes) -> dict:
    """The served body without its figures (``{"status", "drawing"}``, the drawing's ``charts`` left out): what a
    browser compares, read without parsing hundreds of kilobytes for each of hundreds of followers in this one
    process (a browser parses its own, in its own process)."""
    cut = body.find(b',"charts":')
    return json.loads(body[:cut] + b"}}") if cut >= 0 else json.loads(body)


def same_status(a: dict | None, b: dict | None) -> bool:
    return bool(a and b) and (a["kind"], a["recheck"], sorted(a["revealed"])) == (
        b["kind"],
        b["recheck"],
        sorted(b["revealed"]),
    )


async def follow_board(tab, server_url: str) -> None:
    """Run as long as ``tab`` is open: what follower.js does with the follower data of the tab's last run
    (``tab.follower``)."""
    parts = urllib.parse.urlsplit(server_url)
    client = BoardClient(parts.hostname, parts.port)
    woken: set[str] = set()
    seen_data, after, layout = None, 0, None
    try:
        while not tab.closed:
            data = tab.follower
            if data is None:
                await asyncio.sleep(0.05)
                continue
            if data is not seen_data:  # a new run drew the page: start from what it says
                seen_data, after, layout, woken = data, 0, data["layout"], set()  # the latest first, as the browser
            try:
                status, headers, body = await client.get(f"/{data['url']}?after={after}&mode={data['mode']}")
            except (ConnectionError, OSError, asyncio.IncompleteReadError):
                await client.close()
                await asyncio.sleep(RETRY_SECONDS)
                continue
            if tab.follower is not seen_data or status == 204:
                continue
            if status != 200:
                await asyncio.sleep(RETRY_SECONDS)
                continue
            after = int(headers["x-class-sequence"])
            served = heading(body)
            drawing, state = served["drawing"], served["status"]
            reason = None
            if state and not same_status(state, data["status"]):
                reason = f"status:{json.dumps(state, sort_keys=True)}"
            elif data["following"] and drawing["version"] > data["version"]:
                parts, text = drawing["layout"].split("|")
                own_parts, own_text = (layout or "|").split("|")
                if data["followPresent"] and drawing["present"] != data["present"]:
                    reason = f"view:{drawing['version']}"
                elif (parts, text) == (own_parts, own_text):
                    tab.take_in_place(drawing, time.monotonic())
                elif drawing.get("whole") is True:  # the teacher's page in place of the tab's own: no run
                    tab.show_copy(drawing, time.monotonic())
                elif parts != own_parts:  # the panel at once, the page's own run a moment later
                    tab.show_panel(drawing, time.monotonic())
                    delayed = f"view:{drawing['version']}"
                    if delayed not in woken:
                        woken.add(delayed)
                        asyncio.get_running_loop().call_later(random.uniform(*OPEN_AFTER_SECONDS), tab.send_rerun)
                else:
                    tab.take_in_place(drawing, time.monotonic())
                    reason = f"text:{drawing['version']}"  # the page runs again for its sentences
            elif data["following"] and drawing["version"] == data["version"] and layout is None:
                layout = drawing["layout"]
            if reason and reason not in woken:
                woken.add(reason)
                tab.send_rerun()  # the component's trigger: a full run of the session
    finally:
        await client.close()
