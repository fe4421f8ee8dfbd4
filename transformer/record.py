"""The attention record: every attention map of one forward pass, by stable name."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch

KINDS = ("self_attn", "cross_attn")


@dataclass
class AttentionRecord:
    """Per-layer attention weights ``[B, H, Lq, Lk]`` (and optionally scores), by name.

    Names are path-like and stable: ``encoder.layers.0.self_attn``,
    ``decoder.layers.1.self_attn``, ``decoder.layers.1.cross_attn``. A record is
    made fresh for each forward pass; modules never keep one.
    """

    keep_scores: bool = False
    weights: dict[str, torch.Tensor] = field(default_factory=dict)
    scores: dict[str, torch.Tensor] = field(default_factory=dict)

    def add(self, name: str, weights: torch.Tensor, scores: torch.Tensor | None = None) -> None:
        self.weights[name] = weights.detach()
        if self.keep_scores and scores is not None:
            self.scores[name] = scores.detach()

    def names(self, stack: str | None = None, kind: str | None = None) -> list[str]:
        """Names in layer order, optionally only one stack ("encoder") and kind ("cross_attn")."""
        return [n for n in self.weights
                if (stack is None or n.split(".")[0] == stack)
                and (kind is None or n.split(".")[-1] == kind)]

    def stacked(self, stack: str, kind: str = "self_attn", scores: bool = False) -> torch.Tensor:
        """All layers of one stack and kind as ``[layers, B, H, Lq, Lk]``."""
        source = self.scores if scores else self.weights
        return torch.stack([source[n] for n in self.names(stack, kind)])

    def numpy(self, name: str, batch: int = 0) -> np.ndarray:
        """One map's weights for one batch element, float32 ``[H, Lq, Lk]``."""
        return self.weights[name][batch].float().cpu().numpy()
