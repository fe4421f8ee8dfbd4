"""Attention sinks: the share of each head's attention on the first token, against loops over the weights, and
the Multi-head page's "Attention sinks" section, whose title and sentences are recomputed here from the model's
own weights (the package's forward pass, not the app's cache)."""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch

from analysis.attention_sinks import attention_sinks, even_share, first_token_share
from tests.apptest_helpers import RANDOM_MODEL, assert_no_exception, chart_specs, decode_array, run_page
from tests.test_page_multi_head import model_weights
from transformer import load_checkpoint

PAGE = "pages/multi_head/page.py"
TEXT = "The animal didn't cross the street because it was too tired"


def shares_by_loops(weights: np.ndarray) -> np.ndarray:
    layers, heads, length, _ = weights.shape
    out = np.zeros((layers, heads))
    for layer in range(layers):
        for head in range(heads):
            out[layer, head] = sum(weights[layer, head, t, 0] for t in range(1, length)) / (length - 1)
    return out


def test_the_share_is_the_mean_weight_on_key_one_over_the_later_queries():
    rng = np.random.default_rng(0)
    weights = rng.dirichlet(np.ones(6), size=(2, 3, 6))
    np.testing.assert_allclose(first_token_share(weights), shares_by_loops(weights))
    assert first_token_share(weights[:, :, :1, :1]).tolist() == [[0.0] * 3] * 2


def test_the_even_share_counts_the_keys_each_query_sees():
    assert even_share(4, causal=True) == pytest.approx((1 / 2 + 1 / 3 + 1 / 4) / 3)
    assert even_share(4, causal=False) == 0.25 and even_share(1, causal=True) == 0.0


def test_a_head_that_parks_its_weight_on_the_first_token_is_a_sink_and_an_even_one_is_not():
    length = 8
    even = np.tril(np.ones((length, length))) / np.arange(1, length + 1)[:, None]
    parked = np.zeros((length, length))
    parked[:, 0] = 0.9
    parked[np.arange(length), np.arange(length)] += 0.1
    parked[0, 0] = 1.0
    sinks = attention_sinks(np.stack([np.stack([even, parked])]), causal=True)
    assert sinks.sink_heads == [(1, 2)] and sinks.strongest == (1, 2, pytest.approx(0.9))
    assert sinks.shares[0, 0] == pytest.approx(sinks.even)


def numbers(text: str) -> list[str]:
    return re.findall(r"\d+\.\d\d", text)


@pytest.mark.parametrize("model", ["random", "text"])
def test_the_section_states_what_the_weights_give(model):
    from ui.model_picker import shipped_label

    query = (
        {"model": RANDOM_MODEL, "causal": "true", "layers": "3"}
        if model == "random"
        else {"model": shipped_label("text")}
    )
    at = run_page(PAGE, {**query, "section": "Attention sinks"})
    assert_no_exception(at)
    if model == "text":
        weights = checkpoint_weights("checkpoints/text.safetensors")
    else:
        weights = model_weights(3, 64, 4, True)
    expected = shares_by_loops(weights)
    (spec,) = chart_specs(at)
    np.testing.assert_allclose(decode_array(spec["data"][0]["z"]), expected, atol=1e-6)
    layer, head = np.unravel_index(expected.argmax(), expected.shape)
    title = spec["layout"]["title"]["text"]
    assert f"layer {layer + 1}, head {head + 1}" in title.lower()
    assert (f"{expected.max():.2f}" in title) == (expected.max() > 0.5)
    reading = next(m.value for m in at.markdown if "mean share on the first token" in m.value)
    length = weights.shape[-1]
    even = np.mean([1 / t for t in range(2, length + 1)])
    assert f"{expected.mean():.2f}" in numbers(reading) and f"{even:.2f}" in numbers(reading)
    top = expected.mean(axis=1).argmax()
    assert f"Layer {top + 1} leans on it most (mean {expected.mean(axis=1)[top]:.2f})" in reading


def checkpoint_weights(path: str) -> np.ndarray:
    """A shipped decoder's weights ``[L, H, T, T]`` on the page's sentence, read with its own tokenizer."""
    model, metadata = load_checkpoint(path)
    tokenizer = metadata["tokenizer"]
    ids = tokenizer.encode(tokenizer.tokenize(TEXT))
    with torch.inference_mode():
        record = model(torch.tensor([ids]), return_attention=True).attention
    return record.stacked("decoder")[:, 0].numpy()
