"""Figures of the Experiments page: layers x heads grids, before/after bars, per-position bars, the logit lens."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .cell_text import cell_text
from .labels import escape, label_px, position_axis, token_labels
from .style import ACCENT, ATTENTION_SCALE, DIVERGING_SCALE, OTHER_COLOR, base_layout, projector_fonts, styled_figure

BEFORE_COLOR, AFTER_COLOR = OTHER_COLOR, ACCENT
POSITIVE, NEGATIVE = "#b2182b", "#2166ac"  # the two ends of the diverging scale (RdBu): red more, blue less


def head_grid(
    values: np.ndarray,
    title: str,
    value_name: str,
    zrange: tuple[float, float] | None = None,
    marked: Sequence[tuple[int, int]] = (),
) -> go.Figure:
    """A ``[layers, heads]`` grid of signed values (diverging scale centred on 0), each cell printed, so no colour
    bar: the x axis's title names the value.

    Rows are "layer 1".. (top down), columns "head 1"..; ``zrange`` fixes the colour range (default
    symmetric around 0 over the largest magnitude); ``marked`` cells (layer, head; from 0) get a
    black outline, e.g. the heads knocked out.
    """
    layers, heads = values.shape
    values = np.nan_to_num(np.asarray(values, dtype=np.float32))
    limit = float(max(np.abs(values).max(), 1e-6))
    low, high = zrange or (-limit, limit)
    trace = go.Heatmap(
        z=values,
        x=list(range(heads)),
        y=list(range(layers)),
        colorscale=DIVERGING_SCALE,
        zmid=0.0,
        zmin=low,
        zmax=high,
        showscale=False,  # every cell prints its value: a colour bar would say it again
        hovertemplate=f"layer %{{customdata[0]}} · head %{{customdata[1]}}<br>{escape(value_name)} "
        f"%{{z:.3f}}<extra></extra>",
        customdata=np.stack(np.meshgrid(np.arange(1, layers + 1), np.arange(1, heads + 1), indexing="ij"), axis=-1),
    )
    outlines = [
        dict(type="rect", x0=h - 0.5, x1=h + 0.5, y0=layer - 0.5, y1=layer + 0.5, line=dict(color="black", width=3))
        for layer, h in marked
    ]
    printed = cell_text(values, [[f"{v:.2f}" for v in row] for row in values], DIVERGING_SCALE, (low, high), 15)
    return styled_figure(
        [trace, printed],
        title,
        int(150 + 60 * layers),
        shapes=outlines,
        xaxis=dict(
            tickmode="array",
            tickvals=list(range(heads)),
            ticktext=[f"head {h + 1}" for h in range(heads)],
            side="bottom",
            title=dict(text=f"each cell: {escape(value_name)}"),
        ),
        yaxis=dict(
            tickmode="array",
            tickvals=list(range(layers)),
            ticktext=[f"layer {i + 1}" for i in range(layers)],
            autorange="reversed",
        ),
    )


def before_after(
    labels: Sequence[str],
    before: Sequence[float],
    after: Sequence[float],
    title: str,
    value_format: str = ".3f",
    height: int = 320,
    fixed_top: float | None = None,
) -> go.Figure:
    """Grouped bars of measures (``labels``) without and with the intervention, values printed on the bars;
    ``fixed_top`` fixes the top of the axis (1 for an accuracy), otherwise it follows the bars."""
    names = [escape(label) for label in labels]
    traces = [
        go.Bar(
            name=name,
            x=names,
            y=np.asarray(values, dtype=np.float32),
            marker_color=color,
            texttemplate=f"%{{y:{value_format}}}",
            textposition="outside",
            hovertemplate=f"%{{x}}<br>{name} %{{y:{value_format}}}<extra></extra>",
        )
        for name, values, color in (("before", before, BEFORE_COLOR), ("after", after, AFTER_COLOR))
    ]
    top = fixed_top * 1.15 if fixed_top is not None else max([*before, *after, 0.0]) * 1.2 + 1e-6
    return styled_figure(
        traces,
        title,
        height,
        barmode="group",
        yaxis=dict(range=[min([*before, *after, 0.0]) * 1.15, top]),
        legend=dict(orientation="h", y=1.02, yanchor="bottom", x=1.0, xanchor="right"),
    )


def position_bars(
    values: np.ndarray,
    tokens: Sequence[str],
    title: str,
    value_name: str,
    highlight: Sequence[int] = (),
    first: int = 1,
) -> go.Figure:
    """One bar per position over the tokens (labels by position, so a repeated token stays two bars);
    ``highlight`` positions drawn in the accent colour; ``first`` the on-screen position of the first bar
    (bars that start later in a text)."""
    values = np.nan_to_num(np.asarray(values, dtype=np.float32))
    colors = [AFTER_COLOR if i in set(highlight) else BEFORE_COLOR for i in range(len(values))]
    labels = token_labels(tokens)
    numbered = [[i + first, label] for i, label in enumerate(labels)]  # positions count from 1 on screen
    trace = go.Bar(
        x=np.arange(len(values)),
        y=values,
        marker_color=colors,
        customdata=numbered,
        hovertemplate=f"position %{{customdata[0]}} · %{{customdata[1]}}<br>{escape(value_name)} "
        "%{y:.3f}<extra></extra>",
    )
    return styled_figure(
        [trace], title, 340, xaxis=position_axis(tokens, tickangle=-60), yaxis=dict(title_text=escape(value_name))
    )


NARROW_PLOT_PX = 250  # a phone's plot, for the logit lens's rows of positions
LENS_CELL_PAD_PX, LENS_TEXT_PX, LENS_STAGE_PX = 8, 14, 40  # a cell's room around its guess, the guess, a stage's row


def lens_figure(
    probabilities: np.ndarray,
    top_tokens: Sequence[Sequence[str]],
    tokens: Sequence[str],
    stages: Sequence[str],
    title: str,
    narrow: bool = False,
) -> go.Figure:
    """The logit lens: stages down, input positions across; each cell the stage's top next-token guess
    (printed) coloured by its probability (0..1).

    ``narrow`` (a phone): the positions wrap into rows of as many cells as fit ``NARROW_PLOT_PX`` with their
    guesses readable (``lens_rows``), one panel a row, each with its own tokens under it and the stages beside
    it, one colour bar for all; so the guesses stay written in the cells instead of being dropped for lack of room.
    """
    text = [[escape(t) for t in row] for row in top_tokens]
    z = np.asarray(probabilities, dtype=np.float32)
    stage_names = np.array([[escape(s)] * len(tokens) for s in stages], dtype=object)
    hover = "after %{customdata}<br>top guess %{text} · p %{z:.3f}<extra></extra>"
    stage_axis = dict(
        tickmode="array", tickvals=list(range(len(stages))), ticktext=[escape(s) for s in stages], autorange="reversed"
    )
    position_title = "input position (its token)"
    rows = lens_rows(len(tokens), text) if narrow else [(0, len(tokens))]
    if len(rows) == 1:
        trace = go.Heatmap(
            z=z,
            text=text,
            colorscale=ATTENTION_SCALE,
            zmin=0.0,
            zmax=1.0,
            x=np.arange(len(tokens)),
            y=np.arange(len(stages)),
            colorbar=dict(title=dict(text="probability"), thickness=14),
            hovertemplate=hover,
            customdata=stage_names,
        )
        return styled_figure(
            [trace, cell_text(z, text, ATTENTION_SCALE, (0.0, 1.0), LENS_TEXT_PX)],
            title,
            int(170 + 48 * len(stages)),
            xaxis=position_axis(tokens, tickangle=-60, title_text=position_title),
            yaxis=stage_axis,
        )
    block_px, gap_px = LENS_STAGE_PX * len(stages), 44  # a row's cells, and its tokens under it
    height = 60 + 70 + len(rows) * block_px + (len(rows) - 1) * gap_px
    fig = make_subplots(rows=len(rows), cols=1, vertical_spacing=gap_px / (height - 130))
    widest = max(end - start for start, end in rows)
    for r, (start, end) in enumerate(rows):
        fig.add_trace(
            go.Heatmap(
                z=z[:, start:end],
                text=[row[start:end] for row in text],
                coloraxis="coloraxis",
                x=np.arange(start, end),
                y=np.arange(len(stages)),
                hovertemplate=hover,
                customdata=stage_names[:, start:end],
            ),
            row=r + 1,
            col=1,
        )
        last = r == len(rows) - 1
        fig.update_xaxes(
            **position_axis(
                tokens[start:end], starts=(start,), tickangle=-60, title_text=position_title if last else None
            ),
            range=[start - 0.5, start + widest - 0.5],
            row=r + 1,
            col=1,
        )  # every row's cells as wide
        fig.update_yaxes(**stage_axis, showgrid=False, row=r + 1, col=1)
    for r, (start, end) in enumerate(rows):  # after the heatmaps, so that data[r] stays row r's heatmap
        guesses = [row[start:end] for row in text]
        part = cell_text(z[:, start:end], guesses, ATTENTION_SCALE, (0.0, 1.0), LENS_TEXT_PX, x=np.arange(start, end))
        fig.add_trace(part, row=r + 1, col=1)
    base_layout(fig, title, height)
    fig.update_layout(
        coloraxis=dict(
            colorscale=ATTENTION_SCALE, cmin=0.0, cmax=1.0, colorbar=dict(title=dict(text="probability"), thickness=14)
        )
    )
    return projector_fonts(fig)


def lens_rows(count: int, guesses: Sequence[Sequence[str]]) -> list[tuple[int, int]]:
    """The logit lens's rows of positions on a narrow plot, ``(start, end)`` each: as few rows as hold every
    position at a cell wide enough for the widest guess (0.6 em a character at ``LENS_TEXT_PX``, and
    ``LENS_CELL_PAD_PX``) in ``NARROW_PLOT_PX``, the positions shared out evenly."""
    cell = label_px([g for row in guesses for g in row], LENS_TEXT_PX) + LENS_CELL_PAD_PX
    fit = max(1, int(NARROW_PLOT_PX // cell))
    count_rows = -(-count // fit) if count else 1
    per_row = -(-count // count_rows) if count else 1
    return [(start, min(count, start + per_row)) for start in range(0, max(count, 1), per_row)]


def share_bars(
    shares: dict[str, float], title: str, extent: float = 0.0, value_name: str = "share of the logit"
) -> go.Figure:
    """Horizontal bars of signed values by name (e.g. the non-head parts' shares of a logit), on an axis reaching
    at least ``extent`` (e.g. the heads' largest share, so that both charts read on one scale)."""
    names = [escape(name) for name in shares]
    values = np.asarray(list(shares.values()), dtype=np.float32)
    trace = go.Bar(
        x=values,
        y=names,
        orientation="h",
        marker_color=[POSITIVE if v >= 0 else NEGATIVE for v in values],
        texttemplate="%{x:.2f}",
        textposition="outside",
        cliponaxis=False,
        hovertemplate="%{y}: %{x:.3f}<extra></extra>",
    )
    # room past the longest bar, either way, for its value written outside it
    low, high = min(0.0, float(values.min(initial=0.0))), max(float(extent), float(values.max(initial=0.0)))
    pad = 0.35 * max(high - low, 1e-6)
    return styled_figure(
        [trace],
        title,
        int(140 + 40 * len(names)),
        yaxis=dict(autorange="reversed"),
        xaxis=dict(title_text=escape(value_name), range=[low - (pad if low < 0 else 0), high + pad]),
    )


def weight_matrix(matrix: np.ndarray, names: Sequence[str], title: str, max_labels: int = 16) -> go.Figure:
    """A square weight matrix ``[d, d]`` (input dimension down, output dimension across) on the diverging
    scale, each dimension named (``names``), every n-th name shown so that at most ``max_labels`` are."""
    size = len(names)
    step = max(1, -(-size // max_labels))
    shown = list(range(0, size, step))
    labels = [escape(names[i]) for i in shown]
    limit = float(max(np.abs(matrix).max(), 1e-6))
    trace = go.Heatmap(
        z=np.asarray(matrix, dtype=np.float32),
        colorscale=DIVERGING_SCALE,
        zmid=0.0,
        zmin=-limit,
        zmax=limit,
        colorbar=dict(title=dict(text="value"), thickness=14),  # "weight" is an attention weight's name
        customdata=np.array(
            [[f"{escape(names[r])} → {escape(names[c])}" for c in range(size)] for r in range(size)], dtype=object
        ),
        hovertemplate="%{customdata}<br>value %{z:.2f}<extra></extra>",
    )
    axis = dict(tickmode="array", tickvals=shown, ticktext=labels, showgrid=False)
    return styled_figure(
        [trace],
        title,
        520,
        xaxis={**axis, "tickangle": -60, "title_text": "query dimension"},
        yaxis={**axis, "autorange": "reversed", "title_text": "input dimension"},
    )
