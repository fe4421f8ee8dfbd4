"""viz.margins: margins reserved up front only ever grow, and the legend's margin holds the legend."""

import math

import plotly.graph_objects as go
import pytest

from viz.margins import LEGEND_PAD_PX, LEGEND_ROW_PX, legend_below_px, reserve_margins, token_axis_px


def test_reserve_margins_widens_and_never_narrows():
    fig = go.Figure().update_layout(margin=dict(l=120, r=10, t=60, b=10))
    reserve_margins(fig, left=80, right=84.2, bottom=76)
    margin = fig.layout.margin
    assert (margin.l, margin.r, margin.t, margin.b) == (120, 85, 60, 76)  # l kept, r rounded up, t untouched


@pytest.mark.parametrize("entries, offset, height, top", [(6, 0.3, 420, 60), (2, 0.35, 360, 60), (1, 0.3, 400, 60)])
def test_legend_margin_holds_the_legend_below_the_plot_area(entries, offset, height, top):
    """The legend's top sits ``offset`` plot heights below the plot area, and the plot area is what the
    margins leave: the margin must reach down to the legend's bottom edge."""
    bottom = legend_below_px(entries, offset, height, top)
    plot_height = height - top - bottom
    legend_height = LEGEND_PAD_PX + LEGEND_ROW_PX * math.ceil(entries / 2)
    assert bottom >= offset * plot_height + legend_height
    assert bottom - (offset * plot_height + legend_height) < 10  # and not much more


def test_token_axis_room_grows_with_the_longest_label_and_the_angle():
    short, long = token_axis_px(["a", "b"]), token_axis_px(["a", "elephant"])
    assert long - short == pytest.approx(0.6 * 14 * 7)  # 7 more characters at 0.6 em of 14 px
    turned = token_axis_px(["elephant"], -45)
    assert turned == pytest.approx(token_axis_px(["elephant"]) - 0.6 * 14 * 8 + math.sqrt(0.5) * 0.6 * 14 * 8 + 14)
