"""viz's one head tiler, one masked-cell overlay and one token-label formatter, and the figures on them."""

import numpy as np
import pytest

from viz.heads import head_grid_figure, unique_labels
from viz.heatmap import matrix_heatmap
from viz.labels import cell_labels, escape, position_axis, token_labels
from viz.masking import OVERLAY_SCALE
from viz.overview import overview_figure, tile
from viz.position_schemes import tiled_heads_figure
from viz.positional import offset_matrix_figure
from viz.style import ATTENTION_SCALE, MASKED_COLOR
from viz.tiles import gap_shapes, tile_maps, tiling

TOKENS = ["the", "<b>", "a&b", "the", "2024", "<br>x"]


def maps(count, rows, cols, seed=0):
    return np.random.default_rng(seed).random((count, rows, cols)).astype(np.float32)


def causal(n):
    return np.tril(np.ones((n, n), dtype=bool))


@pytest.mark.parametrize("count,cols", [(7, 3), (4, 4), (1, 4), (5, 2)])
def test_tiler_places_head_h_at_row_h_div_c_col_h_mod_c_with_one_cell_gaps(count, cols):
    heads = maps(count, 3, 4)
    grid = tiling(count, (3, 4), max_cols=cols)
    z = tile_maps(heads, grid, fill=-1.0)
    c = min(count, cols)
    r = -(-count // c)
    assert z.shape == (r * 4 - 1, c * 5 - 1) and z.dtype == np.float32
    covered = np.zeros(z.shape, dtype=bool)
    for h in range(count):
        r0, c0 = (h // c) * (3 + 1), (h % c) * (4 + 1)
        np.testing.assert_array_equal(z[r0 : r0 + 3, c0 : c0 + 4], heads[h])
        covered[r0 : r0 + 3, c0 : c0 + 4] = True
    assert (z[~covered] == -1.0).all()  # gap rows, gap columns and empty slots hold the fill
    assert (z[3::4, :] == -1.0).all() and (z[:, 4::5] == -1.0).all()


def test_tiler_keeps_the_dtype_and_without_gaps_is_the_overview_layout():
    w = np.random.default_rng(1).dirichlet(np.ones(5), size=(2, 3, 5)).astype(np.float32)
    expected = w.transpose(0, 2, 1, 3).reshape(2 * 5, 3 * 5)  # row l*T + i, column h*T + j
    np.testing.assert_array_equal(tile(w), expected)
    codes = tile((w * 1000).astype(np.uint16))
    assert codes.dtype == np.uint16
    text = tile_maps(np.full((2, 1, 1), "x", dtype=object), tiling(2, (1, 1)), fill="gap")
    assert text.tolist() == [["x", "gap", "x"]]


def test_figures_that_tile_heads_draw_the_input_maps_in_place():
    weights = maps(6, 4, 5)
    z = np.asarray(head_grid_figure(weights, TOKENS[:4], TOKENS[:5], "t").data[0].z)
    bias = -maps(6, 4, 4, seed=2)
    zb = np.asarray(tiled_heads_figure(bias, "alibi").data[0].z)
    for h in range(6):
        r0 = (h // 4) * 5
        np.testing.assert_allclose(z[r0 : r0 + 4, (h % 4) * 6 : (h % 4) * 6 + 5], weights[h], atol=1e-7)
        b0 = (h // 4) * 8  # ALiBi's maps: 4 cells apart, room for a head's name between two rows of maps
        np.testing.assert_allclose(zb[b0 : b0 + 4, (h % 4) * 8 : (h % 4) * 8 + 4], bias[h], atol=1e-7)
    text = np.asarray(tiled_heads_figure(bias, "alibi").data[0].text)
    assert (
        text[0, 4] == "between heads" and text[8 + 2, 8 + 3] == "head 6<br>query 3 · key 4"
    )  # heads and positions from 1


def test_gaps_and_empty_slots_are_white_shapes_not_a_trace():
    grid = tiling(6, (4, 5), max_cols=4)  # 2 rows x 4 columns of tiles, 2 empty slots
    shapes = gap_shapes(grid)
    assert len(shapes) == 3 + 1 + 2 and all(s["fillcolor"] == "white" for s in shapes)
    assert shapes[0]["x0"] == 4.5 and shapes[0]["x1"] == 5.5  # the gap column between tiles 0 and 1
    fig = tiled_heads_figure(-maps(6, 4, 4), "alibi")
    assert len(fig.data) == 1 and len(fig.layout.shapes) == 6
    assert [a.text for a in fig.layout.annotations] == [f"head {h}" for h in range(1, 7)]


def assert_overlay(trace, masked):
    """A masked_overlay trace: 1 exactly on ``masked``, flat grey, no colour bar, no hover of its own."""
    np.testing.assert_array_equal(np.asarray(trace.z) == 1, masked)
    assert set(np.unique(trace.z)) <= {0, 1}
    assert trace.showscale is False and trace.hoverinfo == "skip" and trace.name == "masked"
    assert {c for position, c in trace.colorscale if position > 0.5} == {MASKED_COLOR}  # 1: flat grey
    assert {c for position, c in trace.colorscale if position < 0.5} == {"rgba(0,0,0,0)"}  # 0: see-through
    assert trace.zmin == 0 and trace.zmax == 1


def test_masked_cells_are_the_overlay_never_a_colour_of_the_scale():
    n = len(TOKENS)
    weights = np.where(causal(n), maps(1, n, n)[0], np.nan)  # NaN where masked: never reaches the figure
    fig = matrix_heatmap(weights, TOKENS, TOKENS, "t", mask=causal(n))
    assert len(fig.data) == 2 and fig.data[0].colorscale != fig.data[1].colorscale
    assert_overlay(fig.data[1], ~causal(n))
    z = np.asarray(fig.data[0].z)
    assert np.isfinite(z).all() and (z[~causal(n)] == 0).all()
    text = np.asarray(fig.data[0].text)
    assert all(t.endswith("<br>masked") for t in text[~causal(n)])
    assert not any("masked" in t for t in text[causal(n)])
    assert tuple(OVERLAY_SCALE[-1]) == (1.0, MASKED_COLOR) and MASKED_COLOR not in str(ATTENTION_SCALE)


def test_every_masked_figure_uses_the_one_overlay():
    n = 4
    heads = np.where(causal(n), maps(3, n, n), 0.0)
    tiled = head_grid_figure(heads, TOKENS[:n], TOKENS[:n], "g", mask=causal(n), max_cols=2)
    grid = tiling(3, (n, n), max_cols=2)
    assert_overlay(tiled.data[1], ~tile_maps(np.broadcast_to(causal(n), (3, n, n)), grid, fill=True))
    text = np.asarray(tiled.data[0].text)
    assert text[0, 1].endswith("<br>masked") and text[n, 0] == "between heads"
    overview = overview_figure(heads[None], TOKENS[:n], "ov", mask=causal(n))
    assert_overlay(overview.data[1], ~tile(np.broadcast_to(causal(n), (1, 3, n, n))))
    no_value = np.zeros((5, 5), dtype=bool)
    no_value[-1, -1] = True
    offset = offset_matrix_figure(np.ones((5, 5)), "M", masked=no_value)
    assert_overlay(offset.data[1], no_value)
    assert np.asarray(offset.data[0].text)[-1, -1] == "<br>masked" and "%{text}" in offset.data[0].hovertemplate


def test_labels_escape_plotly_markup_and_show_text_as_typed():
    assert escape("<b>bold</b>") == "&lt;b&gt;bold&lt;/b&gt;"
    assert escape("a<br>b") == "a&lt;br&gt;b" and escape("R&D") == "R&amp;D"
    assert token_labels(["<b>", "&", "<br>"]) == ["&lt;b&gt;", "&amp;", "&lt;br&gt;"]
    hover = cell_labels(["<b>"], ["a&b", "x"], "query", "key")
    assert hover.shape == (1, 2) and hover[0, 0] == "query 1: &lt;b&gt;<br>key 1: a&amp;b"


def test_repeated_tokens_stay_separate_positions_and_numbers_stay_labels():
    axis = position_axis(TOKENS)
    assert axis["tickvals"] == list(range(len(TOKENS))) and axis["tickmode"] == "array"
    assert axis["ticktext"] == ["the", "&lt;b&gt;", "a&amp;b", "the", "2024", "&lt;br&gt;x"]
    assert all(isinstance(v, int) for v in axis["tickvals"]) and isinstance(axis["ticktext"][4], str)
    fig = matrix_heatmap(maps(1, 6, 6)[0], TOKENS, TOKENS, "t")
    assert list(fig.layout.yaxis.tickvals) == [0, 1, 2, 3, 4, 5] and fig.layout.yaxis.ticktext[4] == "2024"
    assert fig.layout.xaxis.type is None and fig.data[0].x is None  # integer positions, not the token "2024"
    repeated = position_axis(["the", "the"], starts=(0, 3))
    assert repeated["tickvals"] == [0, 1, 3, 4] and repeated["ticktext"] == ["the"] * 4
    labels = unique_labels(["the", "2024", "the"])
    assert len(set(labels)) == 3 and labels[1] == "2024"


def test_the_head_grid_labels_queries_by_each_row_of_tiles_and_keys_under_the_first_column():
    fig = head_grid_figure(maps(5, 2, 3), ["q", "r"], ["<k>", "k", "2024"], "g", max_cols=3)
    assert list(fig.layout.xaxis.tickvals) == [0, 1, 2]  # the keys of every tile, read once
    assert list(fig.layout.xaxis.ticktext) == ["&lt;k&gt;", "k", "2024"]
    assert "the same in every head" in fig.layout.xaxis.title.text
    assert list(fig.layout.yaxis.tickvals) == [0, 1, 3, 4] and list(fig.layout.yaxis.ticktext) == ["q", "r"] * 2
    one_row = head_grid_figure(maps(1, 2, 3), ["q", "r"], ["a", "b", "c"], "g")
    assert one_row.layout.xaxis.title.text is None  # one tile: no need to say it


def test_the_head_grid_is_laid_out_once_with_margins_that_hold_its_labels():
    long_token = "internationalisation"
    fig = head_grid_figure(maps(4, 3, 3), ["a", long_token, "b"], ["a", long_token, "b"], "g")
    assert fig.layout.xaxis.automargin is False and fig.layout.yaxis.automargin is False
    written = 16  # characters: the axis writes it as its first 15 and "…" (viz.labels.LONGEST_LABEL)
    assert list(fig.layout.yaxis.ticktext)[1] == "internationalis…"
    assert fig.layout.margin.l >= 0.6 * 14 * written  # the longest query label fits on the left
    assert fig.layout.margin.b >= np.sin(np.radians(60)) * 0.6 * 14 * written  # the keys at -60 degrees
    assert [a.text for a in fig.layout.annotations] == [f"head {h}" for h in range(1, 5)]
    assert len(fig.data) == 2 and fig.data[1].name == "masked" and not np.asarray(fig.data[1].z).any()


def test_a_tiled_figure_tells_the_browser_how_to_wrap_its_grid():
    """layout.meta.tiles: the grid the figure was built on (ui/plotly_fit/grids.js wraps it where the plot is narrow)
    and the narrowest a tile may be drawn; the gaps it draws anew are the shapes named "gap"."""
    fig = head_grid_figure(maps(6, 5, 7), list("abcde"), list("abcdefg"), "grid", max_cols=4)
    # 7 keys of 13 px (a line of their names at 10 px) are wider than "head 6": 6 characters of 0.6 em at 15 px and 14
    assert fig.layout.meta["tiles"] == dict(count=6, rows=5, cols=7, across=4, gap=1, min_px=91.0)
    assert np.asarray(fig.data[0].z).shape == tiling(6, (5, 7), 4).shape
    assert {shape.name for shape in fig.layout.shapes} == {"gap"}
    long = head_grid_figure(maps(2, 41, 41), ["t"] * 41, ["t"] * 41, "grid")
    assert long.layout.meta["tiles"]["min_px"] == 520.0  # 13 px a key, but never more than 40 keys' 520 px asked for
    alibi = tiled_heads_figure(-maps(3, 4, 4), "alibi", per_row=2)["layout"]["meta"]["tiles"]
    assert (alibi["count"], alibi["across"], alibi["rows"], alibi["cols"]) == (3, 2, 4, 4)
