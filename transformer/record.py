"""The forward record: what one forward pass computed inside, by stable path-like name."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
import torch

from .interventions import apply_interventions

KINDS = ("self_attn", "cross_attn")


@dataclass(frozen=True)
class AttentionName:
    """An attention sublayer's record name, ``"<stack>.layers.<layer>.<kind>"`` (layer counted from 0), read in
    one place: ``AttentionName.parse("decoder.layers.1.self_attn").layer == 1``; ``str()`` writes it back."""

    stack: str
    layer: int
    kind: str

    @classmethod
    def parse(cls, name: str) -> "AttentionName":
        """ValueError for a name that is not an attention sublayer's."""
        parts = name.split(".")
        if len(parts) != 4 or parts[1] != "layers" or not parts[2].isdigit() or parts[3] not in KINDS:
            raise ValueError(f"{name!r} is not an attention sublayer's record name (<stack>.layers.<n>.<kind>).")
        return cls(parts[0], int(parts[2]), parts[3])

    def __str__(self) -> str:
        return f"{self.stack}.layers.{self.layer}.{self.kind}"


def select_names(names: Iterable[str], stack: str | None = None, kind: str | None = None) -> list[str]:
    """The record names among ``names`` (in their order) of one stack ("encoder", "decoder") and one kind
    ("self_attn", "cross_attn"); None for either keeps every stack or kind."""
    return [
        n for n in names if (stack is None or n.split(".")[0] == stack) and (kind is None or n.split(".")[-1] == kind)
    ]


@dataclass
class ForwardRecord:
    """Attention weights ``[B, H, Lq, Lk]`` per attention sub-layer and, on request, more.

    Names are path-like and stable: ``encoder.layers.0.self_attn``,
    ``decoder.layers.1.self_attn``, ``decoder.layers.1.cross_attn``. With
    ``keep_scores`` the pre-softmax scores (same shape, before the mask) are kept
    under the same names in ``scores``. With ``keep_internals`` ``internals`` holds,
    per layer ``P = <stack>.layers.<i>``:

    - ``<stack>.embed``: the embedded input ``[B, L, d]`` (tokens, positions, types; a vision
      model's [CLS] and patches with positions), and for a vision model ``encoder.patches``, its
      projected patches ``[B, N, d]`` before [CLS] and the positions join them;
    - ``P.input`` and ``P.after_self_attn``, ``P.after_cross_attn``,
      ``P.after_feed_forward`` (= the layer's output): the residual stream ``[B, L, d]``;
    - ``P.self_attn.q|k|v|heads`` ``[B, H, L, d_head]`` and ``P.self_attn.out`` ``[B, L, d]``
      (likewise ``cross_attn``); ``P.norm1.in|out`` ... ``P.norm3.in|out`` ``[B, L, d]``;
    - ``P.feed_forward.hidden`` ``[B, L, d_ff]`` (after the activation) and ``P.feed_forward.out``.

    A record is made fresh for each forward pass and only ever written by that
    call: modules never keep one, so one cached model can serve many sessions.
    ``tokens`` and ``model`` (an identity label) are filled in by whoever runs the
    model, so a figure can label itself from the record alone. ``interventions``
    (``Ablate``, ``Patch``) are this pass's: each attention sublayer applies the ones
    named after it to its heads' outputs (or queries, keys, values), and ``P.self_attn.heads`` (``.q``, ``.k``,
    ``.v``) then holds what the heads were given (the weights stay the ones they computed from it). ``asked`` is False
    for a record made only to carry interventions or a ``KVCache`` (``cache``, read by every
    attention sublayer of the pass): the model then returns none.
    """

    keep_scores: bool = False
    keep_internals: bool = False
    weights: dict[str, torch.Tensor] = field(default_factory=dict)
    scores: dict[str, torch.Tensor] = field(default_factory=dict)
    internals: dict[str, torch.Tensor] = field(default_factory=dict)
    tokens: tuple[str, ...] = ()
    model: str = ""
    interventions: tuple = ()
    asked: bool = True
    cache: object = None

    def add(self, name: str, weights: torch.Tensor, scores: torch.Tensor | None = None) -> None:
        """Store an attention call's weights (and, if kept, its scores); a record nobody asked for keeps none."""
        if not self.asked:
            return
        self.weights[name] = weights.detach()
        if self.keep_scores and scores is not None:
            self.scores[name] = scores.detach()

    def capture(self, name: str, tensor: torch.Tensor) -> torch.Tensor:
        """Keep ``tensor`` under ``name`` when internals are asked for; returns it unchanged."""
        if self.keep_internals:
            self.internals[name] = tensor.detach()
        return tensor

    def intervene(self, name: str, tensor: torch.Tensor, part: str = "output") -> torch.Tensor:
        """The heads' outputs ``[B, H, Lq, d_head]`` of the sublayer ``name`` (or, with ``part`` "q", "k" or "v",
        their queries, keys or values ``[B, H, L, d_head]``) after this pass's interventions."""
        return apply_interventions(self.interventions, name, tensor, part) if self.interventions else tensor

    def names(self, stack: str | None = None, kind: str | None = None) -> list[str]:
        """Names in layer order, optionally only one stack ("encoder") and kind ("cross_attn")."""
        return select_names(self.weights, stack, kind)

    def stacked(self, stack: str, kind: str = "self_attn", scores: bool = False) -> torch.Tensor:
        """All layers of one stack and kind as ``[layers, B, H, Lq, Lk]``."""
        source = self.scores if scores else self.weights
        return torch.stack([source[n] for n in self.names(stack, kind)])

    def numpy(self, name: str, batch: int = 0) -> np.ndarray:
        """One map's weights for one batch element, float32 ``[H, Lq, Lk]``."""
        return self.weights[name][batch].float().cpu().numpy()


def capture(record: ForwardRecord | None, name: str, tensor: torch.Tensor) -> torch.Tensor:
    """``record.capture(name, tensor)`` when there is a record; returns ``tensor``."""
    return tensor if record is None else record.capture(name, tensor)
