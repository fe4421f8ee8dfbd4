"""The word-order demo: the same words in another order, with and without positional encoding."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ui import runtime  # noqa: F401  (torch threads are set before any torch work)

from transformer.spec import ModelSpec
from ui.forward import self_attention_maps


@dataclass(frozen=True)
class WordOrderResult:
    """Attention ``[L, H, T, T]`` of sentences A and B, B's maps put back into A's order
    (``b_in_a_order[..., i, m] = B[..., inv[i], inv[m]]``), and max |A - B in A's order|
    over every layer, head, query and key."""
    a: np.ndarray
    b: np.ndarray
    b_in_a_order: np.ndarray
    max_difference: float


def word_order_attention(spec: ModelSpec, ids_a: Sequence[int], ids_b: Sequence[int],
                         perm: Sequence[int]) -> WordOrderResult:
    """Bidirectional self-attention of both sentences with the same weights.

    Without positional encoding every step (embedding, Q K^T, softmax, FFN,
    LayerNorm) treats positions alike, so permuting the input permutes the
    attention: A2 = P A1 P^T, and un-permuting B recovers A exactly (up to float
    rounding). A causal mask would break this, so the demo is bidirectional.
    """
    a = self_attention_maps(spec, tuple(ids_a))
    b = self_attention_maps(spec, tuple(ids_b))
    inv = np.argsort(np.asarray(perm))
    b_in_a = np.ascontiguousarray(b[:, :, inv][:, :, :, inv])
    return WordOrderResult(a, b, b_in_a, float(np.abs(a - b_in_a).max()))
