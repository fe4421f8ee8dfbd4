"""All layers x all heads in ONE heatmap trace, small enough for 6 layers x 8 heads x 64 tokens.

The tiles are laid out as one ``[L*T, H*T]`` matrix: row ``l*T + i`` is query i of
layer l, column ``h*T + j`` is key j of head h. The weights travel as uint16
codes ``round(1000 * weight)`` (exact to the 3 decimals the hover shows), half the
bytes of float32: at 6 x 8 x 64 = 196,608 cells that is 393 KB raw, 524 KB in
base64, where float32 would need 1.05 MB. The colour bar's ticks map the codes
back to 0..1 and the hover reports the weight in thousandths.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from .labels import position_label
from .masking import allowed_cells, masked_overlay
from .style import ATTENTION_SCALE, base_layout, projector_fonts
from .tiles import Tiling, gap_shapes, tile_maps, tiling

CODES = 1000


def quantise(weights: np.ndarray) -> np.ndarray:
    """Weights in [0, 1] -> uint16 codes round(1000 * w); the inverse is codes / 1000 (error <= 0.0005)."""
    clipped = np.clip(np.nan_to_num(np.asarray(weights, dtype=np.float32)), 0.0, 1.0)
    return np.rint(clipped * CODES).astype(np.uint16)


def _grid(weights: np.ndarray) -> Tiling:
    """The overview's tiling of ``[L, H, T, T]``: layer l is tile row l, head h tile column h, no gaps."""
    layers, heads, length, _ = weights.shape
    return tiling(layers * heads, (length, length), max_cols=heads, gap=0)


def tile(weights: np.ndarray) -> np.ndarray:
    """``[L, H, T, T]`` -> ``[L*T, H*T]``: layer-major rows of queries, head-major columns of keys."""
    layers, heads, length, _ = weights.shape
    return tile_maps(np.reshape(weights, (layers * heads, length, length)), _grid(weights))


def overview_figure(
    weights: np.ndarray, tokens: Sequence[str], title: str, mask: np.ndarray | None = None
) -> go.Figure:
    """Every layer (rows of tiles) and head (columns of tiles) of ``weights`` ``[L, H, T, T]``.

    One quantised heatmap trace tiled by ``viz.tiles`` without gaps (white lines separate
    the tiles) plus, with a ``mask`` ``[T, T]``, the grey ``viz.masking`` overlay.
    """
    layers, heads, length, _ = weights.shape
    grid = _grid(weights)
    rows = [f"layer {l + 1} · {position_label('query', i, t)}" for l in range(layers) for i, t in enumerate(tokens)]
    cols = [f"head {h + 1} · {position_label('key', j, t)}" for h in range(heads) for j, t in enumerate(tokens)]
    ticks = [0, 250, 500, 750, 1000]
    traces = [
        go.Heatmap(
            z=tile(quantise(weights)),
            x=cols,
            y=rows,
            zmin=0,
            zmax=CODES,
            colorscale=ATTENTION_SCALE,
            colorbar=dict(
                title=dict(text="weight"), tickvals=ticks, ticktext=[f"{t / CODES:g}" for t in ticks], thickness=14
            ),
            hovertemplate="%{y}<br>%{x}<br>weight %{z}/1000<extra></extra>",
            name="weights",
        )
    ]
    if mask is not None:
        traces.append(masked_overlay(tile(allowed_cells(mask, weights.shape)), x=cols, y=rows))
    fig = go.Figure(traces)
    labels = [
        dict(
            x=c + (length - 1) / 2,
            y=1.0,
            xref="x",
            yref="paper",
            yanchor="bottom",
            text=f"head {h + 1}",
            showarrow=False,
        )
        for h, c in enumerate(grid.col_starts)
    ]
    labels += [
        dict(
            x=0.0,
            y=r + (length - 1) / 2,
            xref="paper",
            yref="y",
            xanchor="right",
            text=f"layer {l + 1} ",
            showarrow=False,
        )
        for l, r in enumerate(grid.row_starts)
    ]
    fig.update_layout(shapes=gap_shapes(grid), annotations=labels)
    tile_px = int(min(160, max(70, 2.5 * length + 40)))
    base_layout(fig, title, 110 + layers * tile_px)
    fig.update_layout(margin=dict(l=70, r=10, t=80, b=10))
    fig.update_xaxes(type="category", showticklabels=False, showgrid=False)
    fig.update_yaxes(type="category", showticklabels=False, showgrid=False, autorange="reversed")
    return projector_fonts(fig)  # 15 px head and layer labels, 14 px colour-bar ticks
