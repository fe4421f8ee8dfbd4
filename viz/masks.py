"""Boolean attention masks as figures: allowed cells coloured, masked cells grey."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .heatmap import matrix_heatmap
from .labels import cell_labels, escape, matrix_axes
from .margins import COLORBAR_PX, reserve_margins, token_axis_px
from .masking import masked_hover
from .style import MASKED_COLOR, base_layout, projector_fonts

ALLOWED_COLOR = "#2a788e"
# 0 = masked (grey), 1 = may attend (colour): two flat bands, never a gradient.
MASK_SCALE = [[0.0, MASKED_COLOR], [0.5, MASKED_COLOR], [0.5, ALLOWED_COLOR], [1.0, ALLOWED_COLOR]]


def _hover(
    rows: Sequence[str],
    cols: Sequence[str],
    row_name: str,
    col_name: str,
    allowed: np.ndarray,
    cells: np.ndarray | None,
) -> np.ndarray:
    """Hover text ``[R, C]``: query and key labels, the optional cell token, "may attend" or "masked"."""
    text = cell_labels(rows, cols, row_name, col_name)
    if cells is not None:
        text = text + np.vectorize(lambda t: f"<br>token: {escape(t)}", otypes=[object])(cells)
    return masked_hover(text, allowed, allowed_note="<br>may attend")


def mask_panels_figure(
    masks: Sequence[np.ndarray],
    titles: Sequence[str],
    row_tokens: Sequence[str],
    col_tokens: Sequence[str],
    title: str,
    row_name: str = "query",
    col_name: str = "key",
    cells: np.ndarray | None = None,
) -> go.Figure:
    """Masks ``[rows, cols]`` (bool, True = may attend) side by side in ONE figure.

    Each panel's z is 1 where attending is allowed and 0 where it is masked;
    ``cells`` (optional ``[rows, cols]`` strings) adds a token to each hover. Where a panel masks a cell, the
    title ends with the colours' key, "(grey = masked)".
    """
    fig = make_subplots(rows=1, cols=len(masks), subplot_titles=[escape(t) for t in titles], horizontal_spacing=0.08)
    for i, mask in enumerate(masks, start=1):
        allowed = np.asarray(mask, dtype=bool)
        fig.add_trace(
            go.Heatmap(
                z=allowed.astype(np.float32),
                zmin=0.0,
                zmax=1.0,
                colorscale=MASK_SCALE,
                showscale=False,
                xgap=1,
                ygap=1,
                name=titles[i - 1],
                text=_hover(row_tokens, col_tokens, row_name, col_name, allowed, cells),
                hovertemplate="%{text}<extra></extra>",
            ),
            row=1,
            col=i,
        )
        matrix_axes(fig, row_tokens, col_tokens, row=1, col=i)
    side = max(len(row_tokens), len(col_tokens))
    if not all(np.asarray(mask, dtype=bool).all() for mask in masks):
        title = f"{title} (grey = masked)"
    base_layout(fig, title, int(min(560, max(300, 150 + 20 * side))))
    reserve_token_margins(fig, row_tokens, col_tokens)
    return projector_fonts(fig)


def reserve_token_margins(
    fig: go.Figure, row_tokens: Sequence[str], col_tokens: Sequence[str], colorbar: bool = False
) -> go.Figure:
    """Margins that hold the token labels of a matrix (rows upright on the left, columns at -45 degrees
    below) and its colour bar, so the figure is laid out once (``viz.margins``)."""
    return reserve_margins(
        fig,
        left=token_axis_px(row_tokens),
        bottom=token_axis_px(col_tokens, -45),
        right=COLORBAR_PX if colorbar else None,
    )


def readable_heatmap(
    values: np.ndarray, row_tokens: Sequence[str], col_tokens: Sequence[str], title: str, **kwargs
) -> go.Figure:
    """``viz.heatmap.matrix_heatmap(values, row_tokens, col_tokens, title, **kwargs)`` (a ``[Lq, Lk]`` matrix,
    queries down, keys across, masked cells grey) with projector-sized tick labels, colour bar and legend."""
    fig = matrix_heatmap(values, row_tokens, col_tokens, title, **kwargs)
    return projector_fonts(reserve_token_margins(fig, row_tokens, col_tokens, colorbar=True))
