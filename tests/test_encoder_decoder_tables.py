"""Parameter counts, the shapes table and one layer step by step, against the real model."""

import numpy as np
import pytest
import torch

from transformer import BOS_ID, TransformerConfig, build_model
from analysis.decoder_tables import id_names, shifted_right, top_k
from pages.encoder_decoder.layer_steps import layer_steps
from ui.forward import ForwardView
from analysis.parameters import closed_form_parameters, counted_parameters, shape_table

CONFIGS = [
    TransformerConfig(),
    TransformerConfig(
        d_model=8,
        num_heads=8,
        num_encoder_layers=1,
        num_decoder_layers=3,
        d_ff=16,
        positional="learned",
        norm_first=True,
    ),
    TransformerConfig(
        d_model=24,
        num_heads=3,
        num_encoder_layers=3,
        num_decoder_layers=1,
        d_ff=2048,
        positional="alibi",
        activation="gelu",
        src_vocab_size=100,
        tgt_vocab_size=50,
    ),
    TransformerConfig(d_model=32, num_heads=2, positional="rotary", norm_first=True, bias=False, max_len=40),
]


@pytest.mark.parametrize("norm_first", [False, True])
def test_parameter_counts_of_an_attention_only_bert_like_model(norm_first):
    config = TransformerConfig(
        d_model=16,
        num_heads=2,
        feed_forward=False,
        output_head="tied",
        type_vocab_size=2,
        embed_norm=True,
        positional="learned",
        norm_first=norm_first,
    )
    model = build_model(config, 0)
    closed = closed_form_parameters(config)
    assert {k: v for k, v in counted_parameters(model).items() if v} == {k: v for k, v in closed.items() if v}
    assert sum(closed.values()) == sum(p.numel() for p in model.parameters())


@pytest.mark.parametrize("config", CONFIGS)
def test_parameter_counts_match_numel_and_the_closed_form(config):
    model = build_model(config, 0)
    counted = counted_parameters(model)
    closed = closed_form_parameters(config)
    assert counted == closed
    total = sum(p.numel() for p in model.parameters())
    assert sum(closed.values()) == total
    d, f, v = config.d_model, config.d_ff, config.tgt_vocab_size
    if config.bias:  # the formulas as the page writes them
        assert closed["encoder self-attention"] == config.num_encoder_layers * 4 * (d * d + d)
        assert closed["decoder feed-forward"] == config.num_decoder_layers * (2 * d * f + f + d)
    assert closed["generator (linear to vocabulary)"] == d * v + (v if config.bias else 0)  # b^O only with biases


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("src_len,tgt_len", [(1, 1), (5, 3), (12, 17)])
def test_shape_table_matches_the_tensors_of_a_forward_pass(config, src_len, tgt_len):
    model = build_model(config, 0)
    src = torch.arange(4, 4 + src_len)[None]
    tgt = torch.arange(4, 4 + tgt_len)[None] % config.tgt_vocab_size
    with torch.inference_mode():
        out = model(src, tgt, return_attention=True)
        x = model.src_embed(src)
        enc0 = model.encoder.layers[0]
        memory = model.encode(src)
        y = model.tgt_embed(tgt)
        dec0 = model.decoder.layers[0]
        actual = {
            "source token ids": src[0].shape,
            "source embedding x sqrt(d_model) + PE": x[0].shape,
            "encoder: Q, K, V split into heads": enc0.self_attn.split_heads(enc0.self_attn.w_q(x))[0].shape,
            "encoder self-attention weights": out.attention.weights["encoder.layers.0.self_attn"][0].shape,
            "encoder: heads concatenated, times W^O": enc0.self_attn(x, x, x)[0][0].shape,
            "encoder feed-forward hidden units": enc0.feed_forward.hidden(x)[0].shape,
            "encoder output (memory)": memory[0].shape,
            "decoder input ids (target shifted right)": tgt[0].shape,
            "target embedding x sqrt(d_model) + PE": y[0].shape,
            "decoder masked self-attention weights": out.attention.weights["decoder.layers.0.self_attn"][0].shape,
            "cross-attention: Q from decoder": dec0.cross_attn.split_heads(dec0.cross_attn.w_q(y))[0].shape,
            "cross-attention: K, V from memory": dec0.cross_attn.split_heads(dec0.cross_attn.w_k(memory))[0].shape,
            "cross-attention weights": out.attention.weights["decoder.layers.0.cross_attn"][0].shape,
            "decoder feed-forward hidden units": dec0.feed_forward.hidden(y)[0].shape,
            "decoder output": model.decode(tgt, memory)[0].shape,
            "logits and probabilities": out.logits[0].shape,
        }
    table = shape_table(config, src_len, tgt_len)
    assert dict(zip(table["step"], table["dims"])) == {k: tuple(v) for k, v in actual.items()}
    assert table["shape"].iloc[3] == f"[{config.num_heads} x {src_len} x {src_len}]"


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_layer_steps_rebuild_the_layer_exactly(norm_first, activation):
    config = TransformerConfig(
        d_model=32, num_heads=4, num_encoder_layers=3, norm_first=norm_first, activation=activation
    )
    model = build_model(config, 3)
    ids = (5, 9, 11, 5, 40)
    with torch.inference_mode():
        record = model(torch.tensor([ids]), torch.tensor([[1, 7]]), return_internals=True).attention
    view = ForwardView({}, {}, {}, {k: v[0].numpy() for k, v in record.internals.items()}, None, "test")
    steps = layer_steps(view, 1, norm_first)
    with torch.inference_mode():
        x = model.encoder.layers[0](model.src_embed(torch.tensor([ids])))
        expected = model.encoder.layers[1](x)[0].numpy()
        ln2_input = steps.norms[1][1]
        hidden = model.encoder.layers[1].feed_forward.hidden(
            torch.from_numpy(steps.norms[1][2] if norm_first else steps.stages[3][1])
        )
    np.testing.assert_allclose(steps.stages[0][1], x[0].numpy(), atol=1e-5)
    np.testing.assert_allclose(steps.stages[-1][1], expected, atol=1e-5)
    for _, _, after in steps.norms:  # gain 1, bias 0 at init: each token has mean 0, std 1
        np.testing.assert_allclose(after.mean(-1), 0, atol=1e-5)
        np.testing.assert_allclose(after.std(-1), 1, atol=1e-3)
    assert ln2_input.shape == (len(ids), 32)
    np.testing.assert_allclose(steps.ffn_active, (hidden > 0).float().mean(-1).numpy(), atol=1e-6)
    assert np.all((steps.ffn_active >= 0) & (steps.ffn_active <= 1))


def test_teacher_forcing_shift_and_token_names():
    tokens, ids = shifted_right(("le", "chat", "dort"), (10, 11, 12))
    assert tokens == ("<s>", "le", "chat") and ids == (BOS_ID, 10, 11)
    names = id_names((("a", "b"), (7, 8)), (("c",), (7,)))
    assert names[7] == "a / c" and names[BOS_ID] == "<s>"
    table = top_k(np.array([0.1, 0.5, 0.0, 0.4], np.float32), 3, names)
    assert list(table["id"]) == [1, 3, 0] and list(table["token"]) == ["<s>", "<unk>", "<pad>"]


def test_layer_steps_of_an_attention_only_layer():
    """No feed-forward: the steps stop after LayerNorm 1, and no unit fires."""
    config = TransformerConfig(d_model=16, num_heads=2, num_encoder_layers=2, feed_forward=False)
    model = build_model(config, 1)
    with torch.inference_mode():
        record = model(torch.tensor([[5, 6, 7]]), torch.tensor([[1, 8]]), return_internals=True).attention
    view = ForwardView({}, {}, {}, {k: v[0].numpy() for k, v in record.internals.items()}, None, "test")
    steps = layer_steps(view, 0, False)
    assert [name for name, _ in steps.stages][-1] != "LayerNorm 2 = output" and len(steps.norms) == 1
    np.testing.assert_allclose(steps.stages[-1][1], record.internals["encoder.layers.0.after_feed_forward"][0])
    assert (steps.ffn_active == 0).all()
