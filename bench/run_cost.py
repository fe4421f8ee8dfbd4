"""What one session's run costs the server: the app's pages against the least a Streamlit run can be.

    python bench/run_cost.py [--runs 40] [--sessions 200]

A class's student whose page changes needs a run of its own session (docs/architecture.md "Classes"), one
at a time in the server's one interpreter; so the CPU of one run, times the class, bounds how soon the
last student has the whole page. Measured here, as CPU of the server process per run (``/proc``, user +
system), one websocket client (``testing.streamlit_client``) asking for ``--runs`` runs in turn:

- the app, Masks and Multi-head attention in turn (each run a change of page, as a student's on the
  teacher's page change);
- the app, Masks again and again (a run of the same page);
- ``bench/bare_page.py``: a script of 40 text elements, no navigation, no model (the floor of any run).

Then ``--sessions`` sessions of the bare script ask for a run at the same moment: the time until the last
has finished, which no page of the app can beat. Prints Markdown.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.processes import cpu_seconds  # noqa: E402
from testing.server import running  # noqa: E402
from testing.streamlit_client import connect, read_run, rerun_message  # noqa: E402

BARE = "bench/bare_page.py"


async def cpu_per_run(server, pages: list[str], runs: int) -> float:
    """ms of the server's CPU per run, ``runs`` runs of ``pages`` in turn (after one warm-up round)."""
    async with connect(server.stream) as socket:
        for page in pages:
            await socket.send(rerun_message(page))
            await read_run(socket)
        before = cpu_seconds(server.pid)
        for number in range(runs):
            await socket.send(rerun_message(pages[number % len(pages)]))
            await read_run(socket)
        return (cpu_seconds(server.pid) - before) * 1000 / runs


async def at_once(server, sessions: int) -> tuple[float, float, float]:
    """``sessions`` sessions ask for a run at one moment: (median, max) s until each finished, CPU ms per run."""
    async with contextlib.AsyncExitStack() as stack:
        sockets = [await stack.enter_async_context(connect(server.stream)) for _ in range(sessions)]
        for socket in sockets:
            await socket.send(rerun_message())
            await read_run(socket)
        before, start = cpu_seconds(server.pid), time.perf_counter()

        async def one(socket) -> float:
            await socket.send(rerun_message())
            await read_run(socket)
            return time.perf_counter() - start

        finished = await asyncio.gather(*(one(socket) for socket in sockets))
        cpu_ms = (cpu_seconds(server.pid) - before) * 1000 / sessions
    return statistics.median(finished), max(finished), cpu_ms


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--sessions", type=int, default=200)
    args = parser.parse_args()
    with running("app.py") as app:
        page_change = asyncio.run(cpu_per_run(app, ["masks", "multi_head"], args.runs))
        same_page = asyncio.run(cpu_per_run(app, ["masks"], args.runs))
    with running(BARE) as bare:
        floor = asyncio.run(cpu_per_run(bare, [""], args.runs))
        median, last, cpu_ms = asyncio.run(at_once(bare, args.sessions))
    print("| run | server CPU per run (ms) |\n|---|---:|")
    print(f"| the app, a change of page (Masks, Multi-head in turn) | {page_change:.1f} |")
    print(f"| the app, the same page again (Masks) | {same_page:.1f} |")
    print(f"| a bare script of 40 text elements | {floor:.1f} |")
    print(
        f"\n{args.sessions} sessions of the bare script at once: half finished in {median:.2f} s, the last in "
        f"{last:.2f} s ({cpu_ms:.1f} ms of CPU a run). {args.sessions} page changes of the app, one at a time, "
        f"would take {args.sessions * page_change / 1000:.1f} s of CPU."
    )


if __name__ == "__main__":
    main()
