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
