"""The Masks page draws the masks it claims, and the fully masked row reads NaN vs zeros."""

import numpy as np
import pytest
import torch

from tests.apptest_helpers import (
    title_text,
    assert_no_exception,
    assert_projector_fonts,
    chart_by_title,
    chart_specs,
    decode_array,
    run_page,
)

from transformer import HashTokenizer, TransformerConfig, build_model

PAGE = "pages/masks/page.py"
SECTIONS = ("Causal", "Padding", "Cross-attention", "Scores", "Causal vs bidirectional", "Fully masked row")


def no_nan_anywhere(at) -> None:
    for spec in chart_specs(at):
        for trace in spec["data"]:
            if "z" in trace:
                assert np.isfinite(decode_array(trace["z"]).astype(float)).all(), spec["layout"]["title"]["text"]


@pytest.fixture(scope="module")
def default_page():
    at = run_page(PAGE)
    assert_no_exception(at)
    return at


def section(name: str, params: dict | None = None):
    """The page with the tab ``name`` open (the URL's ``section``)."""
    at = run_page(PAGE, {**(params or {}), "section": name})
    assert_no_exception(at)
    return at


def test_only_the_open_tab_is_drawn(default_page):
    assert [spec["layout"]["title"]["text"] for spec in chart_specs(default_page)] == [
        "Causal mask for 8 tokens: key j ≤ query i, 36 of 64 cells allowed (grey = masked)"  # 8 · 9 / 2 allowed
    ]


def test_causal_padding_combined_and_cross_mask_cells(default_page):
    causal = decode_array(chart_by_title(default_page, "Causal mask for 8 tokens")["data"][0]["z"])
    assert np.array_equal(causal, np.tril(np.ones((8, 8))))
    default_page = section("Padding")
    drawn = chart_by_title(default_page, "Key-padding mask of the batch")
    batch = decode_array(drawn["data"][0]["z"])
    # each row named in full on a phone too: its number; its length is its blue cells
    assert drawn["layout"]["yaxis"]["ticktext"] == ["sentence 1", "sentence 2", "sentence 3"]
    lengths = [3, 6, 3]  # "The cat sat", "The cat sat on the mat", "Dogs bark loudly"
    assert np.array_equal(batch, (np.arange(6)[None, :] < np.array(lengths)[:, None]).astype(float))
    panels = [decode_array(t["z"]) for t in chart_by_title(default_page, "Masks combined")["data"]]
    pad = np.broadcast_to(np.arange(6) < 3, (6, 6))
    assert np.array_equal(panels[0], pad) and np.array_equal(panels[1], np.tril(np.ones((6, 6))))
    assert np.array_equal(panels[2], np.logical_and(pad, np.tril(np.ones((6, 6), bool))))
    default_page = section("Cross-attention")
    cross = decode_array(chart_by_title(default_page, "Cross-attention mask")["data"][0]["z"])
    assert cross.shape == (2, 6) and np.array_equal(cross, np.broadcast_to(np.arange(6) < 3, (2, 6)))


def test_the_mask_titles_count_what_their_masks_allow():
    """The batch "The cat sat", "The cat sat on the mat", "Dogs bark loudly": 3, 6 and 3 tokens, padded to 6."""
    padding = section("Padding")
    assert title_text(chart_by_title(padding, "Key-padding mask of the batch")).endswith(
        ": 6 of 18 positions are padding, in 2 of 3 sentences (grey = masked)"  # 3 + 0 + 3
    )
    # sentence 1, 3 real keys: padding allows 6 rows × 3 keys; causal 6 · 7 / 2; both 1 + 2 + 4 · 3
    assert title_text(chart_by_title(padding, "Masks combined")).endswith(
        "padding allows 18, causal 21, both 15 of 36 cells (grey = masked)"
    )
    cross = section("Cross-attention")
    assert title_text(chart_by_title(cross, "Cross-attention mask")).endswith(
        "every query reads the same 3 real source keys (grey = masked)"
    )
    lone = section("Causal", {"n": "1"})
    # one token masks nothing: its title has no key to a grey it does not draw
    assert title_text(chart_by_title(lone, "Causal mask for 1 token")).endswith("1 of 1 cell allowed")


def test_scores_masked_scores_and_renormalised_weights():
    default_page = section("Scores")
    mask = np.logical_and(np.broadcast_to(np.arange(6) < 3, (6, 6)), np.tril(np.ones((6, 6), bool)))
    before = chart_by_title(default_page, "1 · Scores before masking")["data"]
    assert len(before) == 1 and np.isfinite(decode_array(before[0]["z"])).all()
    masked = chart_by_title(default_page, "2 · Masked scores")["data"]
    assert np.array_equal(decode_array(masked[1]["z"]), ~mask)  # grey overlay exactly on masked cells
    weights_spec = chart_by_title(default_page, "3 · Weights after softmax")["data"]
    weights = decode_array(weights_spec[0]["z"])
    assert np.array_equal(decode_array(weights_spec[1]["z"]), ~mask)
    assert np.all(weights[~mask] == 0)
    assert np.allclose(weights.sum(axis=1), 1.0, atol=1e-5)
    scores = decode_array(before[0]["z"]).astype(np.float64)
    expected = np.where(mask, np.exp(scores - np.where(mask, scores, -np.inf).max(1, keepdims=True)), 0.0)
    assert np.allclose(weights, expected / expected.sum(1, keepdims=True), atol=1e-5)
    low, high = (f"{v:.2f}".replace("-", "−") for v in (scores.min(), scores.max()))
    assert title_text(chart_by_title(default_page, "1 · Scores")).endswith(f": from {low} to {high}")
    assert title_text(chart_by_title(default_page, "2 · Masked")).endswith(f", {(~mask).sum()} of 36 cells set to −∞")
    assert title_text(chart_by_title(default_page, "3 · Weights")).endswith(": each row sums to 1.00")


def test_causal_vs_bidirectional_side_by_side():
    default_page = section("Causal vs bidirectional")
    causal = decode_array(chart_by_title(default_page, "Causal (decoder")["data"][0]["z"])
    both = decode_array(chart_by_title(default_page, "Bidirectional (encoder")["data"][0]["z"])
    assert causal.shape == both.shape == (3, 3)
    assert np.allclose(np.triu(causal, 1), 0) and causal[0, 0] == pytest.approx(1.0)
    assert (both > 0).all() and np.allclose(both.sum(1), 1, atol=1e-5)
    said = title_text(chart_by_title(default_page, "Bidirectional (encoder"))
    assert said.endswith(f": token 1 puts {both[0, 0]:.2f} on itself (1.00 under the mask)")
    # the same random weights (layer 1, head 1), from the package itself, with and without the look-ahead mask
    config = TransformerConfig(d_model=64, num_heads=4, num_encoder_layers=2, num_decoder_layers=2)
    tokenizer = HashTokenizer()
    ids = torch.tensor([tokenizer.encode(tokenizer.tokenize("The cat sat"))])
    with torch.inference_mode():
        for kind, stack, drawn in (("decoder-only", "decoder", causal), ("encoder-only", "encoder", both)):
            record = build_model(config, 0, kind)(ids, return_attention=True).attention
            np.testing.assert_allclose(drawn, record.weights[f"{stack}.layers.0.self_attn"][0, 0].numpy(), atol=1e-5)


def test_fully_masked_row_reads_nan_then_zeros():
    default_page = section("Fully masked row")
    frame = [df.value for df in default_page.dataframe if "method" in df.value.columns][0]
    plain = frame[frame["method"] == "torch.softmax on -inf"].iloc[0]
    safe = frame[frame["method"] == "masked_softmax"].iloc[0]
    keys = [c for c in frame.columns if c not in ("method", "query")]
    assert all(plain[k] == "NaN" for k in keys)
    assert all(safe[k] == "0.000" for k in keys)
    spec = chart_by_title(default_page, "row 1 fully masked")["data"]
    weights, overlay = decode_array(spec[0]["z"]), decode_array(spec[1]["z"])
    assert np.all(weights[0] == 0) and np.all(overlay[0] == 1)
    assert np.allclose(weights[1:].sum(1), 1.0, atol=1e-5)
    # the title says what the table and the map show: the first row's weights 0, a plain softmax's NaN
    assert title_text(chart_by_title(default_page, "row 1 fully masked")) == (
        "masked_softmax with a left pad: row 1 fully masked, its weights 0 (a plain softmax: NaN)"
    )
    no_nan_anywhere(default_page)


@pytest.mark.parametrize(
    "params",
    [
        {"n": "1", "mask": "none", "d_model": "8", "heads": "8", "layers": "1"},
        {
            "n": "32",
            "mask": "padding",
            "d_model": "512",
            "heads": "16",
            "layers": "4",
            "layer": "4",
            "head": "15",
            "row": "sentence 2",
            "seed": "9999",
        },
        {"mask": "causal", "s1": "", "s3": "", "tgt": ""},
    ],
)
def test_controls_at_their_extremes(params):
    for name in SECTIONS[1:]:
        at = section(name, params)
        assert chart_specs(at) or name == "Cross-attention" and params.get("tgt") == ""
        no_nan_anywhere(at)
    at = run_page(PAGE, params)
    assert_no_exception(at)
    n = int(params.get("n", 8))
    causal = decode_array(chart_by_title(at, f"Causal mask for {n} token{'s' * (n > 1)}")["data"][0]["z"])
    assert np.array_equal(causal, np.tril(np.ones((n, n))))


def test_empty_batch_gives_a_prompt():
    for name in SECTIONS[1:]:
        at = section(name, {"s1": "", "s2": "", "s3": ""})
        assert any("Type at least one sentence" in i.value for i in at.info) and not chart_specs(at)
    assert chart_specs(run_page(PAGE, {"s1": "", "s2": "", "s3": ""}))  # the causal mask needs no batch


def test_shared_link_restores_the_view():
    params = {"n": "5", "s2": "a b c d e f g h", "row": "sentence 2", "mask": "causal", "layer": "2", "head": "3"}
    at = run_page(PAGE, params)
    assert at.slider(key="n").value == 5 and chart_by_title(at, "Causal mask for 5 tokens")
    at = section("Scores", params)
    assert at.selectbox(key="row").value == 1
    assert at.radio(key="mask").value == "causal" and at.select_slider(key="layer").value == 2
    assert at.select_slider(key="head").value == 3 and at.text_input(key="s2").value == "a b c d e f g h"  # from 1
    weights = chart_by_title(at, "3 · Weights after softmax")["data"]
    assert decode_array(weights[0]["z"]).shape == (8, 8)
    assert np.array_equal(decode_array(weights[1]["z"]), ~np.tril(np.ones((8, 8), bool)))
    assert "layer 2 · head 3" in chart_by_title(at, "1 · Scores before masking")["layout"]["title"]["text"]


@pytest.mark.parametrize(
    "name", ["Causal", "Padding", "Cross-attention", "Scores", "Causal vs bidirectional", "Fully masked row"]
)
def test_every_tab_is_readable_on_a_projector(name):
    specs = chart_specs(section(name))
    assert specs
    for spec in specs:
        assert_projector_fonts(spec)


def test_numbers_are_built_only_when_their_expander_is_open():
    assert not section("Scores").dataframe
    at = section("Scores", {"numbers": "true", "section": "Scores"})
    table = at.dataframe[0].value
    weights = decode_array(chart_by_title(at, "3 · Weights after softmax")["data"][0]["z"])
    assert np.allclose(table.drop(columns="row sum").to_numpy(), weights.round(3), atol=1e-3)
    assert np.allclose(table["row sum"], 1.0)
    padded = section("Padding", {"padded": "true"}).dataframe[0].value
    assert padded.shape == (3, 6) and list(padded.iloc[0]) == ["The", "cat", "sat", "<pad>", "<pad>", "<pad>"]


def test_the_caption_names_the_model_behind_the_settings_button():
    """The random model's settings are behind a button; the caption names its sizes, read from the model, at
    the defaults and after they move, and the Scores section draws that model's heads."""
    at = run_page(PAGE)
    assert_no_exception(at)
    assert any("(random encoder-only · seed 0: 2 layers, 4 heads, d_model = 64)" in c.value for c in at.caption)
    at = run_page(PAGE, {"d_model": "32", "heads": "2", "layers": "3", "section": "Scores"})
    assert_no_exception(at)
    assert any("(random encoder-only · seed 0: 3 layers, 2 heads, d_model = 32)" in c.value for c in at.caption)
    assert at.select_slider(key="head").options == ["1", "2"]
