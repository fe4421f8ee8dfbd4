"""A real ``redis-server`` on a free local port, for tests of app servers that keep their rooms in Redis
(``ATTENTION_LAB_REDIS_URL``).

``redis_running()`` starts one, waits until it answers PING, yields it and stops it on exit. It keeps
nothing on disk (``--save "" --appendonly no``: every start is empty) and listens on 127.0.0.1 only.
``stop()`` and ``start()`` take it down and bring it back on the same port, so the same ``url``: a test
can take Redis away in the middle of a class and give it back, as a restarted Redis would come back.
``missing_reason()`` says why a test cannot run here (``testing.installed.require`` skips or fails it).
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from testing.installed import missing, program_path
from testing.processes import NotReady, end, wait_until
from testing.server import free_port

PROGRAM = "redis-server"
START_SECONDS = 20.0


def missing_reason() -> str | None:
    """Why Redis cannot be started here (redis-server not installed), or None."""
    return missing(PROGRAM)


def answers_ping(port: int, timeout: float = 1.0) -> bool:
    """Whether a Redis on 127.0.0.1:``port`` answers PING with PONG (an inline command: no client needed)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as connection:
            connection.sendall(b"PING\r\n")
            return connection.recv(64).startswith(b"+PONG")
    except OSError:
        return False


@dataclass
class RedisServer:
    """A ``redis-server`` process on 127.0.0.1:``port``, its log in ``folder``; ``process`` is None while stopped."""

    port: int
    folder: Path
    process: subprocess.Popen | None = field(default=None, repr=False)

    @property
    def url(self) -> str:
        """What ``ATTENTION_LAB_REDIS_URL`` is set to: database 0 of this server."""
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def log(self) -> Path:
        return self.folder / "redis.log"

    def command(self) -> list[str]:
        """The command line: no snapshots, no append-only file, local connections only, log to ``log``."""
        return [
            program_path(PROGRAM) or PROGRAM,
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(self.folder),
            "--logfile",
            str(self.log),
            "--daemonize",
            "no",
        ]

    def start(self, seconds: float = START_SECONDS) -> RedisServer:
        """Start the server (again, on the same port) and wait until it answers PING; NotReady (a RuntimeError)
        with its log, the server stopped, if it exits or does not answer within ``seconds``. A server already
        running is left as it is."""
        if self.process is not None and self.process.poll() is None:
            return self
        self.process = subprocess.Popen(self.command(), stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        try:
            wait_until(
                lambda: answers_ping(self.port),
                seconds,
                f"redis-server on port {self.port} to answer PING",
                process=self.process,
            )
        except NotReady as error:
            output = self.log.read_text(encoding="utf-8", errors="replace")[-2000:] if self.log.exists() else ""
            self.stop()
            raise NotReady(f"{error}:\n{output}") from None
        return self

    def stop(self) -> None:
        """Terminate the server (kill it if it has not exited 10 s later); its port is free again after."""
        if self.process is None:
            return
        end(self.process)
        self.process = None

    def kill(self) -> None:
        """End the server at once (SIGKILL), as a crash would: no goodbye to its clients."""
        if self.process is None:
            return
        self.process.kill()
        self.process.wait()
        self.process = None


@contextlib.contextmanager
def redis_running(port: int | None = None) -> Iterator[RedisServer]:
    """A started Redis (see ``RedisServer.start``) on ``port`` (default: a free one), stopped and its
    folder removed on exit."""
    folder = Path(tempfile.mkdtemp(prefix="redis-"))
    server = RedisServer(port or free_port(), folder)
    try:
        yield server.start()
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)
