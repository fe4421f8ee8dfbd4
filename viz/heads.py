"""Several heads in one figure: a layer's heads as a grid, and two maps compared with their difference.

Axes are categorical over unique token labels (a repeated word gets an invisible
zero-width suffix), so the hover names the query and key tokens without a text
array per cell, a repeated word stays its own row, and "2019" stays a label.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .labels import ZERO_WIDTH, label_px, unique_labels
from .masking import allowed_cells, hide_masked, masked_overlay
from .style import ATTENTION_SCALE, DIVERGING_SCALE, base_layout, projector_fonts
from .tiles import tiling

HOVER = "query %{y}<br>key %{x}<br>weight %{z:.3f}<extra></extra>"


def _category_axes(fig: go.Figure, length: int) -> None:
    """Token axes sized for a projector: dark 14 px labels, every token labelled, up to 24 tokens;
    smaller labels, thinned by Plotly where they would collide, for longer sentences. Colour bar,
    legend and panel titles get the projector fonts of ``viz.style.projector_fonts``."""
    projector_fonts(fig)
    tick_size = 14 if length <= 24 else 11 if length <= 40 else 9
    every = dict(dtick=1) if length <= 24 else {}
    fig.update_xaxes(type="category", tickangle=-60, tickfont=dict(size=tick_size), showgrid=False, **every)
    fig.update_yaxes(type="category", autorange="reversed", tickfont=dict(size=tick_size), showgrid=False, **every)
    # Fixed margins sized to the longest label instead of automargin: the browser lays the figure out once.
    labels = [str(t).rstrip(ZERO_WIDTH) for trace in fig.data for t in (trace.y if trace.y is not None else ())]
    longest = label_px(labels, tick_size)
    fig.update_xaxes(automargin=False)
    fig.update_yaxes(automargin=False)
    fig.update_layout(margin=dict(l=int(16 + longest), b=int(16 + 0.87 * longest + 0.5 * tick_size)))


def head_grid_figure(weights: np.ndarray, tokens: Sequence[str], title: str,
                     mask: np.ndarray | None = None, columns: int = 4) -> go.Figure:
    """Every head of one layer, ``weights`` ``[H, T, T]``: one heatmap trace per head, one figure.

    Trace h is head h (rows = queries, top first; columns = keys) on a shared 0..1
    attention colour axis; cells where ``mask`` ``[T, T]`` is False are grey.
    """
    heads, length = weights.shape[0], weights.shape[-1]
    grid = tiling(heads, weights.shape[1:], columns)  # the tiler's placement: head h at (h // C, h % C)
    rows, cols = grid.rows, grid.cols
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=[f"head {h + 1}" for h in range(heads)],
                        horizontal_spacing=0.03 + 0.05 / cols, vertical_spacing=0.12 / rows)
    labels = unique_labels(tokens)
    allowed = allowed_cells(mask, weights.shape[1:])
    for h in range(heads):
        row, col = (place + 1 for place in grid.place(h))
        fig.add_trace(go.Heatmap(z=hide_masked(weights[h], allowed), x=labels, y=labels,
                                 coloraxis="coloraxis", hovertemplate=f"head {h + 1}<br>" + HOVER,
                                 name=f"head {h + 1}"), row=row, col=col)
        if mask is not None:
            fig.add_trace(masked_overlay(allowed, x=labels, y=labels), row=row, col=col)
    panel = int(min(420, max(230, 110 + 13 * length)))
    base_layout(fig, title, 70 + rows * panel)
    fig.update_layout(coloraxis=dict(colorscale=ATTENTION_SCALE, cmin=0.0, cmax=1.0,
                                     colorbar=dict(title=dict(text="weight"), thickness=14)))
    _category_axes(fig, length)
    for col in range(2, cols + 1):  # query labels on the first column only, so panels do not overlap
        fig.update_yaxes(showticklabels=False, col=col)
    for h in range(heads - cols):  # key labels only under the lowest panel of each column
        row, col = (place + 1 for place in grid.place(h))
        fig.update_xaxes(showticklabels=False, row=row, col=col)
    return fig


def compare_figure(first: np.ndarray, second: np.ndarray, tokens_first: Sequence[str],
                   tokens_second: Sequence[str], name_first: str, name_second: str, title: str,
                   causal: bool = False) -> go.Figure:
    """Two attention maps ``[T, T]`` side by side and, when their shapes match, ``first - second``.

    The maps use the 0..1 attention scale; the difference a diverging scale
    symmetric around 0 (red: more weight in the first, blue: in the second). ``causal``: the
    cells above the diagonal are masked in all three panels (the grey overlay, not a 0).
    """
    same = first.shape == second.shape
    names = [name_first, name_second] + (["difference: first − second"] if same else [])
    shared = list(tokens_first) == list(tokens_second)  # same queries: label the rows once, at the left
    fig = make_subplots(rows=1, cols=len(names), subplot_titles=names, horizontal_spacing=0.04 if shared else 0.12)
    panels = [(first, tokens_first), (second, tokens_second)]
    allowed = [allowed_cells(np.tril(np.ones(m.shape, dtype=bool)) if causal else None, m.shape) for m in (first, second)]
    for col, (matrix, tokens) in enumerate(panels, start=1):
        labels = unique_labels(tokens)
        fig.add_trace(go.Heatmap(z=hide_masked(matrix, allowed[col - 1]), x=labels, y=labels, coloraxis="coloraxis",
                                 hovertemplate=HOVER, name=names[col - 1]), row=1, col=col)
        if causal:
            fig.add_trace(masked_overlay(allowed[col - 1], x=labels, y=labels), row=1, col=col)
    if same:
        diff = hide_masked(np.asarray(first, dtype=np.float32) - np.asarray(second, dtype=np.float32), allowed[0])
        limit = float(np.abs(diff).max()) or 1.0
        labels = unique_labels(tokens_first) if shared else \
            [f"{i}" for i in range(first.shape[0])]
        fig.add_trace(go.Heatmap(z=diff, x=labels, y=labels, coloraxis="coloraxis2", name="difference",
                                 hovertemplate="query %{y}<br>key %{x}<br>difference %{z:.3f}<extra></extra>"),
                      row=1, col=3)
        if causal:
            fig.add_trace(masked_overlay(allowed[0], x=labels, y=labels), row=1, col=3)
        fig.update_layout(coloraxis2=dict(colorscale=DIVERGING_SCALE, cmin=-limit, cmax=limit, cmid=None,
                                          colorbar=dict(title=dict(text="difference"), x=1.01, y=0.0,
                                                        yanchor="bottom", len=0.48, thickness=14)))
    length = max(first.shape[0], second.shape[0])
    base_layout(fig, title, int(min(560, max(330, 130 + 14 * length))))
    fig.update_layout(coloraxis=dict(colorscale=ATTENTION_SCALE, cmin=0.0, cmax=1.0,
                                     colorbar=dict(title=dict(text="weight"), x=1.01, y=1.0, yanchor="top",
                                                   len=0.48 if same else 1.0, thickness=14)))
    _category_axes(fig, length)
    if shared:
        for col in range(2, len(names) + 1):
            fig.update_yaxes(showticklabels=False, col=col)
    return fig
