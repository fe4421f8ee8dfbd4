"""One numbering on screen: hovers and position axes count positions from 1 (docs/architecture.md, "Figures"), while the
data stay at their integer positions. The sinusoids' own index (PE[pos], pos from 0) says so on its axes."""

import json

import numpy as np
import pytest

from tests.apptest_helpers import assert_no_exception, chart_by_title, decode_array, run_page
from viz.attention_steps import attention_weights_figure, query_bar_figure, signed_matrix_figure
from viz.heads import head_grid_figure
from viz.labels import cell_labels, position_label, position_ticks
from viz.masks import mask_panels_figure
from viz.position_schemes import schemes_figure, tiled_heads_figure
from viz.positional import offset_matrix_figure, pe_curves_figure, pe_matrix_figure, similarity_figure
from viz.word_order import word_rows_figure

TOKENS = ["The", "cat", "didn't"]


def spec_of(fig) -> dict:
    return json.loads(fig.to_json())


def test_a_hover_label_names_the_first_token_position_1():
    assert position_label("query", 0, "The") == "query 1: The"
    assert position_label("key", 2, "<b>") == "key 3: &lt;b&gt;"
    hover = cell_labels(TOKENS, TOKENS)
    assert hover[0, 0] == "query 1: The<br>key 1: The"
    assert hover[2, 1] == "query 3: didn't<br>key 2: cat"
    assert position_label("dim", 0, "0") == "dim 0"  # dimensions are not positions: their own numbers, from 0


def test_a_matrix_hovers_query_1_and_key_1_at_its_first_cell():
    weights = np.full((3, 3), 1 / 3, dtype=np.float32)
    text = spec_of(attention_weights_figure(weights, TOKENS, "A"))["data"][0]["text"]
    assert text[0][0] == "query 1: The<br>key 1: The" and text[2][0] == "query 3: didn't<br>key 1: The"
    grid = spec_of(head_grid_figure(np.stack([weights, weights]), TOKENS, TOKENS, "heads"))["data"][0]["text"]
    assert grid[0][0] == "head 1<br>query 1: The<br>key 1: The"
    scores = spec_of(signed_matrix_figure(weights, TOKENS, TOKENS, "S", col_name="key"))["data"][0]["text"]
    assert scores[1][2] == "query 2: cat<br>key 3: didn't"
    vectors = spec_of(signed_matrix_figure(np.ones((3, 2), np.float32), TOKENS, ["0", "1"], "X"))["data"][0]["text"]
    assert vectors[0][1] == "token 1: The<br>dim 1"
    masks = spec_of(mask_panels_figure([np.tril(np.ones((3, 3), bool))], ["causal"], TOKENS, TOKENS, "M"))
    assert masks["data"][0]["text"][0][0] == "query 1: The<br>key 1: The<br>may attend"


def test_bars_over_keys_hover_key_1_and_a_row_is_titled_from_1():
    weights = np.tril(np.ones((3, 3), np.float32)) / np.arange(1, 4, dtype=np.float32)[:, None]
    bar = spec_of(query_bar_figure(weights, np.tril(np.ones((3, 3), bool)), TOKENS, 2))
    assert bar["data"][0]["hovertext"][0] == "key 1: The"
    assert bar["layout"]["title"]["text"].startswith("Row 3 of A")
    rows = spec_of(word_rows_figure([weights[2]], [weights[2]], TOKENS, "didn't", ["none"], ["A", "B"]))
    assert rows["data"][0]["customdata"][0] == "key 1: The"


def test_position_ticks_start_at_the_first_position_and_sit_on_the_data():
    assert position_ticks(8) == dict(
        tickmode="array", tickvals=[0, 1, 2, 3, 4, 5, 6, 7], ticktext=["1", "2", "3", "4", "5", "6", "7", "8"]
    )
    ticks = position_ticks(32, at=1)
    assert ticks["tickvals"][0] == 1 and ticks["ticktext"][0] == "1" and ticks["ticktext"][-1] == "30"
    assert position_ticks(100, first=0)["ticktext"][:2] == ["0", "20"]


def test_positional_figures_count_positions_from_1_except_the_formula_index():
    panel = np.eye(32, dtype=np.float32)
    schemes = spec_of(schemes_figure([panel, panel], ["a", "b"]))
    assert decode_array(schemes["data"][0]["x"])[0] == 1 and decode_array(schemes["data"][0]["y"])[-1] == 32
    assert schemes["layout"]["xaxis"]["tickvals"][0] == 1 and schemes["layout"]["xaxis"]["ticktext"][0] == "1"
    assert schemes["layout"]["yaxis"]["ticktext"][0] == "1" and schemes["layout"]["xaxis2"]["ticktext"][0] == "1"
    learned = spec_of(pe_matrix_figure(np.zeros((100, 4), np.float32), "P", "P", first=1))
    assert learned["layout"]["yaxis"]["tickvals"][0] == 1 and learned["layout"]["yaxis"]["ticktext"][0] == "1"
    assert learned["layout"]["yaxis"]["ticktext"][-1] == "100"
    similar = spec_of(similarity_figure(np.eye(100, dtype=np.float32), "P·P", "P·P", first=1))
    assert similar["layout"]["xaxis"]["ticktext"][0] == "1" and similar["layout"]["yaxis"]["ticktext"][0] == "1"
    rope = spec_of(offset_matrix_figure(np.zeros((48, 48), np.float32), "RoPE"))
    assert rope["layout"]["xaxis"]["ticktext"][0] == "1" and decode_array(rope["data"][0]["y"])[0] == 1
    alibi = spec_of(tiled_heads_figure(np.zeros((2, 4, 4), np.float32), "ALiBi"))
    assert alibi["data"][0]["text"][0][0] == "head 1<br>query 1 · key 1"
    # the sinusoids: PE[pos] with the paper's pos from 0, and the axes say so
    table = spec_of(pe_matrix_figure(np.zeros((100, 4), np.float32), "PE"))
    assert table["layout"]["yaxis"]["ticktext"][0] == "0" and "from 0" in table["layout"]["yaxis"]["title"]["text"]
    curves = spec_of(pe_curves_figure(np.zeros((10, 4), np.float32), [0], np.array([6.3, 630.0])))
    assert "from 0" in curves["layout"]["xaxis"]["title"]["text"]
    sinusoid = spec_of(similarity_figure(np.eye(10, dtype=np.float32), "PE·PE"))
    assert (
        sinusoid["layout"]["xaxis"]["ticktext"][0] == "0" and "from 0" in sinusoid["layout"]["yaxis"]["title"]["text"]
    )
    shift = spec_of(offset_matrix_figure(np.eye(4, dtype=np.float32), "M_k", "output dim", "input dim", first=None))
    assert "tickvals" not in shift["layout"]["xaxis"]  # dimensions: Plotly's own ticks, from 0


@pytest.mark.parametrize(
    "section,title,axes",
    [
        ("Causal", "Causal mask for 8 tokens", ("xaxis", "yaxis")),
        ("Padding", "Key-padding mask of the batch", ("xaxis",)),
    ],
)
def test_the_masks_page_numbers_its_position_axes_from_1(section, title, axes):
    at = run_page("pages/masks/page.py", {"section": section})
    assert_no_exception(at)
    spec = chart_by_title(at, title)
    for axis in axes:
        assert spec["layout"][axis]["ticktext"][:3] == ["1", "2", "3"]
        assert spec["layout"][axis]["tickvals"][:3] == [0, 1, 2]  # the data stay at positions 0, 1, 2
    assert spec["data"][0]["text"][0][0].startswith("sentence 1" if section == "Padding" else "query 1: 1")


def test_the_positional_encoding_page_numbers_its_position_axes_from_1():
    at = run_page("pages/positional_encoding/page.py", {"section": "Schemes", "scheme": "Learned"})
    assert_no_exception(at)
    schemes = chart_by_title(at, "Position term between query m and key n")
    assert schemes["layout"]["xaxis"]["ticktext"][0] == "1" and schemes["layout"]["yaxis"]["ticktext"][0] == "1"
    table = chart_by_title(at, "Untrained learned table")
    assert table["layout"]["yaxis"]["tickvals"][0] == 1 and table["layout"]["yaxis"]["ticktext"][0] == "1"
    assert table["layout"]["yaxis"]["ticktext"][-1] == "100"  # 100 positions: 1 to 100
