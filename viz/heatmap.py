"""Matrix heatmaps: attention weights (sequential 0..1) and signed matrices (diverging)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from .labels import cell_labels, matrix_axes
from .masking import allowed_cells, hide_masked, masked_hover, masked_overlay
from .style import ATTENTION_SCALE, DIVERGING_SCALE, base_layout


def matrix_heatmap(
    values: np.ndarray,
    row_tokens: Sequence[str],
    col_tokens: Sequence[str],
    title: str,
    signed: bool = False,
    zrange: tuple[float, float] | None = None,
    mask: np.ndarray | None = None,
    row_name: str = "query",
    col_name: str = "key",
    value_name: str = "weight",
    height: int | None = None,
) -> go.Figure:
    """A ``[rows, cols]`` matrix as a heatmap, first row at the top.

    Attention weights use the sequential scale on 0..1 unless ``zrange`` is
    given; ``signed`` values use the diverging scale centred on 0. Cells where
    ``mask`` is False are drawn grey and hover as "masked".
    """
    allowed = allowed_cells(mask, np.shape(values))  # masked cells (e.g. -inf scores): the grey overlay
    values = hide_masked(values, allowed)
    hover = masked_hover(cell_labels(row_tokens, col_tokens, row_name, col_name), allowed)
    colors = dict(colorscale=DIVERGING_SCALE, zmid=0.0) if signed else dict(colorscale=ATTENTION_SCALE)
    if zrange is not None:
        colors.update(zmin=zrange[0], zmax=zrange[1])
        colors.pop("zmid", None)
    elif not signed:
        colors.update(zmin=0.0, zmax=1.0)
    trace = go.Heatmap(
        z=values,
        text=hover,
        hovertemplate=f"%{{text}}<br>{value_name} %{{z:.3f}}<extra></extra>",
        colorbar=dict(title=dict(text=value_name), thickness=14),
        **colors,
    )
    fig = go.Figure([trace] + ([masked_overlay(allowed)] if mask is not None else []))
    side = max(len(row_tokens), len(col_tokens))
    base_layout(fig, title, height or int(min(720, max(360, 140 + 22 * side))))
    matrix_axes(fig, row_tokens, col_tokens)
    fig.update_xaxes(side="bottom")
    return fig
