"""nginx in front of local app servers, routing as the deployment's balancer does (deploy/nginx.conf).

``nginx_running(upstream_ports)`` runs deploy/nginx.conf itself with two changes: its upstream
servers (app1..app3:8501 in compose.yaml) become 127.0.0.1 at ``upstream_ports``, and it listens on
127.0.0.1 at a free port. A main configuration of its own wraps it, as the nginx image's does in
deployment: everything nginx writes (pid file, logs, temporary files) goes to a temporary folder, it
runs in the foreground (``daemon off``) and its workers run as the current user. So the tests exercise
the very routing that deploys: HTTP and Streamlit's websocket (/_stcore/stream) proxied, each browser
kept on one server.

The sticky scheme is a ``lab_route`` cookie that nginx hands out (``hash $lab_route consistent``; the why
is in deploy/nginx.conf). Routing by address (``ip_hash``) would be sticky too, but every test client is
127.0.0.1, as every student of a class behind one router shares an address, so it would send them all to
one server; a cookie spreads browsers over the servers whatever their address.
``config_errors`` checks a configuration with ``nginx -t``; ``missing_reason`` says why nginx cannot run here.
"""

from __future__ import annotations

import contextlib
import grp
import os
import pwd
import re
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from testing.installed import missing, program_path
from testing.processes import NotReady, end, wait_until
from testing.server import ROOT, free_port

PROGRAM = "nginx"
SITE = ROOT / "deploy" / "nginx.conf"
UPSTREAM = "attention_lab"
ROUTE_COOKIE = "lab_route"
START_SECONDS = 20.0


def missing_reason() -> str | None:
    """Why nginx cannot be started here (not installed), or None."""
    return missing(PROGRAM)


def site_config(upstreams: Iterable[str], listen: str, site: Path = SITE) -> str:
    """The text of ``site`` with the servers of its ``upstream attention_lab`` block replaced by ``upstreams``
    (``host:port``) and its one ``listen`` by ``listen``; ValueError if the file lacks either."""
    text = site.read_text(encoding="utf-8")
    block = re.search(rf"(?ms)^upstream\s+{UPSTREAM}\s*\{{.*?^\}}", text)
    if block is None:
        raise ValueError(f"{site} has no 'upstream {UPSTREAM} {{ ... }}' block")
    servers = "".join(f"    server {address};\n" for address in upstreams)
    if not servers:
        raise ValueError("nginx needs at least one upstream server")
    replaced = iter([servers])  # the new servers where the first old one stood, the others dropped
    body, count = re.subn(r"(?m)^[ \t]*server\s+[^;]+;\n", lambda _line: next(replaced, ""), block.group(0))
    if count == 0:
        raise ValueError(f"{site}: the upstream {UPSTREAM} block names no server")
    text = text[: block.start()] + body + text[block.end() :]
    text, count = re.subn(r"(?m)^(\s*)listen\s+[^;]+;", rf"\g<1>listen {listen};", text)
    if count != 1:
        raise ValueError(f"{site} should have exactly one listen directive, has {count}")
    return text


def user_directive() -> str:
    """``user <name> <group>;`` when nginx starts as root (its workers would otherwise run as nobody and
    could not write the temporary folder); nothing otherwise, where nginx ignores the directive anyway."""
    if os.geteuid() != 0:
        return ""
    return f"user {pwd.getpwuid(os.getuid()).pw_name} {grp.getgrgid(os.getgid()).gr_name};\n"


def main_config(folder: Path, site_file: Path) -> str:
    """A main configuration that keeps everything nginx writes inside ``folder`` and includes ``site_file``
    in its http block, as the nginx image includes conf.d/*.conf."""
    temporary = "".join(
        f"    {kind}_temp_path {folder / kind};\n" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    return (
        f"{user_directive()}daemon off;\nworker_processes 1;\npid {folder / 'nginx.pid'};\n"
        f"error_log {folder / 'error.log'} notice;\n"
        "events {\n    worker_connections 512;\n}\n"
        "http {\n"
        "    log_format lab '$lab_route $remote_addr:$remote_port \"$request\" $status -> $upstream_addr';\n"
        f"    access_log {folder / 'access.log'} lab;\n{temporary}"
        f"    include {site_file};\n"
        "}\n"
    )


def write_config(folder: Path, upstreams: Iterable[str], listen: str, site: Path = SITE) -> Path:
    """Write the site (see ``site_config``) and a main configuration around it into ``folder``; returns the
    main configuration's path."""
    site_file = folder / "site.conf"
    site_file.write_text(site_config(upstreams, listen, site), encoding="utf-8")
    config = folder / "nginx.conf"
    config.write_text(main_config(folder, site_file), encoding="utf-8")
    return config


def command(folder: Path, config: Path, *extra: str) -> list[str]:
    """An nginx command line for ``config`` whose prefix and startup error log are in ``folder`` (not the
    compiled-in /var/log/nginx, which a non-root user cannot open)."""
    return [
        program_path(PROGRAM) or PROGRAM,
        "-p",
        f"{folder}/",
        "-e",
        str(folder / "error.log"),
        "-c",
        str(config),
        *extra,
    ]


def config_errors(upstreams: Iterable[str], site: Path = SITE) -> str | None:
    """What ``nginx -t`` says is wrong with ``site`` run against ``upstreams`` on a free local port, or None
    when it passes."""
    folder = Path(tempfile.mkdtemp(prefix="nginx-check-"))
    try:
        config = write_config(folder, upstreams, f"127.0.0.1:{free_port()}", site)
        result = subprocess.run(command(folder, config, "-t", "-q"), capture_output=True, text=True, timeout=30)
        return None if result.returncode == 0 else (result.stderr + result.stdout).strip()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def listening(port: int) -> bool:
    """Whether something accepts TCP connections on 127.0.0.1:``port``."""
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
        return True
    return False


@dataclass
class Balancer:
    """An nginx process listening on 127.0.0.1:``port``, its configuration and logs in ``folder``."""

    process: subprocess.Popen = field(repr=False)
    port: int
    folder: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def stream(self) -> str:
        """The websocket a browser tab talks to, through the balancer."""
        return f"ws://127.0.0.1:{self.port}/_stcore/stream"

    def log(self, name: str = "error.log") -> str:
        """The text of one of its logs: ``error.log``, or ``access.log``, a line a request: its route (the
        browser's cookie, or the one it was given), client, request line, status, ``->`` the server it went to."""
        path = self.folder / name
        return path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""

    def wait_for_log(self, text: str, count: int = 1, name: str = "access.log", seconds: float = 10.0) -> str:
        """The text of log ``name`` once ``text`` stands in it ``count`` times. nginx writes a request's line
        when the request ends (a websocket's when it closes) and tells no one, so the log is read again every
        ``testing.processes.POLL_SECONDS``; AssertionError with the log if ``seconds`` pass first."""
        try:
            wait_until(lambda: self.log(name).count(text) >= count, seconds, f"{name} to hold {text!r} {count} times")
        except NotReady as error:
            log = self.log(name)
            raise AssertionError(f"{error}; it holds it {log.count(text)} times:\n{log}") from None
        return self.log(name)

    def wait_listening(self, seconds: float = START_SECONDS) -> Balancer:
        """Wait until nginx accepts connections; NotReady (a RuntimeError) with its error log, nginx stopped,
        if it exits or does not within ``seconds``."""
        try:
            wait_until(
                lambda: listening(self.port), seconds, f"nginx to listen on port {self.port}", process=self.process
            )
        except NotReady as error:
            output = self.log()[-2000:]
            self.stop()
            raise NotReady(f"{error}:\n{output}") from None
        return self

    def routes(self) -> dict[str, set[str]]:
        """Each route (see ``log``) with the app servers (``host:port``) its requests went to so far."""
        routes: dict[str, set[str]] = {}
        for line in self.log("access.log").splitlines():
            route, server = line.split(" ", 1)[0], line.rpartition(" -> ")[2]
            if server not in ("", "-"):  # "-": answered by nginx itself
                routes.setdefault(route, set()).add(server)
        return routes

    def stop(self) -> None:
        """Stop nginx (SIGQUIT would wait for open websockets to close: SIGTERM ends them now; kill after 10 s)."""
        end(self.process)


@contextlib.contextmanager
def nginx_running(upstream_ports: Iterable[int], port: int | None = None, site: Path = SITE) -> Iterator[Balancer]:
    """nginx on 127.0.0.1:``port`` (default: a free one) balancing over the app servers on 127.0.0.1 at
    ``upstream_ports`` as ``site`` (deploy/nginx.conf) says; yields it once it listens, stops it on exit and
    removes its folder."""
    folder = Path(tempfile.mkdtemp(prefix="nginx-"))
    port = port or free_port()
    try:
        config = write_config(
            folder, [f"127.0.0.1:{upstream}" for upstream in upstream_ports], f"127.0.0.1:{port}", site
        )
        process = subprocess.Popen(command(folder, config), stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        balancer = Balancer(process, port, folder).wait_listening()
        try:
            yield balancer
        finally:
            balancer.stop()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
