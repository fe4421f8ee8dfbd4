"""testing.redis_server and the ``env`` of testing.server: the real processes a test of several app servers
sharing their rooms starts (redis-server, `streamlit run`).

A tiny script stands in for the app: it counts its runs in the Redis that ``ATTENTION_LAB_REDIS_URL``
names and writes which server ran it, so a session over Streamlit's websocket (as a browser tab's)
shows that the server was given the Redis URL. Outside CI a missing redis-server skips these tests;
under CI it fails them (scripts/test.sh installs it).
"""

from __future__ import annotations

import os
import time

import pytest
import redis
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from websockets.sync.client import connect

from testing.installed import require
from testing.redis_server import answers_ping, redis_running
from testing.server import child_environment, free_port, start

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

def script_texts(stream: str, seconds: float = 60.0) -> list[str]:
    """The markdown one run of the script writes, in a session over the websocket ``stream`` (a browser
    tab's). A blocking client: the browser tests' Playwright may hold this thread's event loop."""
    with connect(stream, subprotocols=["streamlit"], open_timeout=30, max_size=None) as session:
        request = BackMsg()
        request.rerun_script.query_string = ""
        session.send(request.SerializeToString())
        texts = []
        deadline = time.monotonic() + seconds
        while True:
            reply = ForwardMsg()
            reply.ParseFromString(session.recv(timeout=max(deadline - time.monotonic(), 0.001)))
            kind = reply.WhichOneof("type")
            if kind == "delta" and reply.delta.WhichOneof("type") == "new_element":
                element = reply.delta.new_element
                if element.WhichOneof("type") == "markdown":
                    texts.append(element.markdown.body)
            if kind == "script_finished" and reply.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                return texts


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
    servers = {name: start(str(script), options=options,
                           env={REDIS_URL_VARIABLE: shared_redis.url, "LAB_SERVER_NAME": name}) for name in "ab"}
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
