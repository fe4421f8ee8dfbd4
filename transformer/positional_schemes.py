"""The ways a model knows where each token stands, one record each: what the app calls it, where it acts and what
it needs. The model, the pages' controls, the architecture diagram and the parameter count read this registry.

A scheme acts in one of three places: it adds a vector PE[pos] to each token's embedding (the paper's sinusoids,
a learned table), it acts inside attention on the scores (rotary turns q and k by their positions, ALiBi adds
-m_h |i - j|), or nowhere ("none": attention alone cannot tell the order of its keys).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from torch import nn

from .positional import LearnedEncoding, SinusoidalEncoding

EMBEDDING, ATTENTION, NOWHERE = "the embeddings", "attention", "nowhere"


@dataclass(frozen=True)
class PositionalScheme:
    """One scheme. ``name`` is ``TransformerConfig.positional``; ``label`` what the controls show; ``acts_in`` one of
    ``EMBEDDING``, ``ATTENTION``, ``NOWHERE``; ``diagram`` the architecture diagram's note beside the embeddings
    (``\\n`` breaks a line); ``table`` builds the ``[positions, d_model]`` table added to the embeddings from
    (positions, d_model, base), None for a scheme that adds none; ``learned`` whether that table is trained;
    ``even_head`` whether each head's size must be even (rotary turns pairs of dimensions)."""

    name: str
    label: str
    acts_in: str
    diagram: str
    table: Callable[[int, int, float], nn.Module] | None = None
    learned: bool = False
    even_head: bool = False


SCHEMES: tuple[PositionalScheme, ...] = (
    PositionalScheme(
        "sinusoidal",
        "sinusoidal (paper)",
        EMBEDDING,
        "+ sinusoidal PE",
        table=lambda positions, d_model, base: SinusoidalEncoding(positions, d_model, base),
    ),
    PositionalScheme(
        "learned",
        "learned (untrained)",
        EMBEDDING,
        "+ learned PE",
        table=lambda positions, d_model, base: LearnedEncoding(positions, d_model),
        learned=True,
    ),
    PositionalScheme("rotary", "rotary (RoPE)", ATTENTION, "(RoPE inside\\nattention)", even_head=True),
    PositionalScheme("alibi", "ALiBi", ATTENTION, "(ALiBi bias inside\\nattention)"),
    PositionalScheme("none", "none", NOWHERE, "(no positional\\nencoding)"),
)
BY_NAME = {scheme.name: scheme for scheme in SCHEMES}
NAMES = tuple(BY_NAME)


def positional_scheme(name: str) -> PositionalScheme:
    """The scheme called ``name``, or a ValueError that lists the known ones."""
    if name not in BY_NAME:
        raise ValueError(f"positional={name!r} is unknown; use one of {NAMES}.")
    return BY_NAME[name]


def position_table(name: str, positions: int, d_model: int, base: float) -> nn.Module | None:
    """The table the scheme ``name`` adds to the embeddings of ``positions`` tokens, None where it adds none."""
    scheme = positional_scheme(name)
    return scheme.table(positions, d_model, base) if scheme.table else None
