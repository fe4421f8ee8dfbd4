"""In a real browser: the server restarts mid-lesson and the open page carries on with the same view.

A shared link with a control set away from its default (Masks, ``n=13`` tokens) is open and drawn;
the server stops and starts again at the same address. The page must reconnect by itself (the
test never reloads it) and keep its URL, its control and its chart. Streamlit reconnects without
rerunning, so the next rerun (the R key, as a user would press it) is the restarted server's first
request: a fresh process must redraw that same view from the URL and the page's widget values,
without an exception, and answer the next control change.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from tests.e2e.conftest import (
    assert_no_exception,
    nudge_slider,
    requested_runs,
    streamlit_server,
    wait_for_chart,
    wait_idle,
)

DEEP_LINK = "/masks?n=13"
SLIDER = "tokens n"
CONNECTED = "[data-testid=stApp][data-test-connection-state=CONNECTED]"
DISCONNECTED = "[data-testid=stApp]:not([data-test-connection-state=CONNECTED])"


def slider_value(page) -> str:
    return page.locator("[data-testid=stSlider]", has_text=SLIDER).locator("input[type=range]").first.input_value()


def test_open_page_reconnects_and_redraws_after_a_server_restart(page):
    with streamlit_server() as url:
        link = url + DEEP_LINK
        page.goto(link)
        wait_idle(page, timeout=60_000)
        wait_for_chart(page, "Causal mask for 13 tokens", timeout=60_000)
        page.evaluate("() => { window.sameDocument = true; }")  # gone if the page were reloaded
    page.wait_for_selector(DISCONNECTED, timeout=10_000)

    with streamlit_server(port=urlsplit(url).port) as restarted_url:
        assert restarted_url == url
        page.wait_for_selector(CONNECTED, timeout=30_000)  # the page pings the server until it answers
        assert page.evaluate("() => window.sameDocument === true"), "the page was reloaded"
        assert page.url == link and slider_value(page) == "13"
        wait_for_chart(page, "Causal mask for 13 tokens", timeout=1_000)

        page.evaluate("() => document.activeElement?.blur()")
        before = requested_runs(page)
        page.keyboard.press("r")  # Streamlit's rerun key (ignored while an input has the focus)
        wait_idle(page, after=before)  # the rerun it asked for has finished, on the restarted server
        wait_for_chart(page, "Causal mask for 13 tokens")
        assert_no_exception(page)
        assert page.url == link and slider_value(page) == "13"

        before = requested_runs(page)
        nudge_slider(page, SLIDER)  # and the lesson goes on
        wait_idle(page, after=before)
        wait_for_chart(page, "Causal mask for 14 tokens")
        assert_no_exception(page)
        assert "n=14" in page.url
