"""The next-token distribution a decoder chooses from: temperature, top-k and top-p (nucleus).

From the logits ``z [V]`` of the last position:

    p = softmax(z / T),

then top-k keeps the k most probable tokens, top-p the fewest most probable tokens whose
probabilities add up to at least p, and the kept probabilities are renormalised to sum to 1.
T = 0 is greedy (the most probable token only); top-k of at least V and top-p of 1 keep everything.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class Distribution:
    """One step's choice: ``logits [V]``, ``softmax(z / T)`` before the cut (``tempered``), which tokens
    the cut ``kept`` (bool ``[V]``) and the renormalised ``probabilities [V]`` sampled from (0 where cut)."""

    logits: torch.Tensor
    tempered: torch.Tensor
    kept: torch.Tensor
    probabilities: torch.Tensor


def check_sampling(temperature: float, top_k: int | None, top_p: float | None) -> None:
    """ValueError, saying what to change, for a temperature < 0, a top-k < 1 or a top-p outside [0, 1]."""
    if not temperature >= 0:
        raise ValueError(f"temperature must be >= 0 (0 = greedy), got {temperature}.")
    if top_k is not None and (isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1):
        raise ValueError(f"top_k must be a whole number >= 1 (or None for no cut), got {top_k!r}.")
    if top_p is not None and not 0.0 <= top_p <= 1.0:
        raise ValueError(f"top_p must be in [0, 1] (or None for no cut), got {top_p}.")


def next_distribution(
    logits: torch.Tensor, temperature: float = 1.0, top_k: int | None = None, top_p: float | None = None
) -> Distribution:
    """The distribution ``[V]`` to sample the next token from, given the last position's ``logits [V]``."""
    check_sampling(temperature, top_k, top_p)
    logits = logits.float()
    if temperature == 0:
        tempered = torch.zeros_like(logits)
        tempered[logits.argmax()] = 1.0
    else:
        tempered = torch.softmax(logits / temperature, dim=-1)
    order = tempered.argsort(descending=True, stable=True)
    rank = torch.empty_like(order)
    rank[order] = torch.arange(len(order))
    kept = torch.ones_like(tempered, dtype=torch.bool)
    if top_k is not None:
        kept &= rank < top_k
    if top_p is not None and top_p < 1.0:
        before = torch.cumsum(tempered[order], 0) - tempered[order]  # mass of the tokens ranked above
        inside = torch.zeros_like(kept)
        inside[order] = before < top_p
        inside[order[0]] = True  # the most probable token always stays
        kept &= inside
    kept &= tempered > 0
    kept[order[0]] = True
    probabilities = torch.where(kept, tempered, torch.zeros_like(tempered))
    return Distribution(logits, tempered, kept, probabilities / probabilities.sum())
