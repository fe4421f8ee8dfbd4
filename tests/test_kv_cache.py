"""The KV cache, grouped-query attention and the sliding window, against full passes and hand-built models."""

import numpy as np
import pytest
import torch

from transformer import KVCache, TransformerConfig, build_model, load_checkpoint, save_checkpoint
from transformer.masks import window_mask

VOCAB = 23


def config(**fields) -> TransformerConfig:
    base = dict(
        d_model=16,
        num_heads=4,
        num_encoder_layers=2,
        num_decoder_layers=2,
        d_ff=24,
        dropout=0.0,
        max_len=24,
        src_vocab_size=VOCAB,
        tgt_vocab_size=VOCAB,
    )
    return TransformerConfig(**{**base, **fields})


def tokens(length: int, seed: int = 0, batch: int = 2) -> torch.Tensor:
    return torch.randint(4, VOCAB, (batch, length), generator=torch.Generator().manual_seed(seed))


def incremental(model, sequence: torch.Tensor, prompt: int, source: torch.Tensor | None = None) -> torch.Tensor:
    """Logits ``[B, L, V]`` of ``sequence`` read with a cache: the prompt at once, then one token a call."""
    cache, pieces = KVCache(), []
    chunks = [sequence[:, :prompt]] + [sequence[:, i : i + 1] for i in range(prompt, sequence.shape[1])]
    with torch.inference_mode():
        for chunk in chunks:
            out = model(chunk, cache=cache) if source is None else model(source, chunk, cache=cache)
            assert out.cache is cache
            pieces.append(out.logits)
    assert cache.positions == sequence.shape[1]
    return torch.cat(pieces, dim=1)


SCHEMES = ("sinusoidal", "learned", "rotary", "alibi", "none")


@pytest.mark.parametrize("norm_first", (False, True))
@pytest.mark.parametrize("positional", SCHEMES)
@pytest.mark.parametrize("kind", ("decoder-only", "encoder-decoder"))
def test_with_and_without_the_cache_the_logits_agree(kind, positional, norm_first):
    model = build_model(config(positional=positional, norm_first=norm_first), seed=3, kind=kind)
    sequence, source = tokens(11), tokens(7, seed=1)
    with torch.inference_mode():
        full = model(sequence).logits if kind == "decoder-only" else model(source, sequence).logits
    cached = incremental(model, sequence, prompt=4, source=None if kind == "decoder-only" else source)
    torch.testing.assert_close(cached, full, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("positional", SCHEMES)
def test_a_sliding_window_with_its_capped_cache_equals_the_full_pass_with_the_band_mask(positional):
    model = build_model(config(positional=positional, attention_window=3, num_kv_heads=2), seed=4, kind="decoder-only")
    sequence = tokens(12)
    with torch.inference_mode():
        full = model(sequence, return_attention=True)
    weights = full.attention.weights["decoder.layers.1.self_attn"]
    outside = ~torch.from_numpy(band(12, 3))
    assert weights[..., outside].abs().max() == 0
    torch.testing.assert_close(weights.sum(-1), torch.ones(2, 4, 12))
    torch.testing.assert_close(incremental(model, sequence, prompt=2), full.logits, atol=1e-5, rtol=1e-5)


def band(n: int, window: int) -> np.ndarray:
    """Independently: key j allowed for query i iff i - window < j <= i."""
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    return (j <= i) & (j > i - window)


@pytest.mark.parametrize("window", (1, 2, 5, 30))
def test_the_window_mask_is_the_band_and_the_causal_mask(window):
    np.testing.assert_array_equal(window_mask(9, window=window).numpy(), band(9, window))
    np.testing.assert_array_equal(window_mask(9).numpy(), np.tril(np.ones((9, 9), dtype=bool)))
    shifted = window_mask(2, 5, window, query_start=6, key_start=3).numpy()  # queries 6, 7 over keys 3..7
    np.testing.assert_array_equal(shifted, band(8, window)[6:8, 3:8])


@pytest.mark.parametrize("kind", ("decoder-only", "encoder-decoder", "encoder-only"))
def test_num_kv_heads_equal_to_num_heads_is_todays_attention_bit_for_bit(kind):
    plain, explicit = build_model(config(), seed=5, kind=kind), build_model(config(num_kv_heads=4), seed=5, kind=kind)
    for (name, a), (_, b) in zip(plain.state_dict().items(), explicit.state_dict().items()):
        assert torch.equal(a, b), name
    x = tokens(6)
    with torch.inference_mode():
        if kind == "encoder-decoder":
            assert torch.equal(plain(x, x[:, :4]).logits, explicit(x, x[:, :4]).logits)
        else:
            assert torch.equal(plain(x).logits, explicit(x).logits)


@pytest.mark.parametrize("kv_heads", (1, 2))
def test_grouped_query_attention_is_multi_head_attention_with_key_and_value_heads_repeated(kv_heads):
    grouped = build_model(config(num_kv_heads=kv_heads), seed=6, kind="decoder-only")
    full = build_model(config(), seed=6, kind="decoder-only")
    shared = {k: v for k, v in grouped.state_dict().items() if ".w_k." not in k and ".w_v." not in k}
    full.load_state_dict(shared, strict=False)
    group, d_head = 4 // kv_heads, 4
    with torch.no_grad():
        for small, big in zip(grouped.decoder.layers, full.decoder.layers):
            for part in ("w_k", "w_v"):
                weight = getattr(small.self_attn, part).weight.view(kv_heads, d_head, 16)
                bias = getattr(small.self_attn, part).bias.view(kv_heads, d_head)
                getattr(big.self_attn, part).weight.copy_(weight.repeat_interleave(group, 0).reshape(16, 16))
                getattr(big.self_attn, part).bias.copy_(bias.repeat_interleave(group, 0).reshape(16))
    x = tokens(9)
    with torch.inference_mode():
        torch.testing.assert_close(grouped(x).logits, full(x).logits, atol=1e-6, rtol=1e-6)
    assert grouped.decoder.layers[0].self_attn.w_k.weight.shape == (kv_heads * d_head, 16)


def test_the_cache_shrinks_by_num_heads_over_num_kv_heads_and_a_window_caps_it():
    sizes = {}
    for kv_heads, window in ((4, None), (2, None), (1, None), (4, 3)):
        model = build_model(config(num_kv_heads=kv_heads, attention_window=window), seed=7, kind="decoder-only")
        cache = KVCache()
        with torch.inference_mode():
            model(tokens(10, batch=1), cache=cache)
        sizes[kv_heads, window] = cache.nbytes()
        assert all(shape == (1, kv_heads, min(10, window or 10), 4) for shape in cache.shapes().values())
    full = 2 * 2 * 10 * 4 * 4 * 4  # layers x (K and V) x tokens x heads x d_head x 4 bytes
    assert sizes[4, None] == full and sizes[2, None] == full // 2 and sizes[1, None] == full // 4
    assert sizes[4, 3] == full * 3 // 10


def test_an_encoder_decoders_cache_holds_the_decoder_only():
    model = build_model(config(), seed=2, kind="encoder-decoder")
    cache = KVCache()
    with torch.inference_mode():
        model(tokens(7, batch=1), tokens(3, batch=1), cache=cache)
    assert sorted(cache.shapes()) == [
        f"decoder.layers.{i}.{kind}" for i in (0, 1) for kind in ("cross_attn", "self_attn")
    ]
    assert cache.shapes()["decoder.layers.0.cross_attn"] == (1, 4, 7, 4)  # the source's keys, kept once
    assert cache.shapes()["decoder.layers.0.self_attn"] == (1, 4, 3, 4)
    assert cache.memory.shape == (1, 7, 16) and cache.positions == 3


def test_checkpoints_round_trip_the_new_fields(tmp_path):
    model = build_model(config(num_kv_heads=2, attention_window=5), seed=8, kind="decoder-only")
    save_checkpoint(model, tmp_path / "gqa.safetensors", {})
    loaded, metadata = load_checkpoint(tmp_path / "gqa.safetensors")
    assert metadata["config"].num_kv_heads == 2 and metadata["config"].attention_window == 5
    x = tokens(8)
    with torch.inference_mode():
        assert torch.equal(loaded(x).logits, model(x).logits)


def test_a_cache_refuses_what_it_cannot_serve():
    model = build_model(config(), seed=1, kind="decoder-only")
    with pytest.raises(ValueError, match="KV cache"):
        model(tokens(4), key_mask=torch.ones(2, 1, 1, 4, dtype=torch.bool), cache=KVCache())
    with pytest.raises(ValueError, match="KVCache"):
        model(tokens(4), cache={})
    cache = KVCache()
    model(tokens(20), cache=cache)
    with pytest.raises(ValueError, match="max_len"):
        model(tokens(5), cache=cache)
    for bad in (dict(num_kv_heads=3), dict(attention_window=0)):
        with pytest.raises(ValueError):
            config(**bad)
