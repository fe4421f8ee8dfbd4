"""Per-call interventions on attention heads: knock a head out, or patch in another pass's output.

An intervention acts on a head's output, its slice ``head_h = A_h V_h`` of
``Concat(head_1, ..., head_H)`` before ``W^O``, shape ``[B, L_q, d_head]``:

- ``Ablate(name, heads, how="zero")``: ``head_h <- 0``;
- ``Ablate(name, heads, how="mean")``: ``head_h <- mean over batch and positions of head_h`` (the same pass);
- ``Patch(name, heads, source)``: ``head_h <- source's head_h`` at every query position, or only at
  ``positions``; ``source`` is a ``ForwardRecord`` made with ``return_internals=True`` on an input of
  the same length.

They are arguments of one forward pass (``model(..., interventions=[...])``), carried by that pass's
record and never stored on a module, so sessions sharing one model can intervene differently at once.
Heads count from 0.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import torch

ABLATIONS = ("zero", "mean")


def _indices(values: Iterable[int] | int, what: str) -> tuple[int, ...]:
    """Sorted distinct whole numbers >= 0 (``what`` names them in the error)."""
    values = (values,) if isinstance(values, int) else tuple(values)
    if any(isinstance(v, bool) or not isinstance(v, int) or v < 0 for v in values):
        raise ValueError(f"{what} must be whole numbers counted from 0, got {values!r}.")
    return tuple(sorted(set(values)))


def _check_heads(name: str, heads: tuple[int, ...], count: int) -> None:
    if heads and heads[-1] >= count:
        raise ValueError(f"{name} has {count} heads (0 to {count - 1}); head {heads[-1]} does not exist.")


@dataclass(frozen=True)
class Ablate:
    """Knock out ``heads`` of the attention sublayer ``name`` (a record name): zero or mean ablation."""

    name: str
    heads: tuple[int, ...]
    how: str = "zero"

    def __post_init__(self) -> None:
        object.__setattr__(self, "heads", _indices(self.heads, "heads"))
        if self.how not in ABLATIONS:
            raise ValueError(f"how={self.how!r} is unknown; use one of {ABLATIONS}.")

    @property
    def acts(self) -> bool:
        """False when it names no head, and so changes nothing."""
        return bool(self.heads)

    def apply(self, heads: torch.Tensor) -> torch.Tensor:
        """``heads [B, H, Lq, d_head]`` with the chosen heads replaced (a new tensor)."""
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
    """Give ``heads`` of ``name`` the outputs they had in ``source`` (a record with internals), at every
    query position or only at ``positions`` (counted from 0)."""

    name: str
    heads: tuple[int, ...]
    source: object = field(compare=False, repr=False)
    positions: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "heads", _indices(self.heads, "heads"))
        if self.positions is not None:
            object.__setattr__(self, "positions", _indices(self.positions, "positions"))
        if f"{self.name}.heads" not in getattr(self.source, "internals", {}):
            raise ValueError(f"the source record has no output of {self.name}'s heads; make it with "
                             f"return_internals=True on the same model.")

    @property
    def acts(self) -> bool:
        """False when it names no head or no position, and so changes nothing."""
        return bool(self.heads) and self.positions != ()

    def apply(self, heads: torch.Tensor) -> torch.Tensor:
        """``heads [B, H, Lq, d_head]`` with the chosen heads (at the chosen positions) from the source."""
        _check_heads(self.name, self.heads, heads.shape[1])
        given = self.source.internals[f"{self.name}.heads"]
        if given.shape[1:] != heads.shape[1:]:
            raise ValueError(f"patching needs inputs of the same length: {self.name} has "
                             f"{heads.shape[2]} positions here and {given.shape[2]} in the source.")
        if given.shape[0] not in (1, heads.shape[0]):
            raise ValueError(f"the source has a batch of {given.shape[0]}; use 1 or {heads.shape[0]}.")
        positions = tuple(range(heads.shape[2])) if self.positions is None else self.positions
        if not self.heads or not positions:
            return heads
        if positions[-1] >= heads.shape[2]:
            raise ValueError(f"position {positions[-1]} is past the input's {heads.shape[2]} positions.")
        out = heads.clone()
        index, where = torch.tensor(self.heads), torch.tensor(list(positions), dtype=torch.long)
        rows = given.to(heads.dtype).expand(heads.shape[0], -1, -1, -1)
        out[:, index[:, None], where[None, :]] = rows[:, index[:, None], where[None, :]]
        return out


def apply_interventions(interventions: tuple, name: str, heads: torch.Tensor) -> torch.Tensor:
    """``heads [B, H, Lq, d_head]`` after every intervention on ``name``, in the order given."""
    for intervention in interventions:
        if intervention.name == name:
            heads = intervention.apply(heads)
    return heads


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
            raise ValueError(f"{intervention.name!r} is not an attention sublayer of this model; "
                             f"use one of {sorted(known)}.")
    return tuple(intervention for intervention in interventions if intervention.acts)
