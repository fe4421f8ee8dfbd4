"""Cached forward passes: float32 numpy attention maps, computed once per input."""

from __future__ import annotations

from dataclasses import astuple, dataclass

import numpy as np
import streamlit as st
from . import runtime  # noqa: F401  (torch threads are set before any torch work)
import torch

from transformer import TransformerConfig

from .models import get_model


@dataclass(frozen=True)
class SelfAttentionMaps:
    """A self-attention stack's maps: ``weights`` and pre-softmax ``scores`` ``[L, H, T, T]``.

    Scores are taken before the mask is applied, so every entry is finite; the
    weights are zero where the mask forbids attending.
    """

    weights: np.ndarray
    scores: np.ndarray


@st.cache_data(max_entries=64, show_spinner=False)
def _self_attention(config_values: tuple, seed: int, ids: tuple[int, ...], causal: bool) -> SelfAttentionMaps:
    model = get_model(TransformerConfig(*config_values), seed, "decoder-only")
    with torch.inference_mode():
        record = model(torch.tensor([ids]), causal=causal, return_scores=True).attention
    weights = record.stacked("decoder")[:, 0].float().numpy()
    scores = record.stacked("decoder", scores=True)[:, 0].float().numpy()
    return SelfAttentionMaps(weights, scores)


def self_attention_maps(config: TransformerConfig, seed: int, ids: tuple[int, ...],
                        causal: bool = False) -> SelfAttentionMaps:
    """Every layer's self-attention on one sentence (decoder-only model; causal or not)."""
    return _self_attention(astuple(config), int(seed), tuple(ids), bool(causal))


@dataclass(frozen=True)
class EncoderDecoderMaps:
    """Attention of the full encoder-decoder on one (source, target) pair, by record name
    (``[H, Lq, Lk]`` float32 each), and the output probabilities ``[Lt, vocab]``."""

    weights: dict[str, np.ndarray]
    probabilities: np.ndarray


@st.cache_data(max_entries=32, show_spinner=False)
def _encoder_decoder(config_values: tuple, seed: int, src: tuple[int, ...],
                     tgt: tuple[int, ...]) -> EncoderDecoderMaps:
    model = get_model(TransformerConfig(*config_values), seed, "encoder-decoder")
    with torch.inference_mode():
        out = model(torch.tensor([src]), torch.tensor([tgt]), return_attention=True)
    weights = {name: w[0].float().numpy() for name, w in out.attention.weights.items()}
    return EncoderDecoderMaps(weights, torch.softmax(out.logits[0], -1).float().numpy())


def encoder_decoder_maps(config: TransformerConfig, seed: int, src: tuple[int, ...],
                         tgt: tuple[int, ...]) -> EncoderDecoderMaps:
    return _encoder_decoder(astuple(config), int(seed), tuple(src), tuple(tgt))


def finite(array: np.ndarray) -> bool:
    return bool(np.isfinite(array).all())
