"""Figures of the Vision Transformer page's image: cut into patches, the token sequence, the class
probabilities and attention drawn over the image (what the model learned: ``viz.vision_learned``). Patches,
layers and heads are numbered from 1 on screen; [CLS] is named."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .tiles import gap_shapes, tile_maps, tile_titles, tiling
from .style import ACCENT, ATTENTION_SCALE, NEUTRAL, OTHER_COLOR, base_layout, styled_figure

INK_SCALE = [[0.0, "#ffffff"], [1.0, "#111111"]]  # 0 = paper, 1 = ink
PATCH_EDGE = "#808080"  # the lines between patches: a mid grey, seen on the paper and on the ink alike
# The digit's outline over an attention map: the line where the ink crosses half, white on a black edge, so it
# reads on the scale's dark end and on its light end alike.
OUTLINE_LEVEL = 0.5
OUTLINE = (("#000000", 5), ("#ffffff", 2))  # (colour, width in px), drawn in this order


def _image_trace(image: np.ndarray, **extra) -> go.Heatmap:
    return go.Heatmap(
        z=np.asarray(image, dtype=np.float32),
        zmin=0.0,
        zmax=1.0,
        colorscale=INK_SCALE,
        showscale=False,
        hovertemplate="row %{y}, column %{x}<br>ink %{z:.2f}<extra></extra>",
        **extra,
    )


def _square_axes(size: int) -> dict:
    """Pixel axes of an image ``size`` x ``size``: rows down, one unit a pixel, no ticks."""
    axis = dict(range=[-0.5, size - 0.5], showticklabels=False, showgrid=False, zeroline=False)
    return dict(
        xaxis={**axis, "constrain": "domain"},
        yaxis={**axis, "range": [size - 0.5, -0.5], "scaleanchor": "x", "constrain": "domain"},
    )


def patch_grid_figure(image: np.ndarray, patch_size: int, title: str) -> go.Figure:
    """The image ``[S, S]`` with the ``p x p`` patch borders drawn and each patch's number (1.., row-major)."""
    size = image.shape[0]
    side = size // patch_size
    lines = [
        dict(
            type="line",
            x0=k * patch_size - 0.5,
            x1=k * patch_size - 0.5,
            y0=-0.5,
            y1=size - 0.5,
            line=dict(color=PATCH_EDGE, width=2, dash="dash"),
        )
        for k in range(1, side)
    ]
    lines += [
        dict(
            type="line",
            y0=k * patch_size - 0.5,
            y1=k * patch_size - 0.5,
            x0=-0.5,
            x1=size - 0.5,
            line=dict(color=PATCH_EDGE, width=2, dash="dash"),
        )
        for k in range(1, side)
    ]
    numbers = (
        [
            dict(
                x=(i % side + 0.5) * patch_size - 0.5,
                y=(i // side + 0.5) * patch_size - 0.5,
                text=str(i + 1),
                showarrow=False,
                font=dict(size=14 if side <= 4 else 11, color="#111111"),
                bgcolor="rgba(255,255,255,0.85)",
            )
            for i in range(side * side)
        ]
        if side <= 8
        else []
    )
    frame = dict(type="rect", x0=-0.5, x1=size - 0.5, y0=-0.5, y1=size - 0.5, line=dict(color="#555555", width=1))
    return styled_figure(
        [_image_trace(image)], title, 420, shapes=[frame, *lines], annotations=numbers, **_square_axes(size)
    )


def patch_sequence_figure(image: np.ndarray, patch_size: int, title: str, per_row: int = 17) -> go.Figure:
    """The sequence the encoder reads: [CLS] (a learned vector, drawn as a labelled white tile), then patch 1, 2,
    ... in row-major order, each drawn as its pixels (``viz.tiles``: one tile a token, ``per_row`` a row)."""
    side = image.shape[0] // patch_size
    pieces = patches_of(image, patch_size)  # [N, p, p]
    grid = tiling(len(pieces) + 1, (patch_size, patch_size), max_cols=per_row)
    strip = tile_maps(np.concatenate([np.zeros((1, patch_size, patch_size), np.float32), pieces]), grid, fill=0.0)
    top, left = grid.origin(0)
    cls = dict(
        type="rect",
        x0=left - 0.5,
        x1=left + patch_size - 0.5,
        y0=top - 0.5,
        y1=top + patch_size - 0.5,
        fillcolor="white",
        line=dict(color=NEUTRAL, width=2),
        layer="above",
    )
    frames = [
        dict(
            type="rect",
            x0=c - 0.5,
            x1=c + patch_size - 0.5,
            y0=r - 0.5,
            y1=r + patch_size - 0.5,
            line=dict(color="#bbbbbb", width=1),
        )
        for r, c in map(grid.origin, range(1, grid.count))
    ]
    names = tile_titles(grid, ["CLS", *[str(i + 1) for i in range(side * side)]])
    trace = go.Heatmap(z=strip, zmin=0.0, zmax=1.0, colorscale=INK_SCALE, showscale=False, hoverinfo="skip")
    axis = dict(showticklabels=False, showgrid=False, zeroline=False)
    return styled_figure(
        [trace],
        title,
        int(110 + grid.rows * 1000 / grid.cols),
        shapes=[*gap_shapes(grid), cls, *frames],
        annotations=names,
        margin=dict(l=10, r=10, t=70, b=10),
        xaxis={**axis, "range": [-0.5, grid.shape[1] - 0.5]},
        yaxis={**axis, "range": [grid.shape[0] - 0.5, -2.5], "scaleanchor": "x"},
    )


def patches_of(image: np.ndarray, patch_size: int) -> np.ndarray:
    """The ``p x p`` patches ``[N, p, p]`` of a square image ``[S, S]``, in row-major order."""
    side = image.shape[0] // patch_size
    blocks = np.asarray(image, dtype=np.float32).reshape(side, patch_size, side, patch_size)
    return blocks.transpose(0, 2, 1, 3).reshape(side * side, patch_size, patch_size)


def class_probabilities_figure(probabilities: np.ndarray, title: str, truth: int | None = None) -> go.Figure:
    """Bars of the 10 digits' probabilities; the most probable one in the accent, the true digit (if known) outlined."""
    p = np.asarray(probabilities, dtype=np.float32)
    best = int(p.argmax())
    colours = [ACCENT if d == best else OTHER_COLOR for d in range(len(p))]
    outline = [3 if d == truth else 0 for d in range(len(p))]
    trace = go.Bar(
        x=[str(d) for d in range(len(p))],
        y=p,
        marker=dict(color=colours, line=dict(color="#111111", width=outline)),
        text=[f"{v:.2f}" for v in p],
        textposition="outside",
        cliponaxis=False,
        hovertemplate="digit %{x}<br>probability %{y:.3f}<extra></extra>",
    )
    return styled_figure(
        [trace],
        title,
        360,
        xaxis=dict(title_text="digit", type="category"),
        yaxis=dict(title_text="probability", range=[0, 1.12]),
    )


def _outline_traces(image: np.ndarray) -> list[go.Contour]:
    """The digit's outline: the contour where the ink ``image [S, S]`` crosses ``OUTLINE_LEVEL``, drawn as a
    black edge under a white line. It holds no data of its own (no hover, left out of the chart's numbers)."""
    size = image.shape[0]
    paper = np.pad(np.asarray(image, dtype=np.float32), 1)  # a border of paper closes a stroke that meets the edge
    places = np.arange(-1, size + 1)
    return [
        go.Contour(
            z=paper,
            x=places,
            y=places,
            contours=dict(start=OUTLINE_LEVEL, end=OUTLINE_LEVEL, size=1, coloring="none"),
            line=dict(color=colour, width=width, smoothing=1.0),
            showscale=False,
            showlegend=False,
            hoverinfo="skip",
        )
        for colour, width in OUTLINE
    ]


def attention_over_image_figure(
    image: np.ndarray, maps: np.ndarray, patch_size: int, title: str, names: list[str], columns: int
) -> go.Figure:
    """``maps [K, g, g]`` (e.g. every layer's heads), each drawn on the attention scale with the outline of the
    image ``[S, S]`` over it, ``columns`` panels a row, panel k titled ``names[k]``: a patch's weight colours its
    ``p x p`` pixels, on one scale from 0 to the largest weight of all maps. Traces: map k is trace 3k, its
    outline traces 3k + 1 and 3k + 2."""
    maps = np.nan_to_num(np.asarray(maps, dtype=np.float32))
    count = len(maps)
    columns = max(1, min(columns, count))
    rows = -(-count // columns)
    size = image.shape[0]
    top = float(max(maps.max(), 1e-6))
    fig = make_subplots(
        rows=rows,
        cols=columns,
        subplot_titles=names,
        horizontal_spacing=0.04,
        vertical_spacing=min(0.2, 0.5 / max(rows, 1)),
    )
    block = np.ones((patch_size, patch_size), dtype=np.float32)
    traces, places = [], []
    for k in range(count):
        traces += [
            go.Heatmap(
                z=np.kron(maps[k], block),
                zmin=0.0,
                zmax=top,
                colorscale=ATTENTION_SCALE,
                showscale=k == 0,
                colorbar=dict(title=dict(text="weight"), thickness=14),
                hovertemplate="row %{y}, column %{x}<br>weight %{z:.3f}<extra></extra>",
            ),
            *_outline_traces(image),
        ]
        places += [divmod(k, columns)] * (1 + len(OUTLINE))
    fig.add_traces(traces, rows=[row + 1 for row, _ in places], cols=[column + 1 for _, column in places])
    # every axis set in one pass (a later update_xaxes walks the whole figure again): panel k's y axis is square
    # to its own x axis, and no axis has ticks
    axis = dict(showticklabels=False, showgrid=False, zeroline=False, range=[-0.5, size - 0.5], constrain="domain")
    axes = {}
    for k in range(rows * columns):
        suffix = "" if k == 0 else str(k + 1)
        axes[f"xaxis{suffix}"] = axis
        axes[f"yaxis{suffix}"] = {
            **axis,
            "range": [size - 0.5, -0.5],
            **({"scaleanchor": f"x{suffix}"} if k < count else {}),
        }
    height = int(100 + rows * (900 / columns if columns >= 3 else 250))  # two a row: a phone or a tablet
    base_layout(fig, title, height)  # the shared title, which wraps where the figure is narrow
    fig.update_layout(**axes, margin=dict(r=70), font=dict(size=15))
    fig.update_annotations(font_size=14)
    return fig
