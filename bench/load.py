"""Many sessions at once against a real `streamlit run app.py`: every page in turn, or a memory soak.

    python bench/load.py [--sessions 30] [--reruns 10] [--think 2] [--pages multi_head train]
                         [--query "model=all-MiniLM-L6-v2 (pretrained, encoder-only (BERT-style))"] [--pretrained]
    python bench/load.py --soak [--sessions 2] [--warmup 20] [--rounds 200] [--sample-every 10]

Each session is a websocket client speaking Streamlit's own protocol (the
messages a browser sends: testing/streamlit_client.py). Every rerun it asks for carries the query string of
``--query`` (``--pretrained``: the model picker's URL key ``model`` set to the
pretrained model, on every page whose picker offers it), as a link would.

Pages (default): for each page of the navigation, one warm-up run (models and
caches built), then ``sessions`` sessions at once open the page and ask for
``reruns`` reruns each, pausing a random 0..2*think seconds before each, as a
student changing a control would (``--think 0``: back to back, the worst case).
Prints per page the median and p95 rerun time (request sent -> script
finished), the runs that raised an exception (or lost their connection), the
chart data one rerun sends and the server's peak resident memory while the page
was under load (the kernel's VmHWM, reset before each page).

Soak (``--soak``): ``sessions`` sessions run every page in turn, back to back:
``warmup`` rounds, then ``rounds`` rounds, sampling the server's resident memory
(VmRSS) every ``sample_every`` rounds. Prints the memory at the start (after
warm-up) and at the end, the largest deviation from the start ("flat": within
10 %), the samples, and the rerun times per page over the soak.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import statistics
import sys
import time
import urllib.parse
from dataclasses import dataclass
from pathlib import Path

import websockets
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.processes import memory_mb, reset_peak_memory  # noqa: E402
from testing.server import AppServer, running  # noqa: E402
from testing.streamlit_client import connect, read_run, rerun_message  # noqa: E402
from ui.pages_index import PAGES  # noqa: E402

RUN_TIMEOUT = 120.0  # s: a rerun that has not finished by then counts as an error
FLAT = 0.10  # the soak's memory is "flat" when every sample is within 10 % of the first


# --- the server -----------------------------------------------------------------------------------------------


def app_server():
    """The app on a free local port (``testing.server.running``), as websocket clients reach it: without
    the XSRF check, whose cookie only a browser presents."""
    return running("app.py", options={"server.enableXsrfProtection": "false"})


# --- one session ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Run:
    """One rerun as a session saw it: wall time (request sent -> script finished), whether it failed, chart bytes."""

    page: str
    ms: float
    failed: bool
    chart_bytes: int


def page_name(info) -> str:
    """The name a rerun request gives for a page: its url path, '' for Home (the default page)."""
    return "" if info.is_home else info.url_path


async def rerun(socket, page: str, query: str) -> Run:
    """Ask for one run of ``page`` and read the server's messages until the script has finished.

    A run that ends early because the script asked for a rerun (``st.rerun``) is followed by
    that rerun, which is waited for too. Exceptions shown on the page mark the run failed.
    """
    start = time.perf_counter()
    await socket.send(rerun_message(page, query))
    exceptions, charts = [], []

    def seen(element) -> None:
        if element.WhichOneof("type") == "exception":
            exceptions.append(element.exception.message)
            print(f"exception on {page or 'home'}: {element.exception.message}", file=sys.stderr)
        elif element.WhichOneof("type") == "bidi_component":  # a chart (ui/plotly_in_place.py)
            charts.append(len(element.bidi_component.bytes))

    status = await read_run(socket, seen)
    failed = bool(exceptions) or status == ForwardMsg.FINISHED_WITH_COMPILE_ERROR
    return Run(page, (time.perf_counter() - start) * 1000, failed, sum(charts))


async def timed_rerun(socket, page: str, query: str) -> Run:
    """``rerun`` with a time limit; a run past it, or a lost connection, is a failed run."""
    start = time.perf_counter()
    try:
        return await asyncio.wait_for(rerun(socket, page, query), RUN_TIMEOUT)
    except (asyncio.TimeoutError, websockets.ConnectionClosed) as error:
        print(f"{page or 'home'}: {type(error).__name__}", file=sys.stderr)
        return Run(page, (time.perf_counter() - start) * 1000, True, 0)


async def student(server: AppServer, page: str, query: str, reruns: int, think: float, rng: random.Random) -> list[Run]:
    """Open ``page`` (not timed), then ``reruns`` reruns, each after a random 0..2*think s pause."""
    try:
        async with connect(server.stream) as socket:
            await timed_rerun(socket, page, query)
            runs = []
            for _ in range(reruns):
                await asyncio.sleep(rng.uniform(0, 2 * think))
                runs.append(await timed_rerun(socket, page, query))
            return runs
    except (OSError, websockets.InvalidHandshake, websockets.ConnectionClosed) as error:
        print(f"{page or 'home'}: could not connect: {error}", file=sys.stderr)
        return [Run(page, 0.0, True, 0)]


async def class_at_once(
    server: AppServer, page: str, query: str, sessions: int, reruns: int, think: float, seed: int = 0
) -> list[Run]:
    """``sessions`` students on one page at once."""
    rng = random.Random(seed)
    results = await asyncio.gather(*(student(server, page, query, reruns, think, rng) for _ in range(sessions)))
    return [run for runs in results for run in runs]


# --- summaries ------------------------------------------------------------------------------------------------


def p95(values: list[float]) -> float:
    """The 95th percentile (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


def rerun_summary(runs: list[Run]) -> str:
    """``reruns | median (ms) | p95 (ms) | errors`` cells of a Markdown row."""
    times = [run.ms for run in runs if not run.failed] or [float("nan")]
    return f"{len(runs)} | {statistics.median(times):.0f} | {p95(times):.0f} | {sum(run.failed for run in runs)}"


def chart_kb(runs: list[Run]) -> str:
    sizes = [run.chart_bytes for run in runs if not run.failed]
    return f"{statistics.median(sizes) / 1024:.0f}" if sizes else "n/a"


# --- the two modes --------------------------------------------------------------------------------------------


def every_page(server: AppServer, pages: list, query: str, sessions: int, reruns: int, think: float) -> None:
    """Per page: a warm-up run, then the class at once; one Markdown row per page as it finishes."""
    print("| page | sessions | reruns | median (ms) | p95 (ms) | errors | chart data (KB) | peak RSS (MB) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|", flush=True)
    peaks_reset, highest = True, 0.0
    for info in pages:
        asyncio.run(class_at_once(server, page_name(info), query, 1, 0, 0.0))  # models and caches built
        peaks_reset = reset_peak_memory(server.pid) and peaks_reset
        runs = asyncio.run(class_at_once(server, page_name(info), query, sessions, reruns, think))
        peak = memory_mb(server.pid, "VmHWM")
        highest = max(highest, peak)
        print(f"| {info.title} | {sessions} | {rerun_summary(runs)} | {chart_kb(runs)} | {peak:.0f} |", flush=True)
    note = "" if peaks_reset else " (the peak could not be reset between pages: each is the peak since start-up)"
    print(f"\nServer RSS at the end: {memory_mb(server.pid):.0f} MB; highest peak {highest:.0f} MB{note}.")


async def soak_rounds(
    server: AppServer, pages: list, query: str, sessions: int, warmup: int, rounds: int, sample_every: int
) -> tuple[list[tuple[int, float]], list[Run]]:
    """Every session reruns every page in turn, back to back; RSS samples (round, MB) after warm-up, and the runs."""
    names = [page_name(info) for info in pages]
    async with contextlib.AsyncExitStack() as stack:
        sockets = [await stack.enter_async_context(connect(server.stream)) for _ in range(sessions)]

        async def one_round() -> list[Run]:
            async def tour(socket) -> list[Run]:
                return [await timed_rerun(socket, name, query) for name in names]

            return [run for runs in await asyncio.gather(*(tour(s) for s in sockets)) for run in runs]

        for _ in range(warmup):
            await one_round()
        samples, runs = [(0, memory_mb(server.pid))], []
        for index in range(1, rounds + 1):
            runs += await one_round()
            if index % sample_every == 0 or index == rounds:
                samples.append((index, memory_mb(server.pid)))
        return samples, runs


def soak(
    server: AppServer, pages: list, query: str, sessions: int, warmup: int, rounds: int, sample_every: int
) -> None:
    """Print the soak's memory summary, its samples and the rerun times per page."""
    samples, runs = asyncio.run(soak_rounds(server, pages, query, sessions, warmup, rounds, sample_every))
    start, end = samples[0][1], samples[-1][1]
    values = [mb for _, mb in samples]
    deviation = max(abs(mb - start) for mb in values) / start
    print(
        "| sessions | rounds (every page) | reruns | RSS after warm-up (MB) | RSS at the end (MB) | min | max | "
        "max deviation | flat (<= 10 %) |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    print(
        f"| {sessions} | {rounds} | {len(runs)} | {start:.0f} | {end:.0f} | {min(values):.0f} | {max(values):.0f} | "
        f"{deviation:.1%} | {'yes' if deviation <= FLAT else 'no'} |"
    )
    print("\nRSS (MB) by round: " + ", ".join(f"{index}: {mb:.0f}" for index, mb in samples) + "\n")
    print("| page | reruns | median (ms) | p95 (ms) | errors |")
    print("|---|---:|---:|---:|---:|")
    for info in pages:
        print(f"| {info.title} | {rerun_summary([run for run in runs if run.page == page_name(info)])} |")


# --- command line ---------------------------------------------------------------------------------------------


def pretrained_query_pair() -> tuple[str, str]:
    """("model", the picker's label of the pretrained model): what a link to a page with it picked carries."""
    from ui.model_picker import PRETRAINED, pretrained_label

    return "model", pretrained_label(next(iter(PRETRAINED)))


def chosen_pages(names: list[str] | None) -> list:
    """The navigation's pages, or those whose url path is in ``names`` (``home`` for Home)."""
    if not names:
        return list(PAGES)
    known = {info.url_path: info for info in PAGES}
    unknown = [name for name in names if name not in known]
    if unknown:
        raise SystemExit(f"unknown page(s) {unknown}; the pages are {sorted(known)}")
    return [known[name] for name in names]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, help="sessions at once (default 30; soak: 2)")
    parser.add_argument("--reruns", type=int, default=10, help="reruns per session and page")
    parser.add_argument("--think", type=float, default=2.0, help="mean pause before a rerun, s")
    parser.add_argument("--pages", nargs="*", help="url paths of the pages (default: every page; Home is 'home')")
    parser.add_argument(
        "--query",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a URL parameter for every rerun, as in a link (pages without it ignore it)",
    )
    parser.add_argument(
        "--pretrained",
        action="store_true",
        help="the model picker set to the pretrained model on every page that offers it",
    )
    parser.add_argument("--soak", action="store_true", help="memory over many reruns of every page in turn")
    parser.add_argument("--warmup", type=int, default=20, help="soak: rounds before the first memory sample")
    parser.add_argument("--rounds", type=int, default=200, help="soak: rounds (every page once each) measured")
    parser.add_argument("--sample-every", type=int, default=10, help="soak: rounds between memory samples")
    args = parser.parse_args()
    pairs = [tuple(item.split("=", 1)) for item in args.query]
    if args.pretrained:
        pairs.append(pretrained_query_pair())
    query = urllib.parse.urlencode(pairs)
    pages = chosen_pages(args.pages)
    with app_server() as server:
        if query:
            print(f"Query string of every rerun: `?{query}`\n")
        if args.soak:
            soak(server, pages, query, args.sessions or 2, args.warmup, args.rounds, args.sample_every)
        else:
            every_page(server, pages, query, args.sessions or 30, args.reruns, args.think)


if __name__ == "__main__":
    main()
