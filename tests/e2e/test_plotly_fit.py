"""The browser's fitting of a figure to its width (``ui/plotly_fit/``), unit by unit on figure JSON: the five
scripts run on a bare page in Chromium (a real canvas measures the text), ``fitFigure(figure, width, touch)``
changes a figure, and the tests read what it changed."""

from __future__ import annotations

import math

import pytest

from ui.plotly_in_place import fit_script
from viz.compact import BAR_PAD_PX, BROWSER_PX, compact_spec

FONT = 14  # px, the tick labels of the figures below


@pytest.fixture(scope="module")
def fit(browser):
    """``fit(figure, width, touch=False)``: the figure as fitted, and what ``fitFigure`` said it changed."""
    context = browser.new_context()
    page = context.new_page()
    page.set_content("<html><body></body></html>")
    page.add_script_tag(content=fit_script())

    def fitted(figure: dict, width: int, touch: bool = False) -> tuple[dict, str]:
        return page.evaluate(
            "([figure, width, touch]) => { const said = fitFigure(figure, width, touch); return [figure, said]; }",
            [figure, width, touch],
        )

    yield fitted
    context.close()


def words_axis_figure(count: int, word: str = "token") -> dict:
    labels = [f"{word}{i}" for i in range(count)]
    return {
        "data": [{"type": "bar", "x": list(range(count)), "y": [1] * count}],
        "layout": {
            "height": 400,
            "margin": {"l": 60, "r": 20, "t": 60, "b": 80},
            "xaxis": {
                "tickmode": "array",
                "tickvals": list(range(count)),
                "ticktext": labels,
                "tickfont": {"size": FONT},
            },
        },
    }


def heatmap_figure(columns: int, text: str | None = None) -> dict:
    trace = {"type": "heatmap", "z": [[0.5] * columns] * 4, "colorbar": {"title": {"text": "weight"}}}
    if text is not None:
        trace |= {"text": [[text] * columns] * 4, "texttemplate": "%{text}", "textfont": {"size": FONT}}
    return {"data": [trace], "layout": {"height": 300, "margin": {"l": 60, "r": 90, "t": 60, "b": 60}}}


def test_a_figure_that_fits_is_drawn_as_built(fit):
    figure = words_axis_figure(6)
    fitted, _ = fit(figure, 1200)
    assert fitted["data"] == figure["data"]
    assert fitted["layout"]["xaxis"] == figure["layout"]["xaxis"]
    assert fitted["layout"]["height"] == figure["layout"]["height"]


def test_words_that_do_not_fit_turn_and_thin_a_line_apart(fit):
    fitted, _ = fit(words_axis_figure(40), 500)
    axis = fitted["layout"]["xaxis"]
    assert axis["tickangle"] == -45
    kept = axis["tickvals"]
    assert 2 <= len(kept) < 40 and axis["ticktext"] == [f"token{i}" for i in kept]
    unit = (500 - 60 - 20) / 40  # px a position, the plot's width over its 40 positions
    across = min(b - a for a, b in zip(kept, kept[1:])) * unit * math.sin(math.radians(45))
    assert across >= 1.25 * FONT  # turned labels a line apart


def test_words_naming_cells_turn_upright_and_then_get_smaller_before_any_is_dropped(fit):
    """Up to 40 words naming their cells (tokens) are all kept: turned upright where 45 degrees leaves them too
    close, then written smaller, never under 10 px; turned labels keep a line between them."""
    upright, _ = fit(words_axis_figure(20), 500)  # 21 px a word: 24.7 px turned by 45, 17.5 px upright
    axis = upright["layout"]["xaxis"]
    assert (axis["tickangle"], axis["tickvals"], axis["tickfont"]["size"]) == (-90, list(range(20)), FONT)
    smaller, _ = fit(words_axis_figure(30), 500)  # 14 px a word: 17.5 px upright at 14 px, a line at 11 px
    axis = smaller["layout"]["xaxis"]
    assert axis["tickangle"] == -90 and axis["tickvals"] == list(range(30))
    assert 10 <= axis["tickfont"]["size"] <= (500 - 60 - 20) / 30 / 1.25


def test_rows_naming_cells_make_the_figure_taller_a_line_a_row(fit):
    """Thirty queries down a 300 px map: the figure grows until every row has a line (1.25 x its font) for its name,
    and all thirty are kept; a map with room for them keeps its height."""
    figure = heatmap_figure(8)
    figure["data"][0]["z"] = [[0.5] * 8] * 30
    figure["layout"]["yaxis"] = {
        "tickmode": "array",
        "tickvals": list(range(30)),
        "ticktext": [f"query{i}" for i in range(30)],
        "tickfont": {"size": FONT},
    }
    fitted, _ = fit(figure, 800)
    layout = fitted["layout"]
    plot_height = layout["height"] - layout["margin"]["t"] - layout["margin"]["b"]
    assert plot_height / 30 >= 1.25 * FONT and layout["height"] > 300
    assert layout["yaxis"]["tickvals"] == list(range(30))
    figure["layout"]["height"] = 900
    assert fit(figure, 800)[0]["layout"]["height"] == 900


def test_letters_stay_level_and_thin(fit):
    figure = words_axis_figure(60, word="")
    figure["layout"]["xaxis"]["ticktext"] = [chr(ord("a") + i % 26) for i in range(60)]
    fitted, _ = fit(figure, 320)
    axis = fitted["layout"]["xaxis"]
    assert axis.get("tickangle", 0) == 0  # never turned
    assert len(axis["tickvals"]) < 60 and axis["ticktext"] == [
        figure["layout"]["xaxis"]["ticktext"][i] for i in axis["tickvals"]
    ]


def test_colour_bars_stay_where_the_server_put_them_and_a_legend_moved_under_goes_above_them(fit):
    """A compact window's colour bars are laid under the plot on the server (``viz.compact``): the browser leaves a
    bar beside a narrow plot beside it, and a legend it moves under a narrow plot lifts bars laid there above it
    by the legend's rows."""
    beside, _ = fit(heatmap_figure(8), 360)
    assert beside["data"][0]["colorbar"] == {"title": {"text": "weight"}}
    figure = heatmap_figure(8)
    figure["data"] += [{"type": "scatter", "x": [0, 7], "y": [0, 3], "name": name} for name in ("first", "second")]
    fitted, _ = fit(compact_spec(figure), 360)
    legend, bar = fitted["layout"]["legend"], fitted["data"][0]["colorbar"]
    assert (legend["orientation"], legend["yref"], legend["y"]) == ("h", "container", 0)
    assert bar["orientation"] == "h" and bar["ypad"] >= BAR_PAD_PX + BROWSER_PX["LEGEND_ROW_PX"]


def test_cell_values_that_do_not_fit_their_cells_go_to_the_hover(fit):
    narrow, said = fit(heatmap_figure(12, "+1.60"), 360)
    assert narrow["data"][0]["texttemplate"] == ""
    wide, _ = fit(heatmap_figure(12, "+1.60"), 1400)
    assert wide["data"][0]["texttemplate"] == "%{text}"


def test_values_written_over_a_heatmaps_cells_go_where_they_do_not_fit_and_are_not_points_of_the_axis(fit):
    """viz/cell_text.py writes each cell's value in its own colour as a text trace over the heatmap: fitted as
    the heatmap's own text is, and its 72 points leave the axis of 12 heads its 12 labels."""
    import numpy as np

    from viz.cell_text import cell_text

    heads = [f"head {h + 1}" for h in range(12)]
    figure = heatmap_figure(12)
    figure["data"][0] |= {"x": heads, "y": [f"layer {i + 1}" for i in range(4)]}
    written = cell_text(np.full((4, 12), 0.5), [["+1.60"] * 12] * 4, "Viridis", (0, 1), FONT, x=heads)
    figure["data"].append(written.update(y=[f"layer {i // 12 + 1}" for i in range(48)]).to_plotly_json())
    narrow, _ = fit(figure, 360)
    assert narrow["data"][1]["visible"] is False
    wide, _ = fit(figure, 700)  # counted as 48 points along the axis, its labels were thinned to every other one
    assert wide["data"][1].get("visible") is not False
    assert wide["layout"]["xaxis"]["ticktext"] == [str(h + 1) for h in range(12)]


def test_a_vertical_colour_bar_narrows_the_plot_the_labels_have(fit):
    """Twenty keys under a heatmap with its colour bar beside it (the figure wider than a phone's, so the bar
    stays there): the labels fit the plot left of the bar, so a width at which they would fit the whole
    figure less its margins thins them."""
    figure = heatmap_figure(20)
    figure["layout"]["margin"]["r"] = 20
    figure["layout"]["xaxis"] = {
        "tickmode": "array",
        "tickvals": list(range(20)),
        "tickangle": -45,
        "ticktext": [f"{1000 + i}" for i in range(20)],  # numbers: thinned (words would be kept, smaller)
        "tickfont": {"size": FONT},
    }
    line = 1.25 * FONT / math.sin(math.radians(45))  # px from one turned label to the next
    width = int(60 + 20 + 20 * line) + 2  # fits without the bar, not with it
    fitted, _ = fit(figure, width)
    assert fitted["data"][0]["colorbar"].get("orientation") != "h"
    assert len(fitted["layout"]["xaxis"]["tickvals"]) < 20
    roomy, _ = fit(heatmap_figure(20) | {"layout": {**figure["layout"]}}, width + 200)
    assert len(roomy["layout"]["xaxis"]["tickvals"]) == 20


def test_panels_side_by_side_stack_on_a_narrow_plot(fit):
    figure = {
        "data": [
            {"type": "scatter", "x": [1, 2], "y": [1, 2], "xaxis": "x", "yaxis": "y"},
            {"type": "scatter", "x": [1, 2], "y": [1, 2], "xaxis": "x2", "yaxis": "y2"},
        ],
        "layout": {
            "height": 300,
            "margin": {"l": 60, "r": 20, "t": 60, "b": 60},
            "xaxis": {"domain": [0, 0.45], "anchor": "y"},
            "yaxis": {"domain": [0, 1], "anchor": "x"},
            "xaxis2": {"domain": [0.55, 1], "anchor": "y2"},
            "yaxis2": {"domain": [0, 1], "anchor": "x2"},
        },
    }
    fitted, said = fit(figure, 200)
    first, second = fitted["layout"]["yaxis"]["domain"], fitted["layout"]["yaxis2"]["domain"]
    assert first[0] >= second[1] or second[0] >= first[1]  # one above the other
    assert fitted["layout"]["height"] > 300


def test_names_over_columns_far_apart_all_stay(fit):
    """Two column names ("queries", "keys") over an axis whose range the figure sets, drawn with many line
    points: the names are a whole plot apart, so both stay."""
    lines = {"type": "scatter", "mode": "lines", "x": [0, 1, None] * 100, "y": list(range(300))}
    figure = {
        "data": [lines],
        "layout": {
            "height": 400,
            "margin": {"l": 60, "r": 20, "t": 60, "b": 40},
            "xaxis": {"range": [-0.9, 1.9], "visible": False},
            "annotations": [
                {"text": "queries", "x": 0, "y": -0.9, "showarrow": False},
                {"text": "keys", "x": 1, "y": -0.9, "showarrow": False},
            ],
        },
    }
    fitted, _ = fit(figure, 700)
    assert all(note.get("visible", True) for note in fitted["layout"]["annotations"])


def test_a_grid_of_letters_keeps_two_tiles_a_row_on_a_projector(fit):
    """Train's probe on a projector: two heads of 32 one-letter tokens stay side by side in the 1,120 px of a page
    in presentation mode (the letters written level at 14 px, a glyph's advance and 2 px apart, fit a tile of
    about 460 px); four px apart, as words are, they would not, and the grid went one tile a row, twice as tall."""
    import json

    import numpy as np

    from viz.heads import head_grid_figure
    from viz.style import presentation_spec

    letters = [chr(ord("a") + i % 26) for i in range(32)]
    weights = np.full((2, 32, 32), 1 / 32, dtype=np.float32)
    figure = presentation_spec(json.loads(head_grid_figure(weights, letters, letters, "probe").to_json()))
    fitted, _ = fit(figure, 1120)
    z = fitted["data"][0]["z"]  # rows as lists once the grid is moved, else the typed block the server sent
    shape = (len(z), len(z[0])) if isinstance(z, list) else tuple(int(n) for n in z["shape"].split(","))
    assert shape == (32, 65)  # two tiles of 32 columns, a column's gap between them
    assert fitted["layout"]["height"] < 1000
