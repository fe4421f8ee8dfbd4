"""In a real browser: a control change redraws the page's charts in place (the same plots, new data),
and a chart follows its column's width."""

import math
import re

from tests.e2e.conftest import (
    unfold,
    assert_no_exception,
    choose,
    nudge_slider,
    streamlit_server,
    wait_for_chart,
    wait_idle,
    wait_settled,
)

# Each plot's drawing (its first .main-svg), which Plotly.react keeps and Plotly.newPlot makes anew.
MARK = "() => document.querySelectorAll('div.lab-chart').forEach((el, i) => { el.querySelector('.main-svg').labTestMark = i + 1; })"
MARKS = (
    "() => [...document.querySelectorAll('div.lab-chart')].map(el => el.querySelector('.main-svg')?.labTestMark || 0)"
)
TABLE_SHAPE = (
    "() => { const table = [...document.querySelectorAll('div.lab-chart')].find(el =>"
    " el.layout.title.text.startsWith('Dims 0–1 repeat every')); return table.data[0].z.shape; }"
)  # numpy arrays travel as {bdata, dtype, shape}


def test_a_slider_change_updates_the_plots_already_on_the_page(page, server_url):
    page.goto(f"{server_url}/positional_encoding")
    wait_idle(page)
    wait_for_chart(page, "Wavelength per pair", timeout=30_000)
    page.evaluate(MARK)
    nudge_slider(page, "d_model (dimensions)")
    wait_for_chart(page, f"pair 12 every {2 * math.pi * 10000 ** (24 / 65):,.1f}", timeout=15_000)  # the curves
    wait_idle(page)
    assert_no_exception(page)
    assert page.evaluate(MARKS) == [1, 2]  # the same two plots, each updated with Plotly.react

    page.goto(f"{server_url}/positional_encoding?section=Table")
    wait_idle(page)
    wait_for_chart(page, "Dims 0–1 repeat every", timeout=30_000)
    assert page.evaluate(TABLE_SHAPE).replace(" ", "").endswith(",64")
    page.evaluate(MARK)
    nudge_slider(page, "d_model (dimensions)")
    wait_for_chart(page, "dims 64 every", timeout=15_000)  # d_model 65: the last column a lone sine
    wait_idle(page)
    assert_no_exception(page)
    assert page.evaluate(MARKS) == [1]
    assert page.evaluate(TABLE_SHAPE).replace(" ", "").endswith(",65")


def test_a_chart_takes_the_width_of_its_column(page, server_url):
    page.goto(f"{server_url}/positional_encoding")
    wait_idle(page)
    wait_for_chart(page, "Wavelength per pair", timeout=30_000)
    widths = (
        "() => [...document.querySelectorAll('div.lab-chart')]"
        ".map(el => [el._fullLayout.width, el.parentElement.getBoundingClientRect().width])"
    )
    before = page.evaluate(widths)
    assert all(abs(drawn - column) <= 2 for drawn, column in before)
    page.set_viewport_size({"width": 1000, "height": 900})
    page.wait_for_function(
        f"() => ({widths})().every(([drawn, column]) => Math.abs(drawn - column) <= 2)", timeout=10_000
    )
    after = page.evaluate(widths)
    assert all(now[0] < then[0] - 50 for now, then in zip(after, before))  # every plot got narrower


def test_picking_another_model_updates_the_plots_already_on_the_page(page, server_url):
    page.goto(f"{server_url}/self_attention")
    wait_idle(page)
    wait_for_chart(page, "X: token vectors + PE", timeout=30_000)
    page.evaluate(MARK)
    model = page.locator("[data-testid=stSelectbox]", has_text="model").first.locator("input[role=combobox]")
    choose(page, model, re.compile("induction"))
    wait_for_chart(page, "LN₁", timeout=20_000)  # the induction checkpoint is pre-LN
    wait_idle(page)
    assert_no_exception(page)
    assert page.evaluate(MARKS) == [1, 2]  # the random model's settings went, the plots stayed


def test_charts_draw_when_the_app_is_served_under_a_path(page):
    """A host may serve the app under a path (``/lab/...``): plotly.js comes from there too, on the
    first page and after moving to another page."""
    with streamlit_server(base_path="lab") as url:
        page.goto(f"{url}/positional_encoding")
        wait_idle(page, timeout=60_000)
        wait_for_chart(page, "Wavelength per pair", timeout=30_000)
        page.locator("[data-testid=stSidebarNav] a", has_text="Masks").first.click()
        wait_idle(page, timeout=60_000)
        page.wait_for_selector("div.lab-chart .main-svg", timeout=30_000)
        assert "/lab/masks" in page.url
        assert_no_exception(page)


def test_a_chart_whose_library_cannot_load_says_so(page, server_url):
    page.route(re.compile(r"/plotly[^/]*\.min\.js"), lambda route: route.abort())
    page.goto(f"{server_url}/masks")
    wait_idle(page, timeout=60_000)
    message = page.locator("div.lab-chart", has_text="The chart could not be drawn: reload the page.")
    message.first.wait_for(timeout=15_000)
    assert page.locator("div.lab-chart .main-svg").count() == 0


FULL_SCREEN = "button.modebar-btn[data-title='Full screen (Esc to leave)']"
SIZES = "() => [...document.querySelectorAll('div.lab-chart')].map(el => [el._fullLayout.width, el._fullLayout.height])"
BORDER = 24  # px of white around a plot shown full screen (ui.plotly_in_place.CHART_CSS)


def wavelength_chart(page):
    """The Positional encoding page's "Wavelength per pair" plot."""
    return page.locator("div.lab-chart", has=page.locator(".gtitle", has_text="Wavelength per pair"))


def wait_for_sizes(page, sizes: list) -> None:
    """Wait until every plot is drawn at ``sizes`` ([width, height] each, as ``SIZES`` reads them)."""
    page.wait_for_function(f"() => JSON.stringify(({SIZES})()) === {str(sizes).replace(' ', '')!r}", timeout=5_000)


def test_a_chart_fills_the_screen_from_its_toolbar_and_comes_back(page, server_url):
    """The projector's view of one figure: its toolbar's last button shows it full screen, at the screen's
    size inside a 24 px white border; a second click returns it to its column at the figure's own height."""
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(f"{server_url}/positional_encoding")
    wait_idle(page)
    wait_for_chart(page, "Wavelength per pair", timeout=30_000)
    unfold(page.locator("[data-testid=stSlider]", has_text="d_model (dimensions)").first)  # the folded settings
    before = page.evaluate(SIZES)
    # viz.positional's heights: the curves 150 px and 120 a pair (3 pairs), the wavelengths 360, each more for a
    # title that wraps (the wavelengths' legend rows under it too)
    assert before[0][1] >= 150 + 3 * 120 and before[1][1] >= 360
    chart = wavelength_chart(page)
    chart.hover()
    titles = chart.locator("button.modebar-btn").evaluate_all("els => els.map(e => e.dataset.title)")
    assert titles[-1] == "Full screen (Esc to leave)"
    assert not [title for title in titles if "Share" in title]  # no button that sends the figure to a cloud
    assert not [title for title in titles if "Select" in title]  # nothing uses a box or lasso selection

    chart.locator(FULL_SCREEN).click()
    page.wait_for_function("() => document.fullscreenElement?.classList.contains('lab-chart')", timeout=5_000)
    page.wait_for_function(f"() => document.fullscreenElement._fullLayout.height === {900 - 2 * BORDER}", timeout=5_000)
    assert page.evaluate("() => document.fullscreenElement._fullLayout.width") == 1400 - 2 * BORDER
    assert page.evaluate("() => getComputedStyle(document.fullscreenElement).backgroundColor") == "rgb(255, 255, 255)"

    chart.hover()
    chart.locator(FULL_SCREEN).click()
    page.wait_for_function("() => document.fullscreenElement === null", timeout=5_000)
    wait_for_sizes(page, before)
    assert_no_exception(page)


def test_without_element_full_screen_a_chart_covers_the_window_and_follows_the_page(page, server_url):
    """A phone, or a frame that does not allow full screen: the same button makes the plot cover the window,
    on top of everything; a rerun redraws it at that size; a second click, or Esc, puts it back."""
    page.add_init_script("Object.defineProperty(Document.prototype, 'fullscreenEnabled', {get: () => false});")
    page.set_viewport_size({"width": 1200, "height": 800})
    page.goto(f"{server_url}/positional_encoding")
    wait_idle(page)
    wait_for_chart(page, "Wavelength per pair", timeout=30_000)
    unfold(page.locator("[data-testid=stSlider]", has_text="d_model (dimensions)").first)  # the folded settings
    before = page.evaluate(SIZES)
    chart = wavelength_chart(page)
    pairs = "() => JSON.stringify(document.querySelector('.lab-chart-expanded').data[0].x)"
    place = "() => document.querySelector('.lab-chart-expanded').parentElement.getBoundingClientRect().height"
    height_in_page = chart.evaluate("e => e.parentElement.getBoundingClientRect().height")  # with the numbers' box
    chart.hover()
    chart.locator(FULL_SCREEN).click()
    page.wait_for_function(
        f"() => document.querySelector('div.lab-chart.lab-chart-expanded')?._fullLayout.height === {800 - 2 * BORDER}",
        timeout=5_000,
    )
    box = chart.bounding_box()
    assert (box["x"], box["y"], box["width"], box["height"]) == (0, 0, 1200, 800)  # over the whole window
    assert page.evaluate("() => document.querySelector('.lab-chart-expanded')._fullLayout.width") == 1200 - 2 * BORDER
    assert page.evaluate(
        "() => document.elementFromPoint(600, 20).closest('.lab-chart-expanded') !== null"
    )  # above the header
    assert page.evaluate(place) == height_in_page  # the page below keeps its place
    assert page.evaluate("() => document.fullscreenElement") is None

    pairs_before = page.evaluate(pairs)
    nudge_slider(page, "d_model (dimensions)", "ArrowRight")  # 64 -> 65: a 33rd pair, redrawn while covering
    page.wait_for_function(f"() => ({pairs})() !== {pairs_before!r}", timeout=15_000)
    wait_idle(page)
    assert page.evaluate("() => document.querySelector('.lab-chart-expanded')._fullLayout.height") == 800 - 2 * BORDER

    chart.locator(FULL_SCREEN).click()  # the second click; Playwright clicks only what is on top
    page.wait_for_function("() => document.querySelector('.lab-chart-expanded') === null", timeout=5_000)
    nudge_slider(page, "d_model (dimensions)", "ArrowLeft")
    wait_idle(page)
    wait_for_sizes(page, before)
    chart.hover()
    chart.locator(FULL_SCREEN).click()
    page.wait_for_selector(".lab-chart-expanded", timeout=5_000)
    page.keyboard.press("Escape")
    page.wait_for_function("() => document.querySelector('.lab-chart-expanded') === null", timeout=5_000)
    wait_for_sizes(page, before)
    assert page.evaluate(
        "() => [...document.querySelectorAll('div.lab-chart')].map(el => el.parentElement.style.minHeight)"
    ) == ["", ""]
    assert_no_exception(page)


AFTERPLOT = (
    "() => { window.labDraws = []; document.querySelectorAll('div.lab-chart').forEach((plot, i) =>"
    " plot.on('plotly_afterplot', () => window.labDraws.push(i))); }"
)
SIDEBAR_WIDTH = "() => document.querySelector('[data-testid=stSidebar]').getBoundingClientRect().width"


def test_presentation_mode_lays_each_figure_out_once_and_a_link_opens_with_the_sidebar_closed(page, server_url):
    """Switching presentation mode redraws every figure at its projector size once: the sidebar stays where it
    is (sliding it away would widen the page after the figures were drawn, and draw them all again). A link
    with present=true opens with the sidebar closed."""
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(f"{server_url}/positional_encoding")
    wait_idle(page)
    wait_for_chart(page, "Wavelength per pair", timeout=30_000)
    wait_settled(page)
    sidebar = page.evaluate(SIDEBAR_WIDTH)
    assert sidebar > 200  # a wide window opens with the sidebar open
    page.evaluate(AFTERPLOT)
    page.locator("[data-testid=stCheckbox]", has_text="Presentation mode").locator("label").click()
    page.wait_for_function("() => window.labDraws.length >= 2", timeout=15_000)
    wait_idle(page)
    wait_settled(page)  # a sidebar sliding, or a plot resized after it, would have drawn again by now
    assert sorted(page.evaluate("() => window.labDraws")) == [0, 1]
    assert page.evaluate("() => [...document.querySelectorAll('div.lab-chart')].map(p => p._fullLayout.font.size)") == [
        22.5,
        22.5,
    ]  # viz.style's 15 px, 1.5 x for the projector
    assert page.evaluate(SIDEBAR_WIDTH) == sidebar
    assert "present=true" in page.url

    page.goto(page.url)  # the same view as a link, in a new session
    wait_idle(page)
    wait_for_chart(page, "Wavelength per pair", timeout=30_000)
    wait_settled(page)
    assert page.evaluate(SIDEBAR_WIDTH) == 0
    assert_no_exception(page)
