"""The encoder-decoder page's "Since 2017" section: each part's title, sentences and bars recomputed here from the
formulas (numpy, by hand) and the shipped files, at the defaults and at a second setting."""

from __future__ import annotations

import json
import numpy as np
import pytest
import torch
from safetensors import safe_open

from tests.apptest_helpers import assert_no_exception, chart_specs, decode_array, run_page
from transformer import load_checkpoint

PAGE = "pages/encoder_decoder/page.py"
RANDOM = "random model (settings below)"
SECOND = {"d_model": "128", "heads": "8", "d_ff": "512", "dec": "3"}


def open_part(part: str, **query):
    at = run_page(PAGE, {"model": RANDOM, "section": "Since 2017", "road": part, **query})
    assert_no_exception(at)
    return at


def only_chart(at) -> dict:
    (spec,) = chart_specs(at)
    return spec


def bars(spec, trace: int = 0) -> np.ndarray:
    return decode_array(spec["data"][trace]["y"]).astype(np.float64)


def text_of(at) -> str:
    return " ".join(m.value for m in at.markdown)


@pytest.mark.parametrize("vector", [None, "-2, 0.5, 7, 0"])
def test_layer_norm_and_rms_norm_of_the_vector_are_the_formulas(vector):
    at = open_part("RMSNorm", **({"road_x": vector} if vector else {}))
    x = np.array([float(v) for v in (vector or "3, 1, 4, 1, 5, 9").split(",")])
    layer_norm = (x - x.mean()) / np.sqrt(x.var() + 1e-5)
    rms = np.sqrt((x**2).mean())
    spec = only_chart(at)
    np.testing.assert_allclose(bars(spec, 0), layer_norm, atol=1e-5)
    np.testing.assert_allclose(bars(spec, 1), x / np.sqrt(rms**2 + 1e-5), atol=1e-5)
    assert f"removes the mean, {x.mean():.2f}" in spec["layout"]["title"]["text"]
    said = text_of(at)
    assert f"mean {x.mean():.2f} and root mean square {rms:.2f}" in said
    assert f"keeps its sign ({int((np.sign(x) == np.sign(x / rms)).sum())} of {len(x)})" in said


@pytest.mark.parametrize(
    "typed, message", [("1, two", "separated by commas"), ("5", "between 2 and 64"), ("1, 1e9", "1,000,000")]
)
def test_a_vector_that_cannot_be_read_says_what_to_change(typed, message):
    at = open_part("RMSNorm", road_x=typed)
    assert any(message in e.value for e in at.error) and not chart_specs(at)


@pytest.mark.parametrize("query", [{}, SECOND])
def test_feed_forward_weights_are_counted_by_the_formulas(query):
    at = open_part("SwiGLU", **query)
    d, f = int(query.get("d_model", 64)), int(query.get("d_ff", 256))
    narrow = round(2 * f / 3)
    expected = [2 * d * f + f + d, 3 * d * f, 3 * d * narrow]
    spec = only_chart(at)
    np.testing.assert_array_equal(bars(spec), expected)
    assert (
        spec["layout"]["title"]["text"]
        == f"SwiGLU at d_ff {narrow} holds {expected[2]:,} weights, ReLU's at {f} {expected[0]:,}"
    )


@pytest.mark.parametrize("query", [{}, SECOND])
def test_rope_scores_depend_on_the_offset_alone_and_added_sinusoids_do_not(query):
    at = open_part("RoPE", **query)
    spec = only_chart(at)
    added, rope = bars(spec, 0), bars(spec, 1)
    names = list(spec["data"][0]["x"])
    assert names == ["1 → 4", "11 → 14", "51 → 54", "1 → 7"]
    assert np.ptp(rope[:3]) < 1e-9 and abs(rope[3] - rope[0]) > 1e-3  # offset 3 thrice alike, offset 6 not
    assert np.ptp(added[:3]) > 0.1
    assert f"({rope[0]:.2f})" in spec["layout"]["title"]["text"]
    assert f"score {added[:3].min():.2f} to {added[:3].max():.2f}" in text_of(at)


@pytest.mark.parametrize("query", [{}, SECOND])
def test_the_kv_cache_shrinks_with_the_key_value_heads(query):
    at = open_part("Shared keys", **query)
    d, heads, layers = int(query.get("d_model", 64)), int(query.get("heads", 4)), int(query.get("dec", 2))
    kv = [h for h in range(heads, 0, -1) if heads % h == 0]
    expected = [2 * layers * h * 1024 * (d // heads) * 4 / 1024 for h in kv]
    spec = only_chart(at)
    np.testing.assert_allclose(bars(spec), expected)
    assert (
        f"1/{heads} of multi-head's: {expected[-1]:,.0f} KiB against {expected[0]:,.0f}"
        in spec["layout"]["title"]["text"]
    )


@pytest.mark.parametrize("query", [{}, SECOND])
def test_the_pre_ln_stream_grows_and_the_post_ln_stream_stays_at_one(query):
    at = open_part("Norm placement", **query)
    spec = only_chart(at)
    post, pre = bars(spec, 0), bars(spec, 1)
    np.testing.assert_allclose(post, 1.0, atol=1e-3)  # LayerNorm's output at gain 1, bias 0: unit mean square
    assert pre[-1] > pre[0] > 1.0
    assert (
        spec["layout"]["title"]["text"]
        == f"Pre-LN's stream grows from {pre[0]:.2f} to {pre[-1]:.2f}; post-LN's stays at {post.mean():.2f}"
    )


def previous_token_shares(path: str, text: str) -> np.ndarray:
    """Each head's mean weight on the previous character ``[L, H]``, by loops over the weights."""
    model, metadata = load_checkpoint(path)
    tokenizer = metadata["tokenizer"]
    ids = tokenizer.encode(tokenizer.tokenize(text))
    with torch.inference_mode():
        weights = model(torch.tensor([ids]), return_attention=True).attention.stacked("decoder")[:, 0].numpy()
    layers, heads = weights.shape[:2]
    return np.array(
        [[np.mean([weights[i, h, t, t - 1] for t in range(1, len(ids))]) for h in range(heads)] for i in range(layers)]
    )


def perplexity(path: str) -> float:
    with safe_open(path, "pt") as file:
        return json.loads(file.metadata()["metadata"])["metrics"]["perplexity"]


@pytest.mark.parametrize("query", [{}, {"road_text": "attention is all you need", "road_layer": "2"}])
def test_the_two_trained_blocks_are_drawn_and_measured_as_their_files_say(query):
    at = open_part("Two trained blocks", **query)
    text, layer = query.get("road_text", "the softmax turns scores into weights"), int(query.get("road_layer", 1))
    titles = [spec["layout"]["title"]["text"] for spec in chart_specs(at)]
    table = at.dataframe[0].value
    for title, name, named in zip(titles, ("text", "text_llama"), table["previous-character head"]):
        shares = previous_token_shares(f"checkpoints/{name}.safetensors", text)
        head = shares[layer - 1].argmax()
        assert title.endswith(
            f"layer {layer}: head {head + 1} puts {shares[layer - 1, head]:.2f} on the previous character"
        )
        best = np.unravel_index(shares.argmax(), shares.shape)
        assert named == f"layer {best[0] + 1}, head {best[1] + 1}: {shares.max():.2f}"
    classic, llama = (round(perplexity(f"checkpoints/{n}.safetensors"), 2) for n in ("text", "text_llama"))
    said = text_of(at)
    winner = "the Llama block" if llama < classic else "the LayerNorm + ReLU block"
    assert f"Held out, {winner} predicts the text better ({llama} against {classic})" in said
    counts = [
        sum(p.numel() for p in load_checkpoint(f"checkpoints/{n}.safetensors")[0].parameters())
        for n in ("text", "text_llama")
    ]
    assert f"with {counts[1]:,} weights against {counts[0]:,}" in said
    assert list(table["held-out perplexity"]) == [classic, llama]
    assert list(table["key-value heads"]) == [2, 1]
