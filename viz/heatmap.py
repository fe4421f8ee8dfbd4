"""Matrix heatmaps: attention weights (sequential 0..1) and signed matrices (diverging)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from .labels import escape, position_axis
from .style import ATTENTION_SCALE, DIVERGING_SCALE, MASKED_COLOR, base_layout


def _hover_text(row_tokens: Sequence[str], col_tokens: Sequence[str], row_name: str,
                col_name: str) -> np.ndarray:
    rows = [f"{row_name} {i}: {escape(t)}" for i, t in enumerate(row_tokens)]
    cols = [f"{col_name} {j}: {escape(t)}" for j, t in enumerate(col_tokens)]
    return np.array([[f"{r}<br>{c}" for c in cols] for r in rows], dtype=object)


def masked_overlay(mask: np.ndarray) -> go.Heatmap:
    """Grey cells where ``mask`` is False (not allowed); fully transparent elsewhere."""
    z = (~np.asarray(mask, dtype=bool)).astype(np.float32)
    return go.Heatmap(z=z, zmin=0.0, zmax=1.0, colorscale=[[0, "rgba(0,0,0,0)"], [1, MASKED_COLOR]],
                      showscale=False, hoverinfo="skip", name="masked")


def matrix_heatmap(values: np.ndarray, row_tokens: Sequence[str], col_tokens: Sequence[str],
                   title: str, signed: bool = False, zrange: tuple[float, float] | None = None,
                   mask: np.ndarray | None = None, row_name: str = "query", col_name: str = "key",
                   value_name: str = "weight", height: int | None = None) -> go.Figure:
    """A ``[rows, cols]`` matrix as a heatmap, first row at the top.

    Attention weights use the sequential scale on 0..1 unless ``zrange`` is
    given; ``signed`` values use the diverging scale centred on 0. Cells where
    ``mask`` is False are drawn grey and hover as "masked".
    """
    values = np.asarray(values, dtype=np.float32)
    hover = _hover_text(row_tokens, col_tokens, row_name, col_name)
    if mask is not None:  # masked cells (e.g. -inf scores) are covered by the grey overlay
        mask = np.broadcast_to(np.asarray(mask, dtype=bool), values.shape)
        values = np.where(mask, values, 0.0).astype(np.float32)
        hover = np.where(mask, hover, hover + "<br>masked")
    values = np.nan_to_num(values, nan=0.0, posinf=0.0, neginf=0.0)
    colors = dict(colorscale=DIVERGING_SCALE, zmid=0.0) if signed else dict(colorscale=ATTENTION_SCALE)
    if zrange is not None:
        colors.update(zmin=zrange[0], zmax=zrange[1])
        colors.pop("zmid", None)
    elif not signed:
        colors.update(zmin=0.0, zmax=1.0)
    trace = go.Heatmap(z=values, text=hover, hovertemplate=f"%{{text}}<br>{value_name} %{{z:.3f}}<extra></extra>",
                       colorbar=dict(title=dict(text=value_name), thickness=14), **colors)
    fig = go.Figure([trace] + ([masked_overlay(mask)] if mask is not None else []))
    side = max(len(row_tokens), len(col_tokens))
    base_layout(fig, title, height or int(min(720, max(360, 140 + 22 * side))))
    fig.update_xaxes(**position_axis(col_tokens, tickangle=-45, side="bottom"))
    fig.update_yaxes(**position_axis(row_tokens, autorange="reversed"))
    return fig
