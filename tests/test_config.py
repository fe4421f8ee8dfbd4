import pytest

from transformer import TransformerConfig, divisors


def test_every_field_has_a_default():
    import dataclasses

    missing = [f.name for f in dataclasses.fields(TransformerConfig)
               if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]
    assert not missing
    cfg = TransformerConfig()  # the paper's model: scaled embeddings, sinusoids, post-LN, ReLU, its own output matrix
    assert (cfg.embed_scale, cfg.positional, cfg.norm_first, cfg.activation, cfg.output_head, cfg.type_vocab_size,
            cfg.embed_norm) == (True, "sinusoidal", False, "relu", "linear", 0, False)


@pytest.mark.parametrize("kwargs, fragment", [
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
])
def test_bad_config_says_what_to_change(kwargs, fragment):
    with pytest.raises(ValueError) as error:
        TransformerConfig(**kwargs)
    assert fragment in str(error.value)


def test_config_is_hashable_for_caching():
    assert hash(TransformerConfig()) == hash(TransformerConfig())


def test_divisors():
    assert divisors(12) == [1, 2, 3, 4, 6, 12]


def test_from_dict_round_trips_and_rejects_unknown_options():
    cfg = TransformerConfig(d_model=32, num_heads=8, positional="alibi")
    assert TransformerConfig.from_dict(cfg.to_dict()) == cfg
    with pytest.raises(ValueError, match=r"unknown option\(s\) \['heads'\]"):
        TransformerConfig.from_dict({"heads": 4})
