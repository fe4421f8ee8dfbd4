"""Greedy continuation of a decoder-only model: at each step the most likely next token.

    t_{n+1} = argmax_v softmax(logits(t_1 .. t_n))[n, v]

Each step runs the whole sequence again (no KV cache): simple, and what any faster
decoding must equal.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn


def greedy_continue(model: nn.Module, ids: Sequence[int], max_new_tokens: int,
                    eos_id: int | None = None) -> list[int]:
    """The ids ``model`` (decoder-only) appends to ``ids``, one argmax at a time: ``max_new_tokens`` of
    them, fewer when ``eos_id`` comes out (it is kept) or the model's ``max_len`` is reached.
    A tie goes to the lowest id."""
    if getattr(model, "kind", None) != "decoder-only":
        raise ValueError("greedy_continue runs a decoder-only model.")
    if isinstance(max_new_tokens, bool) or not isinstance(max_new_tokens, int) or max_new_tokens < 0:
        raise ValueError(f"max_new_tokens must be a whole number >= 0, got {max_new_tokens!r}.")
    tokens = [int(i) for i in ids]
    if not tokens:
        raise ValueError("the input is empty; give at least one token.")
    new: list[int] = []
    with torch.inference_mode():
        while len(new) < max_new_tokens and len(tokens) < model.config.max_len:
            logits = model(torch.tensor([tokens])).logits
            token = int(logits[0, -1].argmax())
            tokens.append(token)
            new.append(token)
            if token == eos_id:
                break
    return new
