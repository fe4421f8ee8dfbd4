"""Figures for the self-attention walk-through: one query's weights, its weighted sum of
values, and how peaked softmax rows get as d_k grows."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .heatmap import matrix_heatmap
from .labels import escape, label_px, position_axis, position_label, token_labels
from .margins import COLORBAR_PX, TITLED_X_AXIS_PX, reserve_margins, token_axis_px
from .masking import masked_colors, masked_hover
from .style import (
    DIVERGING_SCALE,
    NEUTRAL,
    OTHER_COLOR,
    PROJECTOR_LABEL_PX,
    base_layout,
    projector_fonts,
    styled_figure,
)
from .tiles import gap_shapes, narrowest_tile_px, tile_maps, tile_titles, tiling, wrap_meta


# Dimensions are plain integers: an automatic numeric axis (upright, thinned ticks) reads well and
# lays out faster than one rotated label per dimension.
DIMENSION_AXIS = dict(tickmode="auto", tickvals=None, ticktext=None, tickangle=0, nticks=12, title_text="dimension")


def fixed_margins(fig: go.Figure, rows: Sequence[str], cols: Sequence[str] | None, font: int = 15) -> go.Figure:
    """Projector fonts (14 px dark ticks, see ``viz.style.projector_fonts``) and margins sized to the
    longest row label (left) and the -45° column labels (bottom; ``cols`` None = an upright numeric
    "dimension" axis) instead of automargin, so the browser lays the figure out once."""

    def width(labels: Sequence[str]) -> float:
        return label_px(token_labels([str(t) for t in labels]), font)

    bottom = 0.71 * width(cols) + font if cols is not None else 2.6 * font
    projector_fonts(fig)
    fig.update_xaxes(automargin=False)
    fig.update_yaxes(automargin=False)
    fig.update_layout(margin=dict(l=int(16 + width(rows)), b=int(16 + bottom)))
    return fig


def attention_weights_figure(
    weights: np.ndarray, tokens: Sequence[str], title: str, mask: np.ndarray | None = None, height: int | None = None
) -> go.Figure:
    """Attention weights A ``[T, T]`` (rows = queries) on the 0..1 scale, masked cells grey."""
    fig = matrix_heatmap(weights, tokens, tokens, title, mask=mask, height=height)
    return fixed_margins(fig, tokens, tokens)


def signed_matrix_figure(
    values: np.ndarray,
    rows: Sequence[str],
    cols: Sequence[str],
    title: str,
    col_name: str = "dim",
    mask: np.ndarray | None = None,
    height: int | None = None,
    limit: float | None = None,
) -> go.Figure:
    """A signed ``[rows, cols]`` matrix (vectors or scores) on the diverging scale, symmetric around 0.

    ``col_name`` "dim" labels a ``[T, d]`` matrix of token vectors; "key" a ``[T, T]``
    score matrix (cells where ``mask`` is False drawn masked). The scale runs from -limit to limit: by default
    the largest |value|; two maps meant to be compared are given one ``limit``.
    """
    if limit is None:
        limit = float(np.nanmax(np.abs(values))) if np.size(values) else 0.0
    limit = limit if np.isfinite(limit) and limit > 0 else 1.0
    vectors = col_name == "dim"
    fig = matrix_heatmap(
        values,
        rows,
        cols,
        title,
        signed=True,
        zrange=(-limit, limit),
        mask=mask,
        row_name="token" if vectors else "query",
        col_name=col_name,
        value_name="value" if vectors else "score",
        height=height,
    )
    if vectors:
        fig.update_xaxes(**DIMENSION_AXIS)
    return reserve_margins(fixed_margins(fig, rows, None if vectors else cols), right=COLORBAR_PX)


def qkv_figure(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, tokens: Sequence[str], title: str, height: int | None = None
) -> go.Figure:
    """Q, K, V ``[T, d_k]`` side by side as three tiles of ONE heatmap trace (one redraw, one layout).

    Q = X W_Q, K = X W_K, V = X W_V; rows are tokens (first at the top), columns the d_k
    dimensions; one diverging scale symmetric around 0 for the three. The tiles follow
    ``viz.tiles`` (one blank column between them); dimension 0 and d_k - 1 are labelled under
    each tile, and the hover names the matrix, token and dimension of every cell.
    """
    matrices = np.stack(
        [np.nan_to_num(np.asarray(m, dtype=np.float32), nan=0.0, posinf=0.0, neginf=0.0) for m in (q, k, v)]
    )
    length, d_k = matrices.shape[1:]
    grid = tiling(3, (length, d_k), max_cols=3)
    limit = float(np.abs(matrices).max()) if matrices.size else 0.0
    labels = [position_label("token", i, t) for i, t in enumerate(tokens)]
    hover = np.stack(
        [
            np.array([[f"{name}<br>{label}<br>dim {d}" for d in range(d_k)] for label in labels], dtype=object).reshape(
                length, d_k
            )
            for name in "QKV"
        ]
    )
    trace = go.Heatmap(
        z=tile_maps(matrices, grid, fill=0.0),
        text=tile_maps(hover, grid, fill="between matrices"),
        hovertemplate="%{text}<br>value %{z:.3f}<extra></extra>",
        colorscale=DIVERGING_SCALE,
        zmin=-(limit or 1.0),
        zmax=limit or 1.0,
        colorbar=dict(title=dict(text="value"), thickness=14),
    )
    ends = [(start + d, str(d)) for start in grid.col_starts for d in sorted({0, d_k - 1})]
    x_axis = dict(
        tickmode="array",
        tickvals=[cell for cell, _ in ends],
        ticktext=[text for _, text in ends],
        tickangle=0,
        showgrid=False,
        zeroline=False,
        automargin=False,
        title_text="dimension (0 to d_k − 1 in each)",
    )
    y_axis = position_axis(tokens, autorange="reversed", automargin=False)
    names = ("Q = X W<sub>Q</sub>", "K = X W<sub>K</sub>", "V = X W<sub>V</sub>")
    return styled_figure(
        [trace],
        title,
        height or int(min(720, max(360, 140 + 22 * length))),
        xaxis=x_axis,
        yaxis=y_axis,
        shapes=gap_shapes(grid),
        annotations=tile_titles(grid, names, size=PROJECTOR_LABEL_PX),
        meta=wrap_meta(grid, narrowest_tile_px(["K = X WK"], d_k)),
        margin=dict(t=90, r=COLORBAR_PX, b=TITLED_X_AXIS_PX, l=int(token_axis_px(y_axis["ticktext"]))),
    )


def query_bar_figure(weights: np.ndarray, mask: np.ndarray, tokens: Sequence[str], query: int) -> go.Figure:
    """Query ``query``'s attention over the keys, a_{query, j} for j < T, as bars ``[T]`` (titled by the row's
    number from 1, as the hovers count), the title naming the allowed key it weighs the most.

    Keys the mask forbids get a grey "masked" bar at 0 height, never a number.
    """
    row = np.asarray(weights[query], dtype=np.float32)
    allowed = np.asarray(mask[query], dtype=bool)
    colors = masked_colors(allowed, NEUTRAL)
    hover = masked_hover([position_label("key", j, t) for j, t in enumerate(tokens)], allowed).tolist()
    trace = go.Bar(
        x=np.arange(len(tokens)),
        y=row,
        marker=dict(color=colors),
        hovertext=hover,
        hovertemplate="%{hovertext}<br>weight %{y:.3f}<extra></extra>",
        text=[f"{w:.2f}" if a else "masked" for w, a in zip(row, allowed)],
        textposition="outside",
    )
    fig = go.Figure(trace)
    top = int(np.argmax(np.where(allowed, row, -np.inf)))  # the allowed key it weighs the most
    base_layout(
        fig,
        f"Row {query + 1} of A: how “{escape(tokens[query])}” attends, the most to “{escape(tokens[top])}” "
        f"({row[top]:.2f})",
        360,
    )
    fig.update_xaxes(**position_axis(tokens, tickangle=-45))
    fig.update_yaxes(range=[0, 1.1], title_text="weight a<sub>ij</sub>")
    fixed_margins(fig, ["0.00"], tokens)
    fig.update_layout(margin=dict(l=70))  # tick values and the axis title
    return fig


def weighted_values_figure(weights: np.ndarray, values: np.ndarray, tokens: Sequence[str], query: int) -> go.Figure:
    """The output of one query as a weighted sum: rows a_{ij} v_j ``[T, d_k]`` and their sum, the title naming the
    longest term.

    output_i = sum_j a_ij v_j; the last row is that sum (= row i of A V).
    """
    contributions = (weights[query][:, None] * values).astype(np.float32)
    output = contributions.sum(0, keepdims=True)
    matrix = np.concatenate([contributions, output]).astype(np.float32)
    rows = [f"{weights[query, j]:.2f} × v[{t}]" for j, t in enumerate(tokens)] + [f"= output[{tokens[query]}]"]
    sizes = np.linalg.norm(contributions.astype(np.float64), axis=1)  # ‖a_ij v_j‖, each term's length
    big = int(np.argmax(sizes))
    dims = [str(d) for d in range(values.shape[1])]
    limit = float(np.abs(matrix).max()) or 1.0
    fig = matrix_heatmap(
        matrix,
        rows,
        dims,
        f"out[{escape(tokens[query])}] = Σ<sub>j</sub> a<sub>ij</sub> v<sub>j</sub>: the term of “{escape(tokens[big])}” "
        f"the longest (‖a v‖ {sizes[big]:.2f}, ‖out‖ {np.linalg.norm(output.astype(np.float64)):.2f})",
        signed=True,
        zrange=(-limit, limit),
        row_name="term",
        col_name="dim",
        value_name="value",
    )
    fig.add_hline(y=len(tokens) - 0.5, line=dict(color="black", width=2))
    fig.update_xaxes(**DIMENSION_AXIS)
    return reserve_margins(fixed_margins(fig, rows, None), right=COLORBAR_PX)


SATURATED = 0.8  # a mean largest weight from which a softmax has mostly picked one key


def peakedness_title(dims: np.ndarray, max_scaled: np.ndarray, max_unscaled: np.ndarray, keys: int) -> str:
    """What the curves show at the largest d_k drawn: the unscaled softmax saturated (its mean largest weight at
    least ``SATURATED``) while the scaled one did not, or else the two weights there."""
    d_k, scaled, unscaled = int(dims[-1]), float(max_scaled[-1]), float(max_unscaled[-1])
    weights = f"the largest weight at d_k = {d_k} is {unscaled:.2f} unscaled, {scaled:.2f} scaled ({keys} random keys)"
    if unscaled >= SATURATED > scaled:
        return f"Softmax peakedness vs d_k: without √d_k the softmax saturates; {weights}"
    return f"Softmax peakedness vs d_k: {weights}"


def peakedness_figure(
    dims: np.ndarray,
    entropy_scaled: np.ndarray,
    entropy_unscaled: np.ndarray,
    max_scaled: np.ndarray,
    max_unscaled: np.ndarray,
    keys: int,
    current: tuple[float, float, float] | None = None,
) -> go.Figure:
    """Mean row entropy and mean max weight of softmax over ``keys`` random keys vs d_k.

    Two panels, each with the scaled (q.k / sqrt(d_k)) and unscaled (q.k) curve;
    ``current`` = (d_k, entropy, max weight) of the user's sentence at the page's settings, a star.
    """
    fig = make_subplots(
        rows=1, cols=2, subplot_titles=("mean row entropy (nats)", "mean largest weight"), horizontal_spacing=0.12
    )
    styles = (("scaled: q·k / √d_k", NEUTRAL, "solid"), ("unscaled: q·k", OTHER_COLOR, "dash"))
    for col, series in ((1, (entropy_scaled, entropy_unscaled)), (2, (max_scaled, max_unscaled))):
        for (name, color, dash), y in zip(styles, series):
            fig.add_trace(
                go.Scatter(
                    x=dims,
                    y=np.asarray(y, dtype=np.float32),
                    name=name,
                    mode="lines+markers",
                    line=dict(color=color, dash=dash),
                    legendgroup=name,
                    showlegend=col == 1,
                    hovertemplate="d_k %{x}<br>%{y:.3f}<extra>" + name + "</extra>",
                ),
                row=1,
                col=col,
            )
    fig.add_hline(
        y=float(np.log(keys)),
        line=dict(color="grey", dash="dot"),
        row=1,
        col=1,
        annotation_text=f"uniform: ln {keys}",
        annotation_position="top right",  # clear of the curves, which start on it at d_k = 1
    )
    if current is not None:
        d_k, entropy, peak = current
        for col, y in ((1, entropy), (2, peak)):
            fig.add_trace(
                go.Scatter(
                    x=[d_k],
                    y=[y],
                    mode="markers",
                    name="your sentence, at the settings above",
                    marker=dict(symbol="star", size=16, color="black"),
                    showlegend=col == 1,
                    legendgroup="current",
                    hovertemplate="your sentence: d_k %{x}<br>%{y:.3f}<extra></extra>",
                ),
                row=1,
                col=col,
            )
    base_layout(fig, peakedness_title(dims, max_scaled, max_unscaled, keys), 380)
    ticks = [1, 4, 16, 64, 256]  # a few upright labels: log axes' minor labels are too small to project
    fig.update_xaxes(type="log", title_text="d_k", tickvals=ticks, ticktext=[str(t) for t in ticks])
    # room for the sentence's star too: its rows may have more keys than the curves' (a higher entropy)
    top = max(float(np.log(keys)), current[1] if current is not None else 0.0)
    fig.update_yaxes(range=[0, 1.15 * top], row=1, col=1)
    fig.update_yaxes(range=[0, 1.05], row=1, col=2)
    projector_fonts(fig)
    fig.update_layout(legend=dict(orientation="h", y=-0.25), margin=dict(b=40))
    return fig
