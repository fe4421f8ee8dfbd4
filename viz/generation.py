"""Figures of the Generate page: the next-token distribution, the beam tree, the cache's size and speed."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from .labels import escape, label_angle, log_axis
from .style import (
    ACCENT,
    ACCENT_TEXT,
    MASKED_COLOR,
    NEUTRAL,
    OTHER_COLOR,
    PROJECTOR_LABEL_PX,
    TITLE_TOP_PX,
    series_line,
    series_marker,
    styled_figure,
)

# Kept tokens are "the other ones", grey (4.7:1 against the black marks of the draw); a token cut by top-k or top-p
# is masked out of the draw; the token drawn is the accent.
KEPT, CUT, CHOSEN = OTHER_COLOR, MASKED_COLOR, ACCENT
# A cut bar is hatched and outlined as a masked cell is, so that it reads against white (3:1) and not by colour alone.
CUT_OUTLINE = "#767676"  # 4.5:1 on white
PRUNED = OTHER_COLOR  # a beam search's branches left behind: "the other one", 3.9:1 on white


BAR_ROW_PX = 22  # a bar of the distribution and the gap to the next: a line for its token's name
DISTRIBUTION_EDGES_PX = 170  # the distribution's title, legend and probability axis


def distribution_bars(
    names: Sequence[str],
    tempered: np.ndarray,
    probabilities: np.ndarray,
    kept: np.ndarray,
    chosen: int | None,
    title: str,
    shown: int = 20,
    measure: str = "softmax(z / τ)",
) -> go.Figure:
    """The ``shown`` most probable tokens of softmax(z/τ) ``[V]`` (τ the temperature) as horizontal bars, the most
    probable at the top, every bar named by its token, and the rest as one bar: kept tokens grey, tokens cut by top-k
    or top-p grey, the chosen one orange (the accent); a second trace marks the renormalised probability each kept
    token is drawn with. ``measure`` names the bars' values in the hover (greedy's are a one-hot distribution, not a
    softmax). The figure is a line (``BAR_ROW_PX``) a bar tall."""
    tempered, probabilities = np.asarray(tempered, np.float32), np.asarray(probabilities, np.float32)
    order = np.argsort(-tempered, kind="stable")[:shown]
    rest = float(max(0.0, 1.0 - tempered[order].sum()))
    labels = [escape(names[i]) for i in order] + [f"the other {max(0, len(tempered) - len(order))}"]
    colors = [CHOSEN if i == chosen else (KEPT if kept[i] else CUT) for i in order] + [CUT]
    heights = np.append(tempered[order], rest).astype(np.float32)
    rank = np.arange(len(labels))
    # the bars' three colours are named where the figure is shown; a legend would show one of them for all
    cut = [colour == CUT for colour in colors]
    bars = go.Bar(
        orientation="h",
        y=rank,
        x=heights,
        marker=dict(
            color=colors,
            pattern=dict(shape=["/" if c else "" for c in cut], fgcolor=CUT_OUTLINE, size=8, solidity=0.25),
            line=dict(color=[CUT_OUTLINE if c else "rgba(0,0,0,0)" for c in cut], width=[1 if c else 0 for c in cut]),
        ),
        name=measure,
        customdata=labels,
        showlegend=False,
        hovertemplate="%{customdata}<br>" + measure + " %{x:.3f}<extra></extra>",
    )
    drawn = go.Scatter(
        y=rank[:-1],
        x=probabilities[order],
        mode="markers",
        name="renormalised, drawn from",
        marker=dict(symbol="line-ns-open", size=BAR_ROW_PX, color="black", line=dict(width=3, color="black")),
        customdata=labels[:-1],
        hovertemplate="%{customdata}<br>drawn with p %{x:.3f}<extra></extra>",
    )
    top = float(max(heights.max(), probabilities[order].max(), 1e-6))
    return styled_figure(
        [bars, drawn],
        title,
        DISTRIBUTION_EDGES_PX + BAR_ROW_PX * len(labels),
        yaxis=dict(tickmode="array", tickvals=rank, ticktext=labels, autorange="reversed"),
        xaxis=dict(range=[0, top * 1.12], title_text="probability"),
        legend=dict(orientation="h", y=1.02, yanchor="bottom", x=1.0, xanchor="right"),
    )


def beam_tree(
    steps: Sequence[int],
    parents: Sequence[int],
    labels: Sequence[str],
    scores: Sequence[float],
    chosen_path: set[int],
    title: str,
) -> go.Figure:
    """The nodes a beam search kept, one column per generated token (counted from 1; ``steps`` from 0), best
    score at the top (rank 1), each joined to its parent; every rank labelled on the y axis. The chosen
    hypothesis's path is drawn strongly, its tokens written beside it; every other node and edge faintly, its
    token in the hover.

    A chosen token is an annotation over its node (under it where the path climbs into or out of the node from
    above), so that the browser keeps only the names of a row that fit side by side on a narrow screen
    (``ui/plotly_fit``: rows of names over columns); every node's hover still names its token. The y range
    leaves room above rank 1 and below the last rank for those names, and neither range cuts a node in half."""
    steps, scores = np.asarray(steps), np.asarray(scores, dtype=np.float64)
    rank = np.zeros(len(steps))
    for step in np.unique(steps):
        members = np.flatnonzero(steps == step)
        rank[members[np.argsort(-scores[members], kind="stable")]] = np.arange(len(members))
    x, y = steps + 1, rank + 1
    count = int(x.max()) if len(x) else 1
    ranks = int(y.max()) if len(y) else 1

    def edges(on_path: bool) -> go.Scatter:
        xs, ys = [], []
        for node, parent in enumerate(parents):
            if parent >= 0 and (node in chosen_path) == on_path:
                xs += [x[parent], x[node], None]
                ys += [y[parent], y[node], None]
        line = dict(color=CHOSEN, width=3) if on_path else dict(color=PRUNED, width=1)
        return go.Scatter(x=xs, y=ys, mode="lines", line=line, hoverinfo="skip", showlegend=False)

    on = np.array([node in chosen_path for node in range(len(steps))], dtype=bool)
    names = np.array([escape(label) for label in labels], dtype=object)
    big = count <= 12  # a long text's nodes are smaller, so that a phone's columns keep them apart

    def nodes(on_path: bool) -> go.Scatter:
        pick = on == on_path
        marker = dict(size=11 if big else 9, color=CHOSEN) if on_path else dict(size=7 if big else 5, color=PRUNED)
        return go.Scatter(
            x=x[pick],
            y=y[pick],
            mode="markers",
            text=names[pick],
            marker=marker,
            cliponaxis=False,
            showlegend=False,
            customdata=np.stack([scores[pick].astype(object), names[pick]], axis=-1),
            hovertemplate="token %{x} · rank %{y}: %{customdata[1]}<br>sum of log p "
            "%{customdata[0]:.2f}<extra></extra>",
        )

    # the chosen path's neighbours of each chosen node: its name goes where the path does not come from above
    above_of = {}
    for node in np.flatnonzero(on):
        linked = [parents[node]] + [child for child, parent in enumerate(parents) if parent == node and on[child]]
        above_of[node] = not any(other >= 0 and y[other] < y[node] for other in linked)
    notes = [
        dict(
            x=float(x[node]),
            y=float(y[node]),
            xref="x",
            yref="y",
            text=names[node],
            showarrow=False,
            yanchor="bottom" if above_of[node] else "top",
            yshift=7 if above_of[node] else -7,
            font=dict(size=PROJECTOR_LABEL_PX, color=ACCENT_TEXT),
        )
        for node in np.flatnonzero(on)
    ]
    height = int(150 + 50 * (ranks + 0.5))
    token_ticks = list(range(1, count + 1))
    last = max((len(str(note["text"])) for note in notes if note["x"] == count), default=1)
    return styled_figure(
        [edges(False), edges(True), nodes(False), nodes(True)],
        title,
        height,
        annotations=notes,
        margin=dict(l=10, r=int(max(10, 0.3 * PROJECTOR_LABEL_PX * last)), t=TITLE_TOP_PX, b=10),
        xaxis=dict(
            title_text="generated token",
            tickmode="array",
            tickvals=token_ticks,
            ticktext=[str(t) for t in token_ticks],
            range=[0.5, count + 0.5],
        ),
        yaxis=dict(
            range=[ranks + RANK_ROOM, 1 - RANK_ROOM],
            title_text="rank at that token",
            tickmode="array",
            tickvals=list(range(1, ranks + 1)),
            ticktext=[str(r) for r in range(1, ranks + 1)],
        ),
    )


RANK_ROOM = 0.75  # of a rank's height, above rank 1 and below the last rank: a chosen token's name fits there


MARKED_POINTS = 60  # lines() marks each point up to this many points per line


def lines(
    x: np.ndarray, series: dict[str, np.ndarray], title: str, x_title: str, y_title: str, log: bool = False
) -> go.Figure:
    """One line per named series over ``x`` (log-log when ``log``), a marker at each point while there are at most
    ``MARKED_POINTS`` of them: past that a marker per point draws nothing the line does not, and costs the browser
    one SVG path each (a thousand steps' markers take 0.3 s to draw)."""
    mode = "lines+markers" if len(x) <= MARKED_POINTS else "lines"
    traces = [
        go.Scatter(
            x=np.asarray(x, np.float64),
            y=np.asarray(values, np.float64),
            mode=mode,
            name=escape(name),
            line=series_line(i, 2),
            marker=series_marker(i),
            hovertemplate=f"{escape(name)}<br>%{{x}}: %{{y:.3g}}<extra></extra>",
        )
        for i, (name, values) in enumerate(series.items())
    ]
    if log:  # log-log, every tick written out in full
        measured = np.unique(np.asarray(x, np.float64))
        xaxis = log_axis(measured, exact=len(measured) <= 8, title_text=x_title)
        yaxis = log_axis(np.concatenate([np.ravel(v) for v in series.values()]), title_text=y_title)
    else:
        xaxis, yaxis = dict(title_text=x_title), dict(title_text=y_title)
    legend = dict(orientation="h", y=1.02, yanchor="bottom", x=1.0, xanchor="right")
    return styled_figure(traces, title, 380, xaxis=xaxis, yaxis=yaxis, legend=legend)


def labelled_bars(
    labels: Sequence[str], values: Sequence[float], title: str, value_name: str, value_format: str = ".2f"
) -> go.Figure:
    """Horizontal bars, one per label, the value printed."""
    trace = go.Bar(
        x=np.asarray(values, np.float64),
        y=[escape(label) for label in labels],
        orientation="h",
        marker_color=KEPT,
        texttemplate=f"%{{x:{value_format}}}",
        textposition="outside",
        hovertemplate=f"%{{y}}<br>{escape(value_name)} %{{x:{value_format}}}<extra></extra>",
    )
    top = float(max([*values, 0.0]))
    return styled_figure(
        [trace],
        title,
        int(150 + 42 * len(labels)),
        yaxis=dict(autorange="reversed"),
        xaxis=dict(title_text=escape(value_name), range=[0, top * 1.3 + 1e-9]),
    )


BOTH_SIDES, LEFT_ONLY = NEUTRAL, OTHER_COLOR  # the masked model (both sides) and the next-token model (left only)


def blank_bars(
    names: Sequence[str], both: np.ndarray, left: np.ndarray, hidden: int, title: str, shown: int = 8
) -> go.Figure:
    """The two models' guesses for one hidden token, side by side: the ``shown`` symbols most probable to either
    model (the hidden symbol always among them, its name marked "(hidden)"), a bar for each model."""
    both, left = np.asarray(both, np.float32), np.asarray(left, np.float32)
    order = [int(i) for i in np.argsort(-np.maximum(both, left), kind="stable")[:shown]]
    if hidden not in order:
        order[-1] = hidden
    labels = [escape(names[i]) + (" (hidden)" if i == hidden else "") for i in order]
    traces = [
        go.Bar(
            x=labels,
            y=values[order],
            name=name,
            marker_color=color,
            hovertemplate=f"%{{x}}<br>{name}: p %{{y:.3f}}<extra></extra>",
        )
        for name, values, color in (
            ("both sides (masked model)", both, BOTH_SIDES),
            ("left only (next-token model)", left, LEFT_ONLY),
        )
    ]
    top = float(max(both[order].max(), left[order].max(), 1e-6))
    return styled_figure(
        traces,
        title,
        380,
        barmode="group",
        xaxis=dict(tickangle=label_angle(labels, -45)),
        yaxis=dict(range=[0, top * 1.12], title_text="probability"),
        legend=dict(orientation="h", y=1.02, yanchor="bottom", x=1.0, xanchor="right"),
    )


def blank_loss_bars(both: np.ndarray, left: np.ndarray, tokens: Sequence[str], title: str) -> go.Figure:
    """Each token's −log p hidden from both sides (``both [L]``) and from its left only (``left [L - 1]``, tokens
    2..L), grouped by position (counted from 1), the token written under its position."""
    both, left = np.asarray(both, np.float32), np.asarray(left, np.float32)
    x = np.arange(len(both))
    labels = [escape(t) for t in tokens]
    numbered = [[i + 1, label] for i, label in enumerate(labels)]
    traces = [
        go.Bar(
            x=x[start:],
            y=values,
            name=name,
            marker_color=color,
            customdata=numbered[start:],
            hovertemplate=f"position %{{customdata[0]}} · %{{customdata[1]}}<br>{name}: −log p "
            "%{y:.2f}<extra></extra>",
        )
        for name, values, color, start in (
            ("both sides (masked model)", both, BOTH_SIDES, 0),
            ("left only (next-token model)", left, LEFT_ONLY, 1),
        )
    ]
    return styled_figure(
        traces,
        title,
        360,
        barmode="group",
        xaxis=dict(
            tickmode="array",
            tickvals=x,
            ticktext=labels,
            tickangle=label_angle(labels, -60),
            title_text="token (position from 1)",
        ),
        yaxis=dict(title_text="−log p", rangemode="tozero"),
        legend=dict(orientation="h", y=1.02, yanchor="bottom", x=1.0, xanchor="right"),
    )
