"""In a real browser: the Positional encoding page loads, redraws after slider changes, and opens a tab."""

import math

from tests.e2e.conftest import assert_no_exception, nudge_slider, open_section, wait_for_chart, wait_idle


def test_positional_encoding_loads_and_redraws(page, server_url):
    page.goto(f"{server_url}/positional_encoding")
    wait_idle(page)
    wait_for_chart(page, "Wavelength per pair", timeout=30_000)
    assert_no_exception(page)
    assert page.locator(".js-plotly-plot").count() == 2  # only the open tab (Curves) is drawn

    nudge_slider(page, "d_model (dimensions)")
    last = 2 * math.pi * 10000 ** (24 / 65)  # the wavelength of pair 12 (dims 24, 25) at d_model 65
    wait_for_chart(page, f"pair 12 every {last:,.1f}", timeout=15_000)
    wait_idle(page)
    assert_no_exception(page)
    assert page.locator(".js-plotly-plot").count() == 2
    assert "is odd" in page.locator("[data-testid=stMain]").inner_text()

    open_section(page, "Offset map")
    wait_for_chart(page, "M_5", timeout=15_000)
    wait_idle(page)
    assert "section=Offset" in page.url
    nudge_slider(page, "offset k")
    wait_for_chart(page, "M_6", timeout=15_000)
    wait_idle(page)
    assert_no_exception(page)
    assert page.locator(".js-plotly-plot").count() == 2
