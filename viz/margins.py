"""Margins reserved up front, so that the browser lays a figure out once.

Plotly grows a margin for whatever sticks out of the plot area (tick labels, axis titles, a colour
bar, a legend) by drawing the figure, measuring those parts and, when they do not fit, drawing the
whole figure again with wider margins. Each redraw of a chart costs a full Plotly layout in the
browser, so a figure whose margins already hold those parts is laid out once. Plotly still widens a
margin if a part turns out larger (longer labels, a narrow window): the figure is then drawn twice,
never cut.

The sizes below are what those parts take at the projector fonts of ``viz.style`` (ticks 14 px,
titles 15 px) in Streamlit's chart theme, as Chromium draws them, with a few pixels to spare.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import plotly.graph_objects as go

from .labels import label_px
from .style import PROJECTOR_TICK_PX

# Left: numeric tick labels up to 5 characters ("-0.5", "1000") and an axis title turned upright.
NUMERIC_Y_AXIS_PX = 88
# Left: numeric tick labels up to 3 characters, no axis title.
UNTITLED_Y_AXIS_PX = 46
# Bottom: one row of upright tick labels and an axis title below them; the same without the title.
TITLED_X_AXIS_PX, UNTITLED_X_AXIS_PX = 76, 48
# Right: a trace's colour bar (14 px thick) with tick labels up to 5 characters and its title above.
COLORBAR_PX = 84
# Right: the colour bar of a shared colour axis, which Streamlit's theme pads by 32 px more.
COLORAXIS_BAR_PX = 126
# Tick labels beside an axis: the axis line's padding, the ticks and the gap before the labels.
TICK_PAD_PX = 28
# A horizontal legend: its padding, and one row of entries (15 px text).
LEGEND_PAD_PX, LEGEND_ROW_PX = 22, 22


def reserve_margins(
    fig: go.Figure,
    left: float | None = None,
    right: float | None = None,
    bottom: float | None = None,
    top: float | None = None,
) -> go.Figure:
    """Widen ``fig``'s margins (px) to at least the given sizes; sides not given keep their margin."""
    current = fig.layout.margin
    wanted = {"l": left, "r": right, "b": bottom, "t": top}
    fig.update_layout(
        margin={
            side: int(math.ceil(max(size, getattr(current, side) or 0)))
            for side, size in wanted.items()
            if size is not None
        }
    )
    return fig


def token_axis_px(labels: Sequence[str], angle: float = 0.0) -> float:
    """Room (px) that tick labels (as shown, not escaped) take beside their axis: the longest one's
    width for a vertical axis (``angle`` 0) or, turned by ``angle`` degrees on a horizontal axis,
    its height plus one line of text (at -45 degrees a label's height is 0.71 of its width)."""
    width = label_px(labels, PROJECTOR_TICK_PX)
    if angle:
        return TICK_PAD_PX + abs(math.sin(math.radians(angle))) * width + PROJECTOR_TICK_PX
    return TICK_PAD_PX + width


def legend_below_px(entries: int, offset: float, height: int, top: int, per_row: int = 2) -> float:
    """Bottom margin (px) that holds a horizontal legend of ``entries`` entries (``per_row`` a row) whose
    top sits ``offset`` (a fraction of the plot area's height) below the plot area, in a figure
    ``height`` px tall with a ``top`` px top margin.

    The plot area's height is ``height - top - b``, so the margin ``b`` that holds the legend solves
    b = offset * (height - top - b) + legend, i.e. b = (offset * (height - top) + legend) / (1 + offset).
    """
    legend = LEGEND_PAD_PX + LEGEND_ROW_PX * math.ceil(max(entries, 1) / per_row)
    return (offset * (height - top) + legend) / (1 + offset) + 4
