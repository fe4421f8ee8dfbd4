"""The encoder-decoder page's figures, each from the figure cache (``ui.cache.shared_figure``): the same
inputs return the same figure, built and serialised once and shared read-only."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ui.cache import shared_figure
from viz.encoder_decoder import top_k_bars
from viz.heads import head_grid_figure
from viz.heatmap import matrix_heatmap
from viz.layer_steps import ffn_active_figure, layernorm_figure, residual_norms_figure
from viz.style import projector_fonts


@shared_figure
def attention_figure(
    weights: np.ndarray,
    rows: tuple[str, ...],
    cols: tuple[str, ...],
    title: str,
    head: int | None,
    causal: bool,
    row_name: str,
    col_name: str,
) -> go.Figure:
    """One head's ``[Lq, Lk]`` map (``head`` 0-based) or, with ``head=None``, all heads of
    ``weights [H, Lq, Lk]`` tiled; ``causal`` draws the cells above the diagonal as masked."""
    mask = np.tril(np.ones((len(rows), len(cols)), bool)) if causal else None
    if head is None:
        return head_grid_figure(weights, rows, cols, title, mask=mask, row_name=row_name, col_name=col_name)
    return projector_fonts(
        matrix_heatmap(weights[head], rows, cols, title, mask=mask, row_name=row_name, col_name=col_name)
    )


@shared_figure
def output_figure(labels: tuple[str, ...], probabilities: np.ndarray, title: str, highlight: int | None) -> go.Figure:
    """Top-k bars of one position's next-token distribution."""
    return projector_fonts(top_k_bars(labels, probabilities, title, highlight))


@shared_figure
def norms_figure(stage_names: tuple[str, ...], norms: np.ndarray, tokens: tuple[str, ...], title: str) -> go.Figure:
    """Per-token vector norms ``[S, L]`` along the steps of one layer."""
    return projector_fonts(residual_norms_figure(stage_names, norms, tokens, title))


@shared_figure
def layernorm_stats_figure(
    names: tuple[str, ...],
    before: tuple[np.ndarray, ...],
    after: tuple[np.ndarray, ...],
    tokens: tuple[str, ...],
    title: str,
) -> go.Figure:
    """Mean and std per token before and after each LayerNorm of one layer."""
    return projector_fonts(layernorm_figure(names, before, after, tokens, title))


@shared_figure
def ffn_figure(fractions: np.ndarray, tokens: tuple[str, ...], d_ff: int, title: str) -> go.Figure:
    """Fraction of feed-forward units > 0 per token."""
    return projector_fonts(ffn_active_figure(fractions, tokens, d_ff, title))
