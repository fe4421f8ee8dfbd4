"""Figures of the Vision Transformer page: an image cut into patches, the token sequence, the class
probabilities, attention drawn over the image, the position embeddings' similarity, attention distance and
the patch embedding's filters. Patches, layers and heads are numbered from 1 on screen; [CLS] is named."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .tiles import gap_shapes, tile_maps, tile_titles, tiling
from .style import ATTENTION_SCALE, DIVERGING_SCALE, LAB_TEMPLATE, head_color, styled_figure

INK_SCALE = [[0.0, "#ffffff"], [1.0, "#111111"]]  # 0 = paper, 1 = ink
# Attention over the image: transparent at 0, an opaque orange at the map's largest weight, over the grey digit.
GLOW_SCALE = [[0.0, "rgba(230, 85, 13, 0)"], [1.0, "rgba(230, 85, 13, 0.9)"]]


def _image_trace(image: np.ndarray, **extra) -> go.Heatmap:
    return go.Heatmap(z=np.asarray(image, dtype=np.float32), zmin=0.0, zmax=1.0, colorscale=INK_SCALE,
                      showscale=False, hovertemplate="row %{y}, column %{x}<br>ink %{z:.2f}<extra></extra>", **extra)


def _square_axes(size: int) -> dict:
    """Pixel axes of an image ``size`` x ``size``: rows down, one unit a pixel, no ticks."""
    axis = dict(range=[-0.5, size - 0.5], showticklabels=False, showgrid=False, zeroline=False)
    return dict(xaxis={**axis, "constrain": "domain"}, yaxis={**axis, "range": [size - 0.5, -0.5],
                                                                "scaleanchor": "x", "constrain": "domain"})


def patch_grid_figure(image: np.ndarray, patch_size: int, title: str) -> go.Figure:
    """The image ``[S, S]`` with the ``p x p`` patch borders drawn and each patch's number (1.., row-major)."""
    size = image.shape[0]
    side = size // patch_size
    lines = [dict(type="line", x0=k * patch_size - 0.5, x1=k * patch_size - 0.5, y0=-0.5, y1=size - 0.5,
                  line=dict(color="#e6550d", width=2)) for k in range(1, side)]
    lines += [dict(type="line", y0=k * patch_size - 0.5, y1=k * patch_size - 0.5, x0=-0.5, x1=size - 0.5,
                   line=dict(color="#e6550d", width=2)) for k in range(1, side)]
    numbers = [dict(x=(i % side + 0.5) * patch_size - 0.5, y=(i // side + 0.5) * patch_size - 0.5, text=str(i + 1),
                    showarrow=False, font=dict(size=14 if side <= 4 else 11, color="#e6550d"),
                    bgcolor="rgba(255,255,255,0.75)")
               for i in range(side * side)] if side <= 8 else []
    frame = dict(type="rect", x0=-0.5, x1=size - 0.5, y0=-0.5, y1=size - 0.5, line=dict(color="#555555", width=1))
    return styled_figure([_image_trace(image)], title, 420, shapes=[frame, *lines], annotations=numbers,
                         **_square_axes(size))


def patch_sequence_figure(image: np.ndarray, patch_size: int, title: str, per_row: int = 17) -> go.Figure:
    """The sequence the encoder reads: [CLS] (a learned vector, drawn as a labelled blue tile), then patch 1, 2,
    ... in row-major order, each drawn as its pixels (``viz.tiles``: one tile a token, ``per_row`` a row)."""
    side = image.shape[0] // patch_size
    pieces = patches_of(image, patch_size)  # [N, p, p]
    grid = tiling(len(pieces) + 1, (patch_size, patch_size), max_cols=per_row)
    strip = tile_maps(np.concatenate([np.zeros((1, patch_size, patch_size), np.float32), pieces]), grid, fill=0.0)
    top, left = grid.origin(0)
    cls = dict(type="rect", x0=left - 0.5, x1=left + patch_size - 0.5, y0=top - 0.5, y1=top + patch_size - 0.5,
               fillcolor="#9ecae1", line=dict(color="#1f77b4"), layer="above")
    frames = [dict(type="rect", x0=c - 0.5, x1=c + patch_size - 0.5, y0=r - 0.5, y1=r + patch_size - 0.5,
                   line=dict(color="#bbbbbb", width=1)) for r, c in map(grid.origin, range(1, grid.count))]
    names = tile_titles(grid, ["CLS", *[str(i + 1) for i in range(side * side)]])
    trace = go.Heatmap(z=strip, zmin=0.0, zmax=1.0, colorscale=INK_SCALE, showscale=False, hoverinfo="skip")
    axis = dict(showticklabels=False, showgrid=False, zeroline=False)
    return styled_figure([trace], title, int(110 + grid.rows * 1000 / grid.cols),
                         shapes=[*gap_shapes(grid), cls, *frames], annotations=names,
                         margin=dict(l=10, r=10, t=70, b=10), xaxis={**axis, "range": [-0.5, grid.shape[1] - 0.5]},
                         yaxis={**axis, "range": [grid.shape[0] - 0.5, -2.5], "scaleanchor": "x"})


def patches_of(image: np.ndarray, patch_size: int) -> np.ndarray:
    """The ``p x p`` patches ``[N, p, p]`` of a square image ``[S, S]``, in row-major order."""
    side = image.shape[0] // patch_size
    blocks = np.asarray(image, dtype=np.float32).reshape(side, patch_size, side, patch_size)
    return blocks.transpose(0, 2, 1, 3).reshape(side * side, patch_size, patch_size)


def class_probabilities_figure(probabilities: np.ndarray, title: str, truth: int | None = None) -> go.Figure:
    """Bars of the 10 digits' probabilities; the most probable one dark, the true digit (if known) outlined."""
    p = np.asarray(probabilities, dtype=np.float32)
    best = int(p.argmax())
    colours = [head_color(0) if d == best else "#9ecae1" for d in range(len(p))]
    outline = [3 if d == truth else 0 for d in range(len(p))]
    trace = go.Bar(x=[str(d) for d in range(len(p))], y=p, marker=dict(color=colours, line=dict(color="#111111",
                   width=outline)), text=[f"{v:.2f}" for v in p], textposition="outside", cliponaxis=False,
                   hovertemplate="digit %{x}<br>probability %{y:.3f}<extra></extra>")
    return styled_figure([trace], title, 360, xaxis=dict(title_text="digit", type="category"),
                         yaxis=dict(title_text="probability", range=[0, 1.12]))


def attention_over_image_figure(image: np.ndarray, maps: np.ndarray, patch_size: int, title: str,
                                names: list[str], columns: int) -> go.Figure:
    """``maps [K, g, g]`` (e.g. every layer's heads) each drawn as a glow over the grey image ``[S, S]``, ``columns``
    panels a row, panel k titled ``names[k]``: a patch's weight colours its ``p x p`` pixels, from transparent
    (0) to orange at the largest weight of all maps."""
    maps = np.nan_to_num(np.asarray(maps, dtype=np.float32))
    count = len(maps)
    columns = max(1, min(columns, count))
    rows = -(-count // columns)
    size = image.shape[0]
    top = float(max(maps.max(), 1e-6))
    fig = make_subplots(rows=rows, cols=columns, subplot_titles=names, horizontal_spacing=0.04,
                        vertical_spacing=min(0.2, 0.5 / max(rows, 1)))
    block = np.ones((patch_size, patch_size), dtype=np.float32)
    for k in range(count):
        row, column = divmod(k, columns)
        fig.add_trace(_image_trace(image), row=row + 1, col=column + 1)
        fig.add_trace(go.Heatmap(z=np.kron(maps[k], block), zmin=0.0, zmax=top, colorscale=GLOW_SCALE,
                                 showscale=k == 0, colorbar=dict(title=dict(text="weight"), thickness=14),
                                 hovertemplate="row %{y}, column %{x}<br>weight %{z:.3f}<extra></extra>"),
                      row=row + 1, col=column + 1)
        fig.update_yaxes(scaleanchor=f"x{'' if k == 0 else k + 1}", row=row + 1, col=column + 1)
    axis = dict(showticklabels=False, showgrid=False, zeroline=False, range=[-0.5, size - 0.5])
    fig.update_xaxes(**axis, constrain="domain")
    fig.update_yaxes(**{**axis, "range": [size - 0.5, -0.5]}, constrain="domain")
    height = int(100 + rows * (900 / columns if columns >= 3 else 250))  # two a row: a phone or a tablet
    fig.update_layout(template=LAB_TEMPLATE, title=dict(text=title, x=0.0), height=height,
                      margin=dict(l=10, r=70, t=90, b=10), paper_bgcolor="white", plot_bgcolor="white",
                      font=dict(size=15))
    fig.update_annotations(font_size=14)
    return fig


def position_similarity_figure(similarity: np.ndarray, side: int, title: str) -> go.Figure:
    """``similarity [N, N]`` as a ``g x g`` grid of small ``g x g`` maps (``viz.tiles``): the map at patch i's place
    shows the cosine of i's position embedding with every patch's (the ViT paper's figure 7, centre). The colour
    range is the largest similarity between two different patches, so each patch's own cell (1) is drawn at its end."""
    count = side * side
    grid = tiling(count, (side, side), max_cols=side)
    board = tile_maps(np.asarray(similarity, dtype=np.float32).reshape(count, side, side), grid, fill=0.0)
    owner = tile_maps(np.repeat(np.arange(1, count + 1), side * side).reshape(count, side, side), grid, fill=0)
    others = similarity[~np.eye(count, dtype=bool)]
    limit = float(max(np.abs(others).max(), 1e-6)) if others.size else 1.0
    trace = go.Heatmap(z=board, zmin=-limit, zmax=limit, zmid=0.0, colorscale=DIVERGING_SCALE, customdata=owner,
                       colorbar=dict(title=dict(text="cosine<br>(own: 1)"), thickness=14),
                       hovertemplate="map of patch %{customdata}<br>cosine %{z:.2f}<extra></extra>")
    axis = dict(showticklabels=False, showgrid=False, zeroline=False)
    return styled_figure([trace], title, 560, shapes=gap_shapes(grid),
                         xaxis={**axis, "range": [-0.5, grid.shape[1] - 0.5], "constrain": "domain",
                                "title_text": "patch column →"},
                         yaxis={**axis, "range": [grid.shape[0] - 0.5, -0.5], "scaleanchor": "x",
                                "constrain": "domain", "title_text": "patch row ↓"})


def attention_distance_figure(distance: np.ndarray, title: str, reference: float) -> go.Figure:
    """Mean attention distance ``[L, H]`` in pixels: a point a head, layers across; ``reference`` (the mean
    distance between two patches) as a dotted line."""
    layers, heads = distance.shape
    traces = [go.Scatter(x=np.arange(1, layers + 1) + (h - (heads - 1) / 2) * 0.06, y=distance[:, h],
                         mode="markers", name=f"head {h + 1}", marker=dict(size=13, color=head_color(h)),
                         hovertemplate=f"layer %{{x:.0f}} · head {h + 1}<br>%{{y:.2f}} pixels<extra></extra>")
              for h in range(heads)]
    fig = styled_figure(traces, title, 420,
                        xaxis=dict(title_text="layer", tickmode="array", tickvals=list(range(1, layers + 1)),
                                   range=[0.5, layers + 0.5]),
                        yaxis=dict(title_text="mean attention distance (pixels)", rangemode="tozero"),
                        legend=dict(orientation="h", y=-0.2, x=0))
    fig.add_hline(y=reference, line=dict(color="#555555", dash="dot"),
                  annotation_text=f"uniform attention: {reference:.2f}", annotation_position="top left")
    return fig


def patch_filters_figure(components: np.ndarray, explained: np.ndarray, title: str, columns: int = 4) -> go.Figure:
    """The leading principal components ``[k, 1, p, p]`` of the patch embedding's filters, each a small
    image on the diverging scale titled with the share of variance it explains, ``columns`` a row."""
    count = len(components)
    columns = max(1, min(columns, count))
    rows = -(-count // columns)
    fig = make_subplots(rows=rows, cols=columns, horizontal_spacing=0.06, vertical_spacing=0.5 / max(rows, 2),
                        subplot_titles=[f"PC {k + 1}: {explained[k]:.0%}" for k in range(count)])
    limit = float(max(np.abs(components).max(), 1e-6))
    side = components.shape[-1]
    for k in range(count):
        row, column = divmod(k, columns)
        fig.add_trace(go.Heatmap(z=components[k, 0], zmin=-limit, zmax=limit, zmid=0.0, colorscale=DIVERGING_SCALE,
                                 showscale=k == 0, colorbar=dict(title=dict(text="weight"), thickness=14),
                                 hovertemplate="row %{y}, column %{x}<br>%{z:.3f}<extra></extra>"),
                      row=row + 1, col=column + 1)
        fig.update_yaxes(scaleanchor=f"x{'' if k == 0 else k + 1}", row=row + 1, col=column + 1)
    axis = dict(showticklabels=False, showgrid=False, zeroline=False)
    fig.update_xaxes(**axis, range=[-0.5, side - 0.5], constrain="domain")
    fig.update_yaxes(**axis, range=[side - 0.5, -0.5], constrain="domain")
    height = int(110 + rows * 1000 / (columns + 1))
    fig.update_layout(template=LAB_TEMPLATE, title=dict(text=title, x=0.0), height=height,
                      margin=dict(l=10, r=70, t=90, b=10), paper_bgcolor="white", plot_bgcolor="white")
    fig.update_annotations(font_size=15)
    return fig


def weights_heatmap(values: np.ndarray, title: str) -> go.Figure:
    """A plain ``[R, C]`` attention map (e.g. rollout) on the sequential scale, tokens [CLS], 1, 2, ..."""
    labels = ["CLS", *[str(i) for i in range(1, values.shape[-1])]]
    trace = go.Heatmap(z=np.asarray(values, dtype=np.float32), x=labels, y=labels, colorscale=ATTENTION_SCALE,
                       zmin=0.0, colorbar=dict(title=dict(text="weight"), thickness=14),
                       hovertemplate="query %{y} · key %{x}<br>weight %{z:.3f}<extra></extra>")
    return styled_figure([trace], title, 520, xaxis=dict(title_text="key (patch)", type="category"),
                         yaxis=dict(title_text="query", type="category", autorange="reversed"))
