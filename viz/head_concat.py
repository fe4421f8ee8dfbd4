"""Multi-head attention's last step drawn: head_i = A_i V_i, Concat(head_1..head_h), W^O, the output.

Every matrix is signed, so every figure uses the diverging scale centred on 0 (symmetric
range). Head i keeps one colour throughout (``viz.style.head_color``): a frame of that colour
around its tile, its block of columns in Concat and its block of rows in W^O, with a
"head i" label (numbered from 1) in the same colour. Token rows are categories named by the
escaped tokens (a repeated word keeps its own row, see ``viz.labels.unique_labels``), first
token at the top, so the hover names the token without a text per cell; the heads' and
Concat's columns are categories too ("head 2 · dim 5"). Shapes and annotations address
categories by their index. Only numbers travel per cell (float32; W^O as int16 codes when large).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from .attention_steps import fixed_margins
from .labels import ZERO_WIDTH, unique_labels
from .style import DIVERGING_SCALE, base_layout, head_color, head_text_color
from .tiles import gap_shapes, tile_maps, tiling

EXACT_WEIGHT_CELLS = 128 * 128  # a larger W^O travels as int16 codes (half the bytes, 4 decimals kept)
MAX_TOKEN_TICKS = 40  # more token rows: Plotly thins the labels


def symmetric_limit(*arrays: np.ndarray) -> float:
    """``max |x|`` over the finite entries of ``arrays`` (1.0 when there are none or all are 0)."""
    values = [np.abs(a[np.isfinite(a)]).max() for a in map(np.asarray, arrays) if np.isfinite(a).any()]
    limit = float(max(values, default=0.0))
    return limit if limit > 0 else 1.0


def head_name(head: int, heads: int) -> str:
    """Label of head ``head`` (0-based) of ``heads``: "head 3", or "3" when more than 12 share a row."""
    return f"head {head + 1}" if heads <= 12 else str(head + 1)


def _heatmap(z: np.ndarray, limit: float, hover: str, **axes) -> go.Heatmap:
    """A signed heatmap on the diverging scale over [-limit, limit], hovering ``hover`` then the value."""
    return go.Heatmap(
        z=np.nan_to_num(np.asarray(z, dtype=np.float32)),
        colorscale=DIVERGING_SCALE,
        zmid=0.0,
        zmin=-limit,
        zmax=limit,
        colorbar=dict(title=dict(text="value"), thickness=14),
        hovertemplate=hover + "<br>value %{z:.3f}<extra></extra>",
        **axes,
    )


def _frame(x0: float, x1: float, y0: float, y1: float, head: int) -> dict:
    """A rectangle outline in head ``head``'s colour (data coordinates), drawn above the cells."""
    return dict(
        type="rect",
        xref="x",
        yref="y",
        x0=x0,
        x1=x1,
        y0=y0,
        y1=y1,
        layer="above",
        line=dict(color=head_color(head), width=3),
        fillcolor="rgba(0,0,0,0)",
    )


def _label(text: str, head: int, **where) -> dict:
    """A bold "head i" annotation in head ``head``'s colour."""
    return dict(text=f"<b>{text}</b>", showarrow=False, font=dict(color=head_text_color(head), size=15), **where)


def _column_labels(head_of: Sequence[int | None], dim_of: Sequence[int], prefix: Sequence[str] = ()) -> list[str]:
    """Category names of matrix columns: "head h · dim j" (1-based head), an optional ``prefix`` per
    column; a column with head None (a gap between tiles) gets a distinct invisible name."""
    names, gaps = [], 0
    for c, (head, dim) in enumerate(zip(head_of, dim_of)):
        if head is None:
            gaps += 1
            names.append(ZERO_WIDTH * gaps)
        else:
            names.append(f"{prefix[c] if prefix else ''}head {head + 1} · dim {dim}")
    return names


def _token_rows(fig: go.Figure, tokens: Sequence[str], height: int | None = None) -> go.Figure:
    """Token rows as categories (first at the top), projector fonts, margins sized to the labels."""
    length = len(tokens)
    fig.update_layout(height=height or int(min(720, max(300, 150 + 24 * length))))
    fixed_margins(fig, tokens, None)
    fig.update_yaxes(
        type="category", autorange="reversed", showgrid=False, **(dict(dtick=1) if length <= MAX_TOKEN_TICKS else {})
    )
    return fig


def _column_ticks(
    fig: go.Figure, names: Sequence[str], positions: Sequence[int], texts: Sequence[str], title: str
) -> None:
    """Category x axis with upright tick labels ``texts`` at the columns ``positions``."""
    fig.update_xaxes(
        type="category",
        tickmode="array",
        tickvals=[names[p] for p in positions],
        ticktext=list(texts),
        tickangle=0,
        title_text=title,
        showgrid=False,
        zeroline=False,
    )


def head_outputs_figure(heads: np.ndarray, tokens: Sequence[str], title: str, limit: float | None = None) -> go.Figure:
    """Each head's output ``head_i = A_i V_i`` ``[T, d_k]``, the ``H`` heads side by side in ONE
    tiled heatmap trace (``viz.tiles``: a one-cell gap between heads), each tile framed and titled
    in its head's colour. ``limit`` sets the colour range (default: this figure's max |value|)."""
    count, length, width = heads.shape
    grid = tiling(count, (length, width), max_cols=count, gap=1)
    z = tile_maps(np.asarray(heads, dtype=np.float32), grid, fill=0.0)
    starts = grid.col_starts
    head_of = [c // (width + 1) if c % (width + 1) < width else None for c in range(z.shape[1])]
    columns = _column_labels(head_of, [c % (width + 1) for c in range(z.shape[1])])
    fig = go.Figure(
        _heatmap(z, limit or symmetric_limit(heads), "%{y}<br>%{x}", x=columns, y=unique_labels(tokens), name="heads")
    )
    frames = [_frame(c0 - 0.5, c0 + width - 0.5, -0.5, length - 0.5, h) for h, c0 in enumerate(starts)]
    labels = [
        _label(head_name(h, count), h, x=c0 + (width - 1) / 2, y=1.0, yanchor="bottom", xref="x", yref="paper")
        for h, c0 in enumerate(starts)
    ]
    base_layout(fig, title)
    fig.update_layout(shapes=gap_shapes(grid) + frames, annotations=labels)
    # every tile's first dimension, 0, and the last tile's last (a tile's last and the next one's first, a gap
    # apart, would touch)
    ticks = sorted({*starts, starts[-1] + width - 1})
    _column_ticks(fig, columns, ticks, [str(c % (width + 1)) for c in ticks], f"dimension of each head (d_k = {width})")
    _token_rows(fig, tokens)
    fig.update_layout(margin=dict(t=90))
    return fig


def concat_figure(
    concat: np.ndarray, tokens: Sequence[str], d_head: int, title: str, limit: float | None = None
) -> go.Figure:
    """``Concat(head_1..head_h)`` ``[T, d_model]`` as one matrix: the same numbers as the heads'
    tiles, head i in columns ``(i-1) d_k .. i d_k - 1``, each block framed and labelled in its colour."""
    length, total = concat.shape
    count = total // d_head
    columns = _column_labels(
        [c // d_head for c in range(total)],
        [c % d_head for c in range(total)],
        [f"column {c} = " for c in range(total)],
    )
    fig = go.Figure(
        _heatmap(
            concat, limit or symmetric_limit(concat), "%{y}<br>%{x}", x=columns, y=unique_labels(tokens), name="concat"
        )
    )
    frames = [_frame(h * d_head - 0.5, (h + 1) * d_head - 0.5, -0.5, length - 0.5, h) for h in range(count)]
    labels = [
        _label(head_name(h, count), h, x=h * d_head + (d_head - 1) / 2, y=1.0, yanchor="bottom", xref="x", yref="paper")
        for h in range(count)
    ]
    base_layout(fig, title)
    fig.update_layout(shapes=frames, annotations=labels)
    ticks = list(range(0, total, d_head)) + [total - 1]
    _column_ticks(
        fig, columns, ticks, [str(t) for t in ticks], f"dimension of Concat (d_model = {total} = {count} × {d_head})"
    )
    _token_rows(fig, tokens)
    fig.update_layout(margin=dict(t=90))
    return fig


def weight_codes(weight: np.ndarray) -> tuple[np.ndarray, int]:
    """``W`` as int16 codes ``round(W * scale)`` and the ``scale`` (a power of 10, at most 10^4, that
    keeps every code within ±32000): the value is code / scale, to ``1 / (2 scale)``."""
    limit = symmetric_limit(weight)
    scale = int(10 ** min(4, math.floor(math.log10(32000 / limit)))) if limit < 32000 else 1
    codes = np.rint(np.clip(np.nan_to_num(np.asarray(weight, dtype=np.float64)) * scale, -32000, 32000))
    return codes.astype(np.int16), scale


# W^O's colours span |W| up to this quantile, where its largest entries stand out (a trained model's few outliers
# would otherwise leave every other weight the pale middle of the scale)
WEIGHT_QUANTILE, OUTLIER_RATIO = 0.995, 2.0


def weight_colour_limit(weight: np.ndarray) -> tuple[float, bool]:
    """The colour range's end for ``W``: ``max |W|``, or the ``WEIGHT_QUANTILE`` quantile ``q`` of ``|W|`` where
    ``max |W| > OUTLIER_RATIO * q`` (then True: entries beyond ``±q`` take the scale's end colours)."""
    finite = np.abs(np.asarray(weight, dtype=np.float64))
    finite = finite[np.isfinite(finite)]
    largest = symmetric_limit(weight)
    quantile = float(np.quantile(finite, WEIGHT_QUANTILE)) if finite.size else 0.0
    if quantile > 0 and largest > OUTLIER_RATIO * quantile:
        return quantile, True
    return largest, False


def _weight_trace(weight: np.ndarray, hover: str) -> go.Heatmap:
    """W^O as a heatmap: float32 up to ``EXACT_WEIGHT_CELLS`` cells, int16 codes above (colour bar
    and hover read back in values). Its colours span ``weight_colour_limit``; a clipped range says so at the
    colour bar's ends (≤ −q, 0, ≥ q), the hover gives every entry's own value."""
    limit, clipped = weight_colour_limit(weight)
    ticks = np.linspace(-limit, limit, 3 if clipped else 5)  # the ends' "≤"/"≥" widen them: fewer, on a phone too
    names = [f"{t:.2g}".replace("-", "−") for t in ticks]
    if clipped:
        names[0], names[-1] = f"≤ {names[0]}", f"≥ {names[-1]}"
    if weight.size <= EXACT_WEIGHT_CELLS:
        trace = _heatmap(weight, limit, hover, name="W_O")
        if clipped:  # else Plotly's own ticks over the whole range
            trace.colorbar.update(tickvals=ticks, ticktext=names)
        return trace
    codes, scale = weight_codes(weight)
    return go.Heatmap(
        z=codes,
        colorscale=DIVERGING_SCALE,
        zmid=0,
        zmin=-limit * scale,
        zmax=limit * scale,
        colorbar=dict(title=dict(text="value"), thickness=14, tickvals=ticks * scale, ticktext=names),
        hovertemplate=hover + f"<br>value %{{z}} / {scale}<extra></extra>",
        name="W_O codes",
    )


def output_weight_figure(weight: np.ndarray, d_head: int, title: str) -> go.Figure:
    """``W^O`` ``[d_model, d_model]``: row r multiplies Concat's column r, so the rows come in head
    blocks of ``d_head`` (framed and labelled at the left in each head's colour); columns are the
    output dimensions."""
    rows, cols = weight.shape
    count = rows // d_head
    fig = go.Figure(_weight_trace(weight, "row %{y} (a column of Concat)<br>output dim %{x}"))
    frames = [_frame(-0.5, cols - 0.5, h * d_head - 0.5, (h + 1) * d_head - 0.5, h) for h in range(count)]
    labels = [
        _label(
            head_name(h, count),
            h,
            x=0,
            xref="paper",
            xanchor="right",
            xshift=-34,
            y=h * d_head + (d_head - 1) / 2,
            yref="y",
        )
        for h in range(count)
    ]
    base_layout(fig, title, int(min(640, max(380, 160 + 4 * rows))))
    fig.update_layout(shapes=frames, annotations=labels)
    ticks = list(range(0, rows, d_head)) + [rows - 1]
    fig.update_yaxes(
        tickmode="array",
        tickvals=ticks,
        ticktext=[str(t) for t in ticks],
        autorange="reversed",
        showgrid=False,
        zeroline=False,
    )  # no axis title: the head labels sit there
    fig.update_xaxes(title_text="output dimension", showgrid=False, zeroline=False)
    fixed_margins(fig, [str(rows)], None)
    fig.update_layout(margin=dict(l=110 if count <= 12 else 80))
    return fig


def attention_output_figure(output: np.ndarray, tokens: Sequence[str], title: str) -> go.Figure:
    """The layer's attention output ``Concat W^O (+ b)`` ``[T, d_model]``: every output dimension
    mixes every head, so there are no head blocks any more."""
    total = output.shape[1]
    fig = go.Figure(
        _heatmap(output, symmetric_limit(output), "%{y}<br>output dim %{x}", y=unique_labels(tokens), name="output")
    )
    base_layout(fig, title)
    fig.update_xaxes(title_text=f"output dimension (d_model = {total})", showgrid=False, zeroline=False)
    return _token_rows(fig, tokens)
