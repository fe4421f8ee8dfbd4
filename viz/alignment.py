"""Figures of a translation's alignment: cross-attention with the written words down and the source words
across, hand-made links outlined, and how far each head agrees with them."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from .cell_text import cell_text
from .heatmap import matrix_heatmap
from .style import ACCENT, ATTENTION_SCALE, OTHER_COLOR, base_layout, series_bars

LINK_NAME = "hand-made link"


def alignment_figure(
    weights: np.ndarray,
    written: Sequence[str],
    read: Sequence[str],
    title: str,
    links: Sequence[tuple[int, int]] = (),
) -> go.Figure:
    """``weights [T, S]``: the step that writes ``written[i]`` (rows, top to bottom) over the source ``read[j]``
    (columns), on the attention scale 0..1. Each (row, column) of ``links`` is outlined in the accent colour
    (a legend names it), so agreement and disagreement with a hand alignment show at a glance."""
    fig = matrix_heatmap(
        np.nan_to_num(np.asarray(weights, np.float32)),
        written,
        read,
        title,
        row_name="writes",
        col_name="reads",
    )
    if links:
        rows, cols = zip(*links)
        fig.add_trace(
            go.Scatter(
                x=list(cols),
                y=list(rows),
                mode="markers",
                marker=dict(symbol="square-open", size=26, color=ACCENT, line=dict(width=3, color=ACCENT)),
                name=LINK_NAME,
                hoverinfo="skip",
                showlegend=True,
            )
        )
        fig.update_layout(legend=dict(orientation="h", yanchor="bottom", y=1.0, xanchor="left", x=0.0))
    return fig


def agreement_figure(scores: np.ndarray, title: str) -> go.Figure:
    """``scores [L, H]`` in 0..1: each head's share of French words whose strongest English word is a hand-made
    link, layers down and heads across (both counted from 1)."""
    layers, heads = scores.shape
    shares = np.nan_to_num(np.asarray(scores, np.float32))
    fig = matrix_heatmap(
        shares,
        [f"layer {i + 1}" for i in range(layers)],
        [f"head {h + 1}" for h in range(heads)],
        title,
        row_name="",
        col_name="",
        value_name="agreement",
        height=int(max(260, 150 + 60 * layers)),
    )
    fig.update_traces(showscale=False, selector=dict(type="heatmap"))  # each cell prints its share
    fig.update_xaxes(title=dict(text="each cell: agreement"))
    return fig.add_trace(cell_text(shares, [[f"{v:.0%}" for v in row] for row in shares], ATTENTION_SCALE, (0, 1), 18))


def quality_bars(
    decoders: Sequence[str], bleu: Sequence[float], chrf: Sequence[float], title: str, before_after: bool = False
) -> go.Figure:
    """Corpus BLEU and chrF (0-100) of each decoding (``decoders``, e.g. greedy and beam search) as grouped bars,
    each bar labelled with its value: neutral, told apart by pattern, or, with ``before_after`` (two decodings, the
    model before and after a change), grey and the accent, as every before and after."""
    if before_after and len(decoders) != 2:
        raise ValueError(f"before and after are two decodings, got {len(decoders)}.")
    markers = [dict(color=OTHER_COLOR), dict(color=ACCENT)] if before_after else None
    fig = go.Figure(
        [
            go.Bar(
                x=["BLEU", "chrF"],
                y=[b, c],
                name=name,
                marker=markers[i] if markers else series_bars(i),
                text=[f"{b:.1f}", f"{c:.1f}"],
                textposition="outside",
                hovertemplate=f"{name}<br>%{{x}} %{{y:.1f}}<extra></extra>",
            )
            for i, (name, b, c) in enumerate(zip(decoders, bleu, chrf))
        ]
    )
    base_layout(fig, title, 360)
    fig.update_yaxes(title_text="score (0-100)", range=[0, 105])
    fig.update_layout(barmode="group", legend=dict(orientation="h", yanchor="bottom", y=1.0, xanchor="left", x=0.0))
    return fig
