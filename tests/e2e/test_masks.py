"""In a real browser: the Masks page loads, redraws after a slider change, opens a tab and follows a radio."""

from tests.e2e.conftest import (
    assert_no_exception,
    new_page,
    nudge_slider,
    open_section,
    wait_for_chart,
    wait_idle,
    wait_settled,
)


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


# The masked overlay's drawn image (viz.masking: a heatmap trace named "masked") and the filter it is drawn through.
MASKED_IMAGES = """() => [...document.querySelectorAll('div.lab-chart g.hm')]
  .filter((g) => g.__data__ && g.__data__[0].trace.name === 'masked')
  .map((g) => ({filter: g.querySelector('image').getAttribute('filter'),
                defined: Boolean(document.querySelector('filter#lab-hatch feTile'))}))"""


def test_masked_cells_are_hatched_grey_and_the_others_are_not(page, server_url):
    """The scores under a causal mask: the cells above the diagonal are grey with darker stripes (two colours in a
    patch of them), the weights below it are not striped (the overlay is transparent there)."""
    page.goto(f"{server_url}/masks?section=Scores")
    wait_idle(page)
    wait_for_chart(page, "mask: causal + padding", timeout=30_000)
    page.wait_for_function(
        f"() => ({MASKED_IMAGES})().some((image) => image.filter === 'url(#lab-hatch)')", timeout=10_000
    )
    assert all(image["defined"] for image in page.evaluate(MASKED_IMAGES))
    # the first masked overlay's image: its top-right corner is masked (keys after the first query), its
    # bottom-left not (the first key, for the last query)
    overlay = "[...document.querySelectorAll('div.lab-chart g.hm')].find((g) => g.__data__[0].trace.name === 'masked')"
    page.evaluate(f"() => {overlay}.scrollIntoView({{block: 'center'}})")
    page.wait_for_function(
        f"""() => {{ const r = {overlay}.querySelector('image').getBoundingClientRect();
                                       return r.top >= 0 && r.bottom <= window.innerHeight; }}""",
        timeout=5_000,
    )
    box = page.evaluate(f"""() => {{ const r = {overlay}.querySelector('image').getBoundingClientRect();
                                    return {{x: r.x, y: r.y, width: r.width, height: r.height}}; }}""")
    wait_settled(page)  # no plot waits to be laid out again at the screenshot
    from io import BytesIO

    from PIL import Image

    shot = Image.open(BytesIO(page.screenshot())).convert("RGB")
    scale = shot.width / page.viewport_size["width"]

    def colours(left: float, top: float) -> set:
        size = 12
        return {
            shot.getpixel((int((left + dx) * scale), int((top + dy) * scale)))
            for dx in range(size)
            for dy in range(size)
        }

    masked = colours(box["x"] + box["width"] - 16, box["y"] + 2)
    assert (200, 200, 200) in masked and any(max(c) < 160 for c in masked), masked  # the grey and a stripe
    allowed = colours(box["x"] + 2, box["y"] + box["height"] - 16)
    assert (200, 200, 200) not in allowed, allowed


def test_a_tablets_score_maps_lie_one_under_another_as_wide_as_the_page(browser, server_url):
    """At a tablet's 820 px, sidebar shown, the page is compact: the three score maps are stacked, each plot as wide
    as the main column (in three columns each had about 140 px, its colour bar unreadable)."""
    page = new_page(browser, viewport={"width": 820, "height": 1180})
    try:
        page.goto(f"{server_url}/masks?section=Scores")
        wait_idle(page)
        # Three plots drawn in one column: the page is laid out for a large screen until the browser reports the
        # tablet's width (one rerun), so the plots are waited for in their final place, not in the first layout,
        # and measured in the same look (a plot being replaced between two looks would be missed)
        boxes = page.wait_for_function(
            """() => {
                 const plots = [...document.querySelectorAll('[data-testid=stMain] div.lab-chart.js-plotly-plot')];
                 const boxes = plots.map((plot) => plot.getBoundingClientRect())
                   .map((r) => ({left: r.left, top: r.top, width: r.width}));
                 const lefts = new Set(boxes.map((box) => Math.round(box.left)));
                 return plots.length === 3 && lefts.size === 1 && boxes;
               }""",
            timeout=30_000,
        ).json_value()
        main = page.evaluate("() => document.querySelector('[data-testid=stMainBlockContainer]').clientWidth")
        assert len(boxes) == 3
        assert [round(box["left"]) for box in boxes] == [round(boxes[0]["left"])] * 3  # one column
        assert boxes[0]["top"] < boxes[1]["top"] < boxes[2]["top"]
        assert all(box["width"] >= 0.8 * (main - 2 * 16) for box in boxes), (boxes, main)
    finally:
        page.context.close()
