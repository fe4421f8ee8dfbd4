"""A phone's page is drawn first in the wide layout, then again once the screen reports compact (ui/screen.py).
Across that switch a chart keeps its place and takes the phone's figure (another grid of subplots: Plotly draws
it as a new plot when it cannot update the old one), and a control keeps its link to its URL key."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import assert_no_exception, choose, new_page, wait_idle

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
RANDOM = "model=random+model+%28settings+below%29"
# Sections whose charts are built for the screen: the heads' grid in two columns on a phone, four on a desktop.
VIEWS = [f"/encoder_decoder?section=Attention&{RANDOM}", "/experiments?section=Build+a+head"]
DRAWN = """() => { const plots = [...document.querySelectorAll('div.lab-chart')];
  return plots.length > 0 && plots.every((plot) => plot._fullLayout && plot.querySelector('svg.main-svg')); }"""


def open_on_phone(phone, url: str) -> None:
    """Open ``url`` and wait until the page has run again in the phone's layout (the bar in the sidebar)."""
    phone.goto(url)
    wait_idle(phone)
    phone.wait_for_function("() => document.querySelector('.st-key-present')?.closest('[data-testid=stSidebar]')")
    wait_idle(phone)


@pytest.mark.parametrize("view", VIEWS, ids=["encoder_decoder", "experiments"])
def test_a_phone_draws_every_chart_after_a_desktop_drew_them_first(browser, server_url, view):
    desktop = new_page(browser, viewport={"width": 1280, "height": 800})
    try:  # the server's caches now hold the desktop's figures, which the phone's first run sends
        desktop.goto(f"{server_url}{view}")
        wait_idle(desktop)
        desktop.wait_for_function(DRAWN, timeout=30_000)
    finally:
        desktop.context.close()
    phone = new_page(browser, **PHONE)
    try:
        open_on_phone(phone, f"{server_url}{view}")
        phone.wait_for_function(DRAWN, timeout=30_000)
        assert_no_exception(phone)
        assert phone.get_by_text("The chart could not be drawn").count() == 0
    finally:
        phone.context.close()


def test_a_control_changed_on_a_phone_writes_its_url_key(browser, server_url):
    phone = new_page(browser, **PHONE)
    try:
        open_on_phone(phone, f"{server_url}/encoder_decoder?section=Attention&{RANDOM}")
        choose(phone, phone.get_by_label("head", exact=True), "head 2")
        phone.wait_for_function("() => new URLSearchParams(location.search).get('head') === 'head 2'", timeout=15_000)
        wait_idle(phone)
        assert_no_exception(phone)
    finally:
        phone.context.close()
