"""Figures for the word-order demo: two sentences' attention side by side, one word's row compared."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .labels import cell_labels, escape, label_angle, matrix_axes, position_axis, position_label, token_labels
from .style import ATTENTION_SCALE, base_layout, projector_fonts, series_bars


def attention_pair_figure(
    a: np.ndarray, tokens_a: Sequence[str], b: np.ndarray, tokens_b: Sequence[str], title: str, names: Sequence[str]
) -> go.Figure:
    """Two attention maps ``[T, T]`` side by side on one 0..1 colour axis (queries down)."""
    fig = make_subplots(rows=1, cols=2, subplot_titles=token_labels(names), horizontal_spacing=0.12)
    for col, (weights, tokens) in enumerate(((a, tokens_a), (b, tokens_b)), start=1):
        hover = cell_labels(tokens, tokens)
        fig.add_trace(
            go.Heatmap(
                z=np.asarray(weights, dtype=np.float32),
                text=hover,
                coloraxis="coloraxis",
                hovertemplate="%{text}<br>weight %{z:.3f}<extra></extra>",
            ),
            row=1,
            col=col,
        )
        matrix_axes(fig, tokens, tokens, row=1, col=col)
    base_layout(fig, title, 400)
    fig.update_layout(
        coloraxis=dict(
            colorscale=ATTENTION_SCALE, cmin=0.0, cmax=1.0, colorbar=dict(title=dict(text="weight"), thickness=14)
        )
    )
    return projector_fonts(fig)


def word_rows_figure(
    rows_a: Sequence[np.ndarray],
    rows_b: Sequence[np.ndarray],
    key_tokens: Sequence[str],
    word: str,
    schemes: Sequence[str],
    sentence_names: Sequence[str],
    finding: str = "",
) -> go.Figure:
    """One word's attention row in each sentence, keys in sentence A's order, per scheme; ``finding`` ends the title.

    ``rows_a[s]`` and ``rows_b[s]`` are ``[T]`` for scheme s; B's row is reindexed
    so that bar m is the weight on the same token in both sentences.
    """
    fig = make_subplots(
        rows=1, cols=len(schemes), subplot_titles=token_labels(schemes), shared_yaxes=True, horizontal_spacing=0.06
    )
    keys = np.arange(len(key_tokens), dtype=np.float32)
    hover = [position_label("key", j, t) for j, t in enumerate(key_tokens)]  # "key 1: the", from 1
    for col, (row_a, row_b) in enumerate(zip(rows_a, rows_b), start=1):
        for trace, (row, name) in enumerate(((row_a, sentence_names[0]), (row_b, sentence_names[1]))):
            fig.add_trace(
                go.Bar(
                    x=keys,
                    y=np.asarray(row, dtype=np.float32),
                    name=escape(name),
                    marker=series_bars(trace),
                    showlegend=col == 1,
                    legendgroup=str(trace),
                    customdata=hover,
                    hovertemplate="%{customdata}<br>weight %{y:.3f}<extra>" + escape(name) + "</extra>",
                ),
                row=1,
                col=col,
            )
        # words turned together: the legend's place under the panels allows for their height
        fig.update_xaxes(**position_axis(key_tokens), tickangle=label_angle(key_tokens, -45), row=1, col=col)
    base_layout(fig, f"Attention of \u201c{escape(word)}\u201d to each word, in both sentences{finding}", 380)
    fig.update_yaxes(title="weight", range=[0, 1], row=1, col=1)
    fig.update_layout(barmode="group", legend=dict(orientation="h", y=-0.3))
    return projector_fonts(fig)
