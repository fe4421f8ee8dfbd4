"""The servers a class bench runs against (one, or several sharing a redis-server), and their CPU time: in all, per
second of nothing changing, and for one rerun of a session alone."""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass

from bench.classroom_tab import FIRST_PAGE, Tab
from bench.load import timed_rerun
from bench.processes import cpu_seconds
from testing.redis_server import redis_running
from testing.server import AppServer, start
from testing.streamlit_client import connect

REDIS_URL = "ATTENTION_LAB_REDIS_URL"
SOLO_RERUNS = 10


# --- the servers ----------------------------------------------------------------------------------------------


@dataclass
class Servers:
    apps: list[AppServer]
    redis_pid: int | None

    def pids(self) -> list[int]:
        return [app.pid for app in self.apps] + ([self.redis_pid] if self.redis_pid else [])

    def cpu(self) -> list[float]:
        return [cpu_seconds(pid) for pid in self.pids()]


@contextlib.contextmanager
def servers_running(count: int):
    options = {"server.enableXsrfProtection": "false"}
    with contextlib.ExitStack() as stack:
        env, redis_pid = None, None
        if count > 1:
            redis = stack.enter_context(redis_running())
            env, redis_pid = {REDIS_URL: redis.url}, redis.process.pid
        apps = [start("app.py", options=options, env=env) for _ in range(count)]
        for app in apps:
            stack.callback(app.stop)
        for app in apps:
            app.wait_healthy()
        yield Servers(apps, redis_pid)


def cpu_total(servers: Servers) -> float:
    return sum(servers.cpu())


async def cpu_rate(servers: Servers, seconds: float, tabs: list[Tab]) -> tuple[float, float]:
    """(server CPU s per s, runs per s over ``tabs``) over ``seconds`` of nothing changing. Every
    ``script_finished`` counts: a run whose messages were still queued when the next began is reported as
    ended early for a rerun (Streamlit's ForwardMsgQueue), and its elements are never sent."""
    cpu, runs, began = cpu_total(servers), sum(len(t.finished) for t in tabs), time.monotonic()
    await asyncio.sleep(seconds)
    took = time.monotonic() - began
    return (cpu_total(servers) - cpu) / took, (sum(len(t.finished) for t in tabs) - runs) / took


async def solo_rerun_cpu(servers: Servers) -> float:
    """CPU s of one rerun of Multi-head, one session alone (no class), median-free: total / reruns."""
    async with connect(servers.apps[0].stream) as socket:
        for _ in range(3):
            await timed_rerun(socket, FIRST_PAGE, "")  # warm
        before = servers.cpu()[0]
        for _ in range(SOLO_RERUNS):
            await timed_rerun(socket, FIRST_PAGE, "")
        return (servers.cpu()[0] - before) / SOLO_RERUNS
