"""Figures of the training page: loss and accuracy over steps, per-head score curves."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .style import NEUTRAL, head_color, styled_figure, styled_grid


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
    lines = [
        go.Scatter(
            x=x,
            y=np.asarray(train_loss, dtype=np.float32),
            name="train loss",
            mode="lines",
            line=dict(color=NEUTRAL, width=2.5),
        ),
        go.Scatter(
            x=x,
            y=np.asarray(val_loss, dtype=np.float32),
            name="held-out loss",
            mode="lines",
            line=dict(color=NEUTRAL, width=2.5, dash="dash"),
        ),
        go.Scatter(
            x=x,
            y=np.asarray(accuracy, dtype=np.float32),
            name="held-out accuracy",
            mode="lines+markers",
            marker=dict(size=5),
            line=dict(color=NEUTRAL, width=2.5),
            showlegend=False,
        ),
    ]
    fig.add_traces(lines, rows=[1, 1, 1], cols=[1, 1, 2])
    losses = np.concatenate([np.asarray(train_loss, np.float64), np.asarray(val_loss, np.float64)])
    losses = losses[np.isfinite(losses)]
    top = float(losses.max()) if losses.size else 1.0
    grid = dict(showgrid=True, gridcolor="#eeeeee")
    target_line = {}
    if target is not None:
        # across the accuracy panel; its name under the line at the left, where the accuracy starts low: the
        # curve runs below it there
        across = dict(xref="x2 domain", yref="y2")
        target_line = dict(
            shapes=[
                dict(
                    type="line",
                    x0=0,
                    x1=1,
                    y0=float(target),
                    y1=float(target),
                    line=dict(color="grey", dash="dot"),
                    **across,
                )
            ],
            annotations=[
                dict(
                    text=f"target {target:.0%}",
                    x=0,
                    xanchor="left",
                    y=float(target),
                    yanchor="top",
                    showarrow=False,
                    font=dict(size=15),
                    **across,
                )
            ],
        )
    return styled_grid(
        fig,
        title,
        360,
        {
            "xaxis": dict(title_text="step", **grid),
            "xaxis2": dict(title_text="step", **grid),
            "yaxis": dict(range=[0, top / (1 - LEGEND_BAND)], **grid),
            "yaxis2": dict(range=[0, 1.02], **grid),
        },
        # at the loss panel's left edge, which stays the plot's left edge when a phone stacks the panels
        legend=dict(orientation="h", x=0.0, xanchor="left", y=1.0, yanchor="top", bgcolor="rgba(255,255,255,0.85)"),
        **target_line,
    )


def head_scores_figure(steps: Sequence[int], scores: np.ndarray, score_name: str, title: str) -> go.Figure:
    """One line per head: its score (``scores`` ``[N, L, H]`` at each of the N evaluated steps) against the step,
    so a phase change shows as lines jumping up together. Layers and heads are numbered from 1."""
    x = np.asarray(steps, dtype=np.float32)
    n, layers, heads = scores.shape
    lines = [
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
        for layer in range(layers)
        for head in range(heads)
    ]
    grid = dict(showgrid=True, gridcolor="#eeeeee")
    return styled_figure(
        lines,
        title,
        360,
        xaxis=dict(title_text="step", **grid),
        yaxis=dict(title_text=score_name, range=[0, 1.02], **grid),
    )


def accuracy_finding(steps: Sequence[int], accuracy: Sequence[float], target: float) -> str:
    """The curves' finding for an accuracy target: the first evaluated step whose held-out accuracy reaches
    ``target`` ("target 99% reached at step 180"), or where the accuracy stands at the last step."""
    reached = [step for step, value in zip(steps, accuracy) if value >= target]
    if reached:
        return f"target {target:.0%} reached at step {reached[0]}"
    return f"held-out accuracy {accuracy[-1]:.0%} at step {steps[-1]}, target {target:.0%}"


def loss_finding(steps: Sequence[int], val_loss: Sequence[float]) -> str:
    """The curves' finding where the target is not an accuracy: the held-out loss from the first evaluated step to
    the last ("held-out loss 4.12 → 1.87 by step 300")."""
    return f"held-out loss {val_loss[0]:.2f} → {val_loss[-1]:.2f} by step {steps[-1]}"


def jump_finding(steps: Sequence[int], scores: np.ndarray) -> str:
    """The head scores' finding: the largest rise of one head's score between two evaluations next to each other,
    ``scores`` ``[N, L, H]`` at the N evaluated ``steps`` ("layer 2 · head 1 rose 0.05 → 0.93 between steps 140
    and 160"), or the best head's last score when no score rises by 0.01 or more."""
    values = np.asarray(scores, dtype=np.float64)
    rises = np.diff(values, axis=0)  # [N - 1, L, H]
    at, layer, head = np.unravel_index(int(np.argmax(rises)), rises.shape)
    if round(values[at + 1, layer, head], 2) <= round(values[at, layer, head], 2):  # no rise, as the title writes it
        layer, head = np.unravel_index(int(np.argmax(values[-1])), values.shape[1:])
        return f"layer {layer + 1} · head {head + 1} the best, at {values[-1, layer, head]:.2f}"
    before, after = values[at, layer, head], values[at + 1, layer, head]
    return (
        f"layer {layer + 1} · head {head + 1} rose {before:.2f} → {after:.2f} between steps "
        f"{steps[at]} and {steps[at + 1]}"
    )
