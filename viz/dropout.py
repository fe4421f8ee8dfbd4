"""Dropout drawn: an array before (evaluation) and after (training) dropout, dropped entries marked.

Each figure puts "before" and "after" side by side on ONE colour axis, so a survivor's colour
shows its 1/(1-p) growth. A dropped attention weight (0 after dropout) carries a white "×" with
a dark outline (hovering it says "dropped"); a dropped activation, in a matrix of cells a few
pixels wide, is painted black, a colour the diverging scale never reaches. Attention weights use the sequential scale (0 .. 1/(1-p), the largest a weight can
become), signed activations the diverging scale centred on 0. Token rows are categories named by
the escaped tokens (a repeated word keeps its own row), first token at the top.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .labels import unique_labels
from .style import ATTENTION_SCALE, DIVERGING_SCALE, NEUTRAL, base_layout, projector_fonts

MAX_COLUMNS = 64  # activations wider than this are drawn for their first 64 dimensions
DROPPED_COLOR = "#111111"  # dropped activations: black, a colour the diverging scale never reaches
DROPPED_SCALE = [[0.0, "rgba(0,0,0,0)"], [0.5, "rgba(0,0,0,0)"], [0.5, DROPPED_COLOR], [1.0, DROPPED_COLOR]]


def _dropped_marks(keep: np.ndarray, x: Sequence, y: Sequence, size: float) -> go.Scatter:
    """One "×" per False cell of ``keep`` ``[R, C]`` at (``x[c]``, ``y[r]``)."""
    rows, cols = np.nonzero(~np.asarray(keep, dtype=bool))
    x, y = np.asarray(x, dtype=object), np.asarray(y, dtype=object)
    return go.Scatter(
        x=x[cols].tolist(),
        y=y[rows].tolist(),
        mode="markers",
        name="dropped",
        marker=dict(symbol="x", size=size, color="white", line=dict(color="#222222", width=1)),
        hovertemplate="%{y}<br>%{x}<br>dropped: set to 0<extra></extra>",
        showlegend=False,
    )


def _dropped_overlay(keep: np.ndarray, x: Sequence, y: Sequence) -> go.Heatmap:
    """Cells where ``keep`` ``[R, C]`` is False painted flat ``DROPPED_COLOR``, the rest transparent
    (no hover of its own: the value underneath, 0, answers)."""
    z = (~np.asarray(keep, dtype=bool)).astype(np.uint8)
    return go.Heatmap(
        z=z,
        x=list(x),
        y=list(y),
        zmin=0,
        zmax=1,
        colorscale=DROPPED_SCALE,
        showscale=False,
        hoverinfo="skip",
        name="dropped",
    )


def _mark_size(rows: int, cols: int) -> float:
    """A "×" a bit smaller than a cell of a ~420 px panel, 5 to 14 px."""
    return float(min(14, max(5, 0.55 * 420 / max(rows, cols, 1))))


def dropout_weights_figure(
    before: np.ndarray,
    after: np.ndarray,
    keep: np.ndarray,
    rows: Sequence[str],
    cols: Sequence[str],
    p: float,
    title: str,
) -> go.Figure:
    """One head's weights ``[Lq, Lk]`` before and after dropout, and each row's sum after it.

    Before: A (rows sum to 1). After: ``m ⊙ A / (1 - p)``, dropped cells marked "×". Third panel:
    the row sums of the "after" matrix as bars, with the line at 1 every row had before.
    """
    y, x = unique_labels(rows), unique_labels(cols)
    sums = np.asarray(after, dtype=np.float64).sum(-1).astype(np.float32)
    fig = make_subplots(
        rows=1,
        cols=3,
        column_widths=[0.4, 0.4, 0.2],
        shared_yaxes=True,
        horizontal_spacing=0.03,
        subplot_titles=("before: A (evaluation)", f"after: dropout(A), p = {p:g} (training)", "row sums after"),
    )
    hover = "query %{y}<br>key %{x}<br>weight %{z:.3f}<extra></extra>"
    for col, (name, matrix) in enumerate((("before", before), ("after", after)), start=1):
        fig.add_trace(
            go.Heatmap(
                z=np.nan_to_num(np.asarray(matrix, dtype=np.float32)),
                x=x,
                y=y,
                name=name,
                coloraxis="coloraxis",
                hovertemplate=hover,
            ),
            row=1,
            col=col,
        )
    fig.add_trace(_dropped_marks(keep, x, y, _mark_size(len(y), len(x))), row=1, col=2)
    fig.add_trace(
        go.Bar(
            x=sums,
            y=y,
            orientation="h",
            name="row sums",
            marker_color=NEUTRAL,
            text=[f"{s:.2f}" for s in sums],
            textposition="auto",
            textangle=0,
            insidetextanchor="start",
            insidetextfont=dict(size=14, color="white"),
            outsidetextfont=dict(size=14, color="#222222"),
            hovertemplate="query %{y}<br>row sum %{x:.3f}<extra></extra>",
        ),
        row=1,
        col=3,
    )
    # the line at 1 runs behind the bars and their sums (a sum is written from the bar's start, away from it)
    fig.add_vline(x=1.0, line=dict(color="#222222", dash="dash", width=2), layer="below", row=1, col=3)
    base_layout(fig, title, int(min(720, max(380, 150 + 26 * len(y)))))
    fig.update_layout(
        coloraxis=dict(
            colorscale=ATTENTION_SCALE,
            cmin=0.0,
            cmax=1.0 / (1.0 - p),
            colorbar=dict(title=dict(text="weight"), thickness=14),
        ),
        showlegend=False,
    )
    # the keys level where they fit, turned by the browser where they do not (ui/plotly_fit/ticks.js)
    fig.update_xaxes(type="category", showgrid=False, col=1)
    fig.update_xaxes(type="category", showgrid=False, col=2)
    fig.update_xaxes(
        range=[0, max(1.0 / (1.0 - p), float(sums.max(initial=0.0))) * 1.3],
        title_text="Σ<sub>j</sub> weight (before: 1)",
        col=3,
    )
    fig.update_yaxes(type="category", autorange="reversed", showgrid=False, dtick=1 if len(y) <= 40 else None)
    return projector_fonts(fig)


def dropout_activations_figure(
    before: np.ndarray, after: np.ndarray, keep: np.ndarray, tokens: Sequence[str], p: float, title: str
) -> go.Figure:
    """A sub-layer's output ``[L, d]`` before and after dropout (the first ``MAX_COLUMNS`` dimensions),
    on one diverging colour axis symmetric around 0; dropped entries painted black (cells a few
    pixels wide have no room for a "×")."""
    shown = min(before.shape[1], MAX_COLUMNS)
    before, after, keep = before[:, :shown], after[:, :shown], keep[:, :shown]
    y, dims = unique_labels(tokens), list(range(shown))
    limit = float(np.abs(np.nan_to_num(np.asarray(after, dtype=np.float32))).max(initial=0.0)) or 1.0
    fig = make_subplots(
        rows=1,
        cols=2,
        shared_yaxes=True,
        horizontal_spacing=0.03,
        subplot_titles=("before: x (evaluation)", f"after: dropout(x), p = {p:g} (training); black = dropped"),
    )
    for col, (name, matrix) in enumerate((("before", before), ("after", after)), start=1):
        fig.add_trace(
            go.Heatmap(
                z=np.nan_to_num(np.asarray(matrix, dtype=np.float32)),
                x=dims,
                y=y,
                name=name,
                coloraxis="coloraxis",
                hovertemplate="%{y}<br>dim %{x}<br>value %{z:.3f}<extra></extra>",
            ),
            row=1,
            col=col,
        )
    fig.add_trace(_dropped_overlay(keep, dims, y), row=1, col=2)  # thin cells: too narrow for a "×"
    base_layout(fig, title, int(min(720, max(340, 150 + 26 * len(y)))))
    fig.update_layout(
        coloraxis=dict(
            colorscale=DIVERGING_SCALE, cmin=-limit, cmax=limit, colorbar=dict(title=dict(text="value"), thickness=14)
        ),
        showlegend=False,
    )
    fig.update_xaxes(title_text="dimension", showgrid=False, zeroline=False)
    fig.update_yaxes(type="category", autorange="reversed", showgrid=False, dtick=1 if len(y) <= 40 else None)
    return projector_fonts(fig)
