"""Figures of the encoder-decoder: all heads of one attention as one tiled heatmap; output top-k bars."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from .labels import cell_labels, position_axis, token_labels
from .masking import allowed_cells, hide_masked, masked_hover, masked_overlay
from .style import ATTENTION_SCALE, base_layout
from .tiles import Tiling, gap_shapes, tile_maps, tile_titles, tiled_axis, tiling

MAX_HOVER_CELLS = 20_000
MAX_TICKS = 64


def _tiled_hover(grid: Tiling, allowed: np.ndarray, row_tokens: Sequence[str], col_tokens: Sequence[str],
                 row_name: str, col_name: str) -> np.ndarray:
    """Hover text of the tiled grid ``grid.shape``: "head h" (1-based), the query and key
    labels and, in masked cells (``allowed`` ``[Lq, Lk]`` False), "masked"; gaps "between heads"."""
    cells = masked_hover(cell_labels(row_tokens, col_tokens, row_name, col_name), allowed)
    per_head = np.stack([f"head {h + 1}<br>" + cells for h in range(grid.count)])
    return tile_maps(per_head, grid, fill="between heads")


def heads_grid_heatmap(weights: np.ndarray, row_tokens: Sequence[str], col_tokens: Sequence[str],
                       title: str, mask: np.ndarray | None = None, row_name: str = "query",
                       col_name: str = "key", max_cols: int = 4) -> go.Figure:
    """Every head's ``[Lq, Lk]`` weights as tiles of ONE heatmap trace (0..1, sequential scale).

    ``weights`` ``[H, Lq, Lk]`` go through ``viz.tiles`` (head h at tile row h // C, column
    h % C, one-cell gaps drawn white); masked cells (``mask`` ``[Lq, Lk]`` False) through the
    grey ``viz.masking`` overlay. Each tile is titled "head h" (1-based). Queries run down,
    keys across, as in every matrix here.
    """
    heads, lq, lk = weights.shape
    grid = tiling(heads, (lq, lk), max_cols)
    allowed = allowed_cells(mask, (lq, lk))
    stacked = np.broadcast_to(allowed, weights.shape)
    z = tile_maps(hide_masked(weights, stacked), grid, fill=0.0)
    if z.size <= MAX_HOVER_CELLS:
        hover = dict(text=_tiled_hover(grid, allowed, row_tokens, col_tokens, row_name, col_name),
                     hovertemplate="%{text}<br>weight %{z:.3f}<extra></extra>")
    else:
        hover = dict(hovertemplate="row %{y}, column %{x}<br>weight %{z:.3f}<extra></extra>")
    main = go.Heatmap(z=z, colorscale=ATTENTION_SCALE, zmin=0.0, zmax=1.0,
                      colorbar=dict(title=dict(text="weight"), thickness=14), **hover)
    fig = go.Figure([main, masked_overlay(tile_maps(stacked, grid, fill=True))])
    tile_px = int(min(300, max(180, 16 * max(lq, lk))))
    base_layout(fig, title, 120 + grid.rows * (tile_px * lq // max(lq, lk) + 30))
    fig.update_xaxes(**tiled_axis(col_tokens, grid.col_starts, MAX_TICKS), tickangle=-45, side="bottom")
    fig.update_yaxes(**tiled_axis(row_tokens, grid.row_starts, MAX_TICKS), autorange="reversed")
    fig.update_layout(shapes=gap_shapes(grid), annotations=tile_titles(grid, [f"head {h + 1}" for h in range(heads)]),
                      margin=dict(t=80))
    return fig


def top_k_bars(labels: Sequence[str], probabilities: np.ndarray, title: str,
               highlight: int | None = None) -> go.Figure:
    """Horizontal bars of the ``k`` most probable tokens, most probable at the top.

    Bar ``highlight`` (an index into ``labels``, e.g. the token the target says
    comes next) is drawn in a contrasting colour.
    """
    probabilities = np.nan_to_num(np.asarray(probabilities, np.float32))
    k = len(labels)
    colors = ["#d62728" if i == highlight else "#1f77b4" for i in range(k)]
    text = np.array(token_labels(labels), dtype=object)
    fig = go.Figure(go.Bar(x=probabilities, y=np.arange(k), orientation="h", marker_color=colors,
                           text=text, hovertemplate="%{text}<br>p = %{x:.4f}<extra></extra>",
                           textposition="none"))
    base_layout(fig, title, int(max(260, 90 + 28 * k)))
    fig.update_yaxes(**position_axis(list(labels), autorange="reversed"))
    fig.update_xaxes(title_text="probability", rangemode="tozero", tickformat=".3%")
    return fig
