"""Values written on a heatmap's cells, each in black or white: whichever reads better on its own cell.

Plotly writes a heatmap's text in one colour per trace, or picks white or dark grey by a brightness cut of its
own; on the middle of Viridis or of the diverging scale neither keeps WCAG's 4.5:1 for text. Here each cell's
colour is found from the trace's own colour scale, and its text is drawn in the better of black and white, which
is always at least 4.58:1 (``better_ink``). The text is a scatter trace of its own over the heatmap, that the
pointer passes through (the heatmap keeps its hover) and that a chart's text alternative and numbers leave out;
on a screen too narrow for the widest text in its cell, the browser leaves the text out.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.colors
import plotly.graph_objects as go

BLACK, WHITE = "#000000", "#ffffff"


def relative_luminance(rgb: Sequence[float]) -> float:
    """WCAG 2's relative luminance of an sRGB colour (channels 0..255):
    L = 0.2126 R + 0.7152 G + 0.0722 B on linear channels, c = s / 12.92 if s <= 0.04045 else ((s + 0.055) / 1.055)^2.4."""
    s = np.asarray(rgb, dtype=np.float64)[:3] / 255.0
    linear = np.where(s <= 0.04045, s / 12.92, ((s + 0.055) / 1.055) ** 2.4)
    return float(linear @ np.array([0.2126, 0.7152, 0.0722]))


def contrast_ratio(first: Sequence[float], second: Sequence[float]) -> float:
    """WCAG 2's contrast ratio (L_lighter + 0.05) / (L_darker + 0.05), from 1 to 21."""
    lighter, darker = sorted((relative_luminance(first), relative_luminance(second)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def _rgb(colour: str) -> tuple[float, float, float]:
    """'#rrggbb' or 'rgb(r, g, b)' as three channels 0..255."""
    if colour.startswith("#"):
        return plotly.colors.hex_to_rgb(colour)
    return plotly.colors.unlabel_rgb(colour)


def scale_stops(colorscale: str | Sequence) -> tuple[np.ndarray, np.ndarray]:
    """A Plotly colour scale (a name or ``[[stop, colour], ...]``) as its stops ``[S]`` and their colours
    ``[S, 3]`` (channels 0..255). Plotly's own sampler mixes up a scale's repeated stops (its flat bands)."""
    stops = plotly.colors.get_colorscale(colorscale) if isinstance(colorscale, str) else colorscale
    places = np.array([float(stop) for stop, _ in stops])
    return places, np.array([_rgb(colour) for _, colour in stops], dtype=np.float64)


def scale_colour(stops: tuple[np.ndarray, np.ndarray], position: float) -> tuple[float, float, float]:
    """The colour at ``position`` (0..1, clipped) of a scale's ``stops`` (``scale_stops``), interpolated per sRGB
    channel between the two stops around it, as Plotly draws it."""
    places, colours = stops
    t = float(np.clip(position, 0.0, 1.0))
    upper = min(int(np.searchsorted(places, t, side="right")), len(places) - 1)
    lower = max(upper - 1, 0)
    span = places[upper] - places[lower]
    share = 0.0 if span <= 0 else (t - places[lower]) / span
    return tuple(colours[lower] + share * (colours[upper] - colours[lower]))


def better_ink(background: Sequence[float]) -> str:
    """Black or white, whichever has the higher contrast ratio with ``background``: at least 4.58:1 for any colour
    (the two ratios cross where (L + 0.05)^2 = 1.05 x 0.05)."""
    white, black = contrast_ratio((255, 255, 255), background), contrast_ratio((0, 0, 0), background)
    return WHITE if white >= black else BLACK


def cell_text(
    z: np.ndarray,
    text: Sequence[Sequence[str]],
    colorscale: str | Sequence,
    zrange: tuple[float, float],
    size: int,
    x: Sequence | None = None,
    y: Sequence | None = None,
) -> go.Scatter:
    """``text [rows, cols]`` written on the cells of a heatmap of ``z [rows, cols]`` drawn with ``colorscale`` on
    ``zrange``; cells at x[c], y[r] (default: their indices). A cell whose value is not finite gets no text."""
    values = np.asarray(z, dtype=np.float64)
    rows, cols = values.shape
    xs = np.arange(cols) if x is None else np.asarray(x)
    ys = np.arange(rows) if y is None else np.asarray(y)
    low, high = zrange
    width = (high - low) or 1.0
    stops = scale_stops(colorscale)  # read once for every cell
    places, words, inks = [], [], []
    for r in range(rows):
        for c in range(cols):
            if np.isfinite(values[r, c]) and text[r][c] != "":
                places.append((xs[c], ys[r]))
                words.append(text[r][c])
                inks.append(better_ink(scale_colour(stops, (values[r, c] - low) / width)))
    return go.Scatter(
        x=[place[0] for place in places],
        y=[place[1] for place in places],
        text=words,
        mode="text",
        textfont=dict(size=size, color=inks),
        hoverinfo="skip",
        showlegend=False,
        name="values",
        # the heatmap's columns, for the browser's fitting (ui/plotly_fit/ticks.js): the text goes where a cell is
        # too narrow for it, as a heatmap's own does, and it does not count as points along the axis
        meta=dict(cell_columns=cols),
    )
