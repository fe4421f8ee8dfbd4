"""The ways a model knows where each token stands, one record each: what the app calls it, where it acts and what
it needs. The model, the pages' controls, the architecture diagram and the parameter count read this registry.

A scheme acts in one of three places: it adds a vector PE[pos] to each token's embedding (the paper's sinusoids,
a learned table), it acts inside attention on the scores (rotary turns q and k by their positions, ALiBi adds
-m_h |i - j|), or nowhere ("none": attention alone cannot tell the order of its keys).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import nn

from .positional import LearnedEncoding, SinusoidalEncoding, alibi_bias, apply_rotary

EMBEDDING, ATTENTION, NOWHERE = "the embeddings", "attention", "nowhere"


@dataclass(frozen=True)
class PositionalScheme:
    """One scheme. ``name`` is ``TransformerConfig.positional``; ``label`` what the controls show, ``title`` its
    heading (the Positional encoding page's picker: a URL value lessons link to); ``acts_in`` one of ``EMBEDDING``,
    ``ATTENTION``, ``NOWHERE``; ``diagram`` the architecture diagram's note beside the embeddings (``\\n`` breaks a
    line).

    Where it acts on the embeddings: ``table`` builds the ``[positions, d_model]`` table added to them from
    (positions, d_model, base); ``learned`` says whether that table is trained; ``embedding_term`` is the LaTeX
    term the pages add to the token embedding.

    Where it acts inside attention, ``inside`` says how in a sentence, and one or both of:
    - ``rotate(x, base, start, scaling)`` turns each head's queries or keys ``[..., L, d_head]`` at the positions
      ``start ..`` (``even_head``: it turns pairs of dimensions, so d_head must be even);
    - ``score_bias(heads, Lq, Lk, query_start, key_start)`` is added to the scores, ``[H, Lq, Lk]``, and
      ``bias_term(head, query, key)`` writes its entry in LaTeX (an empty ``head`` for one head)."""

    name: str
    label: str
    title: str
    acts_in: str
    diagram: str
    table: Callable[[int, int, float], nn.Module] | None = None
    learned: bool = False
    embedding_term: str = ""
    inside: str = ""
    rotate: Callable[[torch.Tensor, float, int, tuple | None], torch.Tensor] | None = None
    even_head: bool = False
    score_bias: Callable[[int, int, int, int, int], torch.Tensor] | None = None
    bias_term: Callable[[str, str, str], str] | None = None


def _alibi_term(head: str, query: str, key: str) -> str:
    """ALiBi's entry -m_h |i - j| in LaTeX (m alone for one head)."""
    slope = f"m_{{{head}}}" if head else "m"
    return rf"-{slope}\,|{query} - {key}|"


SCHEMES: tuple[PositionalScheme, ...] = (
    PositionalScheme(
        "sinusoidal",
        "sinusoidal (paper)",
        "Sinusoidal",
        EMBEDDING,
        "+ sinusoidal PE",
        table=lambda positions, d_model, base: SinusoidalEncoding(positions, d_model, base),
        embedding_term=" + PE",
    ),
    PositionalScheme(
        "learned",
        "learned (untrained)",
        "Learned",
        EMBEDDING,
        "+ learned PE",
        table=lambda positions, d_model, base: LearnedEncoding(positions, d_model),
        learned=True,
        embedding_term=r" + P_{\text{learned}}",
    ),
    PositionalScheme(
        "rotary",
        "rotary (RoPE)",
        "Rotary (RoPE)",
        ATTENTION,
        "(RoPE inside\\nattention)",
        inside="q and k are rotated by their position (RoPE)",
        rotate=apply_rotary,
        even_head=True,
    ),
    PositionalScheme(
        "alibi",
        "ALiBi",
        "ALiBi",
        ATTENTION,
        "(ALiBi bias inside\\nattention)",
        inside="a distance penalty is added to the scores (ALiBi)",
        score_bias=alibi_bias,
        bias_term=_alibi_term,
    ),
    PositionalScheme("none", "none", "None", NOWHERE, "(no positional\\nencoding)"),
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
