"""The one masked-cell overlay: how a masked cell, or a cell with no value, is drawn.

Design: the values trace keeps a finite 0 in such a cell (never NaN in the figure), and a
second heatmap trace, ``masked_overlay``, covers it in the grey ``MASKED_COLOR``;
the overlay is transparent everywhere else. The browser draws the overlay (a trace named "masked") through a
filter that lays darker diagonal stripes over its grey (ui/plotly_in_place.js): masked cells are hatched grey. The grey is not a colour of any value scale,
so a masked cell never reads as a weight of 0. Where a figure carries per-cell hover
text, ``masked_hover`` makes the cell's hover say "masked".
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from .style import MASKED_COLOR

# z = 1 (masked) is flat grey, z = 0 fully transparent: two flat bands, never a gradient.
OVERLAY_SCALE = [[0.0, "rgba(0,0,0,0)"], [0.5, "rgba(0,0,0,0)"], [0.5, MASKED_COLOR], [1.0, MASKED_COLOR]]
MASKED_NOTE = "<br>masked"


def allowed_cells(mask: np.ndarray | None, shape: Sequence[int]) -> np.ndarray:
    """Boolean ``shape`` array, True where a cell has a value; ``mask`` (True = may attend)
    broadcasts to ``shape``, None allows every cell."""
    if mask is None:
        return np.ones(tuple(shape), dtype=bool)
    return np.broadcast_to(np.asarray(mask, dtype=bool), tuple(shape))


def hide_masked(values: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """float32 copy of ``values`` with 0 in masked cells (``allowed`` False, same shape) and
    in non-finite ones: the overlay, not the value, tells what the cell is."""
    clean = np.nan_to_num(np.asarray(values, dtype=np.float32), nan=0.0, posinf=0.0, neginf=0.0)
    return np.where(allowed, clean, 0.0).astype(np.float32)


def masked_hover(text: np.ndarray, allowed: np.ndarray, allowed_note: str = "") -> np.ndarray:
    """Hover text (object array, same shape as ``allowed``) ending in "<br>masked" in masked
    cells and in ``allowed_note`` elsewhere."""
    text = np.asarray(text, dtype=object)
    return np.where(allowed, text + allowed_note, text + MASKED_NOTE)


def masked_colors(allowed: np.ndarray, color: str) -> list[str]:
    """Per-mark colours ``[n]`` for bars or points: ``color`` where allowed, the masked grey elsewhere."""
    return np.where(np.asarray(allowed, dtype=bool), color, MASKED_COLOR).tolist()


def masked_overlay(allowed: np.ndarray, **axes) -> go.Heatmap:
    """The grey overlay of a ``[R, C]`` map: z uint8 = 1 where ``allowed`` is False, else 0.

    No colour bar and no hover of its own (the values trace underneath answers the hover);
    ``axes`` (e.g. ``x=``, ``y=`` category labels) are passed to the trace.
    """
    z = (~np.asarray(allowed, dtype=bool)).astype(np.uint8)
    return go.Heatmap(
        z=z, zmin=0, zmax=1, colorscale=OVERLAY_SCALE, showscale=False, hoverinfo="skip", name="masked", **axes
    )
