"""`streamlit run` servers on free local ports, and the Chromium settings every browser session uses.

``running("app.py")`` starts a server, waits until it answers its health check, yields it and stops
it on exit; ``start`` and ``AppServer.wait_healthy`` do the same in two steps, so that several
servers can start at once. A server's output goes to a temporary file, shown when it fails to start.
``env`` adds environment variables to the server's own (``ATTENTION_LAB_REDIS_URL``, say, so that several
servers share their rooms through one Redis).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from testing.processes import NotReady, end, wait_until

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
]
# The page once a script run has finished (before the first run the state is "initial")
IDLE = "[data-testid=stApp][data-test-script-state=notRunning]"
START_SECONDS = 60.0


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def chromium_path() -> str | None:
    """The Chromium to drive: $CHROMIUM_PATH, Debian's, one on the PATH, else None (Playwright's own)."""
    for candidate in (os.environ.get("CHROMIUM_PATH"), "/usr/bin/chromium", shutil.which("chromium")):
        if candidate and Path(candidate).exists():
            return candidate
    return None


@dataclass
class AppServer:
    """A `streamlit run` process serving on ``port`` under the URL path ``base_path``."""

    process: subprocess.Popen
    port: int
    base_path: str
    log: Path

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}" + (f"/{self.base_path}" if self.base_path else "")

    @property
    def stream(self) -> str:
        """The websocket a browser tab talks to."""
        return f"ws://127.0.0.1:{self.port}" + (f"/{self.base_path}" if self.base_path else "") + "/_stcore/stream"

    def wait_healthy(self, seconds: float = START_SECONDS) -> AppServer:
        """Wait until the server answers its health check; NotReady (a RuntimeError) with its output, the
        server stopped, if it exits or does not answer within ``seconds``."""
        what = f"streamlit on port {self.port} to answer its health check"
        try:
            wait_until(self._answers_health_check, seconds, what, interval=0.1, process=self.process)
        except NotReady as error:
            output = self.log.read_text(encoding="utf-8", errors="replace")[-2000:]
            self.stop()
            raise NotReady(f"{error}:\n{output}") from None
        return self

    def _answers_health_check(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=2) as response:
                return response.status == 200
        except OSError:
            return False

    def stop(self) -> None:
        """Terminate the server (kill it if it has not exited 10 s later) and remove its output file."""
        end(self.process)
        with contextlib.suppress(OSError):
            self.log.unlink()


def child_environment(env: dict[str, str] | None) -> dict[str, str] | None:
    """This process's environment with ``env`` on top, for a child process; None (inherit it as it is)
    when ``env`` adds nothing."""
    return {**os.environ, **env} if env else None


def start(
    script: str = "app.py",
    port: int | None = None,
    base_path: str = "",
    options: dict[str, str] | None = None,
    env: dict[str, str] | None = None,
) -> AppServer:
    """``streamlit run script`` from the repository root (its own .streamlit/config.toml) on ``port`` (default:
    a free one), headless, under ``base_path``, with more ``--<option> <value>`` ``options`` and the variables
    ``env`` added to this process's environment; not waited for.

    Giving the port of a server that has just stopped starts the app again at the same address.
    """
    port = port or free_port()
    settings = {
        "server.port": str(port),
        "server.address": "127.0.0.1",
        "server.headless": "true",
        "server.baseUrlPath": base_path,
        "browser.gatherUsageStats": "false",
        "client.showErrorDetails": "full",  # a test sees an error as it is (the shipped config: ui/errors.py)
        **(options or {}),
    }
    command = [sys.executable, "-m", "streamlit", "run", script]
    for name, value in settings.items():
        command += [f"--{name}", value]
    handle, log = tempfile.mkstemp(prefix="streamlit-", suffix=".log")
    with os.fdopen(handle, "wb") as output:
        process = subprocess.Popen(
            command, cwd=ROOT, stdout=output, stderr=subprocess.STDOUT, env=child_environment(env)
        )
    return AppServer(process, port, base_path, Path(log))


@contextlib.contextmanager
def running(
    script: str = "app.py",
    port: int | None = None,
    base_path: str = "",
    options: dict[str, str] | None = None,
    env: dict[str, str] | None = None,
) -> Iterator[AppServer]:
    """A started and healthy server (see ``start``), stopped on exit."""
    server = start(script, port, base_path, options, env).wait_healthy()
    try:
        yield server
    finally:
        server.stop()
