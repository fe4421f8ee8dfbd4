"""Property tests: what must hold for every input, not just for one example."""

import math

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from transformer import (
    MultiHeadAttention,
    TransformerConfig,
    apply_rotary,
    build_model,
    init_parameters,
    scaled_dot_product_attention,
    sinusoidal_encoding,
)

FAST = settings(max_examples=40, deadline=None)


@FAST
@given(
    lq=st.integers(1, 9),
    lk=st.integers(1, 9),
    d=st.integers(1, 16),
    seed=st.integers(0, 10_000),
    density=st.floats(0.0, 1.0),
)
def test_unmasked_rows_sum_to_one_and_masked_rows_are_zero(lq, lk, d, seed, density):
    g = torch.Generator().manual_seed(seed)
    q, k, v = (
        torch.randn(lq, d, generator=g) * 5,
        torch.randn(lk, d, generator=g) * 5,
        torch.randn(lk, 3, generator=g),
    )
    mask = torch.rand(lq, lk, generator=g) < density
    _, weights = scaled_dot_product_attention(q, k, v, mask)
    assert torch.isfinite(weights).all()
    sums = weights.sum(-1)
    has_key = mask.any(-1)
    assert torch.allclose(sums[has_key], torch.ones_like(sums[has_key]), atol=1e-5)
    assert torch.all(sums[~has_key] == 0)
    assert torch.all(weights[~mask] == 0)


@FAST
@given(
    seed=st.integers(0, 10_000),
    length=st.integers(2, 10),
    change_at=st.integers(1, 9),
    positional=st.sampled_from(["sinusoidal", "learned", "rotary", "alibi", "none"]),
    norm_first=st.booleans(),
)
def test_causal_model_earlier_outputs_ignore_later_tokens(seed, length, change_at, positional, norm_first):
    change_at = min(change_at, length - 1)
    cfg = TransformerConfig(
        d_model=16,
        num_heads=2,
        num_decoder_layers=2,
        d_ff=32,
        positional=positional,
        norm_first=norm_first,
        tgt_vocab_size=50,
    )
    model = build_model(cfg, seed, kind="decoder-only")
    g = torch.Generator().manual_seed(seed)
    tokens = torch.randint(4, 50, (1, length), generator=g)
    edited = tokens.clone()
    edited[0, change_at:] = (edited[0, change_at:] + 7) % 46 + 4
    with torch.inference_mode():
        before, after = model(tokens).logits, model(edited).logits
    assert torch.allclose(before[:, :change_at], after[:, :change_at], atol=1e-5)


@FAST
@given(seed=st.integers(0, 10_000), length=st.integers(1, 8), heads=st.sampled_from([1, 2, 4]))
def test_self_attention_without_position_is_permutation_equivariant(seed, length, heads):
    g = torch.Generator().manual_seed(seed)
    mha = init_parameters(MultiHeadAttention(16, heads), seed).eval()
    x = torch.randn(1, length, 16, generator=g)
    perm = torch.randperm(length, generator=g)
    with torch.inference_mode():
        out, weights = mha(x, x, x)
        out_p, weights_p = mha(x[:, perm], x[:, perm], x[:, perm])
    assert torch.allclose(out[:, perm], out_p, atol=1e-5)
    assert torch.allclose(weights[:, :, perm][:, :, :, perm], weights_p, atol=1e-5)


@FAST
@given(
    seed=st.integers(0, 10_000),
    d_half=st.integers(1, 8),
    shift=st.integers(1, 20),
    base=st.sampled_from([10.0, 100.0, 10000.0]),
)
def test_rotary_scores_depend_only_on_offset(seed, d_half, shift, base):
    g = torch.Generator().manual_seed(seed)
    d = 2 * d_half
    q, k = torch.randn(d, generator=g, dtype=torch.float64), torch.randn(d, generator=g, dtype=torch.float64)
    length = 30 + shift
    rq = apply_rotary(q.expand(length, d), base)
    rk = apply_rotary(k.expand(length, d), base)
    for m, n in [(0, 3), (2, 9), (5, 5), (7, 1)]:
        assert math.isclose(float(rq[m] @ rk[n]), float(rq[m + shift] @ rk[n + shift]), abs_tol=1e-6)


@FAST
@given(max_len=st.integers(1, 40), d_model=st.integers(1, 33), base=st.floats(1.0, 1e5))
def test_sinusoidal_values_equal_formula(max_len, d_model, base):
    pe = sinusoidal_encoding(max_len, d_model, base)
    assert pe.shape == (max_len, d_model) and pe.dtype == torch.float32
    for pos in {0, max_len // 2, max_len - 1}:
        for dim in range(d_model):
            i = dim // 2
            angle = pos / base ** (2 * i / d_model)
            expected = math.sin(angle) if dim % 2 == 0 else math.cos(angle)
            assert math.isclose(float(pe[pos, dim]), expected, abs_tol=1e-5)
