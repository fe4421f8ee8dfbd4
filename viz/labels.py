"""The one token-label formatter: user text shown exactly as typed, tokens as labels over positions.

Every tick label, hover label and legend name that holds user text goes through ``escape``
(Plotly reads ``<b>``, ``<br>`` and ``&...;`` as markup). Token axes are integer positions
``0..n-1`` with the tokens as ``ticktext``, so a repeated word stays two rows and a
number-like token ("2024") stays a label instead of turning the axis numeric. What the reader sees
counts from 1 (docs/architecture.md, "Figures": positions, layers and heads count from 1): hovers name the
first token "query 1", and a numbered position axis (``position_ticks``) reads 1..n over the data's 0..n-1.
A tick shows the whole token up to ``LONGEST_LABEL`` characters, a longer one its start and an ellipsis (the hover
names it whole); margins are sized with ``label_px``.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

ZERO_WIDTH = "\u200b"  # appended to a repeated label on a categorical axis; invisible when drawn


def escape(text: str) -> str:
    """Escape Plotly's HTML-like markup (<b>, <br>, &...) so text shows literally."""
    return html.escape(text, quote=False)


def token_labels(tokens: Sequence[str]) -> list[str]:
    """Escaped labels ``[n]``, one per token; a repeated token keeps its own entry (position)."""
    return [escape(t) for t in tokens]


def unique_labels(tokens: Sequence[str]) -> list[str]:
    """Escaped labels ``[n]`` made distinct by appending zero-width spaces to repeats.

    For categorical axes (one category per label): without the suffix Plotly would merge
    two rows of the same word into one.
    """
    seen: set[str] = set()
    labels = []
    for label in token_labels(tokens):
        while label in seen:
            label += ZERO_WIDTH
        seen.add(label)
        labels.append(label)
    return labels


DIMENSION = "dim"  # the name of an axis of vector dimensions: its labels are their own numbers (0 to d - 1)


def position_label(name: str, index: int, token: str) -> str:
    """One hover label: "key 3: the" for ``index`` 2 (``name``, the 0-based ``index`` shown from 1, the escaped
    token). A ``DIMENSION`` axis is not a sequence of positions: its label is its number, "dim 3"; an axis without
    a ``name`` (rows that are heads, named in full) shows the label alone."""
    if not name:
        return escape(token)
    if name == DIMENSION:
        return f"{name} {escape(token)}"
    return f"{name} {index + 1}: {escape(token)}"


def cell_labels(
    row_tokens: Sequence[str], col_tokens: Sequence[str], row_name: str = "query", col_name: str = "key"
) -> np.ndarray:
    """Hover labels of a ``[R, C]`` matrix: cell (i, j) reads "query i+1: tok_i<br>key j+1: tok_j" (from 1).

    Returns an object array ``[len(row_tokens), len(col_tokens)]`` of str.
    """
    rows = [position_label(row_name, i, t) for i, t in enumerate(row_tokens)]
    cols = [position_label(col_name, j, t) for j, t in enumerate(col_tokens)]
    return np.array([[f"{r}<br>{c}" for c in cols] for r in rows], dtype=object).reshape(len(rows), len(cols))


SHORT_LABEL = 2  # characters: a label this short stays level, never turned (the browser thins level labels that
# do not fit, ui/plotly_fit/ticks.js, and the hover names every token)


def label_angle(labels: Sequence[str], angle: float) -> float:
    """The angle of an axis's labels: 0 (level) when half of them or more are at most ``SHORT_LABEL``
    characters (letters, one-character tokens), else ``angle``: an axis of words turns its labels together."""
    short = sum(len(str(label)) <= SHORT_LABEL for label in labels)
    return 0 if 2 * short >= len(labels) else angle


LONGEST_LABEL = 16  # characters of a token written on an axis: a longer one is cut to its start and "…"


def tick_label(token: str) -> str:
    """A token as an axis writes it: escaped, and past ``LONGEST_LABEL`` characters its start and an ellipsis."""
    return escape(token if len(token) <= LONGEST_LABEL else token[: LONGEST_LABEL - 1] + "…")


def position_axis(tokens: Sequence[str], starts: Sequence[int] = (0,), **extra) -> dict:
    """Axis settings: integer positions labelled with the escaped tokens.

    ``starts`` repeats the ``n`` labels at each offset (tiles of a tiled heatmap): tick
    ``s + i`` reads token i. Extra keyword arguments are added to the returned dict; a ``tickangle`` is
    dropped to 0 for an axis of short labels (``label_angle``), and left out for an axis of words: the browser
    writes them level where they fit and turns them where they do not (ui/plotly_fit/ticks.js).
    """
    labels = [tick_label(str(token)) for token in tokens]
    if "tickangle" in extra:
        angle = label_angle(tokens, extra.pop("tickangle"))
        extra = {**extra, "tickangle": 0} if angle == 0 else extra
    values = [int(s) + i for s in starts for i in range(len(labels))]
    return dict(
        tickmode="array", tickvals=values, ticktext=labels * len(starts), showgrid=False, zeroline=False, **extra
    )


NAMED_UP_TO = 40  # cells: an axis naming up to this many writes every name (ui/plotly_fit/names.js)
NAMED_CELL_PX = 13  # px: the narrowest cell whose name is written, a line (1.25 em) of the smallest 10 px text


def position_numbers(count: int, first: int = 1) -> list[str]:
    """The on-screen numbers of ``count`` positions, ``first`` (1) onwards: "1", "2", ... (labels of a
    position axis whose tokens are not drawn, e.g. a mask for n tokens)."""
    return [str(first + i) for i in range(count)]


def position_ticks(count: int, first: int = 1, max_ticks: int = 8, at: int = 0) -> dict:
    """Axis settings for ``count`` numbered positions drawn at data coordinates ``at .. at + count - 1``,
    labelled ``first`` onwards: the first position and then round numbers (1, 10, 20, 30 for 32 positions),
    at most about ``max_ticks`` labels."""
    last = first + count - 1
    step = next(
        (s for s in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000) if count / s <= max_ticks),
        -(-count // max_ticks),
    )
    shown = [first] + [n for n in range((first // step + 1) * step, last + 1, step) if n - first > step / 2]
    return dict(tickmode="array", tickvals=[at + n - first for n in shown], ticktext=[str(n) for n in shown])


def matrix_axes(fig: go.Figure, row_tokens: Sequence[str], col_tokens: Sequence[str], **where) -> go.Figure:
    """Token axes of a ``[rows, cols]`` matrix: keys across (level where they fit, else turned by the browser),
    queries down with the first at the top. ``where`` (``row=``, ``col=``) picks one panel of a subplot grid."""
    fig.update_xaxes(**position_axis(col_tokens, tickangle=-45), **where)
    fig.update_yaxes(**position_axis(row_tokens, autorange="reversed"), **where)
    return fig


def label_px(labels: Sequence[str], font: float) -> float:
    """Estimated pixel width of the longest of the displayed ``labels`` at ``font`` px (0.6 em a
    character; 1 character when there are none), for fixed margins instead of automargin."""
    return 0.6 * font * max((len(label) for label in labels), default=1)


def full_number(value: float) -> str:
    """A tick label written out: 0.5, 2, 1,024, 20,000 (never 2e+04 or a bare leading digit)."""
    if value >= 1 and float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:.6g}" if value >= 1e-4 else f"{value:.1e}"


def log_ticks(values, max_ticks: int = 9) -> tuple[list[float], list[str]]:
    """Ticks for a log axis over the positive, finite ``values``, each labelled in full: the 1-2-5 steps of every
    decade between the smallest and the largest, every decade's 1 alone when that gives more than ``max_ticks``."""
    finite = np.asarray(values, dtype=np.float64).ravel()
    finite = finite[np.isfinite(finite) & (finite > 0)]
    if not finite.size:
        return [], []
    low, high = float(finite.min()), float(finite.max())
    decades = range(int(np.floor(np.log10(low))), int(np.ceil(np.log10(high))) + 1)
    ticks = [m * 10.0**d for d in decades for m in (1, 2, 5) if low / 1.5 <= m * 10.0**d <= high * 1.5]
    if len(ticks) > max_ticks:
        ticks = [10.0**d for d in decades if low / 3 <= 10.0**d <= high * 3]
    if sum(low <= t <= high for t in ticks) < 2:  # a narrow range (3.1 .. 3.3): its ends, to two figures
        ticks = sorted({float(f"{low:.2g}"), float(f"{high:.2g}")} | {t for t in ticks if low <= t <= high})
    ticks = [float(f"{t:.6g}") for t in ticks]
    return ticks, [full_number(t) for t in ticks]


def log_axis(values, exact: bool = False, **extra) -> dict:
    """A logarithmic axis over ``values`` with full-number ticks: the 1-2-5 steps (``log_ticks``), or with
    ``exact`` the values themselves (a few measured lengths: 256, 512, 1,024). ``extra`` adds to it."""
    if exact:
        ticks = sorted({float(v) for v in np.asarray(values, dtype=np.float64).ravel() if np.isfinite(v) and v > 0})
        labels = [full_number(t) for t in ticks]
    else:
        ticks, labels = log_ticks(values)
    return dict(type="log", tickmode="array", tickvals=ticks, ticktext=labels, **extra)


def spread_apart(values, gap: float, low: float = -np.inf, high: float = np.inf) -> np.ndarray:
    """Places for labels beside points at ``values`` (one axis): the closest to them, in the least-squares sense,
    with neighbours at least ``gap`` apart, their order kept, all within [``low``, ``high``].

    With the values sorted, p_i = i·gap + q_i where q is the isotonic (non-decreasing) fit to v_i − i·gap, found by
    pooling adjacent violators (each pool sits at its members' mean), then held within [low, high − (n − 1)·gap]:
    clipping the isotonic fit gives the bounded one. Where the bounds leave too little room, ``low`` wins.
    ``[n]`` in, ``[n]`` out, in the input's order.
    """
    values = np.asarray(values, np.float64)
    order = np.argsort(values, kind="stable")
    shifted = values[order] - gap * np.arange(len(values))
    pools: list[list[float]] = []  # [mean, size] of each pool, left to right
    for value in shifted:
        pools.append([value, 1.0])
        while len(pools) > 1 and pools[-2][0] > pools[-1][0]:
            (mean_b, size_b), (mean_a, size_a) = pools.pop(), pools.pop()
            pools.append([(mean_a * size_a + mean_b * size_b) / (size_a + size_b), size_a + size_b])
    fitted = np.concatenate([np.full(int(size), mean) for mean, size in pools]) if pools else np.zeros(0)
    fitted = np.maximum(np.minimum(fitted, high - gap * (len(values) - 1)), low)
    places = np.empty_like(values)
    places[order] = fitted + gap * np.arange(len(values))
    return places
