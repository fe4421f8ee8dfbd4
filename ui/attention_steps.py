"""Cached compute for the "Self-attention, step by step" page: one head, every intermediate.

Everything is float32 numpy, so the figures get compact binary arrays.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import streamlit as st
from . import runtime  # noqa: F401  (torch threads are set before any torch work)
import torch
from torch import nn

from transformer import attention_scores, causal_mask, init_parameters, masked_softmax, sinusoidal_encoding

VOCAB_SIZE = 4096


@dataclass(frozen=True)
class AttentionSteps:
    """The chain of one self-attention head on T tokens (all float32 numpy).

    ``x`` ``[T, d_model]`` = embedding * sqrt(d_model) (+ PE); ``q``, ``k``, ``v``
    ``[T, d_k]``; ``raw`` = Q K^T, ``scaled`` = raw / sqrt(d_k) / temperature (or
    raw / temperature without scaling), ``mask`` (bool, True = may attend) and
    ``weights`` = masked softmax ``[T, T]``; ``output`` = weights V ``[T, d_k]``.
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


class _OneHead(nn.Module):
    """The parameters of the demo: an embedding table and W_Q, W_K, W_V ``[d_model, d_k]``."""

    def __init__(self, d_model: int, d_k: int):
        super().__init__()
        self.embed = nn.Embedding(VOCAB_SIZE, d_model)
        self.w_q = nn.Linear(d_model, d_k, bias=False)
        self.w_k = nn.Linear(d_model, d_k, bias=False)
        self.w_v = nn.Linear(d_model, d_k, bias=False)


@st.cache_resource(max_entries=16, show_spinner=False)
def _one_head(d_model: int, d_k: int, seed: int) -> _OneHead:
    """Seeded, read-only parameters (Xavier-uniform projections, N(0, 1/d) embeddings)."""
    module = init_parameters(_OneHead(d_model, d_k), seed)
    for parameter in module.parameters():
        parameter.requires_grad_(False)
    return module


@st.cache_data(max_entries=64, show_spinner=False)
def attention_steps(ids: tuple[int, ...], d_model: int, d_k: int, seed: int, positional: bool,
                    scale: bool = True, temperature: float = 1.0, causal: bool = False) -> AttentionSteps:
    """softmax(mask(Q K^T / sqrt(d_k) / temperature)) V for one head on token ``ids``."""
    head = _one_head(int(d_model), int(d_k), int(seed))
    length = len(ids)
    with torch.inference_mode():
        x = head.embed(torch.tensor(ids) % VOCAB_SIZE) * math.sqrt(d_model)
        if positional:
            x = x + sinusoidal_encoding(length, d_model)
        q, k, v = head.w_q(x), head.w_k(x), head.w_v(x)
        raw = attention_scores(q, k, scale=1.0)
        factor = (1.0 / math.sqrt(d_k) if scale else 1.0) / float(temperature)
        scaled = raw * factor
        mask = causal_mask(length) if causal else torch.ones(length, length, dtype=torch.bool)
        weights = masked_softmax(scaled, mask)
        output = weights @ v
    arrays = [t.float().numpy() for t in (x, q, k, v, raw, scaled)]
    return AttentionSteps(*arrays, mask.numpy(), weights.float().numpy(), output.float().numpy())


def sentence_peakedness(steps: AttentionSteps) -> tuple[float, float]:
    """Mean row entropy (nats) and mean largest weight of the sentence's attention rows."""
    rows = torch.from_numpy(steps.weights[steps.mask.any(-1)])
    return float(row_entropy(rows).mean()), float(rows.max(-1).values.mean())


PEAK_DIMS = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512)


@dataclass(frozen=True)
class Peakedness:
    """How peaked softmax rows get as d_k grows: ``dims`` ``[D]`` and, with and without
    the 1/sqrt(d_k) scaling, the mean row entropy (nats) and the mean max weight ``[D]``."""

    dims: np.ndarray
    entropy_scaled: np.ndarray
    entropy_unscaled: np.ndarray
    max_scaled: np.ndarray
    max_unscaled: np.ndarray
    keys: int


def row_entropy(weights: torch.Tensor) -> torch.Tensor:
    """H(a) = -sum_j a_j log a_j over the last axis (0 log 0 = 0): ``[..., n] -> [...]``."""
    return -(weights * torch.log(weights.clamp_min(1e-30))).sum(-1)


@st.cache_data(max_entries=4, show_spinner=False)
def softmax_peakedness(keys: int = 16, queries: int = 256, seed: int = 0,
                       dims: tuple[int, ...] = PEAK_DIMS) -> Peakedness:
    """For q, k ~ N(0, I_{d_k}): mean entropy and max of softmax(q.k) vs softmax(q.k / sqrt(d_k)).

    q.k has variance d_k, so unscaled rows saturate (entropy -> 0, max -> 1) as
    d_k grows; dividing by sqrt(d_k) keeps the variance at 1 for every d_k.
    """
    generator = torch.Generator().manual_seed(seed)
    out = {name: [] for name in ("es", "eu", "ms", "mu")}
    for d in dims:
        q = torch.randn(queries, d, generator=generator)
        k = torch.randn(keys, d, generator=generator)
        raw = q @ k.T
        for tag, scores in (("s", raw / math.sqrt(d)), ("u", raw)):
            weights = torch.softmax(scores.double(), dim=-1)
            out["e" + tag].append(float(row_entropy(weights).mean()))
            out["m" + tag].append(float(weights.max(-1).values.mean()))
    arrays = {name: np.asarray(values, dtype=np.float32) for name, values in out.items()}
    return Peakedness(np.asarray(dims, dtype=np.float32), arrays["es"], arrays["eu"], arrays["ms"],
                      arrays["mu"], keys)
