"""The figure of why attention: steps one after another, and the measured time of one layer, against n."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .labels import log_axis
from .style import ACCENT, ACCENT_TEXT, OTHER_COLOR, OTHER_TEXT, base_layout, projector_fonts

# self-attention is "this one", the recurrence it replaces "the other one"
ATTENTION_COLOR, RECURRENCE_COLOR = ACCENT, OTHER_COLOR
TEXT_COLOR = {ATTENTION_COLOR: ACCENT_TEXT, RECURRENCE_COLOR: OTHER_TEXT}


def _line(
    x: np.ndarray, y: np.ndarray, name: str, color: str, dash: str = "solid", markers: bool = True, hover: str = "%{y}"
) -> go.Scatter:
    return go.Scatter(
        x=x,
        y=y,
        name=name,
        mode="lines+markers" if markers else "lines",
        line=dict(color=color, width=2.5, dash=dash),
        marker=dict(size=9),
        hovertemplate=f"n = %{{x}}<br>{hover}<extra>{name}</extra>",
    )


def attention_cost_figure(
    lengths: np.ndarray,
    recurrence_steps: np.ndarray,
    attention_steps: np.ndarray,
    attention_ms: np.ndarray,
    recurrence_ms: np.ndarray,
    attention_fit: tuple[float, float],
    recurrence_fit: tuple[float, float],
    title: str,
) -> go.Figure:
    """Left: the steps one after another that connect token 1 to token n ``[L]`` (recurrence, attention).
    Right: the measured CPU milliseconds of one layer ``[L]`` each, with the fitted lines t = c n^p drawn from
    ``(p, c)`` (c in ms); both axes logarithmic, so a power law is a straight line of slope p."""
    n = np.asarray(lengths, dtype=np.float64)
    fig = make_subplots(
        rows=1,
        cols=2,
        horizontal_spacing=0.12,
        subplot_titles=(
            "steps one after another, token 1 → token n",
            "CPU time of one layer (ms), best of several runs",
        ),
    )
    # the steps' two lines are named on the plot, at their first point (under the rising recurrence, over the
    # flat attention), and left out of the legend, which then names the times' four lines right under them
    for steps, name, color, hover, place in (
        (recurrence_steps, "recurrence: n − 1 steps", RECURRENCE_COLOR, "%{y} steps", "bottom right"),
        (attention_steps, "self-attention: 1 step", ATTENTION_COLOR, "%{y} step", "top right"),
    ):
        line = _line(n, np.asarray(steps, np.float64), name, color, hover=hover)
        line.update(
            mode="lines+markers+text",
            text=[name] + [""] * (len(n) - 1),
            textposition=place,
            textfont=dict(color=TEXT_COLOR[color]),
            showlegend=False,
        )
        fig.add_trace(line, row=1, col=1)
    dense = np.geomspace(n.min(), n.max(), 24)
    for name, ms, (p, c), color in (
        ("self-attention", attention_ms, attention_fit, ATTENTION_COLOR),
        ("recurrence", recurrence_ms, recurrence_fit, RECURRENCE_COLOR),
    ):
        fig.add_trace(
            _line(n, np.asarray(ms, np.float64), f"{name}: measured", color, "dot", hover="%{y:.2f} ms"), row=1, col=2
        )
        fig.add_trace(
            _line(dense, c * dense**p, f"{name}: fit t ∝ n^{p:.2f}", color, "dash", markers=False, hover="%{y:.2f} ms"),
            row=1,
            col=2,
        )
    fig.update_xaxes(**log_axis(n, exact=True, title_text="sequence length n"))
    steps = np.concatenate([np.ravel(recurrence_steps), np.ravel(attention_steps)])
    fig.update_yaxes(**log_axis(steps, title_text="steps"), row=1, col=1)
    fig.update_yaxes(
        **log_axis(np.concatenate([np.ravel(attention_ms), np.ravel(recurrence_ms)]), title_text="milliseconds"),
        row=1,
        col=2,
    )
    base_layout(fig, title, 420)
    fig.update_layout(legend=dict(orientation="h", y=-0.3))
    return projector_fonts(fig)
