"""In a real browser: a chart's title stays clear of Plotly's toolbar and of its panel names, plain and in
presentation mode."""

from tests.e2e.conftest import wait_for_chart, wait_idle


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
    views = (("", "Wavelength per pair", 2), ("section=Table", "Dims 0–1 repeat every", 1))
    for (query, title, count), present in ((view, present) for view in views for present in (False, True)):
        page.goto(f"{server_url}/positional_encoding?{query}{'&present=true' if present else ''}")
        wait_idle(page)
        wait_for_chart(page, title, timeout=30_000)
        page.locator(".js-plotly-plot").last.hover()
        boxes = page.evaluate(OVERLAPS)
        assert len(boxes) == count and all(box["bar"] for box in boxes), boxes
        assert all(box["apart"] for box in boxes), boxes


PANEL_NAMES_BELOW_TITLE = """() => [...document.querySelectorAll('.js-plotly-plot')].map(plot => {
    const title = plot.querySelector('.gtitle').getBoundingClientRect();
    const names = [...plot.querySelectorAll('.annotation-text')].map(n => n.getBoundingClientRect());
    return {names: names.length, clear: names.every(n => title.bottom <= n.top)};
})"""


def test_panel_names_sit_under_the_title(page, server_url):
    """A figure of panels (Multi-head's Compare section: two heads and their difference) keeps its panel
    names in a row below the title, plain and in presentation mode."""
    for query in ("", "&present=true"):
        page.goto(f"{server_url}/multi_head?section=Compare{query}")
        wait_idle(page)
        wait_for_chart(page, "Compare", timeout=30_000)
        figures = page.evaluate(PANEL_NAMES_BELOW_TITLE)
        assert figures and figures[0]["names"] == 3 and all(figure["clear"] for figure in figures), figures
