"""Cached compute for the "Self-attention, step by step" page: one head, every intermediate.

Everything is float32 numpy, so the figures get compact binary arrays.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import streamlit as st
from ui import runtime  # noqa: F401  (torch threads are set before any torch work)
import torch
from torch import nn

from analysis.softmax import peakedness_against_dk, row_entropy
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





softmax_peakedness = st.cache_data(max_entries=4, show_spinner=False)(peakedness_against_dk)
