"""Figures of the sinusoidal positional encoding (its curves, table, wavelengths, the similarity of two positions
and the shift map), and a signed position-by-position matrix; the relative schemes' are in ``viz.position_schemes``."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .labels import position_ticks
from .margins import (
    COLORBAR_PX,
    NUMERIC_Y_AXIS_PX,
    TITLED_X_AXIS_PX,
    UNTITLED_Y_AXIS_PX,
    legend_below_px,
    reserve_margins,
)
from .masking import allowed_cells, masked_hover, masked_overlay
from .style import ACCENT, DIVERGING_SCALE, NEUTRAL, base_layout, projector_fonts


# The sinusoids' own index: PE[pos] with pos from 0, as in the paper's formula (the Curves, the table and the
# similarity of the sinusoids say so on their axes); every other position axis counts from 1, as the hovers do.
FORMULA_POSITION = "position pos (the formula's, from 0)"


def finite(values: np.ndarray) -> np.ndarray:
    """float32 copy with NaN/inf replaced by 0 (callers mask or explain those cells)."""
    return np.nan_to_num(np.asarray(values, dtype=np.float32), nan=0.0, posinf=0.0, neginf=0.0)


# Values never below 0 (a similarity of positions): a sequential scale over their range, white to dark red (the
# diverging scale's positive half, so that red keeps meaning "more"), not half of a diverging one
ONE_SIGN_SCALE = "Reds"
CURVE_PANEL_PX = 120  # px a pair's panel of the curves, its name above it included


def curves_title(wavelengths: Sequence[float], pairs: Sequence[int]) -> str:
    """What the curves show, from the wavelengths of the pairs drawn: the first pair's against the last's."""
    first, last = wavelengths[0], wavelengths[-1]
    if len(pairs) == 1 or np.isclose(first, last, rtol=1e-6):
        which = f"pair {pairs[0]}" if len(pairs) == 1 else "every pair"
        return f"PE against position: {which} repeats every {first:,.1f} positions"
    pace = "slower" if last > first else "faster"
    return (
        f"PE against position: the higher the pair, the {pace} it turns (pair {pairs[0]} repeats every "
        f"{first:,.1f} positions, pair {pairs[-1]} every {last:,.1f})"
    )


def pe_curves_figure(pe: np.ndarray, dims: Sequence[int], wavelengths: np.ndarray) -> go.Figure:
    """PE[pos, dim] against pos for the chosen dimensions ``pe [P, d_model]``, as small multiples: one panel a pair
    (2i, 2i+1), one above the other on a shared position axis and the same [-1, 1] scale, the sine solid and the
    cosine dashed (one dark colour: the panel, not a hue, tells the pairs apart); each panel is named by its
    dimensions and its wavelength ``wavelengths[i]`` (2*pi*base^(2i/d_model), ``[ceil(d_model/2)]``), so the pairs'
    speeds compare down the column instead of over one another."""
    positions = np.arange(pe.shape[0], dtype=np.float32)
    pairs = sorted({dim // 2 for dim in dims})
    names = []
    for pair in pairs:
        shown = [d for d in (2 * pair, 2 * pair + 1) if d in dims]
        names.append(f"pair {pair} · dim {', '.join(map(str, shown))} · wavelength {wavelengths[pair]:,.1f}")
    fig = make_subplots(
        rows=len(pairs),
        cols=1,
        shared_xaxes=True,
        subplot_titles=names,
        vertical_spacing=min(0.3, 42 / (CURVE_PANEL_PX * len(pairs))),
    )
    for row, pair in enumerate(pairs, start=1):
        for dim in (d for d in sorted(dims) if d // 2 == pair):
            kind = "sin" if dim % 2 == 0 else "cos"
            fig.add_trace(
                go.Scatter(
                    x=positions,
                    y=finite(pe[:, dim]),
                    mode="lines",
                    name=f"dim {dim} ({kind}, pair {pair})",
                    showlegend=False,
                    line=dict(color=NEUTRAL, dash="solid" if kind == "sin" else "dash", width=2.5),
                    hovertemplate=f"dim {dim} ({kind})<br>pos %{{x}}<br>PE %{{y:.3f}}<extra></extra>",
                ),
                row=row,
                col=1,
            )
    height = 150 + CURVE_PANEL_PX * len(pairs)
    base_layout(fig, curves_title([float(wavelengths[pair]) for pair in pairs], pairs), height)
    fig.update_xaxes(showgrid=True, gridcolor="#eeeeee")
    fig.update_xaxes(title=FORMULA_POSITION, row=len(pairs), col=1)
    fig.update_yaxes(
        range=[-1.15, 1.15],
        tickvals=[-1, 0, 1],
        showgrid=True,
        gridcolor="#eeeeee",
        zeroline=True,
        zerolinecolor="#999999",
    )
    reserve_margins(fig, left=UNTITLED_Y_AXIS_PX, bottom=TITLED_X_AXIS_PX)
    return projector_fonts(fig)


def _numbered(count: int, first: int | None) -> tuple[np.ndarray | None, dict]:
    """The coordinates and axis ticks of ``count`` cells: positions numbered from ``first`` (cell i drawn at
    ``first + i``, so the hover's value is the number on screen, with ticks from ``first``); ``None`` for an axis
    that is not one of positions (dimensions: Plotly's own numeric ticks from 0)."""
    if first is None:
        return None, {}
    return np.arange(first, first + count), position_ticks(count, first, at=first)


def _signed_heatmap(
    z: np.ndarray,
    title: str,
    value_name: str,
    x_title: str,
    y_title: str,
    x_name: str,
    y_name: str,
    allowed: np.ndarray | None = None,
    first: tuple[int | None, int | None] = (None, None),
    never_negative: bool = False,
) -> go.Figure:
    """A matrix ``[R, C]``, row 0 at the top, on the diverging scale centred on 0; with ``never_negative`` (a
    quantity that may be of either sign, drawn where it is not: a similarity of positions) values that are all
    at least 0 go on a sequential scale over their own range instead.

    ``allowed`` (bool ``[R, C]``, False = no value) adds the grey ``viz.masking`` overlay
    on those cells and "masked" to their hover. ``first`` (x, y): the number of the first position of an axis
    of positions (1 on screen, 0 for the sinusoids' formula index), None for an axis of dimensions.
    """
    rows, cols = np.shape(z)
    (x_at, x_ticks), (y_at, y_ticks) = _numbered(cols, first[0]), _numbered(rows, first[1])
    at = {name: cells for name, cells in (("x", x_at), ("y", y_at)) if cells is not None}
    masked = allowed is not None and not np.all(allowed)
    hover = dict(text=masked_hover(np.full(np.shape(z), "", dtype=object), allowed)) if masked else {}
    values = finite(z)
    shown = values[allowed] if allowed is not None else values
    low, high = (float(shown.min()), float(shown.max())) if shown.size else (0.0, 0.0)
    one_sign = never_negative and low >= 0 and high > low
    scale = (
        dict(colorscale=ONE_SIGN_SCALE, zmin=low, zmax=high) if one_sign else dict(colorscale=DIVERGING_SCALE, zmid=0.0)
    )
    traces = [
        go.Heatmap(
            z=values,
            **scale,
            colorbar=dict(title=dict(text=value_name), thickness=14),
            hovertemplate=f"{y_name} %{{y}}<br>{x_name} %{{x}}<br>{value_name} %{{z:.3f}}"
            + ("%{text}" if masked else "")
            + "<extra></extra>",
            **at,
            **hover,
        )
    ]
    fig = go.Figure(traces + ([masked_overlay(allowed, **at)] if masked else []))
    base_layout(fig, title, 440)
    fig.update_xaxes(title=x_title, showgrid=False, **({**x_ticks, "tickangle": 0} if x_ticks else {}))
    fig.update_yaxes(title=y_title, autorange="reversed", showgrid=False, **y_ticks)
    reserve_margins(fig, left=NUMERIC_Y_AXIS_PX, right=COLORBAR_PX, bottom=TITLED_X_AXIS_PX)
    return projector_fonts(fig)


def pe_matrix_figure(pe: np.ndarray, title: str, value_name: str = "PE", first: int = 0) -> go.Figure:
    """The whole table ``[P, d_model]`` as a heatmap: positions down, dimensions across (from 0).

    ``first`` 0: the sinusoids' table, rows numbered by the formula's pos (from 0, said on the axis);
    1: a table of rows without a formula (a learned one), positions counted from 1 as everywhere."""
    return _signed_heatmap(
        pe,
        title,
        value_name,
        "dimension",
        FORMULA_POSITION if first == 0 else "position",
        "dim",
        "pos" if first == 0 else "position",
        first=(None, first),
    )


def wavelength_figure(wavelengths: np.ndarray, positions: int, finding: str = "") -> go.Figure:
    """Wavelength 2π · base^(2i/d_model) of each sine/cosine pair i on a log axis, and the number of positions
    shown as a dotted line named in the legend (a label on the plot would lie over the line or the curve);
    ``finding`` ends the title."""
    pairs = np.arange(len(wavelengths), dtype=np.float32)
    shown = f"{positions} positions shown"
    fig = go.Figure(
        [
            go.Scatter(
                x=pairs,
                y=finite(wavelengths),
                mode="lines+markers",
                name="wavelength",
                line=dict(color=NEUTRAL, width=2.5),
                hovertemplate="pair %{x}<br>wavelength %{y:.1f} positions<extra></extra>",
            ),
            go.Scatter(
                x=[0.0, float(max(len(pairs) - 1, 1))],
                y=[float(positions)] * 2,
                mode="lines",
                name=shown,
                line=dict(color=ACCENT, dash="dot", width=2),
                hovertemplate=f"{shown}<extra></extra>",
            ),
        ]
    )
    base_layout(fig, f"Wavelength per pair{finding}", 360)
    fig.update_layout(legend=dict(orientation="h", yanchor="bottom", y=1.0, xanchor="left", x=0.0))
    fig.update_xaxes(title="pair i (dims 2i, 2i+1)")
    top = float(np.log10(max(float(np.max(wavelengths)), float(positions), 10.0))) + 0.3
    fig.update_yaxes(
        title="wavelength (positions)", type="log", range=[0.0, top], dtick=1, showgrid=True, gridcolor="#eeeeee"
    )  # dtick=1: a label per power of ten, none in between
    reserve_margins(fig, left=NUMERIC_Y_AXIS_PX, bottom=TITLED_X_AXIS_PX)
    return projector_fonts(fig)


def similarity_figure(similarity: np.ndarray, title: str, value_name: str = "PE·PE", first: int = 0) -> go.Figure:
    """Position-by-position similarity ``[P, P]`` (diverging and centred on 0 where it has both signs): p down, q across.

    ``first`` 0: the sinusoids' positions p, q as in the formula (from 0, said on the axes); 1: counted from 1."""
    if first == 0:
        return _signed_heatmap(
            similarity,
            title,
            value_name,
            "position q (the formula's, from 0)",
            "position p (the formula's, from 0)",
            "q",
            "p",
            first=(0, 0),
            never_negative=True,
        )
    named = ("position",) * 4  # both axes' titles and both hover names
    return _signed_heatmap(similarity, title, value_name, *named, first=(first, first), never_negative=True)


def distance_profile_figure(offsets: np.ndarray, mean: np.ndarray, low: np.ndarray, high: np.ndarray, finding=""):
    """Similarity PE[p]·PE[p+k] against the offset k: mean with its min-max band over p (``finding`` ends the title).

    A band of zero width means the similarity depends on the offset only.
    """
    x = finite(offsets)
    fig = go.Figure(
        [
            go.Scatter(x=x, y=finite(high), mode="lines", line=dict(width=0), showlegend=False, hoverinfo="skip"),
            go.Scatter(
                x=x,
                y=finite(low),
                mode="lines",
                line=dict(width=0),
                fill="tonexty",
                fillcolor="rgba(51,51,51,0.15)",
                name="min to max over pos",
                hoverinfo="skip",
            ),
            go.Scatter(
                x=x,
                y=finite(mean),
                mode="lines",
                line=dict(color=NEUTRAL, width=2.5),
                name="mean over pos",
                hovertemplate="offset k %{x}<br>PE·PE %{y:.3f}<extra></extra>",
            ),
        ]
    )
    base_layout(fig, "Similarity against distance" + finding, 400)
    fig.update_xaxes(title="offset k", showgrid=True, gridcolor="#eeeeee")
    fig.update_yaxes(title="dot product", showgrid=True, gridcolor="#eeeeee")
    fig.update_layout(legend=dict(orientation="h", yanchor="top", y=-0.3))
    reserve_margins(fig, left=NUMERIC_Y_AXIS_PX, bottom=legend_below_px(2, 0.3, 400, 60))
    return projector_fonts(fig)


def shift_vectors_figure(target: np.ndarray, mapped: np.ndarray, pos: int, offset: int, finding="") -> go.Figure:
    """PE[pos + k] and M_k PE[pos] over the dimensions ``[d_model]``: the two should coincide (``finding`` says)."""
    dims = np.arange(len(target), dtype=np.float32)
    fig = go.Figure(
        [
            go.Bar(
                x=dims,
                y=finite(target),
                name=f"PE[{pos + offset}]",
                marker_color=NEUTRAL,
                hovertemplate="dim %{x}<br>%{y:.4f}<extra>PE[pos + k]</extra>",
            ),
            go.Scatter(
                x=dims,
                y=finite(mapped),
                mode="markers",
                name=f"M_{offset} · PE[{pos}]",
                marker=dict(color=ACCENT, size=10, symbol="x"),
                hovertemplate="dim %{x}<br>%{y:.4f}<extra>M_k PE[pos]</extra>",
            ),
        ]
    )
    base_layout(fig, f"PE[{pos} + {offset}] and M_{offset} · PE[{pos}]{finding}", 360)
    fig.update_xaxes(title="dimension")
    fig.update_yaxes(title="value", range=[-1.1, 1.1])
    fig.update_layout(legend=dict(orientation="h", yanchor="top", y=-0.35))
    reserve_margins(fig, left=NUMERIC_Y_AXIS_PX, bottom=legend_below_px(2, 0.35, 360, 60))
    return projector_fonts(fig)


def offset_matrix_figure(
    values: np.ndarray,
    title: str,
    row_name: str = "query position m",
    col_name: str = "key position n",
    value_name: str = "score",
    masked: np.ndarray | None = None,
    first: int | None = 1,
) -> go.Figure:
    """A ``[rows, cols]`` signed matrix (diverging), optional grey cells: positions counted from ``first`` (1),
    or with ``first`` None two axes of dimensions (the shift map M_k, from 0).

    ``masked`` (bool, True = hide) covers cells that have no value (e.g. the lone
    sine column of an odd d_model in the shift map) instead of drawing a number.
    """
    allowed = None if masked is None else ~allowed_cells(masked, np.shape(values))
    return _signed_heatmap(
        values, title, value_name, col_name, row_name, col_name, row_name, allowed, first=(first, first)
    )
