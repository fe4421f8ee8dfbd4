"""Masks of a padded batch and the fully masked row: pure torch/numpy, no Streamlit."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from transformer import PAD_ID, causal_mask, combine_masks, masked_softmax, padding_mask

PAD = "<pad>"


def pad_batch(
    sentences: Sequence[Sequence[str]],
    ids: Sequence[Sequence[int]],
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
    return {
        "padding": pad.numpy(),
        "causal": causal.numpy(),
        "causal + padding": combine_masks(causal, pad).numpy(),
        "none": np.ones((length, length), dtype=bool),
    }


@dataclass(frozen=True)
class SoftmaxComparison:
    """One scores matrix ``[T, T]`` with a fully masked first row: the plain softmax of the
    -inf-filled scores (NaN in that row), ``masked_softmax`` (zeros there) and the softmax of
    scores filled with a finite -1e9 (``finite``: a uniform row there, 1/T on every key)."""

    plain: np.ndarray
    safe: np.ndarray
    mask: np.ndarray
    finite: np.ndarray


FINITE_FILL = -1e9


def softmax_comparison(scores: np.ndarray, mask: np.ndarray) -> SoftmaxComparison:
    """softmax(S with -inf where masked): a row of all -inf gives exp(-inf)/sum = 0/0 = NaN.
    The package's masked_softmax returns an all-zero row instead; a finite -1e9 fill, as many
    implementations use, makes every score of that row equal, so softmax spreads it evenly."""
    s, m = (
        torch.tensor(np.asarray(scores, dtype=np.float32)),
        torch.tensor(np.asarray(mask)),
    )  # copies: inputs may be read-only
    plain = torch.softmax(s.masked_fill(~m, float("-inf")), dim=-1)
    finite = torch.softmax(s.masked_fill(~m, FINITE_FILL), dim=-1)
    return SoftmaxComparison(plain.numpy(), masked_softmax(s, m).numpy(), np.asarray(mask), finite.numpy())


def as_text(values: np.ndarray) -> list[list[str]]:
    """Numbers as strings to 3 decimals, with NaN spelled "NaN" (for tables, never figures)."""
    return [["NaN" if np.isnan(v) else f"{v:.3f}" for v in row] for row in np.atleast_2d(values)]


@dataclass(frozen=True)
class KeptWeights:
    """The weights a mask keeps (``allowed`` cells), compared with the same cells without the mask:
    how many are ``larger``, ``same`` (within ``SAME``) and ``smaller``, of ``kept`` in all."""

    larger: int
    same: int
    smaller: int

    @property
    def kept(self) -> int:
        return self.larger + self.same + self.smaller


SAME = 1e-5  # float32 rounding of two softmaxes of the same scores


def kept_weights(masked: np.ndarray, unmasked: np.ndarray, allowed: np.ndarray) -> KeptWeights:
    """Compare ``masked`` and ``unmasked`` weights ``[T, T]`` on the ``allowed`` cells ``[T, T]`` (bool)."""
    difference = (np.asarray(masked, dtype=np.float64) - np.asarray(unmasked, dtype=np.float64))[np.asarray(allowed)]
    larger, smaller = int((difference > SAME).sum()), int((difference < -SAME).sum())
    return KeptWeights(larger, len(difference) - larger - smaller, smaller)
