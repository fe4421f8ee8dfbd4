"""The copying score of a head's OV circuit (Olsson et al., 2022): does a head that attends to a token raise that
token's own logit?

For head h of a decoder-only model, the full OV circuit maps a token attended to onto the logits it adds:

    M_h = E · diag(γ_in) · W_V^h · W_O^h · diag(γ_out) · U        [V, V]

with E the token embeddings ``[V, d_model]`` (times sqrt(d_model) where the model scales them), W_V^h
``[d_model, d_head]`` and W_O^h ``[d_head, d_model]`` the head's slices, U the unembedding ``[d_model, V]``, and
the LayerNorms folded in as their scales only: γ_in of the norm before the attention (pre-LN models) and γ_out of
the final norm (where the model has one). Biases, the norms' centring and division, positions and every other
layer are left out: this is the direct path from a token, through this one head, to the logits.

    copying score = Re(Σ λ_i) / Σ |λ_i|         λ_i the eigenvalues of M_h, in [-1, 1]

Near 1: the circuit maps most tokens onto themselves (a copying head, as an induction head is); near 0 or below:
it does something else with what it reads.
"""

from __future__ import annotations

import math

import numpy as np
import torch


def _raw_embedding(module) -> torch.Tensor:
    """E ``[V, d_model]``, times sqrt(d_model) where the model scales its embeddings."""
    config = module.config
    return module.embed.tokens.weight.double() * (math.sqrt(config.d_model) if config.embed_scale else 1.0)


def _input_scale(module, layer: int) -> torch.Tensor:
    """γ_in ``[d_model]``: the scale of the LayerNorm before ``layer``'s attention (ones where there is none)."""
    block = module.decoder.layers[layer]
    norm = block.norm1 if module.config.norm_first else None
    weight = getattr(norm, "weight", None)
    return weight.double() if weight is not None else torch.ones(module.config.d_model, dtype=torch.float64)


def _embedding(module, layer: int) -> torch.Tensor:
    """E · diag(γ_in) ``[V, d_model]``: the token embeddings as the attention of ``layer`` reads them."""
    return _raw_embedding(module) * _input_scale(module, layer)


def _unembedding(module) -> torch.Tensor:
    """diag(γ_out) · U ``[d_model, V]`` (a tied output head's U is the embedding's transpose)."""
    head = module.generator
    unembed = (head.embedding[0].weight if head.tied else head.weight).double().T
    scale = getattr(module.decoder.norm, "weight", None)
    return unembed * scale.double()[:, None] if scale is not None else unembed


def _head_slices(module, layer: int, head: int) -> tuple[torch.Tensor, torch.Tensor]:
    """W_V^h ``[d_model, d_head]`` and W_O^h ``[d_head, d_model]`` (PyTorch stores a linear map's weight as
    ``[out, in]``: a head's value columns are rows of w_v, its slice of w_o is columns). Under grouped-query
    attention the head reads the values of its group's key-value head, ``head // (H / H_kv)``."""
    config = module.config
    d_head, group = config.d_head, config.num_heads // config.kv_heads
    values = slice(head // group * d_head, (head // group + 1) * d_head)
    rows = slice(head * d_head, (head + 1) * d_head)
    attention = module.decoder.layers[layer].self_attn
    return attention.w_v.weight.double()[values].T, attention.w_o.weight.double()[:, rows].T


def ov_circuit(module, layer: int, head: int) -> np.ndarray:
    """M_h ``[V, V]`` of self-attention head ``head`` in decoder layer ``layer`` (counted from 0); see the module.
    V × V numbers: for small vocabularies (``copying_scores`` never builds it)."""
    with torch.no_grad():
        value, output = _head_slices(module, layer, head)
        return (_embedding(module, layer) @ value @ output @ _unembedding(module)).numpy()


def copying_score(circuit: np.ndarray) -> float:
    """Re(Σλ) / Σ|λ| over the eigenvalues λ of a square circuit: 1 for a pure copy, -1 for its negative."""
    eigenvalues = np.linalg.eigvals(circuit)
    total = float(np.abs(eigenvalues).sum())
    return float(eigenvalues.sum().real / total) if total > 0 else 0.0


def copying_scores(module) -> np.ndarray | None:
    """The copying score of every self-attention head of a decoder-only model ``[layers, heads]``; None for a model
    without a linear unembedding. M_h = (E' W_V^h)(W_O^h U') has the nonzero eigenvalues of the ``[d_head, d_head]``
    matrix W_O^h (U' E') W_V^h, so the score never needs V × V numbers (a 50,000-token vocabulary included)."""
    if getattr(module, "generator", None) is None:
        return None
    config = module.config
    with torch.no_grad():
        unembedded = _unembedding(module) @ _raw_embedding(module)  # U' E  [d_model, d_model], once: the V-long product
        scores = []
        for layer in range(len(module.decoder.layers)):
            through = unembedded * _input_scale(module, layer)  # U' E diag(γ_in)
            row = []
            for head in range(config.num_heads):
                value, output = _head_slices(module, layer, head)
                row.append(copying_score((output @ through @ value).numpy()))  # [d_head, d_head]
            scores.append(row)
    return np.array(scores, dtype=np.float32)
