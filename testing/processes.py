"""Ending a process a test or a benchmark started."""

from __future__ import annotations

import subprocess

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
