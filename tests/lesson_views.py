"""Opening a lesson's view as its link does, and reading the figures it draws (the lesson tests share these)."""

from __future__ import annotations

import numpy as np

from tests.apptest_helpers import assert_no_exception, decode_array, head_tiles, run_page
from lessons.catalogue import LESSONS, Shipped
from ui.model_picker import shipped_label


def url_value(value) -> str | list[str]:
    """A setting as a link carries it: a shipped checkpoint by its picker label, several choices as a
    repeated key, anything else as text (written out here, not taken from ui.lessons)."""
    if isinstance(value, Shipped):
        return shipped_label(value.name)
    return [str(v) for v in value] if isinstance(value, tuple) else str(value)


def link_query(lesson, step: int) -> dict[str, str | list[str]]:
    """The query string a lesson link carries."""
    query = {key: url_value(value) for key, value in lesson.views[step].settings.items()}
    return {**query, "lesson": lesson.id, "step": str(step + 1)}


def lesson_of(lesson_id: str):
    return next(lesson for lesson in LESSONS if lesson.id == lesson_id)


def open_view(lesson_id: str, step: int):
    lesson = lesson_of(lesson_id)
    at = run_page(f"pages/{lesson.views[step].page}/page.py", link_query(lesson, step))
    assert_no_exception(at)
    return at


def trace(spec: dict, name: str | None = None, index: int = 0) -> dict:
    matching = [t for t in spec["data"] if name is None or t.get("name") == name]
    return matching[index]


def z_of(spec: dict, name: str | None = None, index: int = 0) -> np.ndarray:
    return decode_array(trace(spec, name, index)["z"]).astype(np.float64)


def y_of(spec: dict, name: str, index: int = 0) -> np.ndarray:
    return decode_array(trace(spec, name, index)["y"]).astype(np.float64)


def head_maps(spec: dict) -> list[np.ndarray]:
    return head_tiles(spec)


def sinusoid(pos: int, d_model: int = 64, base: float = 10000.0) -> np.ndarray:
    """The paper's positional encoding of position ``pos``, written out: PE[2i] = sin(pos / base^(2i/d)),
    PE[2i+1] = cos(the same), shape [d_model]."""
    i = np.arange(d_model // 2)
    angle = pos / base ** (2 * i / d_model)
    out = np.empty(d_model)
    out[0::2], out[1::2] = np.sin(angle), np.cos(angle)
    return out
