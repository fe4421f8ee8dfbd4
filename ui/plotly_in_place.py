"""Plotly figures redrawn in place in the browser, instead of drawn as new plots on every change.

``st.plotly_chart`` gives a chart a new element id whenever its figure changes, so the browser
throws the old plot away and lays a new one out from nothing (``Plotly.newPlot``). Here each
figure goes to a small ``st.components.v2`` component keyed by the line that draws it: the
element stays, and its JavaScript (``plotly_in_place.js``) hands the new figure to ``Plotly.react``,
which updates the plot it already has, at a fraction of a new plot's cost (docs/performance.md). A
figure that did not change is not drawn again.

plotly.js is the copy inside the installed ``plotly`` package, served by this app's own server:
nothing is fetched from outside. It is copied once into the app's ``static/`` folder, named by its
version, and served from there (``server.enableStaticServing``): that route sends Last-Modified and
an ETag, so a browser can keep the 4.8 MB and take it from its cache for a new tab or another full
page load. Where the folder cannot be written, a ``components.v1`` folder route serves it instead,
which sends neither, so the browser fetches it again on every full page load.

With ``ATTENTION_LAB_CHARTS=plotly_chart`` in the server's environment every chart is drawn by
``st.plotly_chart`` instead, from the same JSON: the app then relies on none of the component's
parts, which shows whether a Streamlit upgrade broke the charts or the component.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
from contextlib import nullcontext, suppress
from pathlib import Path

import plotly
import plotly.graph_objects as go
import plotly.io as pio
import streamlit as st
import streamlit.components.v1 as components_v1
from plotly.offline import get_plotlyjs_version
from streamlit.errors import StreamlitDuplicateElementKey

from ui import streamlit_internals
from ui.cache import resource
from viz.compact import BROWSER_PX

PLOTLY_FOLDER = Path(plotly.__file__).parent / "package_data"  # holds plotly.min.js
APP_STATIC = Path(__file__).resolve().parent.parent / "static"  # served at app/static/ (next to app.py)
STATIC_NAME = f"plotly-{get_plotlyjs_version()}.min.js"  # a new version gets a new address
COMPONENT_NAME = "attention_lab_plotly"
CHARTS_ENV = "ATTENTION_LAB_CHARTS"  # "plotly_chart": every chart through st.plotly_chart

# plotly_fit/ fits each figure to the width it is drawn at (a phone's as well as a projector's), in five parts
# by concern read as one script, its px those of viz.compact; then the component itself.
FIT_SCRIPTS = tuple(
    Path(__file__).parent / "plotly_fit" / name
    for name in ("measure.js", "grids.js", "panels.js", "names.js", "ticks.js")
)


def fit_script() -> str:
    """The five parts of plotly_fit/ as one script, with the px they share with the server (``viz.compact.BROWSER_PX``)."""
    return "\n".join(path.read_text(encoding="utf-8") for path in FIT_SCRIPTS).replace(
        "__BROWSER_PX__", json.dumps(BROWSER_PX)
    )


_JS = "\n".join(
    (
        fit_script(),
        *(
            (Path(__file__).parent / name).read_text(encoding="utf-8")
            for name in (
                "chart_description.js",
                "chart_numbers.js",
                "chart_numbers_box.js",
                "head_view_hover.js",
                "plotly_in_place.js",
            )
        ),
    )
)
# A plot shown full screen (its toolbar's last button): on white, not the browser's black backdrop; where
# the browser allows no element full screen, over the whole window instead, and not faded while the
# page reruns (Streamlit fades a rerunning element, which would also stack it under the page's header).
# Then "Show the numbers" under each chart: its summary in the focus ring's blue (8.6:1), its tables scrolling.
CHART_CSS = """
div.lab-chart:fullscreen, div.lab-chart.lab-chart-expanded { background: #ffffff; padding: 24px; box-sizing: border-box; }
div.lab-chart.lab-chart-expanded { position: fixed; inset: 0; z-index: 1000000; }
[data-stale="true"]:has(.lab-chart-expanded) { opacity: 1 !important; transition: none !important; }
details.lab-numbers { font-size: 14px; margin: 0; padding: 2px 0 4px; }
details.lab-numbers > summary { cursor: pointer; color: #1f4e9e; width: fit-content; }
details.lab-numbers a.lab-numbers-csv { display: inline-block; margin: 4px 0; color: #1f4e9e; }
div.lab-numbers-tables { max-height: 360px; overflow: auto; }
div.lab-numbers-tables table { border-collapse: collapse; margin: 0 0 8px; font-variant-numeric: tabular-nums; }
div.lab-numbers-tables caption { text-align: left; font-weight: 600; padding: 4px 0; }
div.lab-numbers-tables th, div.lab-numbers-tables td { border: 1px solid #d0d0d0; padding: 2px 6px; text-align: right; }
div.lab-numbers-tables th[scope="row"] { text-align: left; }
"""


def same_bytes(first: Path, second: Path) -> bool:
    """True when two files hold the same bytes (compared block by block, after their sizes)."""
    if first.stat().st_size != second.stat().st_size:
        return False
    with open(first, "rb") as one, open(second, "rb") as other:
        while block := one.read(1 << 20):
            if block != other.read(1 << 20):
                return False
    return True


def copy_to_static(folder: Path) -> bool:
    """Put the installed ``plotly.min.js`` in ``folder`` as ``STATIC_NAME``, unless a copy with the same bytes
    is there already, with the installed file's modification time: the route's Last-Modified stays the same
    across restarts, and a copy whose time changed (a ``touch``) gets it back. The copy is written under
    another name and then renamed, so no request ever reads half a file. Copies of other plotly.js versions
    (left by an upgrade) are removed where they can be. False when the folder cannot be written."""
    source, target = PLOTLY_FOLDER / "plotly.min.js", folder / STATIC_NAME
    partial = folder / f".{STATIC_NAME}.{os.getpid()}.partial"
    try:
        if not (target.is_file() and same_bytes(source, target)):
            folder.mkdir(exist_ok=True)
            shutil.copy2(source, partial)
            os.replace(partial, target)
    except OSError:
        with suppress(OSError):  # no half copy left behind
            partial.unlink(missing_ok=True)
        return False
    with suppress(OSError):  # a copy whose time cannot be set is still the right file
        modified = source.stat().st_mtime_ns
        if target.stat().st_mtime_ns != modified:
            os.utime(target, ns=(target.stat().st_atime_ns, modified))
    for old in folder.glob("plotly-*.min.js"):
        if old.name != STATIC_NAME:
            with suppress(OSError):  # a copy that cannot be removed does no harm: nothing links to it
                old.unlink()
    return True


@resource()
def serve_plotly_library() -> str:
    """Serve ``plotly.min.js`` from this server, once per process; its address relative to the page's:
    the app's static route, or a component folder route where static files cannot be served."""
    if st.get_option("server.enableStaticServing") and copy_to_static(APP_STATIC):
        return f"app/static/{STATIC_NAME}"
    component = components_v1.declare_component("plotly_js", path=str(PLOTLY_FOLDER))
    return f"component/{component.name}/plotly.min.js"


@resource()
def _drawer():
    """The chart component, once per process, loading plotly.js from where ``serve_plotly_library`` put it."""
    js = _JS.replace("__LIBRARY__", serve_plotly_library())
    return st.components.v2.component(COMPONENT_NAME, js=js, css=CHART_CSS, isolate_styles=False)


def call_site(frame) -> str:
    """Where a chart is drawn from: the calling file's folder and name and the function that draws it, such as
    ``"positional_encoding/curves.py:render_curves"`` (not its line: a line moved by an edit keeps the name, so a
    teacher's and a student's servers of two versions still name the chart alike)."""
    path = Path(frame.f_code.co_filename)
    return f"{path.parent.name}/{path.name}:{frame.f_code.co_qualname}"


def figure_json(figure: go.Figure | dict, config: dict | None = None) -> bytes:
    """The figure as Plotly JSON, ``{"data", "layout"}`` and the plot's ``config`` when given
    (numpy arrays as typed base64 blocks), UTF-8."""
    spec = figure if isinstance(figure, dict) else figure.to_dict()
    return pio.to_json({**spec, "config": config} if config else spec, validate=False).encode("utf-8")


def plotly_in_place(
    figure: go.Figure | dict | bytes,
    site: str,
    container=st,
    key: str | None = None,
    width="stretch",
    config: dict | None = None,
    drawn=None,
):
    """Draw ``figure`` in ``container`` (the page, a column, ...), updated in place on later runs;
    ``config`` is Plotly's plot configuration (for example the toolbar's image format). A figure
    given as bytes is already ``figure_json``'s output, its configuration included.

    The chart's name, which keeps it the same element from run to run, is ``"chart:<key>"`` when
    ``key`` is given; otherwise the function it is drawn from (``site``, see ``call_site``), numbered from
    the second chart that function draws in one run on: ``"chart:positional_encoding/curves.py:render_curves"``,
    ``"... #2"``, ... A fragment's rerun numbers only its own charts, so a function must not draw both
    inside and outside one fragment (no page does). The component receives the name, a line break and
    the figure's JSON: a class's drawing (``ui.rooms.drawing``) finds the chart by that name in a student's
    browser. A "__" in the name is written "_~", which Streamlit's keys allow. ``drawn(name)``, when given, is called with the name once the chart is placed."""
    data = figure if isinstance(figure, bytes) else figure_json(figure, config)
    draw = plotly_chart_drawer if os.environ.get(CHARTS_ENV) == "plotly_chart" else _drawer()
    # Streamlit refuses a component key holding "__" (its own delimiter), which a folder's name may hold
    name = f"chart:{key or site}".replace("__", "_~")
    # a name given by the caller is its own to keep unique; a place's charts take its first free number this run
    for candidate in (name,) if key else numbered_names(name):
        taken = streamlit_internals.key_taken_this_run(candidate)
        if taken and not key:
            continue
        try:
            with nullcontext() if container is st else container:
                shown = draw(
                    data=candidate.encode("utf-8") + b"\n" + data, key=candidate, width=width, height="content"
                )
        except StreamlitDuplicateElementKey:
            if key or taken is not None:
                raise
            continue  # Streamlit's record of the run's keys moved (ui.streamlit_internals logs it): Streamlit refused
        if drawn is not None:
            drawn(candidate)
        return shown


def numbered_names(name: str):
    """``name``, then ``"name #2"``, ``"name #3"``, ...: the names of the charts one place draws in one run."""
    return (name if count == 1 else f"{name} #{count}" for count in itertools.count(1))


def plotly_chart_drawer(data: bytes, key: str, width, height):
    """The component's call, drawn by ``st.plotly_chart`` instead (``CHARTS_ENV``): same figure, same name."""
    spec = json.loads(data.split(b"\n", 1)[1])
    config = spec.pop("config", None)
    return st.plotly_chart(spec, theme=None, config=config, key=key, width=width)
