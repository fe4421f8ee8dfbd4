"""Waiting for a process a test or a benchmark started to be ready, and ending it."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable

GRACE_SECONDS = 10


def end(process: subprocess.Popen, grace: float = GRACE_SECONDS) -> None:
    """Terminate ``process`` (SIGTERM) and wait for it; kill it if it has not exited ``grace`` seconds later."""
    if process.poll() is None:
        process.terminate()
    try:
        process.wait(grace)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def wait_until_ready(process: subprocess.Popen, ready: Callable[[], bool], seconds: float,
                     interval: float = 0.05) -> bool:
    """Ask ``ready()`` every ``interval`` seconds while ``process`` runs: True as soon as it says so, False once
    the process has exited or ``seconds`` have passed (the caller then says why, with the process's log)."""
    deadline = time.monotonic() + seconds
    while process.poll() is None and time.monotonic() < deadline:
        if ready():
            return True
        time.sleep(interval)
    return False
