"""Attention sinks: how much of each head's attention the first token receives.

A softmax must put its weight somewhere. In a trained causal model, a head that finds
nothing useful to read for a token often parks its weight on a token every query can see,
the first one (a [BOS] where the tokenizer puts one): Xiao et al. (2023) call it an attention
sink. A head's share on the first token, averaged over the queries after it, is

    s_{l,h} = mean_{t = 2..T} A^{(l,h)}_{t,1}

and is compared with what an even spread over the keys a query sees would give it:
mean_{t = 2..T} 1/t under a causal mask (query t sees t keys), 1/T without one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SINK_SHARE = 0.5  # a head giving the first token more than this (and twice the even share) uses it as a sink


def first_token_share(weights: np.ndarray) -> np.ndarray:
    """``[L, H, T, T]`` attention weights -> ``[L, H]``: the mean weight on key 1 over queries 2..T
    (NaN-free: a one-token text gives zeros, as there is no later query)."""
    weights = np.asarray(weights, dtype=np.float64)
    if weights.shape[-1] < 2:
        return np.zeros(weights.shape[:2])
    return weights[:, :, 1:, 0].mean(axis=-1)


def even_share(length: int, causal: bool) -> float:
    """The first token's share if every query spread its weight evenly over the keys it sees (queries 2..T)."""
    if length < 2:
        return 0.0
    if causal:
        return float(np.mean([1 / t for t in range(2, length + 1)]))
    return 1 / length


@dataclass(frozen=True)
class Sinks:
    """The heads' shares ``[L, H]`` on the first token, the even spread's share, and what they say."""

    shares: np.ndarray
    even: float

    @property
    def strongest(self) -> tuple[int, int, float]:
        """(layer, head, share) of the head that gives the first token the most, counted from 1."""
        layer, head = np.unravel_index(int(np.argmax(self.shares)), self.shares.shape)
        return int(layer) + 1, int(head) + 1, float(self.shares[layer, head])

    @property
    def sink_heads(self) -> list[tuple[int, int]]:
        """(layer, head), from 1, of the heads giving the first token more than half of their attention and at
        least twice the even spread's share: the heads that use it as a sink."""
        sinks = (self.shares > SINK_SHARE) & (self.shares >= 2 * self.even)
        return [(int(layer) + 1, int(head) + 1) for layer, head in zip(*np.nonzero(sinks))]

    def by_layer(self) -> list[float]:
        """The mean share of each layer's heads, layer 1 first."""
        return [float(row.mean()) for row in self.shares]


def attention_sinks(weights: np.ndarray, causal: bool) -> Sinks:
    """The sinks of ``weights [L, H, T, T]`` (causal or not)."""
    return Sinks(first_token_share(weights), even_share(np.shape(weights)[-1], causal))
