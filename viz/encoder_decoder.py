"""Figures of the encoder-decoder: all heads of one attention as one tiled heatmap; output top-k bars."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from .labels import escape, position_axis
from .style import ATTENTION_SCALE, MASKED_COLOR, base_layout

MAX_HOVER_CELLS = 20_000
MAX_TICKS = 64
# overlay codes: 0 = show the weight, 1 = masked (grey), 2 = gap between tiles (white)
_OVERLAY_SCALE = [[0.0, "rgba(0,0,0,0)"], [0.33, "rgba(0,0,0,0)"], [0.34, MASKED_COLOR],
                  [0.66, MASKED_COLOR], [0.67, "white"], [1.0, "white"]]


def tile_layout(num_heads: int, max_cols: int = 4) -> tuple[int, int]:
    """(rows, cols) of the head grid: at most ``max_cols`` tiles per row."""
    cols = min(num_heads, max_cols)
    return -(-num_heads // cols), cols


def tile_heads(weights: np.ndarray, mask: np.ndarray | None = None, max_cols: int = 4):
    """Place ``[H, Lq, Lk]`` maps on one grid with a one-cell gap between tiles.

    Returns ``z [R(Lq+1)-1, C(Lk+1)-1]`` float32 (masked and gap cells 0), the
    overlay codes of the same shape (0 weight, 1 masked, 2 gap) and a head
    index per cell (-1 in gaps). Head h sits at row h // C, column h % C.
    """
    heads, lq, lk = weights.shape
    rows, cols = tile_layout(heads, max_cols)
    shape = (rows * (lq + 1) - 1, cols * (lk + 1) - 1)
    z = np.zeros(shape, np.float32)
    code = np.full(shape, 2, np.int8)
    head_of = np.full(shape, -1, np.int16)
    allowed = np.ones((lq, lk), bool) if mask is None else np.broadcast_to(np.asarray(mask, bool), (lq, lk))
    clean = np.nan_to_num(np.asarray(weights, np.float32), nan=0.0, posinf=0.0, neginf=0.0)
    for h in range(heads):
        r0, c0 = (h // cols) * (lq + 1), (h % cols) * (lk + 1)
        z[r0:r0 + lq, c0:c0 + lk] = np.where(allowed, clean[h], 0.0)
        code[r0:r0 + lq, c0:c0 + lk] = np.where(allowed, 0, 1)
        head_of[r0:r0 + lq, c0:c0 + lk] = h
    return z, code, head_of


def _tile_axis(tokens: Sequence[str], tiles: int) -> dict:
    """Token tick labels repeated per tile, or none when there would be too many to read."""
    n = len(tokens)
    if n * tiles > MAX_TICKS:
        return dict(showticklabels=False, showgrid=False, zeroline=False)
    labels = [escape(t) for t in tokens]
    vals = [t * (n + 1) + i for t in range(tiles) for i in range(n)]
    return dict(tickmode="array", tickvals=vals, ticktext=labels * tiles, showgrid=False, zeroline=False)


def _tile_hover(code, head_of, row_tokens, col_tokens, row_name, col_name):
    lq, lk = len(row_tokens), len(col_tokens)
    rows = np.arange(code.shape[0]) % (lq + 1)
    cols = np.arange(code.shape[1]) % (lk + 1)
    rtext = [f"{row_name} {i}: {escape(t)}" for i, t in enumerate(row_tokens)] + [""]
    ctext = [f"{col_name} {j}: {escape(t)}" for j, t in enumerate(col_tokens)] + [""]
    text = np.empty(code.shape, dtype=object)
    for r in range(code.shape[0]):
        for c in range(code.shape[1]):
            h = head_of[r, c]
            text[r, c] = ("between heads" if h < 0 else
                          f"head {h + 1}<br>{rtext[rows[r]]}<br>{ctext[cols[c]]}"
                          + ("<br>masked" if code[r, c] == 1 else ""))
    return text


def heads_grid_heatmap(weights: np.ndarray, row_tokens: Sequence[str], col_tokens: Sequence[str],
                       title: str, mask: np.ndarray | None = None, row_name: str = "query",
                       col_name: str = "key", max_cols: int = 4) -> go.Figure:
    """Every head's ``[Lq, Lk]`` weights as tiles of ONE heatmap trace (0..1, sequential scale).

    Masked cells (``mask`` False) are grey, the gaps between tiles white; each
    tile is titled "head h". Queries run down, keys across, as in every matrix here.
    """
    heads, lq, lk = weights.shape
    rows, cols = tile_layout(heads, max_cols)
    z, code, head_of = tile_heads(weights, mask, max_cols)
    if z.size <= MAX_HOVER_CELLS:
        hover = dict(text=_tile_hover(code, head_of, row_tokens, col_tokens, row_name, col_name),
                     hovertemplate="%{text}<br>weight %{z:.3f}<extra></extra>")
    else:
        hover = dict(hovertemplate="row %{y}, column %{x}<br>weight %{z:.3f}<extra></extra>")
    main = go.Heatmap(z=z, colorscale=ATTENTION_SCALE, zmin=0.0, zmax=1.0,
                      colorbar=dict(title=dict(text="weight"), thickness=14), **hover)
    overlay = go.Heatmap(z=code, zmin=0.0, zmax=2.0, colorscale=_OVERLAY_SCALE,
                         showscale=False, hoverinfo="skip", name="masked / gap")
    fig = go.Figure([main, overlay])
    tile_px = int(min(300, max(180, 16 * max(lq, lk))))
    base_layout(fig, title, 120 + rows * (tile_px * lq // max(lq, lk) + 30))
    fig.update_xaxes(**_tile_axis(col_tokens, cols), tickangle=-45, side="bottom")
    fig.update_yaxes(**_tile_axis(row_tokens, rows), autorange="reversed")
    for h in range(heads):
        x = (h % cols) * (lk + 1) + (lk - 1) / 2
        y = (h // cols) * (lq + 1) - 0.5
        fig.add_annotation(x=x, y=y, text=f"head {h + 1}", showarrow=False, yanchor="bottom",
                           font=dict(size=13))
    fig.update_layout(margin=dict(t=80))
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
    text = np.array([escape(t) for t in labels], dtype=object)
    fig = go.Figure(go.Bar(x=probabilities, y=np.arange(k), orientation="h", marker_color=colors,
                           text=text, hovertemplate="%{text}<br>p = %{x:.4f}<extra></extra>",
                           textposition="none"))
    base_layout(fig, title, int(max(260, 90 + 28 * k)))
    fig.update_yaxes(**position_axis(list(labels), autorange="reversed"))
    fig.update_xaxes(title_text="probability", rangemode="tozero", tickformat=".3%")
    return fig
