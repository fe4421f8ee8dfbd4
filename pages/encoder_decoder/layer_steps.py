"""One encoder layer, step by step: the tensors between its sub-layers, cached as float32 numpy.

The layer's own submodules are called one at a time (no hooks, nothing stored on
the shared model), following its post-LN or pre-LN wiring exactly, so the last
step equals ``layer(x)``.
"""

from __future__ import annotations

from dataclasses import astuple, dataclass

import numpy as np
import streamlit as st
from ui import runtime  # noqa: F401  (torch threads are set before any torch work)
import torch

from transformer import EncoderLayer, TransformerConfig

from ui.models import get_model


@dataclass(frozen=True)
class LayerSteps:
    """What happens inside one encoder layer on one sentence (``L`` tokens).

    ``stages``: (name, ``[L, d_model]``) in the order computed, from the layer's
    input to its output. ``norms``: (name, ``[L, d_model]`` before, ``[L, d_model]``
    after) for each LayerNorm. ``ffn_active``: fraction of the ``d_ff``
    feed-forward units with act(x W_1 + b_1) > 0, per token ``[L]``.
    """

    stages: tuple[tuple[str, np.ndarray], ...]
    norms: tuple[tuple[str, np.ndarray, np.ndarray], ...]
    ffn_active: np.ndarray
    norm_first: bool


def _np(x: torch.Tensor) -> np.ndarray:
    """``[1, L, d]`` tensor -> float32 ``[L, d]`` array."""
    return x[0].float().numpy().astype(np.float32)


def _post_ln(layer: EncoderLayer, x: torch.Tensor):
    """x1 = LN1(x + MHA(x)); out = LN2(x1 + FFN(x1)) (the paper's post-LN layer)."""
    attn = layer.self_attn(x, x, x)[0]
    sum1 = x + attn
    x1 = layer.norm1(sum1)
    ffn = layer.feed_forward(x1)
    sum2 = x1 + ffn
    out = layer.norm2(sum2)
    stages = (("input x", x), ("attention output", attn), ("x + attention", sum1),
              ("LayerNorm 1", x1), ("feed-forward output", ffn), ("x + feed-forward", sum2),
              ("LayerNorm 2 = output", out))
    norms = (("LayerNorm 1 (after attention)", sum1, x1), ("LayerNorm 2 (after feed-forward)", sum2, out))
    return stages, norms, layer.feed_forward.hidden(x1)


def _pre_ln(layer: EncoderLayer, x: torch.Tensor):
    """x1 = x + MHA(LN1(x)); out = x1 + FFN(LN2(x1)) (pre-LN: the residual stream is never normed)."""
    n1 = layer.norm1(x)
    attn = layer.self_attn(n1, n1, n1)[0]
    x1 = x + attn
    n2 = layer.norm2(x1)
    ffn = layer.feed_forward(n2)
    out = x1 + ffn
    stages = (("input x", x), ("LayerNorm 1", n1), ("attention output", attn), ("x + attention", x1),
              ("LayerNorm 2", n2), ("feed-forward output", ffn), ("x + feed-forward = output", out))
    norms = (("LayerNorm 1 (before attention)", x, n1), ("LayerNorm 2 (before feed-forward)", x1, n2))
    return stages, norms, layer.feed_forward.hidden(n2)


def run_layer_steps(model, src_ids: tuple[int, ...], layer_index: int) -> LayerSteps:
    """Embed the source, run encoder layers ``0..layer_index-1``, then layer ``layer_index`` step by step.

    ``model`` is a ``Transformer`` in eval mode (dropout inactive); it is only read.
    """
    with torch.inference_mode():
        x = model.src_embed(torch.tensor([src_ids]))
        for layer in model.encoder.layers[:layer_index]:
            x = layer(x)
        layer = model.encoder.layers[layer_index]
        stages, norms, hidden = (_pre_ln if layer.norm_first else _post_ln)(layer, x)
        active = (hidden[0] > 0).float().mean(-1).numpy().astype(np.float32)
        return LayerSteps(tuple((name, _np(t)) for name, t in stages),
                          tuple((name, _np(a), _np(b)) for name, a, b in norms),
                          active, bool(layer.norm_first))


@st.cache_data(max_entries=32, show_spinner=False)
def _layer_steps(config_values: tuple, seed: int, src_ids: tuple[int, ...], layer_index: int) -> LayerSteps:
    model = get_model(TransformerConfig(*config_values), seed, "encoder-decoder")
    return run_layer_steps(model, src_ids, layer_index)


def layer_steps(config: TransformerConfig, seed: int, src_ids: tuple[int, ...], layer_index: int) -> LayerSteps:
    """Encoder layer ``layer_index`` (0-based) of the cached model, step by step, on ``src_ids``."""
    return _layer_steps(astuple(config), int(seed), tuple(src_ids), int(layer_index))
