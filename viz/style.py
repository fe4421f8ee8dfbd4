"""The visual conventions shared by every figure (docs/architecture.md, "Figures")."""

from __future__ import annotations

import plotly.graph_objects as go

# One sequential, perceptually uniform scale for attention weights everywhere.
ATTENTION_SCALE = "Viridis"
# Signed values (scores, positional encodings, differences): diverging, centred on 0.
DIVERGING_SCALE = "RdBu_r"
# Masked cells are drawn in this grey, hatched in the browser (viz.masking), never as a colour of the scale.
MASKED_COLOR = "#c8c8c8"
# "The other one": the run before a change, the model that reads less, an answer that is not the right one.
OTHER_COLOR = "#7f7f7f"
OTHER_TEXT = "#666666"  # "the other one" for text, which needs 4.5:1: 5.7:1 on white
# A series that is not a head (a loss, a token's norm, a cost, a decoder's scores, bars of one quantity) needs no hue:
# the neutral dark grey, so that the hues keep their one meaning each (heads, the accent, the scales). Several such
# series in one plot are told apart by dash and marker (``series_line``), pattern (``series_bars``), panel or their
# name written at the line's end.
NEUTRAL = "#333333"
SERIES_DASHES = ("solid", "dash", "dot", "dashdot")
SERIES_SYMBOLS = ("circle", "square", "diamond", "triangle-up")
SERIES_PATTERNS = ("", "/", ".", "x")


def series_line(index: int, width: float = 2.5) -> dict:
    """The line of the ``index``-th series that is not a head: neutral, solid, dashed, dotted, dash-dotted."""
    return dict(color=NEUTRAL, width=width, dash=SERIES_DASHES[index % len(SERIES_DASHES)])


def series_marker(index: int, size: int = 8) -> dict:
    """The marker of the ``index``-th series that is not a head: neutral circles, squares, diamonds, triangles."""
    return dict(color=NEUTRAL, size=size, symbol=SERIES_SYMBOLS[index % len(SERIES_SYMBOLS)])


def series_bars(index: int) -> dict:
    """The bars of the ``index``-th series that is not a head, in a group of bars: neutral, the first solid, the
    others outlined and hatched (``/``, dotted, crossed) on white."""
    shape = SERIES_PATTERNS[index % len(SERIES_PATTERNS)]
    pattern = dict(shape=shape, fgcolor=NEUTRAL, bgcolor="white", solidity=0.35) if shape else dict(shape="")
    return dict(color=NEUTRAL, line=dict(color=NEUTRAL, width=1.5), pattern=pattern)


# "This one": the chosen token, the text a beam search returns, a highlighted position, the run after a change.
# Never red, which is the positive half of the diverging scale: a deep orange near Okabe-Ito's vermilion, 3.95:1
# on white (a mark needs 3:1), that stays apart from the diverging reds, the greys and every head colour for
# readers with any of the three colour-vision deficiencies (tests/test_colours.py measures it).
ACCENT = "#dc5400"
ACCENT_TEXT = "#b34700"  # the accent for text, which needs 4.5:1: a darker orange, 5.5:1 on white
# One colour per head, for figures that overlay heads: 12 (a pretrained layer has 12 heads), each at least 3:1
# against white, that stay apart for readers with any of the three colour-vision deficiencies and stay clear of
# the accent, the greys and the diverging scale's red (tests/test_colours.py measures it): blue, violet, wine,
# green, pink, indigo, brown, bright blue, plum, purple, magenta, steel blue (Okabe-Ito's and Tol's, in part).
HEAD_COLORS = (
    "#0072b2",
    "#6030f8",
    "#882255",
    "#009e73",
    "#cc79a7",
    "#332288",
    "#8c564b",
    "#1a85ff",
    "#6f4070",
    "#5f4690",
    "#a05195",
    "#2b8cbe",
)
FONT = dict(family="Source Sans Pro, Arial, sans-serif", size=15, color="#111111")
GRID_COLOR, AXIS_LINE_COLOR = "#e6e9ef", "#c9ced8"

# Every figure's own template, so that charts are sent with ``theme=None``: Streamlit's chart theme
# rewrites each figure's spec in the browser before Plotly draws it, on every redraw, and its template's
# colours are placeholders that only that rewrite fills in.
# Light grid lines on white, the project's font, and the neutral grey as every trace's default colour: a figure
# that draws heads names each head's colour (``head_color``), so no other series takes a head's by default.
# Tick labels may overflow: Plotly otherwise measures every label of a numeric axis on each redraw
# to hide those past the figure's edge.
_AXIS = dict(
    gridcolor=GRID_COLOR,
    linecolor=AXIS_LINE_COLOR,
    zerolinecolor=AXIS_LINE_COLOR,
    ticks="",
    title=dict(standoff=12),
    automargin=True,
    ticklabeloverflow="allow",
)
# The title hangs from the figure's top edge below the strip where Plotly shows its toolbar on hover
# (about 26 px of icons at the top right), so the toolbar never covers a long title on a narrow chart.
TITLE_BELOW_TOOLBAR = dict(yref="container", y=1.0, yanchor="top", pad=dict(t=34))
# Above the plot: the toolbar's strip and the title; then, in a figure of panels, the row of panel names.
TITLE_TOP_PX, PANEL_NAMES_PX = 60, 30
# A colour bar's title reads up its right side: on top, Plotly sets it over the bar's highest tick label.
_COLOUR_BAR = dict(outlinewidth=0, ticks="", title=dict(side="right"))
LAB_TEMPLATE = go.layout.Template(
    layout=dict(
        font=FONT,
        title=dict(font=dict(weight=600), **TITLE_BELOW_TOOLBAR),
        colorway=[NEUTRAL],
        paper_bgcolor="white",
        plot_bgcolor="white",
        xaxis=_AXIS,
        yaxis=_AXIS,
        hoverlabel=dict(font=dict(family=FONT["family"])),
        coloraxis=dict(colorbar=_COLOUR_BAR),
        hovermode="closest",
    ),
    data=dict(heatmap=[go.Heatmap(colorbar=_COLOUR_BAR)]),
)


def head_color(head: int) -> str:
    return HEAD_COLORS[head % len(HEAD_COLORS)]


def _darkened_for_text(colour: str) -> str:
    """``colour`` for text on white, which needs 4.5:1 (WCAG 1.4.3) where a mark needs 3:1: the colour itself when
    it has that, else the same hue with its channels scaled down, 2 % a step, until it does."""
    from .cell_text import contrast_ratio

    rgb = [int(colour[i : i + 2], 16) for i in (1, 3, 5)]
    scale = 1.0
    while contrast_ratio([round(c * scale) for c in rgb], (255, 255, 255)) < 4.5:
        scale -= 0.02
    return "#" + "".join(f"{round(c * scale):02x}" for c in rgb)


HEAD_TEXT_COLORS = tuple(_darkened_for_text(colour) for colour in HEAD_COLORS)


def head_text_color(head: int) -> str:
    """A head's name written in its colour: ``head_color``, darkened where needed to read at 4.5:1 on white."""
    return HEAD_TEXT_COLORS[head % len(HEAD_TEXT_COLORS)]


def has_panel_names(fig: go.Figure) -> bool:
    """True when ``make_subplots(subplot_titles=...)`` put a row of panel names above the top panels."""
    return any(
        note.yref == "paper" and note.yanchor == "bottom" and (note.y or 0.0) >= 0.999
        for note in fig.layout.annotations
    )


def base_layout(fig: go.Figure, title: str, height: int = 420) -> go.Figure:
    """Apply the shared font, white background, title and margins; the top margin also makes room for
    a row of panel names under the title (``has_panel_names``)."""
    top = TITLE_TOP_PX + (PANEL_NAMES_PX if has_panel_names(fig) else 0)
    fig.update_layout(**_look(title, height, top))
    return fig


def _look(title: str, height: int, top: int) -> dict:
    """The layout every figure shares: the template, the title at the left in 18 px, the font, white
    paper and plot, and 10 px margins but the ``top``."""
    return dict(
        template=LAB_TEMPLATE,
        title=dict(text=title, x=0.0, xanchor="left", font=dict(size=18)),
        font=FONT,
        height=height,
        paper_bgcolor="white",
        plot_bgcolor="white",
        margin=dict(l=10, r=10, t=top, b=10),
    )


PROJECTOR_TICK_PX, PROJECTOR_LABEL_PX, PROJECTOR_INK = 14, 15, "#222222"


def _projector_text() -> tuple[dict, dict, dict]:
    """The projector's text for an axis (ticks 14 px, titles 15 px), a legend and a colour bar, all dark."""
    ink = dict(color=PROJECTOR_INK)
    axis = dict(tickfont=dict(size=PROJECTOR_TICK_PX, **ink), title_font=dict(size=PROJECTOR_LABEL_PX, **ink))
    colorbar = dict(tickfont=dict(size=PROJECTOR_TICK_PX, **ink), title=dict(font=dict(size=PROJECTOR_LABEL_PX, **ink)))
    return axis, dict(font=dict(size=PROJECTOR_LABEL_PX, **ink)), colorbar


def projector_fonts(fig: go.Figure) -> go.Figure:
    """Readable on a projector: tick labels 14 px and dark (the app theme's default is 12 px grey),
    axis titles, legend, colour bars and panel labels 15 px. Titles keep their 18 px. Returns ``fig``."""
    axis, legend, colorbar = _projector_text()
    fig.update_xaxes(**axis)
    fig.update_yaxes(**axis)
    fig.update_layout(legend=legend)
    fig.update_traces(colorbar=colorbar, selector=dict(type="heatmap"))
    for name in dict.fromkeys(trace.coloraxis for trace in fig.data if getattr(trace, "coloraxis", None)):
        fig.update_layout({name: {"colorbar": colorbar}})  # every shared colour axis's bar: coloraxis, coloraxis2...
    fig.update_annotations(font_size=PROJECTOR_LABEL_PX)
    return fig


def styled_figure(traces, title: str, height: int = 420, **layout) -> go.Figure:
    """A one-plot figure with the look ``base_layout`` and ``projector_fonts`` give, set when it is built.

    Plotly checks a layout handed to ``go.Figure`` in one pass, while every later ``update_layout``
    or ``update_xaxes`` walks the whole figure again. ``layout`` adds to the style; its ``xaxis`` and ``yaxis``
    keep the projector fonts unless they set their own.
    """
    axis, legend, colorbar = _projector_text()
    style = {**_look(title, height, TITLE_TOP_PX), "legend": legend}
    style.update(layout)
    for name in ("xaxis", "yaxis"):
        style[name] = {**axis, **layout.get(name, {})}
    traces = [trace.update(colorbar=colorbar) if trace.type == "heatmap" else trace for trace in traces]
    return go.Figure(traces, layout=style)


def styled_grid(fig: go.Figure, title: str, height: int, axes: dict[str, dict], **layout) -> go.Figure:
    """``fig`` (from ``make_subplots``, its traces added) with the look ``base_layout`` and ``projector_fonts`` give,
    set in one pass: each axis named in ``axes`` (``"xaxis2"``) takes the projector fonts and its own settings,
    the panel names 15 px; ``layout`` adds to the style (its ``annotations`` after the panel names). Figures
    redrawn every second (live training) are built this way. Returns ``fig``."""
    axis, legend, _ = _projector_text()
    top = TITLE_TOP_PX + (PANEL_NAMES_PX if has_panel_names(fig) else 0)
    names = [{**note.to_plotly_json(), "font": {"size": PROJECTOR_LABEL_PX}} for note in fig.layout.annotations]
    style = {**_look(title, height, top), **layout, "legend": {**legend, **layout.get("legend", {})}}
    style.pop("annotations", None)
    for name, settings in axes.items():
        style[name] = {**axis, **settings}
    fig.layout.annotations = names + list(layout.get("annotations", []))  # replaced: an update would keep the old
    fig.update_layout(**style)
    return fig


PRESENTATION_FONT_SCALE, PRESENTATION_HEIGHT_SCALE = 1.5, 1.25


def presentation_spec(
    spec: dict, font_scale: float = PRESENTATION_FONT_SCALE, height_scale: float = PRESENTATION_HEIGHT_SCALE
) -> dict:
    """A figure's dict (``fig.to_dict()``) for the projector: every font size and the four margins times
    ``font_scale``, the height times ``height_scale``; data, colours and ranges untouched. Returns a new
    dict.

    A font is any dict stored under a key ending in "font" (``font``, ``tickfont``, ``textfont``,
    ``title.font``, a colour bar's fonts, ...); one without a size inherits ``layout.font``, which
    always gets one (FONT's size when the figure set none).
    """

    def scaled(node):
        if isinstance(node, dict):
            out = {key: scaled(value) for key, value in node.items()}
            for key, value in out.items():
                if key.endswith("font") and isinstance(value, dict) and isinstance(value.get("size"), (int, float)):
                    out[key] = {**value, "size": round(value["size"] * font_scale, 1)}
            return out
        if isinstance(node, (list, tuple)):
            return [scaled(item) for item in node]
        return node

    layout = dict(spec.get("layout", {}))
    layout["font"] = {**FONT, **layout.get("font", {})}
    if isinstance(layout.get("margin"), dict):  # room for the larger tick labels, titles and panel names
        layout["margin"] = {
            side: value * font_scale if side in "lrtb" and isinstance(value, (int, float)) else value
            for side, value in layout["margin"].items()
        }
    if isinstance(layout.get("height"), (int, float)):
        layout["height"] = int(layout["height"] * height_scale)
    return {
        **spec,
        "data": [
            {
                key: scaled(value) if key.endswith(("font", "colorbar", "marker", "title")) else value
                for key, value in trace.items()
            }
            for trace in spec.get("data", [])
        ],
        "layout": scaled(layout),
    }
