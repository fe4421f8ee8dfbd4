"""In a real browser: the server restarts mid-lesson and the open page carries on with the same view.

A shared link with a control set away from its default (Masks, ``n=13`` tokens) is open and drawn;
the server stops and starts again at the same address. The page must reconnect by itself (the
test never reloads it) and keep its URL, its control and its chart. Streamlit reconnects without
rerunning, so the next rerun (the R key, as a user would press it) is the restarted server's first
request: a fresh process must redraw that same view from the URL and the page's widget values,
without an exception, and answer the next control change.
"""

from __future__ import annotations

import time
from urllib.parse import urlsplit

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from tests.e2e.conftest import assert_no_exception, nudge_slider, streamlit_server, wait_for_chart, wait_idle

DEEP_LINK = "/masks?n=13"
SLIDER = "tokens n"
CONNECTED = "[data-testid=stApp][data-test-connection-state=CONNECTED]"
DISCONNECTED = "[data-testid=stApp]:not([data-test-connection-state=CONNECTED])"


class FinishedRuns:
    """Counts the script runs a server reports finished (``ForwardMsg.script_finished``) on the
    websockets the page opens from now on."""

    def __init__(self, page):
        self.count = 0
        page.on("websocket", lambda socket: socket.on("framereceived", self._on_frame))

    def _on_frame(self, payload) -> None:
        if isinstance(payload, bytes) and ForwardMsg.FromString(payload).WhichOneof("type") == "script_finished":
            self.count += 1

    def wait_for(self, page, count: int, timeout: float = 30.0) -> None:
        """Wait (dispatching the page's events) until ``count`` runs have finished."""
        deadline = time.monotonic() + timeout
        while self.count < count:
            assert time.monotonic() < deadline, f"{self.count} of {count} script runs finished in {timeout} s"
            page.wait_for_timeout(50)


def slider_value(page) -> str:
    return page.locator("[data-testid=stSlider]", has_text=SLIDER).locator("input[type=range]").first.input_value()


def test_open_page_reconnects_and_redraws_after_a_server_restart(page):
    with streamlit_server() as url:
        link = url + DEEP_LINK
        page.goto(link)
        wait_idle(page, timeout=60_000)
        wait_for_chart(page, "Causal mask for 13 tokens", timeout=60_000)
        page.evaluate("() => { window.sameDocument = true; }")  # gone if the page were reloaded
        runs = FinishedRuns(page)  # the restarted server's runs
    page.wait_for_selector(DISCONNECTED, timeout=10_000)

    with streamlit_server(port=urlsplit(url).port) as restarted_url:
        assert restarted_url == url
        page.wait_for_selector(CONNECTED, timeout=30_000)  # the page pings the server until it answers
        assert page.evaluate("() => window.sameDocument === true"), "the page was reloaded"
        assert page.url == link and slider_value(page) == "13"
        wait_for_chart(page, "Causal mask for 13 tokens", timeout=1_000)

        page.evaluate("() => document.activeElement?.blur()")
        page.keyboard.press("r")  # Streamlit's rerun key (ignored while an input has the focus)
        runs.wait_for(page, 1)
        wait_idle(page)
        wait_for_chart(page, "Causal mask for 13 tokens")
        assert_no_exception(page)
        assert page.url == link and slider_value(page) == "13"

        finished = runs.count
        nudge_slider(page, SLIDER)  # and the lesson goes on
        runs.wait_for(page, finished + 1)
        wait_for_chart(page, "Causal mask for 14 tokens")
        wait_idle(page)
        assert_no_exception(page)
        assert "n=14" in page.url
