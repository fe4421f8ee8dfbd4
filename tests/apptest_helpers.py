"""Helpers for AppTest: run a page of the app, read what its charts draw."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

from testing.apptest import opened_at
from transformer import checkpoint_info
from transformer.spec import ModelSpec
from lessons.model_labels import RANDOM
from ui.model_picker import picker_label
from ui.models import UPLOADS, CheckpointEntry
from ui.pages_index import PAGE_SCRIPTS
from ui.plotly_in_place import COMPONENT_NAME

APP = str(Path(__file__).resolve().parent.parent / "app.py")
TIMEOUT = 60
URL_PATHS = {script: url_path for url_path, script in PAGE_SCRIPTS.items()}  # a page's script -> its URL path


def run_page(path: str, query_params: dict | None = None) -> AppTest:
    """Run app.py opened at the page whose script is ``path`` (with URL query params), as its link opens it."""
    at = opened_at(APP, URL_PATHS[path], TIMEOUT)
    for key, value in (query_params or {}).items():
        at.query_params[key] = value
    return at.run()


RANDOM_MODEL = RANDOM  # the picker's label of the random model


def run_random_model(path: str, query_params: dict | None = None) -> AppTest:
    """``run_page`` with the random model picked (a page that opens on a trained model, e.g. Encoder-decoder on
    the translation model), unless the query names another."""
    return run_page(path, {"model": RANDOM_MODEL, **(query_params or {})})


def chart_elements(at: AppTest) -> list:
    """Every chart element of the page, in order (``ui.plotly_in_place`` components)."""
    return [el for el in at.get("bidi_component") if el.proto.component_name == COMPONENT_NAME]


def chart_name(element) -> str:
    """The name a chart element is sent under (its first line: ``ui.plotly_in_place``)."""
    return element.proto.bytes.split(b"\n", 1)[0].decode("utf-8")


def chart_json(element) -> bytes:
    """The Plotly figure JSON a chart element sends to the browser (after its name's line)."""
    return element.proto.bytes.split(b"\n", 1)[1]


def chart_specs(at: AppTest) -> list[dict]:
    """The Plotly figure JSON of every chart on the page, in order."""
    return [json.loads(chart_json(el)) for el in chart_elements(at)]


def chart_by_title(at: AppTest, fragment: str) -> dict:
    """The first chart whose title contains ``fragment``."""
    for spec in chart_specs(at):
        title = spec.get("layout", {}).get("title", {})
        text = title.get("text", "") if isinstance(title, dict) else str(title)
        if fragment in text:
            return spec
    raise AssertionError(f"no chart titled with {fragment!r}")


def title_text(spec: dict) -> str:
    """A chart's title as read: its lines (``<br>``) joined by spaces."""
    return spec["layout"]["title"]["text"].replace("<br>", " ")


def assert_no_exception(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def decode_array(value) -> np.ndarray:
    """A chart spec's array as numpy: plotly>=6 stores numpy arrays as
    ``{"dtype": "f4", "bdata": "<base64>", "shape": "r, c"}``; plain lists pass through."""
    if isinstance(value, dict) and "bdata" in value:
        array = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        shape = value.get("shape")
        return array.reshape([int(n) for n in str(shape).split(",")]) if shape else array
    return np.asarray(value)


def tiles_of(spec: dict, count: int, shape: tuple[int, int], columns: int = 4, trace: int = 0) -> list:
    """The ``count`` tiles ``[R, C]`` of a tiled grid trace (``viz.tiles``): tile n at tile row
    n // K and tile column n % K, K = min(count, columns), one blank cell between neighbouring tiles."""
    z = decode_array(spec["data"][trace]["z"]).astype(float)
    rows, cols = shape
    across = min(count, columns)
    down = -(-count // across)
    assert z.shape == (down * (rows + 1) - 1, across * (cols + 1) - 1), z.shape
    return [
        z[
            n // across * (rows + 1) : n // across * (rows + 1) + rows,
            n % across * (cols + 1) : n % across * (cols + 1) + cols,
        ]
        for n in range(count)
    ]


def head_tiles(spec: dict, columns: int = 4) -> list:
    """Every head's map in a head grid: as many heads as tiles titled "head h", each tile's shape
    worked out from the grid's (see ``tiles_of``)."""
    count = sum(1 for note in spec["layout"].get("annotations", []) if str(note.get("text", "")).startswith("head "))
    across, down = min(count, columns), -(-count // min(count, columns))
    rows, cols = decode_array(spec["data"][0]["z"]).shape
    return tiles_of(spec, count, ((rows + 1) // down - 1, (cols + 1) // across - 1), columns)


def assert_projector_fonts(spec: dict) -> None:
    """Tick labels of every shown axis >= 13 px, the title ~18 px (readable on a projector)."""
    layout = spec["layout"]
    assert layout["title"]["font"]["size"] >= 17, layout["title"]["text"]
    for name, axis in layout.items():
        if name.startswith(("xaxis", "yaxis")) and axis.get("visible", True):
            assert axis["tickfont"]["size"] >= 13, (layout["title"]["text"], name)


def bars(spec: dict) -> list[list[float]]:
    """The y values of each bar trace of a chart (before, after, for a knock-out's bars)."""
    return [decode_array(trace["y"]).astype(float).tolist() for trace in spec["data"] if trace["type"] == "bar"]


def grid(spec: dict) -> np.ndarray:
    """The values of a chart's first trace's cells (its heatmap's z), as floats."""
    return decode_array(spec["data"][0]["z"]).astype(float)


def run_with_upload(path: str, data: bytes, name: str, query: dict) -> AppTest:
    """The page at ``path`` with ``data`` among this session's checkpoints (as the Train page's "use it" or an upload
    puts it there) and picked in the model picker."""
    digest = hashlib.sha256(data).hexdigest()
    info = checkpoint_info(data)
    entry = CheckpointEntry(ModelSpec.checkpoint(digest, name), info["kind"], info)
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.session_state[UPLOADS] = {digest: (data, entry)}
    at.run()
    at.switch_page(path)
    for key, value in {"model": picker_label(entry), **query}.items():
        at.query_params[key] = value
    at.run()
    assert at.selectbox(key="model").value == picker_label(entry)
    return at
