"""Figures of the pretrained-model page: WordPiece tokens, head roles, one query's row in every head."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .cell_text import cell_text
from .labels import escape, label_px, position_label, unique_labels
from .tiles import Tiling, wrap_meta
from .style import (
    ATTENTION_SCALE,
    NEUTRAL,
    PROJECTOR_INK,
    PROJECTOR_LABEL_PX,
    base_layout,
    projector_fonts,
    styled_figure,
)

PIECE_KINDS = ("word", "continuation (##)", "special", "unknown [UNK]")
PIECE_COLORS = ("#ffffff", "#dbe8fb", "#d9d9d9", "#f7c6c5")
PIECE_INK = "#111111"
# A head's role fills its cell in the role grid: a role is no head, so light tints that no head, the accent or the
# greys use (most from Paul Tol's "light" scheme), told apart by every vision (tests/test_one_meaning_per_colour.py);
# the cell's number is written over it in dark ink, and the cells stand apart by dark lines between them.
ROLE_FILLS = ("#77aadd", "#aaaa00", "#cceeff", "#eeeebb", "#ffbb77")
NO_ROLE_COLOR = "#8c8c8c"  # a head with no clear role: a mid grey, 3.4:1 on white, darker than the masked cells'


def wordpiece_figure(
    pieces: Sequence[str], ids: Sequence[int], characters: Sequence[str], kinds: Sequence[int], per_row: int = 12
) -> go.Figure:
    """The pieces in reading order, ``per_row`` to a row, coloured by kind (``kinds[i]`` indexes
    ``PIECE_KINDS``), the title counting each kind; hover gives the position, the piece, its id and the characters it covers."""
    count, tally = len(pieces), [list(kinds).count(kind) for kind in range(len(PIECE_KINDS))]
    finding = f": {tally[0]} start a word, {tally[1]} continue one (##), {tally[2]} special" + (
        f", {tally[3]} unknown" if tally[3] else ""
    )
    rows = max(1, -(-count // per_row))
    z = np.full((rows, per_row), np.nan, dtype=np.float32)
    text = np.full((rows, per_row), "", dtype=object)
    hover = np.full((rows, per_row), "", dtype=object)
    for i, (piece, token_id, chars, kind) in enumerate(zip(pieces, ids, characters, kinds)):
        r, c = divmod(i, per_row)
        z[r, c] = kind
        text[r, c] = escape(piece)
        hover[r, c] = f"{position_label('position', i, piece)}<br>id {token_id}<br>{PIECE_KINDS[kind]}" + (
            f"<br>characters “{escape(chars)}”" if chars else ""
        )
    scale = [[k / 3, color] for k, color in enumerate(PIECE_COLORS)]
    heatmap = go.Heatmap(
        z=z,
        text=text,
        customdata=hover,
        texttemplate="%{text}",
        textfont=dict(size=15, color=PIECE_INK),  # every kind's colour is light: dark text on each (4.5:1)
        colorscale=scale,
        zmin=0,
        zmax=3,
        showscale=False,
        xgap=3,
        ygap=3,
        hovertemplate="%{customdata}<extra></extra>",
    )
    legend = [
        go.Scatter(
            x=[None],
            y=[None],
            mode="markers",
            name=PIECE_KINDS[kind],  # a legend of the kinds
            marker=dict(symbol="square", size=14, color=color, line=dict(color="#888", width=1)),
        )
        for kind, color in enumerate(PIECE_COLORS)
    ]
    # each piece is a tile of one cell: a narrow screen wraps the rows to as many pieces as fit (viz.tiles)
    pieces_grid = Tiling(count, 1, 1, per_row, gap=0)
    return styled_figure(
        [heatmap, *legend],
        f"{count} WordPiece tokens, in reading order{finding}",
        110 + 42 * rows,
        xaxis=dict(visible=False),
        yaxis=dict(visible=False, autorange="reversed"),
        meta=wrap_meta(pieces_grid, label_px(pieces, 15) + 12),
        legend=dict(
            orientation="h",
            y=1.02,
            yanchor="bottom",
            x=1,
            xanchor="right",
            font=dict(size=PROJECTOR_LABEL_PX, color=PROJECTOR_INK),
        ),
    )


def role_grid_figure(
    scores: np.ndarray, strongest: np.ndarray, roles: Sequence[str], title: str, standing: np.ndarray | None = None
) -> go.Figure:
    """Layers x heads ``[L, H]`` coloured by each head's role (``strongest`` indexes ``roles``, which may name one
    band more than ``scores`` has roles, drawn grey: heads with no clear role), labelled with that role's score,
    or with ``standing`` ``[L, H]`` when given (how far the head stands out in its strongest role, a z-score,
    signed); hover lists every role's score (``scores`` ``[L, H, R]``)."""
    layers, heads, scored = scores.shape
    colors = [ROLE_FILLS[k % len(ROLE_FILLS)] for k in range(scored)] + [NO_ROLE_COLOR] * (len(roles) - scored)
    n = len(roles)
    scale = [[edge, colors[k]] for k in range(n) for edge in (k / n, (k + 1) / n)]  # one flat band per role
    if standing is None:
        label = np.take_along_axis(scores, strongest[..., None], -1)[..., 0]
    else:
        label = np.nan_to_num(standing)
    pattern = "{:.2f}" if standing is None else "{:+.1f}"
    text = np.array([[pattern.format(label[l, h]) for h in range(heads)] for l in range(layers)], dtype=object)
    extra = (lambda l, h: []) if standing is None else (lambda l, h: [f"stands out by z = {label[l, h]:+.2f}"])
    hover = np.array(
        [
            [
                "<br>".join(
                    [f"layer {l + 1} · head {h + 1}"]
                    + [f"{role}: {scores[l, h, k]:.2f}" for k, role in enumerate(roles[:scored])]
                    + extra(l, h)
                )
                for h in range(heads)
            ]
            for l in range(layers)
        ],
        dtype=object,
    )
    fig = go.Figure(
        go.Heatmap(
            z=(strongest + 0.5) / n,
            text=text,
            customdata=hover,
            colorscale=scale,
            zmin=0,
            zmax=1,
            showscale=False,
            xgap=2,
            ygap=2,
            hovertemplate="%{customdata}<extra></extra>",
            x=[f"head {h + 1}" for h in range(heads)],
            y=[f"layer {l + 1}" for l in range(layers)],
        )
    )
    drawn = set(np.unique(strongest).tolist())
    for k, role in enumerate(roles):  # the legend names the roles the grid draws
        if k not in drawn:
            continue
        fig.add_trace(
            go.Scatter(
                x=[None],
                y=[None],
                mode="markers",
                name=role,
                marker=dict(symbol="square", size=14, color=colors[k], line=dict(color=NEUTRAL, width=1)),
            )
        )
    places = dict(x=[f"head {h + 1}" for h in range(heads)], y=[f"layer {l + 1}" for l in range(layers)])
    fig.add_trace(cell_text((strongest + 0.5) / n, text, scale, (0, 1), 14, **places))
    base_layout(fig, title, 150 + 48 * layers)
    fig.update_layout(plot_bgcolor=NEUTRAL)  # the gaps between the cells: a light tint stands 3:1 against them
    fig.update_yaxes(autorange="reversed")
    # the legend starts below the heads' numbers and the axis title (about 70 px under the plot)
    fig.update_layout(legend=dict(orientation="h", y=-70 / (48 * layers), yanchor="top"))
    return projector_fonts(fig)


def query_rows_figure(
    rows: Sequence[np.ndarray], tokens: Sequence[Sequence[str]], names: Sequence[str], title: str
) -> go.Figure:
    """One query's attention in every head, per sentence: panel s is ``rows[s]`` ``[H, T_s]`` (heads down,
    keys across, 0..1 scale), so "what does *it* attend to, head by head?" reads at a glance."""
    fig = make_subplots(rows=1, cols=len(rows), subplot_titles=list(names), horizontal_spacing=0.06)
    for col, (row, toks) in enumerate(zip(rows, tokens), start=1):
        labels = unique_labels(toks)
        heads = [f"head {h + 1}" for h in range(row.shape[0])]
        fig.add_trace(
            go.Heatmap(
                z=np.asarray(row, dtype=np.float32),
                x=labels,
                y=heads,
                coloraxis="coloraxis",
                hovertemplate="%{y} · key %{x}<br>weight %{z:.3f}<extra></extra>",
            ),
            row=1,
            col=col,
        )
    longest = max((len(t) for t in tokens), default=1)
    base_layout(fig, title, int(170 + 26 * max(r.shape[0] for r in rows)))
    fig.update_layout(
        coloraxis=dict(
            colorscale=ATTENTION_SCALE, cmin=0.0, cmax=1.0, colorbar=dict(title=dict(text="weight"), thickness=14)
        )
    )
    fig.update_xaxes(type="category", tickangle=-60, dtick=1 if longest <= 40 else None)
    fig.update_yaxes(type="category", autorange="reversed")
    projector_fonts(fig)
    bottom = label_px([t for toks in tokens for t in toks], 14)
    fig.update_layout(margin=dict(b=int(20 + 0.87 * bottom), l=80))
    return fig
