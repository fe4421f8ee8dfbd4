"""Figures of what a Vision Transformer learned: the position embeddings' similarity, each head's attention
distance by layer and the patch embedding's filters (the ViT paper's figure 7). Patches, layers and heads are
numbered from 1 on screen."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .style import DIVERGING_SCALE, base_layout, head_color, styled_figure
from .tiles import gap_shapes, tile_maps, tiling


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
    trace = go.Heatmap(
        z=board,
        zmin=-limit,
        zmax=limit,
        zmid=0.0,
        colorscale=DIVERGING_SCALE,
        customdata=owner,
        colorbar=dict(title=dict(text="cosine<br>(own: 1)"), thickness=14),
        hovertemplate="map of patch %{customdata}<br>cosine %{z:.2f}<extra></extra>",
    )
    axis = dict(showticklabels=False, showgrid=False, zeroline=False)
    return styled_figure(
        [trace],
        title,
        560,
        shapes=gap_shapes(grid),
        xaxis={**axis, "range": [-0.5, grid.shape[1] - 0.5], "constrain": "domain", "title_text": "patch column →"},
        yaxis={
            **axis,
            "range": [grid.shape[0] - 0.5, -0.5],
            "scaleanchor": "x",
            "constrain": "domain",
            "title_text": "patch row ↓",
        },
    )


def attention_distance_figure(distance: np.ndarray, title: str, reference: float) -> go.Figure:
    """Mean attention distance ``[L, H]`` in pixels: a point a head, layers across; ``reference`` (the mean
    distance between two patches) as a dotted line across the plot, under the points and named in the legend (a
    label on the plot would sit on a head's point); the y axis spans the points and the line, not from 0."""
    layers, heads = distance.shape
    traces = [
        go.Scatter(
            x=np.arange(1, layers + 1) + (h - (heads - 1) / 2) * 0.06,
            y=distance[:, h],
            mode="markers",
            name=f"head {h + 1}",
            marker=dict(size=13, color=head_color(h)),
            hovertemplate=f"layer %{{x:.0f}} · head {h + 1}<br>%{{y:.2f}} pixels<extra></extra>",
        )
        for h in range(heads)
    ]
    uniform = go.Scatter(
        x=[0.5, layers + 0.5],
        y=[reference, reference],
        mode="lines",
        name=f"uniform attention: {reference:.2f}",
        line=dict(color="#555555", dash="dot", width=2),
        hovertemplate=f"uniform attention: {reference:.2f} pixels<extra></extra>",
        legendrank=2000,  # drawn first, under the heads' points; named last
    )
    traces = [uniform, *traces]
    fig = styled_figure(
        traces,
        title,
        420,
        xaxis=dict(
            title_text="layer", tickmode="array", tickvals=list(range(1, layers + 1)), range=[0.5, layers + 0.5]
        ),
        yaxis=dict(title_text="mean attention distance (pixels)"),  # points, not bars: the axis fits their spread
        legend=dict(orientation="h", y=-0.2, x=0),
    )
    return fig


def patch_filters_figure(components: np.ndarray, explained: np.ndarray, title: str, columns: int = 4) -> go.Figure:
    """The leading principal components ``[k, 1, p, p]`` of the patch embedding's filters, each a small
    image on the diverging scale titled with the share of variance it explains, ``columns`` a row."""
    count = len(components)
    columns = max(1, min(columns, count))
    rows = -(-count // columns)
    fig = make_subplots(
        rows=rows,
        cols=columns,
        horizontal_spacing=0.06,
        vertical_spacing=0.5 / max(rows, 2),
        subplot_titles=[f"PC {k + 1}: {explained[k]:.0%}" for k in range(count)],
    )
    limit = float(max(np.abs(components).max(), 1e-6))
    side = components.shape[-1]
    for k in range(count):
        row, column = divmod(k, columns)
        fig.add_trace(
            go.Heatmap(
                z=components[k, 0],
                zmin=-limit,
                zmax=limit,
                zmid=0.0,
                colorscale=DIVERGING_SCALE,
                showscale=k == 0,
                colorbar=dict(title=dict(text="value"), thickness=14),  # "weight" is an attention weight's name
                hovertemplate="row %{y}, column %{x}<br>value %{z:.3f}<extra></extra>",
            ),
            row=row + 1,
            col=column + 1,
        )
        fig.update_yaxes(scaleanchor=f"x{'' if k == 0 else k + 1}", row=row + 1, col=column + 1)
    axis = dict(showticklabels=False, showgrid=False, zeroline=False)
    fig.update_xaxes(**axis, range=[-0.5, side - 0.5], constrain="domain")
    fig.update_yaxes(**axis, range=[side - 0.5, -0.5], constrain="domain")
    base_layout(fig, title, int(110 + rows * 1000 / (columns + 1)))
    fig.update_layout(margin=dict(l=10, r=70, t=90, b=10))
    fig.update_annotations(font_size=15)
    return fig
