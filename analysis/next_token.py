"""Next-token prediction, the objective a decoder (GPT-style) is trained on, read on one text."""

from __future__ import annotations

from typing import Sequence

import numpy as np
import torch
from torch.nn import functional as F


def next_token_losses(model: torch.nn.Module, ids: Sequence[int]) -> np.ndarray:
    """Each position's loss on a decoder-only ``model`` over ``ids`` (length L >= 2), from one causal pass:

        loss_t = -log p(x_{t+1} | x_1, ..., x_t) = -log softmax(z_t)[x_{t+1}],   t = 1..L-1,

    with ``z [L, V]`` the logits of ``model(ids)``; the training loss is their mean and the perplexity exp(mean).
    Returns float32 ``[L - 1]``: entry t - 1 scores the prediction of token t + 1 (counted from 1). The causal mask
    keeps position t from reading t + 1, so one pass gives the same numbers as L - 1 passes over the prefixes.
    """
    if len(ids) < 2:
        raise ValueError("next-token losses need at least two tokens.")
    tokens = torch.tensor([list(ids)])
    with torch.inference_mode():
        logits = model(tokens).logits[0, :-1].float()
    return F.cross_entropy(logits, tokens[0, 1:], reduction="none").numpy().astype(np.float32)


SPACE = "▁"  # the character tokenizer's (and SentencePiece's) mark of a space
CHARACTER_PLACES = ("first letters of words", "letters inside words", "spaces")


def mean_loss_by_place(characters: Sequence[str], losses: np.ndarray) -> dict[str, float]:
    """A character-level text's mean loss at each kind of place, for ``characters [L]`` (``SPACE`` for a space)
    and ``losses [L - 1]`` (entry t scores character t + 1, as ``next_token_losses`` returns):

        mean over {t : character t + 1 is of the kind} of loss_t,

    a letter after a space being a word's first letter (the first character has no loss). Kinds with no
    scored character are left out."""
    if len(losses) != len(characters) - 1:
        raise ValueError(f"{len(characters)} characters take {len(characters) - 1} losses, not {len(losses)}.")
    kinds: dict[str, list[float]] = {place: [] for place in CHARACTER_PLACES}
    for t, loss in enumerate(losses):
        character, before = characters[t + 1], characters[t]
        kind = 2 if character == SPACE else 0 if before == SPACE else 1
        kinds[CHARACTER_PLACES[kind]].append(float(loss))
    return {place: float(np.mean(values)) for place, values in kinds.items() if values}
