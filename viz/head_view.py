"""The head view: queries in a left column, keys in a right column, joined by lines whose
opacity is the attention weight (one colour per head)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from .heatmap import matrix_heatmap
from .labels import label_px, token_labels
from .style import (
    PANEL_NAMES_PX,
    PROJECTOR_INK,
    TITLE_TOP_PX,
    base_layout,
    head_color,
    head_text_color,
    projector_fonts,
)

LEVELS = 10  # opacity is the weight rounded up to a tenth: at most LEVELS line traces per head
MIN_WEIGHT = 0.01  # lines for smaller weights would be invisible; they are not drawn


def opacity_levels(weights: np.ndarray) -> np.ndarray:
    """The opacity level of each line, ``[..., T, T]`` -> int ``[..., T, T]``: the weight rounded up to a tenth, in
    tenths (1..LEVELS), and 0 for a weight under MIN_WEIGHT, whose line is not drawn."""
    weights = np.asarray(weights, dtype=np.float64)
    return np.where(weights >= MIN_WEIGHT, np.ceil(weights * LEVELS), 0).astype(np.int64)


def _segments(weights: np.ndarray, queries: Sequence[int]) -> dict[int, tuple[list, list]]:
    """For one head ``[T, T]``: per opacity level, x/y of the lines query i -> key j (None-separated)."""
    levels: dict[int, tuple[list, list]] = {}
    grid = opacity_levels(weights)
    for i in queries:
        for j in np.flatnonzero(grid[i]):
            level = int(grid[i, j])
            xs, ys = levels.setdefault(level, ([], []))
            xs += [0.0, 1.0, None]
            ys += [int(i), int(j), None]
    return levels


def _label_spacing(length: int) -> tuple[float, int, int]:
    """Pixels per token (22 for short inputs, fewer for long ones, the figure at most ~2500 px tall),
    the label font size, and the step between labelled tokens so that labels never overlap."""
    px = float(min(22.0, max(5.0, 2500.0 / max(length, 1))))
    font = int(min(15, max(10, px - 3))) if length > 32 else 15
    return px, font, max(1, int(np.ceil((font + 2) / px)))


LABEL_GAP_PX = 12  # between a token label and the figure's edge, and the lines' ends
COLUMN_NAME_PX = 15  # the column names' font ("queries", "keys": projector_fonts)
PANEL_GAP = 0.4  # between two heads' panels, in panel widths (a panel runs from its queries at 0 to its keys at 1)
# heads x T x T: a larger view (12 heads of 65 tokens or more) is sent without the hover's grid
HOVER_MAX_LEVELS = 50_000


def lights_on_hover(heads: int, length: int) -> bool:
    """True when a head view of ``heads`` heads over ``length`` tokens carries the hover's grid."""
    return heads * length * length <= HOVER_MAX_LEVELS


def head_view_figure(
    weights: np.ndarray, tokens: Sequence[str], heads: Sequence[int], query: int | None, title: str
) -> go.Figure:
    """Lines from query i (left) to key j (right) with opacity a_ij, for each head in ``heads``.

    ``weights`` ``[H, T, T]`` of one layer. ``query`` None draws every query's lines,
    otherwise only that query's (its label is bold). Several heads are drawn side by side, one panel each
    in its own colour (head k's panel runs from x = k (1 + PANEL_GAP) to one more), so that their lines
    never blend; the queries are named left of the first panel and the keys right of the last, every panel
    holding the tokens in the same rows, in margins as wide as the longest label (px, so that no label is cut
    at any width). Long inputs label every k-th token (and the chosen query) so that labels never overlap;
    hover names every position. Lines are grouped into one trace per (head, opacity
    level): each head has exactly LEVELS line traces (empty where no weight has that level), so that the browser can
    light another query's lines under the pointer in place (``ui/head_view_hover.js``), from what
    ``layout.meta.links`` holds (``hover_links``), for views of up to HOVER_MAX_LEVELS lines.
    """
    length = weights.shape[-1]
    queries = range(length) if query is None else [query]
    stride = 1.0 + PANEL_GAP
    traces, notes = [], []
    for k, h in enumerate(heads):
        segments = _segments(weights[h], queries)
        for level in range(1, LEVELS + 1):
            xs, ys = segments.get(level, ([], []))
            shifted = [x if x is None else x + k * stride for x in xs]
            traces.append(
                go.Scatter(
                    x=shifted,
                    y=ys,
                    mode="lines",
                    opacity=level / LEVELS,
                    hoverinfo="skip",
                    line=dict(color=head_color(h), width=2),
                    name=f"head {h + 1}",
                    showlegend=False,
                )
            )
        if len(heads) > 1:  # each panel named over its middle
            notes.append(
                dict(
                    x=k * stride + 0.5,
                    y=1.0,
                    yref="paper",
                    yshift=4,
                    text=f"head {h + 1}",
                    showarrow=False,
                    yanchor="bottom",
                    font=dict(color=head_text_color(h)),
                )
            )
    right = (len(heads) - 1) * stride + 1.0
    px, font, step = _label_spacing(length)
    labels = [t if i % step == 0 or i == query else "" for i, t in enumerate(token_labels(tokens))]
    left = [f"<b>{t}</b>" if i == query else t for i, t in enumerate(labels)]
    positions = np.arange(length)
    # labels sit outside their column: query text to the left, key text to the right
    for side, x, text, anchor in (("query", 0.0, left, "middle left"), ("key", right, labels, "middle right")):
        column = "queries" if side == "query" else "keys"
        traces.append(
            go.Scatter(
                x=np.full(length, x, dtype=np.float32),
                y=positions,
                mode="text",
                text=text,
                textposition=anchor,
                showlegend=False,
                name=column,
                customdata=[[i + 1, t] for i, t in enumerate(token_labels(tokens))],
                hovertemplate=f"{side} %{{customdata[0]}}: %{{customdata[1]}}<extra></extra>",
                textfont=dict(size=font, color=PROJECTOR_INK),
                cliponaxis=False,
            )
        )
    fig = go.Figure(traces)
    # the column names sit above the first token, below the title: room for them as for a row of panel names
    names_px = PANEL_NAMES_PX * (2 if len(heads) > 1 else 1)
    base_layout(fig, title, int(max(320, 110 + px * length)) + names_px)
    # the token labels lie in the margins either side (drawn past the plot's edge), as wide as the longest shown
    # label (bold for the chosen query) or the column's name over it, and a gap
    shown = [t for i, t in enumerate(tokens) if labels[i]]
    side_px = [
        int(
            max(label_px(shown, font) * (1.1 if query is not None else 1.0), label_px([name], COLUMN_NAME_PX))
            + LABEL_GAP_PX
        )
        for name in ("queries", "keys")
    ]
    fig.update_layout(margin=dict(t=TITLE_TOP_PX + names_px, l=side_px[0], r=side_px[1]))
    fig.update_xaxes(visible=False, range=[-0.03, right + 0.03])
    fig.update_yaxes(visible=False, autorange="reversed")
    above = 4 + (PANEL_NAMES_PX if len(heads) > 1 else 0)  # px over the plot: over the panels' names
    columns = [
        dict(x=x, y=1.0, yref="paper", yshift=above, text=text, showarrow=False, yanchor="bottom", xanchor=anchor)
        for x, text, anchor in ((0.0, "queries", "right"), (right, "keys", "left"))
    ]
    fig.update_layout(hovermode="closest", showlegend=False, annotations=[*columns, *notes])
    if lights_on_hover(len(heads), length):
        fig.update_layout(meta=dict(links=hover_links(weights, heads, labels, token_labels(tokens), len(traces) - 2)))
    return projector_fonts(fig)  # 15 px column names


def hover_links(weights: np.ndarray, heads: Sequence[int], labels: list[str], full: list[str], names: int) -> dict:
    """What the head view's hover needs (``ui/head_view_hover.js``): each drawn head's opacity levels
    ``[len(heads), T, T]`` (``opacity_levels``: the browser draws a lit query's lines by the same rule), each head's
    panel offset on x, the number of levels, the query names as drawn (``labels``, thinned on
    long inputs) with the ``full`` names a lit query shows, and the index of the query names' trace (``names``)."""
    return dict(
        grid=opacity_levels(np.asarray(weights)[list(heads)]).tolist(),
        offsets=[k * (1.0 + PANEL_GAP) for k in range(len(heads))],
        levels=LEVELS,
        labels=labels,
        full=full,
        names=names,
    )


def query_heads_figure(weights: np.ndarray, tokens: Sequence[str], query: int, title: str) -> go.Figure:
    """Where one query looks in every head of a layer: ``weights`` ``[H, T, T]``, drawn as the ``[T, H]`` matrix
    a^h_{query, j} (keys down, heads across, numbered from 1, on the 0..1 attention scale), so the head that links
    the query to a key is the bright cell in that key's row."""
    heads = weights.shape[0]
    fig = matrix_heatmap(
        np.asarray(weights[:, query, :], dtype=np.float32).T,
        list(tokens),
        [str(h + 1) for h in range(heads)],
        title,
        row_name="key",
        col_name="head",
    )
    fig.update_xaxes(title_text="head")
    fig.update_yaxes(title_text=f"key (query: {token_labels([tokens[query]])[0]})")
    fig.update_layout(meta=dict(named_axes=["xaxis"]))  # every head named, as a map's tokens are
    return projector_fonts(fig)
