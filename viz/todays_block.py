"""Figures of "the road from 2017": grouped bars and lines comparing the 2017 block with today's."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from .style import ACCENT, OTHER_COLOR, styled_figure

# the 2017 choice in grey ("the other one"), today's in the accent ("this one"), on every figure of the section
THEN, NOW = OTHER_COLOR, ACCENT


def _coloured(series: dict[str, Sequence[float]]):
    """(name, values as float64, colour) of each series: the first 2017's grey, the second today's accent."""
    return [
        (name, np.asarray(values, dtype=np.float64), (THEN, NOW)[i % 2])
        for i, (name, values) in enumerate(series.items())
    ]


def grouped_bars(
    categories: Sequence[str],
    series: dict[str, Sequence[float]],
    title: str,
    x_title: str,
    y_title: str,
    value_format: str = ".3f",
) -> go.Figure:
    """Bars of one or more series over ``categories``, side by side; the first series in grey (2017), the second in
    the accent (today), each bar's value written over it where it fits at 10 px, and always in the hover."""
    traces = [
        go.Bar(
            x=list(categories),
            y=values,
            name=name,
            marker_color=colour,
            texttemplate=f"%{{y:{value_format}}}",
            textposition="outside",
            cliponaxis=False,
            hovertemplate=f"{name}<br>%{{x}}: %{{y:{value_format}}}<extra></extra>",
        )
        for name, values, colour in _coloured(series)
    ]
    return styled_figure(
        traces,
        title,
        height=420,
        barmode="group",
        uniformtext=dict(minsize=10, mode="hide"),  # a value that does not fit its bar at 10 px is left to the hover
        xaxis=dict(title=dict(text=x_title), type="category"),
        yaxis=dict(title=dict(text=y_title), zeroline=True),
    )


def layer_lines(layers: Sequence[int], series: dict[str, Sequence[float]], title: str, y_title: str) -> go.Figure:
    """One line per series over the layers (counted from 1): 2017's grey, today's in the accent."""
    traces = [
        go.Scatter(
            x=list(layers),
            y=values,
            name=name,
            mode="lines+markers",
            line=dict(color=colour, width=3),
            hovertemplate=f"{name}<br>layer %{{x}}: %{{y:.3f}}<extra></extra>",
        )
        for name, values, colour in _coloured(series)
    ]
    return styled_figure(
        traces,
        title,
        height=400,
        xaxis=dict(title=dict(text="after layer"), tickmode="array", tickvals=list(layers)),
        yaxis=dict(title=dict(text=y_title), rangemode="tozero"),
    )
