"""Cached masked forward passes for the Masks page."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import astuple, dataclass

import numpy as np
import streamlit as st
from ui import runtime  # noqa: F401  (torch threads are set before any torch work)
import torch

from transformer import (PAD_ID, TransformerConfig, causal_mask, combine_masks, key_mask_from_tokens,
                         masked_softmax, padding_mask)

from ui.models import get_model

MASK_KINDS = ("causal", "padding", "causal + padding", "none")


@dataclass(frozen=True)
class MaskedMaps:
    """Pre-mask scores and post-softmax weights ``[layers, H, T, T]`` and the mask ``[T, T]``."""
    scores: np.ndarray
    weights: np.ndarray
    mask: np.ndarray


@st.cache_data(max_entries=32, show_spinner=False)
def _masked_forward(config_values: tuple, seed: int, ids: tuple[int, ...], causal: bool,
                    pad_keys: bool) -> MaskedMaps:
    model = get_model(TransformerConfig(*config_values), seed, "decoder-only")
    tokens = torch.tensor([ids])
    key_mask = key_mask_from_tokens(tokens, PAD_ID) if pad_keys else None
    with torch.inference_mode():
        record = model(tokens, key_mask=key_mask, causal=causal, return_scores=True).attention
    mask = combine_masks(causal_mask(len(ids)) if causal else None,
                         key_mask[0, 0] if key_mask is not None else None)
    mask = np.ones((len(ids), len(ids)), dtype=bool) if mask is None else mask.expand(len(ids), len(ids)).numpy()
    return MaskedMaps(record.stacked("decoder", scores=True)[:, 0].float().numpy(),
                      record.stacked("decoder")[:, 0].float().numpy(), mask)


def masked_forward(config: TransformerConfig, seed: int, ids: Sequence[int], kind: str) -> MaskedMaps:
    """The decoder-only model on padded ``ids`` with the mask ``kind`` (one of MASK_KINDS):
    W = masked_softmax(S, M) with S = Q K^T / sqrt(d_k) before masking."""
    return _masked_forward(astuple(config), int(seed), tuple(ids), "causal" in kind, "padding" in kind)

