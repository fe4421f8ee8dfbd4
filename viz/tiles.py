"""The one head tiler: ``[N, R, C]`` maps (heads, or layers x heads) placed on one grid.

Tile n sits at grid row ``n // cols`` and grid column ``n % cols``; ``gap`` blank cells
separate neighbouring tiles, so the grid is ``[rows(R+gap)-gap, cols(C+gap)-gap]`` cells and
tile n's top-left cell is ``(n // cols * (R + gap), n % cols * (C + gap))``. Many heads then
travel as ONE heatmap trace (docs/architecture.md, "Figures"). The gaps are drawn white by layout shapes
(``gap_shapes``), not by a trace of their own; masked cells by ``viz.masking.masked_overlay``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .labels import label_px, position_axis


@dataclass(frozen=True)
class Tiling:
    """Geometry of ``count`` tiles of ``[tile_rows, tile_cols]`` cells, ``cols`` tiles a row."""

    count: int
    tile_rows: int
    tile_cols: int
    cols: int
    gap: int = 1

    @property
    def rows(self) -> int:
        """Grid rows of tiles: ceil(count / cols)."""
        return -(-self.count // self.cols)

    @property
    def shape(self) -> tuple[int, int]:
        """Cells of the whole grid: ``(rows(R+gap)-gap, cols(C+gap)-gap)``."""
        return (self.rows * (self.tile_rows + self.gap) - self.gap, self.cols * (self.tile_cols + self.gap) - self.gap)

    def place(self, index: int) -> tuple[int, int]:
        """(grid row, grid column) of tile ``index``: (index // cols, index % cols)."""
        return index // self.cols, index % self.cols

    def origin(self, index: int) -> tuple[int, int]:
        """Cell (row, column) of tile ``index``'s top-left corner."""
        row, col = self.place(index)
        return row * (self.tile_rows + self.gap), col * (self.tile_cols + self.gap)

    @property
    def row_starts(self) -> list[int]:
        """First cell row of each grid row of tiles ``[rows]``."""
        return [self.origin(row * self.cols)[0] for row in range(self.rows)]

    @property
    def col_starts(self) -> list[int]:
        """First cell column of each grid column of tiles ``[cols]``."""
        return [self.origin(col)[1] for col in range(self.cols)]


def tiling(count: int, tile_shape: Sequence[int], max_cols: int = 4, gap: int = 1) -> Tiling:
    """The grid for ``count`` tiles of ``tile_shape`` ``(R, C)``: at most ``max_cols`` tiles a row."""
    return Tiling(count, int(tile_shape[0]), int(tile_shape[1]), max(1, min(count, max_cols)), gap)


def tile_maps(maps: np.ndarray, grid: Tiling, fill=0) -> np.ndarray:
    """Place ``maps`` ``[N, R, C]`` (any dtype, e.g. float weights, bool masks, str hover text)
    on ``grid``: returns ``grid.shape`` of the same dtype, ``fill`` in gaps and empty slots."""
    maps = np.asarray(maps)
    out = np.full(grid.shape, fill, dtype=maps.dtype)
    rows, cols = grid.tile_rows, grid.tile_cols
    for index in range(grid.count):
        r0, c0 = grid.origin(index)
        out[r0 : r0 + rows, c0 : c0 + cols] = maps[index]
    return out


def gap_shapes(grid: Tiling, color: str = "white") -> list[dict]:
    """Layout shapes that paint the gaps between tiles (a 3 px line where ``gap`` is 0) and the
    empty slots after the last tile, drawn above the heatmap.

    One band per boundary between grid columns (x in cells, spanning the plot's height), one per
    boundary between grid rows (y in cells, spanning its width), one rectangle per empty slot.
    """
    # a 1 px outline hides the anti-aliased seam where a band meets a tile (3 px: the line itself)
    style = dict(
        type="rect", fillcolor=color, line=dict(color=color, width=3 if grid.gap == 0 else 1), layer="above", name="gap"
    )
    shapes = [
        dict(xref="x", yref="paper", x0=c - grid.gap - 0.5, x1=c - 0.5, y0=0, y1=1, **style)
        for c in grid.col_starts[1:]
    ]
    shapes += [
        dict(xref="paper", yref="y", x0=0, x1=1, y0=r - grid.gap - 0.5, y1=r - 0.5, **style)
        for r in grid.row_starts[1:]
    ]
    for slot in range(grid.count, grid.rows * grid.cols):
        r0, c0 = grid.origin(slot)
        shapes.append(
            dict(
                xref="x",
                yref="y",
                x0=c0 - 0.5 - grid.gap,
                x1=c0 + grid.tile_cols - 0.5 + grid.gap,
                y0=r0 - 0.5 - grid.gap,
                y1=r0 + grid.tile_rows - 0.5 + grid.gap,
                **style,
            )
        )
    return shapes


def tile_titles(grid: Tiling, texts: Sequence[str], size: int = 13) -> list[dict]:
    """Annotations ``[N]``: ``texts[n]`` centred above tile n (inside the gap above it)."""
    notes = []
    for index, text in enumerate(texts):
        r0, c0 = grid.origin(index)
        notes.append(
            dict(
                x=c0 + (grid.tile_cols - 1) / 2,
                y=r0 - 0.5,
                text=text,
                showarrow=False,
                yanchor="bottom",
                font=dict(size=size),
            )
        )
    return notes


def tiled_axis(tokens: Sequence[str], starts: Sequence[int], max_ticks: int = 64, **extra) -> dict:
    """A token axis repeated over the tiles that begin at ``starts`` (see ``position_axis``),
    or no tick labels at all when more than ``max_ticks`` would not be readable."""
    if len(tokens) * len(starts) > max_ticks:
        return dict(showticklabels=False, showgrid=False, zeroline=False, **extra)
    return position_axis(tokens, starts=starts, **extra)


def wrap_meta(grid: Tiling, min_px: float) -> dict:
    """``layout.meta`` that lets the browser wrap the grid to fewer tiles a row where the plot is too narrow
    for ``grid.cols`` tiles of at least ``min_px`` px each (``ui/plotly_fit/grids.js``, down to one a row): the
    traces' cell grids (z, text, customdata) of ``grid.shape`` move tile by tile, the tick labels of the
    first tile repeat on the tiles that had their own, titles and shapes go with their tiles, the "gap"
    shapes are drawn again and every cell keeps its height."""
    return dict(
        tiles=dict(
            count=grid.count,
            rows=grid.tile_rows,
            cols=grid.tile_cols,
            across=grid.cols,
            gap=grid.gap,
            min_px=round(float(min_px), 1),
        )
    )


def narrowest_tile_px(
    titles: Sequence[str], cells: int, title_px: float = 15.0, cell_px: float = 8.0, most: float = 150.0
) -> float:
    """The narrowest a tile may be drawn: its title must fit (``title_px`` font, ``label_px`` estimate) and a
    cell be ``cell_px`` wide, but never more than ``most`` px is asked for (a long sentence's tiles
    would otherwise wrap to one a row on a wide screen)."""
    return min(most, max(label_px(titles, title_px) + 14, cell_px * cells))
