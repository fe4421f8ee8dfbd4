"""Waiting for a process a test or a benchmark started to be ready, and ending it."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable

GRACE_SECONDS = 10
POLL_SECONDS = 0.05  # how often wait_until asks again: short beside any start-up, cheap beside a test


class NotReady(RuntimeError):
    """What a test or a benchmark waited for did not come: its time ran out, or its process exited first."""


def end(process: subprocess.Popen, grace: float = GRACE_SECONDS) -> None:
    """Terminate ``process`` (SIGTERM) and wait for it; kill it if it has not exited ``grace`` seconds later."""
    if process.poll() is None:
        process.terminate()
    try:
        process.wait(grace)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def wait_until(
    condition: Callable[[], bool],
    seconds: float,
    what: str,
    interval: float = POLL_SECONDS,
    process: subprocess.Popen | None = None,
) -> None:
    """Ask ``condition()`` every ``interval`` seconds until it says True. NotReady naming ``what`` (the awaited
    state, as in "nginx to listen on port 8080") once ``seconds`` have passed, or as soon as ``process``
    (when given: the process that should bring the state about) has exited, since nothing will come then.

    Nothing announces when a server is ready or a log line is written, so asking again is the only way;
    the caller adds what the process printed to the error.
    """
    deadline = time.monotonic() + seconds
    while True:
        if process is not None and process.poll() is not None:
            raise NotReady(f"the process exited (code {process.returncode}) while waiting for {what}")
        if condition():
            return
        if time.monotonic() >= deadline:
            raise NotReady(f"timed out after {seconds:g} s waiting for {what}")
        time.sleep(interval)
