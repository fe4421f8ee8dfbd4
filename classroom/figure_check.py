"""Is a drawing's figure one the app could have drawn? Checked where a drawing is read from the store (a teacher on
another server made it, or anyone who can write to Redis did) and again in the student's browser
(``ui/rooms/figure_check.js``, with the same ``FIGURE_RULES``) before Plotly draws it.

A figure is refused when it has parts the app never draws: a trace type other than ``TRACE_TYPES`` (maps fetch
tiles and outlines from outside), a layout key outside ``LAYOUT_KEY`` (``images``, ``geo``, ``mapbox``, ...), a
plot configuration key outside ``CONFIG_KEYS``, an image ``source`` that is not a ``data:`` URI of a raster image,
a text that could link or load something (``FORBIDDEN_TEXT``: a link, a URL, a style's ``url(...)``), more values
than ``MAX_VALUES`` or more scatter points than ``MAX_POINTS``. The caps are about ten times the largest figure the
app draws (``tests/test_figure_check.py`` measures it): a forged chart of 400,000 points froze a tab for minutes.
"""

from __future__ import annotations

import re

TRACE_TYPES = ("scatter", "heatmap", "contour", "bar")  # contour: the Vision page's outline of the digit
LAYOUT_KEY = re.compile(
    r"(annotations|autosize|bargap|bargroupgap|barmode|coloraxis\d*|font|height|hoverlabel|hovermode|legend|"
    r"margin|meta|paper_bgcolor|plot_bgcolor|shapes|showlegend|template|title|uniformtext|width|[xy]axis\d*)"
)
CONFIG_KEYS = ("toImageButtonOptions", "displayModeBar", "displaylogo", "responsive")
IMAGE_SOURCE = re.compile(r"data:image/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/=]*")
FORBIDDEN_TEXT = re.compile(r"href|url\s*\(|://|javascript:|src\s*=|@import|<\s*(a|img|image|iframe|link)\b", re.I)
MAX_VALUES = 1_500_000  # array entries in one figure (numbers, typed-array items, texts)
MAX_POINTS = 50_000  # x values of one figure's scatter traces (drawn as SVG, each point an element)
MAX_DEPTH = 24
FIGURE_RULES = {
    "traces": list(TRACE_TYPES),
    "layout": LAYOUT_KEY.pattern,
    "config": list(CONFIG_KEYS),
    "image": IMAGE_SOURCE.pattern,
    "forbidden": FORBIDDEN_TEXT.pattern,
    "maxValues": MAX_VALUES,
    "maxPoints": MAX_POINTS,
    "maxDepth": MAX_DEPTH,
}


def _typed_length(block: dict) -> int:
    """The items of Plotly's typed array ``{"dtype", "bdata", "shape"?}``: its shape's product, else its bytes."""
    shape = block.get("shape")
    if isinstance(shape, str) and re.fullmatch(r"\d+(\s*,\s*\d+)*", shape):
        count = 1
        for size in shape.split(","):
            count *= int(size)
        return count
    return len(str(block.get("bdata", ""))) * 3 // 4


def _walk_problem(value, depth: int, key: str = "") -> tuple[str | None, int]:
    """(what is wrong in ``value`` found under ``key``, or None; how many array entries it holds)."""
    if depth > MAX_DEPTH:
        return "it is nested too deeply", 0
    if isinstance(value, str):
        if key == "source":
            return (None if IMAGE_SOURCE.fullmatch(value) else "an image is not a data: URI of a raster image"), 0
        return (f"a text could link or load: “{value[:40]}”" if FORBIDDEN_TEXT.search(value) else None), 0
    if isinstance(value, dict):
        if "bdata" in value and "dtype" in value:
            return None, _typed_length(value)
        count = 0
        for child_key, child in value.items():
            problem, entries = _walk_problem(child, depth + 1, str(child_key))
            if problem:
                return problem, 0
            count += entries
        return None, count
    if isinstance(value, list):
        count = len(value)
        for child in value:
            problem, entries = _walk_problem(child, depth + 1, key)
            if problem:
                return problem, 0
            count += entries
        return None, count
    return None, 0


def _points(trace: dict) -> int:
    x = trace.get("x", trace.get("y"))
    if isinstance(x, list):
        return len(x)
    return _typed_length(x) if isinstance(x, dict) else 0


def figure_problem(spec) -> str | None:
    """What in a drawing's figure (``{"data", "layout", "config"?}``) the app never draws, or None."""
    if not isinstance(spec, dict) or not set(spec) <= {"data", "layout", "config"}:
        return "a figure has parts other than data, layout and config"
    data, layout, config = spec.get("data", []), spec.get("layout", {}), spec.get("config", {})
    if not isinstance(data, list) or not isinstance(layout, dict) or not isinstance(config, dict):
        return "a figure's data, layout or config has the wrong shape"
    for trace in data:
        if not isinstance(trace, dict) or trace.get("type", "scatter") not in TRACE_TYPES:
            return f"a trace of type “{str(trace.get('type') if isinstance(trace, dict) else trace)[:20]}”"
    if sum(_points(t) for t in data if t.get("type", "scatter") == "scatter") > MAX_POINTS:
        return f"more than {MAX_POINTS:,} scatter points"
    unknown = [k for k in layout if not LAYOUT_KEY.fullmatch(str(k))] + [k for k in config if k not in CONFIG_KEYS]
    if unknown:
        return f"a layout or config key the app never sets: “{str(unknown[0])[:20]}”"
    problem, entries = _walk_problem(spec, 0)
    if problem is None and entries > MAX_VALUES:
        problem = f"more than {MAX_VALUES:,} values"
    return problem
