"""In a real browser: the app as compose.yaml deploys it, several app servers sharing one Redis behind the
balancer (deploy/nginx.conf, through testing.balancer), works through the balancer's address.

Home is drawn and goes idle, which needs Streamlit's websocket through nginx (the page's script runs
over it); each browser holds a route cookie of its own, and every request it made (the page, its
scripts, its websocket) went to one server.
"""

from __future__ import annotations

import re

import pytest

from testing.balancer import ROUTE_COOKIE, nginx_running
from testing.installed import require
from testing.redis_server import redis_running
from testing.server import start
from tests.e2e.conftest import assert_no_exception, new_page, wait_idle

SERVERS = 2
STREAM_OPENED = '"GET /_stcore/stream HTTP/1.1" 101'


@pytest.fixture(scope="module")
def balanced_app():
    """The balancer's URL, in front of SERVERS `streamlit run app.py` given one Redis."""
    require("redis-server", "nginx")
    with redis_running() as redis:
        servers = [start("app.py", env={"ATTENTION_LAB_REDIS_URL": redis.url}) for _ in range(SERVERS)]
        try:
            for server in servers:
                server.wait_healthy()
            with nginx_running(server.port for server in servers) as balancer:
                yield balancer
        finally:
            for server in servers:
                server.stop()


def route_of(page) -> str:
    [cookie] = [cookie for cookie in page.context.cookies() if cookie["name"] == ROUTE_COOKIE]
    return cookie["value"]


def test_home_works_through_the_balancer(browser, balanced_app):
    pages = [new_page(browser) for _ in range(2)]
    try:
        for page in pages:
            page.goto(balanced_app.url)
        for page in pages:
            wait_idle(page)  # its script runs went over the websocket
            assert page.get_by_role("heading", name="The idea in one formula").is_visible()
            assert_no_exception(page)
        routes = [route_of(page) for page in pages]
        assert re.fullmatch(r"[0-9a-f]{32}", routes[0]) and routes[0] != routes[1]  # a browser each
    finally:
        for page in pages:
            page.context.close()
    log = balanced_app.wait_for_log(STREAM_OPENED, count=len(pages))  # nginx logs a websocket when it closes
    served = balanced_app.routes()
    for route in routes:  # the page, its scripts, styles and websocket: all from one server
        assert len(served[route]) == 1, log
