import dataclasses

import pytest
import torch

from transformer import TransformerConfig, build_model, divisors


def test_every_field_has_a_default():
    missing = [
        f.name
        for f in dataclasses.fields(TransformerConfig)
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    ]
    assert not missing


def test_a_default_model_computes_what_the_paper_writes():
    """The defaults are the paper's design, read from what a default model computes: embeddings times
    sqrt(d_model) plus PE(pos, 2i) = sin(pos / 10000^(2i/d_model)), PE(pos, 2i+1) = cos(...); scores
    QK^T / sqrt(d_k); post-LN sublayers, LayerNorm(x + Sublayer(x)); FFN(x) = max(0, x W1 + b1) W2 + b2."""
    model = build_model(TransformerConfig(), seed=0)
    src, tgt = torch.tensor([[5, 17, 300, 42, 9]]), torch.tensor([[1, 7, 8]])
    with torch.inference_mode():
        record = model(src, tgt, return_internals=True, return_scores=True).attention
    inside, d_model = record.internals, 64
    position, even = torch.arange(5.0)[:, None], torch.arange(0, d_model, 2)
    angle = position / 10000.0 ** (even / d_model)
    encoding = torch.stack([angle.sin(), angle.cos()], dim=-1).reshape(5, d_model)
    table = model.state_dict()["src_embed.tokens.weight"]
    torch.testing.assert_close(inside["encoder.embed"][0], table[src[0]] * d_model**0.5 + encoding)
    q, k = inside["encoder.layers.0.self_attn.q"], inside["encoder.layers.0.self_attn.k"]
    torch.testing.assert_close(record.scores["encoder.layers.0.self_attn"], q @ k.transpose(-1, -2) / 16**0.5)
    for name in ("encoder.layers.0", "decoder.layers.1"):
        residual = inside[f"{name}.input"] + inside[f"{name}.self_attn.out"]
        torch.testing.assert_close(inside[f"{name}.norm1.in"], residual)
        torch.testing.assert_close(inside[f"{name}.after_self_attn"], inside[f"{name}.norm1.out"])
        hidden = inside[f"{name}.feed_forward.hidden"]
        assert hidden.min() == 0 and (hidden == 0).float().mean() > 0.2  # ReLU: about half the units are off


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        ({"d_model": 10, "num_heads": 3}, "choose num_heads from [1, 2, 5, 10]"),
        ({"d_model": 0}, "d_model must be at least 1"),
        ({"num_heads": 0}, "num_heads must be at least 1"),
        ({"num_encoder_layers": 0}, "num_encoder_layers must be at least 1"),
        ({"d_ff": -3}, "d_ff must be at least 1"),
        ({"dropout": 1.0}, "dropout must be in [0, 1)"),
        ({"dropout": -0.1}, "dropout must be in [0, 1)"),
        ({"positional": "wavelet"}, "positional='wavelet' is unknown"),
        ({"activation": "tanh"}, "activation='tanh' is unknown"),
        ({"pe_base": 0.0}, "pe_base must be positive"),
        ({"d_model": 12, "num_heads": 4, "positional": "rotary"}, "must be even"),
        ({"d_model": 2.5}, "whole number"),
        ({"output_head": "shared"}, "output_head='shared' is unknown"),
        ({"type_vocab_size": -1}, "type_vocab_size must be a whole number >= 0"),
        ({"layer_norm_eps": 0.0}, "layer_norm_eps must be positive"),
        ({"output_bias": 1}, "output_bias must be True or False"),
        ({"patch_size": 3}, "patch_size 3 does not divide image_size 8: pick 1, 2, 4 or 8"),
        ({"channels": 0}, "channels must be at least 1"),
    ],
)
def test_bad_config_says_what_to_change(kwargs, fragment):
    with pytest.raises(ValueError) as error:
        TransformerConfig(**kwargs)
    assert fragment in str(error.value)


CHANGED = {
    "d_model": 32,
    "num_heads": 2,
    "num_encoder_layers": 1,
    "num_decoder_layers": 3,
    "d_ff": 64,
    "dropout": 0.0,
    "positional": "rotary",
    "pe_base": 500.0,
    "max_len": 64,
    "norm_first": True,
    "activation": "gelu",
    "scale_scores": False,
    "src_vocab_size": 100,
    "tgt_vocab_size": 200,
    "bias": False,
    "layer_norm_eps": 1e-12,
    "embed_scale": False,
    "type_vocab_size": 2,
    "embed_norm": True,
    "output_head": "tied",
    "feed_forward": False,
    "share_embeddings": True,
    "output_bias": False,
    "num_kv_heads": 2,
    "attention_window": 8,
    "norm": "rmsnorm",
    "head_dim": 32,
    "qk_norm": True,
    "qkv_bias": False,
    "rope_scaling": ("linear", 2.0),
    "image_size": 16,
    "patch_size": 4,
    "channels": 3,
    "num_classes": 5,
}


def test_config_keys_a_cache_by_every_field_and_cannot_change():
    """Models are cached by config: equal configs must find one entry, a config that differs in any one
    field another, and a config must not change while it is a key."""
    cache = {TransformerConfig(): "default"}
    assert cache[TransformerConfig()] == "default"
    variants = {TransformerConfig(**{name: value}) for name, value in CHANGED.items()}
    assert len(variants) == len(CHANGED) and TransformerConfig() not in variants
    assert set(CHANGED) == {f.name for f in dataclasses.fields(TransformerConfig)}  # a new field joins the table
    with pytest.raises(dataclasses.FrozenInstanceError):
        TransformerConfig().d_model = 8


def test_divisors():
    assert divisors(12) == [1, 2, 3, 4, 6, 12]


def test_from_dict_round_trips_and_rejects_unknown_options():
    cfg = TransformerConfig(d_model=32, num_heads=8, positional="alibi")
    assert TransformerConfig.from_dict(cfg.to_dict()) == cfg
    with pytest.raises(ValueError, match=r"unknown option\(s\) \['heads'\]"):
        TransformerConfig.from_dict({"heads": 4})
