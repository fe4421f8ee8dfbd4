"""viz.compact: a compact window's figure, built on the server from real figures of viz/.

The rules (docs/architecture.md, "The chart component"): in a compact window every colour bar lies under its
plot, horizontal, the bars side by side sharing the width, each title under its bar; the figure grows by the
room they take (58 px), so the plot area keeps its height; the right margin that held a bar shrinks to 16 px
unless a legend stands beside the plot; nothing else of the figure changes, and a figure without a colour bar
is sent as built.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import pytest

from viz.compact import compact_spec, sent_spec
from viz.heads import compare_figure
from viz.masks import readable_heatmap
from viz.position_schemes import slopes_figure
from viz.style import PRESENTATION_FONT_SCALE, PRESENTATION_HEIGHT_SCALE, presentation_spec

TOKENS = ["the", "cat", "sat", "down"]
ROOM_UNDER_PX, RIGHT_EDGE_PX = 58, 16


def weights() -> np.ndarray:
    scores = np.tril(np.arange(1.0, 17.0).reshape(4, 4))
    return (scores / scores.sum(-1, keepdims=True)).astype(np.float32)


def one_map() -> dict:
    """One attention map: a heatmap with its own colour bar ("weight") and the grey overlay of masked cells."""
    return readable_heatmap(weights(), TOKENS, TOKENS, "Weights", mask=np.tril(np.ones((4, 4), bool))).to_dict()


def plot_height(spec: dict) -> float:
    layout = spec["layout"]
    return layout["height"] - layout["margin"]["t"] - layout["margin"]["b"]


def assert_under_the_plot(bar: dict, centre: float, length: float, title: str) -> None:
    assert bar["orientation"] == "h"
    assert (bar["xref"], bar["x"], bar["xanchor"]) == ("paper", pytest.approx(centre), "center")
    assert (bar["yref"], bar["y"], bar["yanchor"]) == ("container", 0, "bottom")  # at the figure's bottom edge
    assert (bar["lenmode"], bar["len"]) == ("fraction", pytest.approx(length))
    assert bar["title"]["text"] == title and bar["title"]["side"] == "bottom"


def test_a_colour_bar_goes_under_its_plot_and_the_figure_grows_by_its_room():
    built = one_map()
    kept = pio.to_json(built, validate=False)
    small = compact_spec(built)
    assert_under_the_plot(small["data"][0]["colorbar"], centre=0.5, length=0.86, title="weight")
    assert small["data"][0]["colorbar"]["thickness"] == 10
    assert small["data"][0]["colorbar"]["tickfont"] == built["data"][0]["colorbar"]["tickfont"]  # its fonts kept
    assert "colorbar" not in small["data"][1] or small["data"][1].get("showscale") is False  # the overlay draws no bar
    margin, was = small["layout"]["margin"], built["layout"]["margin"]
    assert margin["b"] == was["b"] + ROOM_UNDER_PX and small["layout"]["height"] == built["layout"]["height"] + 58
    assert margin["r"] == min(was["r"], RIGHT_EDGE_PX) and (margin["l"], margin["t"]) == (was["l"], was["t"])
    assert plot_height(small) == plot_height(built)
    assert small["data"][0]["z"] is built["data"][0]["z"]  # the numbers travel as built
    assert pio.to_json(built, validate=False) == kept  # the figure given (a cached one's dict) is not changed


def test_two_colour_axes_share_the_width_under_three_panels():
    """Two maps on one colour axis and their difference on another: two bars under the panels, the weights' on
    the left half and the difference's on the right, as the colour axes are first used."""
    built = compare_figure(weights(), weights()[::-1], TOKENS, TOKENS, "first", "second", "Compare").to_dict()
    small = compact_spec(built)
    assert_under_the_plot(small["layout"]["coloraxis"]["colorbar"], centre=0.25, length=0.43, title="weight")
    assert_under_the_plot(small["layout"]["coloraxis2"]["colorbar"], centre=0.75, length=0.43, title="difference")
    assert small["layout"]["coloraxis"]["colorscale"] == built["layout"]["coloraxis"]["colorscale"]
    assert [trace.get("colorbar") for trace in small["data"]] == [trace.get("colorbar") for trace in built["data"]]
    assert small["layout"]["height"] == built["layout"]["height"] + ROOM_UNDER_PX  # one row of bars, however many
    assert small["layout"]["margin"]["b"] == built["layout"]["margin"]["b"] + ROOM_UNDER_PX


def test_a_legend_beside_the_plot_keeps_its_margin():
    """A map with two named lines over it: their legend stands beside the plot, so the right margin stays."""
    figure = go.Figure(one_map())
    figure.add_scatter(x=TOKENS, y=TOKENS, name="diagonal", mode="lines")
    figure.add_scatter(x=TOKENS, y=TOKENS[::-1], name="anti-diagonal", mode="lines")
    figure.update_layout(margin=dict(r=140))
    small = compact_spec(figure.to_dict())
    assert small["data"][0]["colorbar"]["orientation"] == "h"
    assert small["layout"]["margin"]["r"] == 140
    figure.update_layout(legend=dict(orientation="h", y=-0.2))  # the legend under the plot: the margin narrows
    assert compact_spec(figure.to_dict())["layout"]["margin"]["r"] == RIGHT_EDGE_PX


def test_a_figure_without_a_colour_bar_is_sent_as_built():
    built = slopes_figure(np.array([0.5, 0.25], dtype=np.float32)).to_dict()  # lines with a legend beside
    assert compact_spec(built) is built
    hidden = one_map()
    hidden["data"][0]["showscale"] = False
    assert compact_spec(hidden) is hidden


def test_sent_spec_scales_for_the_projector_first_then_lays_the_bars_under():
    built = one_map()
    assert sent_spec(built) is built
    assert sent_spec(built, presenting=True) == compact_spec(presentation_spec(built))  # on the projector too
    assert sent_spec(built, presenting=True) == sent_spec(built, presenting=True, compact=True)
    both = sent_spec(built, presenting=True, compact=True)
    assert both["layout"]["height"] == int(built["layout"]["height"] * PRESENTATION_HEIGHT_SCALE) + ROOM_UNDER_PX
    assert both["layout"]["margin"]["b"] == built["layout"]["margin"]["b"] * PRESENTATION_FONT_SCALE + ROOM_UNDER_PX
    assert both["data"][0]["colorbar"]["tickfont"]["size"] == built["data"][0]["colorbar"]["tickfont"]["size"] * 1.5
    assert both["data"][0]["colorbar"]["orientation"] == "h"


def test_a_grid_of_tiles_keeps_its_colour_bar_beside_it_on_the_projector_and_lays_it_under_on_a_phone():
    built = one_map()
    built["layout"]["meta"] = {"tiles": {"count": 4, "rows": 3, "cols": 3, "across": 2, "gap": 1}}
    presented = sent_spec(built, presenting=True)
    assert presented == presentation_spec(built)
    assert presented["data"][0]["colorbar"].get("orientation") is None
    assert sent_spec(built, presenting=True, compact=True)["data"][0]["colorbar"]["orientation"] == "h"


def test_every_colour_axis_bar_takes_the_projector_fonts():
    """Compare's two maps share the attention axis and its difference has its own (coloraxis2): both bars' tick
    labels are 14 px and both titles 15 px, so in presentation mode "difference" is set as large as "weight"."""
    import numpy as np

    from viz.heads import compare_figure
    from viz.style import PROJECTOR_LABEL_PX, PROJECTOR_TICK_PX

    maps = np.full((3, 3), 1 / 3, dtype=np.float32)
    layout = compare_figure(maps, maps, list("abc"), list("abc"), "head 1", "head 2", "compare").to_dict()["layout"]
    for name in ("coloraxis", "coloraxis2"):
        bar = layout[name]["colorbar"]
        assert bar["tickfont"]["size"] == PROJECTOR_TICK_PX and bar["title"]["font"]["size"] == PROJECTOR_LABEL_PX
    assert [layout[name]["colorbar"]["title"]["text"] for name in ("coloraxis", "coloraxis2")] == [
        "weight",
        "difference",
    ]
