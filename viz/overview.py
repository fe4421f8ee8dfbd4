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

from .labels import escape
from .style import ATTENTION_SCALE, MASKED_COLOR, base_layout, projector_fonts

CODES = 1000


def quantise(weights: np.ndarray) -> np.ndarray:
    """Weights in [0, 1] -> uint16 codes round(1000 * w); the inverse is codes / 1000 (error <= 0.0005)."""
    clipped = np.clip(np.nan_to_num(np.asarray(weights, dtype=np.float32)), 0.0, 1.0)
    return np.rint(clipped * CODES).astype(np.uint16)


def tile(weights: np.ndarray) -> np.ndarray:
    """``[L, H, T, T]`` -> ``[L*T, H*T]``: layer-major rows of queries, head-major columns of keys."""
    layers, heads, length, _ = weights.shape
    return weights.transpose(0, 2, 1, 3).reshape(layers * length, heads * length)


def overview_figure(weights: np.ndarray, tokens: Sequence[str], title: str,
                    mask: np.ndarray | None = None) -> go.Figure:
    """Every layer (rows of tiles) and head (columns of tiles) of ``weights`` ``[L, H, T, T]``.

    One quantised heatmap trace (plus, with a ``mask`` ``[T, T]``, one grey overlay
    of the masked cells); white lines separate the tiles.
    """
    layers, heads, length, _ = weights.shape
    escaped = [escape(t) for t in tokens]
    rows = [f"layer {l} · query {i}: {t}" for l in range(layers) for i, t in enumerate(escaped)]
    cols = [f"head {h} · key {j}: {t}" for h in range(heads) for j, t in enumerate(escaped)]
    ticks = [0, 250, 500, 750, 1000]
    traces = [go.Heatmap(z=tile(quantise(weights)), x=cols, y=rows, zmin=0, zmax=CODES, colorscale=ATTENTION_SCALE,
                         colorbar=dict(title=dict(text="weight"), tickvals=ticks,
                                       ticktext=[f"{t / CODES:g}" for t in ticks], thickness=14),
                         hovertemplate="%{y}<br>%{x}<br>weight %{z}/1000<extra></extra>", name="weights")]
    if mask is not None:
        masked = np.broadcast_to(~np.asarray(mask, dtype=bool), weights.shape)
        traces.append(go.Heatmap(z=tile(masked.astype(np.uint8)), x=cols, y=rows, zmin=0, zmax=1,
                                 showscale=False, hoverinfo="skip", name="masked",
                                 colorscale=[[0, "rgba(0,0,0,0)"], [1, MASKED_COLOR]]))
    fig = go.Figure(traces)
    separators = [dict(type="line", xref="x", yref="paper", x0=h * length - 0.5, x1=h * length - 0.5, y0=0, y1=1,
                       line=dict(color="white", width=3)) for h in range(1, heads)]
    separators += [dict(type="line", xref="paper", yref="y", x0=0, x1=1, y0=l * length - 0.5, y1=l * length - 0.5,
                        line=dict(color="white", width=3)) for l in range(1, layers)]
    labels = [dict(x=h * length + (length - 1) / 2, y=1.0, xref="x", yref="paper", yanchor="bottom",
                   text=f"head {h}", showarrow=False) for h in range(heads)]
    labels += [dict(x=0.0, y=l * length + (length - 1) / 2, xref="paper", yref="y", xanchor="right",
                    text=f"layer {l} ", showarrow=False) for l in range(layers)]
    fig.update_layout(shapes=separators, annotations=labels)
    tile_px = int(min(160, max(70, 2.5 * length + 40)))
    base_layout(fig, title, 110 + layers * tile_px)
    fig.update_layout(margin=dict(l=70, r=10, t=80, b=10))
    fig.update_xaxes(type="category", showticklabels=False, showgrid=False)
    fig.update_yaxes(type="category", showticklabels=False, showgrid=False, autorange="reversed")
    return projector_fonts(fig)  # 15 px head and layer labels, 14 px colour-bar ticks
