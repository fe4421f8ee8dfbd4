"""On a real server, with a class open in Chromium: one client that opens far more waiting requests than a class needs
gets 429 at once past its cap, while another client's page of the class still waits and the app's pages still load
(classroom/routes.py ``WaitLimits``); told to stop, the server stops at once, though the student's page waits on the
class. The flooding client is told apart by the address the server reads: uvicorn takes ``X-Forwarded-For`` from a
proxy on 127.0.0.1, as it would from nginx."""

from __future__ import annotations

import asyncio
import re
import time
import urllib.request
from urllib.parse import urlparse

from classroom.routes import WAIT_SECONDS, WAITS_PER_ADDRESS
from testing.server import start
from tests.e2e.conftest import new_page
from tests.e2e.test_class import join, open_class
from tests.test_class_waits import in_own_loop

FLOOD = WAITS_PER_ADDRESS + 44
STOPS_WITHIN_SECONDS = 3  # a stop answers the waiting requests first (routes.answer_waits_on_stop), not after 20 s


async def held_request(host: str, port: int, path: str, forwarded: str, answered: list, hold: asyncio.Event):
    """A GET that waits on the class route from ``forwarded``; its status goes to ``answered`` when it comes."""
    reader, writer = await asyncio.open_connection(host, port)
    request = f"GET {path} HTTP/1.1\r\nHost: {host}\r\nX-Forwarded-For: {forwarded}\r\nConnection: close\r\n\r\n"
    writer.write(request.encode())
    await writer.drain()
    try:
        status_line = await asyncio.wait_for(reader.readline(), timeout=60)
        answered.append(int(status_line.split()[1]))
    except (asyncio.TimeoutError, IndexError, ValueError):
        pass
    finally:
        await hold.wait()
        writer.close()


async def flood(url: str, answered: list, check) -> None:
    """FLOOD waiting requests from one forwarded address; ``check()`` runs while they wait."""
    parsed, hold = urlparse(url), asyncio.Event()
    path = f"{parsed.path}?after=999999999&mode=plain"  # past anything the board holds: each one waits
    tasks = [
        asyncio.create_task(held_request(parsed.hostname, parsed.port, path, "10.9.9.9", answered, hold))
        for _ in range(FLOOD)
    ]
    await asyncio.sleep(3)
    await asyncio.to_thread(check)
    hold.set()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


def test_one_client_past_its_cap_is_refused_and_the_class_and_the_app_go_on(browser):
    server = start("app.py").wait_healthy()
    teacher, student = new_page(browser), new_page(browser)
    board_urls, answered, seen = [], [], {}
    try:
        student.on("request", lambda r: board_urls.append(r.url) if "/_class/" in r.url else None)
        code = open_class(teacher, server.url)
        join(student, server.url, code, "multi_head")
        class_url = next(u for u in board_urls if re.search(r"/_class/[0-9a-f]{32}", u)).split("?")[0]  # the board

        def check():
            seen["refused"] = list(answered)
            began = time.monotonic()
            with urllib.request.urlopen(f"{server.url}/_stcore/health", timeout=30) as page:
                seen["health"] = (page.status, time.monotonic() - began)
            began = time.monotonic()
            other = f"{class_url}?after=0&mode=plain"  # another client (this machine) asks the class's latest
            with urllib.request.urlopen(other, timeout=30) as answer:
                seen["other"] = (answer.status, time.monotonic() - began)

        in_own_loop(flood(class_url, answered, check))
        assert seen["refused"] == [429] * (FLOOD - WAITS_PER_ADDRESS), seen["refused"]
        assert seen["health"][0] == 200 and seen["other"][0] == 200, seen
        print(
            f"{FLOOD} waits from one address: {len(seen['refused'])} refused at once; meanwhile the health "
            f"check took {seen['health'][1]:.3f} s and another client's drawing {seen['other'][1]:.3f} s"
        )
        assert seen["health"][1] < 2 and seen["other"][1] < 2, seen
        began = time.monotonic()  # told to stop while the student's page waits on the class
        server.process.terminate()
        server.process.wait(timeout=WAIT_SECONDS)
        assert time.monotonic() - began < STOPS_WITHIN_SECONDS, "the server's stop waited for the class's students"
    finally:
        teacher.context.close()
        student.context.close()
        server.stop()
