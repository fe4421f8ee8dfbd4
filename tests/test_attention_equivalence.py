"""The package's attention against PyTorch's own, weights copied, eval mode."""

import pytest
import torch
from torch import nn
from torch.nn import functional as F

from transformer import MultiHeadAttention, causal_mask, padding_mask, scaled_dot_product_attention

TOL = 1e-5


def copy_into_torch(ours: MultiHeadAttention) -> nn.MultiheadAttention:
    d = ours.d_model
    theirs = nn.MultiheadAttention(d, ours.num_heads, batch_first=True).eval()
    with torch.no_grad():
        theirs.in_proj_weight.copy_(torch.cat([ours.w_q.weight, ours.w_k.weight, ours.w_v.weight]))
        theirs.in_proj_bias.copy_(torch.cat([ours.w_q.bias, ours.w_k.bias, ours.w_v.bias]))
        theirs.out_proj.weight.copy_(ours.w_o.weight)
        theirs.out_proj.bias.copy_(ours.w_o.bias)
    return theirs


@pytest.fixture
def mha():
    torch.manual_seed(0)
    return MultiHeadAttention(32, 4).eval()


def test_self_attention_matches_torch(mha):
    x = torch.randn(2, 7, 32)
    out, weights = mha(x, x, x)
    ref_out, ref_w = copy_into_torch(mha)(x, x, x, need_weights=True, average_attn_weights=False)
    assert weights.shape == (2, 4, 7, 7)
    assert (out - ref_out).abs().max() <= TOL
    assert (weights - ref_w).abs().max() <= TOL


def test_causal_self_attention_matches_torch(mha):
    x = torch.randn(2, 6, 32)
    out, weights = mha(x, x, x, mask=causal_mask(6))
    ref_out, ref_w = copy_into_torch(mha)(
        x, x, x, attn_mask=~causal_mask(6), need_weights=True, average_attn_weights=False
    )
    assert (out - ref_out).abs().max() <= TOL
    assert (weights - ref_w).abs().max() <= TOL
    assert torch.all(weights[..., ~causal_mask(6)] == 0)


def test_cross_attention_with_key_padding_matches_torch(mha):
    query, memory = torch.randn(2, 3, 32), torch.randn(2, 5, 32)
    lengths = torch.tensor([5, 2])
    out, weights = mha(query, memory, memory, mask=padding_mask(lengths))
    ref_out, ref_w = copy_into_torch(mha)(
        query,
        memory,
        memory,
        key_padding_mask=~padding_mask(lengths)[:, 0, 0],
        need_weights=True,
        average_attn_weights=False,
    )
    assert weights.shape == (2, 4, 3, 5)
    assert (out - ref_out).abs().max() <= TOL
    assert (weights - ref_w).abs().max() <= TOL
    assert torch.all(weights[1, :, :, 2:] == 0)


@pytest.mark.parametrize("with_mask", [False, True])
def test_sdpa_matches_torch(with_mask):
    torch.manual_seed(1)
    q, k, v = torch.randn(2, 3, 5, 8), torch.randn(2, 3, 6, 8), torch.randn(2, 3, 6, 4)
    mask = torch.rand(5, 6) > 0.3 if with_mask else None
    if mask is not None:
        mask[:, 0] = True  # torch's fused kernel gives NaN on fully masked rows
    out, weights = scaled_dot_product_attention(q, k, v, mask)
    assert out.shape == (2, 3, 5, 4) and weights.shape == (2, 3, 5, 6)
    assert (out - F.scaled_dot_product_attention(q, k, v, attn_mask=mask)).abs().max() <= TOL


def test_sdpa_custom_scale_matches_torch():
    torch.manual_seed(2)
    q, k, v = torch.randn(4, 8), torch.randn(4, 8), torch.randn(4, 8)
    out, _ = scaled_dot_product_attention(q, k, v, scale=0.7)
    assert (out - F.scaled_dot_product_attention(q, k, v, scale=0.7)).abs().max() <= TOL


def test_weights_equal_the_formula():
    torch.manual_seed(3)
    q, k, v = torch.randn(5, 16), torch.randn(5, 16), torch.randn(5, 3)
    out, weights = scaled_dot_product_attention(q, k, v)
    expected = torch.softmax(q @ k.T / 4.0, dim=-1)
    assert (weights - expected).abs().max() <= TOL
    assert (out - expected @ v).abs().max() <= TOL


def test_fully_masked_row_is_zero_not_nan():
    q, k, v = torch.randn(3, 4), torch.randn(3, 4), torch.randn(3, 2)
    mask = torch.tensor([[True, False, False], [False, False, False], [True, True, True]])
    out, weights = scaled_dot_product_attention(q, k, v, mask)
    assert not torch.isnan(weights).any() and not torch.isnan(out).any()
    assert torch.all(weights[1] == 0) and torch.all(out[1] == 0)
    assert torch.allclose(weights[0], torch.tensor([1.0, 0.0, 0.0]))


def test_fully_masked_row_has_finite_gradients():
    q = torch.randn(3, 4, requires_grad=True)
    mask = torch.tensor([[True, True, False], [False, False, False], [True, True, True]])
    out, _ = scaled_dot_product_attention(q, torch.randn(3, 4), torch.randn(3, 2), mask)
    out.sum().backward()
    assert torch.isfinite(q.grad).all()


def test_causal_mask_polarity():
    mask = causal_mask(4)
    assert mask.dtype == torch.bool and mask.shape == (4, 4)
    for i in range(4):
        for j in range(4):
            assert bool(mask[i, j]) == (j <= i)


def test_padding_mask_shape_and_values():
    mask = padding_mask([3, 1])
    assert mask.shape == (2, 1, 1, 3)
    assert mask[0, 0, 0].tolist() == [True, True, True]
    assert mask[1, 0, 0].tolist() == [True, False, False]


def test_mha_rejects_indivisible_heads():
    with pytest.raises(ValueError, match="divisible"):
        MultiHeadAttention(10, 3)
