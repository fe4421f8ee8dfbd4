"""EncoderLayer and DecoderLayer against nn.TransformerEncoderLayer / DecoderLayer."""

import pytest
import torch
from torch import nn

from transformer import DecoderLayer, EncoderLayer, TransformerConfig, causal_mask, init_parameters

TOL = 1e-5


def copy_attention(ours, theirs: nn.MultiheadAttention) -> None:
    theirs.in_proj_weight.copy_(torch.cat([ours.w_q.weight, ours.w_k.weight, ours.w_v.weight]))
    theirs.in_proj_bias.copy_(torch.cat([ours.w_q.bias, ours.w_k.bias, ours.w_v.bias]))
    theirs.out_proj.weight.copy_(ours.w_o.weight)
    theirs.out_proj.bias.copy_(ours.w_o.bias)


def copy_common(ours, theirs) -> None:
    copy_attention(ours.self_attn, theirs.self_attn)
    theirs.linear1.load_state_dict(ours.feed_forward.linear1.state_dict())
    theirs.linear2.load_state_dict(ours.feed_forward.linear2.state_dict())
    theirs.norm1.load_state_dict(ours.norm1.state_dict())
    theirs.norm2.load_state_dict(ours.norm2.state_dict())


def config(norm_first: bool, activation: str) -> TransformerConfig:
    return TransformerConfig(
        d_model=32, num_heads=4, d_ff=64, dropout=0.1, norm_first=norm_first, activation=activation, positional="none"
    )


def randomize_norms(layer) -> None:
    """LayerNorm starts at gain 1 / bias 0; random values make the check meaningful."""
    g = torch.Generator().manual_seed(5)
    with torch.no_grad():
        for module in layer.modules():
            if isinstance(module, nn.LayerNorm):
                module.weight.copy_(torch.rand(module.weight.shape, generator=g) + 0.5)
                module.bias.copy_(torch.randn(module.bias.shape, generator=g))
            if isinstance(module, nn.Linear) and module.bias is not None:
                module.bias.copy_(torch.randn(module.bias.shape, generator=g) * 0.1)


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_encoder_layer_matches_torch(norm_first, activation):
    cfg = config(norm_first, activation)
    ours = init_parameters(EncoderLayer(cfg), seed=0).eval()
    randomize_norms(ours)
    theirs = nn.TransformerEncoderLayer(
        32, 4, 64, dropout=0.1, activation=activation, batch_first=True, norm_first=norm_first
    ).eval()
    with torch.no_grad():
        copy_common(ours, theirs)
    x = torch.randn(2, 6, 32, generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        for mask in (None, causal_mask(6)):
            ref = theirs(x, src_mask=None if mask is None else ~mask)
            assert (ours(x, mask) - ref).abs().max() <= TOL


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_decoder_layer_matches_torch(norm_first, activation):
    cfg = config(norm_first, activation)
    ours = init_parameters(DecoderLayer(cfg), seed=0).eval()
    randomize_norms(ours)
    theirs = nn.TransformerDecoderLayer(
        32, 4, 64, dropout=0.1, activation=activation, batch_first=True, norm_first=norm_first
    ).eval()
    with torch.no_grad():
        copy_common(ours, theirs)
        copy_attention(ours.cross_attn, theirs.multihead_attn)
        theirs.norm3.load_state_dict(ours.norm3.state_dict())
    g = torch.Generator().manual_seed(2)
    x, memory = torch.randn(2, 5, 32, generator=g), torch.randn(2, 7, 32, generator=g)
    with torch.no_grad():
        ours_out = ours(x, memory, self_mask=causal_mask(5))
        ref = theirs(x, memory, tgt_mask=~causal_mask(5))
    assert (ours_out - ref).abs().max() <= TOL
