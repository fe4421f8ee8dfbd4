"""Figures of the relative-position schemes: per-head position terms tiled, ALiBi's slopes, and the schemes'
position terms side by side."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .labels import label_px, position_ticks
from .margins import (
    COLORAXIS_BAR_PX,
    COLORBAR_PX,
    NUMERIC_Y_AXIS_PX,
    TITLED_X_AXIS_PX,
    UNTITLED_X_AXIS_PX,
    UNTITLED_Y_AXIS_PX,
    reserve_margins,
)
from .positional import finite
from .style import (
    DIVERGING_SCALE,
    PANEL_NAMES_PX,
    PROJECTOR_LABEL_PX,
    TITLE_TOP_PX,
    base_layout,
    head_color,
    projector_fonts,
)
from .tiles import gap_shapes, narrowest_tile_px, tile_maps, tile_titles, tiling, wrap_meta


def _head_cell_text(heads: int, rows: int, cols: int) -> np.ndarray:
    """Hover labels ``[H, rows, cols]``: "head h<br>query i · key j" (heads and positions counted from 1)."""
    return np.array(
        [
            [[f"head {h + 1}<br>query {i + 1} · key {j + 1}" for j in range(cols)] for i in range(rows)]
            for h in range(heads)
        ],
        dtype=object,
    ).reshape(heads, rows, cols)


TILE_CELL_PX = 8.5  # a tiled map's cell as built: a 12-position map about 100 px square, square cells
TILE_MIN_PX = 90  # the narrowest a tiled map is drawn: the browser wraps the grid to fewer maps a row below it
TILE_GAP = 4  # cells between maps: a map's name (15 px; 22 px on a projector) fits in the gap above it


def tiled_heads_figure(per_head: np.ndarray, title: str, value_name: str = "bias", per_row: int = 4) -> go.Figure:
    """Heads ``[H, T, T]`` tiled into ONE heatmap by ``viz.tiles`` (head h at tile row
    h // per_row, column h % per_row; ``TILE_GAP`` cells drawn white between them), head labels on top.

    Each map is square (the cells are, ``scaleanchor``), at least ``TILE_MIN_PX`` wide (fewer maps a row where
    the plot is narrower: ``wrap_meta``), and the figure is as tall as its rows of maps (``TILE_CELL_PX`` a cell);
    the head names have their own strip under the title."""
    heads, rows, cols = per_head.shape
    grid = tiling(heads, (rows, cols), per_row, gap=TILE_GAP)
    z = tile_maps(finite(per_head), grid, fill=0.0)
    text = tile_maps(_head_cell_text(heads, rows, cols), grid, fill="between heads")
    low = float(min(z.min(), 0.0))
    fig = go.Figure(
        go.Heatmap(
            z=z,
            text=text,
            colorscale=DIVERGING_SCALE,
            zmid=0.0,
            zmin=low,
            zmax=-low or 1.0,
            colorbar=dict(title=dict(text=value_name), thickness=14),
            hovertemplate=f"%{{text}}<br>{value_name} %{{z:.3f}}<extra></extra>",
        )
    )
    top, bottom = TITLE_TOP_PX + PANEL_NAMES_PX, 10
    base_layout(fig, title, int(top + bottom + grid.shape[0] * TILE_CELL_PX))
    names = [f"head {h + 1}" for h in range(heads)]
    fig.update_layout(
        shapes=gap_shapes(grid),
        annotations=tile_titles(grid, names),
        meta=wrap_meta(grid, narrowest_tile_px(names, cols, cell_px=TILE_MIN_PX / max(cols, 1))),
    )
    fig.update_xaxes(visible=False, constrain="domain", constraintoward="left")
    # square cells: the maps keep their shape at any width, the names their place over the top row
    fig.update_yaxes(
        visible=False, autorange="reversed", scaleanchor="x", scaleratio=1, constrain="domain", constraintoward="top"
    )
    reserve_margins(fig, right=COLORBAR_PX, top=top, bottom=bottom)
    return projector_fonts(fig)


def slopes_figure(slopes: np.ndarray) -> go.Figure:
    """ALiBi bias -m_h * |i - j| against the distance |i - j|, one line per head."""
    distance = np.arange(0, 17, dtype=np.float32)
    fig = go.Figure(
        [
            go.Scatter(
                x=distance,
                y=(-float(m) * distance).astype(np.float32),
                mode="lines",
                name=f"head {h + 1}: m = {float(m):.4g}",
                line=dict(color=head_color(h)),
                hovertemplate=f"head {h + 1}<br>|i - j| %{{x}}<br>bias %{{y:.3f}}<extra></extra>",
            )
            for h, m in enumerate(slopes)
        ]
    )
    base_layout(fig, "ALiBi bias against distance", 380)
    fig.update_xaxes(title="distance |i - j|", showgrid=True, gridcolor="#eeeeee")
    fig.update_yaxes(title="bias added to the score", showgrid=True, gridcolor="#eeeeee")
    legend = 60 + label_px([trace.name for trace in fig.data], PROJECTOR_LABEL_PX)  # line sample, then the name
    reserve_margins(fig, left=NUMERIC_Y_AXIS_PX, right=legend, bottom=TITLED_X_AXIS_PX)
    return projector_fonts(fig)


SCHEME_PANEL_PX = 130  # a scheme's panel: as tall as five panels side by side are wide in a laptop's column
PROJECTED_PANEL_PX = 180  # ... in the page's width on a projector (1280 x 720, presentation mode)


def schemes_figure(
    panels: Sequence[np.ndarray], names: Sequence[str], panel_px: int = SCHEME_PANEL_PX, finding: str = ""
) -> go.Figure:
    """What each scheme adds between query position m and key position n, side by side.

    Each panel ``[T, T]`` is divided by its largest absolute value so one
    diverging colour axis fits all; an all-zero panel (no encoding) stays zero. Each panel is square (its cells
    are, ``scaleanchor``) and about ``panel_px`` tall (``PROJECTED_PANEL_PX`` on a projector), side by side or,
    where they do not fit, stacked (``ui/plotly_fit``); ``names`` may take three lines; ``finding`` ends the title.
    """
    fig = make_subplots(rows=1, cols=len(panels), subplot_titles=list(names), horizontal_spacing=0.03)
    for i, panel in enumerate(panels):
        z = finite(panel)
        peak = float(np.abs(z).max())
        z = (z / peak).astype(np.float32) if peak > 0 else z
        rows, cols = z.shape
        # positions m and n counted from 1, as every position on screen (each scheme's term depends on n - m
        # only, or is noise: the numbering's start changes no value)
        fig.add_trace(
            go.Heatmap(
                z=z,
                x=np.arange(1, cols + 1),
                y=np.arange(1, rows + 1),
                coloraxis="coloraxis",
                name=names[i],
                hovertemplate=f"{names[i]}<br>m %{{y}} · n %{{x}}<br>relative %{{z:.3f}}<extra></extra>",
            ),
            row=1,
            col=i + 1,
        )
        fig.update_xaxes(tickangle=0, **position_ticks(cols, 1, max_ticks=4, at=1), row=1, col=i + 1)
        fig.update_yaxes(autorange="reversed", showticklabels=i == 0, **position_ticks(rows, 1, at=1), row=1, col=i + 1)
    top = 130  # room for the title above the panel names, up to three lines
    base_layout(
        fig,
        "Position term between query m and key n, per scheme (each scaled to ±1)" + finding,
        top + UNTITLED_X_AXIS_PX + panel_px,
    )
    fig.update_layout(margin=dict(t=top))
    for i in range(len(panels)):  # square panels, hanging from their names
        fig.update_xaxes(constrain="domain", row=1, col=i + 1)
        fig.update_yaxes(
            scaleanchor="x" if i == 0 else f"x{i + 1}",
            scaleratio=1,
            constrain="domain",
            constraintoward="top",
            row=1,
            col=i + 1,
        )
    fig.update_layout(
        coloraxis=dict(
            colorscale=DIVERGING_SCALE,
            cmin=-1.0,
            cmax=1.0,
            cmid=0.0,
            colorbar=dict(title=dict(text="relative"), thickness=14),
        )
    )
    reserve_margins(fig, left=UNTITLED_Y_AXIS_PX, right=COLORAXIS_BAR_PX, bottom=UNTITLED_X_AXIS_PX)
    return projector_fonts(fig)
