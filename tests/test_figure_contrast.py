"""WCAG 2.2's contrast in what the figures draw, measured on every chart the app draws (tests/app_figures.py): text
written on a heatmap's cells reads at 4.5:1 on its own cell (1.4.3), and every line, marker and bar at 3:1 on the
white plot (1.4.11), unless an outline of 3:1 bounds it or its value is written beside it. axe-core reads only
the page's HTML, so the figures' own colours are measured here, from their specs."""

from __future__ import annotations

import re

import numpy as np

from tests.app_figures import SHARES_EVERY_FIGURE, every_figure_the_app_draws
from tests.apptest_helpers import decode_array

pytestmark = SHARES_EVERY_FIGURE

WHITE = (255.0, 255.0, 255.0)


def channels(colour: str) -> tuple[float, float, float, float] | None:
    """'#rgb', '#rrggbb', 'rgb(...)', 'rgba(...)', 'white' or 'black' as r, g, b (0..255) and alpha."""
    colour = colour.strip().lower()
    named = {"white": "#ffffff", "black": "#000000"}
    colour = named.get(colour, colour)
    if colour.startswith("#"):
        digits = colour[1:] if len(colour) == 7 else "".join(d * 2 for d in colour[1:4])
        return (*(float(int(digits[i : i + 2], 16)) for i in (0, 2, 4)), 1.0)
    found = re.fullmatch(r"rgba?\(([^)]*)\)", colour)
    if not found:
        return None
    parts = [float(p) for p in found.group(1).split(",")]
    return (*parts[:3], parts[3] if len(parts) > 3 else 1.0)


def on_white(colour: str) -> tuple[float, float, float] | None:
    """The colour as drawn over white (its alpha blended), or None when it is not a colour or fully transparent."""
    parsed = channels(colour)
    if parsed is None or parsed[3] == 0:
        return None
    *rgb, alpha = parsed
    return tuple(alpha * c + (1 - alpha) * 255.0 for c in rgb)


def luminance(rgb) -> float:
    """WCAG 2's relative luminance."""
    s = np.asarray(rgb, dtype=float) / 255.0
    return float(np.dot(np.where(s <= 0.04045, s / 12.92, ((s + 0.055) / 1.055) ** 2.4), [0.2126, 0.7152, 0.0722]))


def ratio(a, b) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def colour_at(scale: list, position: float) -> tuple[float, float, float]:
    """A spec's colour scale ``[[stop, colour], ...]`` at ``position``: each channel linear between the two stops
    around it, as plotly.js draws it (a repeated stop starts a flat band)."""
    t = float(np.clip(position, 0, 1))
    stops = [(float(stop), np.array(channels(colour)[:3])) for stop, colour in scale]
    for (a, low), (b, high) in zip(stops, stops[1:]):
        if a <= t <= b and b > a:
            return tuple(low + (t - a) / (b - a) * (high - low))
    return tuple(stops[-1][1] if t >= stops[-1][0] else stops[0][1])


def heatmap_colours(trace: dict, layout: dict) -> tuple[np.ndarray, list, float, float]:
    """A heatmap's z, its colour scale and the z range it spans (its own or its colour axis's)."""
    z = decode_array(trace["z"]).astype(float)
    axis = layout.get(trace["coloraxis"], {}) if trace.get("coloraxis") else {}
    scale = axis.get("colorscale") or trace.get("colorscale") or layout["template"]["layout"]["colorscale"]
    low = axis.get("cmin", trace.get("zmin", np.nanmin(z)))
    high = axis.get("cmax", trace.get("zmax", np.nanmax(z)))
    return z, scale, low, high


def axes_of(trace: dict) -> tuple[str, str]:
    return trace.get("xaxis", "x"), trace.get("yaxis", "y")


def place(values, index: int, given) -> int | None:
    """Where ``given`` stands among a heatmap's cell positions ``values`` (its indices when it has none)."""
    if values is None:
        return int(given) if float(given).is_integer() and 0 <= given < index else None
    listed = [str(v) for v in decode_array(values).tolist()]
    return listed.index(str(given)) if str(given) in listed else None


def written_on_cells(spec: dict):
    """(where, text, text colour, cell colour) for every text written on a heatmap's cell: by the heatmap itself
    (texttemplate) or by a text trace over it."""
    layout, data = spec["layout"], spec["data"]
    heatmaps = [t for t in data if t.get("type") == "heatmap" and t.get("hoverinfo") != "skip"]
    for trace in heatmaps:
        if not trace.get("texttemplate"):
            continue
        z, scale, low, high = heatmap_colours(trace, layout)
        ink = (trace.get("textfont") or {}).get("color")
        assert isinstance(ink, str), "a heatmap that writes on its cells names its text colour"
        for (r, c), value in np.ndenumerate(z):
            if np.isfinite(value):
                yield (r, c), value, ink, colour_at(scale, (value - low) / ((high - low) or 1))
    for trace in data:
        if trace.get("type", "scatter") != "scatter" or "text" not in trace.get("mode", ""):
            continue
        under = [h for h in heatmaps if axes_of(h) == axes_of(trace)]
        if not under:
            continue
        z, scale, low, high = heatmap_colours(under[0], layout)
        inks = (trace.get("textfont") or {}).get("color")
        xs, ys = decode_array(trace["x"]).tolist(), decode_array(trace["y"]).tolist()
        for i, (x, y) in enumerate(zip(xs, ys)):
            r, c = place(under[0].get("y"), z.shape[0], y), place(under[0].get("x"), z.shape[1], x)
            if r is None or c is None:
                continue
            ink = inks[i] if isinstance(inks, list) else inks
            assert isinstance(ink, str), "a text written on a heatmap's cells names its colour"
            yield (r, c), trace["text"][i], ink, colour_at(scale, (z[r, c] - low) / ((high - low) or 1))


def figures():
    return [(page, section, spec) for page, section, present, spec in every_figure_the_app_draws() if not present]


def test_text_on_a_heatmaps_cells_reads_at_4_5_to_1_on_its_cell():
    checked, figures_with_text, failing = 0, set(), []
    for page, section, spec in figures():
        title = spec["layout"].get("title", {}).get("text", "")[:50]
        for where, text, ink, cell in written_on_cells(spec):
            checked += 1
            figures_with_text.add((page, section))
            measured = ratio(on_white(ink), cell)
            if measured < 4.5:
                failing.append((page, section, title, where, text, ink, round(measured, 2)))
    # Experiments' three grids and logit lens, Vision's knock-outs, the alignment's agreement, WordPiece's tiles and
    # a pretrained model's head roles
    assert checked > 200 and len(figures_with_text) >= 8
    assert failing == []


def marks(trace: dict):
    """(what, colour) for each colour a trace draws its lines, markers or bars in, left out where a 3:1 outline
    bounds the mark or its value is written beside it (the text carries what the mark shows)."""
    kind = trace.get("type", "scatter")
    if kind not in ("scatter", "bar") or trace.get("visible") is False:
        return
    marker, line = trace.get("marker") or {}, trace.get("line") or {}
    outline = marker.get("line") or {}
    outline_colours = outline.get("color") if isinstance(outline.get("color"), list) else [outline.get("color")]
    widths = outline.get("width") if isinstance(outline.get("width"), list) else [outline.get("width")]
    bounded = [
        (width or 0) > 0 and colour is not None and on_white(colour) is not None and ratio(on_white(colour), WHITE) >= 3
        for colour, width in zip(outline_colours * len(widths), widths * len(outline_colours))
    ]
    valued = kind == "bar" and trace.get("text") is not None and trace.get("textposition", "auto") != "none"
    if kind == "scatter" and "lines" in trace.get("mode", "lines") and isinstance(line.get("color"), str):
        yield "line", line["color"]
    if kind == "bar" or "markers" in trace.get("mode", "markers" if kind == "scatter" else ""):
        colours = marker.get("color")
        colours = colours if isinstance(colours, list) else [colours]
        for i, colour in enumerate(colours):
            if isinstance(colour, str) and not valued and not bounded[i % len(bounded)]:
                yield "marker", colour


def on_white_below(colours_of, floor: float) -> tuple[int, list]:
    """How many colours ``colours_of(spec)`` names ((what, colour) pairs) over every figure, and those drawn on
    white under ``floor`` as (page, section, title, what, colour, ratio)."""
    checked, failing = 0, set()
    for page, section, spec in figures():
        title = spec["layout"].get("title", {}).get("text", "")[:50]
        for what, colour in colours_of(spec):
            drawn = on_white(colour)
            if drawn is not None:
                checked += 1
                if ratio(drawn, WHITE) < floor:
                    failing.add((page, section, title, str(what)[:20], colour, round(ratio(drawn, WHITE), 2)))
    return checked, sorted(failing)


def marks_of(spec: dict):
    """(trace and part, colour) of every mark a figure draws (``marks``)."""
    return ((f"{trace.get('name')} {what}", colour) for trace in spec["data"] for what, colour in marks(trace))


def test_every_line_marker_and_bar_reads_at_3_to_1_on_the_white_plot():
    checked, failing = on_white_below(marks_of, 3.0)
    assert checked > 200  # each trace's distinct colours
    assert failing == []


def texts_on_the_plot(spec: dict):
    """(text, colour) of each annotation and each text trace that names its colour and is not over a heatmap:
    text on the white figure."""
    heatmap_axes = {axes_of(t) for t in spec["data"] if t.get("type") == "heatmap"}
    for note in spec["layout"].get("annotations", []):
        colour = (note.get("font") or {}).get("color")
        if isinstance(colour, str) and not note.get("bgcolor"):
            yield note.get("text", ""), colour
    for trace in spec["data"]:
        if "text" not in trace.get("mode", "") or axes_of(trace) in heatmap_axes:
            continue
        colours = (trace.get("textfont") or {}).get("color")
        for colour in colours if isinstance(colours, list) else [colours]:
            if isinstance(colour, str):
                yield trace.get("name", ""), colour


def test_text_a_figure_colours_itself_reads_at_4_5_to_1_on_white():
    checked, failing = on_white_below(texts_on_the_plot, 4.5)
    assert checked > 50  # the beam tree's tokens, the heads' names, ...
    assert failing == []
