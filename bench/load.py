"""Many sessions at once against a real `streamlit run app.py`.

    python bench/load.py [--sessions 30] [--reruns 10] [--page multi_head]

Each session is a websocket client speaking Streamlit's own protocol (the
messages a browser sends): it opens the page, then asks for ``reruns`` reruns,
pausing a random 0..2*think seconds before each, as a student changing a control
would (``--think 0``: back to back, the worst case). All sessions run at once. Prints the median and p95 rerun time (request sent -> script finished)
and the number of runs that raised an exception.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.e2e.conftest import _free_port  # noqa: E402


def rerun_message(page: str, query: str) -> bytes:
    message = BackMsg()
    message.rerun_script.query_string = query
    message.rerun_script.page_name = page
    return message.SerializeToString()


async def run_once(socket, page: str, query: str) -> tuple[float, bool]:
    """Send one rerun; return its duration in ms and whether an exception was shown."""
    start = time.perf_counter()
    await socket.send(rerun_message(page, query))
    failed = False
    while True:
        message = ForwardMsg()
        message.ParseFromString(await socket.recv())
        kind = message.WhichOneof("type")
        if kind == "delta" and message.delta.new_element.WhichOneof("type") == "exception":
            failed = True
            print("exception:", message.delta.new_element.exception.message, file=sys.stderr)
        if kind == "script_finished":
            return (time.perf_counter() - start) * 1000, failed


async def session(port: int, page: str, reruns: int, think: float, rng: random.Random) -> list[tuple[float, bool]]:
    uri = f"ws://127.0.0.1:{port}/_stcore/stream"
    async with websockets.connect(uri, subprotocols=["streamlit"], max_size=None) as socket:
        await run_once(socket, page, "")  # first load: not timed
        timings = []
        for _ in range(reruns):
            await asyncio.sleep(rng.uniform(0, 2 * think))
            timings.append(await run_once(socket, page, ""))
        return timings


async def load(port: int, sessions: int, reruns: int, page: str, think: float) -> list[tuple[float, bool]]:
    rng = random.Random(0)
    results = await asyncio.gather(*(session(port, page, reruns, think, rng) for _ in range(sessions)))
    return [item for result in results for item in result]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=30)
    parser.add_argument("--reruns", type=int, default=10)
    parser.add_argument("--page", default="", help="url path of the page ('' = Home)")
    parser.add_argument("--think", type=float, default=2.0, help="mean pause before a rerun, s")
    args = parser.parse_args()
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port), "--server.headless",
         "true", "--server.enableXsrfProtection", "false"], cwd=ROOT, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL)
    try:
        for _ in range(600):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        asyncio.run(load(port, 1, 1, args.page, 0.0))  # warm the caches once
        results = asyncio.run(load(port, args.sessions, args.reruns, args.page, args.think))
    finally:
        server.terminate()
    times = sorted(t for t, _ in results)
    p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
    errors = sum(failed for _, failed in results)
    print(f"| {args.page or 'home'} | {args.sessions} | {args.think:g} | {len(times)} | {statistics.median(times):.0f} "
          f"| {p95:.0f} | {errors} |")


if __name__ == "__main__":
    main()
