"""Figures of the training page: loss and accuracy over steps, per-head score curves."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .style import HEAD_COLORS, base_layout, head_color, projector_fonts


LEGEND_BAND = 0.2  # the top fifth of the loss panel: no loss reaches it, the legend lies there


def curves_figure(
    steps: Sequence[int],
    train_loss: Sequence[float],
    val_loss: Sequence[float],
    accuracy: Sequence[float],
    target: float | None,
    title: str,
) -> go.Figure:
    """Cross-entropy (train and held-out) and held-out accuracy against the step, with a dotted line at the
    accuracy ``target`` (None: no line, for a task whose target is not an accuracy).

    The legend names the loss panel's two lines inside that panel, in one row at its top left, above the falling
    curves (the panel's top fifth is kept free for it); the accuracy panel's one line is named by the
    panel's title. So the legend stays next to its lines whether the panels are side by side or stacked."""
    x = np.asarray(steps, dtype=np.float32)
    fig = make_subplots(
        rows=1, cols=2, subplot_titles=("loss (cross-entropy, nats)", "held-out accuracy"), horizontal_spacing=0.1
    )
    fig.add_trace(
        go.Scatter(
            x=x,
            y=np.asarray(train_loss, dtype=np.float32),
            name="train loss",
            mode="lines",
            line=dict(color=HEAD_COLORS[0], width=2.5),
        ),
        row=1,
        col=1,
    )
    fig.add_trace(
        go.Scatter(
            x=x,
            y=np.asarray(val_loss, dtype=np.float32),
            name="held-out loss",
            mode="lines",
            line=dict(color=HEAD_COLORS[1], width=2.5, dash="dash"),
        ),
        row=1,
        col=1,
    )
    fig.add_trace(
        go.Scatter(
            x=x,
            y=np.asarray(accuracy, dtype=np.float32),
            name="held-out accuracy",
            mode="lines+markers",
            marker=dict(size=5),
            line=dict(color=HEAD_COLORS[2], width=2.5),
            showlegend=False,
        ),
        row=1,
        col=2,
    )
    if target is not None:
        # its name under the line at the left, where the accuracy starts low: the curve runs below it there
        fig.add_hline(
            y=float(target),
            line=dict(color="grey", dash="dot"),
            row=1,
            col=2,
            annotation_text=f"target {target:.0%}",
            annotation_position="bottom left",
        )
    base_layout(fig, title, 360)
    fig.update_xaxes(title_text="step", showgrid=True, gridcolor="#eeeeee")
    fig.update_yaxes(showgrid=True, gridcolor="#eeeeee")
    fig.update_yaxes(range=[0, 1.02], row=1, col=2)
    losses = np.concatenate([np.asarray(train_loss, np.float64), np.asarray(val_loss, np.float64)])
    losses = losses[np.isfinite(losses)]
    top = float(losses.max()) if losses.size else 1.0
    fig.update_yaxes(range=[0, top / (1 - LEGEND_BAND)], row=1, col=1)
    # at the panel's left edge, which stays the plot's left edge when a phone stacks the panels
    fig.update_layout(
        legend=dict(orientation="h", x=0.0, xanchor="left", y=1.0, yanchor="top", bgcolor="rgba(255,255,255,0.85)")
    )
    return projector_fonts(fig)


def head_scores_figure(steps: Sequence[int], scores: np.ndarray, score_name: str, title: str) -> go.Figure:
    """One line per head: its score (``scores`` ``[N, L, H]`` at each of the N evaluated steps) against the step,
    so a phase change shows as lines jumping up together. Layers and heads are numbered from 1."""
    x = np.asarray(steps, dtype=np.float32)
    n, layers, heads = scores.shape
    fig = go.Figure()
    for layer in range(layers):
        for head in range(heads):
            fig.add_trace(
                go.Scatter(
                    x=x,
                    y=scores[:, layer, head].astype(np.float32),
                    mode="lines",
                    name=f"layer {layer + 1} · head {head + 1}",
                    line=dict(
                        color=head_color(layer * heads + head),
                        width=2.5,
                        dash="solid" if layer == layers - 1 else "dot",
                    ),
                    hovertemplate="step %{x}<br>%{y:.2f}<extra>%{fullData.name}</extra>",
                )
            )
    base_layout(fig, title, 360)
    fig.update_xaxes(title_text="step", showgrid=True, gridcolor="#eeeeee")
    fig.update_yaxes(title_text=score_name, range=[0, 1.02], showgrid=True, gridcolor="#eeeeee")
    return projector_fonts(fig)
