"""The KV cache: keys and values kept between the steps of one generation, per call, never on a module.

Generating token t+1 needs the keys and values of tokens 1..t, which do not change once computed
(a causal token never sees later ones). Without a cache every step runs the whole sequence again,
O(t) work per layer and token for the projections; with it, each step projects only the new token:

    K_{1..t+1} = [K_{1..t}; x_{t+1} W_K],  V_{1..t+1} = [V_{1..t}; x_{t+1} W_V].

Stored per attention sublayer as ``[B, H_kv, t, d_head]``: ``H_kv = num_kv_heads`` heads, so
multi-query and grouped-query attention shrink the cache by ``num_heads / num_kv_heads``; a sliding
window of w keeps only the last w positions. Cross-attention's keys and values (from the encoder's
output, the same at every step) are stored once, as is the encoder's output itself.

A cache is made by the caller (``KVCache()``), passed to ``model(..., cache=cache)`` and returned in
the output; the model advances ``positions`` by the tokens it read.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch


@dataclass
class KVCache:
    """Keys and values by sublayer name, the encoder's output, and how many tokens have been read."""

    keys: dict[str, torch.Tensor] = field(default_factory=dict)
    values: dict[str, torch.Tensor] = field(default_factory=dict)
    positions: int = 0
    memory: torch.Tensor | None = None

    def stored(self, name: str) -> int:
        """How many positions ``name`` holds (0 before the first call)."""
        return 0 if name not in self.keys else self.keys[name].shape[-2]

    def extend(self, name: str, k: torch.Tensor, v: torch.Tensor, window: int | None = None):
        """Append the new tokens' ``k``, ``v`` ``[B, H_kv, n, d_head]``; returns every stored position's
        keys and values (the attention reads them all), keeping at most the last ``window`` for later."""
        if name in self.keys:
            k, v = torch.cat([self.keys[name], k], dim=-2), torch.cat([self.values[name], v], dim=-2)
        self.keys[name], self.values[name] = (k, v) if window is None else (k[..., -window:, :], v[..., -window:, :])
        return k, v

    def fixed(self, name: str) -> tuple[torch.Tensor, torch.Tensor] | None:
        """Cross-attention's stored keys and values, or None before the first step."""
        return (self.keys[name], self.values[name]) if name in self.keys else None

    def keep(self, name: str, k: torch.Tensor, v: torch.Tensor) -> None:
        """Store cross-attention's keys and values once."""
        self.keys[name], self.values[name] = k, v

    def nbytes(self) -> int:
        """Bytes held by the stored keys and values (the encoder's output not included)."""
        return sum(t.numel() * t.element_size() for t in (*self.keys.values(), *self.values.values()))

    def shapes(self) -> dict[str, tuple[int, ...]]:
        """``[B, H_kv, t, d_head]`` of the keys per sublayer (values have the same)."""
        return {name: tuple(tensor.shape) for name, tensor in self.keys.items()}

    def reorder(self, rows: torch.Tensor) -> None:
        """Keep batch rows ``rows`` (a beam search's surviving hypotheses, each from its parent's row)."""
        for store in (self.keys, self.values):
            for name, tensor in store.items():
                store[name] = tensor.index_select(0, rows)
        if self.memory is not None:
            self.memory = self.memory.index_select(0, rows)
