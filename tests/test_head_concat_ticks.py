"""The heads' outputs side by side: every head's tile names its first dimension, 0, and the last tile its last, as
Concat names each head's first column, so no tile is left without a scale."""

import numpy as np
import pytest

from viz.head_concat import head_outputs_figure


@pytest.mark.parametrize("count, width", [(2, 8), (12, 32)])
def test_every_heads_tile_names_its_first_dimension_and_the_last_tile_its_last(count, width):
    heads = np.random.default_rng(0).normal(size=(count, 3, width)).astype(np.float32)
    axis = head_outputs_figure(heads, ["a", "b", "c"], "heads").layout.xaxis
    assert list(axis.ticktext) == ["0"] * count + [str(width - 1)]
    # the columns named: each tile's first (a one-column gap between tiles) and the last tile's last
    firsts = [h * (width + 1) for h in range(count)]
    columns = list(head_outputs_figure(heads, ["a", "b", "c"], "heads").data[0].x)
    assert list(axis.tickvals) == [columns[f] for f in firsts] + [columns[firsts[-1] + width - 1]]
