"""One real head of the selected model, every intermediate, read from its forward record.

The model runs once (cached) with its internals recorded; this module picks one head's
q, k, v and the layer input that W_Q, W_K, W_V read, and recomputes only the what-if
part the page lets the user change (the sqrt(d_k) scaling and a temperature). With
scaling on and τ = 1 the weights are the model's own (the page shows the difference).
Everything is float32 numpy, so the figures get compact binary arrays.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import streamlit as st
from ui import runtime  # noqa: F401  (torch threads are set before any torch work)
import torch

from analysis.softmax import peakedness_against_dk, row_entropy
from transformer import masked_softmax
from transformer.spec import ModelSpec
from ui.forward import run_model, stack_of
from ui.models import load_model


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


def head_name(kind: str, layer: int) -> str:
    """The record name of self-attention layer ``layer`` (0-based) of a model's (first) stack."""
    return f"{stack_of(kind)}.layers.{layer}.self_attn"


@st.cache_data(max_entries=64, show_spinner=False)
def attention_steps(spec: ModelSpec, ids: tuple[int, ...], layer: int = 0, head: int = 0, scale: bool = True,
                    temperature: float = 1.0) -> AttentionSteps:
    """softmax(mask((Q K^T s + b) / τ)) V for head ``head`` of layer ``layer`` (both 0-based) on ``ids``."""
    loaded = load_model(spec)
    view = run_model(spec, tuple(ids), internals=True)
    name = head_name(loaded.kind, layer)
    x = view.internals[f"{name}.input"]
    q, k, v = (torch.from_numpy(view.internals[f"{name}.{part}"][head]).double() for part in "qkv")
    d_k = q.shape[-1]
    raw = q @ k.T
    model_scale = 1.0 / math.sqrt(d_k) if loaded.config.scale_scores else 1.0
    bias = torch.from_numpy(view.scores[name][head]).double() - raw * model_scale
    factor = 1.0 / math.sqrt(d_k) if scale else 1.0
    scaled = (raw * factor + bias) / float(temperature)
    mask = torch.from_numpy(view.masks[name])
    weights = masked_softmax(scaled, mask)
    output = weights @ v
    arrays = [np.asarray(a, dtype=np.float32) for a in (x, q, k, v, raw, scaled)]
    return AttentionSteps(*arrays, mask.numpy(), weights.float().numpy(), output.float().numpy(),
                          view.weights[name][head])


def sentence_peakedness(steps: AttentionSteps) -> tuple[float, float]:
    """Mean row entropy (nats) and mean largest weight of the sentence's attention rows."""
    rows = torch.from_numpy(steps.weights[steps.mask.any(-1)])
    return float(row_entropy(rows).mean()), float(rows.max(-1).values.mean())


softmax_peakedness = st.cache_data(max_entries=4, show_spinner=False)(peakedness_against_dk)
