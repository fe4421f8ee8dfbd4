"""Figures of one layer step by step: vector norms along the residual stream, LayerNorm's effect,
feed-forward units firing per token."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .labels import escape, position_axis, token_labels
from .style import HEAD_COLORS, base_layout


def residual_norms_figure(
    stage_names: Sequence[str], norms: np.ndarray, tokens: Sequence[str], title: str
) -> go.Figure:
    """One line per token: ||v||_2 of its vector after each step ``norms [S, L]``, steps along x."""
    norms = np.nan_to_num(np.asarray(norms, np.float32))
    fig = go.Figure()
    steps = np.arange(len(stage_names))
    for i, token in enumerate(tokens):
        label = f"{i}: {escape(token)}"
        fig.add_trace(
            go.Scatter(
                x=steps,
                y=norms[:, i],
                mode="lines+markers",
                name=label,
                line=dict(color=HEAD_COLORS[i % len(HEAD_COLORS)], width=2),
                hovertemplate=f"{label}<br>%{{text}}<br>norm %{{y:.3f}}<extra></extra>",
                text=token_labels(stage_names),
            )
        )
    base_layout(fig, title, 440)
    fig.update_xaxes(tickmode="array", tickvals=list(steps), ticktext=token_labels(stage_names), tickangle=-20)
    fig.update_yaxes(title_text="vector norm ||x||", rangemode="tozero")
    fig.update_layout(legend=dict(title=dict(text="token")))
    return fig


def layernorm_figure(
    names: Sequence[str], before: Sequence[np.ndarray], after: Sequence[np.ndarray], tokens: Sequence[str], title: str
) -> go.Figure:
    """Per token, the mean and standard deviation over its d_model features, before and after
    each LayerNorm (one panel per LayerNorm; ``before``/``after`` are ``[L, d]`` each)."""
    fig = make_subplots(
        rows=1, cols=len(names), subplot_titles=token_labels(names), shared_yaxes=True, horizontal_spacing=0.06
    )
    x = np.arange(len(tokens))
    styles = (
        ("std before", HEAD_COLORS[2], "circle-open"),
        ("std after", HEAD_COLORS[2], "circle"),
        ("mean before", "#1f77b4", "diamond-open"),
        ("mean after", "#1f77b4", "diamond"),
    )
    for col, (a, b) in enumerate(zip(before, after), start=1):
        values = (a.std(-1), b.std(-1), a.mean(-1), b.mean(-1))
        for (name, color, symbol), y in zip(styles, values):
            fig.add_trace(
                go.Scatter(
                    x=x,
                    y=np.nan_to_num(y.astype(np.float32)),
                    mode="markers",
                    name=name,
                    legendgroup=name,
                    showlegend=col == 1,
                    marker=dict(color=color, symbol=symbol, size=11, line=dict(width=2)),
                    text=token_labels(tokens),
                    hovertemplate=f"%{{text}}<br>{name} %{{y:.3f}}<extra></extra>",
                ),
                row=1,
                col=col,
            )
        fig.update_xaxes(**position_axis(tokens, tickangle=-45), row=1, col=col)
    base_layout(fig, title, 420)
    fig.update_yaxes(title_text="over the d_model features", row=1, col=1, zeroline=True, zerolinecolor="#999999")
    return fig


def ffn_active_figure(fractions: np.ndarray, tokens: Sequence[str], d_ff: int, title: str) -> go.Figure:
    """Bars per token: the fraction of the d_ff hidden units with act(x W_1 + b_1) > 0, on an axis from 0 to the
    next 10 % above the largest (a trained model fires few units: 6 % would be a sliver on 0-100 %)."""
    fractions = np.nan_to_num(np.asarray(fractions, np.float32))
    fig = go.Figure(
        go.Bar(
            x=np.arange(len(tokens)),
            y=fractions,
            marker_color="#2ca02c",
            text=token_labels(tokens),
            textposition="none",
            customdata=np.round(fractions * d_ff).astype(np.float32),
            hovertemplate=f"%{{text}}<br>%{{y:.1%}} of units > 0 (%{{customdata:.0f}} of {d_ff})<extra></extra>",
        )
    )
    base_layout(fig, title, 380)
    fig.update_xaxes(**position_axis(tokens, tickangle=-45))
    top = min(1.0, np.ceil(10 * float(fractions.max(initial=0.0)) + 1e-6) / 10)
    fig.update_yaxes(title_text="fraction of units > 0", range=[0, top], tickformat=".0%")
    return fig
