"""The encoder-decoder page's Dropout section and its model presets under AppTest: the seeded mask applied to
the model's own numbers, a checkpoint's own rate, the paper's sizes and shared embeddings."""

import numpy as np
import pytest
import torch

from tests.apptest_helpers import (
    assert_no_exception,
    chart_by_title,
    chart_specs,
    decode_array,
    run_random_model as run_page,
)
from tests.test_page_encoder_decoder import PAGE, SRC, TGT, heatmap_z, open_section, tokens
from transformer import BOS_ID, TransformerConfig, build_model


def recorded(config, seed=0, src=SRC, tgt=TGT):
    """The forward record with internals of a freshly built model, teacher-forced (evaluation mode)."""
    _, src_ids = tokens(src)
    _, tgt_ids = tokens(tgt)
    with torch.inference_mode():
        return build_model(config, seed)(
            torch.tensor([src_ids]), torch.tensor([[BOS_ID] + tgt_ids[:-1]]), return_internals=True
        ).attention


def trace(spec, name):
    return next(t for t in spec["data"] if t.get("name") == name)


def dropout_panels(at, layer, head):
    """(weights spec, activations spec) of the Dropout tab; the weights figure names its head."""
    weights = chart_by_title(at, f"Encoder layer {layer} · head {head} · self-attention weights before and after")
    activations = next(s for s in chart_specs(at) if "output before the residual add" in s["layout"]["title"]["text"])
    return weights, activations


def assert_dropout_of(before, after, p):
    """Every drawn "after" value is 0 or its "before" value / (1 - p); returns the dropped cells."""
    dropped = after == 0
    np.testing.assert_allclose(after[~dropped], before[~dropped] / (1 - p), rtol=1e-6)
    return dropped


def test_dropout_tab_applies_a_seeded_mask_to_the_models_own_numbers():
    p = 0.3
    params = {"section": "Dropout", "dropout": str(p), "drop_seed": "7", "drop_head": "head 2", "enc_layer": "2"}
    at = run_page(PAGE, params)
    assert_no_exception(at)
    assert at.number_input(key="drop_seed").value == 7 and at.select_slider(key="enc_layer").value == 2
    assert at.select_slider(key="drop_head").value == 2  # "head 2" in the link: the option as shown
    weights, activations = dropout_panels(at, 2, 2)
    record = recorded(TransformerConfig(dropout=p))
    before, after = (decode_array(trace(weights, n)["z"]).astype(np.float64) for n in ("before", "after"))
    np.testing.assert_allclose(before, record.numpy("encoder.layers.1.self_attn")[1], atol=1e-6)  # evaluation A
    np.testing.assert_allclose(before.sum(-1), 1.0, atol=1e-5)
    dropped = assert_dropout_of(before, after, p)
    assert 0 < dropped.sum() < dropped.size
    marks = trace(weights, "dropped")  # one "×" per dropped cell, at its (key, query) labels
    rows, cols = trace(weights, "before")["y"], trace(weights, "before")["x"]
    assert sorted(zip(marks["y"], marks["x"])) == sorted((rows[i], cols[j]) for i, j in zip(*np.nonzero(dropped)))
    sums = decode_array(trace(weights, "row sums")["x"]).astype(np.float64)
    np.testing.assert_allclose(sums, after.sum(-1), atol=1e-5)
    assert not np.allclose(sums, 1.0)
    x_before, x_after = (decode_array(trace(activations, n)["z"]).astype(np.float64) for n in ("before", "after"))
    np.testing.assert_allclose(x_before, record.internals["encoder.layers.1.self_attn.out"][0].numpy(), atol=1e-5)
    dropped = assert_dropout_of(x_before, x_after, p)
    np.testing.assert_array_equal(decode_array(trace(activations, "dropped")["z"]) == 1, dropped)
    assert abs(dropped.mean() - p) < 0.1  # 384 entries: the kept share is near 1 - p
    again = dropout_panels(run_page(PAGE, params), 2, 2)[0]  # same seed: same mask
    assert decode_array(trace(again, "after")["z"]).tolist() == decode_array(trace(weights, "after")["z"]).tolist()
    other = dropout_panels(run_page(PAGE, {**params, "drop_seed": "8"}), 2, 2)[1]
    assert (decode_array(trace(other, "after")["z"]) != decode_array(trace(activations, "after")["z"])).any()


def test_dropout_p_zero_draws_the_same_numbers_before_and_after():
    at = run_page(PAGE, {"section": "Dropout", "dropout": "0.0", "drop_sub": "feed-forward"})
    assert_no_exception(at)
    weights, activations = dropout_panels(at, 1, 1)
    for spec in (weights, activations):
        np.testing.assert_array_equal(decode_array(trace(spec, "before")["z"]), decode_array(trace(spec, "after")["z"]))
    assert not trace(weights, "dropped")["x"] and not decode_array(trace(activations, "dropped")["z"]).any()
    np.testing.assert_allclose(decode_array(trace(weights, "row sums")["x"]), 1.0, atol=1e-5)
    record = recorded(TransformerConfig(dropout=0.0))
    np.testing.assert_allclose(
        decode_array(trace(activations, "before")["z"]),
        record.internals["encoder.layers.0.feed_forward.out"][0].numpy(),
        atol=1e-5,
    )
    assert "feed-forward output" in activations["layout"]["title"]["text"]


@pytest.mark.parametrize(
    "params",
    [
        {
            "enc": "6",
            "d_model": "512",
            "heads": "16",
            "dropout": "0.5",
            "norm": "pre-LN",
            "enc_layer": "6",
            "drop_head": "head 16",
            "drop_seed": "9999",
            "src": " ".join(f"w{i}" for i in range(64)),
        },
        {"d_model": "8", "heads": "8", "d_ff": "16", "dropout": "0.05", "src": "a", "pe": "none"},
    ],
    ids=["largest", "smallest"],
)
def test_dropout_tab_at_the_extremes(params):
    at = run_page(PAGE, {"section": "Dropout", **params})
    assert_no_exception(at)
    specs = chart_specs(at)
    assert len(specs) == 2
    p = float(params["dropout"])
    for spec in specs:
        assert spec["layout"]["title"]["font"]["size"] == 18
        before, after = (decode_array(trace(spec, n)["z"]).astype(np.float64) for n in ("before", "after"))
        assert np.isfinite(after).all() and np.isfinite(before).all()
        assert_dropout_of(before, after, p)
    assert decode_array(trace(specs[1], "after")["z"]).shape[1] == min(int(params["d_model"]), 64)


def test_a_checkpoint_gets_its_own_dropout_rate_slider():
    at = run_page(PAGE)
    reverse = next(o for o in at.selectbox(key="model").options if o.startswith("reverse"))
    at = run_page(PAGE, {"model": reverse, "section": "Dropout", "drop_p": "0.2"})
    assert_no_exception(at)
    assert at.slider(key="drop_p").value == 0.2
    weights, activations = dropout_panels(at, 1, 1)
    for spec in (weights, activations):
        assert_dropout_of(
            decode_array(trace(spec, "before")["z"]).astype(np.float64),
            decode_array(trace(spec, "after")["z"]).astype(np.float64),
            0.2,
        )


def paper_parameters(vocab: int = 4096, d: int = 512, d_ff: int = 2048, layers: int = 6) -> int:
    """The paper's base model counted by hand: one V x d matrix for both embeddings and the output layer
    (which adds only its bias), post-LN layers with biases everywhere, sinusoids (no parameters)."""
    attention = 4 * (d * d + d)  # W^Q, W^K, W^V, W^O and their biases
    feed_forward = d * d_ff + d_ff + d_ff * d + d
    layer_norm = 2 * d  # gain and bias
    encoder_layer = attention + feed_forward + 2 * layer_norm
    decoder_layer = 2 * attention + feed_forward + 3 * layer_norm
    return vocab * d + layers * (encoder_layer + decoder_layer) + vocab


def test_the_papers_sizes_preset_runs_and_its_count_is_the_closed_form():
    at = run_page(PAGE, {"section": "Architecture"})
    at.button(key="paper").click().run()
    assert_no_exception(at)
    assert (
        at.slider(key="enc").value,
        at.slider(key="dec").value,
        at.select_slider(key="d_model").value,
        at.select_slider(key="heads").value,
        at.select_slider(key="d_ff").value,
    ) == (6, 6, 512, 8, 2048)
    assert at.toggle(key="shared").value and at.selectbox(key="norm").value == "post"
    assert at.selectbox(key="act").value == "relu" and at.selectbox(key="pe").value == "sinusoidal"
    table = next(df.value for df in at.dataframe if "counted in the model" in df.value.columns)
    total = table[table["component"] == "total"].iloc[0]
    assert total["closed-form count"] == total["counted in the model"] == paper_parameters() == 46_239_744
    dot = at.get("graphviz_chart")[0].proto.spec
    assert "[6 x 512]" in dot and "6 x layer" in dot
    attention = chart_by_title(open_section(at, "Attention"), "Layer 1 · all 8 heads · encoder self-attention")
    n = len(tokens(SRC)[0])
    tiles = heatmap_z(attention)
    for h in range(4):  # the first row of tiles: 4 heads side by side
        np.testing.assert_allclose(tiles[:n, h * (n + 1) : h * (n + 1) + n].sum(-1), 1.0, atol=1e-5)


def test_shared_embeddings_are_one_matrix_for_source_target_and_output():
    from transformer.config import paper_base_config

    model = build_model(paper_base_config(vocab_size=50, max_len=16), 3)
    embedding = model.src_embed.tokens.weight
    assert model.tgt_embed.tokens.weight is embedding
    assert sum(p.numel() for p in model.parameters()) == paper_parameters(vocab=50)
    src, tgt = torch.tensor([[5, 6, 7]]), torch.tensor([[BOS_ID, 8]])
    with torch.inference_mode():
        out = model(src, tgt)
        expected = out.hidden @ embedding.T + model.generator.bias  # pre-softmax weights = the embedding
    np.testing.assert_allclose(out.logits.numpy(), expected.numpy(), atol=1e-4)
    with pytest.raises(ValueError, match="one vocabulary"):
        TransformerConfig(share_embeddings=True, src_vocab_size=10, tgt_vocab_size=11)
