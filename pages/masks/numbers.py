"""Cached masked forward passes for the Masks page."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from transformer.spec import ModelSpec
from ui.forward import run_model, stack_of
from ui.models import load_model

MASK_KINDS = ("causal", "padding", "causal + padding", "none")


@dataclass(frozen=True)
class MaskedMaps:
    """Pre-mask scores and post-softmax weights ``[layers, H, T, T]`` and the mask ``[T, T]``."""

    scores: np.ndarray
    weights: np.ndarray
    mask: np.ndarray


def masked_forward(spec: ModelSpec, ids: Sequence[int], kind: str) -> MaskedMaps:
    """The model's self-attention stack on padded ``ids`` with the mask ``kind`` (one of MASK_KINDS):
    W = masked_softmax(S, M) with S = Q K^T / sqrt(d_k) before masking."""
    view = run_model(spec, tuple(ids), causal="causal" in kind, pad_keys="padding" in kind)
    stack = stack_of(load_model(spec).kind)
    return MaskedMaps(view.stacked(stack, scores=True), view.stacked(stack), view.masks[view.names(stack)[0]])
