"""A canvas to draw a digit on (``canvas.js``): mouse, pen, finger or keyboard (arrows and Space); each finished
stroke sends the drawing, reduced to ``GRID`` x ``GRID`` grey levels, and reruns the page."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import streamlit as st

from ui.cache import resource

GRID = 32  # the grid the drawing is sent at: the handwritten digits were 32 x 32 bitmaps before their 8 x 8 counts
BRUSH_CELLS = 4  # the pen's width, in grid cells: the data set's digits are thick strokes (a 1 fills two blocks)
CSS = """
canvas.lab-draw { display: block; width: min(280px, 100%); aspect-ratio: 1; touch-action: none; cursor: crosshair;
  border: 1px solid rgba(49, 51, 63, 0.35); border-radius: 0.5rem; background: #ffffff; }
button.lab-draw-clear { margin-top: 0.5rem; min-height: 40px; min-width: 80px; padding: 0.25rem 1rem;
  border: 1px solid rgba(49, 51, 63, 0.25); border-radius: 0.5rem; background: #ffffff; font: inherit;
  cursor: pointer; }
canvas.lab-draw:focus-visible { outline: 3px solid #1f4e9e; outline-offset: 2px; }
p.lab-draw-status { margin: 0.5rem 0 0; font-size: 14px; color: #31333f; max-width: 280px; }
"""


@resource()
def _component():
    """The component, once per process."""
    js = (Path(__file__).parent / "canvas.js").read_text(encoding="utf-8")
    return st.components.v2.component("attention_lab_drawing", js=js, css=CSS, isolate_styles=False)


def drawing_canvas(key: str, label: str, kept: np.ndarray | None = None, on_change=None) -> None:
    """Mount the canvas; ``on_change`` is called (before the rerun) when a stroke ends or Clear is pressed, and
    ``canvas_grid(key)`` then reads the drawing. ``kept`` (``[GRID, GRID]`` in 0..1) is what a canvas mounted anew,
    or one whose kept picture changed to one it did not send, shows (the drawing outlives a visit elsewhere)."""
    picture = None if kept is None else [int(round(v * 255)) for v in np.asarray(kept, dtype=np.float32).ravel()]
    _component()(
        key=key,
        data={"grid": GRID, "brush": BRUSH_CELLS, "label": label, "kept": picture},
        on_image_change=on_change or (lambda: None),
        height="content",
    )


def canvas_grid(key: str) -> np.ndarray | None:
    """The last drawing the canvas ``key`` sent, ``[GRID, GRID]`` float32 in 0..1 (1 = ink), or None before any.
    A state that is not ``GRID * GRID`` numbers (it comes from the browser) counts as no drawing."""
    state = st.session_state.get(key)
    values = state.get("image") if isinstance(state, dict) else getattr(state, "image", None)
    return drawn_grid(values)


def drawn_grid(values) -> np.ndarray | None:
    """A list of ``GRID * GRID`` grey levels 0..255 as ``[GRID, GRID]`` float32 in 0..1; None for anything else."""
    if not isinstance(values, (list, tuple)) or len(values) != GRID * GRID:
        return None
    try:
        grid = np.asarray(values, dtype=np.float32).reshape(GRID, GRID)
    except (TypeError, ValueError):
        return None
    if not np.isfinite(grid).all():
        return None
    return np.clip(grid / 255.0, 0.0, 1.0)
