"""Figures of tokenization: one sentence cut several ways, lined up under its characters; the byte-pair merges
learned, in order; and how the sentence's BPE tokens and the vocabulary move with the number of merges.

A way of cutting is a tuple ``(name, labels [P], starts [P], ends [P], kinds [P])``: piece i covers x units
``starts[i]`` to ``ends[i]`` (analysis.tokens lays them out) and is of kind ``kinds[i]`` (``PIECE_KINDS``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .labels import escape
from .style import (
    NEUTRAL,
    PROJECTOR_INK,
    PROJECTOR_LABEL_PX,
    base_layout,
    projector_fonts,
    series_line,
    styled_figure,
)

PIECE_KINDS = ("starts a word", "continues a word", "unknown: not in the vocabulary")
PIECE_COLORS = ("#ffffff", "#dbe8fb", "#f7c6c5")  # as the WordPiece figure: word, continuation, unknown
ROW_PX = 34


def line_starts(breaks: Sequence[int], width: int, line_units: int) -> list[tuple[int, int]]:
    """Lines ``(first unit, end unit)`` of at most ``line_units`` units, each starting at a break (a word longer
    than a line gets one of its own)."""
    lines, start = [], 0
    stops = sorted(b for b in breaks if 0 < b < width) + [width]
    while start < width:
        fitting = [b for b in stops if start < b <= start + line_units]
        end = fitting[-1] if fitting else next(b for b in stops if b > start)
        lines.append((start, end))
        start = end
    return lines or [(0, 0)]


def segmentation_figure(
    ways: Sequence[tuple], breaks: Sequence[int], width: int, line_units: int, title: str, min_text_px: float = 10
) -> go.Figure:
    """The ways of cutting one text, one row each, pieces drawn as boxes over the characters they came from and
    labelled where the label fits at ``min_text_px`` or more (every piece is in the hover). The text wraps into
    lines of ``line_units`` units; each line shows every way again."""
    lines = line_starts(breaks, width, line_units)
    per_line = len(ways) + 1  # a blank row between lines
    traces = {kind: dict(x=[], base=[], y=[], text=[], hover=[]) for kind in range(len(PIECE_KINDS))}
    tickvals, ticktext = [], []
    for number, (start, end) in enumerate(lines):
        for row, (name, labels, starts, ends, kinds) in enumerate(ways):
            y = number * per_line + row
            tickvals.append(y)
            ticktext.append(escape(f"{name} · {len(labels)}"))
            for i, (label, a, b, kind) in enumerate(zip(labels, starts, ends, kinds)):
                if not start <= a < end:
                    continue
                part = traces[kind]
                part["x"].append(max(b - a, 0.4))
                part["base"].append(a - start)
                part["y"].append(y)
                part["text"].append(escape(label))
                part["hover"].append(
                    f"{escape(name)} token {i + 1} of {len(labels)}: {escape(label)}<br>{PIECE_KINDS[kind]}"
                )
    bars = [
        go.Bar(
            x=np.asarray(part["x"], np.float32),
            base=np.asarray(part["base"], np.float32),
            y=np.asarray(part["y"], np.int32),
            orientation="h",
            name=PIECE_KINDS[kind],
            text=part["text"],
            customdata=part["hover"],
            hovertemplate="%{customdata}<extra></extra>",
            width=0.8,
            textposition="inside",
            insidetextanchor="middle",
            textangle=0,
            textfont=dict(size=15, color=PROJECTOR_INK),
            constraintext="inside",
            marker=dict(color=PIECE_COLORS[kind], line=dict(color="#6b7280", width=1)),
        )
        for kind, part in traces.items()
        if part["x"]
    ]
    rows = len(lines) * per_line - 1
    units = max(end - start for start, end in lines)
    return styled_figure(
        bars,
        title,
        110 + ROW_PX * rows,
        barmode="overlay",
        bargap=0,
        uniformtext=dict(minsize=min_text_px, mode="hide"),
        xaxis=dict(visible=False, range=[-0.3, units + 0.3], fixedrange=True),
        yaxis=dict(
            tickmode="array",
            tickvals=tickvals,
            ticktext=ticktext,
            autorange="reversed",
            showgrid=False,
            zeroline=False,
            fixedrange=True,
        ),
        legend=dict(
            orientation="h",
            y=1.0,
            yanchor="bottom",
            x=1,
            xanchor="right",
            font=dict(size=PROJECTOR_LABEL_PX, color=PROJECTOR_INK),
        ),
        margin=dict(l=10, r=10, t=92, b=10),
    )


def merge_label(left: str, right: str) -> str:
    """A merge as read: "th + e</w> → the</w>" (escaped)."""
    return escape(f"{left} + {right} → {left}{right}")


def merges_figure(
    lefts: Sequence[str], rights: Sequence[str], counts: Sequence[int], first: int, total: int, title: str
) -> go.Figure:
    """Merges ``first`` .. ``first + M - 1`` (counted from 1) of ``total``, in order from the top: the pair, the
    new piece, and a bar of how often the pair occurred when it was merged."""
    labels = [merge_label(a, b) for a, b in zip(lefts, rights)]
    numbers = list(range(first, first + len(labels)))
    counts = np.asarray(counts, dtype=np.float32)
    hover = [
        f"merge {n} of {total}: {label}<br>the pair occurred {int(c):,} times"
        for n, label, c in zip(numbers, labels, counts)
    ]
    bar = go.Bar(
        x=counts,
        y=np.arange(len(labels), dtype=np.int32),
        orientation="h",
        marker_color=NEUTRAL,
        text=[f"{int(c):,}" for c in counts],
        textposition="outside",
        cliponaxis=False,
        textangle=0,
        textfont=dict(size=14, color=PROJECTOR_INK),
        customdata=hover,
        hovertemplate="%{customdata}<extra></extra>",
    )
    ticks = [f"{n}. {label}" for n, label in zip(numbers, labels)]
    top = float(counts.max()) if len(counts) else 1.0
    return styled_figure(
        [bar],
        title,
        110 + 26 * max(len(labels), 4),
        xaxis=dict(title=dict(text="pair count"), range=[0, 1.18 * top]),
        yaxis=dict(
            tickmode="array",
            tickvals=list(range(len(labels))),
            ticktext=ticks,
            autorange="reversed",
            showgrid=False,
            zeroline=False,
        ),
        margin=dict(l=10, r=20, t=60, b=10),
        bargap=0.25,
    )


def growth_figure(
    merges: np.ndarray, tokens: np.ndarray, vocabulary: np.ndarray, chosen: int, references: Sequence[tuple[str, int]]
) -> go.Figure:
    """Left: the sentence's BPE tokens after 0 .. K merges (``tokens`` [K + 1]), with the other ways' counts
    (``references``: name, tokens) as flat lines; right: the vocabulary's size [K + 1]. ``chosen`` is marked, and
    the title gives both counts from no merge to it."""
    fig = make_subplots(
        rows=1, cols=2, subplot_titles=("tokens in your sentence", "pieces in the vocabulary"), horizontal_spacing=0.14
    )
    x = np.asarray(merges, dtype=np.float32)
    fig.add_trace(
        go.Scatter(
            x=x,
            y=np.asarray(tokens, np.float32),
            name="BPE",
            mode="lines",
            line_shape="hv",
            line=dict(color=NEUTRAL, width=3),
            hovertemplate="%{x:.0f} merges: %{y:.0f} BPE tokens<extra></extra>",
        ),
        row=1,
        col=1,
    )
    for index, (name, count) in enumerate(references, start=1):
        fig.add_trace(
            go.Scatter(
                x=np.array([x[0], x[-1]], np.float32),
                y=np.array([count, count], np.float32),
                name=f"{name}: {count}",
                mode="lines",
                line=series_line(index, 2),
                hovertemplate=f"{escape(name)}: {count} tokens<extra></extra>",
            ),
            row=1,
            col=1,
        )
    fig.add_trace(
        go.Scatter(
            x=x,
            y=np.asarray(vocabulary, np.float32),
            name="vocabulary",
            mode="lines",
            line=dict(color=NEUTRAL, width=3),
            showlegend=False,
            hovertemplate="%{x:.0f} merges: %{y:.0f} pieces<extra></extra>",
        ),
        row=1,
        col=2,
    )
    for col, values in ((1, tokens), (2, vocabulary)):
        fig.add_trace(
            go.Scatter(
                x=[chosen],
                y=[float(values[chosen])],
                mode="markers",
                showlegend=col == 1,
                name=f"{chosen} merges",
                legendgroup="chosen",
                marker=dict(symbol="circle", size=12, color="black"),
                hovertemplate="%{x:.0f} merges: %{y:.0f}<extra></extra>",
            ),
            row=1,
            col=col,
        )
    tokens, vocabulary = np.asarray(tokens), np.asarray(vocabulary)
    base_layout(
        fig,
        f"As the merges grow: after {chosen}, your sentence {int(tokens[0])} → {int(tokens[chosen])} tokens, "
        f"the vocabulary {int(vocabulary[0])} → {int(vocabulary[chosen])} pieces",
        400,
    )
    fig.update_xaxes(title_text="merges")
    projector_fonts(fig)
    fig.update_layout(legend=dict(orientation="h", y=-0.3, yanchor="top", x=0), margin=dict(b=40))
    return fig
