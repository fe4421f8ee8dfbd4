"""Several heads in one figure: a layer's heads as a grid, and two maps compared with their difference.

The grid tiles every head into one heatmap trace (``viz.tiles``). In the comparison, axes are
categorical over unique token labels (a repeated word gets an invisible zero-width suffix), so
the hover names the query and key tokens without a text array per cell, a repeated word stays its
own row, and "2019" stays a label.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .labels import NAMED_CELL_PX, NAMED_UP_TO, SHORT_LABEL, ZERO_WIDTH, cell_labels, label_px, unique_labels
from .margins import COLORBAR_PX, TITLED_X_AXIS_PX, UNTITLED_X_AXIS_PX, token_axis_px
from .masking import allowed_cells, hide_masked, masked_hover, masked_overlay
from .style import ATTENTION_SCALE, DIVERGING_SCALE, PROJECTOR_LABEL_PX, base_layout, projector_fonts, styled_figure
from .tiles import Tiling, gap_shapes, narrowest_tile_px, tile_maps, tile_titles, tiled_axis, tiling, wrap_meta

MAX_HOVER_CELLS = 20_000  # above this many cells of a tiled grid, the hover names rows and columns only
MAX_TICKS = 64  # more labels than this on one axis are not readable: the axis goes unlabelled
HOVER = "query %{y}<br>key %{x}<br>weight %{z:.3f}<extra></extra>"


def _category_axes(fig: go.Figure, length: int) -> None:
    """Token axes sized for a projector: dark 14 px labels, every token labelled, up to 24 tokens;
    smaller labels, thinned by Plotly where they would collide, for longer sentences. Colour bar,
    legend and panel titles get the projector fonts of ``viz.style.projector_fonts``."""
    projector_fonts(fig)
    tick_size = 14 if length <= 24 else 11 if length <= 40 else 9
    every = dict(dtick=1) if length <= 24 else {}
    keys = [str(t).rstrip(ZERO_WIDTH) for trace in fig.data for t in (trace.x if trace.x is not None else ())]
    angle = 0 if keys and max(map(len, keys)) <= SHORT_LABEL else -60  # single letters read level
    fig.update_xaxes(type="category", tickangle=angle, tickfont=dict(size=tick_size), showgrid=False, **every)
    fig.update_yaxes(type="category", autorange="reversed", tickfont=dict(size=tick_size), showgrid=False, **every)
    # Fixed margins sized to the longest label instead of automargin: the browser lays the figure out once.
    labels = [str(t).rstrip(ZERO_WIDTH) for trace in fig.data for t in (trace.y if trace.y is not None else ())]
    longest = label_px(labels, tick_size)
    fig.update_xaxes(automargin=False)
    fig.update_yaxes(automargin=False)
    fig.update_layout(margin=dict(l=int(16 + longest), b=int(16 + 0.87 * longest + 0.5 * tick_size)))


def _tiled_hover(
    grid: Tiling,
    allowed: np.ndarray,
    row_tokens: Sequence[str],
    col_tokens: Sequence[str],
    row_name: str,
    col_name: str,
) -> np.ndarray:
    """Hover text of the tiled grid ``grid.shape``: "head h" (1-based), the query and key
    labels and, in masked cells (``allowed`` ``[Lq, Lk]`` False), "masked"; gaps "between heads"."""
    cells = masked_hover(cell_labels(row_tokens, col_tokens, row_name, col_name), allowed)
    per_head = np.stack([f"head {h + 1}<br>" + cells for h in range(grid.count)])
    return tile_maps(per_head, grid, fill="between heads")


def head_grid_figure(
    weights: np.ndarray,
    row_tokens: Sequence[str],
    col_tokens: Sequence[str],
    title: str,
    mask: np.ndarray | None = None,
    row_name: str = "query",
    col_name: str = "key",
    max_cols: int = 4,
) -> go.Figure:
    """Every head's ``[Lq, Lk]`` weights as tiles of ONE heatmap trace (0..1, sequential scale).

    ``weights`` ``[H, Lq, Lk]`` go through ``viz.tiles`` (head h at tile row h // C, column
    h % C, one-cell gaps drawn white); masked cells (``mask`` ``[Lq, Lk]`` False) through the
    grey ``viz.masking`` overlay. Each tile is titled "head h" (1-based). Queries run down,
    keys across, as in every matrix here.

    Drawn to redraw fast: one trace, fixed margins (no automargin pass), and the keys labelled
    under the first column of tiles only (every tile has the same keys in the same order; the
    hover names a cell's query and key in every tile). The queries are labelled beside every
    row of tiles.
    """
    heads, lq, lk = weights.shape
    grid = tiling(heads, (lq, lk), max_cols)
    allowed = allowed_cells(mask, (lq, lk))
    stacked = np.broadcast_to(allowed, weights.shape)
    z = tile_maps(hide_masked(weights, stacked), grid, fill=0.0)
    if z.size <= MAX_HOVER_CELLS:
        hover = dict(
            text=_tiled_hover(grid, allowed, row_tokens, col_tokens, row_name, col_name),
            hovertemplate="%{text}<br>weight %{z:.3f}<extra></extra>",
        )
    else:
        hover = dict(hovertemplate="row %{y}, column %{x}<br>weight %{z:.3f}<extra></extra>")
    main = go.Heatmap(
        z=z,
        colorscale=ATTENTION_SCALE,
        zmin=0.0,
        zmax=1.0,
        colorbar=dict(title=dict(text="weight"), thickness=14),
        **hover,
    )
    tile_px = int(min(420, max(200, 22 * lq)))  # 22 px a query row: room for its 14 px label
    x_axis = tiled_axis(
        col_tokens,
        grid.col_starts[:1],
        MAX_TICKS,
        tickangle=-60,
        side="bottom",
        automargin=False,
        title_text=f"{col_name}s (the same in every head)" if grid.cols > 1 else None,
    )
    y_axis = tiled_axis(row_tokens, grid.row_starts, MAX_TICKS, autorange="reversed", automargin=False)
    bottom = token_axis_px(x_axis.get("ticktext", []), angle=-60) + (TITLED_X_AXIS_PX - UNTITLED_X_AXIS_PX)
    names = [f"head {h + 1}" for h in range(heads)]
    fig = styled_figure(
        [main, masked_overlay(tile_maps(stacked, grid, fill=True))],
        title,
        int(80 + bottom + grid.rows * (tile_px + 30)),
        xaxis=x_axis,
        yaxis=y_axis,
        shapes=gap_shapes(grid),
        annotations=tile_titles(grid, names, size=PROJECTOR_LABEL_PX),
        meta=wrap_meta(grid, narrowest_tile_px(names, lk, cell_px=NAMED_CELL_PX, most=NAMED_CELL_PX * NAMED_UP_TO)),
        margin=dict(t=80, r=COLORBAR_PX, l=int(token_axis_px(y_axis.get("ticktext", []))), b=int(bottom)),
    )
    return fig


def compare_figure(
    first: np.ndarray,
    second: np.ndarray,
    tokens_first: Sequence[str],
    tokens_second: Sequence[str],
    name_first: str,
    name_second: str,
    title: str,
    causal: bool = False,
    difference: bool = True,
) -> go.Figure:
    """Two attention maps ``[T, T]`` side by side and, when their shapes match and ``difference``, ``first - second``.

    The maps use the 0..1 attention scale; the difference a diverging scale
    symmetric around 0 (red: more weight in the first, blue: in the second). ``causal``: the
    cells above the diagonal are masked in every panel (the grey overlay, not a 0).
    """
    same = first.shape == second.shape and difference
    names = [name_first, name_second] + (["difference: first − second"] if same else [])
    shared = list(tokens_first) == list(tokens_second)  # same queries: label the rows once, at the left
    fig = make_subplots(rows=1, cols=len(names), subplot_titles=names, horizontal_spacing=0.04 if shared else 0.12)
    panels = [(first, tokens_first), (second, tokens_second)]
    allowed = [
        allowed_cells(np.tril(np.ones(m.shape, dtype=bool)) if causal else None, m.shape) for m in (first, second)
    ]
    for col, (matrix, tokens) in enumerate(panels, start=1):
        labels = unique_labels(tokens)
        fig.add_trace(
            go.Heatmap(
                z=hide_masked(matrix, allowed[col - 1]),
                x=labels,
                y=labels,
                coloraxis="coloraxis",
                hovertemplate=HOVER,
                name=names[col - 1],
            ),
            row=1,
            col=col,
        )
        if causal:
            fig.add_trace(masked_overlay(allowed[col - 1], x=labels, y=labels), row=1, col=col)
    if same:
        diff = hide_masked(np.asarray(first, dtype=np.float32) - np.asarray(second, dtype=np.float32), allowed[0])
        limit = float(np.abs(diff).max()) or 1.0
        labels = (
            unique_labels(tokens_first) if shared else [f"{i + 1}" for i in range(first.shape[0])]
        )  # positions, counted from 1
        fig.add_trace(
            go.Heatmap(
                z=diff,
                x=labels,
                y=labels,
                coloraxis="coloraxis2",
                name="difference",
                hovertemplate="query %{y}<br>key %{x}<br>difference %{z:.3f}<extra></extra>",
            ),
            row=1,
            col=3,
        )
        if causal:
            fig.add_trace(masked_overlay(allowed[0], x=labels, y=labels), row=1, col=3)
        fig.update_layout(
            coloraxis2=dict(
                colorscale=DIVERGING_SCALE,
                cmin=-limit,
                cmax=limit,
                cmid=None,
                colorbar=dict(title=dict(text="difference"), x=1.01, y=0.0, yanchor="bottom", len=0.48, thickness=14),
            )
        )
    length = max(first.shape[0], second.shape[0])
    # two colour bars one above the other: tall enough for each title to read up the side of its own bar
    base_layout(fig, title, int(min(560, max(440 if same else 330, 130 + 14 * length))))
    fig.update_layout(
        coloraxis=dict(
            colorscale=ATTENTION_SCALE,
            cmin=0.0,
            cmax=1.0,
            colorbar=dict(
                title=dict(text="weight"), x=1.01, y=1.0, yanchor="top", len=0.48 if same else 1.0, thickness=14
            ),
        )
    )
    _category_axes(fig, length)
    if shared:
        for col in range(2, len(names) + 1):
            fig.update_yaxes(showticklabels=False, col=col)
    return fig
