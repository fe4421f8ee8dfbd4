"""Fill in the blank: what a masked (encoder-only) model and a next-token (decoder-only) model each know of a
token, from both sides of it or from its left only.

The two models read the same symbols with the same ids (the masked model's vocabulary is the next-token
model's with ``[MASK]`` added at the end), so one id sequence feeds both.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch.nn import functional as F

from .next_token import next_token_losses


@dataclass(frozen=True)
class Blanks:
    """Each token's loss, counted from 1 on screen.

    ``both [L]``: -log p(x_i | every other token), the masked model with position i replaced by [MASK];
    ``left [L - 1]``: -log p(x_i | x_1 .. x_{i-1}) for i = 2..L, the next-token model (nothing precedes x_1).
    """

    both: np.ndarray
    left: np.ndarray

    def easier_from_both_sides(self) -> int:
        """How many of tokens 2..L the masked model finds more probable than the next-token model does."""
        return int((self.both[1:] < self.left).sum())


def masked_copies(ids: Sequence[int], mask: int) -> torch.Tensor:
    """``[L, L]``: row i is ``ids`` with position i replaced by ``mask``."""
    rows = torch.tensor([list(ids)] * len(ids))
    rows[torch.arange(len(ids)), torch.arange(len(ids))] = mask
    return rows


def blank_losses(masked_model: torch.nn.Module, next_model: torch.nn.Module, ids: Sequence[int], mask: int) -> Blanks:
    """Every token hidden in turn (one bidirectional pass over the ``L`` masked copies) and every next token
    (one causal pass), for ``ids`` of length ``L >= 2``."""
    if len(ids) < 2:
        raise ValueError("blanks need at least two tokens.")
    targets = torch.tensor(list(ids))
    with torch.inference_mode():
        logits = masked_model(masked_copies(ids, mask)).logits.float()
    both = F.cross_entropy(logits[torch.arange(len(ids)), torch.arange(len(ids))], targets, reduction="none")
    return Blanks(both.numpy().astype(np.float32), next_token_losses(next_model, ids))


def blank_distributions(
    masked_model: torch.nn.Module, next_model: torch.nn.Module, ids: Sequence[int], position: int, mask: int
) -> tuple[np.ndarray, np.ndarray]:
    """(both sides, left only): the two models' probabilities ``[V]`` over the next-token model's vocabulary
    for the token at ``position`` (0-based, at least 1): the masked model with that token hidden (its [MASK]
    column dropped, a probability near 0), and the next-token model given the tokens before it."""
    if not 1 <= position < len(ids):
        raise ValueError(f"position {position + 1} has no token before it or is past the {len(ids)} tokens.")
    inputs = torch.tensor([list(ids)])
    hidden = inputs.clone()
    hidden[0, position] = mask
    with torch.inference_mode():
        both = torch.softmax(masked_model(hidden).logits[0, position].float(), dim=-1)
        left = torch.softmax(next_model(inputs[:, :position]).logits[0, -1].float(), dim=-1)
    return both[: left.shape[0]].numpy(), left.numpy()
