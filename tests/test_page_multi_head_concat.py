"""Multi-head attention's Concat × W^O section: the heads, Concat, W^O and the output drawn are PyTorch's own
``nn.MultiheadAttention`` computation on the layer's input, for causal and bidirectional stacks of several sizes
and positional schemes."""

import numpy as np
import pytest
import torch

from tests.apptest_helpers import chart_by_title, chart_specs, decode_array, title_text
from tests.test_page_multi_head import CONCAT, TEXT, section
from transformer import HashTokenizer, TransformerConfig, build_model


def attention_reference(layers, d_model, heads, causal, layer, text=TEXT, pe="sinusoidal", seed=0):
    """Independent of the page: the package's model (same config and seed as the page), the input its
    ``layer`` (0-based) self-attention received (from the record), and from there plain torch ops for
    each head's A V and PyTorch's own nn.MultiheadAttention with the model's weights copied in.

    Returns (heads ``[H, T, d_k]``, W^O ``[d_model, d_model]`` as x W^O, b^O ``[d_model]``, output ``[T, d_model]``).
    """
    config = TransformerConfig(
        d_model=d_model,
        num_heads=heads,
        num_encoder_layers=layers,
        num_decoder_layers=layers,
        d_ff=4 * d_model,
        dropout=0.0,
        positional=pe,
    )
    kind, stack = ("decoder-only", "decoder") if causal else ("encoder-only", "encoder")
    model = build_model(config, seed, kind).eval()
    tokenizer = HashTokenizer()
    ids = torch.tensor([tokenizer.encode(tokenizer.tokenize(text))])
    with torch.inference_mode():
        record = model(ids, return_internals=True).attention
    x = record.internals[f"{stack}.layers.{layer}.self_attn.input"].clone()  # [1, T, d_model]
    attn = getattr(model, stack).layers[layer].self_attn
    length, d_head = x.shape[1], d_model // heads
    forbidden = torch.triu(torch.ones(length, length, dtype=torch.bool), 1) if causal else None
    with torch.no_grad():
        q, k, v = (
            torch.nn.functional.linear(x[0], w.weight, w.bias).view(length, heads, d_head).transpose(0, 1)
            for w in (attn.w_q, attn.w_k, attn.w_v)
        )
        scores = q @ k.transpose(-1, -2) / d_head**0.5
        if forbidden is not None:
            scores = scores.masked_fill(forbidden, float("-inf"))
        head_outputs = torch.softmax(scores, -1) @ v  # [H, T, d_k]
        torch_mha = torch.nn.MultiheadAttention(d_model, heads, batch_first=True)
        torch_mha.in_proj_weight.copy_(torch.cat([attn.w_q.weight, attn.w_k.weight, attn.w_v.weight]))
        torch_mha.in_proj_bias.copy_(torch.cat([attn.w_q.bias, attn.w_k.bias, attn.w_v.bias]))
        torch_mha.out_proj.weight.copy_(attn.w_o.weight)
        torch_mha.out_proj.bias.copy_(attn.w_o.bias)
        output = torch_mha.eval()(x, x, x, attn_mask=forbidden, need_weights=False)[0][0]
    return (
        head_outputs.numpy(),
        attn.w_o.weight.detach().T.numpy().astype(np.float64),
        attn.w_o.bias.detach().numpy().astype(np.float64),
        output.numpy(),
    )


def drawn(spec, name):
    """The z of the chart's heatmap trace called ``name``, float64."""
    return next(decode_array(t["z"]).astype(np.float64) for t in spec["data"] if t.get("name") == name)


@pytest.mark.parametrize(
    "params,layers,d_model,heads,causal,pe",
    [
        ({}, 2, 64, 4, False, "sinusoidal"),
        (
            {"layers": "3", "layer": "2", "d_model": "32", "heads": "8", "causal": "true", "pe": "none", "seed": "5"},
            3,
            32,
            8,
            True,
            "none",
        ),
    ],
    ids=["default", "causal-layer-2-of-3"],
)
def test_concat_times_w_o_is_the_layers_attention_output(params, layers, d_model, heads, causal, pe):
    at = section(CONCAT, params)
    layer = int(params.get("layer", 1)) - 1
    specs = chart_specs(at)
    assert len(specs) == 4  # head_i, Concat, W^O, output: only this tab's charts
    length, d_head = len(TEXT.split()), d_model // heads
    ref_heads, w_o, b_o, ref_output = attention_reference(
        layers, d_model, heads, causal, layer, pe=pe, seed=int(params.get("seed", 0))
    )
    tiles = drawn(chart_by_title(at, f"Layer {layer + 1} · {heads} heads · head<sub>i</sub>"), "heads")
    assert tiles.shape == (length, heads * (d_head + 1) - 1)  # one blank column between neighbouring heads
    per_head = [tiles[:, h * (d_head + 1) : h * (d_head + 1) + d_head] for h in range(heads)]
    for h in range(heads):
        np.testing.assert_allclose(per_head[h], ref_heads[h], atol=1e-5)
    concat = drawn(
        chart_by_title(at, f"Concat(head<sub>1</sub> … head<sub>{heads}</sub>) [{length} × {d_model}]"), "concat"
    )
    np.testing.assert_array_equal(concat, np.concatenate(per_head, axis=1))  # the same numbers, side by side
    drawn_w_o = drawn(chart_by_title(at, f"W<sup>O</sup> [{d_model} × {d_model}]"), "W_O")
    np.testing.assert_allclose(drawn_w_o, w_o, atol=1e-7)
    output = drawn(chart_by_title(at, "output = Concat · W<sup>O</sup> + b<sup>O</sup>"), "output")
    np.testing.assert_allclose(concat @ w_o + b_o, output, atol=1e-5)  # W^O and b^O: the model's own parameters
    np.testing.assert_allclose(output, ref_output, atol=1e-5)  # and PyTorch's multi-head attention agrees
    assert any("largest difference" in el.value and "float rounding" in el.value for el in at.success)
    assert not at.error
    # the titles' findings, by hand: the largest |value| per head, W^O's blocks of rows, each head's part of the output
    loud = max(range(heads), key=lambda h: np.abs(ref_heads[h]).max())
    rows = [w_o[h * d_head : (h + 1) * d_head].astype(np.float64) for h in range(heads)]
    parts = [np.sqrt(((ref_heads[h].astype(np.float64) @ rows[h]) ** 2).sum()) for h in range(heads)]
    big = max(range(heads), key=lambda h: np.sqrt((rows[h] ** 2).sum()))
    most, least = int(np.argmax(parts)), int(np.argmin(parts))
    titles = [title_text(spec) for spec in specs]
    assert titles[0].endswith(
        f": head {loud + 1}'s values are the largest (|x| up to {np.abs(ref_heads[loud]).max():.2f})"
    )
    assert titles[2].endswith(f": head {big + 1}'s rows have the largest norm ({np.sqrt((rows[big] ** 2).sum()):.2f})")
    assert titles[3].endswith(
        f": head {most + 1} adds the most (‖head<sub>{most + 1}</sub> W<sup>O</sup><sub>{most + 1}</sub>‖ = "
        f"{parts[most]:.2f}, "
        f"head {least + 1} the least, {parts[least]:.2f})"
    )
