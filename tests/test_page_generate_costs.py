"""The Generate page's KV cache and Cost sections in AppTest, and the analyses behind them: what the charts draw
against the formulas (a K and a V of float32 per layer and token, n² or n · w scores) and against fits made here
of the drawn times."""

import numpy as np
import pytest
import torch
from torch.nn import functional as F

from analysis.decoding_cost import cache_bytes, next_token_seconds, step_times, variants
from analysis.window_cost import banded_attention, measure_window_cost
from tests.apptest_helpers import assert_no_exception, chart_by_title, decode_array, run_page, title_text
from tests.test_page_generate import PAGE, TEXT
from transformer import KVCache, TransformerConfig, build_model, load_checkpoint, make_task


def test_the_cache_charts_are_the_formula_of_the_models_sizes():
    config = load_checkpoint(TEXT)[0].config
    prompt = make_task("text").encode_user_input("the keys ")
    at = run_page(PAGE, {"section": "KV cache", "prompt": "the keys "})
    assert_no_exception(at)
    heads, layers, d_head = config.num_heads, config.num_decoder_layers, config.d_model // config.num_heads

    def kib(kv_heads: int, tokens):
        return 2 * layers * kv_heads * np.asarray(tokens) * d_head * 4 / 1024  # a K and a V of float32, each layer

    grows = chart_by_title(at, "The cache grows by one K and V per token")["data"][0]
    tokens = np.arange(1, config.max_len + 1)
    np.testing.assert_array_equal(decode_array(grows["x"]), tokens)
    np.testing.assert_allclose(decode_array(grows["y"]), kib(heads, tokens))
    held = len(prompt) + min(48, config.max_len - len(prompt)) - 1  # 48 tokens written: the last one is not read
    bars = chart_by_title(at, f"Cache after {held} tokens")["data"][0]
    expected = {
        f"multi-head ({heads} K/V heads)": kib(heads, held),
        "multi-query (1 K/V head)": kib(1, held),
        "sliding window of 8": kib(heads, 8),  # the window's default: 8 positions kept
        **{f"grouped-query ({kv} K/V heads)": kib(kv, held) for kv in range(2, heads) if heads % kv == 0},
    }
    assert dict(zip(bars["y"], decode_array(bars["x"]).tolist())) == pytest.approx(expected)
    least = min(expected, key=expected.get)
    full = f"multi-head ({heads} K/V heads)"
    cache = chart_by_title(at, f"Cache after {held} tokens")
    assert title_text(cache).endswith(
        f": {least} holds the least, {expected[full] / expected[least]:.3g}× less than {full}"
    )
    measured = chart_by_title(at, "Time for the next token after t tokens")
    with_cache, without = (decode_array(line["y"]).astype(float) for line in measured["data"])
    after = list(decode_array(measured["data"][0]["x"])).index(256)
    assert title_text(measured).endswith(
        f": after 256, {without[after] / with_cache[after]:.1f}× faster with the cache"
    )
    times = chart_by_title(at, "Time per token (cache on)")["data"][0]
    assert times["y"] == bars["y"] and (decode_array(times["x"]) > 0).all()


@pytest.mark.parametrize("window", ("2", "8"))
def test_the_window_map_weighs_only_the_most_recent_keys(window):
    at = run_page(PAGE, {"section": "KV cache", "prompt": "the keys ", "w": window})
    assert_no_exception(at)
    weights, masked = (
        decode_array(trace["z"]).astype(float)
        for trace in chart_by_title(at, f"A window of {window}: each query sees")["data"]
    )
    query, key = np.indices(weights.shape)
    band = (key <= query) & (key > query - int(window))
    assert weights.shape == (24, 24) and (weights[~band] == 0).all() and (weights[band] > 0).all()
    np.testing.assert_array_equal(masked.astype(bool), ~band)
    np.testing.assert_allclose(weights.sum(1), 1.0, atol=1e-5)


def test_the_cost_charts_count_the_scores_and_name_the_slopes_of_the_drawn_times():
    at = run_page(PAGE, {"section": "Cost"})
    assert_no_exception(at)
    full, windowed = chart_by_title(at, "Memory of the score matrix (float32)")["data"]
    n = decode_array(full["x"])
    np.testing.assert_array_equal(n, [256, 512, 1024, 2048])
    np.testing.assert_allclose(decode_array(full["y"]), n * n * 4 / 2**20)  # n² scores of 4 bytes, in MiB
    np.testing.assert_allclose(decode_array(windowed["y"]), n * 64 * 4 / 2**20)  # 64 scores a query
    memory = title_text(chart_by_title(at, "Memory of the score matrix (float32)"))
    assert memory.endswith(f": at n = 2,048, the window's is {64 / 2048:.1%} of the full one's")  # n · 64 of n²
    times = chart_by_title(at, "One causal attention (d = 64)")
    full_ms, window_ms = (decode_array(line["y"]).astype(float)[-1] for line in times["data"])
    assert title_text(times).endswith(
        f": at n = 2,048, the window takes {window_ms / full_ms:.0%} of full attention's time"
    )
    for line in chart_by_title(at, "One causal attention (d = 64)")["data"]:
        x, y = decode_array(line["x"]), decode_array(line["y"])
        np.testing.assert_array_equal(x, n)
        slope = np.polyfit(np.log(x), np.log(y), 1)[0]  # least squares on log-log axes
        assert float(line["name"].rsplit("^", 1)[1]) == pytest.approx(slope, abs=0.005 + 1e-9), line["name"]


def test_the_cache_formula_is_what_the_cache_holds():
    base = TransformerConfig(d_model=24, num_heads=6, num_decoder_layers=3, tgt_vocab_size=30, max_len=40)
    for label, config in variants(base, window=5).items():
        model, cache = build_model(config, seed=1, kind="decoder-only"), KVCache()
        with torch.inference_mode():
            model(torch.randint(4, 30, (1, 17)), cache=cache)
        assert cache.nbytes() == cache_bytes(config, 17), label
    assert set(variants(base, 5)) == {
        "multi-head (6 K/V heads)",
        "grouped-query (3 K/V heads)",
        "grouped-query (2 K/V heads)",
        "multi-query (1 K/V head)",
        "sliding window of 5",
    }


@pytest.mark.parametrize("window", (1, 4, 17, 40))
def test_banded_attention_is_attention_under_the_band_mask(window):
    q, k, v = torch.randn(3, 33, 8, generator=torch.Generator().manual_seed(window))
    i, j = np.arange(33)[:, None], np.arange(33)[None, :]
    band = torch.from_numpy((j <= i) & (j > i - window))
    expected = F.scaled_dot_product_attention(q[None], k[None], v[None], attn_mask=band)[0]
    torch.testing.assert_close(banded_attention(q, k, v, window), expected, atol=1e-5, rtol=1e-5)


def test_the_timings_are_finite_and_the_fits_have_their_shape():
    model = build_model(TransformerConfig(d_model=16, num_heads=2, tgt_vocab_size=30, max_len=80), kind="decoder-only")
    with_cache, without = next_token_seconds(model, (8, 32, 64), repeats=2)
    assert with_cache.shape == without.shape == (3,) and np.isfinite(with_cache).all() and (without > 0).all()
    assert step_times(model, [4, 5, 6], 5, use_cache=True).shape == (5,)
    cost = measure_window_cost(lengths=(64, 128, 256), window=8, d=16, repeats=2)
    assert np.isfinite([cost.full_fit.exponent, cost.window_fit.exponent]).all()
    np.testing.assert_array_equal(cost.full_bytes, 4 * cost.lengths**2)
    np.testing.assert_array_equal(cost.window_bytes, 4 * 8 * cost.lengths)
