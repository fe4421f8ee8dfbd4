"""The visual conventions shared by every figure (DESIGN.md section 5)."""

from __future__ import annotations

import plotly.graph_objects as go

# One sequential, perceptually uniform scale for attention weights everywhere.
ATTENTION_SCALE = "Viridis"
# Signed values (scores, positional encodings, differences): diverging, centred on 0.
DIVERGING_SCALE = "RdBu_r"
# Masked cells are drawn in this flat grey, never as a colour of the scale.
MASKED_COLOR = "#c8c8c8"
# One colour per head, for figures that overlay heads: 12 distinct (a pretrained layer has 12 heads).
HEAD_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
               "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#0b3d91", "#b8860b")
FONT = dict(family="Source Sans Pro, Arial, sans-serif", size=15, color="#111111")


def head_color(head: int) -> str:
    return HEAD_COLORS[head % len(HEAD_COLORS)]


def base_layout(fig: go.Figure, title: str, height: int = 420) -> go.Figure:
    """Apply the shared font, white background, title and margins."""
    fig.update_layout(title=dict(text=title, x=0.0, xanchor="left", font=dict(size=18)),
                      font=FONT, height=height, paper_bgcolor="white", plot_bgcolor="white",
                      margin=dict(l=10, r=10, t=60, b=10))
    return fig


PROJECTOR_TICK_PX, PROJECTOR_LABEL_PX, PROJECTOR_INK = 14, 15, "#222222"


def projector_fonts(fig: go.Figure) -> go.Figure:
    """Readable on a projector: tick labels 14 px and dark (the app theme's default is 12 px grey),
    axis titles, legend, colour bars and panel labels 15 px. Titles keep their 18 px. Returns ``fig``."""
    ink = dict(color=PROJECTOR_INK)
    axis = dict(tickfont=dict(size=PROJECTOR_TICK_PX, **ink), title_font=dict(size=PROJECTOR_LABEL_PX, **ink))
    fig.update_xaxes(**axis)
    fig.update_yaxes(**axis)
    fig.update_layout(legend=dict(font=dict(size=PROJECTOR_LABEL_PX, **ink)))
    colorbar = dict(tickfont=dict(size=PROJECTOR_TICK_PX, **ink), title=dict(font=dict(size=PROJECTOR_LABEL_PX, **ink)))
    fig.update_traces(colorbar=colorbar, selector=dict(type="heatmap"))
    if any(getattr(trace, "coloraxis", None) for trace in fig.data):
        fig.update_layout(coloraxis_colorbar=colorbar)
    fig.update_annotations(font_size=PROJECTOR_LABEL_PX)
    return fig
