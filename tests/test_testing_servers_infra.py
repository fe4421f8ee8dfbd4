"""testing.redis_server, testing.balancer and the ``env`` of testing.server: the real processes a test of
several app servers sharing their rooms starts (redis-server, nginx with deploy/nginx.conf, `streamlit run`).

A tiny script stands in for the app: it counts its runs in the Redis that ``ATTENTION_LAB_REDIS_URL``
names and writes which server ran it, so a session over Streamlit's websocket (as a browser tab's)
shows where the balancer sent it and that the server was given the Redis URL. Outside CI a missing
redis-server or nginx skips these tests; under CI it fails them (scripts/test.sh installs both).
"""

from __future__ import annotations

import contextlib
import http.server
import os
import socket
import threading
import urllib.request
from collections.abc import Iterator

import pytest
import redis

from testing.balancer import ROUTE_COOKIE, Balancer, nginx_running
from testing.installed import require
from testing.redis_server import answers_ping, redis_running
from testing.server import child_environment, free_port, start
from testing.streamlit_client import connect_blocking, read_run_blocking, rerun_message

REDIS_URL_VARIABLE = "ATTENTION_LAB_REDIS_URL"
TINY_APP = """
import os

import redis
import streamlit as st

name = os.environ["LAB_SERVER_NAME"]
redis.Redis.from_url(os.environ["ATTENTION_LAB_REDIS_URL"]).incr(f"runs:{name}")
st.markdown(f"server {name}")
"""


# --- helpers ----------------------------------------------------------------------------------------------------


def get(url: str, cookie: str | None = None) -> tuple[int, str, str | None]:
    """(status, body, Set-Cookie header) of a GET, sending ``lab_route=<cookie>`` when given."""
    request = urllib.request.Request(url, headers={"Cookie": f"{ROUTE_COOKIE}={cookie}"} if cookie else {})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status, response.read().decode(), response.headers.get("Set-Cookie")


def script_texts(stream: str, cookie: str | None = None, seconds: float = 60.0) -> list[str]:
    """The markdown one run of the script writes, in a session over the websocket ``stream`` (a browser
    tab's, with ``lab_route=<cookie>`` when given). A blocking client: the browser tests' Playwright may
    hold this thread's event loop."""
    headers = {"Cookie": f"{ROUTE_COOKIE}={cookie}"} if cookie else None
    texts = []

    def seen(element) -> None:
        if element.WhichOneof("type") == "markdown":
            texts.append(element.markdown.body)

    with connect_blocking(stream, headers, open_timeout=30) as session:
        session.send(rerun_message())
        read_run_blocking(session, seen, seconds)
    return texts


class _PortHandler(http.server.BaseHTTPRequestHandler):
    """Answers every GET with the port of the server that took it."""

    def do_GET(self):
        body = str(self.server.server_address[1]).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@contextlib.contextmanager
def port_echo_servers(count: int) -> Iterator[list[int]]:
    """``count`` small HTTP servers on free local ports, each answering its own port; yields the ports."""
    servers = [http.server.ThreadingHTTPServer(("127.0.0.1", 0), _PortHandler) for _ in range(count)]
    for server in servers:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield [server.server_address[1] for server in servers]
    finally:
        for server in servers:
            server.shutdown()
            server.server_close()


@pytest.fixture(scope="module")
def shared_redis():
    require("redis-server")
    with redis_running() as server:
        yield server


@pytest.fixture(scope="module")
def two_app_servers(shared_redis, tmp_path_factory):
    """Two servers of the tiny script, named a and b, sharing ``shared_redis``."""
    script = tmp_path_factory.mktemp("tiny-app") / "tiny_app.py"
    script.write_text(TINY_APP, encoding="utf-8")
    # a websocket client presents no XSRF cookie, as a browser would
    options = {"server.enableXsrfProtection": "false"}
    servers = {
        name: start(str(script), options=options, env={REDIS_URL_VARIABLE: shared_redis.url, "LAB_SERVER_NAME": name})
        for name in "ab"
    }
    try:
        for server in servers.values():
            server.wait_healthy()
        yield servers
    finally:
        for server in servers.values():
            server.stop()


# --- Redis ------------------------------------------------------------------------------------------------------


def test_redis_answers_and_comes_back_empty_at_the_same_url_after_a_stop(shared_redis):
    client = redis.Redis.from_url(shared_redis.url, socket_timeout=5)
    assert shared_redis.url == f"redis://127.0.0.1:{shared_redis.port}/0"
    assert client.ping()
    client.set("lab:probe", "1")
    assert client.get("lab:probe") == b"1"

    url = shared_redis.url
    shared_redis.stop()
    assert not answers_ping(shared_redis.port)
    with pytest.raises(redis.ConnectionError):
        redis.Redis.from_url(url, socket_timeout=2).ping()

    shared_redis.start()
    assert shared_redis.url == url and answers_ping(shared_redis.port)
    assert client.get("lab:probe") is None  # nothing kept on disk: a fresh, empty Redis
    shared_redis.kill()  # a crash this time
    assert not answers_ping(shared_redis.port)
    shared_redis.start()
    assert client.ping()


def test_redis_on_a_given_port_and_gone_after_the_block():
    require("redis-server")
    port = free_port()
    with redis_running(port) as server:
        assert server.port == port and answers_ping(port)
        folder = server.folder
    assert not answers_ping(port) and not folder.exists()


# --- an app server's environment ---------------------------------------------------------------------------------


def test_env_is_added_to_the_environment_the_server_inherits():
    assert child_environment(None) is None and child_environment({}) is None  # inherit as it is
    added = child_environment({REDIS_URL_VARIABLE: "redis://127.0.0.1:1/0"})
    assert added == {**os.environ, REDIS_URL_VARIABLE: "redis://127.0.0.1:1/0"}


def test_an_app_server_runs_with_the_redis_url_it_was_given(two_app_servers, shared_redis):
    client = redis.Redis.from_url(shared_redis.url, socket_timeout=5)
    before = int(client.get("runs:a") or 0)
    assert script_texts(two_app_servers["a"].stream) == ["server a"]
    assert int(client.get("runs:a")) == before + 1  # the script reached the Redis it was given


# --- nginx --------------------------------------------------------------------------------------------------------


def test_the_balancer_gives_a_route_cookie_keeps_each_browser_on_its_server_and_spreads_browsers():
    require("nginx")
    with port_echo_servers(2) as ports, nginx_running(ports) as balancer:
        status, served_by, set_cookie = get(balancer.url)
        assert status == 200 and int(served_by) in ports
        assert set_cookie and set_cookie.startswith(f"{ROUTE_COOKIE}=") and "Path=/" in set_cookie
        route = set_cookie.split(";")[0].split("=", 1)[1]
        for _ in range(5):  # the cookie leads back to the server that set it, and is not set again
            assert get(balancer.url, route)[1:] == (served_by, None)
        # every test client is 127.0.0.1: different browsers still reach different servers
        reached = {get(balancer.url, f"browser-{index}")[1] for index in range(24)}
        assert reached == {str(port) for port in ports}


def test_the_balancer_passes_health_checks_and_websockets_to_two_app_servers(two_app_servers, shared_redis):
    require("nginx")
    client = redis.Redis.from_url(shared_redis.url, socket_timeout=5)
    with nginx_running(server.port for server in two_app_servers.values()) as balancer:
        assert get(f"{balancer.url}/_stcore/health")[:2] == (200, "ok")
        before = {name: int(client.get(f"runs:{name}") or 0) for name in "ab"}
        seen = {}
        for index in range(24):
            route = f"tab-{index}"
            [text] = script_texts(balancer.stream, route)
            seen.setdefault(text, route)
            if len(seen) == 2:
                break
        assert sorted(seen) == ["server a", "server b"], balancer.log("access.log")
        for text, route in seen.items():  # a tab's next session goes to the same server
            assert script_texts(balancer.stream, route) == [text]
        assert script_texts(balancer.stream)  # a first visit, without a cookie yet
        runs = sum(int(client.get(f"runs:{name}") or 0) - before[name] for name in "ab")
        assert runs == index + 1 + 2 + 1
        balancer.wait_for_log('"GET /_stcore/stream HTTP/1.1" 101')  # written when a websocket closes


def test_a_balancer_that_cannot_listen_says_why():
    require("nginx")
    with port_echo_servers(1) as ports, socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))  # held, not listening: nginx cannot bind it, and nothing answers there
        with pytest.raises(RuntimeError, match="(?s)exited.*Address already in use"):
            with nginx_running(ports, port=taken.getsockname()[1]):
                pass


def test_waiting_for_a_log_line_returns_once_it_is_written_and_says_what_it_saw_if_it_is_not(tmp_path):
    balancer = Balancer(process=None, port=0, folder=tmp_path)
    line = '"GET /_stcore/stream HTTP/1.1" 101\n'
    writer = threading.Timer(0.2, lambda: (tmp_path / "access.log").write_text(line * 2))
    writer.start()
    try:
        assert balancer.wait_for_log("101", count=2, seconds=10) == line * 2
    finally:
        writer.cancel()
    saw_two = "(?s)after 0.3 s waiting for access.log to hold '101' 3 times; it holds it 2 times:.*101"
    with pytest.raises(AssertionError, match=saw_two):
        balancer.wait_for_log("101", count=3, seconds=0.3)
