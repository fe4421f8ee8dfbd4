"""In a real browser: every chart of every section of every page meets the figure standard as drawn
(``tests.e2e.figure_standard``), on a desktop (1280 x 800), a phone (390 x 844) and a projector in presentation
mode (1280 x 720, chart text at least 14 px); and every section passes axe-core's WCAG 2.0, 2.1 and 2.2 A and AA
rules at each of the three sizes (docs/accessibility.md).

One walk through every section per screen also checks what that screen needs of the page around the figures: on
the phone, that the page reads (``test_phone.assert_reads_well``, which test_phone.py applies to a tablet); on the
projector, that presentation mode holds and the first figure is on the first screen
(``test_presentation.assert_figure_on_the_first_screen``). Each walk runs with no internet (``tests.e2e.offline``):
every page and section draws from the local server alone."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import new_page, wait_idle, wait_settled
from tests.e2e.figure_standard import CUT_FORMULAS, DEFECTS, DRAWN_SCALES, NAMED_ACROSS_ON_A_PHONE
from tests.figure_rules import attention_scale_defect, finding_of, is_attention_weight, plain_title, ranges_apart
from viz.labels import NAMED_UP_TO
from tests.e2e.accessibility_check import accessibility_violations
from tests.e2e.compact import CHARTS_DRAWN, GO_TO, SECTIONS, open_compact
from tests.e2e.offline import EVERYTHING_LOADED, GRAPHVIZ_DRAWN, block_the_internet
from viz.compact import COMPACT_BELOW_PX
from tests.e2e.test_phone import assert_reads_well
from tests.e2e.test_presentation import FIRST_FIGURE_SHOWN, assert_figure_on_the_first_screen
from ui.pages_index import PAGES

# On a desktop's first screen (the page scrolled to its top), the open section's first figure starts and shows this
# much of itself, or DESKTOP_SHOWN_PX of a tall one: its title and its first rows (the phone's and the projector's
# first screens are checked in test_phone.py and test_presentation.py).
DESKTOP_SHARE_SHOWN, DESKTOP_SHOWN_PX = 0.6, 200

# name: (viewport, the first link's query, smallest text in px, a touch screen, most names a row across)
SCREENS = {
    "desktop": ((1280, 800), "", 10, False, NAMED_UP_TO),
    "phone": ((390, 844), "", 10, True, NAMED_ACROSS_ON_A_PHONE),
    "projector": ((1280, 720), "?present=true", 14, False, NAMED_UP_TO),
}


@pytest.fixture(scope="module", params=list(SCREENS))
def screen(request, browser, server_url):
    (width, height), query, smallest, touch, across = SCREENS[request.param]
    page = new_page(browser, viewport={"width": width, "height": height}, is_mobile=touch, has_touch=touch)
    attempted = block_the_internet(page.context)
    if width < COMPACT_BELOW_PX:  # laid out compact: the browser's report answered (formulas set for a phone)
        open_compact(page, f"{server_url}/{query}")
    else:
        page.goto(f"{server_url}/{query}")
        wait_idle(page, timeout=90_000)
    yield request.param, page, smallest, across, attempted
    page.context.close()


def drawn(page) -> None:
    page.wait_for_function(CHARTS_DRAWN, timeout=30_000)
    page.wait_for_function(EVERYTHING_LOADED, timeout=30_000)
    wait_settled(page)


def below_the_first_screen(page) -> list[dict]:
    """The open section's first figure as a defect when the window, scrolled to the top, shows less than
    ``DESKTOP_SHARE_SHOWN`` of it (or ``DESKTOP_SHOWN_PX`` of a tall one); none for a page without a figure."""
    page.evaluate("() => document.querySelector('[data-testid=stMain]').scrollTo({top: 0})")
    figure = page.evaluate(FIRST_FIGURE_SHOWN)
    if figure is None or figure["shown"] >= min(DESKTOP_SHARE_SHOWN * figure["height"], DESKTOP_SHOWN_PX):
        return []
    detail = f"starts at {figure['top']:.0f} px, {figure['shown']:.0f} of its {figure['height']:.0f} px shown"
    return [{"kind": "below the first screen", "text": "", "detail": detail, "chart": "the first figure"}]


def screen_defects(name: str, page, where: str) -> list[dict]:
    """What the screen itself needs of the page as opened (before anything scrolls it): the phone's page reads, the
    projector keeps presentation mode and shows the first figure on its first screen; the failure as a defect."""
    try:
        if name == "phone":
            assert_reads_well(page, "phone")
        elif name == "projector":
            assert page.evaluate("() => new URL(location.href).searchParams.get('present')") == "true", where
            assert_figure_on_the_first_screen(page, where)
    except AssertionError as error:
        return [{"kind": f"the {name}'s page", "text": "", "detail": str(error)[:400], "chart": ""}]
    return []


def scale_and_title_defects(page) -> list[dict]:
    """The rules of ``tests.figure_rules`` on the charts as drawn: a title that names only its variable, a weight
    off the attention scale, two colour ranges for one quantity in the view."""
    defects = []
    drawn_maps = []
    for chart in page.evaluate(DRAWN_SCALES):
        title = plain_title(chart["title"])
        if finding_of(title) is None:
            defects.append({"kind": "title without its finding", "text": title[:40], "detail": "", "chart": title})
        for drawn in chart["maps"]:
            drawn_maps.append((drawn["quantity"], drawn["low"], drawn["high"]))
            off = is_attention_weight(drawn["quantity"], drawn["hover"]) and attention_scale_defect(
                drawn["colours"], drawn["low"]
            )
            if off:
                defects.append({"kind": "weight off the attention scale", "text": "", "detail": off, "chart": title})
    for quantity, ranges in ranges_apart(drawn_maps).items():
        defects.append({"kind": "two colour ranges", "text": quantity, "detail": str(sorted(ranges)), "chart": ""})
    return defects


@pytest.mark.parametrize("info", PAGES, ids=[info.url_path for info in PAGES])
def test_every_section_meets_the_figure_standard_and_wcag_aa(screen, info):
    name, page, smallest, across, attempted = screen
    attempted_before = len(attempted)
    before = page.evaluate("() => window.__labRuns.requested")
    if page.evaluate(GO_TO, info.url_path):
        wait_idle(page, timeout=90_000, after=before)
    drawn(page)
    sections = page.locator(SECTIONS).evaluate_all("buttons => buttons.map((b) => b.innerText.trim())") or [""]
    found = {}
    for index, section in enumerate(sections):
        if index:
            before = page.evaluate("() => window.__labRuns.requested")
            page.locator(SECTIONS).nth(index).click()
            wait_idle(page, after=before)
            drawn(page)
        defects = screen_defects(name, page, f"{info.url_path}, section {section!r}")
        defects += page.evaluate(DEFECTS, [smallest, across]) + page.evaluate(CUT_FORMULAS)
        defects += accessibility_violations(page) + scale_and_title_defects(page)
        if name == "desktop":
            defects += below_the_first_screen(page)
        if defects:
            found[section or "(the page)"] = defects
    if len(sections) > 1:
        page.locator(SECTIONS).nth(0).click()
        wait_idle(page)
    if info.is_home:  # Graphviz drew too, from the server alone (the architecture's diagram)
        assert page.locator(GRAPHVIZ_DRAWN).count() > 0, f"no Graphviz diagram drawn on the {name}"
    outside = sorted(set(attempted[attempted_before:]))
    assert not outside, f"{info.url_path} on the {name}, requests outside the local server:\n" + "\n".join(outside)
    assert not found, f"{info.url_path} on the {name}: " + "; ".join(
        f"{section}: {d['kind']} {d['text']!r} ({d['detail']}) in {d['chart']!r}"
        for section, defects in found.items()
        for d in defects[:6]
    )


# Figures drawn on a bare page with the app's own plotly.js, each breaking one rule, and one that breaks none.
BAD_FIGURES = {
    "small": {
        "data": [{"type": "bar", "x": ["a", "b"], "y": [1, 2]}],
        "layout": {"width": 400, "height": 300, "font": {"size": 8}},
    },
    "sideways": {
        "data": [{"type": "bar", "x": list("abcdefgh"), "y": [1] * 8}],
        "layout": {"width": 400, "height": 300, "xaxis": {"tickangle": -90}},
    },
    "overlap": {
        "data": [{"type": "bar", "x": [f"a long word {i}" for i in range(12)], "y": [1] * 12}],
        "layout": {"width": 300, "height": 300, "xaxis": {"tickangle": 0}},
    },
    "log ticks": {
        "data": [{"type": "scatter", "x": [1, 1000], "y": [1, 2]}],
        "layout": {"width": 600, "height": 300, "xaxis": {"type": "log", "dtick": "D1"}},
    },
    "unnamed": {  # every other of 12 tokens named
        "data": [{"type": "heatmap", "z": [[0.5] * 12] * 3}],
        "layout": {
            "width": 500,
            "height": 300,
            "xaxis": {"tickmode": "array", "tickvals": list(range(0, 12, 2)), "ticktext": ["token"] * 6},
        },
    },
    "clipped": {
        "data": [{"type": "bar", "x": ["a"], "y": [1]}],
        "layout": {
            "width": 300,
            "height": 300,
            "annotations": [
                {"text": "a note past the edge", "x": 2.5, "xref": "paper", "y": 1, "yref": "paper", "showarrow": False}
            ],
        },
    },
}
GOOD_FIGURE = {
    "data": [{"type": "bar", "x": ["first", "second"], "y": [1, 2]}],
    "layout": {"width": 500, "height": 300, "title": {"text": "Readable"}, "font": {"size": 12}},
}
DRAW = """async ([library, figures]) => {
  await new Promise((resolve, reject) => { const s = document.createElement("script"); s.src = library;
    s.onload = resolve; s.onerror = reject; document.head.appendChild(s); });
  for (const figure of figures) {
    const plot = document.createElement("div"); plot.className = "lab-chart";
    plot.style.width = `${figure.layout.width}px`;  // as wide as its figure, as in the app's column
    document.body.appendChild(plot);
    await Plotly.newPlot(plot, figure.data, figure.layout);
  }
}"""


def test_the_standards_check_finds_each_kind_of_defect(page, server_url):
    from ui.plotly_in_place import STATIC_NAME

    for kind, figure in [*BAD_FIGURES.items(), ("none", GOOD_FIGURE)]:
        page.set_content("<html><body></body></html>")
        page.evaluate(DRAW, [f"{server_url}/app/static/{STATIC_NAME}", [figure]])
        kinds = {defect["kind"] for defect in page.evaluate(DEFECTS, [10, NAMED_UP_TO])}
        assert (kinds == set()) if kind == "none" else (kind in kinds), (kind, kinds)


def test_the_standards_check_finds_a_cut_formula_and_passes_one_that_fits(page):
    boxes = "".join(
        f'<div class="katex-display" style="width: 200px; overflow-x: auto"><span style="display: inline-block; '
        f'width: {width}px"><annotation>{name}</annotation></span></div>'
        for name, width in (("wide", 320), ("fits", 180))
    )
    page.set_content(f'<html><body><div data-testid="stMain">{boxes}</div></body></html>')
    assert [(d["kind"], d["text"], d["detail"]) for d in page.evaluate(CUT_FORMULAS)] == [
        ("cut", "wide", "120 px past its box of 200 px")
    ]


def _map(title: str, quantity: str, colours, low: float, high: float) -> dict:
    bar = {"title": {"text": quantity}}
    trace = {"type": "heatmap", "z": [[0, 1]], "colorscale": colours, "zmin": low, "zmax": high, "colorbar": bar}
    return {"data": [trace], "layout": {"width": 300, "height": 200, "title": {"text": title}}}


def test_the_drawn_scales_check_finds_a_bare_title_a_weight_off_its_scale_and_two_ranges(page, server_url):
    import plotly.colors

    from ui.plotly_in_place import STATIC_NAME

    library = f"{server_url}/app/static/{STATIC_NAME}"
    viridis = [[i / 9, colour] for i, colour in enumerate(plotly.colors.sequential.Viridis)]
    bad = [
        _map("Raw scores: from −3 to 3", "score", "RdBu", -3, 3),
        _map("Scaled scores", "score", "RdBu", -1, 1),
        _map("Weights: the key read the most is “cat”", "weight", "Plasma", 0, 1),
    ]
    page.set_content("<html><body></body></html>")
    page.evaluate(DRAW, [library, bad])
    kinds = [defect["kind"] for defect in scale_and_title_defects(page)]
    assert sorted(kinds) == ["title without its finding", "two colour ranges", "weight off the attention scale"]
    good = [
        _map("Raw scores: from −3 to 3", "score", "RdBu", -3, 3),
        _map("Scaled scores: from −1 to 1", "score", "RdBu", -3, 3),
        _map("Weights: the key read the most is “cat”", "weight", viridis, 0, 1),
    ]
    page.set_content("<html><body></body></html>")
    page.evaluate(DRAW, [library, good])
    assert scale_and_title_defects(page) == []


def test_the_offline_filter_aborts_and_records_a_request_to_another_host_and_passes_the_servers(page, server_url):
    attempted = block_the_internet(page.context)
    page.set_content(
        f'<html><body><img src="http://example.com/lab.png"><img src="{server_url}/favicon.png"></body></html>'
    )
    page.wait_for_function("() => [...document.images].every((image) => image.complete)")
    assert attempted == ["image http://example.com/lab.png"]
    assert page.evaluate("() => [...document.images].map((image) => image.naturalWidth > 0)") == [False, True]
