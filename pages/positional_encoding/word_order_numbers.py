"""The word-order demo: the same words in another order, with and without positional encoding, with or
without a causal mask."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ui import runtime  # noqa: F401  (torch threads are set before any torch work)

from transformer.spec import ModelSpec
from ui.forward import run_model, stack_of
from ui.models import load_model


@dataclass(frozen=True)
class WordOrderResult:
    """Attention ``[L, H, T, T]`` of sentences A and B, B's maps put back into A's order
    (``b_in_a_order[..., i, m] = B[..., inv[i], inv[m]]``), max |A - B in A's order| over every layer,
    head, query and key, and max |h_A - h_B in A's order| over the last hidden states ``[T, d_model]``
    (the outputs), every token and dimension."""

    a: np.ndarray
    b: np.ndarray
    b_in_a_order: np.ndarray
    max_difference: float
    output_difference: float


def word_order_attention(
    spec: ModelSpec, ids_a: Sequence[int], ids_b: Sequence[int], perm: Sequence[int]
) -> WordOrderResult:
    """Self-attention of both sentences with the same weights, with the model's own mask.

    Without positional encoding and without a mask every step (embedding, Q K^T, softmax, FFN,
    LayerNorm) treats positions alike, so permuting the input permutes the attention and the outputs:
    A2 = P A1 P^T, and un-permuting B recovers A exactly (up to float rounding). A causal mask breaks
    this even without positions: token i sees only the tokens up to i, so a word sees other words in the
    other sentence and its weights and output change.
    """
    stack = stack_of(load_model(spec).kind)
    view_a, view_b = run_model(spec, tuple(ids_a)), run_model(spec, tuple(ids_b))
    a, b = view_a.stacked(stack), view_b.stacked(stack)
    inv = np.argsort(np.asarray(perm))
    b_in_a = np.ascontiguousarray(b[:, :, inv][:, :, :, inv])
    outputs = float(np.abs(view_a.hidden - view_b.hidden[inv]).max())
    return WordOrderResult(a, b, b_in_a, float(np.abs(a - b_in_a).max()), outputs)
