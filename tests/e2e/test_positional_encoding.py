"""In a real browser: the Positional encoding page loads, redraws after slider changes, and opens a tab."""

from tests.e2e.conftest import assert_no_exception, wait_idle


def nudge(page, label: str) -> None:
    slider = page.locator("[data-testid=stSlider]", has_text=label).locator("input[type=range], [role=slider]").first
    slider.focus()
    slider.press("ArrowRight")


def test_positional_encoding_loads_and_redraws(page, server_url):
    page.goto(f"{server_url}/positional_encoding")
    wait_idle(page)
    page.wait_for_selector(".js-plotly-plot .gtitle:has-text('The whole table')", timeout=30_000)
    assert_no_exception(page)
    assert page.locator(".js-plotly-plot").count() == 3  # only the open tab (Curves) is drawn

    nudge(page, "d_model (dimensions)")
    page.wait_for_selector(".js-plotly-plot .gtitle:has-text('d_model 65')", timeout=15_000)
    wait_idle(page)
    assert_no_exception(page)
    assert page.locator(".js-plotly-plot").count() == 3
    assert "is odd" in page.locator("[data-testid=stMain]").inner_text()

    page.locator("[role=tab]", has_text="Offset map").first.click()
    page.wait_for_selector(".js-plotly-plot .gtitle:has-text('M_5')", timeout=15_000)
    wait_idle(page)
    assert "section=Offset" in page.url
    nudge(page, "offset k")
    page.wait_for_selector(".js-plotly-plot .gtitle:has-text('M_6')", timeout=15_000)
    wait_idle(page)
    assert_no_exception(page)
    assert page.locator(".js-plotly-plot").count() == 2
