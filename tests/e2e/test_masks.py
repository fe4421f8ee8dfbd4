"""In a real browser: the Masks page loads, redraws after a slider change, opens a tab and follows a radio."""

from tests.e2e.conftest import assert_no_exception, nudge_slider, open_section, wait_for_chart, wait_idle


def test_masks_loads_and_redraws(page, server_url):
    page.goto(f"{server_url}/masks")
    wait_idle(page)
    wait_for_chart(page, "Causal mask for 8 tokens", timeout=30_000)
    assert_no_exception(page)
    assert page.locator(".js-plotly-plot").count() == 1  # only the open tab (Causal) is drawn

    nudge_slider(page, "tokens n")
    wait_for_chart(page, "Causal mask for 9 tokens", timeout=15_000)
    wait_idle(page)
    assert_no_exception(page)

    open_section(page, "Scores")
    wait_for_chart(page, "mask: causal + padding", timeout=15_000)
    wait_idle(page)
    assert "section=Scores" in page.url
    page.locator("[data-testid=stRadio] label", has_text="padding").first.click()
    wait_for_chart(page, "mask: padding", timeout=15_000)
    wait_idle(page)
    assert_no_exception(page)
    assert page.locator(".js-plotly-plot").count() == 3
