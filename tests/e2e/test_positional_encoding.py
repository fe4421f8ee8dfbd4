"""In a real browser: the Positional encoding page loads, redraws after slider changes, and opens a tab."""

from tests.e2e.conftest import assert_no_exception, nudge_slider, open_section, wait_for_chart, wait_idle


def test_positional_encoding_loads_and_redraws(page, server_url):
    page.goto(f"{server_url}/positional_encoding")
    wait_idle(page)
    wait_for_chart(page, "The whole table", timeout=30_000)
    assert_no_exception(page)
    assert page.locator(".js-plotly-plot").count() == 3  # only the open tab (Curves) is drawn

    nudge_slider(page, "d_model (dimensions)")
    wait_for_chart(page, "d_model 65", timeout=15_000)
    wait_idle(page)
    assert_no_exception(page)
    assert page.locator(".js-plotly-plot").count() == 3
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


OVERLAPS = """() => [...document.querySelectorAll('.js-plotly-plot')].map(plot => {
    const title = plot.querySelector('.gtitle').getBoundingClientRect();
    const bar = plot.querySelector('.modebar').getBoundingClientRect();
    const apart = bar.bottom <= title.top || title.bottom <= bar.top || bar.right <= title.left
        || title.right <= bar.left;
    return {title: plot.querySelector('.gtitle').textContent, bar: bar.height > 0, apart};
})"""


def test_the_toolbar_never_covers_a_title(page, server_url):
    """Plotly's toolbar, shown on hover at a chart's top right, sits above every title, including the long
    titles of the page's narrow charts, in presentation mode as well."""
    for query in ("", "?present=true"):
        page.goto(f"{server_url}/positional_encoding{query}")
        wait_idle(page)
        wait_for_chart(page, "The whole table", timeout=30_000)
        page.locator(".js-plotly-plot").last.hover()
        boxes = page.evaluate(OVERLAPS)
        assert len(boxes) == 3 and all(box["bar"] for box in boxes), boxes
        assert all(box["apart"] for box in boxes), boxes
