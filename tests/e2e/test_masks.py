"""In a real browser: the Masks page loads, redraws after a slider change, opens a tab and follows a radio."""

from tests.e2e.conftest import assert_no_exception, wait_idle


def test_masks_loads_and_redraws(page, server_url):
    page.goto(f"{server_url}/masks")
    wait_idle(page)
    page.wait_for_selector(".js-plotly-plot .gtitle:has-text('Causal mask for 8 tokens')", timeout=30_000)
    assert_no_exception(page)
    assert page.locator(".js-plotly-plot").count() == 1  # only the open tab (Causal) is drawn

    slider = page.locator("[data-testid=stSlider]", has_text="tokens n").locator("input[type=range], [role=slider]").first
    slider.focus()
    slider.press("ArrowRight")
    page.wait_for_selector(".js-plotly-plot .gtitle:has-text('Causal mask for 9 tokens')", timeout=15_000)
    wait_idle(page)
    assert_no_exception(page)

    page.locator("[role=tab]", has_text="Scores").first.click()
    page.wait_for_selector(".js-plotly-plot .gtitle:has-text('mask: causal + padding')", timeout=15_000)
    wait_idle(page)
    assert "section=Scores" in page.url
    page.locator("[data-testid=stRadio] label", has_text="padding").first.click()
    page.wait_for_selector(".js-plotly-plot .gtitle:has-text('mask: padding')", timeout=15_000)
    wait_idle(page)
    assert_no_exception(page)
    assert page.locator(".js-plotly-plot").count() == 3
