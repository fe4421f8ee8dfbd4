"""One self-attention head's chain of steps, recomputed from the q, k, v its model recorded.

The model's own forward record holds one head's q, k, v, its scores and its weights; this module
recomputes only the what-if part a reader may change (the sqrt(d_k) scaling and a temperature). With
scaling on and τ = 1 the weights are the model's own. Everything out is float32 numpy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from analysis.softmax import row_entropy
from transformer import masked_softmax


@dataclass(frozen=True)
class AttentionSteps:
    """The chain of one self-attention head on T tokens (all float32 numpy).

    ``x`` ``[T, d_model]``: what the layer's W_Q, W_K, W_V read (the embeddings for the
    first post-LN layer); ``q``, ``k``, ``v`` ``[T, d_k]`` (q and k after any rotary
    rotation); ``raw`` = Q K^T; ``scaled`` = (raw * s + b) / τ with s = 1/sqrt(d_k)
    (or 1 without scaling), b the model's score bias (ALiBi, else 0) and τ the
    temperature; ``mask`` (bool, True = may attend) and ``weights`` = masked softmax
    ``[T, T]``; ``output`` = weights V ``[T, d_k]``; ``model_weights`` ``[T, T]``: the
    head's weights in the model's own forward pass.
    """

    x: np.ndarray
    q: np.ndarray
    k: np.ndarray
    v: np.ndarray
    raw: np.ndarray
    scaled: np.ndarray
    mask: np.ndarray
    weights: np.ndarray
    output: np.ndarray
    model_weights: np.ndarray


def head_steps(
    x: np.ndarray,
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    model_scores: np.ndarray,
    mask: np.ndarray,
    model_weights: np.ndarray,
    model_scales: bool,
    scale: bool = True,
    temperature: float = 1.0,
) -> AttentionSteps:
    """softmax(mask((Q K^T s + b) / τ)) V from one head's recorded ``q``, ``k``, ``v`` ``[T, d_k]``.

    ``model_scores`` ``[T, T]`` are the head's scores as its model computed them (before the mask):
    raw * s_model + b, with s_model = 1/sqrt(d_k) when ``model_scales`` else 1; so b, the model's own
    score bias, is what is left after taking raw * s_model away.
    """
    q64, k64, v64 = (torch.tensor(a, dtype=torch.float64) for a in (q, k, v))
    d_k = q64.shape[-1]
    raw = q64 @ k64.T
    model_scale = 1.0 / math.sqrt(d_k) if model_scales else 1.0
    bias = torch.tensor(model_scores, dtype=torch.float64) - raw * model_scale
    factor = 1.0 / math.sqrt(d_k) if scale else 1.0
    scaled = (raw * factor + bias) / float(temperature)
    allowed = torch.tensor(mask)
    weights = masked_softmax(scaled, allowed)
    output = weights @ v64
    arrays = [np.asarray(a, dtype=np.float32) for a in (x, q, k, v, raw, scaled)]
    return AttentionSteps(
        *arrays,
        allowed.numpy(),
        weights.float().numpy(),
        output.float().numpy(),
        np.asarray(model_weights, dtype=np.float32),
    )


def sentence_peakedness(steps: AttentionSteps) -> tuple[float, float]:
    """Mean row entropy (nats) and mean largest weight of the sentence's attention rows."""
    rows = torch.from_numpy(np.ascontiguousarray(steps.weights[steps.mask.any(-1)]))
    return float(row_entropy(rows).mean()), float(rows.max(-1).values.mean())
