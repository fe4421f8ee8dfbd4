"""Per-call interventions on attention heads: knock a head out, or patch in another pass's output or inputs.

An intervention acts on a head's output, its slice ``head_h = A_h V_h`` of
``Concat(head_1, ..., head_H)`` before ``W^O``, shape ``[B, L_q, d_head]``, or on what the head reads,
its queries ``Q_h``, keys ``K_h`` or values ``V_h`` (``[B, L, d_head]``, after any rotation; with
grouped-query attention, each query head's copy of its shared key-value head):

- ``Ablate(name, heads, how="zero")``: ``head_h <- 0``;
- ``Ablate(name, heads, how="mean")``: ``head_h <- mean over batch and positions of head_h`` (the same pass);
- ``Ablate(name, heads, how="resample", source=record)``: ``head_h <- source's head_h``, the head's output
  on *another input* (e.g. other examples of the task, of the same length), so the head gives an output it
  could have given and the model stays on the inputs it was trained on;
- ``Patch(name, heads, source)``: ``head_h <- source's head_h`` at every query position, or only at
  ``positions``; with ``part="q" | "k" | "v"``, ``Q_h`` (at query positions), ``K_h`` or ``V_h`` (at key
  positions) come from ``source`` instead, and the head computes ``softmax(Q_h K_h^T / sqrt(d_head)) V_h``
  from them.

``source`` is a ``ForwardRecord`` made with ``return_internals=True`` on an input of the same length.
They are arguments of one forward pass (``model(..., interventions=[...])``), carried by that pass's
record and never stored on a module, so sessions sharing one model can intervene differently at once.
Heads and positions count from 0.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import torch

ABLATIONS = ("zero", "mean", "resample")
PARTS = ("output", "q", "k", "v")
_RECORDED = {"output": "heads", "q": "q", "k": "k", "v": "v"}  # a part's name in a record's internals


def _indices(values: Iterable[int] | int, what: str) -> tuple[int, ...]:
    """Sorted distinct whole numbers >= 0 (``what`` names them in the error)."""
    values = (values,) if isinstance(values, int) else tuple(values)
    if any(isinstance(v, bool) or not isinstance(v, int) or v < 0 for v in values):
        raise ValueError(f"{what} must be whole numbers counted from 0, got {values!r}.")
    return tuple(sorted(set(values)))


def _check_heads(name: str, heads: tuple[int, ...], count: int) -> None:
    if heads and heads[-1] >= count:
        raise ValueError(f"{name} has {count} heads (0 to {count - 1}); head {heads[-1]} does not exist.")


def _check_source(source, name: str, part: str, what: str) -> None:
    if f"{name}.{_RECORDED[part]}" not in getattr(source, "internals", {}):
        raise ValueError(
            f"{what} needs a source record holding {name}'s {_RECORDED[part]}; make it with "
            f"return_internals=True on the same model."
        )


def take_from(
    tensor: torch.Tensor, given: torch.Tensor, name: str, heads: tuple[int, ...], positions: tuple[int, ...] | None
) -> torch.Tensor:
    """``tensor [B, H, L, d_head]`` with ``heads`` (at ``positions`` along L, all when None) taken from
    ``given [B or 1, H, L, d_head]``, another pass's same part; a new tensor."""
    _check_heads(name, heads, tensor.shape[1])
    if given.shape[1:] != tensor.shape[1:]:
        raise ValueError(
            f"patching needs inputs of the same length: {name} has {tensor.shape[2]} positions here "
            f"and {given.shape[2]} in the source."
        )
    if given.shape[0] not in (1, tensor.shape[0]):
        raise ValueError(f"the source has a batch of {given.shape[0]}; use 1 or {tensor.shape[0]}.")
    positions = tuple(range(tensor.shape[2])) if positions is None else positions
    if not heads or not positions:
        return tensor
    if positions[-1] >= tensor.shape[2]:
        raise ValueError(f"position {positions[-1]} is past the input's {tensor.shape[2]} positions.")
    out = tensor.clone()
    index, where = torch.tensor(heads), torch.tensor(list(positions), dtype=torch.long)
    rows = given.to(tensor.dtype).expand(tensor.shape[0], -1, -1, -1)
    out[:, index[:, None], where[None, :]] = rows[:, index[:, None], where[None, :]]
    return out


@dataclass(frozen=True)
class Ablate:
    """Knock out ``heads`` of the attention sublayer ``name`` (a record name): zero, mean or resample ablation
    (``source``, a record with internals of another input, for "resample" only)."""

    name: str
    heads: tuple[int, ...]
    how: str = "zero"
    source: object = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "heads", _indices(self.heads, "heads"))
        if self.how not in ABLATIONS:
            raise ValueError(f"how={self.how!r} is unknown; use one of {ABLATIONS}.")
        if self.how == "resample":
            _check_source(self.source, self.name, "output", "resample ablation")
        elif self.source is not None:
            raise ValueError(f"how={self.how!r} takes no source; a source is for how='resample'.")

    @property
    def part(self) -> str:
        """What it replaces: always the heads' output."""
        return "output"

    @property
    def acts(self) -> bool:
        """False when it names no head, and so changes nothing."""
        return bool(self.heads)

    def apply(self, heads: torch.Tensor) -> torch.Tensor:
        """``heads [B, H, Lq, d_head]`` with the chosen heads replaced (a new tensor)."""
        if self.how == "resample":
            return take_from(heads, self.source.internals[f"{self.name}.heads"], self.name, self.heads, None)
        _check_heads(self.name, self.heads, heads.shape[1])
        if not self.heads:
            return heads
        index = list(self.heads)
        out = heads.clone()
        if self.how == "zero":
            out[:, index] = 0.0
        else:
            out[:, index] = heads[:, index].mean(dim=(0, 2), keepdim=True).expand_as(heads[:, index])
        return out


@dataclass(frozen=True)
class Patch:
    """Give ``heads`` of ``name`` what they had in ``source`` (a record with internals): their output
    (``part="output"``), queries ("q"), keys ("k") or values ("v"), at every position or only at ``positions``
    (counted from 0; query positions for the output and queries, key positions for keys and values)."""

    name: str
    heads: tuple[int, ...]
    source: object = field(compare=False, repr=False)
    positions: tuple[int, ...] | None = None
    part: str = "output"

    def __post_init__(self) -> None:
        object.__setattr__(self, "heads", _indices(self.heads, "heads"))
        if self.positions is not None:
            object.__setattr__(self, "positions", _indices(self.positions, "positions"))
        if self.part not in PARTS:
            raise ValueError(f"part={self.part!r} is unknown; use one of {PARTS}.")
        _check_source(self.source, self.name, self.part, "patching")

    @property
    def acts(self) -> bool:
        """False when it names no head or no position, and so changes nothing."""
        return bool(self.heads) and self.positions != ()

    def apply(self, tensor: torch.Tensor) -> torch.Tensor:
        """``tensor [B, H, L, d_head]`` (the part patched) with the chosen heads (at the chosen positions) from
        the source."""
        given = self.source.internals[f"{self.name}.{_RECORDED[self.part]}"]
        return take_from(tensor, given, self.name, self.heads, self.positions)


def apply_interventions(interventions: tuple, name: str, tensor: torch.Tensor, part: str = "output") -> torch.Tensor:
    """``tensor [B, H, L, d_head]``, the ``part`` ("output", "q", "k", "v") of the sublayer ``name``'s heads,
    after every intervention on it, in the order given."""
    for intervention in interventions:
        if intervention.name == name and intervention.part == part:
            tensor = intervention.apply(tensor)
    return tensor


def check_names(interventions: tuple, names: Iterable[str]) -> tuple:
    """The interventions that act, as a tuple (one naming no head changes nothing and is dropped, so the
    pass is bit for bit the pass without it); an unknown name (not an attention sublayer of the model)
    is a ValueError."""
    interventions = tuple(interventions or ())
    known = set(names)
    for intervention in interventions:
        if not isinstance(intervention, (Ablate, Patch)):
            raise ValueError(f"{intervention!r} is not an intervention; use Ablate or Patch.")
        if intervention.name not in known:
            raise ValueError(
                f"{intervention.name!r} is not an attention sublayer of this model; use one of {sorted(known)}."
            )
    return tuple(intervention for intervention in interventions if intervention.acts)
