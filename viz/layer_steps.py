"""Figures of one layer step by step: vector norms along the residual stream, LayerNorm's effect,
feed-forward units firing per token."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .labels import escape, label_px, position_axis, spread_apart, tick_label, token_labels
from .style import NEUTRAL, base_layout


LABEL_GAP_PX, LABEL_FONT_PX = 18, 14  # the least space between two tokens' names beside their lines, their font
TITLE_AND_STEPS_PX = 160  # of the figure's height: the title's strip above the plot, the turned step names below


def residual_norms_figure(
    stage_names: Sequence[str], norms: np.ndarray, tokens: Sequence[str], title: str
) -> go.Figure:
    """One line per token: ||v||_2 of its vector after each step ``norms [S, L]``, steps along x.

    The tokens are no heads: every line is the neutral grey, named beside its point at the step where the tokens'
    norms differ the most (the largest standard deviation over tokens), where the lines stand apart; the names are
    moved apart (``spread_apart``) to at least ``LABEL_GAP_PX`` on the figure, which grows with the tokens to fit.
    """
    norms = np.nan_to_num(np.asarray(norms, np.float32))
    steps = np.arange(len(stage_names))
    names = [tick_label(token) for token in tokens]
    traces = [
        go.Scatter(
            x=steps,
            y=norms[:, i],
            mode="lines+markers",
            name=f"{i}: {escape(token)}",
            showlegend=False,
            line=dict(color=NEUTRAL, width=1.5),
            marker=dict(color=NEUTRAL, size=6),
            hovertemplate=f"{i}: {escape(token)}<br>%{{text}}<br>norm %{{y:.3f}}<extra></extra>",
            text=token_labels(stage_names),
        )
        for i, token in enumerate(tokens)
    ]
    height = max(440, TITLE_AND_STEPS_PX + 20 + LABEL_GAP_PX * len(tokens))
    top = 1.08 * float(norms.max(initial=0.0)) or 1.0
    gap = LABEL_GAP_PX * top / (height - TITLE_AND_STEPS_PX)  # in the y axis's units
    widest = int(norms.std(axis=1).argmax()) if norms.size else 0
    places = spread_apart(norms[widest] if norms.size else [], gap, low=gap / 2, high=top - gap / 2)
    traces.append(
        go.Scatter(
            x=np.full(len(tokens), widest + 0.1),
            y=places,
            mode="text",
            text=names,
            textposition="middle right",
            textfont=dict(size=LABEL_FONT_PX, color=NEUTRAL),
            cliponaxis=False,
            showlegend=False,
            hoverinfo="skip",
        )
    )
    fig = go.Figure(traces)
    base_layout(fig, title, height)
    fig.update_xaxes(
        tickmode="array",
        tickvals=list(steps),
        ticktext=token_labels(stage_names),
        tickangle=-20,
        range=[-0.25, len(steps) - 1 + 0.2],
    )
    fig.update_yaxes(title_text="vector norm ||x||", range=[0.0, top])
    if widest == len(steps) - 1:  # names right of the last step: the margin holds them
        fig.update_layout(margin=dict(r=int(np.ceil(label_px(names, LABEL_FONT_PX))) + 24))
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
        ("std before", NEUTRAL, "circle-open"),
        ("std after", NEUTRAL, "circle"),
        ("mean before", NEUTRAL, "diamond-open"),
        ("mean after", NEUTRAL, "diamond"),
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
            marker_color=NEUTRAL,
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
