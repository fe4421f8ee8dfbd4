"""Figures of the encoder-decoder: output top-k bars (all heads of one attention: ``viz.heads``)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from .labels import position_axis, token_labels
from .style import ACCENT, NEUTRAL, base_layout


def top_k_bars(labels: Sequence[str], probabilities: np.ndarray, title: str, highlight: int | None = None) -> go.Figure:
    """Horizontal bars of the ``k`` most probable tokens, most probable at the top.

    Bar ``highlight`` (an index into ``labels``, e.g. the token the target says
    comes next) is drawn in a contrasting colour.
    """
    probabilities = np.nan_to_num(np.asarray(probabilities, np.float32))
    k = len(labels)
    colors = [ACCENT if i == highlight else NEUTRAL for i in range(k)]
    text = np.array(token_labels(labels), dtype=object)
    fig = go.Figure(
        go.Bar(
            x=probabilities,
            y=np.arange(k),
            orientation="h",
            marker_color=colors,
            text=text,
            hovertemplate="%{text}<br>p = %{x:.4f}<extra></extra>",
            textposition="none",
        )
    )
    base_layout(fig, title, int(max(260, 90 + 28 * k)))
    fig.update_yaxes(**position_axis(list(labels), autorange="reversed"))
    fig.update_xaxes(title_text="probability", rangemode="tozero", tickformat=percent_format(probabilities))
    return fig


def percent_format(probabilities: np.ndarray) -> str:
    """The ticks' percent format for bars up to the largest of ``probabilities``: as many decimals as the tick step
    needs (Plotly's ticks are about a fifth of the range apart: 20 % needs none, 2 % one, 0.2 % two)."""
    top = float(np.max(probabilities, initial=0.0))
    return ".0%" if top >= 0.1 else ".1%" if top >= 0.01 else ".2%" if top >= 0.001 else ".3%"
