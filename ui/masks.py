"""Cached numbers for the Masks page: padded batches, masks, masked forward passes, softmax NaN."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import astuple, dataclass

import numpy as np
import streamlit as st
from . import runtime  # noqa: F401  (torch threads are set before any torch work)
import torch

from transformer import (PAD_ID, TransformerConfig, causal_mask, combine_masks, key_mask_from_tokens,
                         masked_softmax, padding_mask)

from .models import get_model

PAD = "<pad>"
MASK_KINDS = ("causal", "padding", "causal + padding", "none")


def pad_batch(sentences: Sequence[Sequence[str]], ids: Sequence[Sequence[int]],
              ) -> tuple[list[list[str]], list[list[int]], list[int]]:
    """Right-pad a batch to its longest sentence: tokens, ids (PAD_ID) and true lengths ``[B]``."""
    length = max(len(s) for s in sentences)
    tokens = [list(s) + [PAD] * (length - len(s)) for s in sentences]
    padded = [list(i) + [PAD_ID] * (length - len(i)) for i in ids]
    return tokens, padded, [len(s) for s in sentences]


def batch_padding_mask(lengths: Sequence[int]) -> np.ndarray:
    """Key-padding mask ``[B, L]`` (True = real token): padding_mask(lengths)[:, 0, 0]."""
    return padding_mask(list(lengths))[:, 0, 0].numpy()


def query_key_masks(length: int, real: int) -> dict[str, np.ndarray]:
    """The ``[L, L]`` masks of one padded sentence with ``real`` real tokens, by kind:
    padding (keys j < real), causal (j <= i), both (their AND), none (all True)."""
    pad = padding_mask([real], length)[0, 0].expand(length, length)
    causal = causal_mask(length)
    return {"padding": pad.numpy(), "causal": causal.numpy(),
            "causal + padding": combine_masks(causal, pad).numpy(),
            "none": np.ones((length, length), dtype=bool)}


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


@dataclass(frozen=True)
class SoftmaxComparison:
    """One scores matrix ``[T, T]`` with a fully masked first row: the plain softmax of the
    -inf-filled scores (NaN in that row) and ``masked_softmax`` (zeros there)."""
    plain: np.ndarray
    safe: np.ndarray
    mask: np.ndarray


def softmax_comparison(scores: np.ndarray, mask: np.ndarray) -> SoftmaxComparison:
    """softmax(S with -inf where masked): a row of all -inf gives exp(-inf)/sum = 0/0 = NaN.
    The package's masked_softmax returns an all-zero row instead."""
    s, m = torch.from_numpy(np.asarray(scores, dtype=np.float32)), torch.from_numpy(np.asarray(mask))
    plain = torch.softmax(s.masked_fill(~m, float("-inf")), dim=-1)
    return SoftmaxComparison(plain.numpy(), masked_softmax(s, m).numpy(), np.asarray(mask))


def as_text(values: np.ndarray) -> list[list[str]]:
    """Numbers as strings to 3 decimals, with NaN spelled "NaN" (for tables, never figures)."""
    return [["NaN" if np.isnan(v) else f"{v:.3f}" for v in row] for row in np.atleast_2d(values)]
