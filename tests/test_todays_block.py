"""Today's block, piece by piece, against the plain formula and against transformers' own modules:
RMSNorm (``LlamaRMSNorm``), the gated feed-forward (``LlamaMLP``), Llama 3's RoPE frequencies
(``ROPE_INIT_FUNCTIONS["llama3"]``), and the config's new fields with their defaults."""

import math

import pytest
import torch
import transformers
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS
from transformers.models.llama.modeling_llama import LlamaMLP, LlamaRMSNorm

from transformer import FeedForward, TransformerConfig, build_model
from transformer.norms import RMSNorm
from transformer.positional import rotary_frequencies


def test_rmsnorm_is_x_over_its_root_mean_square_times_the_gain():
    torch.manual_seed(0)
    x, gain = torch.randn(2, 5, 8) * 3 + 1, torch.rand(8) + 0.5
    norm = RMSNorm(8, eps=1e-6)
    with torch.no_grad():
        norm.weight.copy_(gain)
    expected = x / torch.sqrt((x**2).mean(-1, keepdim=True) + 1e-6) * gain
    torch.testing.assert_close(norm(x), expected)
    theirs = LlamaRMSNorm(8, eps=1e-6)
    with torch.no_grad():
        theirs.weight.copy_(gain)
    torch.testing.assert_close(norm(x), theirs(x), atol=1e-6, rtol=0)
    layer_norm = torch.nn.LayerNorm(8, elementwise_affine=False)(x)
    assert not torch.allclose(norm(x) / gain, layer_norm, atol=1e-2)  # RMSNorm does not centre: x has mean 1


def test_swiglu_is_silu_of_the_gate_times_the_up_projection():
    torch.manual_seed(1)
    ffn = FeedForward(8, 12, activation="swiglu", bias=False)
    x = torch.randn(2, 3, 8)
    gate, up, down = ffn.gate.weight, ffn.linear1.weight, ffn.linear2.weight
    z = x @ gate.T
    expected = ((z * (1 / (1 + torch.exp(-z)))) * (x @ up.T)) @ down.T
    torch.testing.assert_close(ffn(x), expected)
    config = transformers.LlamaConfig(hidden_size=8, num_attention_heads=2, intermediate_size=12, hidden_act="silu")
    theirs = LlamaMLP(config)
    with torch.no_grad():
        theirs.gate_proj.weight.copy_(gate), theirs.up_proj.weight.copy_(up), theirs.down_proj.weight.copy_(down)
    torch.testing.assert_close(ffn(x), theirs(x), atol=1e-6, rtol=0)


def test_geglu_puts_tanh_gelu_in_silus_place():
    torch.manual_seed(2)
    ffn = FeedForward(6, 10, activation="geglu", bias=False)
    x = torch.randn(4, 6)
    z = x @ ffn.gate.weight.T
    gelu = 0.5 * z * (1 + torch.tanh(math.sqrt(2 / math.pi) * (z + 0.044715 * z**3)))
    torch.testing.assert_close(ffn(x), (gelu * (x @ ffn.linear1.weight.T)) @ ffn.linear2.weight.T)


def test_a_gated_feed_forward_has_three_matrices_where_relu_has_two():
    relu = FeedForward(64, 256, activation="relu", bias=False)
    swiglu = FeedForward(64, 256, activation="swiglu", bias=False)
    assert sum(p.numel() for p in relu.parameters()) == 2 * 64 * 256
    assert sum(p.numel() for p in swiglu.parameters()) == 3 * 64 * 256


@pytest.mark.parametrize("d_head, original", [(16, 32), (64, 8192)])
def test_llama3_frequencies_match_transformers(d_head, original):
    scaling = ("llama3", 8.0, 1.0, 4.0, original)
    config = transformers.LlamaConfig(
        hidden_size=4 * d_head,
        num_attention_heads=4,
        rope_parameters={
            "rope_type": "llama3",
            "rope_theta": 500000.0,
            "factor": 8.0,
            "low_freq_factor": 1.0,
            "high_freq_factor": 4.0,
            "original_max_position_embeddings": original,
        },
    )
    theirs, _ = ROPE_INIT_FUNCTIONS["llama3"](config, "cpu")
    ours = rotary_frequencies(d_head, 500000.0, scaling)
    torch.testing.assert_close(ours.float(), theirs, rtol=1e-6, atol=0)
    plain = rotary_frequencies(d_head, 500000.0)
    wavelength = 2 * math.pi / plain
    assert torch.equal(ours[wavelength < original / 4], plain[wavelength < original / 4])
    torch.testing.assert_close(ours[wavelength > original], plain[wavelength > original] / 8)


def test_linear_rope_scaling_divides_every_frequency():
    torch.testing.assert_close(rotary_frequencies(8, 100.0, ("linear", 4.0)), rotary_frequencies(8, 100.0) / 4)


def test_the_defaults_keep_the_paper_block_and_every_new_field_builds():
    c = TransformerConfig()
    assert (c.norm, c.head_dim, c.qk_norm, c.qkv_bias, c.rope_scaling) == ("layernorm", None, False, None, None)
    modern = TransformerConfig(
        norm="rmsnorm",
        activation="swiglu",
        positional="rotary",
        norm_first=True,
        bias=False,
        num_kv_heads=2,
        head_dim=8,
        qk_norm=True,
        qkv_bias=True,
        rope_scaling=["llama3", 8, 1, 4, 32],
    )
    assert modern.rope_scaling == ("llama3", 8.0, 1.0, 4.0, 32.0) and modern.attention_width == 32
    model = build_model(modern, kind="decoder-only")
    attention = model.decoder.layers[0].self_attn
    assert attention.w_q.bias is not None and attention.w_o.bias is None and attention.q_norm is not None
    assert model(torch.tensor([[1, 2, 3]]), return_attention=True).attention.weights[
        "decoder.layers.0.self_attn"
    ].shape == (1, 4, 3, 3)


@pytest.mark.parametrize(
    "change, match",
    [
        ({"norm": "batchnorm"}, "norm='batchnorm' is unknown"),
        ({"head_dim": 0}, "head_dim must be"),
        ({"qk_norm": 1}, "qk_norm must be True or False"),
        ({"rope_scaling": ("yarn", 2.0)}, "rope_scaling=.* is unknown"),
        ({"rope_scaling": ("llama3", 8.0)}, "takes 4 positive numbers"),
        ({"activation": "silu"}, "activation='silu' is unknown"),
    ],
)
def test_a_bad_new_field_says_what_to_change(change, match):
    with pytest.raises(ValueError, match=match):
        TransformerConfig(**change)
