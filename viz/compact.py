"""A figure as a compact window gets it, built on the server.

The server knows when the reader's window is compact (``ui.screen.compact``: narrower than 900 px, as the
browser reports it: a phone, a tablet held upright). What depends on that alone is done here, on the
figure's dict, before it is sent: every colour bar lies under its plot, horizontal, the bars side by side
and sharing the plot's width, each title under its bar, so that a narrow plot keeps the third of its width a
bar beside it takes; the figure grows by the room they take, so the plot area keeps its height. A large
screen keeps every colour bar beside its plot, so that one screen's bars all stand one way.

What needs the width a plot is drawn at stays in the browser (``ui/plotly_fit/``, its px given from here:
``BROWSER_PX``): titles and names that
wrap, tick labels thinned or turned, cell values dropped, a legend moved under a plot narrower than 420 px in
rows as its entries measure, panels side by side stacked where they or their labels do not fit, and a tiled
grid wrapped to as many tiles a row as fit.

Pure: a figure's dict (``fig.to_dict()``) in, a new dict out; the dict given is not changed.
"""

from __future__ import annotations

from .style import TITLE_BELOW_TOOLBAR, presentation_spec

COMPACT_BELOW_PX = 900  # a window narrower is compact (ui.screen): a tablet held upright is, a laptop's 1280 px not
PLOTLY_MARGINS = {"l": 80, "r": 80, "t": 100, "b": 80}  # Plotly's own, where a figure sets none
BAR_BELOW_PX = 58  # room under the plot for the colour bars: the bar, its tick labels and its title under them
BAR_THICKNESS_PX, BAR_PAD_PX = 10, 6
BAR_LENGTH = 0.86  # of each bar's share of the width: a gap between neighbouring bars
EDGE_PX = 16  # the right margin once nothing stands beside the plot
COLOUR_BAR_TRACES = ("heatmap", "contour", "histogram2d", "surface")  # traces that draw a colour bar of their own
LEGEND_TRACES_NOT = ("heatmap", "contour", "histogram2d", "surface", "pie", "table", "sankey", "parcoords")

# The browser's fitting (ui/plotly_fit/) in px, written into its script by ui.plotly_in_place.fit_script.
BROWSER_PX = {
    "NARROW_PX": 420,  # a plot narrower than this (a phone's) gets its legend under it and level labels kept level
    "MIN_PANEL_PX": 100,  # a panel narrower than this, or than its name, is stacked under its neighbour
    "TITLE_TOP_PX": TITLE_BELOW_TOOLBAR["pad"]["t"],  # where a title's first line starts
    "LEGEND_ROW_PX": 24,  # one row of a legend's entries as the browser lays them out
    "PANEL_TITLE_PX": 30,  # room above a stacked panel for its name
    "TOOLBAR_ONE_ROW_PX": 240,  # a plot narrower than this has its toolbar (shown on a touch screen) in two rows
    "TOOLBAR_ROW_PX": 26,
    "WIDE_COLUMN_PX": COMPACT_BELOW_PX,  # the width a figure is built for: a window that is not compact
}


def sent_spec(spec: dict, presenting: bool = False, compact: bool = False) -> dict:
    """The figure's dict as it is sent: for the projector (``viz.style.presentation_spec``) when
    ``presenting``, then with its colour bars under its plot (``compact_spec``) when ``compact``, or ``presenting``
    a figure that is not a grid of tiles (``viz.tiles``): on the projector the width a bar and its larger labels
    took beside the plot goes to the plot, so that two maps side by side grow with their fonts, while a grid of
    tiles, as wide as the page already, keeps its bar beside it (under a grid several screens tall, Plotly set the
    bar's title over its tick labels)."""
    spec = presentation_spec(spec) if presenting else spec
    tiled = bool(((spec.get("layout") or {}).get("meta") or {}).get("tiles"))
    return compact_spec(spec) if compact or (presenting and not tiled) else spec


def legend_beside(spec: dict) -> bool:
    """True when the figure shows a legend beside its plot (Plotly's default place): the layout does not hide it,
    it is not horizontal nor set inside the plot, and a trace asks for it or two traces would be in it."""
    layout, data = spec.get("layout", {}), spec.get("data", [])
    legend = layout.get("legend") or {}
    if layout.get("showlegend") is False or legend.get("orientation") == "h" or legend.get("x", 1.02) < 1:
        return False
    listed = [
        trace
        for trace in data
        if trace.get("showlegend") is not False
        and trace.get("visible") is not False
        and trace.get("type", "scatter") not in LEGEND_TRACES_NOT
    ]
    return (
        layout.get("showlegend") is True or any(trace.get("showlegend") is True for trace in listed) or len(listed) > 1
    )


def colour_bar_owners(spec: dict) -> list[tuple[str, int | str]]:
    """Where each colour bar drawn is set, in the order Plotly draws them: ``("data", i)`` for a trace's own bar,
    then ``("layout", "coloraxis2")`` for a shared colour axis's."""
    data, layout = spec.get("data", []), spec.get("layout", {})
    owners: list[tuple[str, int | str]] = [
        ("data", i)
        for i, trace in enumerate(data)
        if trace.get("type", "scatter") in COLOUR_BAR_TRACES
        and not trace.get("coloraxis")
        and trace.get("showscale") is not False
        and trace.get("visible") is not False
    ]
    axes = dict.fromkeys(trace["coloraxis"] for trace in data if trace.get("coloraxis"))
    owners += [("layout", name) for name in axes if (layout.get(name) or {}).get("showscale") is not False]
    return owners


def bar_under(bar: dict, index: int, count: int) -> dict:
    """A colour bar's settings laid under the plot: the ``index``-th of ``count`` bars side by side, its title
    under it (on top, Plotly would set the title over a horizontal bar's tick labels)."""
    title = bar.get("title")
    title = {"text": title} if isinstance(title, str) else dict(title or {})
    share = 1 / count
    return {
        **bar,
        "orientation": "h",
        "lenmode": "fraction",
        "len": share * BAR_LENGTH,
        "thickness": BAR_THICKNESS_PX,
        "x": share * (index + 0.5),
        "xanchor": "center",
        "xref": "paper",
        "y": 0,
        "yanchor": "bottom",
        "yref": "container",
        "ypad": BAR_PAD_PX,
        "title": {**title, "side": "bottom"},
    }


def compact_spec(spec: dict) -> dict:
    """The figure for a compact window: its colour bars under its plot (``bar_under``), the bottom margin and the
    height ``BAR_BELOW_PX`` larger, and the right margin, which held them, ``EDGE_PX`` unless a legend stands
    there. A figure without a colour bar is returned as it is."""
    owners = colour_bar_owners(spec)
    if not owners:
        return spec
    data, layout = list(spec.get("data", [])), dict(spec.get("layout", {}))
    for index, (where, key) in enumerate(owners):
        holder = data if where == "data" else layout
        owner = dict(holder[key] or {})
        owner["colorbar"] = bar_under(dict(owner.get("colorbar") or {}), index, len(owners))
        holder[key] = owner
    margin = {
        **PLOTLY_MARGINS,
        **{side: value for side, value in (layout.get("margin") or {}).items() if value is not None},
    }
    if not legend_beside(spec):
        margin["r"] = min(margin["r"], EDGE_PX)
    margin["b"] += BAR_BELOW_PX
    layout["margin"] = margin
    if isinstance(layout.get("height"), (int, float)):
        layout["height"] = layout["height"] + BAR_BELOW_PX
    return {**spec, "data": data, "layout": layout}
